/** client-http: Streamable HTTP as the client speaks it — Accept, session id, protocol version header, 404, DELETE, resume. */
import { RESUME_RETRY_MS, type ClientExchange } from '../../mocks/client-mock.js';
import { ending, type ClientCaseContext, type ClientSuite } from './helpers.js';

const HTTP = ['streamable-http' as const];

function what(e: ClientExchange): string {
  return `${e.method}${e.rpcMethod ? ` (${e.rpcMethod})` : ''} #${e.n}`;
}

/**
 * The legacy sessions the mock issued over HTTP: the Mcp-Session-Id, the exchange that issued it, the exchanges that
 * came with it after, and the version the session negotiated.
 */
function sessionsOf(
  ctx: ClientCaseContext,
): { id: string; issuedBy: ClientExchange; after: ClientExchange[]; version?: string }[] {
  const out: { id: string; issuedBy: ClientExchange; after: ClientExchange[]; version?: string }[] = [];
  for (const e of ctx.exchanges) {
    if (!e.issuedSession) continue;
    const view = ctx.sessions.find((s) => s.key === e.session);
    out.push({
      id: e.issuedSession,
      issuedBy: e,
      after: ctx.exchanges.filter((x) => x.n > e.n && x.session !== undefined && x.session === e.session),
      version: view?.version,
    });
  }
  // A legacy request that came without the session id belongs to the last session issued before it.
  for (const x of ctx.exchanges) {
    if (
      x.session !== undefined ||
      x.headers['mcp-session-id'] !== undefined ||
      x.method !== 'POST' ||
      x.rpcMethod === 'initialize' ||
      x.headers['mcp-protocol-version'] === '2026-07-28'
    )
      continue;
    const owner = out.filter((o) => o.issuedBy.n < x.n).pop();
    if (owner) {
      owner.after.push(x);
      owner.after.sort((a, b) => a.n - b.n);
    }
  }
  return out;
}

/** stream-resume: the request whose SSE stream the mock ended early (after a priming event), if the client made one. */
function cutStream(ctx: ClientCaseContext): ClientExchange | undefined {
  return ctx.exchanges.find((e) => e.fault?.startsWith('stream ended early'));
}
const noCut = () =>
  ({
    verdict: 'skip',
    message: 'no stream was cut: the client made no request after notifications/initialized',
  }) as const;

