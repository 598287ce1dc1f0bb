/**
 * --oauth: the harness gets into a protected MCP server as the spec tells a client to
 * (https://modelcontextprotocol.io/specification/2025-11-25/basic/authorization): discovery (discovery.ts), client
 * registration (pre-registered --client-id/--client-secret; a Client ID Metadata Document where the authorization
 * server supports them and --client-metadata-url is given; else dynamic registration, RFC 7591), then either the
 * authorization-code grant with PKCE S256, `state`, the `resource` indicator (RFC 8707) and the challenge's scope,
 * redirected to a loopback listener of the run — the harness follows the authorization URL itself, so a server that
 * approves at once needs nobody; one that shows a login page gets its URL printed and a bounded wait — or the
 * client_credentials grant (machine to machine, --oauth-grant client_credentials). The token is renewed by its
 * refresh token when it expires or a 401 comes, and stepped up once on 403 insufficient_scope.
 *
 * Nothing secret leaves this module except as a header on the wire: the exchanges are redacted (wire.ts) and every
 * secret value is noted so that any text written redacts it (core/secrets.ts).
 */
import { createHash, randomBytes } from 'node:crypto';
import { performance } from 'node:perf_hooks';
import type { ProtocolVersion } from '../schema/versions.js';
import { noteSecretValue } from '../secrets.js';
import { bearerChallenge } from './challenge.js';
import type { AuthExchange, Credentials } from './credentials.js';
import { discover, OAuthError, type Discovered } from './discovery.js';
import { openLoopback } from './loopback.js';
import { shownUrl, Wire, type Answer } from './wire.js';

export { OAuthError } from './discovery.js';

export type OAuthGrant = 'authorization_code' | 'client_credentials';

export interface OAuthOptions {
  /** The MCP endpoint (the resource). */
  mcpUrl: string;
  /** The version the run offers (or --protocol-version): which discovery the spec asks for. */
  protocolVersion: ProtocolVersion;
  grant?: OAuthGrant;
  clientId?: string;
  clientSecret?: string;
  /** A Client ID Metadata Document URL (its URL is the client_id), used where the authorization server supports them. */
  clientMetadataUrl?: string;
  /** Scope to ask for instead of the challenge's (or scopes_supported). */
  scope?: string;
  /** How long a login that needs a person may take (ms; default 120000). */
  timeoutMs?: number;
  /** Bound on each request of the authorization (ms; default 10000). */
  requestTimeoutMs?: number;
  /** The run's other headers (sent on the unauthenticated request; never an Authorization). */
  headers?: Record<string, string>;
  /** Lines for the person at the console (stderr): the URL to open when a login is needed. */
  print?: (line: string) => void;
  signal?: AbortSignal;
}

interface Client {
  id: string;
  secret?: string;
  authMethod: 'none' | 'client_secret_post' | 'client_secret_basic';
  registration: string;
}
interface Token {
  access: string;
  refresh?: string;
  expiresAt?: number;
  scope?: string /** When to renew it before sending (a little before expiresAt). */;
  renewAt?: number;
}

const b64url = (b: Buffer) => b.toString('base64url');
const formOf = (p: Record<string, string | undefined>) =>
  new URLSearchParams(Object.entries(p).filter((e): e is [string, string] => e[1] !== undefined)).toString();
const MAX_HOPS = 10;
/** A token this close to its expiry is renewed before it is sent (ms; at most a quarter of its lifetime). */
const EXPIRY_MARGIN_MS = 5000;

/** Whether the version in force makes a missing S256 a reason to refuse the authorization server (2025-11-25 on). */
const mustRefuseWithoutS256 = (v: ProtocolVersion) => v >= '2025-11-25';

class OAuthClient {
  readonly wire: Wire;
  d?: Discovered;
  client?: Client;
  token?: Token;
  scope?: string;
  interactive = false;
  private renewing?: Promise<string | undefined>;
  private steppedUp = false;
  private triedPost = false;

  constructor(
    readonly o: OAuthOptions,
    t0: number,
  ) {
    this.wire = new Wire(t0, o.requestTimeoutMs ?? 10_000, o.signal);
  }

  get grant(): OAuthGrant {
    return this.o.grant ?? 'authorization_code';
  }

