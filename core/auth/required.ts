/**
 * A run the server refused for want of authorization (401, or 403 insufficient_scope, to the handshake): why nothing
 * else can run, in words that say how to get in. The cases that read only the handshake (needs: 'handshake') still
 * run; every other case is skipped with this reason.
 */
import { transportFacets } from '../transport/facets.js';
import { DetectingTransport } from '../transport/detect.js';
import type { AuthRefusal } from '../transport/http.js';
import { cut } from '../text.js';
import type { Transport } from '../transport/types.js';
import type { Credentials } from './credentials.js';

/** The refusal the run's transport met, if any (looking through --url's detection). */
export function authRefusal(t: Transport): AuthRefusal | undefined {
  if (t instanceof DetectingTransport) return t.authRequired;
  const f = transportFacets(t);
  return (f.http ?? f.sse)?.authRequired;
}

export const HOW_TO_GET_IN =
  'get in with --oauth (mcp-conform authorizes itself), or give a token: --header "Authorization: Bearer <token>"';

/** The run's `aborted` reason when the server asked for authorization, else undefined. */
export function authRequiredReason(t: Transport, credentials?: Credentials): string | undefined {
  const r = authRefusal(t);
  if (!r) return undefined;
  const challenge =
    r.wwwAuthenticate !== undefined
      ? `WWW-Authenticate: ${cut(r.wwwAuthenticate.replace(/\s+/g, ' '), 300)}`
      : 'no WWW-Authenticate';
  const what = `HTTP ${r.status} to ${r.method} (${challenge})`;
  if (credentials?.failure)
    return `the server requires authorization: ${what}; --oauth could not get in: ${credentials.failure}`;
  if (credentials)
    return `the server requires authorization and refused the run's token (${credentials.source === 'header' ? 'from --header' : credentials.source}): ${what}`;
  return `the server requires authorization: ${what}; ${HOW_TO_GET_IN}`;
}
