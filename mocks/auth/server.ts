/**
 * The harness's own OAuth 2.1 authorization server, on loopback (127.0.0.1, a port the system picks). One
 * implementation with two uses: `run --auth-server` (a protected server under test trusts it, and the harness mints
 * the tokens its checks need), and the authorization server of a protected mock that grades clients. What it offers
 * is configurable per scenario (AuthServerConfig); it approves every authorization at once and judges nothing — it
 * keeps a log of what it was asked (`requests`, secrets redacted) for whoever grades.
 *
 * - metadata: RFC 8414 (`/.well-known/oauth-authorization-server`, path inserted after the host for an issuer with a
 *   path) and OpenID discovery (`/.well-known/openid-configuration`, inserted and appended);
 * - a JWK set, RS256 JWT access tokens (RFC 9068 claims: iss, aud, exp, iat, scope, sub, client_id), or opaque tokens
 *   with RFC 7662 introspection;
 * - dynamic client registration (RFC 7591), pre-registered clients;
 * - an authorization endpoint that redirects at once with `code`, `state` and (RFC 9207) `iss`;
 * - a token endpoint: authorization_code (PKCE S256 checked, RFC 7636), refresh_token, client_credentials; the
 *   `resource` indicator (RFC 8707) becomes the token's audience.
 * The signing key is made when the server starts, held in memory, and never written.
 */
import { createHash, timingSafeEqual } from 'node:crypto';
import { createServer, type IncomingMessage, type Server } from 'node:http';
import type { AddressInfo } from 'node:net';
import type { TokenVariant } from '../../core/auth/credentials.js';
import { noteSecretValue, redactUrl } from '../../core/secrets.js';
import { jwks, jwtClaims, makeSigningKey, randomToken, signJwt, type SigningKey } from './jwt.js';
import { verify as verifySignature } from 'node:crypto';
import type { PlainRequest, PlainResponse } from '../http.js';

export type TokenEndpointAuthMethod = 'none' | 'client_secret_basic' | 'client_secret_post';

/** What the authorization server offers: each member changes one thing a client (or a grader) can see. */
export interface AuthServerConfig {
  /** A path for the issuer (`/tenant`): metadata URLs then insert or append it. Default: none (the origin). */
  issuerPath?: string;
  /**
   * Which metadata documents are served (default both). openid: true serves OpenID discovery both inserted and appended
   * (for an issuer with a path); 'inserted' or 'appended' only the one.
   */
  metadata?: { oauth?: boolean; openid?: boolean | 'inserted' | 'appended' };
  /** List S256 in code_challenge_methods_supported (default true). false: the member is left out. */
  s256?: boolean;
  /** Put `iss` in the authorization response (default true); 'wrong': an issuer that is not this one (a mix-up). */
  issInRedirect?: boolean | 'wrong';
  /** Advertise authorization_response_iss_parameter_supported (default: as issInRedirect). */
  advertiseIss?: boolean;
  /** Token endpoint client authentication methods accepted and advertised (default none, client_secret_basic, client_secret_post). */
  tokenEndpointAuthMethods?: TokenEndpointAuthMethod[];
  /** Dynamic client registration (default true). */
  registration?: boolean;
  /**
   * A registration asking for a token_endpoint_auth_method not offered: 'replace' (default) registers the client with
   * one that is offered and says so in the answer, with a secret where it needs one (RFC 7591 §3.2.1 lets a server
   * replace requested values); 'refuse' answers 400 invalid_client_metadata.
   */
  registrationMismatch?: 'replace' | 'refuse';
  /** The state of the authorization response: 'wrong' returns another one than the request's (a forged redirect). */
  stateInRedirect?: 'wrong';
  /** Advertise client_id_metadata_document_supported (default false). */
  clientIdMetadataDocuments?: boolean;
  /** Clients known without registration. */
  clients?: { clientId: string; clientSecret?: string; redirectUris?: string[] }[];
  /** Access token format (default 'jwt'); 'opaque' tokens are checked by introspection. */
  tokenFormat?: 'jwt' | 'opaque';
  /** Serve RFC 7662 introspection (default: true when tokenFormat is 'opaque'). */
  introspection?: boolean;
  /** scopes_supported (default none listed). */
  scopesSupported?: string[];
  /** Lifetime of access tokens (seconds, default 3600). */
  tokenTtlSec?: number;
  /** Issue refresh tokens with authorization codes (default true). */
  refreshTokens?: boolean;
  /** Show a one-click consent page at the authorization endpoint instead of approving at once (for a person). */
  consent?: boolean;
}

