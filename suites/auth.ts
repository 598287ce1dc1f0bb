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
import type { CaseContext, CaseDef, Outcome, Requires, Suite } from '../core/suite.js';
import { credentialsInput, type TokenVariant } from '../core/auth/credentials.js';
import { authRefusal } from '../core/auth/required.js';
import { brief } from './helpers.js';
import {
  authorizationServerMetadata,
  evidence,
  mcpProbe,
  mcpRequest,
  resourceMetadata,
  sseSession,
  unauthenticated,
  whenProtected,
  withToken,
  type MetadataFetch,
} from './auth/facts.js';
import { bearerOf, notCanonical, sameResource, send, type ProbeAnswer } from './auth/probe.js';
import { underScopedOperations } from './auth/scoped-ops.js';

/** Which verdict of several is the worst (the one a combined case reports). */
const RANK: Record<string, number> = { skip: 0, info: 1, pass: 2, warn: 3, fail: 4 };

const HTTP = ['streamable-http', 'sse'] as const;
/** Every case: over HTTP, and also when the server refused the run for want of a token (what it checks first). */
const AUTH: Pick<Requires, 'transports' | 'withoutToken'> = { transports: [...HTTP], withoutToken: true };
const ok = (s?: number) => s !== undefined && s >= 200 && s < 300;
const NO_TOKEN =
  'needs a token the server accepts: run with --auth-server (and --start), --oauth, or --header "Authorization: Bearer …"';
const NO_MINT =
  'needs tokens the harness makes itself: run with --auth-server (and --start), the server trusting the issuer it is handed (MCP_CONFORM_AUTH_ISSUER)';

function said(a: ProbeAnswer): string {
  if (a.probe.error) return `the request failed: ${a.probe.error}`;
  const www = a.headers['www-authenticate'];
  return `HTTP ${a.status}${www !== undefined ? ` (WWW-Authenticate: ${www.length > 200 ? `${www.slice(0, 200)}…` : www})` : ' (no WWW-Authenticate)'}`;
}

function fetched(f: MetadataFetch): string {
  return `${f.url}: ${f.problem ?? 'HTTP 200, a JSON object'}`;
}

/** The run's valid token opens the MCP request; else why the token cases prove nothing. */
async function validAccepted(ctx: CaseContext): Promise<ProbeAnswer | Outcome> {
  const p = withToken(ctx, 'valid');
  if (!p) return { verdict: 'skip', message: `not run: ${NO_TOKEN}` };
  const a = await p;
  if (!ok(a.status))
    return {
      verdict: 'skip',
      message: `not run: the server refuses the run's own token too (${said(a)}), so a refusal here would prove nothing${ctx.input(credentialsInput)?.source === 'auth-server' ? ' — does the server trust the issuer it was handed (MCP_CONFORM_AUTH_ISSUER)?' : ''}`,
      details: evidence(a),
    };
  return a;
}

/**
 * What a case about a minted token rests on: the server asks for authorization, the run can mint (--auth-server), the
 * run's valid token is accepted; then the answer to the MCP request with the token of this variant. Else why not.
 */
async function mintedAnswer(
  ctx: CaseContext,
  variant: TokenVariant,
): Promise<{ valid: ProbeAnswer; a: ProbeAnswer } | Outcome> {
  const u = await whenProtected(ctx);
  if ('verdict' in u) return u;
  if (!ctx.input(credentialsInput)?.mint) return { verdict: 'skip', message: `not run: ${NO_MINT}` };
  const valid = await validAccepted(ctx);
  if ('verdict' in valid) return valid;
  return { valid, a: (await withToken(ctx, variant))! };
}

/** A token that must be refused with 401 (invalid_token): the minted variants, a malformed or unknown one. */
function refused401(what: string, a: ProbeAnswer, valid?: ProbeAnswer): Outcome {
  const details = evidence(valid, a);
  const e = bearerOf(a.headers['www-authenticate'])?.params.error;
  if (a.status === 401 && e === 'invalid_token') return { verdict: 'pass', message: `${what}: ${said(a)}`, details };
  if (a.status === 401)
    return {
      verdict: 'warn',
      level: 'SHOULD',
      message: `${what}: HTTP 401, but its challenge has ${e ? `error="${e}"` : 'no error code'}; a token that fails validation should get error="invalid_token" (RFC 6750 §3.1) — ${said(a)}`,
      details,
    };
  if (ok(a.status))
    return {
      verdict: 'fail',
      message: `${what} was accepted: ${said(a)}; the server must refuse it with 401`,
      details,
    };
  return { verdict: 'fail', message: `${what}: ${said(a)}; an invalid or expired token must get 401`, details };
}

/** A made-up token (malformed or unknown) sent with the MCP request must be refused with 401. */
async function madeUp401(ctx: CaseContext, what: string, token: string): Promise<Outcome> {
  const u = await whenProtected(ctx);
  if ('verdict' in u) return u;
  return refused401(what, await mcpProbe(ctx, `the MCP request with ${what}`, { Authorization: `Bearer ${token}` }));
}

