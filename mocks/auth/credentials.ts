/**
 * The run's Credentials when the harness runs its own authorization server (`run --auth-server`): a valid token for
 * the MCP URL, and every TokenVariant the `auth` suite's negative checks need (mint), all made by that server.
 *
 * The scope of a valid token: the one given (--auth-server-scope), else what the server asks for, looked up once at
 * the first token — the scope of its challenge to a GET without credentials (the spec makes the challenge's scope
 * authoritative), else the scopes_supported of its protected-resource metadata — else none.
 */
import type { AuthExchange, Credentials, TokenVariant } from '../../core/auth/credentials.js';
import { httpRequest, readBody } from '../../core/transport/http.js';
import { bearerChallenge } from '../../core/auth/challenge.js';
import { wellKnown } from '../../core/auth/discovery.js';
import type { AuthServer } from './server.js';

export interface AuthServerCredentialsOptions {
  /** The MCP URL: the audience of the tokens. */
  resource: string;
  /** The scope of a valid token (space-separated); absent: from the protected-resource metadata. */
  scope?: string;
  /** Bound of each metadata lookup (ms). */
  timeoutMs?: number;
}

export function authServerCredentials(as: AuthServer, o: AuthServerCredentialsOptions): Credentials {
  const exchanges: AuthExchange[] = [];
  const t0 = Date.now();
  let scope: Promise<string | undefined> | undefined;
  const discovered: NonNullable<Credentials['discovered']> = {
    authorizationServerMetadataUrl: wellKnown(as.issuer, 'oauth-authorization-server').href,
    issuer: as.issuer,
    authorizationServerMetadata: as.metadata(),
    registration: 'none',
  };
  const scopeOf = () => (scope ??= o.scope !== undefined ? Promise.resolve(o.scope || undefined) : lookUpScope());
  async function lookUpScope(): Promise<string | undefined> {
    const fromChallenge = await challengeScope();
    if (fromChallenge) return fromChallenge;
    for (const url of new Set([
      wellKnown(o.resource, 'oauth-protected-resource').href,
      wellKnown(o.resource, 'oauth-protected-resource', 'root').href,
    ])) {
      const x: AuthExchange = {
        purpose: "protected-resource metadata (for the scope of the harness's tokens)",
        method: 'GET',
        url,
        t: Date.now() - t0,
      };
      exchanges.push(x);
      try {
        const res = await httpRequest(new URL(url), 'GET', { Accept: 'application/json' }, undefined, {
          timeoutMs: o.timeoutMs ?? 5000,
          agent: false,
        });
        const b = await readBody(res.body, 256 * 1024, o.timeoutMs ?? 5000);
        x.status = res.status;
        x.body = b.text.slice(0, 4096);
        if (res.status !== 200) continue;
        const m = JSON.parse(b.text) as Record<string, unknown>;
        discovered.resourceMetadataUrl = url;
        discovered.resourceMetadata = m;
        const s = Array.isArray(m.scopes_supported)
          ? m.scopes_supported.filter((v): v is string => typeof v === 'string')
          : [];
        return s.length ? s.join(' ') : undefined;
      } catch (e) {
        x.error = (e as Error).message;
      }
    }
    return undefined;
  }
  /** The scope parameter of the server's Bearer challenge to a GET without credentials (it changes nothing there). */
  async function challengeScope(): Promise<string | undefined> {
    const x: AuthExchange = {
      purpose: "the challenge to a request without credentials (for the scope of the harness's tokens)",
      method: 'GET',
      url: o.resource,
      t: Date.now() - t0,
    };
    exchanges.push(x);
    try {
      const res = await httpRequest(new URL(o.resource), 'GET', { Accept: 'text/event-stream' }, undefined, {
        timeoutMs: o.timeoutMs ?? 5000,
        agent: false,
      });
      res.body.destroy();
      x.status = res.status;
      const www = res.headers['www-authenticate'];
      if (res.status !== 401 || typeof www !== 'string') return undefined;
      x.headers = { 'www-authenticate': www };
      return bearerChallenge(www)?.params.scope?.trim() || undefined;
    } catch (e) {
      x.error = (e as Error).message;
      return undefined;
    }
  }
  let current: { token: string; exp: number } | undefined;
  const mint = async (variant: TokenVariant) => {
    const s = await scopeOf();
    if (s !== undefined) discovered.scope = s;
    return as.mint(variant, { resource: o.resource, ...(s !== undefined ? { scope: s } : {}) });
  };
  return {
    source: 'auth-server',
    async accessToken() {
      if (!current || current.exp - 60_000 < Date.now())
        current = { token: await mint('valid'), exp: Date.now() + (as.config.tokenTtlSec ?? 3600) * 1000 };
      return current.token;
    },
    async onUnauthorized() {
      // A fresh token, once: a server that refuses a valid one gets nothing better.
      current = undefined;
      return undefined;
    },
    mint,
    exchanges,
    discovered,
  };
}
