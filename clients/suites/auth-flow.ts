/**
 * client-auth, the flow after the first token and the answers a client must read: a 401 that comes after the
 * handshake, the state of the authorization response, the token endpoint method the registration answer gave, the
 * resource identifier exactly as the metadata publishes it, and a registration the authorization server refuses.
 * https://modelcontextprotocol.io/specification/2025-11-25/basic/authorization
 */
import type { ClientCaseDef } from './helpers.js';
import { ending } from './helpers.js';
import {
  asOf,
  ax,
  codeGrants,
  first,
  GIVE_UP_AFTER,
  givenUp,
  mcpOf,
  nothingYet,
  S,
  sameResource,
  shown,
  shownR,
  WITH_METADATA,
} from './auth-helpers.js';

export const authFlowCases: ClientCaseDef[] = [
  {
    id: 'client-auth/reauthorize-after-401',
    title: 'a 401 on a later request is answered by authorizing then and retrying',
    level: 'MUST',
    spec: `${S}#authorization-flow-steps`,
    scenarios: ['auth-401-later'],
    requirement:
      'A 401 with a challenge can come on any request, not only the first: the client reads that challenge, authorizes then, and retries the refused request with the token (here the handshake — initialize, or server/discover — and tools/list are open and tools/call is protected).',
    run(ctx) {
      const mcp = mcpOf(ctx);
      const open = mcp.find((r) => r.token === 'open');
      const refused = mcp.find(
        (r) =>
          r.status === 401 &&
          (!open || r.seq >= open.seq) &&
          r.rpcMethod !== 'initialize' &&
          r.rpcMethod !== 'server/discover',
      );
      if (!refused)
        return nothingYet(
          ctx,
          open
            ? 'the client never made a request that needs a token (tools/call)'
            : 'the client never got a request served',
        );
      const az = asOf(ctx, 'authorize').filter((r) => r.seq >= refused.seq);
      const retried = mcp.find((r) => r.seq > refused.seq && r.rpcMethod === refused.rpcMethod && r.token === 'valid');
      if (az.length && retried)
        return {
          verdict: 'pass',
          message: `after ${shownR(refused)} the client authorized (${shown(az[0]!)}) and its retry was served (${shownR(retried)})`,
        };
      return {
        verdict: 'fail',
        message: `after ${shownR(refused)}, a 401 after the handshake (${mcp.filter((r) => r.token === 'open').length} requests had been served without a token), ${az.length ? `the client authorized (${shown(az[0]!)}) but no retry of ${refused.rpcMethod ?? refused.method} was served` : 'the client never asked for authorization'}; ${ending(ctx)}`,
      };
    },
  },
  {
    id: 'client-auth/state-checked',
    title: "an authorization response whose state is not the request's is not used",
    level: 'MUST',
    spec: `${S}#authorization-code-protection`,
    scenarios: ['auth-state-mismatch'],
    requirement:
      'A client that sends state compares it with the state of the authorization response and does not exchange the code of a response whose state differs (OAuth 2.1 §4.1.2 and §7.5: it is the protection against forged redirects).',
    run(ctx) {
      const az = asOf(ctx, 'authorize');
      if (!az.length) return nothingYet(ctx, 'the client sent no authorization request');
      if (az.every((r) => !r.params?.state))
        return {
          verdict: 'skip',
          message: `the client sent no state, so it had none to check (client-auth/state grades that): ${shown(az[0]!)}`,
        };
      const tk = codeGrants(ctx);
      if (!tk.length)
        return {
          verdict: 'pass',
          message: `the authorization response carried another state than the request's (${az[0]!.redirect ?? ''}); the client did not exchange its code; ${ending(ctx)}`,
        };
      return {
        verdict: 'fail',
        message: `the authorization response carried another state than the request's (${az[0]!.redirect ?? ''}), and the client exchanged its code anyway: ${shown(tk[0]!)}`,
      };
    },
  },
  {
    id: 'client-auth/registered-auth-method',
    title: 'the client authenticates at the token endpoint as its registration answer says',
    level: 'MUST',
    spec: `${S}#client-registration-approaches`,
    requirement:
      'When the authorization server registers the client with another token_endpoint_auth_method than it asked for (and issues a secret), as RFC 7591 §3.2.1 allows, the client uses the registered method and secret at the token endpoint. Graded where a registration was so answered.',
    run(ctx) {
      const reg = asOf(ctx, 'register').filter((r) => r.replacedAuthMethod && r.registeredAuthMethod);
      if (!reg.length)
        return {
          verdict: 'skip',
          message:
            'not applicable: no registration of this run asked for a method the authorization server does not offer (nothing was replaced)',
        };
      const ids = new Set(reg.map((r) => r.clientId));
      const tk = asOf(ctx, 'token').filter((r) =>
        r.clientId ? ids.has(r.clientId) : r.params?.client_id ? ids.has(r.params.client_id) : true,
      );
      if (!tk.length)
        return nothingYet(
          ctx,
          `the client was registered with ${reg[0]!.registeredAuthMethod} instead of ${reg[0]!.replacedAuthMethod}, and sent no token request`,
        );
      const want = reg[0]!.registeredAuthMethod!;
      const bad = tk.filter((r) => r.clientAuth !== want);
      if (bad.length)
        return {
          verdict: 'fail',
          message: `the client asked to register with ${reg[0]!.replacedAuthMethod}, was registered with ${want} and a secret, and authenticated with ${[...new Set(bad.map((r) => r.clientAuth ?? 'nothing'))].join(', ')} at the token endpoint: ${first(bad, 1).map(shown).join('')}`,
        };
      return {
        verdict: 'pass',
        message: `the client asked to register with ${reg[0]!.replacedAuthMethod}, was registered with ${want} (and a secret), and used ${want} on ${tk.length} token request${tk.length === 1 ? '' : 's'}`,
      };
    },
  },
  {
    id: 'client-auth/resource-as-published',
    title: 'resource is sent exactly as the protected-resource metadata publishes it',
    level: 'MUST',
    spec: `${S}#resource-parameter-implementation`,
    scenarios: WITH_METADATA,
    requirement:
      'The resource parameter of authorization and token requests is the identifier the protected-resource metadata publishes (RFC 9728 §3.3 ties that identifier to the URL the metadata was found from; RFC 8707 §2). The same URL in another form (a trailing slash after an origin, other letter case) is a warn: an authorization server comparing strings refuses it.',
    run(ctx) {
      const published = ax(ctx).published;
      const rs = [...asOf(ctx, 'authorize'), ...asOf(ctx, 'token')];
      if (!published)
        return { verdict: 'skip', message: 'not applicable: no protected-resource metadata publishes a resource here' };
      if (!rs.length) return nothingYet(ctx, 'the client sent no authorization or token request');
      const other = rs.filter((r) => !sameResource(r.params?.resource, published));
      if (other.length)
        return {
          verdict: 'fail',
          message: `the metadata publishes resource ${published}; ${other.length} of ${rs.length} authorization and token requests sent ${[...new Set(other.map((r) => r.params?.resource ?? '(none)'))].join(', ')}: ${first(other, 2).map(shown).join('; ')}`,
        };
      const form = rs.filter((r) => r.params?.resource !== published);
      if (form.length)
        return {
          verdict: 'warn',
          level: 'SHOULD',
          message: `the metadata publishes resource ${published}; ${form.length} of ${rs.length} requests sent it as ${[...new Set(form.map((r) => r.params?.resource))].join(', ')} — the same URL in another form, which an authorization server comparing strings refuses`,
        };
      return {
        verdict: 'pass',
        message: `${rs.length} authorization and token request${rs.length === 1 ? '' : 's'}, each with resource=${published}, as the metadata publishes it`,
      };
    },
  },
  {
    id: 'client-auth/root-metadata-origin',
    title: 'root metadata naming the origin as its resource is accepted',
    level: 'MUST',
    spec: `${S}#protected-resource-metadata-discovery-requirements`,
    scenarios: ['auth-prm-root-origin'],
    requirement:
      "Metadata found at the root well-known URL was built from the origin, so a resource equal to the origin passes RFC 9728 §3.3's identity check: the client uses it (authorizes with that authorization server) and does not take it for another server's.",
    run(ctx) {
      const a = ax(ctx);
      const got = a.resourceRequests.find((r) => r.kind === 'resource-metadata' && r.status === 200);
      if (!got) return nothingYet(ctx, 'the client never fetched the root protected-resource metadata');
      const az = asOf(ctx, 'authorize');
      if (az.length)
        return {
          verdict: 'pass',
          message: `the client fetched ${got.url} (resource ${a.published}) and went on to authorize: ${shown(az[0]!)}`,
        };
      return {
        verdict: 'fail',
        message: `the client fetched ${got.url}, whose resource ${a.published} is the origin that URL is built from, and did not go on to authorize (no authorization request); ${ending(ctx)}`,
      };
    },
  },
  {
    id: 'client-auth/registration-refused',
    title: 'a refused registration is followed by a registration with a listed method, or by giving up',
    level: 'SHOULD',
    spec: `${S}#client-registration-approaches`,
    scenarios: ['auth-registration-refused'],
    requirement: `When the authorization server refuses a registration (400 invalid_client_metadata for a token_endpoint_auth_method it does not list), the client registers again with one of token_endpoint_auth_methods_supported, or gives up cleanly (at most ${GIVE_UP_AFTER} attempts, ending by itself); it does not repeat the refused request.`,
    run(ctx) {
      const reg = asOf(ctx, 'register');
      if (!reg.length) return nothingYet(ctx, 'the client did not register');
      const ok = reg.find((r) => r.status < 300);
      const refused = reg.filter((r) => r.status >= 400);
      if (ok && !refused.length)
        return { verdict: 'pass', message: `the client asked at once for a listed method: ${shown(ok)}` };
      if (ok)
        return {
          verdict: 'pass',
          message: `after ${refused.length} refused registration${refused.length === 1 ? '' : 's'} (${shown(refused[0]!)}) the client registered again with a listed method: ${shown(ok)}`,
        };
      const gaveUp = givenUp(ctx);
      if (gaveUp) return { verdict: 'pass', message: gaveUp };
      return {
        verdict: 'warn',
        message: `${refused.length} refused registrations (${shown(refused[refused.length - 1]!)}) and no registration with a listed method; ${ending(ctx)}`,
      };
    },
  },
];