  async getIn(): Promise<void> {
    const d = (this.d = await discover(this.wire, this.o.mcpUrl, this.o.protocolVersion, this.o.headers ?? {}));
    if (d.open) return;
    const m = d.authorizationServerMetadata ?? {};
    if (this.grant === 'authorization_code' && d.authorizationServerMetadata) {
      const methods = m.code_challenge_methods_supported;
      if (!Array.isArray(methods) || !methods.includes('S256')) {
        const why = `the authorization server ${d.issuer} does not list S256 in code_challenge_methods_supported (${JSON.stringify(methods ?? null)})`;
        if (mustRefuseWithoutS256(this.o.protocolVersion))
          throw new OAuthError(
            `${why}: a client must refuse it (PKCE S256 cannot be confirmed), so --oauth stops here`,
          );
      }
    }
    this.scope =
      this.o.scope ??
      d.challenge?.scope ??
      (Array.isArray(d.resourceMetadata?.scopes_supported)
        ? (d.resourceMetadata!.scopes_supported as string[]).join(' ')
        : undefined);
    if (this.grant === 'client_credentials') {
      if (!this.o.clientId || !this.o.clientSecret)
        throw new OAuthError('--oauth-grant client_credentials needs --client-id and --client-secret');
      this.client = {
        id: this.o.clientId,
        secret: this.o.clientSecret,
        authMethod: this.secretMethod(),
        registration: 'pre-registered',
      };
      this.token = await this.clientCredentials(this.scope);
      return;
    }
    const state = b64url(randomBytes(24));
    const loopback = await openLoopback(state);
    try {
      this.client = await this.register(loopback.redirectUri);
      this.token = await this.authorizationCode(loopback.redirectUri, state, loopback, this.scope);
    } finally {
      await loopback.close();
    }
  }

  /** client_secret_basic unless the server lists only client_secret_post (RFC 8414: basic is the default). */
  private secretMethod(): Client['authMethod'] {
    const listed = this.d?.authorizationServerMetadata?.token_endpoint_auth_methods_supported;
    if (!Array.isArray(listed) || listed.includes('client_secret_basic')) return 'client_secret_basic';
    return listed.includes('client_secret_post') ? 'client_secret_post' : 'client_secret_basic';
  }

  private async register(redirectUri: string): Promise<Client> {
    const o = this.o;
    const m = this.d!.authorizationServerMetadata ?? {};
    if (o.clientId) {
      if (o.clientSecret) noteSecretValue(o.clientSecret, 'oauth client_secret');
      return {
        id: o.clientId,
        ...(o.clientSecret ? { secret: o.clientSecret } : {}),
        authMethod: o.clientSecret ? this.secretMethod() : 'none',
        registration: 'pre-registered',
      };
    }
    if (o.clientMetadataUrl && m.client_id_metadata_document_supported === true) {
      return { id: o.clientMetadataUrl, authMethod: 'none', registration: 'client-id-metadata-document' };
    }
    const endpoint = this.d!.endpoints.registration;
    if (!endpoint) {
      throw new OAuthError(
        `the authorization server ${this.d!.issuer} offers no way for mcp-conform to register: no registration_endpoint${o.clientMetadataUrl ? '' : m.client_id_metadata_document_supported === true ? ' (it supports Client ID Metadata Documents: give --client-metadata-url)' : ''}; give --client-id (and --client-secret) of a client registered beforehand`,
      );
    }
    const body = JSON.stringify({
      client_name: 'mcp-conform',
      redirect_uris: [redirectUri],
      grant_types: ['authorization_code', 'refresh_token'],
      response_types: ['code'],
      // No `scope`: a client registered for the challenge's scope alone could not step up to a wider one later.
      token_endpoint_auth_method: 'none',
      application_type: 'native',
    });
    const a = await this.wire
      .send(
        'dynamic client registration (RFC 7591)',
        'POST',
        new URL(endpoint),
        { 'Content-Type': 'application/json', Accept: 'application/json' },
        body,
      )
      .catch((e: Error) => {
        throw new OAuthError(e.message);
      });
    const j = a.json as Record<string, unknown> | undefined;
    if (a.status < 200 || a.status >= 300 || !j || typeof j.client_id !== 'string')
      throw new OAuthError(`dynamic client registration at ${shownUrl(endpoint)} failed: ${answerWords(a)}`);
    const method =
      typeof j.token_endpoint_auth_method === 'string'
        ? j.token_endpoint_auth_method
        : typeof j.client_secret === 'string'
          ? 'client_secret_basic'
          : 'none';
    if (!['none', 'client_secret_post', 'client_secret_basic'].includes(method))
      throw new OAuthError(
        `dynamic client registration gave token_endpoint_auth_method ${JSON.stringify(method)}, which mcp-conform does not speak`,
      );
    return {
      id: j.client_id,
      ...(typeof j.client_secret === 'string' ? { secret: j.client_secret } : {}),
      authMethod: method as Client['authMethod'],
      registration: 'dynamic',
    };
  }

