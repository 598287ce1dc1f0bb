/**
 * Streamable HTTP transport rules: answers as JSON or SSE, 202 for notifications and responses, session ids, DELETE,
 * the GET stream, the protocol version header, Origin and Host checks, bad JSON, batches, SSE event ids, and the
 * request headers of 2026-07-28. Cases that need a probe send their own HTTP request outside the session (recorded
 * in report.http.exchanges); the rest read the log.
 * https://modelcontextprotocol.io/specification/2025-11-25/basic/transports#streamable-http
 * https://modelcontextprotocol.io/specification/2026-07-28/basic/transports/streamable-http
 */
import type { LoggedMessage } from '../core/log.js';
import type { CaseContext, Suite } from '../core/suite.js';
import type { HttpExchange } from '../core/transport/http.js';
import { brief, isObject } from './helpers.js';
import { CLIENT_INFO } from '../core/run.js';
import {
  MISSING_TOOL,
  codeWords,
  errorCode,
  ex,
  heartbeatIn,
  methodHeaders,
  nextProbeId,
  ok,
  probeBody,
  said,
} from './http/probes.js';
import { streamCases } from './http/streams.js';

/** " (error -32020 "…")" when the answer to a message's POST carried a JSON-RPC error, else "". */
function refusalError(ctx: CaseContext, m: LoggedMessage): string {
  const a = ctx.session.log.find(
    (x) => x.direction === 'from-server' && x.http?.exchange === m.http?.exchange && x.kind === 'error',
  );
  const e = a && isObject(a.json) && isObject(a.json.error) ? a.json.error : undefined;
  return e
    ? ` (error ${typeof e.code === 'number' ? e.code : '?'}${typeof e.message === 'string' ? ` ${brief(e.message, 80)}` : ''})`
    : '';
}

function sentWithHttp(ctx: CaseContext): LoggedMessage[] {
  return ctx.session.log.filter((m) => m.direction === 'to-server' && m.http?.method === 'POST');
}

