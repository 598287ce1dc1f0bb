/**
 * Authorization of a protected (OAuth 2.1) MCP server, from the outside: how it refuses a request without
 * credentials (401 and its Bearer challenge), its protected-resource metadata (RFC 9728), its authorization server's
 * metadata (RFC 8414 / OpenID discovery), how it treats tokens — malformed, unknown, in another scheme, in the query
 * string, missing beside a session id, and with `--auth-server` the tokens the harness mints: expired, for another
 * audience, from another issuer, badly signed, under-scoped — and CORS for browser clients.
 *
 * The suite sends its own HTTP requests (outside the session), so that it decides which credentials each carries;
 * every case keeps them as evidence (details.exchanges), secrets redacted. It is in a run by default when the run
 * holds credentials or the server answered the handshake with 401.
 * https://modelcontextprotocol.io/specification/2025-11-25/basic/authorization
 * https://modelcontextprotocol.io/specification/2026-07-28/basic/authorization
 */
import type { Suite } from '../core/suite.js';
import { credentialsInput } from '../core/auth/credentials.js';
import { authRefusal } from '../core/auth/required.js';
import { HTTP } from './auth/common.js';
import { unauthenticatedCases } from './auth/unauthenticated.js';
import { challengeCases } from './auth/challenge.js';
import { resourceMetadataCases } from './auth/resource-metadata.js';
import { asMetadataCases } from './auth/as-metadata.js';
import { tokenCases } from './auth/token.js';
import { corsCases } from './auth/cors.js';

export const authSuite: Suite = {
  id: 'auth',
  title: 'Authorization (protected servers)',
  description:
    '401 and its Bearer challenge, protected-resource and authorization-server metadata, token validation (with --auth-server: expired, wrong audience, wrong issuer, bad signature, scope), CORS',
  transports: [...HTTP],
  // In a run by default when the run holds credentials or the server refused the handshake with 401.
  selectedWhen: (sel, run) => !!sel.input(credentialsInput) || (!!run && authRefusal(run.transport) !== undefined),
  services: [],
  cases: [
    ...unauthenticatedCases,
    ...challengeCases,
    ...resourceMetadataCases,
    ...asMetadataCases,
    ...tokenCases,
    ...corsCases,
  ],
};
