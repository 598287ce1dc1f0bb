/**
 * Serving a mock over HTTP: Streamable HTTP (one endpoint; sessions; 202 with no body for notifications and
 * responses; GET 405; DELETE ends a session) and the legacy HTTP+SSE transport (GET stream with an `endpoint` event,
 * POSTs answered 202, messages as `message` events). The exchange logic is written once against plain values, so
 * that node:http (`serve --http/--sse`) and msw handlers (`mcp-conform/msw`) behave the same.
 */
import { randomUUID } from 'node:crypto';
import { createServer, type IncomingMessage, type Server, type ServerResponse } from 'node:http';
import type { AddressInfo } from 'node:net';
import { errorResponse, parseJson, sleep, type MockSession, type MockSource, type Outgoing } from './engine.js';
import { FAIL_MESSAGE, FaultPlan, type FaultOptions } from './faults.js';
import { eraInfoOf, isModernRequest } from './era.js';
import { modernPost } from './http-modern.js';

const KNOWN_VERSIONS = ['2024-11-05', '2025-03-26', '2025-06-18', '2025-11-25', '2026-07-28'];

export type { ModernSessionHost, PlainRequest, PlainResponse } from './http-types.js';
import type { ModernSessionHost, PlainRequest, PlainResponse } from './http-types.js';

export interface HttpMockOptions {
  /** Origins allowed besides the server's own (and requests without Origin). '*' allows any. */
  allowOrigins?: string[];
  /** Answer every request as JSON even when notifications come with it (default: an SSE stream then). */
  jsonOnly?: boolean;
  /** Faults (serve --latency, --drop, --fail-rate, --disconnect-after, --expire-session-after): a plan, or its options. */
  faults?: FaultPlan | FaultOptions;
  /**
   * Sees every request first (any path, body read): an answer ends it there, undefined lets the mock serve it. The
   * protected mock (mocks/auth/protected.ts): metadata, the authorization server on this origin, 401 and 403.
   */
  guard?: (req: PlainRequest) => Promise<PlainResponse | undefined>;
}

function planOf(o: HttpMockOptions): FaultPlan | undefined {
  if (!o.faults) return undefined;
  return o.faults instanceof FaultPlan ? o.faults : new FaultPlan(o.faults);
}

const HANG_UP: PlainResponse = { status: 0, headers: {}, hangUp: true };

/** A dropped request: no answer until the mock is closed (then the connection is closed). */
function never(plan: FaultPlan): Promise<PlainResponse> {
  return new Promise((resolve) => {
    plan.whenDisconnected(() => resolve(HANG_UP));
    plan.whenClosed(() => resolve(HANG_UP));
  });
}

function unavailable(id: unknown): PlainResponse {
  return jsonResponse(503, errorResponse(id ?? null, -32603, `Service Unavailable: ${FAIL_MESSAGE}`), {
    'retry-after': '0',
  });
}

export function sseEvents(messages: Outgoing[], firstId = 1): string {
  return messages.map((m, i) => `event: message\nid: ${firstId + i}\ndata: ${JSON.stringify(m)}\n\n`).join('');
}

export function jsonResponse(status: number, body: unknown, headers: Record<string, string> = {}): PlainResponse {
  return { status, headers: { 'content-type': 'application/json', ...headers }, body: JSON.stringify(body) };
}

function originAllowed(req: PlainRequest, opts: HttpMockOptions): boolean {
  const origin = req.header('origin');
  if (!origin) return true;
  const allow = opts.allowOrigins ?? [];
  if (allow.includes('*') || allow.includes(origin)) return true;
  try {
    const o = new URL(origin);
    return (
      o.host === req.url.host ||
      ((o.hostname === 'localhost' || o.hostname === '127.0.0.1' || o.hostname === '[::1]') && o.port === req.url.port)
    );
  } catch {
    return false;
  }
}

