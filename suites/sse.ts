/**
 * HTTP+SSE transport rules (protocol 2024-11-05): the stream opens with an `endpoint` event naming the POST URL
 * (resolved against the stream's URL); POSTs are accepted; every server message comes as a `message` event on the
 * stream, which stays open for the whole session.
 * https://modelcontextprotocol.io/specification/2024-11-05/basic/transports#http-with-sse
 */
import type { Suite } from '../core/suite.js';
import { CLIENT_INFO } from '../core/run.js';

// The HTTP+SSE transport is defined in 2024-11-05 only: link there whatever version the server speaks.
const SPEC = 'https://modelcontextprotocol.io/specification/2024-11-05/basic/transports#http-with-sse';
/** An Origin no local server serves (the same as http/origin's). */
const FOREIGN_ORIGIN = 'http://mcp-conform-foreign.invalid';

export const sseSuite: Suite = {
  id: 'sse',
  title: 'HTTP+SSE transport',
  transports: ['sse'],
  description: 'endpoint event first, POSTs accepted, answers as message events, the stream stays open',
  cases: [
    {
      id: 'sse/endpoint-first',
      title: 'the first event on the stream is endpoint, with a URL',
      level: 'MUST',
      spec: 'basic/transports#http-with-sse',
      requirement:
        'When the client opens the SSE stream, the server first sends an endpoint event whose data is the URI the client POSTs its messages to.',
      requires: { transports: ['sse'], needs: 'log' },
      async run(ctx) {
        const t = ctx.sse!;
        const details = { spec2024: SPEC, exchange: t.stream?.n };
        if (!t.endpoint)
          return {
            verdict: 'fail',
            message: `no endpoint event${t.firstEvent ? ` (the first event was "${t.firstEvent}")` : ''}${t.stream?.error ? `: ${t.stream.error}` : ''}`,
            details,
          };
        if (t.endpoint.problem) return { verdict: 'fail', message: t.endpoint.problem, details };
        if (t.firstEvent !== 'endpoint')
          return {
            verdict: 'fail',
            message: `the endpoint event came, but not first: the first event was "${t.firstEvent}"`,
            details,
          };
        const relative = !/^[a-z][a-z0-9+.-]*:/i.test(t.endpoint.raw.trim());
        return {
          verdict: 'pass',
          message: `endpoint event first: ${JSON.stringify(t.endpoint.raw)}${relative ? `, resolved against the stream URL to ${t.endpoint.url}` : ''}`,
          details,
        };
      },
    },
    {
      id: 'sse/endpoint-origin',
      title: 'the endpoint is on the same origin as the stream',
      level: 'SHOULD',
      spec: 'basic/transports#http-with-sse',
      requirement:
        "The POST endpoint normally lives beside the stream; an endpoint on another origin sends the client's messages (and headers) elsewhere and is reported.",
      requires: { transports: ['sse'], needs: 'log' },
      async run(ctx) {
        const t = ctx.sse!;
        if (!t.endpoint?.url) return { verdict: 'skip', message: 'no usable endpoint event' };
        const a = new URL(t.endpoint.url);
        if (a.origin === t.url.origin) return { verdict: 'pass', message: `${t.endpoint.url} is on ${t.url.origin}` };
        return {
          verdict: 'warn',
          message: `the endpoint ${t.endpoint.url} is on another origin than the stream (${t.url.origin})`,
        };
      },
    },
    {
      id: 'sse/post-accepted',
      title: 'POSTed messages are accepted with 202',
      level: 'MUST',
      spec: 'basic/transports#http-with-sse',
      requirement:
        'Every well-formed message POSTed to the endpoint is accepted (202 Accepted); the answer comes on the stream, not in the POST response. A message malformed on purpose (a robustness probe) may be refused with a 4xx: that refusal is judged by its robustness case.',
      requires: { transports: ['sse'], needs: 'log' },
      async run(ctx) {
        // Messages malformed on purpose (probes) may be refused; every well-formed one must be accepted.
        const wellFormed = ctx.session.log.filter(
          (m) =>
            m.direction === 'to-server' &&
            m.http?.method === 'POST' &&
            m.kind !== 'invalid' &&
            !m.schema.expectedInvalid,
        );
        const sent = wellFormed.filter((m) => m.http!.status !== undefined);
        const failed = wellFormed.filter((m) => m.http!.status === undefined && m.http!.problem);
        // Neither status nor problem: still open when the run ended (closing aborts it; its answer may well have
        // come on the stream already). Not judged, but said.
        const open = wellFormed.length - sent.length - failed.length;
        const openNote = open
          ? `; ${open} more ${open === 1 ? 'was' : 'were'} still waiting for a status when the run ended (not judged)`
          : '';
        if (!sent.length && !failed.length)
          return {
            verdict: 'skip',
            message: open
              ? `no POST got a status before the run ended (${open} still waiting: not judged)`
              : 'nothing was POSTed',
          };
        const bad = sent.filter((m) => m.http!.status! >= 300);
        const other = sent.filter((m) => m.http!.status! < 300 && m.http!.status !== 202);
        if (bad.length || failed.length) {
          const shown = [...bad, ...failed]
            .slice(0, 5)
            .map(
              (m) => `${m.method} (message ${m.seq}): ${m.http!.status ? `HTTP ${m.http!.status}` : m.http!.problem}`,
            );
          return {
            verdict: 'fail',
            message: `${bad.length + failed.length} of ${sent.length + failed.length} POSTs were not accepted: ${shown.join('; ')}`,
            messageIds: [...bad, ...failed].map((m) => m.seq),
          };
        }
        if (other.length)
          return {
            verdict: 'warn',
            message: `${other.length} of ${sent.length} POSTs got ${[...new Set(other.map((m) => m.http!.status))].join(', ')} instead of 202${openNote}`,
            messageIds: other.map((m) => m.seq),
          };
        return { verdict: 'pass', message: `all ${sent.length} POSTs got 202${openNote}` };
      },
    },
    {
      id: 'sse/message-events',
      title: 'server messages arrive as message events on the stream',
      level: 'MUST',
      spec: 'basic/transports#http-with-sse',
      requirement:
        'The server sends every message (answers included) as an SSE event of type message on the stream; events of other types are lost on clients.',
      requires: { transports: ['sse'], needs: 'log' },
      async run(ctx) {
        const t = ctx.sse!;
        const got = ctx.session.log.filter((m) => m.direction === 'from-server');
        const onStream = got.filter((m) => m.http?.sseEvent === 'message');
        const other = t.otherEvents;
        const elsewhere = got.filter((m) => m.http?.sseEvent !== 'message');
        if (other.length)
          return {
            verdict: 'fail',
            message: `${other.length} events of other types: ${other
              .slice(0, 3)
              .map((e) => `"${e.event}": ${e.data}`)
              .join('; ')}`,
          };
        if (!onStream.length) return { verdict: 'fail', message: 'no message event came on the stream' };
        if (elsewhere.length)
          return {
            verdict: 'fail',
            message: `${elsewhere.length} messages did not come as message events: ${elsewhere
              .slice(0, 3)
              .map((m) => `message ${m.seq}`)
              .join(', ')}`,
            messageIds: elsewhere.map((m) => m.seq),
          };
        return {
          verdict: 'pass',
          message: `all ${onStream.length} messages from the server came as message events on the stream`,
        };
      },
    },
    {
      id: 'sse/origin',
      title: 'a stream requested from a foreign Origin is refused',
      level: 'MUST',
      spec: 'basic/transports#security-warning',
      requirement:
        'Servers validate the Origin header of every incoming connection (against DNS rebinding: a web page could otherwise reach a local server). A GET of the SSE stream with Origin: http://mcp-conform-foreign.invalid is refused: 403 passes (what later versions ask for), another 4xx warns, a stream opened for it whose endpoint then accepts a message from that Origin fails (a web page could drive the server); a stream opened while such messages are refused warns (the check covers messages, not the connection).',
      requires: { transports: ['sse'] },
      async run(ctx) {
        const t = ctx.sse!;
        // An initialize of the probe's own session, POSTed from the same Origin where the stream opened.
        const init = JSON.stringify({
          jsonrpc: '2.0',
          id: 'mcp-conform-origin-probe',
          method: 'initialize',
          params: { protocolVersion: ctx.version, capabilities: {}, clientInfo: CLIENT_INFO },
        });
        const r = await t.probeStream({ Origin: FOREIGN_ORIGIN }, { post: init });
        const details = { spec2024: SPEC, exchange: r.exchange.n, ...(r.post ? { post: r.post.exchange.n } : {}) };
        const got = r.error
          ? `the request failed: ${r.error}`
          : `HTTP ${r.status}${r.exchange.statusText ? ` ${r.exchange.statusText}` : ''}${r.contentType ? ` (${r.contentType.split(';')[0]})` : ''}`;
        if (r.status === 403)
          return { verdict: 'pass', message: `GET of the SSE stream with Origin: ${FOREIGN_ORIGIN} → 403`, details };
        if (r.status !== undefined && r.status >= 400 && r.status < 500)
          return {
            verdict: 'warn',
            message: `GET of the SSE stream with Origin: ${FOREIGN_ORIGIN} → ${got}: refused, but 403 is the status for a foreign Origin`,
            details,
          };
        if (r.status === 200 && (r.contentType ?? '').toLowerCase().startsWith('text/event-stream')) {
          const p = r.post;
          // The stream opened, but what the page would send is refused: it can read only a session of its own.
          if (p?.status !== undefined && p.status >= 400 && p.status < 500) {
            return {
              verdict: 'warn',
              message: `GET of the SSE stream with Origin: ${FOREIGN_ORIGIN} opened a stream (${got}), though an initialize POSTed from that Origin to its endpoint was refused (HTTP ${p.status}): the server checks Origin on messages, not on the stream, which every incoming connection's check should cover`,
              details,
            };
          }
          const posted = p
            ? p.status !== undefined
              ? `; an initialize POSTed from that Origin to its endpoint got HTTP ${p.status}`
              : `; an initialize POSTed to its endpoint failed: ${p.error}`
            : '';
          return {
            verdict: 'fail',
            message: `GET of the SSE stream with Origin: ${FOREIGN_ORIGIN} opened a stream (${got}${r.firstEvent ? `, first event "${r.firstEvent.event}"` : ''})${posted}: the server does not validate Origin, so a web page could reach it by DNS rebinding`,
            details,
          };
        }
        return {
          verdict: 'fail',
          message: `GET of the SSE stream with Origin: ${FOREIGN_ORIGIN} → ${got}; expected a refusal (403)`,
          details,
        };
      },
    },
    {
      id: 'sse/stream-open',
      title: 'the stream stays open for the whole run',
      level: 'MUST',
      spec: 'basic/transports#http-with-sse',
      requirement: 'All server messages travel on the one stream: if it ends, the session is lost.',
      requires: { transports: ['sse'], needs: 'log' },
      async run(ctx) {
        const t = ctx.sse!;
        if (t.streamEnded)
          return {
            verdict: 'fail',
            message: `the stream ended during the run (after ${t.streamEnded.t} ms): ${t.streamEnded.reason}`,
          };
        return { verdict: 'pass', message: 'the stream was open until the harness closed it' };
      },
    },
  ],
};
