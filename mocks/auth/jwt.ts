/**
 * RS256 JSON Web Tokens with node:crypto only: a signing key per authorization server (in memory, never written), its
 * public half as a JWK set, and the signing of a claims object.
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

/** RSA key pairs made so far by this process (two at most: see makeSigningKey). */
const pairs: { privateKey: KeyObject; publicKey: KeyObject }[] = [];

/**
 * A signing key with a fresh random key id. Its RSA key pair (2048 bits) is made once per process and shared by every
 * authorization server of the process: making one costs 0.1–0.3 s of CPU, and `client --suite client-auth` starts an
 * authorization server per scenario. What tells the servers apart is unchanged: each has its own key id and issuer,
 * and one refuses a token of another (AuthServer.verify checks the issuer). `unlike`: a key pair other than that
 * key's, for a token signed by a key its server does not publish (the bad-signature variant).
 */
export function makeSigningKey(unlike?: SigningKey): SigningKey {
  let pair = pairs.find((p) => p.privateKey !== unlike?.privateKey);
  if (!pair) {
    pair = generateKeyPairSync('rsa', { modulusLength: 2048 });
    pairs.push(pair);
  }
  return { kid: randomBytes(8).toString('hex'), privateKey: pair.privateKey, publicKey: pair.publicKey };
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