/** Collects what a session emits for one client message. */
export async function exchange(session: MockSession, raw: string, req?: PlainRequest): Promise<Outgoing[]> {
  const out: Outgoing[] = [];
  try {
    await session.receive(raw, (m) => out.push(m), req ? { http: req } : undefined);
  } catch (e) {
    const p = parseJson(raw);
    const id = p.ok && p.value && typeof p.value === 'object' ? (p.value as { id?: unknown }).id : null;
    out.push(errorResponse(id ?? null, -32603, `mock server error: ${(e as Error).message}`));
  }
  return out;
}

/** Streamable HTTP: one instance per served endpoint; sessions by Mcp-Session-Id. */
export class StreamableHttpMock implements ModernSessionHost {
  private readonly sessions = new Map<string, MockSession>();
  modernSession?: MockSession;
  /** SSE event ids: unique within a session, across its streams. */
  private readonly eventIds = new Map<string, number>();

  readonly faults?: FaultPlan;

  constructor(
    private readonly source: MockSource,
    private readonly opts: HttpMockOptions = {},
  ) {
    this.faults = planOf(opts);
  }

  async handle(req: PlainRequest): Promise<PlainResponse> {
    if (this.faults?.disconnected) return HANG_UP;
    if (!originAllowed(req, this.opts))
      return jsonResponse(
        403,
        errorResponse(null, -32000, `Forbidden: Origin ${req.header('origin')} is not allowed (serve --allow-origin)`),
      );
    const sid = req.header('mcp-session-id');
    if (sid && this.faults?.isExpired(sid)) {
      this.sessions.delete(sid);
      this.eventIds.delete(sid);
      return jsonResponse(
        404,
        errorResponse(null, -32001, 'Session not found (expired by the mock: serve --expire-session-after)'),
      );
    }
    const era = eraInfoOf(this.source);
    if (era?.modernVersions.length && req.method === 'POST' && !sid) {
      const p = parseJson(req.body);
      const m =
        p.ok && p.value && typeof p.value === 'object' && !Array.isArray(p.value)
          ? (p.value as Record<string, unknown>)
          : undefined;
      if (m && typeof m.method === 'string' && (isModernRequest(m) || !era.legacy)) {
        this.modernSession ??= this.source.newSession();
        // The faults apply in 2026-07-28 as in the other eras (serve --drop, --latency, --fail-rate, --disconnect-after).
        let sent: (() => void) | undefined;
        if ('id' in m && this.faults) {
          const plan = this.faults;
          const d = plan.decide(m.method);
          if (d.action === 'drop') return never(plan);
          if (d.delayMs) await sleep(d.delayMs);
          if (plan.disconnected) return HANG_UP;
          if (d.action === 'fail') return { ...unavailable(m.id), sent: () => plan.answeredOne() };
          sent = () => plan.answeredOne();
        }
        const r = await modernPost(req, m, this.modernSession, era, (session, raw) => exchange(session, raw, req));
        return sent ? { ...r, sent } : r;
      }
    }
    if (req.method === 'GET') return { status: 405, headers: { allow: 'POST, DELETE' } };
    if (req.method === 'DELETE') {
      if (!sid) return jsonResponse(400, errorResponse(null, -32000, 'Bad Request: Mcp-Session-Id header required'));
      if (!this.sessions.delete(sid)) return jsonResponse(404, errorResponse(null, -32001, 'Session not found'));
      this.eventIds.delete(sid);
      return { status: 200, headers: {} };
    }
    if (req.method !== 'POST') return { status: 405, headers: { allow: 'GET, POST, DELETE' } };
    const pv = req.header('mcp-protocol-version');
    if (pv && !KNOWN_VERSIONS.includes(pv))
      return jsonResponse(400, errorResponse(null, -32000, `Bad Request: unsupported MCP-Protocol-Version ${pv}`));
    const parsed = parseJson(req.body);
    if (!parsed.ok) return jsonResponse(400, errorResponse(null, -32700, 'Parse error: the body is not JSON'));
    const msg = parsed.value;
    if (Array.isArray(msg))
      return jsonResponse(400, errorResponse(null, -32600, 'Invalid Request: batches are not accepted'));
    if (!msg || typeof msg !== 'object')
      return jsonResponse(400, errorResponse(null, -32600, 'Invalid Request: not a JSON-RPC message'));
    const m = msg as Record<string, unknown>;
    const isRequest = typeof m.method === 'string' && 'id' in m;
    const isMessage = typeof m.method === 'string' || 'result' in m || 'error' in m;
    let session: MockSession | undefined;
    const headers: Record<string, string> = {};
    if (m.method === 'initialize' && isRequest && !sid) {
      const id = randomUUID();
      session = this.source.newSession();
      this.sessions.set(id, session);
      headers['mcp-session-id'] = id;
      this.faults?.sessionExpired(id); // initialize is the session's first request
    } else {
      if (!sid) return jsonResponse(400, errorResponse(null, -32000, 'Bad Request: Mcp-Session-Id header required'));
      session = this.sessions.get(sid);
      if (!session) return jsonResponse(404, errorResponse(null, -32001, 'Session not found'));
      if (isRequest && this.faults?.sessionExpired(sid)) {
        this.sessions.delete(sid);
        this.eventIds.delete(sid);
        return jsonResponse(
          404,
          errorResponse(null, -32001, 'Session not found (expired by the mock: serve --expire-session-after)'),
        );
      }
    }
    let sent: (() => void) | undefined;
    if (isRequest && this.faults && typeof m.method === 'string') {
      const plan = this.faults;
      const d = plan.decide(m.method);
      if (d.action === 'drop') return never(plan);
      if (d.delayMs) await sleep(d.delayMs);
      if (plan.disconnected) return HANG_UP;
      if (d.action === 'fail') return { ...unavailable(m.id), sent: () => plan.answeredOne() };
      sent = () => plan.answeredOne();
    }
    const withSent = (r: PlainResponse): PlainResponse => (sent ? { ...r, sent } : r);
    const out = await exchange(session, req.body, req);
    if (!isMessage)
      return jsonResponse(
        400,
        out[0] ?? errorResponse(null, -32600, 'Invalid Request: not a JSON-RPC message'),
        headers,
      );
    if (!isRequest) return { status: 202, headers }; // notifications and responses: 202, no body at all
    if (out.length === 1 || this.opts.jsonOnly)
      return withSent(jsonResponse(200, out[out.length - 1] ?? errorResponse(m.id, -32603, 'no answer'), headers));
    const key = sid ?? headers['mcp-session-id']!;
    const first = this.eventIds.get(key) ?? 1;
    this.eventIds.set(key, first + out.length);
    return withSent({
      status: 200,
      headers: { ...headers, 'content-type': 'text/event-stream', 'cache-control': 'no-cache' },
      body: sseEvents(out, first),
    });
  }
}

