/**
 * The ways a protected MCP server can be set up, as the client-auth scenarios of `mcp-conform client` play them, and the
 * one function that starts a mock so set up (with its authorization server) for `client --suite client-auth`,
 * `serve --auth` and the msw handlers alike. Each scenario is data: what the protected resource does (where its
 * metadata is, what its challenges say, which scopes it needs) and what the authorization server offers. Nothing here
 * says what a client should do about it: that is the client-auth suite's business.
 * https://modelcontextprotocol.io/specification/2025-11-25/basic/authorization
 */
import { noteSecretValue } from '../../core/secrets.js';
import type { MockSource } from '../engine.js';
import {
  startHttpMock,
  type HttpMockOptions,
  type PlainRequest,
  type PlainResponse,
  type RunningHttpMock,
  type StreamableHttpMock,
} from '../http.js';
import { randomToken } from './jwt.js';
import { ProtectedResource, type ProtectedConfig } from './protected.js';
import { AuthServer, type AuthServerConfig } from './server.js';

export type AuthRegistration = 'dynamic' | 'metadata-document' | 'pre-registered';

export interface AuthScenarioDef {
  name: string;
  description: string;
  protected: ProtectedConfig;
  as: AuthServerConfig;
  /** How the client is meant to get a client id here (what the authorization server offers). */
  registration: AuthRegistration;
  /** The mock speaks this protocol version only (the 2025-03-26 back-compat scenarios). */
  protocolVersion?: string;
  /** The set-up is one a client must refuse to authorize with (and why, in the scenario's terms). */
  refuse?: 'foreign-resource' | 'no-s256' | 'iss-wrong' | 'iss-missing' | 'state-mismatch';
  /** The authorization server refuses the client's registration as asked: giving up is an acceptable end. */
  mayGiveUp?: boolean;
}

/** The scopes of the scenarios: read for everything, write for tools/call where step-up is played. */
export const SCOPES = { read: 'mcp:read', write: 'mcp:write', admin: 'mcp:admin' };
/** The resource a foreign metadata names (scenario auth-foreign-resource). */
export const FOREIGN_RESOURCE = 'https://another-server.mcp-conform.invalid/mcp';
/** The pre-registered client's id (its secret is made per run). */
export const PRE_REGISTERED_CLIENT_ID = 'mcp-conform-pre-registered';

const ALL_SCOPES = [SCOPES.read, SCOPES.write, SCOPES.admin];
const BASE: ProtectedConfig = {
  metadataAt: ['suffixed'],
  namedInChallenge: true,
  challengeScope: `${SCOPES.read} ${SCOPES.write}`,
  scopesSupported: ALL_SCOPES,
  requiredScopes: [SCOPES.read],
};
const def = (
  name: string,
  description: string,
  p: Partial<ProtectedConfig> = {},
  as: AuthServerConfig = {},
  more: Partial<AuthScenarioDef> = {},
): AuthScenarioDef => ({
  name,
  description,
  protected: { ...BASE, ...p },
  as,
  registration:
    as.registration === false ? 'pre-registered' : as.clientIdMetadataDocuments ? 'metadata-document' : 'dynamic',
  ...more,
});

