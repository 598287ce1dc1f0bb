/**
 * client-auth: how a client authorizes with a protected MCP server, graded on what the protected mock and its
 * authorization server saw in one scenario (mocks/auth/scenarios.ts): discovery, registration, PKCE, state, the
 * resource indicator, scopes and step-up, the token on every request and never in a URL, and the set-ups a client
 * must refuse. Evidence names what the client sent; codes, verifiers, tokens and secrets were never kept.
 * https://modelcontextprotocol.io/specification/2025-11-25/basic/authorization
 */
import type { Outcome } from '../../core/suite.js';
import type { AuthServerRequest } from '../../mocks/auth/server.js';
import { authFlowCases } from './auth-flow.js';
import {
  asOf,
  ax,
  codeGrants,
  expectedScope,
  first,
  FLOOD,
  foreignClient,
  givenUp,
  legacy,
  legacyGate,
  mcpOf,
  names,
  nothingYet,
  PROCEED,
  refused,
  S,
  sameResource,
  scopeSet,
  shown,
  shownR,
  speaks2026,
  WITH_METADATA,
} from './auth-helpers.js';
import { ending, type ClientCaseContext, type ClientCaseDef, type ClientSuite } from './helpers.js';

export { FLOOD } from './auth-helpers.js';

const cases: ClientCaseDef[] = [
  {
    id: 'client-auth/authorized',
    title: 'the client authorizes and is served',
    level: 'MUST',
    spec: `${S}#authorization-flow-steps`,
    scenarios: PROCEED,
    requirement:
      'Faced with a 401, the client discovers the authorization server, gets a token for the MCP server and makes its requests with it (the mock then serves them).',
    run(ctx) {
      const mcp = mcpOf(ctx);
      if (!mcp.length)
        return {
          verdict: 'fail',
          message: `the client never reached the MCP endpoint ${ax(ctx).mcpUrl}; ${ending(ctx)}`,
        };
      const served = mcp.filter((r) => r.token === 'valid');
      const fc = foreignClient(ctx);
      if (!served.length && fc && !asOf(ctx, 'register').length && ax(ctx).def.registration !== 'pre-registered') {
        return {
          verdict: 'skip',
          message: `not applicable: the client does not register here; it came with a client id of its own the authorization server does not know (${shown(fc)}); see scenario auth-pre-registered`,
        };
      }
      const gaveUp = givenUp(ctx);
      if (!served.length && gaveUp) return { verdict: 'skip', message: gaveUp };
      if (served.length)
        return {
          verdict: 'pass',
          message: `${served.length} request${served.length === 1 ? '' : 's'} served with a valid token (${first(served).map(shownR).join('; ')}), after ${asOf(ctx, 'token').length} token request${asOf(ctx, 'token').length === 1 ? '' : 's'}`,
        };
      const stuck = [...asOf(ctx, 'authorize'), ...asOf(ctx, 'token'), ...asOf(ctx, 'register')].filter(
        (r) => r.status >= 400 || r.problem,
      );
      const last = mcp[mcp.length - 1]!;
      return {
        verdict: 'fail',
        message: `no request was served with a valid token: ${mcp.length} request${mcp.length === 1 ? '' : 's'} to the MCP endpoint (last: ${shownR(last)}${last.token ? `, token ${last.token}` : ''})${stuck.length ? `; refused by the authorization server: ${first(stuck).map(shown).join('; ')}` : `; ${asOf(ctx, 'authorize').length} authorization and ${asOf(ctx, 'token').length} token requests`}; ${ending(ctx)}`,
      };
    },
  },
  {
    id: 'client-auth/resource-metadata-discovery',
    title: 'protected-resource metadata is found where the server says (challenge first, then the well-known URLs)',
    level: 'MUST',
    spec: `${S}#protected-resource-metadata-discovery-requirements`,
    scenarios: WITH_METADATA,
    requirement:
      'The client uses the resource_metadata URL of the challenge when there is one; otherwise it tries the path-suffixed well-known URL, then the root one.',
    run(ctx) {
      const a = ax(ctx);
      const got = a.resourceRequests.filter(
        (r) =>
          r.kind === 'resource-metadata' ||
          (r.kind === 'other' && r.url.includes('oauth-protected-resource')) ||
          r.url.startsWith('/meta/'),
      );
      if (!mcpOf(ctx).length) return nothingYet(ctx, 'the client never reached the MCP endpoint');
      const named = a.def.protected.namedInChallenge ? a.metadataUrls[0]?.url : undefined;
      const list = got.map((r) => `${r.url} → ${r.status}`).join(', ') || 'none';
      const found = got.find((r) => r.status === 200);
      if (named && !got.some((r) => r.url === new URL(named).pathname))
        return {
          verdict: 'fail',
          message: `the challenge named resource_metadata ${named}; the client never fetched it (metadata requests: ${list})`,
        };
      if (!found)
        return {
          verdict: 'fail',
          message: `the client never got the protected-resource metadata (served at ${a.metadataUrls.map((m) => m.url).join(', ')}; its requests: ${list})`,
        };
      return { verdict: 'pass', message: `metadata fetched: ${list}${named ? ' (the URL the challenge named)' : ''}` };
    },
  },
  {
    id: 'client-auth/authorization-server-discovery',
    title: "the authorization server's metadata (or the 2025-03-26 defaults) is found",
    level: 'MUST',
    spec: `${S}#authorization-server-metadata-discovery`,
    scenarios: PROCEED,
    requirement:
      "The client finds the authorization server's metadata by RFC 8414 (path inserted), OpenID discovery (inserted or appended) as the issuer allows; a 2025-03-26 server without metadata: its default /authorize, /token, /register.",
    run(ctx) {
      const a = ax(ctx);
      const meta = a.asRequests.filter(
        (r) => r.endpoint === 'metadata' || (r.method === 'GET' && r.url.includes('/.well-known/')),
      );
      const list = meta.map((r) => `${r.url} → ${r.status}`).join(', ') || 'none';
      const ok = meta.some((r) => r.status === 200);
      const defaults = a.def.as.metadata?.oauth === false && a.def.as.metadata?.openid === false;
      const az = asOf(ctx, 'authorize');
      if (ok) return { verdict: 'pass', message: `authorization-server metadata fetched: ${list}` };
      if (defaults && az.length)
        return {
          verdict: 'pass',
          message: `no metadata anywhere (requests: ${list}); the client used the default endpoints: ${shown(az[0]!)}`,
        };
      if (!mcpOf(ctx).length) return nothingYet(ctx, 'the client never reached the MCP endpoint');
      return {
        verdict: 'fail',
        message: `the client never got the authorization server's metadata (issuer ${a.issuer}; its requests: ${list})${az.length ? `, yet sent ${shown(az[0]!)}` : ''}`,
      };
    },
  },
  {
    id: 'client-auth/registration',
    title: 'the client gets a client id the way the authorization server offers',
    level: 'MUST',
    spec: `${S}#client-registration-approaches`,
    scenarios: PROCEED,
    requirement:
      'Pre-registered credentials when given; a Client ID Metadata Document (an https client id) where the authorization server advertises them (SHOULD); else dynamic registration (RFC 7591).',
    run(ctx) {
      const a = ax(ctx);
      const reg = asOf(ctx, 'register');
      const az = asOf(ctx, 'authorize');
      const ids = [...new Set(az.map((r) => r.params?.client_id).filter((x): x is string => !!x))];
      if (!az.length && !reg.length)
        return nothingYet(ctx, 'the client neither registered nor asked for authorization');
      if (a.def.registration === 'pre-registered') {
        return ids.includes(a.clientId!)
          ? { verdict: 'pass', message: `the client used the pre-registered client id ${a.clientId}` }
          : {
              verdict: 'fail',
              message: `the client was given client id ${a.clientId} (MCP_CONFORM_CLIENT_ID, {client_id}) but used ${ids.join(', ') || 'none'}${reg.length ? `, after trying to register (${shown(reg[0]!)})` : ''}`,
            };
      }
      const fc = foreignClient(ctx);
      if (fc && !reg.length)
        return {
          verdict: 'skip',
          message: `not applicable: the client does not register dynamically; it came with a client id of its own (${shown(fc)})`,
        };
      const url = ids.find((i) => /^https:\/\//.test(i));
      if (a.def.registration === 'metadata-document') {
        if (url) return { verdict: 'pass', message: `the client used a Client ID Metadata Document: client_id ${url}` };
        if (reg.some((r) => r.status === 201))
          return {
            verdict: 'warn',
            level: 'SHOULD',
            message: `the authorization server advertises client_id_metadata_document_supported; the client registered dynamically instead (${shown(reg[0]!)})`,
          };
      } else if (reg.some((r) => r.status === 201)) {
        return {
          verdict: 'pass',
          message: `the client registered dynamically: ${shown(reg.find((r) => r.status === 201)!)}`,
        };
      }
      const gaveUp = givenUp(ctx);
      if (gaveUp) return { verdict: 'info', message: gaveUp };
      return {
        verdict: 'fail',
        message: `the client got no client id: ${[...first(reg, 2), ...first(az, 1)].map(shown).join('; ')}`,
      };
    },
  },
  {
    id: 'client-auth/token-endpoint-auth',
    title: 'the client authenticates at the token endpoint by a method the authorization server supports',
    level: 'MUST',
    spec: `${S}#client-registration-approaches`,
    scenarios: PROCEED,
    requirement:
      'The token endpoint authentication (none, client_secret_basic, client_secret_post) is one the metadata lists in token_endpoint_auth_methods_supported, and the one registered.',
    run(ctx) {
      const tk = asOf(ctx, 'token');
      if (!tk.length) return nothingYet(ctx, 'the client sent no token request');
      const allowed = ax(ctx).def.as.tokenEndpointAuthMethods ?? ['none', 'client_secret_basic', 'client_secret_post'];
      const bad = tk.filter((r) => r.status === 401 && r.problem?.startsWith('invalid_client'));
      if (bad.length)
        return {
          verdict: 'fail',
          message: `${bad.length} of ${tk.length} token requests refused for client authentication (supported: ${allowed.join(', ')}): ${first(bad).map(shown).join('; ')}`,
        };
      const used = [...new Set(tk.map((r) => r.clientAuth).filter(Boolean))];
      return {
        verdict: 'pass',
        message: `${tk.length} token request${tk.length === 1 ? '' : 's'}, client authentication ${used.join(', ')} (supported: ${allowed.join(', ')})`,
      };
    },
  },
  {
    id: 'client-auth/pkce-s256',
    title: 'every authorization request carries a PKCE S256 code challenge',
    level: 'MUST',
    spec: `${S}#authorization-code-protection`,
    requirement: 'The client uses PKCE with the S256 method on every authorization request.',
    run(ctx) {
      const az = asOf(ctx, 'authorize');
      if (!az.length) return nothingYet(ctx, 'the client sent no authorization request');
      const bad = az.filter((r) => !r.params?.code_challenge || r.params.code_challenge_method !== 'S256');
      if (bad.length)
        return {
          verdict: 'fail',
          message: `${bad.length} of ${az.length} authorization requests without code_challenge_method=S256 and a code_challenge: ${first(bad).map(shown).join('; ')}`,
        };
      return {
        verdict: 'pass',
        message: `${az.length} authorization request${az.length === 1 ? '' : 's'}, each with code_challenge_method=S256: ${shown(az[0]!)}`,
      };
    },
  },
  {
    id: 'client-auth/pkce-verifier',
    title: 'the code verifier sent matches the code challenge',
    level: 'MUST',
    spec: `${S}#authorization-code-protection`,
    requirement:
      'Each authorization_code token request carries the code_verifier whose S256 hash is the code_challenge of its authorization request.',
    run(ctx) {
      const tk = codeGrants(ctx).filter((r) => r.pkce !== undefined);
      if (!tk.length) return nothingYet(ctx, 'no authorization code was exchanged');
      const bad = tk.filter((r) => r.pkce !== 'matched');
      if (bad.length)
        return {
          verdict: 'fail',
          message: `${bad.length} of ${tk.length} code exchanges: ${first(bad)
            .map((r) => `code_verifier ${r.pkce}: ${shown(r)}`)
            .join('; ')}`,
        };
      return {
        verdict: 'pass',
        message: `${tk.length} code exchange${tk.length === 1 ? '' : 's'}, each code_verifier matching its challenge (the values are not shown)`,
      };
    },
  },
  {
    id: 'client-auth/state',
    title: 'every authorization request carries state',
    level: 'SHOULD',
    spec: `${S}#authorization-code-protection`,
    requirement:
      'The client sends an unguessable state with each authorization request (and checks it in the response).',
    run(ctx) {
      const az = asOf(ctx, 'authorize');
      if (!az.length) return nothingYet(ctx, 'the client sent no authorization request');
      const bad = az.filter((r) => !r.params?.state || r.params.state.length < 8);
      if (bad.length)
        return {
          verdict: 'warn',
          message: `${bad.length} of ${az.length} authorization requests without a state of at least 8 characters: ${first(bad).map(shown).join('; ')}`,
        };
      return {
        verdict: 'pass',
        message: `${az.length} authorization request${az.length === 1 ? '' : 's'}, each with state`,
      };
    },
  },
  {
    id: 'client-auth/resource-authorization-request',
    title: 'the authorization request names the MCP server as resource',
    level: 'MUST',
    spec: `${S}#resource-parameter-implementation`,
    requirement:
      'Every authorization request carries the resource parameter (RFC 8707), equal to the canonical URL of the MCP server.',
    run(ctx) {
      return resourceParam(ctx, asOf(ctx, 'authorize'), 'authorization');
    },
  },
  {
    id: 'client-auth/resource-token-request',
    title: 'the token request names the MCP server as resource',
    level: 'MUST',
    spec: `${S}#resource-parameter-implementation`,
    requirement:
      'Every token request (code exchange and refresh) carries the resource parameter (RFC 8707), equal to the canonical URL of the MCP server.',
    run(ctx) {
      return resourceParam(ctx, asOf(ctx, 'token'), 'token');
    },
  },
  {
    id: 'client-auth/bearer-every-request',
    title: 'the token goes in the Authorization header of every request',
    level: 'MUST',
    spec: `${S}#access-token-usage`,
    requirement:
      'Once it has a token, the client sends it as Authorization: Bearer on every HTTP request to the MCP server (POST, GET and DELETE alike), not only the first.',
    run(ctx) {
      const issued = asOf(ctx, 'token').find((r) => r.issued);
      if (!issued) return nothingYet(ctx, 'no token was issued');
      const after = mcpOf(ctx).filter((r) => r.seq >= issued.seq);
      if (!after.length) return nothingYet(ctx, 'the client made no request to the MCP endpoint after getting a token');
      // The first request after a token: a client may have been mid-request; the rest must carry it.
      const bad = after.filter((r) => r.authorization !== 'bearer');
      const methods = [...new Set(after.map((r) => r.method))].join(', ');
      if (bad.length)
        return {
          verdict: 'fail',
          message: `${bad.length} of ${after.length} requests after the first token came without a Bearer Authorization header: ${first(bad).map(shownR).join('; ')}`,
        };
      return {
        verdict: 'pass',
        message: `${after.length} requests after the first token (${methods}), each with Authorization: Bearer`,
      };
    },
  },
  {
    id: 'client-auth/no-token-in-query',
    title: 'the token is never put in the URL',
    level: 'MUST',
    spec: `${S}#access-token-usage`,
    requirement: 'Access tokens are never sent in the query string of a request to the MCP server (OAuth 2.1 §5.1.1).',
    run(ctx) {
      const mcp = mcpOf(ctx);
      if (!mcp.length) return nothingYet(ctx, 'the client never reached the MCP endpoint');
      const bad = mcp.filter((r) => r.tokenInQuery);
      if (bad.length)
        return {
          verdict: 'fail',
          message: `${bad.length} request${bad.length === 1 ? '' : 's'} with the token in the query string (shown redacted): ${first(bad).map(shownR).join('; ')}`,
        };
      return { verdict: 'pass', message: `none of ${mcp.length} requests had a token in its URL` };
    },
  },
  {
    id: 'client-auth/scope-selection',
    title: "the scope asked for is the challenge's, else scopes_supported, else none",
    level: 'SHOULD',
    spec: `${S}#scope-selection-strategy`,
    scenarios: names((d) => !d.refuse && d.protected.metadataAt.length > 0),
    requirement:
      "The first authorization request asks for the scope of the 401 challenge; without one, every scope in the protected-resource metadata's scopes_supported; without those, no scope parameter at all.",
    run(ctx) {
      const az = asOf(ctx, 'authorize');
      if (!az.length) return nothingYet(ctx, 'the client sent no authorization request');
      const a = ax(ctx);
      const want = expectedScope(a);
      const got = az[0]!.params?.scope;
      const from = a.def.protected.challengeScope
        ? 'the challenge'
        : want
          ? 'scopes_supported'
          : 'nowhere (neither the challenge nor scopes_supported names one)';
      const w = scopeSet(want);
      const g = scopeSet(got);
      const equal = w.size === g.size && [...w].every((x) => g.has(x));
      if (equal)
        return {
          verdict: 'pass',
          message: `scope ${want === undefined ? '(none)' : JSON.stringify(got)} asked for, as ${from} says`,
        };
      return {
        verdict: 'warn',
        message: `the first authorization request asked for scope ${got === undefined ? '(none)' : JSON.stringify(got)}; ${from === 'the challenge' || from === 'scopes_supported' ? `${from} says ${JSON.stringify(want)}` : `no scope comes from ${from.slice(8)}`}: ${shown(az[0]!)}`,
      };
    },
  },
  {
    id: 'client-auth/step-up',
    title: 'a 403 insufficient_scope is answered by authorizing again with its scope',
    level: 'SHOULD',
    spec: `${S}#step-up-authorization-flow`,
    scenarios: ['auth-step-up'],
    requirement:
      'After 403 with error="insufficient_scope", the client asks for authorization again with (at least) the scopes the challenge names, and retries the request with the new token.',
    run(ctx) {
      const mcp = mcpOf(ctx);
      const denied = mcp.find((r) => r.status === 403);
      if (!denied) return nothingYet(ctx, 'the client never made the request that needs more scope (tools/call)');
      const need = scopeSet(/scope="([^"]*)"/.exec(denied.challenge ?? '')?.[1]);
      const again = asOf(ctx, 'authorize').filter((r) => r.seq > denied.seq);
      const wide = again.find((r) => [...need].every((s) => scopeSet(r.params?.scope).has(s)));
      const retried = mcp.find((r) => r.seq > denied.seq && r.rpcMethod === denied.rpcMethod && r.token === 'valid');
      if (wide && retried)
        return {
          verdict: 'pass',
          message: `after ${shownR(denied)} the client asked again with scope ${JSON.stringify(wide.params?.scope)} and its retry was served (${shownR(retried)})`,
        };
      return {
        verdict: 'warn',
        message: `after ${shownR(denied)} (challenge: ${denied.challenge}) ${again.length ? `the client asked again with scope ${again.map((r) => JSON.stringify(r.params?.scope ?? '')).join(', ')}` : 'the client never asked for authorization again'}${retried ? '' : ', and no retry was served'}; ${ending(ctx)}`,
      };
    },
  },
  {
    id: 'client-auth/retry-limit',
    title: 'a client that keeps being refused gives up after a few tries',
    level: 'SHOULD',
    spec: `${S}#step-up-authorization-flow`,
    scenarios: ['auth-step-up-limit'],
    requirement:
      'When step-up authorization does not help (the server keeps answering 403 insufficient_scope), the client stops after a few attempts instead of looping.',
    run(ctx) {
      const denied = mcpOf(ctx).filter((r) => r.status === 403);
      if (!denied.length)
        return nothingYet(ctx, 'the client never made the request that is always refused (tools/call)');
      const az = asOf(ctx, 'authorize').filter((r) => r.seq > denied[0]!.seq);
      if (ctx.client.endedByHarness)
        return {
          verdict: 'warn',
          message: `the client was still trying when it was ended: ${denied.length} refusals (403) and ${az.length} new authorization requests after the first; ${ending(ctx)}`,
        };
      if (denied.length > 5)
        return {
          verdict: 'warn',
          message: `the client tried ${denied.length} times (${az.length} new authorization requests) before it stopped`,
        };
      return {
        verdict: 'pass',
        message: `the client stopped after ${denied.length} refusal${denied.length === 1 ? '' : 's'} (403 insufficient_scope) and ${az.length} new authorization request${az.length === 1 ? '' : 's'}; ${ending(ctx)}`,
      };
    },
  },
  {
    id: 'client-auth/refuse-foreign-resource',
    title: 'metadata naming another server as its resource is not used',
    level: 'MUST',
    spec: `${S}#protected-resource-metadata-discovery-requirements`,
    scenarios: ['auth-foreign-resource'],
    requirement:
      'The resource of the protected-resource metadata must be the MCP server the client is talking to (RFC 9728 §3.3); metadata for another resource must not be used, so the client does not go on to authorize.',
    run(ctx) {
      return refused(ctx, 'with metadata whose resource is another server');
    },
  },
  {
    id: 'client-auth/refuse-no-s256',
    title: 'an authorization server that does not list S256 is refused',
    level: 'MUST',
    spec: `${S}#authorization-code-protection`,
    scenarios: ['auth-no-s256'],
    requirement:
      "When the authorization server's metadata lacks S256 in code_challenge_methods_supported (or the member altogether), the client refuses to proceed.",
    run(ctx) {
      const az = asOf(ctx, 'authorize');
      if (!az.length) return refused(ctx, 'with an authorization server whose metadata does not list S256');
      return {
        verdict: 'fail',
        message: `the authorization server lists no code_challenge_methods_supported; the client went on: ${shown(az[0]!)}`,
      };
    },
  },
  {
    id: 'client-auth/iss-validated',
    title: 'an authorization response with a wrong or missing iss is not used',
    level: 'MUST',
    spec: `${S}#authorization-code-protection`,
    scenarios: ['auth-iss-wrong', 'auth-iss-missing'],
    requirement:
      'Where the authorization server advertises authorization_response_iss_parameter_supported, the client checks the iss of the authorization response (RFC 9207) and does not exchange a code whose iss is not the issuer, or is missing (2026-07-28).',
    run(ctx) {
      const az = asOf(ctx, 'authorize');
      if (!az.length) return nothingYet(ctx, 'the client sent no authorization request');
      const tk = codeGrants(ctx);
      const what = ax(ctx).def.refuse === 'iss-wrong' ? 'names another issuer' : 'has no iss';
      if (!tk.length)
        return {
          verdict: 'pass',
          message: `the authorization response ${what} (${az[0]!.redirect ?? ''}); the client did not exchange its code`,
        };
      const msg = `the authorization response ${what} (${az[0]!.redirect ?? ''}), and the client exchanged its code anyway: ${shown(tk[0]!)}`;
      if (speaks2026(ctx)) return { verdict: 'fail', message: msg };
      return {
        verdict: 'info',
        message: `${msg}. The client spoke a protocol before 2026-07-28, where MCP does not yet require checking iss (RFC 9207 recommends it)`,
      };
    },
  },
  {
    id: 'client-auth/bounded',
    title: 'no loop of 401s or token requests',
    level: 'MUST',
    spec: `${S}#step-up-authorization-flow`,
    requirement: `Not a sentence of the spec (its retry limits are a SHOULD, graded by client-auth/retry-limit) but the outcome of the run, as client-process/exit is: a client refused again and again stops — fewer than ${FLOOD} unauthorized answers, ${FLOOD} token requests and ${FLOOD} registrations in one run; one that loops floods the server and its authorization server.`,
    run(ctx) {
      const u = ax(ctx).resourceRequests.filter((r) => r.status === 401);
      const tk = asOf(ctx, 'token');
      const reg = asOf(ctx, 'register');
      if (u.length < FLOOD && tk.length < FLOOD && reg.length < FLOOD)
        return {
          verdict: 'pass',
          message: `${u.length} unauthorized answer${u.length === 1 ? '' : 's'} (401), ${tk.length} token request${tk.length === 1 ? '' : 's'} and ${reg.length} registration${reg.length === 1 ? '' : 's'} in the run`,
        };
      const span = (xs: { at: number }[]) =>
        xs.length > 1 ? ` in ${((xs[xs.length - 1]!.at - xs[0]!.at) / 1000).toFixed(1)} s` : '';
      return {
        verdict: 'fail',
        message: `the client looped: ${u.length} unauthorized answer${u.length === 1 ? '' : 's'} (401)${span(u)}, ${tk.length} token requests${span(tk)}${tk.length ? ` (last: ${shown(tk[tk.length - 1]!)})` : ''}, ${reg.length} registrations${span(reg)}; ${ending(ctx)}`,
      };
    },
  },
];