/** The legacy HTTP+SSE transport: GET opens the stream, POST /message?sessionId= carries client messages. */
export class SseMock {
  private readonly streams = new Map<
    string,
    { session: MockSession; write: (chunk: string) => void; nextId: number; end?: () => void }
  >();

  readonly faults?: FaultPlan;

  constructor(
    private readonly source: MockSource,
    private readonly opts: HttpMockOptions & { messagePath?: string } = {},
  ) {
    this.faults = planOf(opts);
    // --disconnect-after: every stream is ended once the count is reached.
    this.faults?.whenDisconnected(() =>
      setImmediate(() => {
        for (const s of this.streams.values()) s.end?.();
        this.streams.clear();
      }),
    );
  }

  /** Opens a stream: returns the session id; `write` receives SSE text (the `endpoint` event first). */
  open(
    req: PlainRequest,
    write: (chunk: string) => void,
    end?: () => void,
  ): { status: number; headers: Record<string, string>; sessionId?: string } {
    if (this.faults?.disconnected) return { status: 0, headers: {} };
    if (!originAllowed(req, this.opts)) return { status: 403, headers: {} };
    const id = randomUUID();
    this.streams.set(id, { session: this.source.newSession(), write, nextId: 1, end });
    const path = this.opts.messagePath ?? '/message';
    write(`event: endpoint\ndata: ${path}?sessionId=${id}\n\n`);
    return {
      status: 200,
      headers: { 'content-type': 'text/event-stream', 'cache-control': 'no-cache' },
      sessionId: id,
    };
  }