export const AUTH_SCENARIOS: AuthScenarioDef[] = [
  def(
    'auth-basic',
    "protected-resource metadata path-suffixed and named in the challenge (with scope), RFC 8414 metadata at the authorization server's origin, dynamic registration",
  ),
  def(
    'auth-prm-suffixed',
    'protected-resource metadata only at the path-suffixed well-known URL; the challenge does not name it',
    { namedInChallenge: false },
  ),
  def('auth-prm-root', 'protected-resource metadata only at the root well-known URL; the challenge does not name it', {
    metadataAt: ['root'],
    namedInChallenge: false,
  }),
  def(
    'auth-prm-root-origin',
    'protected-resource metadata only at the root well-known URL, naming the origin as its resource (the identifier that URL is built from); tokens are for the origin',
    { metadataAt: ['root'], namedInChallenge: false, identifier: 'origin' },
  ),
  def('auth-prm-custom', 'protected-resource metadata at a custom URL that only the challenge names', {
    metadataAt: ['custom'],
  }),
  def(
    'auth-as-path-insert',
    'an issuer with a path; its metadata only by RFC 8414 with the path inserted',
    {},
    { issuerPath: 'tenant', metadata: { oauth: true, openid: false } },
  ),
  def(
    'auth-as-oidc',
    'an issuer with a path; its metadata only by OpenID discovery with the path inserted',
    {},
    { issuerPath: 'tenant', metadata: { oauth: false, openid: 'inserted' } },
  ),
  def(
    'auth-as-oidc-appended',
    'an issuer with a path; its metadata only by OpenID discovery appended to the path',
    {},
    { issuerPath: 'tenant', metadata: { oauth: false, openid: 'appended' } },
  ),
  def(
    'auth-2025-03-26-metadata',
    "a 2025-03-26 server: no protected-resource metadata; the MCP URL's origin is the authorization server, its metadata at the origin",
    {
      metadataAt: [],
      namedInChallenge: false,
      challengeScope: undefined,
      scopesSupported: undefined,
      requiredScopes: [],
    },
    {},
    { protocolVersion: '2025-03-26' },
  ),
  def(
    'auth-2025-03-26-defaults',
    "a 2025-03-26 server without any metadata: the default endpoints /authorize, /token, /register on the MCP URL's origin",
    {
      metadataAt: [],
      namedInChallenge: false,
      challengeScope: undefined,
      scopesSupported: undefined,
      requiredScopes: [],
    },
    { metadata: { oauth: false, openid: false }, issInRedirect: false },
    { protocolVersion: '2025-03-26' },
  ),
  def(
    'auth-cimd',
    'the authorization server advertises Client ID Metadata Documents (and still offers dynamic registration)',
    {},
    { clientIdMetadataDocuments: true },
  ),
  def(
    'auth-pre-registered',
    'no registration: a confidential client pre-registered (MCP_CONFORM_CLIENT_ID / MCP_CONFORM_CLIENT_SECRET, {client_id} / {client_secret})',
    {},
    { registration: false, tokenEndpointAuthMethods: ['client_secret_basic', 'client_secret_post'] },
  ),
  def(
    'auth-token-none',
    'the token endpoint accepts only public clients (token_endpoint_auth_methods_supported: none)',
    {},
    { tokenEndpointAuthMethods: ['none'] },
  ),
  def(
    'auth-token-basic',
    'the token endpoint accepts only client_secret_basic; a registration asking for another method is registered with client_secret_basic and a secret (RFC 7591 lets the server replace it)',
    {},
    { tokenEndpointAuthMethods: ['client_secret_basic'] },
  ),
  def(
    'auth-token-post',
    'the token endpoint accepts only client_secret_post; a registration asking for another method is registered with client_secret_post and a secret',
    {},
    { tokenEndpointAuthMethods: ['client_secret_post'] },
  ),
  def(
    'auth-registration-refused',
    'the token endpoint accepts only client_secret_basic, and a registration asking for another method is refused (400 invalid_client_metadata): registering again with a listed method, or giving up, are both right',
    {},
    { tokenEndpointAuthMethods: ['client_secret_basic'], registrationMismatch: 'refuse' },
    { mayGiveUp: true },
  ),
  def('auth-scope-supported', 'the challenge names no scope; the protected-resource metadata lists scopes_supported', {
    challengeScope: undefined,
    scopesSupported: [SCOPES.read, SCOPES.write],
  }),
  def('auth-scope-none', 'no scope anywhere: neither in the challenge nor in scopes_supported', {
    challengeScope: undefined,
    scopesSupported: undefined,
    requiredScopes: [],
  }),
  def(
    'auth-step-up',
    `tools/call needs ${SCOPES.write} besides ${SCOPES.read}: 403 insufficient_scope naming both until the token has it`,
    { challengeScope: SCOPES.read, stepUp: { scopes: [SCOPES.write] } },
  ),
  def(
    'auth-step-up-limit',
    'tools/call is refused 403 insufficient_scope whatever the token: a client must give up after a few tries',
    { challengeScope: SCOPES.read, stepUp: { scopes: [SCOPES.write], never: true } },
  ),
  def(
    'auth-401-later',
    'initialize, notifications/initialized, server/discover, tools/list and the GET of a stream are served without a token; tools/call gets the 401 challenge: the client must authorize then and retry',
    { openMethods: ['initialize', 'notifications/initialized', 'server/discover', 'tools/list'] },
  ),
  def(
    'auth-foreign-resource',
    'the protected-resource metadata names another server as its resource: a client must not use it',
    { resource: FOREIGN_RESOURCE },
    {},
    { refuse: 'foreign-resource' },
  ),
  def(
    'auth-no-s256',
    "the authorization server's metadata does not list S256 in code_challenge_methods_supported: a client must refuse it",
    {},
    { s256: false },
    { refuse: 'no-s256' },
  ),
  def(
    'auth-iss-wrong',
    'the authorization server advertises the iss response parameter, and its redirect names another issuer (a mix-up)',
    {},
    { issInRedirect: 'wrong', advertiseIss: true },
    { refuse: 'iss-wrong' },
  ),
  def(
    'auth-state-mismatch',
    "the authorization response carries another state than the request's (a forged or mixed-up redirect): a client must not exchange its code",
    {},
    { stateInRedirect: 'wrong' },
    { refuse: 'state-mismatch' },
  ),
  def(
    'auth-iss-missing',
    'the authorization server advertises the iss response parameter, and its redirect has none',
    {},
    { issInRedirect: false, advertiseIss: true },
    { refuse: 'iss-missing' },
  ),
];

