/** The harness's OAuth authorization server (server.ts) and the run credentials it backs (credentials.ts). */
export { AuthServer, startAuthServer, OTHER_AUDIENCE, UNDER_SCOPE, type AuthServerConfig, type AuthServerRequest, type MintOptions, type TokenClaims, type TokenEndpointAuthMethod } from './server.js';
export { authServerCredentials, type AuthServerCredentialsOptions } from './credentials.js';
export { jwks, jwtClaims, makeSigningKey, signJwt, type SigningKey } from './jwt.js';