function minted(variant: TokenVariant, what: string, extra: Partial<CaseDef> & Pick<CaseDef, 'requirement'>): CaseDef {
  return {
    id: `auth/token/${variant}`,
    title: `${what} is refused with 401`,
    level: 'MUST',
    spec: 'basic/authorization#token-handling',
    requires: { ...AUTH, from: '2025-03-26', needs: 'handshake' },
    async run(ctx) {
      const m = await mintedAnswer(ctx, variant);
      return 'verdict' in m ? m : refused401(what, m.a, m.valid);
    },
    ...extra,
  };
}

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
    {
      id: 'auth/unauthenticated/request',
      title: 'a request without credentials gets 401',
      level: 'MUST',
      spec: 'basic/authorization#error-handling',
      requirement:
        'A server that requires authorization answers a request that carries none with 401 Unauthorized (over Streamable HTTP the POST of the first request, over HTTP+SSE the GET of the stream). A server that answers it is reported as requiring no authorization (info), and the other cases of the suite do not apply.',
      requires: { ...AUTH, from: '2025-03-26', needs: 'handshake' },
      async run(ctx) {
        const u = await ctx.service(unauthenticated);
        if (!u) return { verdict: 'skip', message: 'not over HTTP: there is no URL to ask' };
        const a = u.answer;
        const what = `${a.probe.method} ${u.url} without credentials`;
        if (a.probe.error) return { verdict: 'fail', message: `${what}: ${said(a)}`, details: evidence(a) };
        if (a.status === 401) return { verdict: 'pass', message: `${what}: ${said(a)}`, details: evidence(a) };
        if (ok(a.status))
          return {
            verdict: 'info',
            message: `the server requires no authorization: ${what} was answered (HTTP ${a.status}); the other auth cases do not apply`,
            details: evidence(a),
          };
        if (a.status === 403)
          return {
            verdict: 'fail',
            message: `${what}: ${said(a)}; 403 is for a token whose scope is too narrow, a request without credentials gets 401`,
            details: evidence(a),
          };
        return {
          verdict: 'warn',
          message: `${what}: ${said(a)}, neither 401 nor an answer; the other auth cases do not apply`,
          details: evidence(a),
        };
      },
    },
    {
      id: 'auth/unauthenticated/get',
      title: 'a GET without credentials is refused',
      level: 'MUST',
      spec: 'basic/authorization#token-requirements',
      requirement:
        'Authorization goes with every HTTP request, the GET stream included: a GET without credentials gets 401 (or 405 where the server offers no GET stream); it must never open a stream.',
      requires: { ...AUTH, transports: ['streamable-http'], from: '2025-03-26', needs: 'handshake' },
      async run(ctx) {
        const u = await whenProtected(ctx);
        if ('verdict' in u) return u;
        const a = await send(
          'GET without credentials',
          u.url,
          'GET',
          {
            Accept: 'text/event-stream',
            ...(ctx.features.protocolVersionHeader ? { 'MCP-Protocol-Version': ctx.version } : {}),
          },
          undefined,
          ctx.timeoutMs,
        );
        if (a.status === 401)
          return { verdict: 'pass', message: `GET without credentials: ${said(a)}`, details: evidence(a) };
        if (a.status === 405 || a.status === 404)
          return {
            verdict: 'pass',
            message: `GET without credentials: HTTP ${a.status} — the server offers no GET stream, so there is nothing to protect`,
            details: evidence(a),
          };
        if (ok(a.status))
          return {
            verdict: 'fail',
            message: `GET without credentials was answered: ${said(a)}; it must get 401`,
            details: evidence(a),
          };
        return {
          verdict: 'warn',
          message: `GET without credentials: ${said(a)}; expected 401 (or 405 where there is no GET stream)`,
          details: evidence(a),
        };
      },
    },
    {
      id: 'auth/unauthenticated/delete',
      title: 'a DELETE without credentials ends no session',
      level: 'MUST',
      spec: 'basic/authorization#token-requirements',
      requirement:
        'Authorization goes with every HTTP request: a DELETE of a session without credentials gets 401 (or 405 where clients cannot end sessions), and the session goes on. With a token the harness opens a session of its own to try it on; without one it names a session id it made up.',
      requires: {
        ...AUTH,
        transports: ['streamable-http'],
        from: '2025-03-26',
        feature: 'sessions',
        needs: 'handshake',
      },
      async run(ctx) {
        const u = await whenProtected(ctx);
        if ('verdict' in u) return u;
        const token = await ctx.input(credentialsInput)?.accessToken();
        const auth: Record<string, string> = token ? { Authorization: `Bearer ${token}` } : {};
        let sid = 'mcp-conform-made-up-session';
        let init: ProbeAnswer | undefined;
        if (token) {
          const r = mcpRequest(ctx);
          init = await send(
            "initialize with the run's token (a session to try the DELETE on)",
            u.url,
            r.method,
            { ...r.headers, ...auth },
            r.body,
            ctx.timeoutMs,
          );
          if (init.headers['mcp-session-id']) sid = init.headers['mcp-session-id'];
        }
        const a = await send(
          'DELETE of the session without credentials',
          u.url,
          'DELETE',
          {
            'Mcp-Session-Id': sid,
            ...(ctx.features.protocolVersionHeader ? { 'MCP-Protocol-Version': ctx.version } : {}),
          },
          undefined,
          ctx.timeoutMs,
        );
        if (init?.headers['mcp-session-id'])
          void send("end the probe's session", u.url, 'DELETE', { ...auth, 'Mcp-Session-Id': sid }, undefined, 5000);
        const which = init?.headers['mcp-session-id'] ? 'a live session' : 'a made-up session id';
        if (a.status === 401)
          return {
            verdict: 'pass',
            message: `DELETE of ${which} without credentials: ${said(a)}`,
            details: evidence(init, a),
          };
        if (a.status === 405)
          return {
            verdict: 'pass',
            message: `DELETE without credentials: HTTP 405 — clients cannot end sessions here`,
            details: evidence(init, a),
          };
        if (ok(a.status))
          return {
            verdict: 'fail',
            message: `DELETE of ${which} without credentials was answered HTTP ${a.status}: a session was ended without authorization`,
            details: evidence(init, a),
          };
        return {
          verdict: init?.headers['mcp-session-id'] ? 'warn' : 'pass',
          message: `DELETE of ${which} without credentials: ${said(a)}${init?.headers['mcp-session-id'] ? '; expected 401' : ' (refused)'}`,
          details: evidence(init, a),
        };
      },
    },
    {
      id: 'auth/challenge/bearer',
      title: 'the 401 carries a parseable Bearer challenge',
      level: 'MUST',
      spec: 'basic/authorization#authorization-server-location',
      requirement:
        'A 401 carries WWW-Authenticate (RFC 9110 §11.6.1) with a Bearer challenge (RFC 6750 §3) a client can parse: clients read where to authorize from it.',
      requires: { ...AUTH, from: '2025-03-26', needs: 'handshake' },
      async run(ctx) {
        const u = await whenProtected(ctx);
        if ('verdict' in u) return u;
        const details = evidence(u.answer);
        if (u.www === undefined)
          return {
            verdict: 'fail',
            message: 'the 401 has no WWW-Authenticate header: clients cannot tell how to authorize',
            details,
          };
        if (!u.bearer)
          return {
            verdict: 'fail',
            message: `WWW-Authenticate: ${brief(u.www, 200)} — no parseable Bearer challenge`,
            details,
          };
        return {
          verdict: 'pass',
          message: `Bearer challenge with ${Object.keys(u.bearer.params).join(', ') || 'no parameters'}`,
          details,
        };
      },
    },
    {
      id: 'auth/challenge/resource-metadata',
      title: 'the challenge names the protected-resource metadata by an absolute URL that serves it',
      level: 'MUST',
      spec: 'basic/authorization#protected-resource-metadata-discovery-requirements',
      requirement:
        'The 401 challenge carries resource_metadata, an absolute URL of the protected-resource metadata (RFC 9728 §5.1) — a MUST in 2025-06-18; from 2025-11-25 the well-known URL may serve instead (warn: clients that only follow the challenge are lost), and a URL given must work.',
      requires: { ...AUTH, from: '2025-06-18', needs: 'handshake' },
      async run(ctx) {
        const u = await whenProtected(ctx);
        if ('verdict' in u) return u;
        const prm = (await ctx.service(resourceMetadata))!;
        const wellKnown = [prm.pathSuffixed, prm.root].find((f) => f?.doc);
        if (prm.named === undefined) {
          if (!ctx.features.resourceMetadataEitherWay)
            return {
              verdict: 'fail',
              message: `the challenge has no resource_metadata (${said(u.answer)})`,
              details: evidence(u.answer),
            };
          if (wellKnown)
            return {
              verdict: 'warn',
              level: 'SHOULD',
              message: `the challenge has no resource_metadata; the metadata is at the well-known URL ${wellKnown.url}, which this version allows, but clients that only follow the challenge will not find it`,
              details: evidence(u.answer, wellKnown),
            };
          return {
            verdict: 'fail',
            message:
              'the challenge has no resource_metadata and no well-known URL serves the metadata: a client cannot find the authorization server',
            details: evidence(u.answer, prm.pathSuffixed, prm.root),
          };
        }
        let abs: URL | undefined;
        try {
          abs = new URL(prm.named);
        } catch {
          /* below */
        }
        if (!abs)
          return {
            verdict: 'fail',
            message: `resource_metadata="${brief(prm.named, 120)}" is not an absolute URL`,
            details: evidence(u.answer),
          };
        const f = prm.fromChallenge;
        if (f?.doc)
          return {
            verdict: 'pass',
            message: `resource_metadata=${prm.named} serves the metadata`,
            details: evidence(u.answer, f),
          };
        const appended =
          /.\/\.well-known\/oauth-protected-resource/.test(abs.pathname) && !abs.pathname.startsWith('/.well-known/');
        return {
          verdict: 'fail',
          message: `resource_metadata=${prm.named} does not serve the metadata (${f?.problem ?? 'not fetched'})${appended ? '; the well-known suffix was appended after the path, where RFC 9728 §3.1 puts it between the host and the path' : ''}`,
          details: evidence(u.answer, f),
        };
      },
    },
    {
      id: 'auth/challenge/scope',
      title: 'the challenge names the scope needed',
      level: 'SHOULD',
      spec: 'basic/authorization#scope-selection-strategy',
      requirement:
        'The 401 challenge should carry scope, the scopes a client should ask for (RFC 6750 §3); without it clients fall back to scopes_supported or to none.',
      requires: { ...AUTH, feature: 'challengeScope', needs: 'handshake' },
      async run(ctx) {
        const u = await whenProtected(ctx);
        if ('verdict' in u) return u;
        if (!u.bearer) return { verdict: 'skip', message: 'no Bearer challenge to read (auth/challenge/bearer)' };
        const s = u.bearer.params.scope;
        if (s === undefined)
          return {
            verdict: 'warn',
            message: 'the challenge has no scope: clients must guess which scopes to ask for',
            details: evidence(u.answer),
          };
        return { verdict: 'pass', message: `scope="${s}"`, details: evidence(u.answer) };
      },
    },
    {
      id: 'auth/challenge/no-offline-access',
      title: 'offline_access is not advertised as a resource scope',
      level: 'SHOULD',
      spec: 'basic/authorization#refresh-tokens',
      requirement:
        "A protected resource should not name offline_access in its challenge scope or its metadata's scopes_supported: refresh tokens are the client's and the authorization server's business, not a resource requirement.",
      requires: { ...AUTH, feature: 'offlineAccessAdvice', needs: 'handshake' },
      async run(ctx) {
        const u = await whenProtected(ctx);
        if ('verdict' in u) return u;
        const prm = await ctx.service(resourceMetadata);
        const where: string[] = [];
        if ((u.bearer?.params.scope ?? '').split(/\s+/).includes('offline_access')) where.push("the challenge's scope");
        const sup = prm?.used?.doc.scopes_supported;
        if (Array.isArray(sup) && sup.includes('offline_access')) where.push(`scopes_supported of ${prm!.used!.url}`);
        if (where.length)
          return {
            verdict: 'warn',
            message: `offline_access is advertised in ${where.join(' and ')}`,
            details: evidence(u.answer, prm?.used),
          };
        return {
          verdict: 'pass',
          message: 'offline_access is advertised neither in the challenge nor in the metadata',
          details: evidence(u.answer, prm?.used),
        };
      },
    },
    {
      id: 'auth/challenge/error-without-credentials',
      title: 'a challenge to a request without credentials carries no error code',
      level: 'SHOULD',
      spec: 'basic/authorization#error-handling',
      requirement:
        'RFC 6750 §3.1: when a request carried no credentials, the challenge should not carry an error code. Reported as info: the SDKs add one, and clients are not hurt by it.',
      requires: { ...AUTH, from: '2025-03-26', needs: 'handshake' },
      async run(ctx) {
        const u = await whenProtected(ctx);
        if ('verdict' in u) return u;
        if (!u.bearer) return { verdict: 'skip', message: 'no Bearer challenge to read (auth/challenge/bearer)' };
        const e = u.bearer.params.error;
        if (e !== undefined)
          return {
            verdict: 'info',
            message: `the challenge to a request without credentials has error="${e}" (RFC 6750 §3.1 asks for none; harmless to clients)`,
            details: evidence(u.answer),
          };
        return { verdict: 'pass', message: 'no error code in the challenge', details: evidence(u.answer) };
      },
    },
    {
      id: 'auth/resource-metadata/served',
      title: 'protected-resource metadata is served without a token, as JSON',
      level: 'MUST',
      spec: 'basic/authorization#authorization-server-location',
      requirement:
        'The server serves its protected-resource metadata (RFC 9728) — at the URL its challenge names, or at the path-suffixed or root well-known URL — to anyone, without a token, as a JSON object.',
      requires: { ...AUTH, feature: 'protectedResourceMetadata', needs: 'handshake' },
      async run(ctx) {
        const u = await whenProtected(ctx);
        if ('verdict' in u) return u;
        const prm = (await ctx.service(resourceMetadata))!;
        const all = [prm.fromChallenge, prm.pathSuffixed, prm.root].filter((f): f is MetadataFetch => !!f);
        if (prm.used)
          return {
            verdict: 'pass',
            message: `served at ${prm.used.url} (${prm.used.how === 'challenge' ? 'the URL the challenge names' : `the ${prm.used.how} well-known URL`})`,
            details: evidence(...all),
          };
        const behind = all.some((f) => f.answer.status === 401);
        return {
          verdict: 'fail',
          message: `no protected-resource metadata${behind ? ' — it is behind the authorization it describes' : ''}: ${all.map(fetched).join('; ')}`,
          details: evidence(...all),
        };
      },
    },
    {
      id: 'auth/resource-metadata/authorization-servers',
      title: 'the metadata names at least one authorization server',
      level: 'MUST',
      spec: 'basic/authorization#authorization-server-location',
      requirement: 'authorization_servers is a non-empty array of authorization server issuer URLs.',
      requires: { ...AUTH, feature: 'protectedResourceMetadata', needs: 'handshake' },
      async run(ctx) {
        const u = await whenProtected(ctx);
        if ('verdict' in u) return u;
        const used = (await ctx.service(resourceMetadata))?.used;
        if (!used)
          return { verdict: 'skip', message: 'no protected-resource metadata to read (auth/resource-metadata/served)' };
        const a = used.doc.authorization_servers;
        const bad = Array.isArray(a)
          ? a.filter((x) => {
              try {
                return typeof x !== 'string' || !/^https?:$/.test(new URL(x).protocol);
              } catch {
                return true;
              }
            })
          : [];
        if (!Array.isArray(a) || !a.length)
          return {
            verdict: 'fail',
            message: `authorization_servers is ${a === undefined ? 'missing' : brief(a, 80)}: clients cannot find where to authorize`,
            details: evidence(used),
          };
        if (bad.length)
          return {
            verdict: 'fail',
            message: `authorization_servers holds ${bad.map((b) => brief(b, 80)).join(', ')}, not absolute http(s) URLs`,
            details: evidence(used),
          };
        return { verdict: 'pass', message: `authorization_servers: ${a.join(', ')}`, details: evidence(used) };
      },
    },
    {
      id: 'auth/resource-metadata/resource',
      title: "the metadata's resource is the MCP URL",
      level: 'MUST',
      spec: 'basic/authorization#authorization-server-location',
      requirement:
        'RFC 9728 §3.3: resource is identical to the URL the client uses (the MCP endpoint) — not the origin alone, not with a slash added; a client must not use metadata whose resource differs.',
      requires: { ...AUTH, feature: 'protectedResourceMetadata', needs: 'handshake' },
      async run(ctx) {
        const u = await whenProtected(ctx);
        if ('verdict' in u) return u;
        const used = (await ctx.service(resourceMetadata))?.used;
        if (!used)
          return { verdict: 'skip', message: 'no protected-resource metadata to read (auth/resource-metadata/served)' };
        const r = used.doc.resource;
        if (typeof r !== 'string')
          return {
            verdict: 'fail',
            message: `resource is ${r === undefined ? 'missing' : brief(r, 80)} in ${used.url}`,
            details: evidence(used),
          };
        if (sameResource(r, u.url)) return { verdict: 'pass', message: `resource is ${r}`, details: evidence(used) };
        const hint =
          r === new URL(u.url).origin || r === `${new URL(u.url).origin}/`
            ? ' (the origin alone)'
            : r.replace(/\/$/, '') === u.url.replace(/\/$/, '')
              ? ' (differs by a trailing slash)'
              : '';
        return {
          verdict: 'fail',
          message: `resource is ${r}${hint}, not the MCP URL ${u.url}: RFC 9728 §3.3 tells clients not to use this metadata`,
          details: evidence(used),
        };
      },
    },
    {
      id: 'auth/resource-metadata/canonical',
      title: 'the resource identifier is in canonical form',
      level: 'SHOULD',
      spec: 'basic/authorization#canonical-server-uri',
      requirement:
        'The resource identifier clients send as RFC 8707 `resource` should be canonical: lower-case scheme and host, no fragment, no trailing slash unless it matters.',
      requires: { ...AUTH, feature: 'protectedResourceMetadata', needs: 'handshake' },
      async run(ctx) {
        const u = await whenProtected(ctx);
        if ('verdict' in u) return u;
        const used = (await ctx.service(resourceMetadata))?.used;
        const r = used?.doc.resource;
        if (typeof r !== 'string')
          return { verdict: 'skip', message: 'no resource to look at (auth/resource-metadata/resource)' };
        const bad = notCanonical(r);
        if (bad.length)
          return { verdict: 'warn', message: `resource ${r}: ${bad.join('; ')}`, details: evidence(used) };
        return { verdict: 'pass', message: `resource ${r} is canonical`, details: evidence(used) };
      },
    },
    {
      id: 'auth/resource-metadata/well-known',
      title: 'the metadata is at the well-known URL RFC 9728 builds from the MCP URL',
      level: 'SHOULD',
      spec: 'basic/authorization#protected-resource-metadata-discovery-requirements',
      requirement:
        'Clients without a resource_metadata URL build one: the path-suffixed well-known URL (RFC 9728 §3.1: the suffix between host and path), then the root one. The metadata should be at the path-suffixed URL; served only at the root (for an endpoint with a path) it is found only by clients that fall back. Both absent with no URL in the challenge: fail.',
      requires: { ...AUTH, feature: 'protectedResourceMetadata', needs: 'handshake' },
      async run(ctx) {
        const u = await whenProtected(ctx);
        if ('verdict' in u) return u;
        const prm = (await ctx.service(resourceMetadata))!;
        const details = evidence(prm.pathSuffixed, prm.root);
        const ps = prm.pathSuffixed;
        const root = prm.root!;
        if (ps?.doc && root.doc)
          return { verdict: 'pass', message: `served at both ${ps.url} and ${root.url}`, details };
        if (ps?.doc)
          return {
            verdict: 'pass',
            message: `served at ${ps.url}, where RFC 9728 §3.1 puts it (the root URL: ${root.problem})`,
            details,
          };
        if (!ps && root.doc)
          return { verdict: 'pass', message: `served at ${root.url} (the MCP URL has no path)`, details };
        if (root.doc)
          return {
            verdict: 'warn',
            message: `served only at the root (${root.url}); the path-suffixed URL ${ps!.url} answered ${ps!.problem}: clients that follow RFC 9728 §3.1 without falling back to the root will not find it`,
            details,
          };
        if (prm.fromChallenge?.doc)
          return {
            verdict: 'warn',
            message: `served only at the URL the challenge names (${prm.fromChallenge.url}); no well-known URL serves it (${[
              ps,
              root,
            ]
              .filter((f) => f)
              .map((f) => fetched(f!))
              .join('; ')})`,
            details: evidence(prm.fromChallenge, ps, root),
          };
        return {
          verdict: 'fail',
          message: `no well-known URL serves the metadata and the challenge names none that does: ${[ps, root]
            .filter((f) => f)
            .map((f) => fetched(f!))
            .join('; ')}`,
          details,
        };
      },
    },
    {
      id: 'auth/as-metadata/found',
      title: "the authorization server's metadata is found where the spec tells clients to look",
      level: 'MUST',
      spec: 'basic/authorization#authorization-server-metadata-discovery',
      requirement:
        "The authorization server named in the metadata serves RFC 8414 metadata or OpenID discovery at one of the URLs clients try, in the spec's order (path insertion first). 2025-03-26: at the MCP origin's /.well-known/oauth-authorization-server (SHOULD; without it clients use /authorize, /token, /register).",
      requires: { ...AUTH, feature: 'authorization', needs: 'handshake' },
      async run(ctx) {
        const u = await whenProtected(ctx);
        if ('verdict' in u) return u;
        const as = await ctx.service(authorizationServerMetadata);
        if (!as)
          return {
            verdict: 'skip',
            message: 'no authorization server is named (auth/resource-metadata/authorization-servers)',
          };
        const details = evidence(...as.tried);
        if (as.found)
          return {
            verdict: 'pass',
            message: `${as.issuer} (from ${as.how}): metadata at ${as.found.url}${as.tried.length > 1 ? ` (after ${as.tried.length - 1} URL${as.tried.length > 2 ? 's' : ''} that did not serve it)` : ''}`,
            details,
          };
        if (ctx.features.originAuthorizationMetadata)
          return {
            verdict: 'warn',
            level: 'SHOULD',
            message: `no metadata at ${as.tried.map(fetched).join('; ')}: clients fall back to /authorize, /token and /register on the origin`,
            details,
          };
        return {
          verdict: 'fail',
          message: `the authorization server ${as.issuer} serves no metadata where clients look: ${as.tried.map(fetched).join('; ') || 'its URL is not usable'}`,
          details,
        };
      },
    },
    {
      id: 'auth/as-metadata/issuer',
      title: "the authorization server's issuer is the one named",
      level: 'MUST',
      spec: 'basic/authorization#authorization-server-metadata-discovery',
      requirement:
        "RFC 8414 §3.3: the metadata's issuer is identical to the issuer the client built the metadata URL from; clients must not use metadata that says otherwise.",
      requires: { ...AUTH, feature: 'authorization', needs: 'handshake' },
      async run(ctx) {
        const u = await whenProtected(ctx);
        if ('verdict' in u) return u;
        const as = await ctx.service(authorizationServerMetadata);
        if (!as?.found)
          return { verdict: 'skip', message: 'no authorization-server metadata to read (auth/as-metadata/found)' };
        const iss = as.found.doc.issuer;
        const same = iss === as.issuer || (ctx.features.originAuthorizationMetadata && iss === `${as.issuer}/`);
        if (same) return { verdict: 'pass', message: `issuer ${String(iss)}`, details: evidence(as.found) };
        return {
          verdict: 'fail',
          message: `issuer is ${iss === undefined ? 'missing' : brief(iss, 100)}, not ${as.issuer} (the server named it): clients must not use this metadata`,
          details: evidence(as.found),
        };
      },
    },
    {
      id: 'auth/as-metadata/s256',
      title: 'the authorization server lists S256 among its PKCE methods',
      level: 'MUST',
      spec: 'basic/authorization#authorization-code-protection',
      requirement:
        'code_challenge_methods_supported includes S256. From 2025-11-25 clients must refuse an authorization server that does not list it (fail); before, PKCE with S256 is still required of clients (warn).',
      requires: { ...AUTH, feature: 'authorization', needs: 'handshake' },
      async run(ctx) {
        const u = await whenProtected(ctx);
        if ('verdict' in u) return u;
        const as = await ctx.service(authorizationServerMetadata);
        if (!as?.found)
          return { verdict: 'skip', message: 'no authorization-server metadata to read (auth/as-metadata/found)' };
        const m = as.found.doc.code_challenge_methods_supported;
        if (Array.isArray(m) && m.includes('S256'))
          return {
            verdict: 'pass',
            message: `code_challenge_methods_supported: ${m.join(', ')}`,
            details: evidence(as.found),
          };
        const said = `code_challenge_methods_supported is ${m === undefined ? 'missing' : brief(m, 80)}`;
        if (ctx.features.s256Required)
          return {
            verdict: 'fail',
            message: `${said}: compliant clients refuse this authorization server`,
            details: evidence(as.found),
          };
        return {
          verdict: 'warn',
          level: 'SHOULD',
          message: `${said}: clients cannot see that PKCE with S256 is supported`,
          details: evidence(as.found),
        };
      },
    },
    {
      id: 'auth/as-metadata/registration',
      title: 'the authorization server offers clients a way to register',
      level: 'MAY',
      spec: 'basic/authorization#client-registration-approaches',
      requirement:
        'A registration_endpoint (dynamic client registration, RFC 7591) or Client ID Metadata Documents (client_id_metadata_document_supported) let a client it has never seen get in; without either only pre-registered clients can (info).',
      requires: { ...AUTH, feature: 'authorization', needs: 'handshake' },
      async run(ctx) {
        const u = await whenProtected(ctx);
        if ('verdict' in u) return u;
        const as = await ctx.service(authorizationServerMetadata);
        if (!as?.found)
          return { verdict: 'skip', message: 'no authorization-server metadata to read (auth/as-metadata/found)' };
        const d = as.found.doc;
        const ways = [
          ...(typeof d.registration_endpoint === 'string'
            ? [`dynamic registration at ${d.registration_endpoint}`]
            : []),
          ...(d.client_id_metadata_document_supported === true ? ['Client ID Metadata Documents'] : []),
        ];
        if (ways.length) return { verdict: 'pass', message: ways.join('; '), details: evidence(as.found) };
        return {
          verdict: 'info',
          message:
            'neither a registration_endpoint nor client_id_metadata_document_supported: only clients registered beforehand can get in',
          details: evidence(as.found),
        };
      },
    },
    {
      id: 'auth/as-metadata/iss-parameter',
      title: 'the authorization server advertises iss in its authorization responses',
      level: 'SHOULD',
      spec: 'basic/authorization#authorization-response-validation',
      requirement:
        'RFC 9207: the authorization server should put iss in its authorization responses and say so with authorization_response_iss_parameter_supported: true (clients then check it against mix-up attacks).',
      requires: { ...AUTH, feature: 'offlineAccessAdvice', needs: 'handshake' },
      async run(ctx) {
        const u = await whenProtected(ctx);
        if ('verdict' in u) return u;
        const as = await ctx.service(authorizationServerMetadata);
        if (!as?.found)
          return { verdict: 'skip', message: 'no authorization-server metadata to read (auth/as-metadata/found)' };
        const v = as.found.doc.authorization_response_iss_parameter_supported;
        if (v === true)
          return {
            verdict: 'pass',
            message: 'authorization_response_iss_parameter_supported: true',
            details: evidence(as.found),
          };
        return {
          verdict: 'warn',
          message: `authorization_response_iss_parameter_supported is ${v === undefined ? 'missing' : brief(v, 40)}: clients cannot rely on iss to detect mix-ups`,
          details: evidence(as.found),
        };
      },
    },
    {
      id: 'auth/token/accepted',
      title: "the run's token is accepted",
      level: 'MUST',
      spec: 'basic/authorization#token-handling',
      requirement:
        "A valid token for this server (the run's: --auth-server mints one for the MCP URL; --oauth or --header bring one) opens the MCP request. Every other token case compares against it.",
      requires: { ...AUTH, from: '2025-03-26', needs: 'handshake' },
      async run(ctx) {
        const u = await whenProtected(ctx);
        if ('verdict' in u) return u;
        const p = withToken(ctx, 'valid');
        if (!p) return { verdict: 'skip', message: `not run: ${NO_TOKEN}` };
        const a = await p;
        if (ok(a.status))
          return {
            verdict: 'pass',
            message: `the ${a.probe.method} with the run's token (${ctx.input(credentialsInput)!.source}): HTTP ${a.status}`,
            details: evidence(a),
          };
        return {
          verdict: 'fail',
          message: `the run's token (${ctx.input(credentialsInput)!.source}) was refused: ${said(a)}${ctx.input(credentialsInput)!.source === 'auth-server' ? ' — the server must trust the issuer it is handed (MCP_CONFORM_AUTH_ISSUER, {issuer} in --start) and accept its tokens for the MCP URL' : ''}`,
          details: evidence(a),
        };
      },
    },
    {
      id: 'auth/token/malformed',
      title: 'a malformed token is refused with 401',
      level: 'MUST',
      spec: 'basic/authorization#token-handling',
      requirement:
        'A token that is not one (three dot-separated parts that are not base64url JSON) is invalid: 401 with error="invalid_token" (RFC 6750 §3.1).',
      requires: { ...AUTH, from: '2025-03-26', needs: 'handshake' },
      run: (ctx) => madeUp401(ctx, 'a malformed token', 'mcp-conform.not-a.token'),
    },
    {
      id: 'auth/token/unknown',
      title: 'a token nobody issued is refused with 401',
      level: 'MUST',
      spec: 'basic/authorization#token-handling',
      requirement:
        'A well-formed token the server cannot validate (random, issued by nobody) gets 401 with error="invalid_token".',
      requires: { ...AUTH, from: '2025-03-26', needs: 'handshake' },
      run: (ctx) =>
        madeUp401(
          ctx,
          'an unknown token',
          Buffer.from(`mcp-conform-unknown-${Date.now()}-token-0123456789`).toString('base64url'),
        ),
    },
    {
      id: 'auth/token/basic-scheme',
      title: 'credentials in another scheme (Basic) are refused',
      level: 'MUST',
      spec: 'basic/authorization#token-requirements',
      requirement:
        "The token goes in the Authorization header with the Bearer scheme; a request whose Authorization uses another scheme (Basic, carrying the run's token where there is one) must not be served.",
      requires: { ...AUTH, from: '2025-03-26', needs: 'handshake' },
      async run(ctx) {
        const u = await whenProtected(ctx);
        if ('verdict' in u) return u;
        const token = await ctx.input(credentialsInput)?.accessToken();
        const a = await mcpProbe(ctx, 'the MCP request with Basic credentials', {
          Authorization: `Basic ${Buffer.from(`mcp-conform:${token ?? 'not-a-password'}`).toString('base64')}`,
        });
        if (ok(a.status))
          return { verdict: 'fail', message: `Authorization: Basic … was accepted: ${said(a)}`, details: evidence(a) };
        if (a.probe.error)
          return { verdict: 'fail', message: `Authorization: Basic …: ${said(a)}`, details: evidence(a) };
        return {
          verdict: 'pass',
          message: `Authorization: Basic …${token ? " (carrying the run's token)" : ''}: ${said(a)}`,
          details: evidence(a),
        };
      },
    },
    {
      id: 'auth/token/query-string',
      title: 'a token in the query string is never accepted',
      level: 'MUST',
      spec: 'basic/authorization#token-requirements',
      requirement:
        "Access tokens must not travel in the URI query string (OAuth 2.1 §5.1): the run's valid token as ?access_token=… with no Authorization header must not open the MCP request.",
      requires: { ...AUTH, from: '2025-03-26', needs: 'handshake' },
      async run(ctx) {
        const u = await whenProtected(ctx);
        if ('verdict' in u) return u;
        const valid = await validAccepted(ctx);
        if ('verdict' in valid) return valid;
        const url = new URL(u.url);
        url.searchParams.set('access_token', (await ctx.input(credentialsInput)!.accessToken())!);
        const a = await mcpProbe(ctx, 'the MCP request with the token in the query string', {}, url.href);
        if (ok(a.status))
          return {
            verdict: 'fail',
            message: `the token in the query string (?access_token=…) was accepted: ${said(a)}`,
            details: evidence(valid, a),
          };
        return {
          verdict: 'pass',
          message: `?access_token=… without a header: ${said(a)}`,
          details: evidence(valid, a),
        };
      },
    },
    {
      id: 'auth/token/every-request',
      title: 'a session id is not a credential: every request needs the token',
      level: 'MUST',
      spec: 'basic/authorization#token-requirements',
      requirement:
        'Authorization goes with every HTTP request: a request that carries a session opened with a valid token, but no token itself, gets 401.',
      requires: {
        ...AUTH,
        transports: ['streamable-http'],
        from: '2025-03-26',
        feature: 'sessions',
        needs: 'handshake',
      },
      async run(ctx) {
        const u = await whenProtected(ctx);
        if ('verdict' in u) return u;
        const valid = await validAccepted(ctx);
        if ('verdict' in valid) return valid;
        const token = (await ctx.input(credentialsInput)!.accessToken())!;
        const r = mcpRequest(ctx);
        const init = await send(
          "initialize with the run's token",
          u.url,
          r.method,
          { ...r.headers, Authorization: `Bearer ${token}` },
          r.body,
          ctx.timeoutMs,
        );
        const sid = init.headers['mcp-session-id'];
        if (!sid)
          return {
            verdict: 'skip',
            message: `the server opened no session (${said(init)}): there is no session id to try`,
            details: evidence(init),
          };
        const headers = {
          'Content-Type': 'application/json',
          Accept: 'application/json, text/event-stream',
          'Mcp-Session-Id': sid,
          ...(ctx.features.protocolVersionHeader ? { 'MCP-Protocol-Version': ctx.version } : {}),
        };
        const a = await send(
          'a request of that session without the token',
          u.url,
          'POST',
          headers,
          JSON.stringify({ jsonrpc: '2.0', id: 'mcp-conform-auth-session', method: 'ping' }),
          ctx.timeoutMs,
        );
        void send(
          "end the probe's session",
          u.url,
          'DELETE',
          { Authorization: `Bearer ${token}`, 'Mcp-Session-Id': sid },
          undefined,
          5000,
        );
        if (a.status === 401)
          return {
            verdict: 'pass',
            message: `a ping with the session id but no token: ${said(a)}`,
            details: evidence(init, a),
          };
        if (ok(a.status))
          return {
            verdict: 'fail',
            message: `a ping with the session id but no token was answered (HTTP ${a.status}): the session id served as a credential`,
            details: evidence(init, a),
          };
        return {
          verdict: 'warn',
          message: `a ping with the session id but no token: ${said(a)}; expected 401`,
          details: evidence(init, a),
        };
      },
    },
    {
      id: 'auth/token/every-request-sse',
      title: 'HTTP+SSE: a message POSTed to a session without the token is refused',
      level: 'MUST',
      spec: 'basic/authorization#token-requirements',
      requirement:
        'Authorization goes with every HTTP request: over HTTP+SSE, a POST to the message endpoint of a stream opened with a valid token, but carrying no token itself, gets 401 (the session in its URL is no credential).',
      requires: { ...AUTH, transports: ['sse'], from: '2025-03-26', needs: 'handshake' },
      async run(ctx) {
        const u = await whenProtected(ctx);
        if ('verdict' in u) return u;
        const valid = await validAccepted(ctx);
        if ('verdict' in valid) return valid;
        const stream = await sseSession(ctx, u.url, (await ctx.input(credentialsInput)!.accessToken())!);
        try {
          if (!stream.postUrl)
            return {
              verdict: 'skip',
              message: `the stream opened with the run's token named no endpoint (${stream.probe.error ?? `HTTP ${stream.probe.status}`}): nothing to POST to`,
              details: { exchanges: [stream.probe] },
            };
          const a = await send(
            'a message to that session without the token',
            stream.postUrl,
            'POST',
            { 'Content-Type': 'application/json' },
            JSON.stringify({ jsonrpc: '2.0', id: 'mcp-conform-auth-session', method: 'ping' }),
            ctx.timeoutMs,
          );
          const details = { exchanges: [stream.probe, a.probe] };
          if (a.status === 401)
            return {
              verdict: 'pass',
              message: `a ping POSTed to the stream's session without a token: ${said(a)}`,
              details,
            };
          if (ok(a.status))
            return {
              verdict: 'fail',
              message: `a ping POSTed to the stream's session without a token was accepted (HTTP ${a.status}): the session in the URL served as a credential`,
              details,
            };
          return {
            verdict: 'warn',
            message: `a ping POSTed to the stream's session without a token: ${said(a)}; expected 401`,
            details,
          };
        } finally {
          stream.close();
        }
      },
    },
    minted('expired', 'an expired token', {
      requirement:
        'A token past its exp is invalid: 401 (not 400, 403 or an answer). The harness mints it with --auth-server.',
    }),
    minted('wrong-audience', 'a token for another resource', {
      requires: { ...AUTH, feature: 'protectedResourceMetadata', needs: 'handshake' },
      requirement:
        'The server must check that a token was issued for it (RFC 8707 audience): a token of its own authorization server for another resource gets 401. The harness mints it with --auth-server.',
      spec: 'basic/authorization#token-audience-binding-and-validation',
    }),
    minted('wrong-issuer', 'a token from another issuer', {
      requirement:
        "A token whose iss is not the server's authorization server (signed with the same key) is invalid: 401. The harness mints it with --auth-server.",
    }),
    minted('bad-signature', 'a token with a bad signature', {
      requirement:
        'A token signed by a key the authorization server does not publish (under its key id) is invalid: 401. The harness mints it with --auth-server.',
    }),
    {
      id: 'auth/token/under-scoped',
      title: 'a token without the scope needed gets 403 insufficient_scope',
      level: 'SHOULD',
      spec: 'basic/authorization#runtime-insufficient-scope-errors',
      requirement:
        'A valid token whose scope is too narrow gets 403 with a Bearer challenge carrying error="insufficient_scope", the scope needed and resource_metadata, so the client can step up; a 401 there sends the client to authorize again for the same scope (warn). The harness mints the token with --auth-server: it carries only a scope nobody requires. It is tried on the handshake; where the handshake needs no scope, also on the operations the run performs (a read-only tools/call the call policy allows, a resources/read), each judged by itself. A server that requires no scope anywhere answers everything (info).',
      requires: { ...AUTH, from: '2025-03-26', needs: 'handshake' },
      async run(ctx) {
        const m = await mintedAnswer(ctx, 'under-scoped');
        if ('verdict' in m) return m;
        const { a } = m;
        const details = evidence(m.valid, a);
        if (ok(a.status)) {
          // The handshake needs no scope: the operations the run performs may (one verdict per operation, the worst wins).
          const token = await ctx.input(credentialsInput)!.mint!('under-scoped');
          const ops = token
            ? await underScopedOperations(ctx, token, ctx.features.protectedResourceMetadata)
            : undefined;
          const head = `a token with none of the server's scopes was accepted for the handshake (HTTP ${a.status})`;
          if (!ops?.length)
            return {
              verdict: 'info',
              message: `${head}: the server requires no particular scope for it${ops === undefined ? ' (over HTTP+SSE the operations are not tried)' : '; the run performs no read-only tools/call or resources/read to try'}`,
              details,
            };
          const worst = ops.map((o) => o.outcome.verdict).sort((x, y) => RANK[y] - RANK[x])[0]!;
          return {
            verdict: worst,
            message: `${head}; then, per operation — ${ops.map((o) => `${o.outcome.verdict}: ${o.outcome.message}`).join('; ')}`,
            details: { exchanges: [...details.exchanges, ...ops.map((o) => o.a.probe)] },
          };
        }
        const b = bearerOf(a.headers['www-authenticate']);
        if (a.status === 403) {
          const missing = [
            b?.params.error === 'insufficient_scope' ? '' : 'error="insufficient_scope"',
            b?.params.scope !== undefined ? '' : 'scope',
            !ctx.features.protectedResourceMetadata || b?.params.resource_metadata !== undefined
              ? ''
              : 'resource_metadata',
          ].filter(Boolean);
          if (!missing.length) return { verdict: 'pass', message: `under-scoped token: ${said(a)}`, details };
          return {
            verdict: 'warn',
            message: `under-scoped token: HTTP 403, but its challenge lacks ${missing.join(', ')} (${said(a)}): the client cannot tell which scope to step up to`,
            details,
          };
        }
        if (a.status === 401)
          return {
            verdict: 'warn',
            message: `under-scoped token: ${said(a)}; a valid token with too little scope should get 403 insufficient_scope, not 401 (which sends the client to authorize again for the same scope)`,
            details,
          };
        return { verdict: 'warn', message: `under-scoped token: ${said(a)}; expected 403 insufficient_scope`, details };
      },
    },
    {
      id: 'auth/token/expired-under-scoped',
      title: 'a token both expired and under-scoped gets 401, not 403',
      level: 'MUST',
      spec: 'basic/authorization#token-handling',
      requirement:
        'An expired token is invalid whatever its scope: 401. A 403 insufficient_scope would have the client step up with a token that is dead anyway. The harness mints it with --auth-server.',
      requires: { ...AUTH, from: '2025-03-26', needs: 'handshake' },
      async run(ctx) {
        const m = await mintedAnswer(ctx, 'expired-under-scoped');
        if ('verdict' in m) return m;
        const { a } = m;
        const details = evidence(m.valid, a);
        if (a.status === 401)
          return { verdict: 'pass', message: `expired and under-scoped token: ${said(a)}`, details };
        if (ok(a.status))
          return { verdict: 'fail', message: `an expired, under-scoped token was accepted: ${said(a)}`, details };
        return {
          verdict: 'fail',
          message: `expired and under-scoped token: ${said(a)}; an expired token gets 401${a.status === 403 ? ' — the scope was judged before the expiry' : ''}`,
          details,
        };
      },
    },
    {
      id: 'auth/cors/metadata',
      title: 'the protected-resource metadata allows cross-origin reads',
      level: 'MAY',
      spec: 'basic/authorization#authorization-server-location',
      requirement:
        'No spec rule: browser-based clients can read the metadata only when it carries Access-Control-Allow-Origin (info when it does not).',
      requires: { ...AUTH, feature: 'protectedResourceMetadata', needs: 'handshake' },
      async run(ctx) {
        const u = await whenProtected(ctx);
        if ('verdict' in u) return u;
        const used = (await ctx.service(resourceMetadata))?.used;
        if (!used)
          return { verdict: 'skip', message: 'no protected-resource metadata to read (auth/resource-metadata/served)' };
        const a = await send(
          'protected-resource metadata from a browser origin',
          used.url,
          'GET',
          { Accept: 'application/json', Origin: 'https://client.mcp-conform.example' },
          undefined,
          ctx.timeoutMs,
        );
        const allow = a.headers['access-control-allow-origin'];
        if (allow) return { verdict: 'pass', message: `Access-Control-Allow-Origin: ${allow}`, details: evidence(a) };
        return {
          verdict: 'info',
          message: `no Access-Control-Allow-Origin on ${used.url} (${a.probe.error ?? `HTTP ${a.status}`}): browser-based clients cannot read it`,
          details: evidence(a),
        };
      },
    },
    {
      id: 'auth/cors/expose-www-authenticate',
      title: 'the 401 exposes WWW-Authenticate to browsers',
      level: 'MAY',
      spec: 'basic/authorization#authorization-server-location',
      requirement:
        'No spec rule: a browser-based client sees the challenge only when Access-Control-Expose-Headers lists WWW-Authenticate (info when it does not).',
      requires: { ...AUTH, from: '2025-03-26', needs: 'handshake' },
      async run(ctx) {
        const u = await whenProtected(ctx);
        if ('verdict' in u) return u;
        const a = await mcpProbe(ctx, 'the MCP request without credentials from a browser origin', {
          Origin: 'https://client.mcp-conform.example',
        });
        const expose = (a.headers['access-control-expose-headers'] ?? '').toLowerCase().split(/\s*,\s*/);
        if (a.status === 401 && (expose.includes('www-authenticate') || expose.includes('*')))
          return {
            verdict: 'pass',
            message: `Access-Control-Expose-Headers: ${a.headers['access-control-expose-headers']}`,
            details: evidence(a),
          };
        if (a.status !== 401)
          return {
            verdict: 'info',
            message: `from a browser origin the request without credentials got ${said(a)}, not 401: browser-based clients from other origins are refused before authorization`,
            details: evidence(a),
          };
        return {
          verdict: 'info',
          message: `the 401 does not list WWW-Authenticate in Access-Control-Expose-Headers (${a.headers['access-control-expose-headers'] ?? 'absent'}): browser-based clients cannot read the challenge`,
          details: evidence(a),
        };
      },
    },
  ],
};