  closeStream(id: string): void {
    this.streams.delete(id);
  }

  async post(req: PlainRequest): Promise<PlainResponse> {
    if (this.faults?.disconnected) return HANG_UP;
    if (!originAllowed(req, this.opts)) return { status: 403, headers: {} };
    const id = req.url.searchParams.get('sessionId') ?? '';
    const s = this.streams.get(id);
    if (!s) return jsonResponse(404, errorResponse(null, -32001, 'Session not found'));
    const plan = this.faults;
    const parsed = parseJson(req.body);
    const m =
      parsed.ok && parsed.value && typeof parsed.value === 'object' && !Array.isArray(parsed.value)
        ? (parsed.value as Record<string, unknown>)
        : undefined;
    const isRequest = !!m && typeof m.method === 'string' && (typeof m.id === 'string' || typeof m.id === 'number');
    const writeOut = (out: Outgoing[]) => {
      for (const o of out) s.write(`event: message\nid: ${s.nextId++}\ndata: ${JSON.stringify(o)}\n\n`);
    };
    if (plan && isRequest) {
      if (plan.sessionExpired(id)) {
        this.streams.delete(id);
        return jsonResponse(
          404,
          errorResponse(null, -32001, 'Session not found (expired by the mock: serve --expire-session-after)'),
        );
      }
      const d = plan.decide(String(m!.method));
      if (d.action === 'drop') return { status: 202, headers: {} };
      if (d.action === 'fail') {
        if (d.delayMs) await sleep(d.delayMs);
        return { ...unavailable(m!.id), sent: () => plan.answeredOne() };
      }
      void sleep(d.delayMs).then(async () => {
        if (plan.disconnected) return;
        writeOut(await exchange(s.session, req.body));
        plan.answeredOne();
      });
      return { status: 202, headers: {} };
    }
    // Answered on the stream (a line that is not JSON too: the session answers it as the recording or fixture says); the POST itself gets 202 at once.
    void exchange(s.session, req.body).then(writeOut);
    return { status: 202, headers: {} };
  }
}

function readBody(req: IncomingMessage, limit = 64 * 1024 * 1024): Promise<string> {
  return new Promise((resolve, reject) => {
    const chunks: Buffer[] = [];
    let n = 0;
    req.on('data', (c: Buffer) => {
      n += c.length;
      if (n > limit) {
        reject(new Error('body too large'));
        req.destroy();
      } else chunks.push(c);
    });
    req.on('end', () => resolve(Buffer.concat(chunks).toString('utf8')));
    req.on('error', reject);
  });
}

function plain(req: IncomingMessage, body: string, base: string): PlainRequest {
  return {
    method: req.method ?? 'GET',
    url: new URL(req.url ?? '/', base),
    header: (n) => {
      const v = req.headers[n.toLowerCase()];
      return Array.isArray(v) ? v.join(', ') : v;
    },
    headerNames: () => Object.keys(req.headers),
    body,
  };
}

function send(res: ServerResponse, r: PlainResponse): void {
  if (r.hangUp) {
    res.destroy();
    return;
  }
  res.writeHead(r.status, r.headers);
  if (r.stream) {
    if (r.body) res.write(r.body);
    r.sent?.();
    const stop = r.stream((chunk) => {
      if (!res.destroyed) res.write(chunk);
    });
    res.on('close', stop);
    return;
  }
  res.end(r.body, () => r.sent?.());
}

export interface RunningHttpMock {
  server: Server;
  port: number;
  url: string;
  close(): Promise<void>;
}

/**
 * `serve --http PORT` (Streamable HTTP at /mcp) or `serve --sse PORT` (GET /sse, POST /message), bound to
 * 127.0.0.1 unless `host` says otherwise. Port 0 picks a free port.
 */
