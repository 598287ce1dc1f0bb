/**
 * The protected side of a mock: an MCP endpoint that answers nothing without a Bearer token of its authorization
 * server (mocks/auth/server.ts) for its own URL, with its protected-resource metadata (RFC 9728) served where a
 * configuration says, its 401 and 403 challenges (RFC 6750 §3, RFC 9728 §5.1), and — for a 2025-03-26 server — the
 * authorization server answering on the resource's own origin. Written against plain requests, so that the node
 * listener of `serve --auth` / `client --suite client-auth` and the msw handlers behave the same.
 *
 * It judges nothing: every request it saw is kept (`requests`: what the client sent, never a token) for a grader.
 */
import { canonicalUri, sameResource, wellKnown } from '../../core/auth/discovery.js';
import { redactUrl } from '../../core/secrets.js';
import type { PlainRequest, PlainResponse } from '../http.js';
import { nextSeq, type AuthServer } from './server.js';
import { META } from '../../core/wire.js';

export interface ProtectedConfig {
  /**
   * Where the protected-resource metadata is served: path-suffixed well-known URL, root well-known URL, a custom URL
   * (CUSTOM_METADATA_PATH). Empty: none at all (a 2025-03-26 server).
   */
  metadataAt: ('suffixed' | 'root' | 'custom')[];
  /** Name the metadata URL (the first of metadataAt) in the challenge's resource_metadata. */
  namedInChallenge: boolean;
  /** The resource the metadata names (default: the MCP URL). Another server's URL: a metadata a client must refuse. */
  resource?: string;
  /**
   * 'origin': the resource identifier is the MCP URL's origin (`http://127.0.0.1:PORT`, no trailing slash): the
   * metadata names it, and tokens for it are the server's. With metadataAt ['root'] that is the identifier the root
   * well-known URL is built from (RFC 9728 §3.1, §3.3).
   */
  identifier?: 'origin';
  /**
   * JSON-RPC methods served without a token (and, over HTTP+SSE, the GET of the stream): the challenge comes on a
   * later request (a 401 after the handshake). Absent: every request needs a token.
   */
  openMethods?: string[];
  /** scopes_supported of the metadata (absent: not listed). */
  scopesSupported?: string[];
  /** The scope the 401 challenge names (absent: none). */
  challengeScope?: string;
  /** Scopes every request needs (default: none). */
  requiredScopes?: string[];
  /** tools/call needs these scopes besides (a 403 insufficient_scope otherwise); never: no token is ever enough. */
  stepUp?: { scopes: string[]; never?: boolean };
  /** The authorization server is served on the resource's origin (2025-03-26: the origin is the authorization server). */
  sameOriginAuthServer?: boolean;
}

export const CUSTOM_METADATA_PATH = '/meta/resource.json';

/** One request the protected endpoint (or its metadata) got, as a grader may read it. Never holds a token. */
export interface ResourceRequest {
  n: number;
  /** ms since the mock started. */
  t: number;
  /** When it came (Date.now()): for durations. */
  at: number;
  /** Its place among the authorization server's and this resource's requests (nextSeq): their order. */
  seq: number;
  method: string;
  /** Path and query as sent, secret-looking parameters redacted. */
  url: string;
  kind: 'mcp' | 'resource-metadata' | 'other';
  /** The JSON-RPC method of a POSTed message. */
  rpcMethod?: string;
  /** initialize: the protocolVersion the client offered; a 2026-07-28 request: its _meta version. */
  offeredVersion?: string;
  /** The Authorization header: none, a Bearer token, or another scheme. */
  authorization: 'none' | 'bearer' | 'other';
  /** A Bearer token's state: valid for this resource, or why not; 'open': served without one (an open method). */
  token?: 'valid' | 'unknown' | 'wrong-audience' | 'insufficient-scope' | 'open';
  /** The scope of a token the authorization server issued. */
  tokenScope?: string;
  /** A token (access_token, or a value the authorization server issued) in the query string. */
  tokenInQuery?: boolean;
  /** The status the protected layer answered; absent: passed to the MCP mock. */
  status?: number;
  /** The WWW-Authenticate sent with a 401 or 403. */
  challenge?: string;
}

export class ProtectedResource {
  readonly requests: ResourceRequest[] = [];
  private readonly t0 = Date.now();

  /**
   * mcpUrl: the endpoint the client is given; paths: every path that is the endpoint (HTTP+SSE: the stream and the
   * message path).
   */
  constructor(
    readonly as: AuthServer,
    readonly mcpUrl: string,
    readonly config: ProtectedConfig,
    private readonly paths: string[] = [new URL(mcpUrl).pathname],
  ) {}

  /** The resource identifier: the audience a token must have, and the resource the metadata names (the canonical MCP URL, or its origin). */
  get resource(): string {
    return this.config.identifier === 'origin' ? new URL(this.mcpUrl).origin : canonicalUri(this.mcpUrl);
  }

  /** The URL of each place the metadata is served. */
  metadataUrls(): { where: 'suffixed' | 'root' | 'custom'; url: string }[] {
    return this.config.metadataAt.map((where) => ({
      where,
      url:
        where === 'custom'
          ? new URL(CUSTOM_METADATA_PATH, this.mcpUrl).href
          : wellKnown(this.resource, 'oauth-protected-resource', where === 'root' ? 'root' : 'insert').href,
    }));
  }

  metadata(): Record<string, unknown> {
    return {
      resource: this.config.resource ?? this.resource,
      authorization_servers: [this.as.issuer],
      bearer_methods_supported: ['header'],
      ...(this.config.scopesSupported ? { scopes_supported: this.config.scopesSupported } : {}),
    };
  }