export const authScenario = (name: string): AuthScenarioDef | undefined => AUTH_SCENARIOS.find((s) => s.name === name);

export interface AuthMockOptions extends HttpMockOptions {
  kind: 'streamable-http' | 'sse';
  port: number;
  host?: string;
  /** The Streamable HTTP handler (mcp-conform client's recording one). */
  handler?: Pick<StreamableHttpMock, 'handle'>;
  /** A consent page at the authorization endpoint instead of approving at once. */
  consent?: boolean;
  /** The pre-registered client's secret (default: made per run). */
  clientSecret?: string;
}

export interface RunningAuthMock extends RunningHttpMock {
  protected: ProtectedResource;
  as: AuthServer;
  /** The pre-registered client, where the scenario has one (its secret noted as a secret to redact). */
  client?: { clientId: string; clientSecret: string };
}

/** Starts the MCP mock protected as the scenario says, with its authorization server (its own loopback port, or the mock's origin). */
export async function startAuthMock(
  source: MockSource,
  scenario: AuthScenarioDef,
  o: AuthMockOptions,
): Promise<RunningAuthMock> {
  const client =
    scenario.registration === 'pre-registered'
      ? { clientId: PRE_REGISTERED_CLIENT_ID, clientSecret: o.clientSecret ?? randomToken(24) }
      : undefined;
  if (client) noteSecretValue(client.clientSecret, 'client secret');
  const as = new AuthServer({
    ...scenario.as,
    ...(o.consent ? { consent: true } : {}),
    ...(client ? { clients: [{ clientId: client.clientId, clientSecret: client.clientSecret }] } : {}),
  });
  const same = !!scenario.protected.sameOriginAuthServer || scenario.protected.metadataAt.length === 0;
  if (!same) await as.start();
  let guard: ProtectedResource | undefined;
  let running: RunningHttpMock;
  try {
    running = await startHttpMock(source, { ...o, guard: (req) => guard!.handle(req) });
  } catch (e) {
    await as.close();
    throw e;
  }
  if (same) as.attach(running.url);
  const paths = o.kind === 'sse' ? ['/sse', '/message'] : [new URL(running.url).pathname];
  guard = new ProtectedResource(as, running.url, { ...scenario.protected, sameOriginAuthServer: same }, paths);
  const p = guard;
  return {
    ...running,
    protected: p,
    as,
    ...(client ? { client } : {}),
    close: async () => {
      await running.close();
      await as.close();
    },
  };
}

/** The protected layer as msw sees it: one function from a plain request to an answer or undefined (the MCP mock's turn). */
export function authGuardFor(
  url: string,
  scenario: AuthScenarioDef,
  consent = false,
  paths?: string[],
): { guard: (r: PlainRequest) => Promise<PlainResponse | undefined>; protected: ProtectedResource; as: AuthServer } {
  const as = new AuthServer({ ...scenario.as, ...(consent ? { consent: true } : {}) });
  as.attach(url);
  const p = new ProtectedResource(as, url, { ...scenario.protected, sameOriginAuthServer: true }, paths);
  return { guard: (r) => p.handle(r), protected: p, as };
}
