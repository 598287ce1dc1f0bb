/** Authorization cases: how tokens are treated: the valid one, made-up and minted ones, where they travel, their scope. */
import type { CaseDef } from '../../core/suite.js';
import { credentialsInput } from '../../core/auth/credentials.js';
import { evidence, mcpProbe, mcpRequest, sseSession, whenProtected, withToken } from './facts.js';
import { bearerOf, send } from './probe.js';
import { underScopedOperations } from './scoped-ops.js';
import {
  AUTH,
  NO_TOKEN,
  RANK,
  isOutcome,
  madeUp401,
  minted,
  mintedAnswer,
  needing,
  ok,
  said,
  validAccepted,
} from './common.js';

export const tokenCases: CaseDef[] = [
  {
    id: 'auth/token/accepted',
    title: "the run's token is accepted",
    level: 'MUST',
    spec: 'basic/authorization#token-handling',
    requirement:
      "A valid token for this server (the run's: --auth-server mints one for the MCP URL; --oauth or --header bring one) opens the MCP request. Every other token case compares against it.",
    requires: { ...AUTH, from: '2025-03-26', needs: 'handshake' },
    run: needing(whenProtected, async (ctx, _u) => {
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
    }),
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
    run: needing(whenProtected, async (ctx, _u) => {
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
    }),
  },
  {
    id: 'auth/token/query-string',
    title: 'a token in the query string is never accepted',
    level: 'MUST',
    spec: 'basic/authorization#token-requirements',
    requirement:
      "Access tokens must not travel in the URI query string (OAuth 2.1 §5.1): the run's valid token as ?access_token=… with no Authorization header must not open the MCP request.",
    requires: { ...AUTH, from: '2025-03-26', needs: 'handshake' },
    run: needing(whenProtected, async (ctx, u) => {
      const valid = await validAccepted(ctx);
      if (isOutcome(valid)) return valid;
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
    }),
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
    run: needing(whenProtected, async (ctx, u) => {
      const valid = await validAccepted(ctx);
      if (isOutcome(valid)) return valid;
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
    }),
  },
  {
    id: 'auth/token/every-request-sse',
    title: 'HTTP+SSE: a message POSTed to a session without the token is refused',
    level: 'MUST',
    spec: 'basic/authorization#token-requirements',
    requirement:
      'Authorization goes with every HTTP request: over HTTP+SSE, a POST to the message endpoint of a stream opened with a valid token, but carrying no token itself, gets 401 (the session in its URL is no credential).',
    requires: { ...AUTH, transports: ['sse'], from: '2025-03-26', needs: 'handshake' },
    run: needing(whenProtected, async (ctx, u) => {
      const valid = await validAccepted(ctx);
      if (isOutcome(valid)) return valid;
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
    }),
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
      if (isOutcome(m)) return m;
      const { a } = m;
      const details = evidence(m.valid, a);
      if (ok(a.status)) {
        // The handshake needs no scope: the operations the run performs may (one verdict per operation, the worst wins).
        const token = await ctx.input(credentialsInput)!.mint!('under-scoped');
        const ops = token ? await underScopedOperations(ctx, token, ctx.features.protectedResourceMetadata) : undefined;
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
      if (isOutcome(m)) return m;
      const { a } = m;
      const details = evidence(m.valid, a);
      if (a.status === 401) return { verdict: 'pass', message: `expired and under-scoped token: ${said(a)}`, details };
      if (ok(a.status))
        return { verdict: 'fail', message: `an expired, under-scoped token was accepted: ${said(a)}`, details };
      return {
        verdict: 'fail',
        message: `expired and under-scoped token: ${said(a)}; an expired token gets 401${a.status === 403 ? ' — the scope was judged before the expiry' : ''}`,
        details,
      };
    },
  },
];