/** What a token says (the claims of a JWT, or what introspection answers for an opaque one). */
export interface TokenClaims {
  iss: string;
  aud?: string | string[];
  sub: string;
  client_id: string;
  scope?: string;
  iat: number;
  exp: number;
}

/** One request the authorization server got, as a grader may read it (secrets redacted). */
export interface AuthServerRequest {
  method: string;
  /** Path and query, secret-looking parameters redacted. */
  url: string;
  endpoint: 'metadata' | 'jwks' | 'register' | 'authorize' | 'token' | 'introspect' | 'unknown';
  /** Form or JSON parameters (secret values redacted: code, code_verifier, client_secret, refresh_token, token). */
  params?: Record<string, string>;
  /** A registration: the token_endpoint_auth_method the client was registered with (the answer's). */
  registeredAuthMethod?: TokenEndpointAuthMethod;
  /** A registration whose asked token_endpoint_auth_method was replaced: the one it asked for. */
  replacedAuthMethod?: string;
  /** A token request: the client id it authenticated as; a registration: the client id issued. */
  clientId?: string;
  /** How the client authenticated at the token endpoint. */
  clientAuth?: TokenEndpointAuthMethod;
  /** Token endpoint, authorization_code grant: whether the code_verifier matched the code's code_challenge. */
  pkce?: 'matched' | 'mismatch' | 'missing';
  /** Authorization endpoint: where the client was sent back (the redirect, its code redacted). */
  redirect?: string;
  /** Token endpoint: whether a token was issued. */
  issued?: boolean;
  status: number;
  /** Why a request was refused, in plain words. */
  problem?: string;
  t: number;
  /** When it came (Date.now()): for durations. */
  at: number;
  /** Its place among every request the authorization server and the protected resource got (nextSeq): their order. */
  seq: number;
}

let lastSeq = 0;
/**
 * The order of the requests the authorization server and the protected resource get, one count for both (they live in
 * one process). Graders order by it, not by the clock: two requests in the same millisecond, or a clock set back
 * between them, must not put a client's answer before the refusal it answers.
 */
export function nextSeq(): number {
  return ++lastSeq;
}

export interface MintOptions {
  /** The resource (audience) a valid token is for. */
  resource: string;
  /** The scope of a valid token (space-separated). */
  scope?: string;
  clientId?: string;
  subject?: string;
}

interface Client {
  clientId: string;
  clientSecret?: string;
  redirectUris: string[];
  authMethod: TokenEndpointAuthMethod;
}
interface Grant {
  clientId: string;
  scope?: string;
  resource?: string;
}
interface PendingCode extends Grant {
  redirectUri: string;
  challenge?: string;
  method?: string;
  expires: number;
}

/** The issuer an authorization response names in a mix-up (issInRedirect: 'wrong'). */
export const WRONG_ISSUER = 'https://not-the-issuer.mcp-conform.invalid';
const SECRET_PARAMS = new Set([
  'code',
  'code_verifier',
  'client_secret',
  'refresh_token',
  'token',
  'access_token',
  'assertion',
  'client_assertion',
]);
/** An audience no real resource has: the wrong-audience variant's. */
export const OTHER_AUDIENCE = 'https://other-resource.mcp-conform.invalid/mcp';
/** A scope nobody requires: the under-scoped variants carry only this. */
export const UNDER_SCOPE = 'mcp-conform:under-scoped';

export class AuthServer {
  readonly requests: AuthServerRequest[] = [];
  private server?: Server;
  private origin = '';
  private readonly key: SigningKey = makeSigningKey();
  private stranger?: SigningKey;
  private readonly clients = new Map<string, Client>();
  private readonly codes = new Map<string, PendingCode>();
  private readonly refresh = new Map<string, Grant>();
  private readonly opaque = new Map<string, TokenClaims>();
  private readonly t0 = Date.now();

  constructor(readonly config: AuthServerConfig = {}) {
    for (const c of config.clients ?? [])
      this.clients.set(c.clientId, {
        clientId: c.clientId,
        clientSecret: c.clientSecret,
        redirectUris: c.redirectUris ?? [],
        authMethod: c.clientSecret ? 'client_secret_basic' : 'none',
      });
  }

