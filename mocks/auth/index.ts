/** The harness's OAuth authorization server (server.ts) and the run credentials it backs (credentials.ts). */
export {
  AuthServer,
  startAuthServer,
  OTHER_AUDIENCE,
  UNDER_SCOPE,
  WRONG_ISSUER,
  type AuthServerConfig,
  type AuthServerRequest,
  type MintOptions,
  type TokenClaims,
  type TokenEndpointAuthMethod,
} from './server.js';
export { authServerCredentials, type AuthServerCredentialsOptions } from './credentials.js';
export { jwks, jwtClaims, makeSigningKey, signJwt, type SigningKey } from './jwt.js';
export { ProtectedResource, CUSTOM_METADATA_PATH, type ProtectedConfig, type ResourceRequest } from './protected.js';
export {
  AUTH_SCENARIOS,
  authScenario,
  startAuthMock,
  authGuardFor,
  FOREIGN_RESOURCE,
  PRE_REGISTERED_CLIENT_ID,
  SCOPES,
  type AuthScenarioDef,
  type AuthRegistration,
  type RunningAuthMock,
} from './scenarios.js';