  private challenge(extra: Record<string, string> = {}): string {
    const named = this.config.namedInChallenge ? this.metadataUrls()[0]?.url : undefined;
    const params: Record<string, string> = { ...extra, ...(named ? { resource_metadata: named } : {}) };
    if (!('scope' in extra) && this.config.challengeScope) params.scope = this.config.challengeScope;
    const s = Object.entries(params)
      .map(([k, v]) => `${k}="${v.replace(/["\\]/g, '\\$&')}"`)
      .join(', ');
    return s ? `Bearer ${s}` : 'Bearer';
  }

  /** Answers what the protected layer answers (metadata, the authorization server on this origin, 401, 403), else undefined: the MCP mock serves it. */
  async handle(req: PlainRequest): Promise<PlainResponse | undefined> {
    const path = req.url.pathname;
    if (this.config.sameOriginAuthServer && this.as.serves(req.method, path)) return this.as.respond(req);
    const rec: ResourceRequest = {
      n: this.requests.length,
      t: Date.now() - this.t0,
      at: Date.now(),
      seq: nextSeq(),
      method: req.method,
      url: redactUrl(req.url).slice(req.url.origin.length),
      kind: 'other',
      authorization: 'none',
    };
    const meta = this.metadataUrls().find((m) => new URL(m.url).pathname === path);
    if (meta && req.method === 'GET') {
      rec.kind = 'resource-metadata';
      rec.status = 200;
      this.requests.push(rec);
      return {
        status: 200,
        headers: {
          'content-type': 'application/json',
          'access-control-allow-origin': '*',
          'cache-control': 'no-store',
        },
        body: JSON.stringify(this.metadata()),
      };
    }
    if (!this.paths.includes(path)) {
      if (path.startsWith('/.well-known/') || path === CUSTOM_METADATA_PATH) {
        rec.status = 404;
        this.requests.push(rec);
        return {
          status: 404,
          headers: { 'content-type': 'application/json' },
          body: JSON.stringify({ error: 'not_found' }),
        };
      }
      return undefined;
    }
    rec.kind = 'mcp';
    this.requests.push(rec);
    if (req.method === 'POST') {
      try {
        const m = JSON.parse(req.body) as Record<string, unknown>;
        if (typeof m.method === 'string') rec.rpcMethod = m.method;
        const p = m.params && typeof m.params === 'object' ? (m.params as Record<string, unknown>) : {};
        const meta2 =
          p._meta && typeof p._meta === 'object'
            ? (p._meta as Record<string, unknown>)[META.protocolVersion]
            : undefined;
        const v = m.method === 'initialize' ? p.protocolVersion : meta2;
        if (typeof v === 'string') rec.offeredVersion = v;
      } catch {
        /* not JSON: the mock answers it */
      }
    }
    for (const [k, v] of req.url.searchParams)
      if (/^access_token$/i.test(k) || (v.length > 20 && this.as.verify(v))) rec.tokenInQuery = true;
    const h = req.header('authorization');
    const open = this.config.openMethods;
    // Open methods are served without a token, and so is the GET of a stream (HTTP+SSE's, or Streamable HTTP's standalone
    // one): the session is up, and the 401 comes on a request the client makes later.
    if (!h && open && (rec.rpcMethod ? open.includes(rec.rpcMethod) : req.method === 'GET')) {
      rec.token = 'open';
      return undefined;
    }
    const refuse = (status: number, challenge: string, error: string): PlainResponse => {
      rec.status = status;
      rec.challenge = challenge;
      return {
        status,
        headers: {
          'content-type': 'application/json',
          'www-authenticate': challenge,
          'access-control-expose-headers': 'WWW-Authenticate',
        },
        body: JSON.stringify({ error }),
      };
    };
    if (!h) return refuse(401, this.challenge(), 'unauthorized');
    const bearer = /^bearer\s+(\S+)\s*$/i.exec(h);
    if (!bearer) {
      rec.authorization = 'other';
      return refuse(401, this.challenge(), 'unauthorized');
    }
    rec.authorization = 'bearer';
    const claims = this.as.verify(bearer[1]!);
    if (!claims) {
      rec.token = 'unknown';
      return refuse(
        401,
        this.challenge({
          error: 'invalid_token',
          error_description: 'the token is unknown, expired or not of this authorization server',
        }),
        'invalid_token',
      );
    }
    if (claims.scope) rec.tokenScope = claims.scope;
    const aud = Array.isArray(claims.aud) ? claims.aud : [claims.aud];
    // A 2025-03-26 server is its own authorization server: with no resource indicator in that revision, a token for the origin is one for it.
    const own = this.config.sameOriginAuthServer ? [this.resource, this.as.issuer] : [this.resource];
    if (!aud.some((a) => typeof a === 'string' && own.some((o) => sameResource(a, o)))) {
      rec.token = 'wrong-audience';
      return refuse(
        401,
        this.challenge({ error: 'invalid_token', error_description: 'the token is not for this resource' }),
        'invalid_token',
      );
    }
    const granted = new Set((claims.scope ?? '').split(' ').filter(Boolean));
    const needed = [
      ...(this.config.requiredScopes ?? []),
      ...(rec.rpcMethod === 'tools/call' ? (this.config.stepUp?.scopes ?? []) : []),
    ];
    const missing = needed.filter((s) => !granted.has(s));
    if (missing.length || (rec.rpcMethod === 'tools/call' && this.config.stepUp?.never)) {
      rec.token = 'insufficient-scope';
      return refuse(
        403,
        this.challenge({
          error: 'insufficient_scope',
          scope: [...new Set(needed)].join(' '),
          error_description: `${rec.rpcMethod ?? req.method} needs scope ${needed.join(' ')}`,
        }),
        'insufficient_scope',
      );
    }
    rec.token = 'valid';
    return undefined;
  }
}