  /** Listen on 127.0.0.1 (port 0: the system picks one). Resolves with the issuer URL. */
  async start(): Promise<string> {
    const server = createServer((req, res) => {
      void this.handle(req, res);
    });
    this.server = server;
    await new Promise<void>((resolve, reject) => {
      server.once('error', reject);
      server.listen(0, '127.0.0.1', () => resolve());
    });
    this.origin = `http://127.0.0.1:${(server.address() as AddressInfo).port}`;
    return this.issuer;
  }

  /** Serve at this origin through someone else's listener (respond()): a protected mock's own origin, or msw's. */
  attach(origin: string): string {
    this.origin = new URL(origin).origin;
    return this.issuer;
  }

  /** The issuer identifier (no trailing slash). */
  get issuer(): string {
    return this.origin + (this.config.issuerPath ? `/${this.config.issuerPath.replace(/^\/+|\/+$/g, '')}` : '');
  }

  get jwksUri(): string {
    return `${this.issuer}/jwks`;
  }

  /** The metadata document (RFC 8414) as this configuration serves it. */
  metadata(): Record<string, unknown> {
    const c = this.config;
    const methods = c.tokenEndpointAuthMethods ?? ['none', 'client_secret_basic', 'client_secret_post'];
    const iss = c.advertiseIss ?? c.issInRedirect ?? true;
    return {
      issuer: this.issuer,
      authorization_endpoint: `${this.issuer}/authorize`,
      token_endpoint: `${this.issuer}/token`,
      jwks_uri: this.jwksUri,
      ...((c.registration ?? true) ? { registration_endpoint: `${this.issuer}/register` } : {}),
      ...(this.introspects ? { introspection_endpoint: `${this.issuer}/introspect` } : {}),
      ...(c.scopesSupported ? { scopes_supported: c.scopesSupported } : {}),
      response_types_supported: ['code'],
      grant_types_supported: ['authorization_code', 'refresh_token', 'client_credentials'],
      token_endpoint_auth_methods_supported: methods,
      ...((c.s256 ?? true) ? { code_challenge_methods_supported: ['S256'] } : {}),
      ...(iss ? { authorization_response_iss_parameter_supported: true } : {}),
      ...(c.clientIdMetadataDocuments ? { client_id_metadata_document_supported: true } : {}),
      // OpenID discovery asks for these; harmless in RFC 8414 metadata.
      subject_types_supported: ['public'],
      id_token_signing_alg_values_supported: ['RS256'],
    };
  }

  private get introspects(): boolean {
    return this.config.introspection ?? this.config.tokenFormat === 'opaque';
  }

  /** Where each metadata document is served (paths on the origin), as configured. */
  metadataPaths(): string[] {
    const p = this.config.issuerPath ? `/${this.config.issuerPath.replace(/^\/+|\/+$/g, '')}` : '';
    const m = this.config.metadata ?? {};
    return [
      ...((m.oauth ?? true) ? [`/.well-known/oauth-authorization-server${p}`] : []),
      ...(m.openid === 'inserted'
        ? [`/.well-known/openid-configuration${p}`]
        : m.openid === 'appended'
          ? [`${p}/.well-known/openid-configuration`]
          : (m.openid ?? true)
            ? [...new Set([`/.well-known/openid-configuration${p}`, `${p}/.well-known/openid-configuration`])]
            : []),
    ];
  }

  /**
   * A token for the resource, of the given variant (TokenVariant): valid, or differing from a valid one in one way
   * (expired; another audience; another issuer; signed by a key not in the JWK set; only a scope nobody requires),
   * or both expired and under-scoped.
   */
  mint(variant: TokenVariant, o: MintOptions): string {
    const now = Math.floor(Date.now() / 1000);
    const expired = variant === 'expired' || variant === 'expired-under-scoped';
    const under = variant === 'under-scoped' || variant === 'expired-under-scoped';
    const claims: TokenClaims = {
      iss: variant === 'wrong-issuer' ? `${this.origin}/not-the-issuer` : this.issuer,
      aud: variant === 'wrong-audience' ? OTHER_AUDIENCE : o.resource,
      sub: o.subject ?? 'mcp-conform-user',
      client_id: o.clientId ?? 'mcp-conform',
      ...(under ? { scope: UNDER_SCOPE } : o.scope ? { scope: o.scope } : {}),
      iat: expired ? now - 7200 : now,
      exp: expired ? now - 3600 : now + (this.config.tokenTtlSec ?? 3600),
    };
    if (variant === 'bad-signature') {
      // Signed by a key the JWK set does not hold, under the published key id: what a forger would send.
      this.stranger ??= makeSigningKey(this.key);
      return this.issueAs(claims, this.stranger, this.key.kid, true);
    }
    return this.issueAs(claims, this.key);
  }

