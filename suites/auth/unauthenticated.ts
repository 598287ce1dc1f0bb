/** Authorization cases: a request without credentials: the MCP request, the GET stream, DELETE. */
import type { CaseDef } from '../../core/suite.js';
import { credentialsInput } from '../../core/auth/credentials.js';
import { evidence, mcpRequest, unauthenticated, whenProtected } from './facts.js';
import { send, type ProbeAnswer } from './probe.js';
import { AUTH, needing, ok, said } from './common.js';

export const unauthenticatedCases: CaseDef[] = [
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
    run: needing(whenProtected, async (ctx, u) => {
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
    }),
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
    run: needing(whenProtected, async (ctx, u) => {
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
    }),
  },
];