  private async authorizationCode(
    redirectUri: string,
    state: string,
    loopback: Awaited<ReturnType<typeof openLoopback>>,
    scope: string | undefined,
  ): Promise<Token> {
    const d = this.d!;
    const endpoint = d.endpoints.authorization;
    if (!endpoint)
      throw new OAuthError(`the authorization-server metadata of ${d.issuer} has no authorization_endpoint`);
    const verifier = b64url(randomBytes(48));
    noteSecretValue(verifier, 'oauth code_verifier');
    const url = new URL(endpoint);
    const params: Record<string, string | undefined> = {
      response_type: 'code',
      client_id: this.client!.id,
      redirect_uri: redirectUri,
      code_challenge: b64url(createHash('sha256').update(verifier).digest()),
      code_challenge_method: 'S256',
      state,
      resource: d.resource,
      scope,
    };
    for (const [k, v] of Object.entries(params)) if (v !== undefined) url.searchParams.set(k, v);
    const needsPerson = await this.follow(url, redirectUri);
    if (needsPerson) {
      this.interactive = true;
      this.o.print?.(
        `mcp-conform --oauth: the authorization server wants a person to log in. Open this URL in a browser (waiting up to ${Math.round((this.o.timeoutMs ?? 120_000) / 1000)} s):\n  ${url.href}`,
      );
    }
    const r = await loopback
      .wait(needsPerson ? (this.o.timeoutMs ?? 120_000) : this.wire.timeoutMs)
      .catch((e: Error) => {
        throw new OAuthError(e.message);
      });
    if (r.code) noteSecretValue(r.code, 'oauth authorization code');
    const issParamSupported = d.authorizationServerMetadata?.authorization_response_iss_parameter_supported === true;
    if (r.iss !== undefined && r.iss !== d.issuer && !sameIssuer(r.iss, d.issuer))
      throw new OAuthError(
        `the authorization response names issuer ${JSON.stringify(r.iss)}, not ${d.issuer}: refused (RFC 9207, a mix-up)`,
      );
    if (r.iss === undefined && issParamSupported)
      throw new OAuthError(
        `the authorization server advertises authorization_response_iss_parameter_supported, but its response carried no iss: refused (RFC 9207)`,
      );
    if (r.error)
      throw new OAuthError(
        `the authorization server refused: ${r.error}${r.errorDescription ? ` (${r.errorDescription})` : ''}`,
      );
    if (!r.code) throw new OAuthError('the redirect carried no code');
    return this.tokenRequest(
      'token request (authorization code)',
      {
        grant_type: 'authorization_code',
        code: r.code,
        redirect_uri: redirectUri,
        code_verifier: verifier,
        resource: d.resource,
      },
      scope,
    );
  }

  /**
   * Follow the authorization URL as a browser would, up to MAX_HOPS redirects (cookies kept per host): true when it
   * ends on a page for a person, false when it reached the redirect URI (delivered to the loopback listener).
   */
  private async follow(start: URL, redirectUri: string): Promise<boolean> {
    const jar = new Map<string, Map<string, string>>();
    let url = start;
    for (let hop = 0; hop <= MAX_HOPS; hop++) {
      const toUs = url.href.startsWith(`${redirectUri}?`) || url.href === redirectUri;
      const cookies = jar.get(url.host);
      const headers: Record<string, string> = { Accept: 'text/html,application/json' };
      if (cookies?.size) headers.Cookie = [...cookies].map(([k, v]) => `${k}=${v}`).join('; ');
      let a: Answer;
      try {
        a = await this.wire.send(
          toUs ? 'authorization: the redirect to the loopback listener' : `authorization: step ${hop + 1}`,
          'GET',
          url,
          headers,
        );
      } catch (e) {
        throw new OAuthError(e instanceof Error ? e.message : String(e));
      }
      if (toUs) return false;
      for (const line of (a.headers['set-cookie'] ?? '').split('\n').filter(Boolean)) {
        const [pair = ''] = line.split(';');
        const eq = pair.indexOf('=');
        if (eq <= 0) continue;
        let m = jar.get(url.host);
        if (!m) jar.set(url.host, (m = new Map()));
        m.set(pair.slice(0, eq).trim(), pair.slice(eq + 1).trim());
      }
      const loc = a.headers.location;
      if (a.status >= 300 && a.status < 400 && loc) {
        url = new URL(loc, url);
        continue;
      }
      if (a.status >= 400) throw new OAuthError(`the authorization endpoint answered ${answerWords(a)}`);
      return true;
    }
    throw new OAuthError(`the authorization URL redirected more than ${MAX_HOPS} times`);
  }