  private issueAs(claims: TokenClaims, key: SigningKey, kid = key.kid, forged = false): string {
    if (this.config.tokenFormat === 'opaque') {
      const t = randomToken(32);
      // An opaque token's signature is the authorization server's memory: a forged one is unknown to it.
      if (!forged) this.opaque.set(t, claims);
      noteSecretValue(t, 'access token');
      return t;
    }
    // Every secret this server hands out is one no report or console may show (a client may print it).
    const t = signJwt(claims as unknown as Record<string, unknown>, key, kid);
    noteSecretValue(t, 'access token');
    return t;
  }

  /** Stop listening and drop every connection. */
  async close(): Promise<void> {
    const s = this.server;
    if (!s) return;
    this.server = undefined;
    s.closeAllConnections();
    await new Promise<void>((resolve) => s.close(() => resolve()));
  }

  // -------------------------------------------------------------------------------------------------------------
  // HTTP, written once against plain values: its own listener (start) and a protected mock's or msw's (respond).

  /** Whether this server answers a request for this path (of its origin). */
  serves(method: string, path: string): boolean {
    const base = this.issuer.slice(this.origin.length);
    if (method === 'OPTIONS') return this.metadataPaths().includes(path) || path.startsWith(`${base}/`);
    if (method === 'GET')
      return this.metadataPaths().includes(path) || path === `${base}/jwks` || path === `${base}/authorize`;
    if (method === 'POST')
      return [`${base}/authorize`, `${base}/token`, `${base}/register`, `${base}/introspect`].includes(path);
    return false;
  }

  private async handle(req: IncomingMessage, res: import('node:http').ServerResponse): Promise<void> {
    if (req.method !== 'POST') req.resume();
    const body = req.method === 'POST' ? await readBody(req) : '';
    const r = await this.respond({
      method: req.method ?? 'GET',
      url: new URL(req.url ?? '/', this.origin),
      body,
      header: (n) => {
        const v = req.headers[n.toLowerCase()];
        return Array.isArray(v) ? v.join(', ') : v;
      },
    });
    res.writeHead(r.status, r.headers);
    res.end(r.body);
  }