export const clientHttp: ClientSuite = {
  id: 'client-http',
  title: 'Client over Streamable HTTP',
  description:
    'The HTTP side of a Streamable HTTP client: Accept header, Mcp-Session-Id, MCP-Protocol-Version, a new session after 404, DELETE, resuming a stream.',
  cases: [
    {
      id: 'client-http/accept',
      title: 'Accept lists application/json and text/event-stream',
      level: 'MUST',
      spec: 'basic/transports#sending-messages-to-the-server',
      transports: HTTP,
      requirement:
        'Every POST carries an Accept header listing both application/json and text/event-stream; a GET lists text/event-stream.',
      run(ctx) {
        const bad: string[] = [];
        for (const e of ctx.exchanges) {
          const a = (e.headers.accept ?? '').toLowerCase();
          if (e.method === 'POST' && !(a.includes('application/json') && a.includes('text/event-stream')))
            bad.push(`${what(e)} Accept: ${e.headers.accept ?? '(none)'}`);
          if (e.method === 'GET' && !a.includes('text/event-stream'))
            bad.push(`${what(e)} Accept: ${e.headers.accept ?? '(none)'}`);
        }
        if (!ctx.exchanges.length)
          return { verdict: 'skip', message: `the client sent no HTTP request; ${ending(ctx)}` };
        if (bad.length)
          return {
            verdict: 'fail',
            message: `${bad.length} of ${ctx.exchanges.length} requests: ${bad.slice(0, 3).join('; ')}`,
          };
        return { verdict: 'pass', message: `${ctx.exchanges.length} requests, each with the Accept types it needs` };
      },
    },
    {
      id: 'client-http/session-id',
      title: 'Mcp-Session-Id is sent on every request once issued',
      level: 'MUST',
      spec: 'basic/transports#session-management',
      transports: HTTP,
      requirement:
        'Once the initialize answer issued an Mcp-Session-Id, the client sends it on every later HTTP request of that session.',
      run(ctx) {
        const ss = sessionsOf(ctx);
        if (!ss.length) return { verdict: 'skip', message: 'no session was issued (no initialize answered)' };
        const bad: string[] = [];
        let n = 0;
        for (const s of ss)
          for (const e of s.after) {
            n++;
            const got = e.headers['mcp-session-id'];
            if (got !== s.id)
              bad.push(
                `${what(e)} sent ${got === undefined ? 'no Mcp-Session-Id' : `Mcp-Session-Id ${got}`} (issued: ${s.id})`,
              );
          }
        if (!n) return { verdict: 'skip', message: `the client sent nothing after initialize; ${ending(ctx)}` };
        if (bad.length)
          return { verdict: 'fail', message: `${bad.length} of ${n} requests: ${bad.slice(0, 3).join('; ')}` };
        return { verdict: 'pass', message: `${n} requests after initialize, each with the issued Mcp-Session-Id` };
      },
    },
    {
      id: 'client-http/protocol-version-header',
      title: 'MCP-Protocol-Version on every request after initialization',
      level: 'MUST',
      spec: 'basic/transports#protocol-version-header',
      transports: HTTP,
      from: '2025-06-18',
      requirement: 'After initialization, every HTTP request carries MCP-Protocol-Version with the negotiated version.',
      run(ctx) {
        const ss = sessionsOf(ctx);
        const bad: string[] = [];
        let n = 0;
        for (const s of ss)
          for (const e of s.after) {
            n++;
            const want = s.version ?? ctx.version;
            if (want < '2025-06-18') continue;
            const got = e.headers['mcp-protocol-version'];
            if (got !== want)
              bad.push(
                `${what(e)} sent ${got === undefined ? 'no MCP-Protocol-Version' : `MCP-Protocol-Version ${got}`} (negotiated ${want})`,
              );
          }
        if (!n) return { verdict: 'skip', message: `the client sent nothing after initialize; ${ending(ctx)}` };
        if (bad.length)
          return { verdict: 'fail', message: `${bad.length} of ${n} requests: ${bad.slice(0, 3).join('; ')}` };
        return { verdict: 'pass', message: `${n} requests, each with the MCP-Protocol-Version its session negotiated` };
      },
    },
    {
      id: 'client-http/reinitialize-after-404',
      title: 'a 404 for the session is answered by a fresh initialize without a session id',
      level: 'MUST',
      spec: 'basic/transports#session-management',
      transports: HTTP,
      scenarios: ['session-expired'],
      requirement:
        'When a request with an Mcp-Session-Id gets HTTP 404, the client starts a new session: an initialize request without a session id.',
      run(ctx) {
        // A 404 to a JSON-RPC request: one to the closing DELETE (the session is gone, which is what the client wanted) is no reason to start another.
        const i = ctx.exchanges.findIndex(
          (e) =>
            e.status === 404 &&
            e.method === 'POST' &&
            e.rpcId !== undefined &&
            e.headers['mcp-session-id'] !== undefined,
        );
        if (i < 0)
          return {
            verdict: 'skip',
            message: ctx.exchanges.some((e) => e.status === 404 && e.method === 'DELETE')
              ? 'the session expired, but the client learnt it only from its closing DELETE (404): nothing left to re-initialize for'
              : 'the session never expired: the client made too few requests',
          };
        const gone = ctx.exchanges[i]!;
        const next = ctx.exchanges.slice(i + 1).filter((e) => e.method === 'POST');
        const fresh = next.findIndex((e) => e.rpcMethod === 'initialize' && e.headers['mcp-session-id'] === undefined);
        const stale = next
          .slice(0, fresh < 0 ? undefined : fresh)
          .filter((e) => e.headers['mcp-session-id'] === gone.headers['mcp-session-id']);
        if (fresh < 0)
          return {
            verdict: 'fail',
            message: `${what(gone)} got 404 for session ${gone.headers['mcp-session-id']}; the client sent ${next.length ? `${next.length} more POSTs (${next.slice(0, 3).map(what).join(', ')}) but no initialize without a session id` : 'nothing more'}; ${ending(ctx)}`,
          };
        return {
          verdict: 'pass',
          message: `after the 404 to ${what(gone)} the client sent initialize without a session id (${what(next[fresh]!)})${stale.length ? `, after ${stale.length} more request${stale.length > 1 ? 's' : ''} with the expired id` : ''}`,
        };
      },
    },
    {
      id: 'client-http/delete-session',
      title: 'DELETE ends the session when the client is done',
      level: 'SHOULD',
      spec: 'basic/transports#session-management',
      transports: HTTP,
      requirement: 'A client that no longer needs a session ends it with an HTTP DELETE carrying the session id.',
      run(ctx) {
        const ss = sessionsOf(ctx);
        if (!ss.length) return { verdict: 'skip', message: 'no session was issued' };
        // A session the mock expired is gone already; one the client never got past initialize with may be a probe it left.
        const expired = ss.filter((x) => x.after.some((e) => e.fault === 'session expired on purpose'));
        const live = ss.filter((x) => !expired.includes(x));
        if (!live.length)
          return {
            verdict: 'skip',
            message: `every session the client had was expired by the mock (${expired.map((x) => x.id).join(', ')})`,
          };
        const deleted = live.filter((x) => x.after.some((e) => e.method === 'DELETE'));
        const left = live.filter((x) => !deleted.includes(x));
        const say = (x: (typeof ss)[number]) => `session ${x.id}`;
        if (!left.length)
          return {
            verdict: 'pass',
            message: `DELETE for ${deleted.map(say).join(', ')}${expired.length ? ` (not asked of ${expired.length} session${expired.length > 1 ? 's' : ''} the mock expired)` : ''}`,
          };
        if (ctx.client.endedByHarness)
          return {
            verdict: 'info',
            message: `no DELETE for ${left.map(say).join(', ')}: ${ending(ctx)} before it was done`,
          };
        return {
          verdict: 'warn',
          message: `the client never sent DELETE for ${left.map(say).join(', ')}${deleted.length ? ` (it did for ${deleted.map(say).join(', ')})` : ''}; ${ending(ctx)}`,
        };
      },
    },
    {
      id: 'client-http/resume-with-last-event-id',
      title: 'a stream ended early is resumed with GET and Last-Event-ID',
      level: 'SHOULD',
      spec: 'basic/transports#resumability-and-redelivery',
      transports: HTTP,
      scenarios: ['stream-resume'],
      requirement:
        'When an SSE stream ends before its answer, after an event with an id, the client resumes it with an HTTP GET carrying Last-Event-ID.',
      run(ctx) {
        const cut = cutStream(ctx);
        if (!cut) return noCut();
        const want = `resume-${cut.n}`;
        const resumed = ctx.exchanges.find(
          (e) => e.n > cut.n && e.method === 'GET' && e.headers['last-event-id'] !== undefined,
        );
        if (!resumed)
          return {
            verdict: 'warn',
            message: `the stream of ${what(cut)} ended after event id ${want}, before the answer; the client never sent a GET with Last-Event-ID; ${ending(ctx)}`,
          };
        if (resumed.headers['last-event-id'] !== want)
          return {
            verdict: 'warn',
            message: `the client resumed with Last-Event-ID ${resumed.headers['last-event-id']}, not ${want} (the last event id it was sent)`,
          };
        return {
          verdict: 'pass',
          message: `the stream of ${what(cut)} was resumed by ${what(resumed)} with Last-Event-ID ${want}`,
        };
      },
    },
    {
      id: 'client-http/retry-respected',
      title: 'the retry field of an ended stream is waited out before reconnecting',
      level: 'MUST',
      spec: 'basic/transports#sending-messages-to-the-server',
      from: '2025-11-25',
      transports: HTTP,
      scenarios: ['stream-resume'],
      requirement: `When the server ends an SSE stream after an event with a retry field, the client waits at least that many milliseconds before it reconnects (the mock asks for ${RESUME_RETRY_MS} ms).`,
      run(ctx) {
        const cut = cutStream(ctx);
        if (!cut) return noCut();
        // The reconnection is the GET that resumes the stream (Last-Event-ID). A GET without it is the client's
        // standalone stream, which may reach the mock right after the cut POST with no wait owed (mcp-remote opens its
        // stream in the same millisecond as its first request): timing that one gave a false fail.
        const next = ctx.exchanges.find(
          (e) => e.n > cut.n && e.method === 'GET' && e.headers['last-event-id'] !== undefined,
        );
        if (!next)
          return {
            verdict: 'skip',
            message: `the client did not resume the stream of ${what(cut)} (no GET with Last-Event-ID; client-http/resume-with-last-event-id grades that); nothing to time`,
          };
        // The mock's clock on both: the cut answer left at once, the GET is timed when it arrived, so the gap seen here
        // is never shorter than the client's own wait.
        const waited = next.t - cut.t;
        if (waited < RESUME_RETRY_MS)
          return {
            verdict: 'fail',
            message: `the stream of ${what(cut)} ended with retry: ${RESUME_RETRY_MS}; the client reconnected (${what(next)}) after ${waited} ms`,
          };
        return {
          verdict: 'pass',
          message: `the stream of ${what(cut)} ended with retry: ${RESUME_RETRY_MS}; the client reconnected (${what(next)}) after ${waited} ms`,
        };
      },
    },
  ],
};