export async function startHttpMock(
  source: MockSource,
  o: HttpMockOptions & {
    port: number;
    host?: string;
    kind: 'streamable-http' | 'sse';
    path?: string;
    handler?: Pick<StreamableHttpMock, 'handle'>;
  },
): Promise<RunningHttpMock> {
  const host = o.host ?? '127.0.0.1';
  const faults = planOf(o);
  const streamable = o.handler ?? new StreamableHttpMock(source, { ...o, faults });
  const sse = new SseMock(source, { ...o, faults });
  const mcpPath = o.path ?? '/mcp';
  const server = createServer((req, res) => {
    if (faults?.disconnected) {
      req.socket.destroy();
      return;
    }
    const base = `http://${req.headers.host ?? `${host}:${(server.address() as AddressInfo).port}`}`;
    const fail = (e: unknown) => {
      if (!res.headersSent)
        send(res, jsonResponse(500, errorResponse(null, -32603, `mock server error: ${(e as Error).message}`)));
      else res.destroy();
    };
    if (o.guard) {
      const guard = o.guard;
      readBody(req)
        .then(async (body) => {
          const r = await guard(plain(req, body, base));
          if (r) {
            if (!res.destroyed) send(res, r);
            return;
          }
          route(req, res, base, fail, body);
        })
        .catch(fail);
      return;
    }
    route(req, res, base, fail);
  });
  /** body: already read (by the guard). */
  function route(
    req: IncomingMessage,
    res: ServerResponse,
    base: string,
    fail: (e: unknown) => void,
    body?: string,
  ): void {
    const bodyOf = () => (body !== undefined ? Promise.resolve(body) : readBody(req));
    if (o.kind === 'streamable-http') {
      const path = new URL(req.url ?? '/', base).pathname;
      if (path !== mcpPath) {
        send(res, {
          status: 404,
          headers: { 'content-type': 'text/plain' },
          body: `not found: the MCP endpoint is ${mcpPath}`,
        });
        req.resume();
        return;
      }
      bodyOf()
        .then((b) => streamable.handle(plain(req, b, base)))
        .then((r) => {
          if (!res.destroyed) send(res, r);
        }, fail);
      return;
    }
    const path = new URL(req.url ?? '/', base).pathname;
    if (req.method === 'GET' && path === '/sse') {
      const early: string[] = [];
      let ready = false;
      const r = sse.open(
        plain(req, '', base),
        (chunk) => {
          if (!ready) early.push(chunk);
          else if (!res.destroyed) res.write(chunk);
        },
        () => res.destroy(),
      );
      if (r.status === 0) {
        res.destroy();
        return;
      }
      res.writeHead(r.status, r.headers);
      if (r.status !== 200) {
        res.end();
        return;
      }
      ready = true;
      for (const c of early) res.write(c);
      res.on('close', () => sse.closeStream(r.sessionId!));
      return;
    }
    if (req.method === 'POST' && path === '/message') {
      bodyOf()
        .then((b) => sse.post(plain(req, b, base)))
        .then((r) => {
          if (!res.destroyed) send(res, r);
        }, fail);
      return;
    }
    req.resume();
    send(res, {
      status: 404,
      headers: { 'content-type': 'text/plain' },
      body: 'not found: GET /sse opens the stream, POST /message carries messages',
    });
  }
  server.on('clientError', (_e, socket) => socket.destroy());
  await new Promise<void>((resolve, reject) => {
    server.once('error', reject);
    server.listen(o.port, host, () => {
      server.off('error', reject);
      resolve();
    });
  });
  // --disconnect-after: every connection and stream is closed once the count is reached (after the last answer went out).
  faults?.whenDisconnected(() => setImmediate(() => server.closeAllConnections()));
  const port = (server.address() as AddressInfo).port;
  const url = o.kind === 'streamable-http' ? `http://${host}:${port}${mcpPath}` : `http://${host}:${port}/sse`;
  return {
    server,
    port,
    url,
    close: () =>
      new Promise<void>((resolve) => {
        faults?.close();
        server.closeAllConnections();
        server.close(() => resolve());
      }),
  };
}