  /** Answers one request (path relative to this server's origin). */
  async respond(req: PlainRequest): Promise<PlainResponse> {
    const url = req.url;
    const rec: AuthServerRequest = {
      method: req.method,
      url: redactUrl(url).slice(url.origin.length),
      endpoint: 'unknown',
      status: 0,
      t: Date.now() - this.t0,
      at: Date.now(),
      seq: nextSeq(),
    };
    this.requests.push(rec);
    const send = (
      status: number,
      body: unknown,
      headers: Record<string, string> = {},
      problem?: string,
    ): PlainResponse => {
      rec.status = status;
      if (problem) rec.problem = problem;
      const text = typeof body === 'string' ? body : JSON.stringify(body);
      return {
        status,
        headers: {
          'content-type': typeof body === 'string' ? 'text/plain' : 'application/json',
          'cache-control': 'no-store',
          'access-control-allow-origin': '*',
          ...headers,
        },
        body: text,
      };
    };
    const oauthError = (status: number, error: string, description: string, headers: Record<string, string> = {}) =>
      send(status, { error, error_description: description }, headers, `${error}: ${description}`);
    try {
      if (req.method === 'OPTIONS') {
        rec.status = 204;
        return {
          status: 204,
          headers: {
            'access-control-allow-origin': '*',
            'access-control-allow-methods': 'GET, POST, OPTIONS',
            'access-control-allow-headers': '*',
          },
        };
      }
      const base = this.issuer.slice(this.origin.length);
      const path = url.pathname;
      if (req.method === 'GET' && this.metadataPaths().includes(path)) {
        rec.endpoint = 'metadata';
        return send(200, this.metadata());
      }
      if (req.method === 'GET' && path === `${base}/jwks`) {
        rec.endpoint = 'jwks';
        return send(200, jwks([this.key]));
      }
      if ((req.method === 'GET' || req.method === 'POST') && path === `${base}/authorize`) {
        rec.endpoint = 'authorize';
        // POST: the consent page's form (its fields are the authorization request's).
        const q =
          req.method === 'POST'
            ? parseForm(req.body, req.header('content-type'))
            : Object.fromEntries(url.searchParams);
        return this.authorize(q, rec, req.method === 'GET' && (this.config.consent ?? false), oauthError);
      }
      if (req.method === 'POST' && path === `${base}/register` && (this.config.registration ?? true)) {
        rec.endpoint = 'register';
        let meta: Record<string, unknown>;
        try {
          meta = JSON.parse(req.body);
        } catch {
          return oauthError(400, 'invalid_client_metadata', 'the registration request is not JSON');
        }
        if (!meta || typeof meta !== 'object')
          return oauthError(400, 'invalid_client_metadata', 'the registration request is not a JSON object');
        rec.params = redactParams(
          Object.fromEntries(Object.entries(meta).map(([k, v]) => [k, typeof v === 'string' ? v : JSON.stringify(v)])),
        );
        const uris = Array.isArray(meta.redirect_uris)
          ? meta.redirect_uris.filter((u): u is string => typeof u === 'string')
          : [];
        const allowed = this.config.tokenEndpointAuthMethods ?? ['none', 'client_secret_basic', 'client_secret_post'];
        let asked =
          typeof meta.token_endpoint_auth_method === 'string'
            ? (meta.token_endpoint_auth_method as TokenEndpointAuthMethod)
            : allowed.includes('client_secret_basic')
              ? 'client_secret_basic'
              : allowed[0]!;
        if (!allowed.includes(asked)) {
          if (this.config.registrationMismatch === 'refuse')
            return oauthError(
              400,
              'invalid_client_metadata',
              `token_endpoint_auth_method ${asked} is not supported (${allowed.join(', ')})`,
            );
          rec.replacedAuthMethod = asked;
          asked = allowed.includes('client_secret_basic') ? 'client_secret_basic' : allowed[0]!;
        }
        rec.registeredAuthMethod = asked;
        const client: Client = {
          clientId: randomToken(12),
          redirectUris: uris,
          authMethod: asked,
          ...(asked === 'none' ? {} : { clientSecret: randomToken(24) }),
        };
        if (client.clientSecret) noteSecretValue(client.clientSecret, 'client secret');
        this.clients.set(client.clientId, client);
        rec.clientId = client.clientId;
        return send(201, {
          ...meta,
          client_id: client.clientId,
          ...(client.clientSecret ? { client_secret: client.clientSecret, client_secret_expires_at: 0 } : {}),
          token_endpoint_auth_method: asked,
          client_id_issued_at: Math.floor(Date.now() / 1000),
        });
      }
      if (req.method === 'POST' && (path === `${base}/token` || (path === `${base}/introspect` && this.introspects))) {
        const isToken = path === `${base}/token`;
        rec.endpoint = isToken ? 'token' : 'introspect';
        const form = parseForm(req.body, req.header('content-type'));
        rec.params = redactParams(form);
        for (const k of ['code_verifier', 'client_secret'] as const)
          if (form[k]) noteSecretValue(form[k]!, k === 'code_verifier' ? 'code verifier' : 'client secret');
        const auth = this.clientAuth(req.header('authorization'), form);
        rec.clientAuth = auth.method;
        if (auth.problem)
          return oauthError(401, 'invalid_client', auth.problem, { 'www-authenticate': 'Basic realm="mcp-conform"' });
        if (auth.client) rec.clientId = auth.client.clientId;
        const r = isToken ? this.token(form, auth.client, rec, send, oauthError) : this.introspect(form, send);
        if (isToken) rec.issued = r.status === 200;
        return r;
      }
      return send(
        404,
        { error: 'not_found', error_description: `nothing at ${req.method} ${path}` },
        {},
        'unknown endpoint',
      );
    } catch (e) {
      return send(500, { error: 'server_error', error_description: (e as Error).message });
    }
  }