function resourceParam(ctx: ClientCaseContext, rs: AuthServerRequest[], what: string): Outcome {
  if (!rs.length) return nothingYet(ctx, `the client sent no ${what} request`);
  const want = ax(ctx).resource;
  const bad = rs.filter((r) => !sameResource(r.params?.resource, want));
  const grants = [...new Set(rs.map((r) => r.params?.grant_type).filter(Boolean))];
  if (!bad.length)
    return {
      verdict: 'pass',
      message: `${rs.length} ${what} request${rs.length === 1 ? '' : 's'}${grants.length ? ` (grant_type ${grants.join(', ')})` : ''}, each with resource=${want}`,
    };
  const msg = `${bad.length} of ${rs.length} ${what} requests without resource=${want}: ${first(bad).map(shown).join('; ')}`;
  // The resource indicator came with 2025-06-18; a 2025-03-26 server has no protected-resource metadata to take it from.
  if (legacy(ax(ctx)) && bad.every((r) => r.params?.resource === undefined))
    return {
      verdict: 'info',
      message: `${msg} (a 2025-03-26 server: MCP asked for the resource parameter from 2025-06-18 on)`,
    };
  return { verdict: 'fail', message: msg };
}

export const clientAuth: ClientSuite = {
  id: 'client-auth',
  title: 'Client authorization',
  description:
    'How the client authorizes with a protected MCP server (scenarios auth-…): discovery, registration, PKCE, state, the resource indicator, scopes and step-up, the token in the Authorization header, and the set-ups it must refuse.',
  // The 2025-03-26 fallbacks bind only a client that speaks that version (legacyGate): elsewhere a fail there is info.
  cases: [...cases, ...authFlowCases].map((c) => ({
    ...c,
    run: (ctx: ClientCaseContext) => legacyGate(ctx, c.run(ctx)),
  })),
  notGraded(ctx) {
    return ctx.auth
      ? undefined
      : `not run: scenario ${ctx.scenario} is not an authorization scenario (the auth-… scenarios play a protected mock)`;
  },
};