  private async clientCredentials(scope: string | undefined): Promise<Token> {
    return this.tokenRequest(
      'token request (client_credentials)',
      { grant_type: 'client_credentials', resource: this.d!.resource },
      scope,
    );
  }

  /** POST to the token endpoint with the client's authentication; the token, or an OAuthError in plain words. */
  private async tokenRequest(
    purpose: string,
    params: Record<string, string | undefined>,
    scope: string | undefined,
  ): Promise<Token> {
    const endpoint = this.d!.endpoints.token;
    if (!endpoint) throw new OAuthError(`the authorization-server metadata of ${this.d!.issuer} has no token_endpoint`);
    const c = this.client!;
    const headers: Record<string, string> = {
      'Content-Type': 'application/x-www-form-urlencoded',
      Accept: 'application/json',
    };
    const form: Record<string, string | undefined> = { ...params, scope };
    if (c.authMethod === 'client_secret_basic' && c.secret !== undefined) {
      headers.Authorization = `Basic ${Buffer.from(`${encodeURIComponent(c.id)}:${encodeURIComponent(c.secret)}`).toString('base64')}`;
    } else {
      form.client_id = c.id;
      if (c.authMethod === 'client_secret_post') form.client_secret = c.secret;
    }
    let a: Answer;
    try {
      a = await this.wire.send(purpose, 'POST', new URL(endpoint), headers, formOf(form));
    } catch (e) {
      throw new OAuthError((e as Error).message);
    }
    const j = a.json as Record<string, unknown> | undefined;
    if (
      c.authMethod === 'client_secret_basic' &&
      c.registration === 'pre-registered' &&
      (a.status === 400 || a.status === 401) &&
      j?.error === 'invalid_client' &&
      !this.triedPost
    ) {
      // A client registered beforehand whose method is not known here: basic refused, so post (once).
      this.triedPost = true;
      c.authMethod = 'client_secret_post';
      return this.tokenRequest(`${purpose}, again with client_secret_post`, params, scope);
    }
    if (a.status !== 200 || !j || typeof j !== 'object')
      throw new OAuthError(`the token endpoint ${shownUrl(endpoint)} did not give a token: ${answerWords(a)}`);
    if (typeof j.access_token !== 'string' || !j.access_token)
      throw new OAuthError(`the token endpoint's answer has no access_token`);
    if (typeof j.token_type !== 'string' || j.token_type.toLowerCase() !== 'bearer')
      throw new OAuthError(`the token endpoint's token_type is ${JSON.stringify(j.token_type)}, not Bearer`);
    const expiresIn =
      typeof j.expires_in === 'number'
        ? j.expires_in
        : typeof j.expires_in === 'string'
          ? Number(j.expires_in)
          : undefined;
    return {
      access: j.access_token,
      ...(typeof j.refresh_token === 'string'
        ? { refresh: j.refresh_token }
        : this.token?.refresh
          ? { refresh: this.token.refresh }
          : {}),
      ...(expiresIn !== undefined && Number.isFinite(expiresIn)
        ? {
            expiresAt: Date.now() + expiresIn * 1000,
            renewAt: Date.now() + expiresIn * 1000 - Math.min(EXPIRY_MARGIN_MS, expiresIn * 250),
          }
        : {}),
      ...(typeof j.scope === 'string' ? { scope: j.scope } : scope ? { scope } : {}),
    };
  }

  /** A new token for the same scope: the refresh token, else (client_credentials) a new grant. One at a time. */
  renew(): Promise<string | undefined> {
    return (this.renewing ??= (async () => {
      try {
        if (this.token?.refresh)
          this.token = await this.tokenRequest(
            'token request (refresh_token)',
            { grant_type: 'refresh_token', refresh_token: this.token.refresh, resource: this.d!.resource },
            undefined,
          );
        else if (this.grant === 'client_credentials') this.token = await this.clientCredentials(this.scope);
        else return undefined;
        return this.token.access;
      } catch (e) {
        this.wire.exchanges.push({
          purpose: 'renew the token',
          method: '-',
          url: this.d!.resource,
          error: (e as Error).message,
          t: this.wire.now(),
        });
        return undefined;
      } finally {
        this.renewing = undefined;
      }
    })());
  }