  private authorize(
    q: Record<string, string>,
    rec: AuthServerRequest,
    askConsent: boolean,
    oauthError: (s: number, e: string, d: string) => PlainResponse,
  ): PlainResponse {
    rec.params = redactParams(q);
    const client = q.client_id
      ? (this.clients.get(q.client_id) ?? this.metadataDocumentClient(q.client_id))
      : undefined;
    if (!client) return oauthError(400, 'invalid_client', q.client_id ? 'unknown client_id' : 'client_id is missing');
    const redirect = q.redirect_uri ?? (client.redirectUris.length === 1 ? client.redirectUris[0] : undefined);
    if (!redirect) return oauthError(400, 'invalid_request', 'redirect_uri is missing');
    // Registered redirect URIs must match; a loopback redirect may change its port (RFC 8252 §7.3).
    if (client.redirectUris.length && !client.redirectUris.some((u) => sameRedirect(u, redirect)))
      return oauthError(400, 'invalid_request', 'redirect_uri is not registered for this client');
    let to: URL;
    try {
      to = new URL(redirect);
    } catch {
      return oauthError(400, 'invalid_request', 'redirect_uri is not a URL');
    }
    const answer = (params: Record<string, string>): PlainResponse => {
      for (const [k, v] of Object.entries(params)) to.searchParams.set(k, v);
      if (q.state !== undefined)
        to.searchParams.set(
          'state',
          // Another state, fresh every time, always of one form: its first two characters, `_`, random base64url.
          // A client that compares with what it sent refuses every such state; one that only recognizes its own form
          // (mcp-remote takes a state of [A-Za-z0-9-] as the name of a flow, and redeems any other with its current
          // flow) must not get a pass or a fail by the luck of the draw.
          this.config.stateInRedirect === 'wrong' ? `${q.state.slice(0, 2)}_${randomToken(12)}` : q.state,
        );
      const iss = this.config.issInRedirect ?? true;
      if (iss) to.searchParams.set('iss', iss === 'wrong' ? WRONG_ISSUER : this.issuer);
      rec.status = 302;
      // The code is a secret (its name is no secret-looking one: redacted here by name).
      const shownTo = new URL(to.href);
      if (shownTo.searchParams.has('code')) shownTo.searchParams.set('code', '[redacted]');
      rec.redirect = redactUrl(shownTo).replace('%5Bredacted%5D', '[redacted]');
      if (params.error) rec.problem = `${params.error}: ${params.error_description}`;
      return { status: 302, headers: { location: to.href, 'cache-control': 'no-store' } };
    };
    if (q.response_type !== 'code')
      return answer({ error: 'unsupported_response_type', error_description: 'only response_type=code' });
    if (q.code_challenge_method && q.code_challenge_method !== 'S256')
      return answer({
        error: 'invalid_request',
        error_description: `code_challenge_method ${q.code_challenge_method} is not supported`,
      });
    if (!q.code_challenge)
      return answer({ error: 'invalid_request', error_description: 'PKCE is required: code_challenge is missing' });
    if (askConsent && q.approve === undefined) {
      rec.status = 200;
      return consentPage(q, client.clientId, this.issuer);
    }
    const code = randomToken(24);
    noteSecretValue(code, 'authorization code');
    this.codes.set(code, {
      clientId: client.clientId,
      redirectUri: redirect,
      challenge: q.code_challenge,
      method: q.code_challenge_method ?? 'plain',
      scope: q.scope,
      resource: q.resource,
      expires: Date.now() + 60_000,
    });
    return answer({ code });
  }