export const httpSuite: Suite = {
  id: 'http',
  title: 'Streamable HTTP transport',
  transports: ['streamable-http'],
  description:
    'JSON and SSE answers, 202, session ids, DELETE, GET, protocol version header, Origin, bad JSON, batches, SSE ids',
  cases: [
    {
      id: 'http/request-answer',
      title: 'a POSTed request is answered with application/json or an SSE stream',
      level: 'MUST',
      spec: 'basic/transports#sending-messages-to-the-server',
      requirement:
        'Every request POSTed gets either one JSON object (Content-Type application/json) or an SSE stream (text/event-stream); clients must accept both.',
      requires: { transports: ['streamable-http'], needs: 'log' },
      async run(ctx) {
        const reqs = sentWithHttp(ctx).filter((m) => m.kind === 'request' && m.http?.status !== undefined);
        if (!reqs.length) return { verdict: 'skip', message: 'no request got an HTTP answer' };
        const kinds: Record<string, number> = {};
        const bad: LoggedMessage[] = [];
        for (const m of reqs) {
          const ct = (m.http!.contentType ?? '').split(';')[0]!.trim().toLowerCase();
          if (ok(m.http!.status) && (ct === 'application/json' || ct === 'text/event-stream'))
            kinds[ct] = (kinds[ct] ?? 0) + 1;
          // Refusing a request it cannot accept with an HTTP error status is the server's right (probes send some).
          else if (!ok(m.http!.status))
            kinds[`refused with HTTP ${m.http!.status}`] = (kinds[`refused with HTTP ${m.http!.status}`] ?? 0) + 1;
          else bad.push(m);
        }
        const mix = Object.entries(kinds)
          .map(([k, n]) => (k.startsWith('refused') ? `${n} ${k}` : `${n} as ${k}`))
          .join(', ');
        if (bad.length) {
          const shown = bad
            .slice(0, 5)
            .map(
              (m) =>
                `${m.method} (message ${m.seq}): HTTP ${m.http!.status} ${m.http!.contentType ?? '(no Content-Type)'}`,
            );
          return {
            verdict: 'fail',
            message: `${bad.length} of ${reqs.length} requests were not answered with JSON or SSE: ${shown.join('; ')}${mix ? `; the others: ${mix}` : ''}`,
            messageIds: bad.map((m) => m.seq),
          };
        }
        return { verdict: 'pass', message: `all ${reqs.length} requests answered: ${mix}`, details: kinds };
      },
    },
    {
      id: 'http/accepted-202',
      title: 'notifications and responses POSTed get 202 Accepted with no body',
      level: 'MUST',
      spec: 'basic/transports#sending-messages-to-the-server',
      requirement:
        "When the server accepts a notification or a response, it answers 202 Accepted with an empty body; when it cannot accept it, an HTTP error status. A 4xx refusal of the harness's unknown notification (and in 2026-07-28 of any notification, perhaps with error -32020) is reported (info); of a message the protocol defines, a warn; a 5xx or a 202 with a body, a fail.",
      requires: { transports: ['streamable-http'], needs: 'log' },
      async run(ctx) {
        // Messages malformed on purpose (probes of other suites) may be refused; the well-formed ones are judged.
        const sent = sentWithHttp(ctx).filter(
          (m) =>
            (m.kind === 'notification' || m.kind === 'response' || m.kind === 'error') &&
            !m.schema.expectedInvalid &&
            m.http?.status !== undefined,
        );
        if (!sent.length) return { verdict: 'skip', message: 'no notification or response was POSTed' };
        const fails: string[] = [];
        const warns: string[] = [];
        const refused: string[] = [];
        const ids: number[] = [];
        for (const m of sent) {
          const what = `${m.kind === 'notification' ? m.method : `answer to ${m.method}`} (message ${m.seq})`;
          const s = m.http!.status!;
          const body = m.http!.bodyBytes ?? 0;
          if (s === 202 && body === 0) continue;
          ids.push(m.seq);
          if (s === 202) fails.push(`${what}: 202 with a ${body}-byte body`);
          else if (ok(s)) warns.push(`${what}: HTTP ${s}${body ? ` with a ${body}-byte body` : ''} instead of 202`);
          // 2026-07-28: a notification the server cannot accept gets an HTTP error status (its body may carry a
          // JSON-RPC error such as -32020); that version defines no client notifications over HTTP at all.
          // A server that cannot accept the input answers an HTTP error status (every Streamable HTTP version says so):
          // the harness's own unknown notification refused with a 4xx is that; so is any refusal in 2026-07-28, which
          // defines no client notifications over Streamable HTTP. Refusing a notification or answer the protocol
          // defines loses it for the session: warn. A server error (5xx) is no refusal.
          else if (
            s >= 400 &&
            s < 500 &&
            (ctx.features.notificationRefusalByStatus ||
              (m.kind === 'notification' && m.method?.startsWith('notifications/mcp-conform/')))
          )
            refused.push(`${what}: HTTP ${s}${refusalError(ctx, m)}`);
          else if (s >= 400 && s < 500)
            warns.push(
              `${what}: refused with HTTP ${s}${refusalError(ctx, m)}, where 202 was due for a message the protocol defines`,
            );
          else fails.push(`${what}: HTTP ${s} (202 with no body when accepted, a 4xx when refused)`);
        }
        const also = [...warns, ...refused.map((r) => `refused ${r}`)];
        if (fails.length)
          return {
            verdict: 'fail',
            message: `${fails.join('; ')}${also.length ? `; also ${also.join('; ')}` : ''}`,
            messageIds: ids,
          };
        if (warns.length)
          return {
            verdict: 'warn',
            message: `${warns.join('; ')}${refused.length ? `; also refused ${refused.join('; ')}` : ''}`,
            messageIds: ids,
          };
        const accepted = sent.length - refused.length;
        if (refused.length)
          return {
            verdict: 'info',
            message: `${accepted} of ${sent.length} got 202 with no body; refused (allowed: a server that cannot accept a message answers an HTTP error status): ${refused.join('; ')}`,
            messageIds: ids,
          };
        return { verdict: 'pass', message: `all ${sent.length} notifications and responses got 202 with no body` };
      },
    },
    {
      id: 'http/session-id/visible-ascii',
      title: 'a session id is made of visible ASCII characters',
      level: 'MUST',
      spec: 'basic/transports#session-management',
      requirement:
        'A session id set with Mcp-Session-Id on the initialize answer contains only characters 0x21 to 0x7E.',
      requires: { transports: ['streamable-http'], feature: 'sessions' },
      async run(ctx) {
        const t = ctx.http!;
        if (t.sessionId === undefined)
          return { verdict: 'skip', message: 'the server set no Mcp-Session-Id: it does not use sessions' };
        const bad = [...t.sessionId].filter((c) => c.charCodeAt(0) < 0x21 || c.charCodeAt(0) > 0x7e);
        const init = ctx.init.reply?.response;
        if (!t.sessionId.length)
          return { verdict: 'fail', message: 'Mcp-Session-Id is empty', messageIds: init ? [init.seq] : [] };
        if (bad.length)
          return {
            verdict: 'fail',
            message: `Mcp-Session-Id ${JSON.stringify(t.sessionId)} contains ${bad.map((c) => JSON.stringify(c)).join(', ')}, outside 0x21–0x7E`,
            messageIds: init ? [init.seq] : [],
          };
        return {
          verdict: 'pass',
          message: `session id ${brief(t.sessionId, 60).replace(/^"|"$/g, '')} (${t.sessionId.length} visible ASCII characters)`,
        };
      },
    },
    {
      id: 'http/session-id/required',
      title: 'a request without the session id is refused with 400',
      level: 'SHOULD',
      spec: 'basic/transports#session-management',
      requirement:
        'A server that issued a session id should answer requests that lack it (other than initialize) with 400 Bad Request.',
      requires: { transports: ['streamable-http'], feature: 'sessions' },
      async run(ctx) {
        const t = ctx.http!;
        if (t.sessionId === undefined) return { verdict: 'skip', message: 'the server uses no sessions' };
        const r = await t.probe({ method: 'POST', body: probeBody(ctx, 'ping'), withSession: false });
        if (r.status === 400)
          return { verdict: 'pass', message: `a ping without Mcp-Session-Id: ${said(r)}`, details: ex(r) };
        if (r.status !== undefined && r.status >= 400 && r.status < 500)
          return {
            verdict: 'warn',
            message: `a ping without Mcp-Session-Id: ${said(r)}; the spec asks for 400`,
            details: ex(r),
          };
        if (r.status !== undefined && r.status >= 500)
          return {
            verdict: 'warn',
            message: `a ping without Mcp-Session-Id got a server error, not a refusal: ${said(r)}; the spec asks for 400`,
            details: ex(r),
          };
        return {
          verdict: 'warn',
          message: `a ping without Mcp-Session-Id was not refused: ${said(r)}`,
          details: ex(r),
        };
      },
    },
    {
      id: 'http/session-id/unknown',
      title: 'a request with an unknown session id gets 404',
      level: 'MUST',
      spec: 'basic/transports#session-management',
      requirement:
        'A session id the server does not know (ended, expired or never issued) is answered with 404 Not Found, which tells the client to start a new session.',
      requires: { transports: ['streamable-http'], feature: 'sessions' },
      async run(ctx) {
        const t = ctx.http!;
        if (t.sessionId === undefined) return { verdict: 'skip', message: 'the server uses no sessions' };
        const r = await t.probe({
          method: 'POST',
          body: probeBody(ctx, 'ping'),
          sessionId: 'mcp-conform-unknown-session-0000',
        });
        if (r.status === 404)
          return { verdict: 'pass', message: `ping with an unknown session id: ${said(r)}`, details: ex(r) };
        return {
          verdict: 'fail',
          message: `ping with an unknown session id: ${said(r)}; expected 404 (clients only start a new session on 404)`,
          details: ex(r),
        };
      },
    },
    {
      id: 'http/delete',
      title: 'DELETE ends a session (or is refused with 405), and the ended session gets 404',
      level: 'MUST',
      spec: 'basic/transports#session-management',
      requirement:
        'A client ends a session with DELETE; the server either ends it or answers 405. Once ended, requests with its id get 404.',
      requires: { transports: ['streamable-http'], feature: 'sessions' },
      async run(ctx) {
        const t = ctx.http!;
        if (t.sessionId === undefined) return { verdict: 'skip', message: 'the server uses no sessions' };
        // A second session of its own, so the run's session stays usable.
        const init = await t.probe({
          method: 'POST',
          withSession: false,
          body: JSON.stringify({
            jsonrpc: '2.0',
            id: nextProbeId(ctx),
            method: 'initialize',
            params: { protocolVersion: ctx.version, capabilities: {}, clientInfo: CLIENT_INFO },
          }),
        });
        const sid = init.headers['mcp-session-id'];
        if (typeof sid !== 'string')
          return {
            verdict: 'skip',
            message: `a second initialize (to have a session to delete) gave no session id: ${said(init)}`,
            details: ex(init),
          };
        const del = await t.probe({ method: 'DELETE', sessionId: sid });
        const details = { initialize: init.exchange.n, delete: del.exchange.n } as Record<string, unknown>;
        if (del.status === 405)
          return {
            verdict: 'pass',
            message: 'DELETE answered 405: the server does not let clients end sessions',
            details,
          };
        if (!ok(del.status))
          return { verdict: 'fail', message: `DELETE of a session: ${said(del)}; expected 2xx or 405`, details };
        const after = await t.probe({ method: 'POST', body: probeBody(ctx, 'ping'), sessionId: sid });
        details.after = after.exchange.n;
        if (after.status === 404)
          return {
            verdict: 'pass',
            message: `DELETE answered ${del.status}; a ping with the ended session id then got 404`,
            details,
          };
        return {
          verdict: 'fail',
          message: `DELETE answered ${del.status}, but a ping with the ended session id got ${said(after)}; expected 404`,
          details,
        };
      },
    },
    {
      id: 'http/get-stream',
      title: 'GET opens an SSE stream or is refused with 405',
      level: 'MUST',
      spec: 'basic/transports#listening-for-messages-from-the-server',
      requirement:
        'A GET to the MCP endpoint (Accept: text/event-stream) is answered with an SSE stream, or with 405 Method Not Allowed when the server offers none.',
      requires: { transports: ['streamable-http'], needs: 'log', feature: 'getStream' },
      async run(ctx) {
        // No Streamable HTTP transport at all when --url could not tell which transport the server speaks (a 401 to
        // the detection, a refused connection): then there was no GET stream either.
        const g = ctx.http?.getStream;
        if (!g) return { verdict: 'skip', message: 'no GET stream was opened (the handshake did not complete)' };
        const details = { exchange: g.exchange.n };
        if (g.status === 405)
          return { verdict: 'pass', message: 'GET answered 405: the server offers no stream', details };
        if (g.status === 200 && (g.contentType ?? '').toLowerCase().startsWith('text/event-stream')) {
          const events = g.exchange.events?.length ?? 0;
          return {
            verdict: 'pass',
            message: `GET opened an SSE stream (${events} event${events === 1 ? '' : 's'} during the run)${g.error ? `; it ended: ${g.error}` : ''}`,
            details,
          };
        }
        return {
          verdict: 'fail',
          message: `GET answered HTTP ${g.status ?? '(nothing)'} ${g.contentType ?? ''}${g.error ? ` (${g.error})` : ''}; expected an SSE stream or 405`,
          details,
        };
      },
    },
    {
      id: 'http/get-stream/no-responses',
      title: 'the GET stream carries no responses',
      level: 'MUST',
      spec: 'basic/transports#listening-for-messages-from-the-server',
      requirement:
        'The server sends requests and notifications on the GET stream, never a response (unless it resumes a stream of an earlier request).',
      requires: { transports: ['streamable-http'], needs: 'log' },
      async run(ctx) {
        const stream = ctx.http?.getStream;
        if (!stream?.exchange.events) return { verdict: 'skip', message: 'no GET stream was open' };
        const n = stream.exchange.n;
        const on = ctx.session.log.filter((m) => m.direction === 'from-server' && m.http?.exchange === n);
        const bad = on.filter((m) => m.kind === 'response' || m.kind === 'error');
        if (bad.length)
          return {
            verdict: 'fail',
            message: `${bad.length} responses came on the GET stream: ${bad
              .slice(0, 3)
              .map((m) => `message ${m.seq} (id ${JSON.stringify(m.id)})`)
              .join(', ')}`,
            messageIds: bad.map((m) => m.seq),
          };
        return {
          verdict: 'pass',
          message: `${on.length} message${on.length === 1 ? '' : 's'} on the GET stream, none a response`,
        };
      },
    },
    {
      id: 'http/protocol-version-header',
      title: 'an invalid MCP-Protocol-Version header is refused with 400',
      level: 'MUST',
      spec: 'basic/transports#protocol-version-header',
      requirement:
        'From 2025-06-18 clients send MCP-Protocol-Version on every request after initialize; a server that gets an invalid or unsupported version answers 400 Bad Request.',
      requires: { transports: ['streamable-http'], feature: 'protocolVersionHeader' },
      async run(ctx) {
        const t = ctx.http!;
        const r = await t.probe({
          method: 'POST',
          body: probeBody(ctx, 'ping'),
          headers: { 'MCP-Protocol-Version': '1999-01-01', ...methodHeaders(ctx, 'ping') },
        });
        const hb = heartbeatIn(ctx, 'ping');
        if (r.status === 400)
          return {
            verdict: 'pass',
            message: `a ${hb} request with MCP-Protocol-Version: 1999-01-01 → ${said(r)}`,
            details: ex(r),
          };
        return {
          verdict: 'fail',
          message: `a ${hb} request with MCP-Protocol-Version: 1999-01-01 → ${said(r)}; expected 400`,
          details: ex(r),
        };
      },
    },
    {
      id: 'http/origin',
      title: 'a request from a foreign Origin is refused with 403',
      level: 'MUST',
      spec: 'basic/transports#security-warning',
      requirement:
        'Servers validate the Origin header (against DNS rebinding); from 2025-11-25 a present, invalid Origin is answered 403 Forbidden.',
      requires: { transports: ['streamable-http'] },
      async run(ctx) {
        const t = ctx.http!;
        const r = await t.probe({
          method: 'POST',
          body: probeBody(ctx, 'ping'),
          headers: { Origin: 'http://mcp-conform-foreign.invalid', ...methodHeaders(ctx, 'ping') },
        });
        const hb = heartbeatIn(ctx, 'ping');
        const strict = ctx.features.origin403;
        if (r.status === 403)
          return {
            verdict: 'pass',
            message: `a ${hb} request with Origin: http://mcp-conform-foreign.invalid → 403`,
            details: ex(r),
          };
        if (r.status !== undefined && r.status >= 400 && r.status < 500)
          return {
            verdict: 'warn',
            message: `Origin: http://mcp-conform-foreign.invalid → ${said(r)}; refused, but ${strict ? 'the spec asks for 403' : '403 is what later versions ask for'}`,
            details: ex(r),
          };
        if (ok(r.status)) {
          return strict
            ? {
                verdict: 'fail',
                message: `a ${hb} request from Origin http://mcp-conform-foreign.invalid was served (${said(r)}): the server does not validate Origin, so a web page could reach it by DNS rebinding`,
                details: ex(r),
              }
            : {
                verdict: 'warn',
                message: `a ${hb} request from Origin http://mcp-conform-foreign.invalid was served (${said(r)}): servers must validate Origin`,
                details: ex(r),
              };
        }
        return { verdict: 'fail', message: `Origin: http://mcp-conform-foreign.invalid → ${said(r)}`, details: ex(r) };
      },
    },
    {
      id: 'http/host',
      title: 'a request for a foreign Host is refused',
      level: 'SHOULD',
      spec: 'basic/security_best_practices',
      requirement:
        'A local server that checks the Host header refuses requests for a name it does not serve, a second defence against DNS rebinding; the transport section names only Origin, so serving it is reported, not failed.',
      requires: { transports: ['streamable-http'] },
      async run(ctx) {
        const t = ctx.http!;
        const r = await t.probe({
          method: 'POST',
          body: probeBody(ctx, 'ping'),
          headers: { Host: 'mcp-conform-foreign.invalid', ...methodHeaders(ctx, 'ping') },
        });
        const hb = heartbeatIn(ctx, 'ping');
        if (r.status !== undefined && r.status >= 400 && r.status < 500)
          return {
            verdict: 'pass',
            message: `a ${hb} request with Host: mcp-conform-foreign.invalid → ${said(r)}`,
            details: ex(r),
          };
        if (ok(r.status))
          return {
            verdict: 'info',
            message: `a ${hb} request with Host: mcp-conform-foreign.invalid was served (${said(r)}): the server does not check Host`,
            details: ex(r),
          };
        return { verdict: 'fail', message: `Host: mcp-conform-foreign.invalid → ${said(r)}`, details: ex(r) };
      },
    },
    {
      id: 'http/accept',
      title: 'what a POST without text/event-stream in Accept gets',
      level: 'MAY',
      spec: 'basic/transports#sending-messages-to-the-server',
      requirement:
        'Clients must list both application/json and text/event-stream in Accept; what a server does with a client that does not is left open (406 is common). Reported, not graded.',
      requires: { transports: ['streamable-http'] },
      async run(ctx) {
        const t = ctx.http!;
        const r = await t.probe({
          method: 'POST',
          body: probeBody(ctx, 'ping'),
          headers: { Accept: 'application/json', ...methodHeaders(ctx, 'ping') },
        });
        const hb = heartbeatIn(ctx, 'ping');
        if (r.status !== undefined && r.status >= 500)
          return {
            verdict: 'fail',
            message: `a ${hb} request with Accept: application/json → ${said(r)}: a server error`,
            details: ex(r),
          };
        return {
          verdict: 'info',
          message: `a ${hb} request with Accept: application/json (no text/event-stream) → ${said(r)}`,
          details: ex(r),
        };
      },
    },
    {
      id: 'http/invalid-json',
      title: 'a POST body that is not JSON is refused with 400 (and -32700)',
      level: 'MUST',
      spec: 'basic/transports#sending-messages-to-the-server',
      requirement:
        'Input the server cannot accept gets an HTTP error status (400), optionally with a JSON-RPC error without id; for unparsable JSON that error is -32700 (parse error). 400: pass; another 4xx, a 5xx (an error status, but a server error, as robustness/invalid-json grades it) or a 2xx carrying a JSON-RPC error: warn; a 2xx without one: fail.',
      requires: { transports: ['streamable-http'] },
      async run(ctx) {
        const t = ctx.http!;
        const r = await t.probe({
          method: 'POST',
          body: '{"jsonrpc": "2.0", "id": 1, "method": "ping"',
          headers: methodHeaders(ctx, 'ping'),
        });
        const code = errorCode(r);
        const codeNote =
          code === -32700 || code === undefined ? codeWords(code) : `${codeWords(code)} (parse errors are -32700)`;
        if (r.status === 400) return { verdict: 'pass', message: `cut-off JSON → 400, ${codeNote}`, details: ex(r) };
        if (r.status !== undefined && r.status >= 400 && r.status < 500)
          return { verdict: 'warn', message: `cut-off JSON → ${said(r)}; 400 expected; ${codeNote}`, details: ex(r) };
        if (ok(r.status) && code !== undefined)
          return {
            verdict: 'warn',
            message: `cut-off JSON → HTTP ${r.status} carrying ${codeNote}; input that cannot be accepted gets an HTTP error status`,
            details: ex(r),
          };
        // A server error is an HTTP error status too (the letter of the rule), though a refusal (4xx) was due: warn,
        // as robustness/invalid-json grades the same answer.
        if (r.status !== undefined && r.status >= 500)
          return {
            verdict: 'warn',
            message: `cut-off JSON → ${said(r)}; ${codeNote}: an HTTP error status, but a server error where a refusal (400) was due`,
            details: ex(r),
          };
        return { verdict: 'fail', message: `cut-off JSON → ${said(r)}; expected 400`, details: ex(r) };
      },
    },
    {
      id: 'http/batch',
      title: 'JSON-RPC batches: accepted in 2025-03-26; in other versions what the server does is reported',
      level: 'MUST',
      spec: 'basic/transports#sending-messages-to-the-server',
      requirement:
        'In 2025-03-26 a POST body may be an array of requests and notifications, which the server must accept. Other versions oblige the client to send one message per POST; a server that refuses a batch (4xx) passes, one that accepts it is reported (info), a server error fails.',
      requires: { transports: ['streamable-http'] },
      async run(ctx) {
        const t = ctx.http!;
        const a = JSON.parse(probeBody(ctx, 'ping'));
        const b = JSON.parse(probeBody(ctx, 'ping'));
        const r = await t.probe({ method: 'POST', body: JSON.stringify([a, b]), headers: methodHeaders(ctx, 'ping') });
        const hb = heartbeatIn(ctx, 'ping');
        const answered = r.messages
          .flatMap((m) => (Array.isArray(m) ? m : [m]))
          .filter((m) => isObject(m) && 'result' in m).length;
        if (ctx.features.batches) {
          if (ok(r.status) && answered)
            return { verdict: 'pass', message: `a batch of two ${hb} requests → ${said(r)}`, details: ex(r) };
          return {
            verdict: 'fail',
            message: `a batch of two ${hb} requests → ${said(r)}; 2025-03-26 servers must accept batches`,
            details: ex(r),
          };
        }
        if (r.status !== undefined && r.status >= 400 && r.status < 500)
          return {
            verdict: 'pass',
            message: `a batch of two ${hb} requests → ${said(r)} (batches are not part of ${ctx.version})`,
            details: ex(r),
          };
        // The one-message-per-POST rule binds the client; nothing obliges a server to refuse a batch.
        if (ok(r.status))
          return {
            verdict: 'info',
            message: `a batch of two ${hb} requests was accepted (${said(r)}); ${ctx.version} lets clients send one message per POST only, and a server may still accept more`,
            details: ex(r),
          };
        return { verdict: 'fail', message: `a batch of two ${hb} requests → ${said(r)}`, details: ex(r) };
      },
    },
    {
      id: 'http/sse-event-ids',
      title: 'SSE event ids are unique across the streams of a session, and resumption with Last-Event-ID works',
      level: 'MUST',
      spec: 'basic/transports#resumability-and-redelivery',
      requirement:
        'Event ids, when a server gives them, are unique across all streams of the session; a client resumes a stream by GET with Last-Event-ID (the server may replay, or refuse with 405).',
      requires: { transports: ['streamable-http'], feature: 'resumableStreams' },
      async run(ctx) {
        const t = ctx.http!;
        const seen = new Map<string, number[]>();
        let lastPostId: string | undefined;
        for (const x of t.exchanges as HttpExchange[]) {
          if (x.purpose !== 'message' && x.purpose !== 'get-stream') continue;
          for (const e of x.events ?? []) {
            if (e.id === undefined) continue;
            seen.set(e.id, [...(seen.get(e.id) ?? []), x.n]);
            if (x.purpose === 'message') lastPostId = e.id;
          }
        }
        if (!seen.size)
          return { verdict: 'skip', message: 'the server gave no SSE event ids (resumption is optional)' };
        const dup = [...seen].filter(([, xs]) => xs.length > 1);
        if (dup.length)
          return {
            verdict: 'fail',
            message: `${dup.length} event ids used more than once: ${dup
              .slice(0, 3)
              .map(([id, xs]) => `${JSON.stringify(id)} on exchanges ${xs.join(', ')}`)
              .join('; ')}`,
          };
        if (!lastPostId)
          return {
            verdict: 'pass',
            message: `${seen.size} event ids, all unique (none on a POST stream, so resumption was not tried)`,
          };
        const r = await t.probe({ method: 'GET', headers: { 'Last-Event-ID': lastPostId }, streamMs: 1500 });
        const note =
          r.status === 200
            ? `GET with Last-Event-ID ${JSON.stringify(brief(lastPostId, 40))} → SSE stream (${r.exchange.events?.length ?? 0} events replayed)`
            : `GET with Last-Event-ID → ${said(r)}`;
        if (r.status !== undefined && r.status >= 500)
          return { verdict: 'fail', message: `${seen.size} event ids, all unique; but ${note}`, details: ex(r) };
        return { verdict: 'pass', message: `${seen.size} event ids, all unique; ${note}`, details: ex(r) };
      },
    },
    {
      id: 'http/2026/header-mismatch',
      title: 'request headers that contradict the body are refused with 400 and -32020',
      level: 'MUST',
      spec: 'basic/transports/streamable-http#server-validation',
      requirement:
        'From 2026-07-28 the body is mirrored into headers: MCP-Protocol-Version (the _meta version), Mcp-Method (the method), Mcp-Name (the name or URI of tools/call, resources/read, prompts/get). A server that reads the body refuses a header that disagrees with it: HTTP 400 with error -32020 (HeaderMismatch). Three probes, one header wrong in each (the tools/call names a tool that exists nowhere): 400 with -32020 passes; 400 with another error warns; served or another status fails.',
      requires: { transports: ['streamable-http'], feature: 'requestHeaders' },
      async run(ctx) {
        const t = ctx.http!;
        const call = { name: MISSING_TOOL, arguments: {} };
        const probes: { what: string; body: string; headers: Record<string, string> }[] = [
          {
            what: 'Mcp-Method: prompts/list on a tools/list body',
            body: probeBody(ctx, 'tools/list'),
            headers: { 'Mcp-Method': 'prompts/list' },
          },
          {
            what: `MCP-Protocol-Version: 2025-11-25 on a body whose _meta says ${ctx.version}`,
            body: probeBody(ctx, 'tools/list'),
            headers: { 'MCP-Protocol-Version': '2025-11-25', 'Mcp-Method': 'tools/list' },
          },
          {
            what: `Mcp-Name: mcp-conform-other-name on a tools/call of ${JSON.stringify(MISSING_TOOL)}`,
            body: probeBody(ctx, 'tools/call', call),
            headers: { 'Mcp-Method': 'tools/call', 'Mcp-Name': 'mcp-conform-other-name' },
          },
        ];
        const lines: string[] = [];
        let verdict: 'pass' | 'warn' | 'fail' = 'pass';
        const exchanges: number[] = [];
        for (const p of probes) {
          const r = await t.probe({ method: 'POST', body: p.body, headers: p.headers });
          exchanges.push(r.exchange.n);
          const code = errorCode(r);
          if (r.status === 400 && code === -32020) lines.push(`${p.what} → HTTP 400 with error -32020`);
          else if (r.status === 400) {
            if (verdict === 'pass') verdict = 'warn';
            lines.push(`${p.what} → 400, but ${codeWords(code)} (HeaderMismatch is -32020)`);
          } else {
            verdict = 'fail';
            lines.push(`${p.what} → ${said(r)}; expected 400 with -32020`);
          }
        }
        return { verdict, message: lines.join('; '), details: { exchanges } };
      },
    },
    {
      id: 'http/2026/header-forms',
      title: 'request headers are read case-insensitively, and a Base64-encoded Mcp-Name is decoded',
      level: 'MUST',
      spec: 'basic/transports/streamable-http#case-sensitivity',
      requirement:
        'Header names are case-insensitive: a request whose mcp-method and mcp-protocol-version come in lower case is served. A name that is no plain ASCII header value travels as Mcp-Name: =?base64?…?= (the UTF-8 bytes in Base64), which the server decodes before comparing it with the body (a tools/call of a tool named "mcp-conform-ünknown", which exists nowhere: any answer but HeaderMismatch shows the header was decoded). Refusing either with -32020: fail.',
      requires: { transports: ['streamable-http'], feature: 'requestHeaders' },
      async run(ctx) {
        const t = ctx.http!;
        const lower = await t.probe({
          method: 'POST',
          body: probeBody(ctx, 'tools/list'),
          headers: { 'mcp-protocol-version': ctx.version, 'mcp-method': 'tools/list' },
        });
        const name = 'mcp-conform-\u00fcnknown';
        const encoded = `=?base64?${Buffer.from(name, 'utf8').toString('base64')}?=`;
        const b64 = await t.probe({
          method: 'POST',
          body: probeBody(ctx, 'tools/call', { name, arguments: {} }),
          headers: { 'Mcp-Method': 'tools/call', 'Mcp-Name': encoded },
        });
        const details = { exchanges: [lower.exchange.n, b64.exchange.n] };
        const bad: string[] = [];
        const lowerCode = errorCode(lower);
        if (!ok(lower.status) || lowerCode !== undefined)
          bad.push(
            `tools/list with lower-case mcp-method and mcp-protocol-version → ${said(lower)} (header names are case-insensitive)`,
          );
        const b64Code = errorCode(b64);
        if (b64Code === -32020 || (b64.status !== undefined && b64.status >= 500))
          bad.push(
            `tools/call of ${JSON.stringify(name)} with Mcp-Name: ${encoded} → ${said(b64)} (the Base64 form is to be decoded before the comparison)`,
          );
        if (bad.length) return { verdict: 'fail', message: bad.join('; '), details };
        return {
          verdict: 'pass',
          message: `lower-case header names → ${said(lower).slice(0, 60)}…; Mcp-Name in Base64 → ${b64.status !== undefined ? `HTTP ${b64.status}` : 'answered'}${b64Code !== undefined ? ` with error ${b64Code} (the unknown tool, not a mismatch)` : ''}`,
          details,
        };
      },
    },
    {
      id: 'http/2026/unknown-method',
      title: 'an unknown method is answered with HTTP 404 and -32601',
      level: 'MUST',
      spec: 'basic/transports/streamable-http#protocol-version-header',
      requirement:
        'From 2026-07-28 a method the server does not implement gets HTTP 404 with JSON-RPC error -32601, which tells it apart from a legacy server without the endpoint.',
      requires: { transports: ['streamable-http'], feature: 'requestHeaders' },
      async run(ctx) {
        const t = ctx.http!;
        const r = await t.probe({
          method: 'POST',
          body: probeBody(ctx, 'mcp-conform/no-such-method'),
          headers: { 'Mcp-Method': 'mcp-conform/no-such-method' },
        });
        const code = errorCode(r);
        if (r.status === 404 && code === -32601)
          return {
            verdict: 'pass',
            message: 'mcp-conform/no-such-method → HTTP 404 with error -32601',
            details: ex(r),
          };
        return {
          verdict: 'fail',
          message: `mcp-conform/no-such-method → ${said(r)}; expected HTTP 404 with error -32601`,
          details: ex(r),
        };
      },
    },
    ...streamCases,
  ],
};
