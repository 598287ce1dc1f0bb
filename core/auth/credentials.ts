/**
 * What a run holds to get past a protected (OAuth 2.1) server, as the engine sees it. The engine knows no
 * authorization server: whoever gets the token (--header, --oauth's client flow in core/auth, or the harness's own
 * authorization server for --auth-server) hands the run a Credentials value; the HTTP transports put its token on
 * every request, and the `auth` suite reads it (ctx.input(credentialsInput)) for the checks that need a token.
 *
 * Nothing here is ever written to a report, a cassette or the console: tokens go on the wire only.
 */
import type { AuthDiscovered, AuthExchange, AuthorizationInfo, CredentialSource } from '../results.js';
export type { AuthExchange, CredentialSource } from '../results.js';
import type { RunInput } from '../inputs.js';

/**
 * Tokens the harness can make for negative checks (only with its own authorization server, --auth-server):
 * each differs from a valid token in one way, except `expired-under-scoped`.
 */
export type TokenVariant =
  | 'valid'
  | 'expired'
  | 'wrong-audience'
  | 'wrong-issuer'
  | 'bad-signature'
  | 'under-scoped'
  | 'expired-under-scoped';

export interface Credentials {
  source: CredentialSource;
  /** The access token to send now (refreshed first when it is known to have expired), or undefined when there is none. */
  accessToken(): Promise<string | undefined>;
  /**
   * The server answered 401 to a request that carried accessToken(): refresh or authorize again once. Resolves to
   * a new token, or undefined when there is no other (the request's 401 then stands).
   */
  onUnauthorized?(wwwAuthenticate: string | undefined, refusedToken?: string): Promise<string | undefined>;
  /** The server answered 403 insufficient_scope: step up once to the scope the challenge names. */
  onInsufficientScope?(wwwAuthenticate: string): Promise<string | undefined>;
  /** Only with the harness's own authorization server (--auth-server): a token of this variant for the run's resource. */
  mint?(variant: TokenVariant): Promise<string>;
  /** What the authorization itself exchanged (for evidence in the `auth` suite), in order. */
  readonly exchanges: readonly AuthExchange[];
  /** Facts learnt while getting in, for the `auth` suite (absent when the token was simply given). */
  readonly discovered?: AuthDiscovered;

  /**
   * --oauth: why getting in failed (in plain words, nothing secret); accessToken() then gives undefined and the run
   * goes on unauthenticated with what it can test.
   */
  readonly failure?: string;
  /**
   * Get the token now (--oauth: once the server is up; the runner calls it right after the transport has started, so
   * that a server started with --start is there). Optional: accessToken() gets in by itself when nothing called it.
   */
  prepare?(): Promise<void>;
  /** --oauth: how long getting in took (ms), once it has happened. */
  readonly ms?: number;
}

/** The run's credentials as cases read them: ctx.input(credentialsInput) (the engine puts RunOptions.credentials there). */
export const credentialsInput: RunInput<Credentials> = { id: 'credentials' };

/**
 * The credentials of a token the user gave (`--header "Authorization: Bearer X"`, or the config's `header`): source
 * 'header', always that token, no renewal. undefined when the headers carry no Bearer Authorization.
 */
export function headerCredentials(headers: Record<string, string> | undefined): Credentials | undefined {
  const entry = Object.entries(headers ?? {}).find(([k]) => k.toLowerCase() === 'authorization');
  const m = entry && /^Bearer\s+(\S+)\s*$/i.exec(entry[1]);
  if (!m) return undefined;
  const token = m[1]!;
  return { source: 'header', accessToken: async () => token, exchanges: [] };
}

/** What report.json says of credentials (report.authorization): never a token; the metadata documents left out. */
export function credentialsReport(c: Credentials): AuthorizationInfo {
  const { resourceMetadata: _r, authorizationServerMetadata: _a, ...discovered } = c.discovered ?? {};
  return {
    source: c.source,
    ...(c.failure !== undefined ? { failure: c.failure } : {}),
    ...(c.discovered ? { discovered } : {}),
    ...(c.ms !== undefined ? { ms: c.ms } : {}),
    exchanges: [...c.exchanges],
  };
}