  /** A client identified by the URL of its metadata document: accepted as it is (the document is not fetched). */
  private metadataDocumentClient(clientId: string): Client | undefined {
    if (!this.config.clientIdMetadataDocuments || !/^https?:\/\//.test(clientId)) return undefined;
    return { clientId, redirectUris: [], authMethod: 'none' };
  }

  private clientAuth(
    h: string | undefined,
    form: Record<string, string>,
  ): { client?: Client; method?: TokenEndpointAuthMethod; problem?: string } {
    const allowed = this.config.tokenEndpointAuthMethods ?? ['none', 'client_secret_basic', 'client_secret_post'];
    let id: string | undefined;
    let secret: string | undefined;
    let method: TokenEndpointAuthMethod;
    if (h && /^basic /i.test(h)) {
      const [u, p] = Buffer.from(h.slice(6).trim(), 'base64').toString('utf8').split(':');
      id = decodeURIComponent(u ?? '');
      secret = decodeURIComponent(p ?? '');
      method = 'client_secret_basic';
    } else if (form.client_secret !== undefined) {
      id = form.client_id;
      secret = form.client_secret;
      method = 'client_secret_post';
    } else {
      id = form.client_id;
      method = 'none';
    }
    if (!allowed.includes(method))
      return { method, problem: `client authentication ${method} is not accepted here (${allowed.join(', ')})` };
    if (!id) return { method, problem: 'no client_id' };
    const client = this.clients.get(id) ?? this.metadataDocumentClient(id);
    if (!client) return { method, problem: 'unknown client' };
    if (client.clientSecret !== undefined && !(secret !== undefined && safeEqual(secret, client.clientSecret)))
      return { method, problem: 'the client secret is missing or wrong' };
    return { client, method };
  }

  private token(
    form: Record<string, string>,
    client: Client | undefined,
    rec: AuthServerRequest,
    send: (s: number, b: unknown) => PlainResponse,
    oauthError: (s: number, e: string, d: string) => PlainResponse,
  ): PlainResponse {
    if (!client) return oauthError(401, 'invalid_client', 'no client');
    const issue = (g: Grant, withRefresh: boolean) => {
      const resource = form.resource ?? g.resource;
      const access = this.mint('valid', { resource: resource ?? this.issuer, scope: g.scope, clientId: g.clientId });
      const out: Record<string, unknown> = {
        access_token: access,
        token_type: 'Bearer',
        expires_in: this.config.tokenTtlSec ?? 3600,
        ...(g.scope ? { scope: g.scope } : {}),
      };
      if (withRefresh && (this.config.refreshTokens ?? true)) {
        const r = randomToken(32);
        noteSecretValue(r, 'refresh token');
        this.refresh.set(r, { ...g, resource });
        out.refresh_token = r;
      }
      return send(200, out);
    };
    switch (form.grant_type) {
      case 'authorization_code': {
        const c = form.code ? this.codes.get(form.code) : undefined;
        if (!c || c.expires < Date.now())
          return oauthError(400, 'invalid_grant', 'unknown, used or expired authorization code');
        this.codes.delete(form.code!);
        if (c.clientId !== client.clientId)
          return oauthError(400, 'invalid_grant', 'the code was issued to another client');
        if (form.redirect_uri !== undefined && form.redirect_uri !== c.redirectUri)
          return oauthError(400, 'invalid_grant', 'redirect_uri differs from the authorization request');
        if (!form.code_verifier) {
          rec.pkce = 'missing';
          return oauthError(400, 'invalid_request', 'code_verifier is missing');
        }
        const expected =
          c.method === 'S256'
            ? createHash('sha256').update(form.code_verifier).digest('base64url')
            : form.code_verifier;
        if (!safeEqual(expected, c.challenge ?? '')) {
          rec.pkce = 'mismatch';
          return oauthError(400, 'invalid_grant', 'code_verifier does not match code_challenge');
        }
        rec.pkce = 'matched';
        return issue({ clientId: c.clientId, scope: form.scope ?? c.scope, resource: c.resource }, true);
      }
      case 'refresh_token': {
        const g = form.refresh_token ? this.refresh.get(form.refresh_token) : undefined;
        if (!g || g.clientId !== client.clientId) return oauthError(400, 'invalid_grant', 'unknown refresh token');
        this.refresh.delete(form.refresh_token!); // rotated: public clients must get a new one (OAuth 2.1 §4.3.1)
        return issue({ ...g, scope: form.scope ?? g.scope }, true);
      }
      case 'client_credentials':
        if (client.clientSecret === undefined)
          return oauthError(400, 'unauthorized_client', 'client_credentials needs a confidential client');
        return issue({ clientId: client.clientId, scope: form.scope, resource: form.resource }, false);
      default:
        return oauthError(400, 'unsupported_grant_type', `grant_type ${form.grant_type ?? '(none)'} is not supported`);
    }
  }

  private introspect(form: Record<string, string>, send: (s: number, b: unknown) => PlainResponse): PlainResponse {
    const c = form.token ? this.opaque.get(form.token) : undefined;
    if (!c || c.exp <= Date.now() / 1000) return send(200, { active: false });
    return send(200, { active: true, token_type: 'Bearer', ...c });
  }

  /**
   * What a token this server issued says, if it is one (signed by its key, or an opaque token it holds), not expired
   * and of this issuer; undefined otherwise. The protected mock's token check (audience and scope are its own).
   */
  verify(token: string): TokenClaims | undefined {
    const now = Date.now() / 1000;
    if (this.config.tokenFormat === 'opaque') {
      const c = this.opaque.get(token);
      return c && c.exp > now ? c : undefined;
    }
    const parts = token.split('.');
    if (parts.length !== 3) return undefined;
    let ok = false;
    try {
      ok = verifySignature(
        'sha256',
        Buffer.from(`${parts[0]}.${parts[1]}`),
        this.key.publicKey,
        Buffer.from(parts[2]!, 'base64url'),
      );
    } catch {
      ok = false;
    }
    const c = ok ? (jwtClaims(token) as TokenClaims | undefined) : undefined;
    return c && c.iss === this.issuer && typeof c.exp === 'number' && c.exp > now ? c : undefined;
  }
}

/**
 * Start an authorization server with this configuration; close() it when done. `avoidPort`: a loopback port it must
 * not take (the port a server the harness is about to start will listen on: free at this moment, the system may give
 * it to this server, and the run would then wait for and test the authorization server). Another server is started
 * before the first is closed, so the system cannot give the same port again; at most four times.
 */
export async function startAuthServer(config: AuthServerConfig = {}, avoidPort?: number): Promise<AuthServer> {
  let s = new AuthServer(config);
  await s.start();
  for (let i = 0; i < 4 && avoidPort !== undefined && Number(new URL(s.issuer).port) === avoidPort; i++) {
    const next = new AuthServer(config);
    await next.start();
    await s.close();
    s = next;
  }
  return s;
}

function safeEqual(a: string, b: string): boolean {
  const x = Buffer.from(a);
  const y = Buffer.from(b);
  return x.length === y.length && timingSafeEqual(x, y);
}

function sameRedirect(registered: string, asked: string): boolean {
  if (registered === asked) return true;
  try {
    const r = new URL(registered);
    const a = new URL(asked);
    const loop = (h: string) => h === '127.0.0.1' || h === '[::1]' || h === 'localhost';
    return loop(r.hostname) && r.hostname === a.hostname && r.pathname === a.pathname && r.protocol === a.protocol;
  } catch {
    return false;
  }
}

const esc = (s: string) => s.replace(/&/g, '&amp;').replace(/</g, '&lt;').replace(/>/g, '&gt;').replace(/"/g, '&quot;');

/** The one-click consent page: the authorization request's fields, posted back with `approve`. */
function consentPage(q: Record<string, string>, clientId: string, issuer: string): PlainResponse {
  const fields = Object.entries(q)
    .map(([k, v]) => `<input type="hidden" name="${esc(k)}" value="${esc(v)}">`)
    .join('');
  const body = `<!doctype html><meta charset="utf-8"><title>Authorize ${esc(clientId)}</title>
<body style="font-family:sans-serif;max-width:40em;margin:3em auto">
<h1>mcp-conform: authorize this client?</h1>
<p>Client <code>${esc(clientId)}</code> asks for ${q.scope ? `scope <code>${esc(q.scope)}</code>` : 'no particular scope'}${q.resource ? ` on <code>${esc(q.resource)}</code>` : ''}.</p>
<p>Authorization server: <code>${esc(issuer)}</code> (a mock: nothing is checked but the OAuth parameters).</p>
<form method="post" action="">${fields}<button name="approve" value="1" style="font-size:1.2em">Approve</button></form></body>`;
  return { status: 200, headers: { 'content-type': 'text/html; charset=utf-8', 'cache-control': 'no-store' }, body };
}

function redactParams(p: Record<string, string>): Record<string, string> {
  return Object.fromEntries(Object.entries(p).map(([k, v]) => [k, SECRET_PARAMS.has(k) ? '[redacted]' : v]));
}

function parseForm(body: string, contentType: string | undefined): Record<string, string> {
  if ((contentType ?? '').includes('application/json')) {
    try {
      const j = JSON.parse(body);
      return Object.fromEntries(Object.entries(j).map(([k, v]) => [k, String(v)]));
    } catch {
      return {};
    }
  }
  return Object.fromEntries(new URLSearchParams(body));
}

/** The request body (at most 64 kB; bounded at 10 s). */
function readBody(req: IncomingMessage): Promise<string> {
  return new Promise((resolve) => {
    const chunks: Buffer[] = [];
    let n = 0;
    const timer = setTimeout(() => {
      req.destroy();
      resolve(Buffer.concat(chunks).toString('utf8'));
    }, 10_000);
    req.on('data', (b: Buffer) => {
      n += b.length;
      if (n <= 64 * 1024) chunks.push(b);
    });
    req.on('end', () => {
      clearTimeout(timer);
      resolve(Buffer.concat(chunks).toString('utf8'));
    });
    req.on('error', () => {
      clearTimeout(timer);
      resolve('');
    });
  });
}
