/**
 * RS256 JSON Web Tokens with node:crypto only: a signing key made per authorization server (in memory, never
 * written), its public half as a JWK set, and the signing of a claims object.
 * https://www.rfc-editor.org/rfc/rfc7519 (JWT), https://www.rfc-editor.org/rfc/rfc7518#section-3.3 (RS256),
 * https://www.rfc-editor.org/rfc/rfc9068 (JWT access tokens: typ at+jwt).
 */
import { generateKeyPairSync, randomBytes, sign, type KeyObject } from 'node:crypto';

const b64url = (b: Buffer | string) => Buffer.from(b).toString('base64url');

export interface SigningKey {
  kid: string;
  privateKey: KeyObject;
  publicKey: KeyObject;
}

/** A fresh RSA key pair (2048 bits) with a random key id. */
export function makeSigningKey(): SigningKey {
  const { privateKey, publicKey } = generateKeyPairSync('rsa', { modulusLength: 2048 });
  return { kid: randomBytes(8).toString('hex'), privateKey, publicKey };
}

/** The JWK set that publishes these keys' public halves. */
export function jwks(keys: SigningKey[]): { keys: Record<string, unknown>[] } {
  return {
    keys: keys.map((k) => ({ ...k.publicKey.export({ format: 'jwk' }), kid: k.kid, alg: 'RS256', use: 'sig' })),
  };
}

/** A signed JWT (RS256) of these claims; `kid` names the key in the header (the signing key's own, unless given). */
export function signJwt(claims: Record<string, unknown>, key: SigningKey, kid = key.kid): string {
  const head = b64url(JSON.stringify({ alg: 'RS256', typ: 'at+jwt', kid }));
  const body = b64url(JSON.stringify(claims));
  const sig = sign('sha256', Buffer.from(`${head}.${body}`), key.privateKey);
  return `${head}.${body}.${b64url(sig)}`;
}

/** The claims of a JWT, unverified (for the harness's own bookkeeping), or undefined when it is not one. */
export function jwtClaims(token: string): Record<string, unknown> | undefined {
  const parts = token.split('.');
  if (parts.length !== 3) return undefined;
  try {
    const c = JSON.parse(Buffer.from(parts[1]!, 'base64url').toString('utf8'));
    return c && typeof c === 'object' && !Array.isArray(c) ? c : undefined;
  } catch {
    return undefined;
  }
}

/** A random opaque string (tokens, codes, client ids). */
export function randomToken(bytes = 24): string {
  return randomBytes(bytes).toString('base64url');
}