  /** Once per run: authorize again for the scope the 403's challenge names (with the scope held). */
  async stepUp(www: string): Promise<string | undefined> {
    if (this.steppedUp) return undefined;
    this.steppedUp = true;
    const wanted = bearerChallenge(www)?.params.scope;
    if (!wanted) return undefined;
    const scope = [
      ...new Set([...(this.token?.scope ?? this.scope ?? '').split(/\s+/), ...wanted.split(/\s+/)].filter(Boolean)),
    ].join(' ');
    this.scope = scope;
    try {
      if (this.grant === 'client_credentials') this.token = await this.clientCredentials(scope);
      else {
        const state = b64url(randomBytes(24));
        const loopback = await openLoopback(state);
        try {
          // The client is registered with the first listener's redirect URI: a loopback URI with another port is
          // the same client's (RFC 8252 §7.3), and servers that check the port exactly refuse it (then no step-up).
          this.token = await this.authorizationCode(loopback.redirectUri, state, loopback, scope);
        } finally {
          await loopback.close();
        }
      }
      return this.token.access;
    } catch (e) {
      this.wire.exchanges.push({
        purpose: `step up to scope "${scope}"`,
        method: '-',
        url: this.d!.resource,
        error: (e as Error).message,
        t: this.wire.now(),
      });
      return undefined;
    }
  }
}

function sameIssuer(a: string, b: string): boolean {
  try {
    return new URL(a).href === new URL(b).href;
  } catch {
    return false;
  }
}

function answerWords(a: Answer): string {
  const ct = (a.headers['content-type'] ?? '').split(';')[0]!.trim() || 'no Content-Type';
  const j = a.json as Record<string, unknown> | undefined;
  const err =
    j && typeof j.error === 'string'
      ? ` (error ${JSON.stringify(j.error)}${typeof j.error_description === 'string' ? `: ${j.error_description}` : ''})`
      : '';
  return `HTTP ${a.status}, ${ct}${err}${a.json === undefined && a.text.trim() ? ', not JSON' : ''}`;
}

/**
 * The credentials of --oauth. Getting in happens once, on prepare() (the runner calls it once the server is up:
 * with --start it is started first) or on the first accessToken(), whichever comes first; it never rejects: when the
 * authorization fails, the credentials hold no token and say why (`failure`), and the run goes on unauthenticated.
 */
export function oauthCredentials(o: OAuthOptions): Credentials {
  const c = new OAuthClient(o, performance.now());
  let failure: string | undefined;
  let ms: number | undefined;
  let started: Promise<void> | undefined;
  const ready = () =>
    (started ??= (async () => {
      const t = performance.now();
      try {
        await c.getIn();
      } catch (e) {
        failure = e instanceof OAuthError ? e.message : `--oauth failed: ${(e as Error).message}`;
      }
      ms = Math.round(performance.now() - t);
      if (c.token) noteSecretValue(c.token.access, 'oauth access_token');
    })());
  const renewable = () => c.token?.refresh !== undefined || c.grant === 'client_credentials';
  return {
    source: 'oauth',
    prepare: ready,
    async accessToken() {
      await ready();
      if (!c.token) return undefined;
      if (c.token.renewAt !== undefined && Date.now() > c.token.renewAt && renewable()) await c.renew();
      return c.token.access;
    },
    async onUnauthorized(_www, refused) {
      await ready();
      if (!c.token) return undefined;
      if (refused !== undefined && refused !== c.token.access) return c.token.access; // renewed meanwhile
      const t = await c.renew();
      if (t) noteSecretValue(t, 'oauth access_token');
      return t;
    },
    async onInsufficientScope(www) {
      await ready();
      if (!c.token) return undefined;
      const t = await c.stepUp(www);
      if (t) noteSecretValue(t, 'oauth access_token');
      return t;
    },
    exchanges: c.wire.exchanges as readonly AuthExchange[],
    get discovered() {
      const d = c.d;
      return {
        ...(d?.resourceMetadataUrl ? { resourceMetadataUrl: d.resourceMetadataUrl } : {}),
        ...(d?.resourceMetadata ? { resourceMetadata: d.resourceMetadata } : {}),
        ...(d?.authorizationServerMetadataUrl
          ? { authorizationServerMetadataUrl: d.authorizationServerMetadataUrl }
          : {}),
        ...(d?.authorizationServerMetadata ? { authorizationServerMetadata: d.authorizationServerMetadata } : {}),
        ...(d?.issuer ? { issuer: d.issuer } : {}),
        ...(c.client
          ? { registration: c.client.registration, tokenEndpointAuthMethod: c.client.authMethod }
          : d?.open
            ? { registration: 'none' }
            : {}),
        ...((c.token?.scope ?? c.scope) ? { scope: c.token?.scope ?? c.scope } : {}),
        ...(c.token ? { grant: c.grant, interactive: c.interactive } : {}),
        ...(d?.legacy ? { legacy: true } : {}),
      };
    },
    get failure() {
      return failure;
    },
    get ms() {
      return ms;
    },
  };
}
