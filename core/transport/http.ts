/**
 * Streamable HTTP transport (protocol 2025-03-26 on): every message is its own POST to one endpoint; a request is
 * answered with one JSON object or an SSE stream; server-initiated messages may come on a GET stream; the session id
 * set by the initialize answer goes on every later request; DELETE ends the session.
 * https://modelcontextprotocol.io/specification/2025-11-25/basic/transports#streamable-http
 * https://modelcontextprotocol.io/specification/2026-07-28/basic/transports/streamable-http
 *
 * The wire is the harness's own (node:http / node:https, a small SSE parser): nothing is validated or dropped on the
 * way in, and every exchange is recorded.
 */
import type { IncomingHttpHeaders } from 'node:http';
import { performance } from 'node:perf_hooks';
import type { HttpInfo } from '../log.js';
import type { Transport } from './types.js';
import type { ServerProcess } from '../start.js';
import { SseParser } from './sse-parser.js';
import type { Credentials } from '../auth/credentials.js';
import { headerSafe, paramHeaders } from '../param-headers.js';
import { cut } from '../text.js';
import { HEADER } from '../wire.js';

// The plumbing shared with the HTTP+SSE transport and --url's detection (requests, bodies, headers, the exchange
// record, HttpTransportBase) is in http-base.ts, re-exported here for the modules that import it from here.
export * from './http-base.js';
import {
  HttpTransportBase,
  authorizedRequest,
  cutBody,
  header,
  isUnreachable,
  keptHeaders,
  readBody,
  recordEvent,
  type HttpExchange,
  type RawResponse,
} from './http-base.js';

// ---------------------------------------------------------------------------------------------------------------
// Streamable HTTP.

export interface StreamableHttpOptions {
  url: URL;
  headers?: Record<string, string>;
  /** A server process started for this run (--start); stopped on close. */
  proc?: ServerProcess;
  /** Bound for a status line to come (ms). */
  timeoutMs?: number;
  maxMessageBytes?: number;
  /** Open the GET stream after the handshake (default true). */
  openGetStream?: boolean;
  /** What gets the run past a protected server: its token goes on every request (core/auth/credentials.ts). */
  credentials?: Credentials;
}

export interface ProbeRequest {
  method: 'POST' | 'GET' | 'DELETE';
  /** Headers over the defaults; null removes a default. */
  headers?: Record<string, string | null>;
  body?: string;
  /** Send the session id of the run (default true). */
  withSession?: boolean;
  /** A session id to send instead. */
  sessionId?: string;
  /** How long to read an SSE answer before giving up (ms). Default 5000. */
  streamMs?: number;
}

export interface ProbeResult {
  exchange: HttpExchange;
  status?: number;
  contentType?: string;
  headers: IncomingHttpHeaders;
  body: string;
  /** JSON-RPC messages in the answer (the JSON body, or each SSE message event). */
  messages: unknown[];
  error?: string;
}

const NEWEST_WITH_SESSIONS = '2025-11-25';

export class StreamableHttpTransport extends HttpTransportBase implements Transport {
  readonly kind = 'streamable-http' as const;
  /** Mcp-Session-Id the server set on the initialize answer. */
  sessionId?: string;
  /** The version the initialize answer named (sent as MCP-Protocol-Version from 2025-06-18 on). */
  protocolVersion?: string;
  /** The GET stream: what the server said to it. */
  getStream?: { exchange: HttpExchange; status?: number; contentType?: string; open: boolean; error?: string };
  /** The DELETE sent at close, and what came back. */
  deleteExchange?: HttpExchange;
  private initializeId?: string | number;
  private initializeVersion?: string;
  private readonly maxBytes: number;
  private readonly wantGet: boolean;
  /** The POST of each request still under way, by id (JSON text), so that closing it can cancel the request. */
  private readonly inFlight = new Map<string, AbortController>();
  /** Requests cancelled by closing their POST: the answer they will not get is no failure. */
  private readonly cancelledIds = new Set<string>();
  /** The inputSchema of each tool the server listed (tools/list answers), for the Mcp-Param-{Name} headers of 2026-07-28. */
  private readonly toolSchemas = new Map<string, unknown>();

  constructor(opts: StreamableHttpOptions) {
    super(opts.url, opts.headers ?? {}, opts.proc, opts.timeoutMs, opts.credentials);
    this.maxBytes = opts.maxMessageBytes ?? 64 * 1024 * 1024;
    this.wantGet = opts.openGetStream ?? true;
  }

  async start(): Promise<void> {
    if (this.proc) await this.proc.start(this.url);
  }

  /** Headers every request carries: user headers, session id, protocol version (never Content-Type/Accept). */
  baseHeaders(withSession = true): Record<string, string> {
    const h = this.userHeaders();
    if (withSession && this.sessionId !== undefined) h[HEADER.sessionId] = this.sessionId;
    if (this.protocolVersion && this.protocolVersion >= '2025-06-18') h[HEADER.protocolVersion] = this.protocolVersion;
    return h;
  }

  send(raw: string): HttpInfo | void {
    if (this.closed || this.closing) return;
    let msg: Record<string, unknown> | undefined;
    try {
      const j = JSON.parse(raw);
      if (j && typeof j === 'object' && !Array.isArray(j)) msg = j as Record<string, unknown>;
    } catch {
      /* sent as is */
    }
    const isRequest = !!msg && typeof msg.method === 'string' && 'id' in msg;
    if (isRequest && msg!.method === 'initialize') {
      this.initializeId = msg!.id as string | number;
      const p = msg!.params as Record<string, unknown> | undefined;
      this.initializeVersion = typeof p?.protocolVersion === 'string' ? p.protocolVersion : undefined;
    }
    const headers: Record<string, string> = {
      ...this.baseHeaders(),
      'Content-Type': 'application/json',
      Accept: 'application/json, text/event-stream',
    };
    const version = this.protocolVersion ?? this.initializeVersion;
    if (version !== undefined && version > NEWEST_WITH_SESSIONS && msg && typeof msg.method === 'string') {
      // 2026-07-28: the method (and the name of a named call) mirrored into headers; the version on every POST.
      headers[HEADER.protocolVersion] = version;
      headers[HEADER.method] = msg.method;
      const p = msg.params as Record<string, unknown> | undefined;
      const name = typeof p?.name === 'string' ? p.name : typeof p?.uri === 'string' ? p.uri : undefined;
      if (name !== undefined && ['tools/call', 'resources/read', 'prompts/get'].includes(msg.method))
        headers[HEADER.name] = headerSafe(name);
      // The tasks extension routes its requests by task: Mcp-Name is the taskId (ext-tasks 2026-07-28, routing headers).
      if (typeof p?.taskId === 'string' && ['tasks/get', 'tasks/update', 'tasks/cancel'].includes(msg.method))
        headers[HEADER.name] = headerSafe(p.taskId);
      // Arguments the tool marks with x-mcp-header go in Mcp-Param-{Name} too (the schema as tools/list gave it).
      if (msg.method === 'tools/call' && typeof p?.name === 'string')
        Object.assign(headers, paramHeaders(this.toolSchemas.get(p.name), p.arguments));
    }
    const x = this.newExchange('message', 'POST', this.url, headers, raw);
    const info: HttpInfo = { exchange: x.n, method: 'POST', url: this.shownUrl };
    if (headers[HEADER.sessionId] !== undefined) info.sessionId = headers[HEADER.sessionId];
    if (headers[HEADER.protocolVersion] !== undefined) info.protocolVersion = headers[HEADER.protocolVersion];
    void this.post(
      raw,
      headers,
      x,
      info,
      isRequest ? (msg!.id as string | number) : undefined,
      msg?.method === 'notifications/initialized',
      msg?.method === 'tools/list',
    );
    return info;
  }

  /**
   * Cancel a request by closing its POST and the response stream on it: the cancellation of 2026-07-28 over Streamable
   * HTTP (earlier versions send notifications/cancelled instead). false when the request is no longer under way.
   * https://modelcontextprotocol.io/specification/2026-07-28/basic/transports/streamable-http#cancellation
   */
  closeRequestStream(id: string | number): boolean {
    const key = JSON.stringify(id);
    const ac = this.inFlight.get(key);
    if (!ac) return false;
    this.cancelledIds.add(key);
    ac.abort();
    return true;
  }

  private async post(
    raw: string,
    headers: Record<string, string>,
    x: HttpExchange,
    info: HttpInfo,
    requestId: string | number | undefined,
    isInitialized: boolean,
    isToolList = false,
  ): Promise<void> {
    const ac = this.abortable();
    const key = requestId === undefined ? undefined : JSON.stringify(requestId);
    if (key !== undefined) this.inFlight.set(key, ac);
    const cancelled = () => key !== undefined && this.cancelledIds.has(key);
    const t = performance.now();
    let res: RawResponse;
    try {
      res = await authorizedRequest(
        this.credentials,
        this.url,
        'POST',
        headers,
        raw,
        { timeoutMs: this.timeoutMs, signal: ac.signal, agent: this.agent },
        x,
      );
    } catch (e) {
      this.aborts.delete(ac);
      if (key !== undefined) this.inFlight.delete(key);
      const err = e as NodeJS.ErrnoException;
      x.error = cancelled() ? 'closed by the harness before the answer came (cancellation)' : err.message;
      info.problem = x.error;
      if (this.closing || cancelled()) return;
      if (isUnreachable(err)) {
        this.finish(`the server cannot be reached: ${err.message}`);
        return;
      }
      if (requestId !== undefined) this.onRequestFailed?.(requestId, `the POST failed: ${err.message}`);
      return;
    }
    x.status = info.status = res.status;
    x.statusText = res.statusText;
    x.responseHeaders = keptHeaders(res.headers);
    this.noteRefusal(res, 'POST');
    const ct = header(res.headers, 'content-type');
    if (ct !== undefined) info.contentType = ct;
    const sid = header(res.headers, HEADER.sessionId);
    const isInitAnswer = requestId !== undefined && requestId === this.initializeId;
    if (isInitAnswer && sid !== undefined && res.status >= 200 && res.status < 300) this.sessionId = sid;
    const from: HttpInfo = { exchange: x.n, method: 'POST', url: this.shownUrl, status: res.status };
    if (ct !== undefined) from.contentType = ct;
    if (sid !== undefined) from.sessionId = sid;
    let answered = false;
    const seen = (json: unknown) => {
      const m = json as Record<string, unknown> | null;
      if (
        requestId !== undefined &&
        m &&
        typeof m === 'object' &&
        m.id === requestId &&
        ('result' in m || 'error' in m)
      ) {
        answered = true;
        if (isToolList) this.learnTools(m.result);
        if (isInitAnswer && 'result' in m) {
          const v = (m.result as Record<string, unknown> | null)?.protocolVersion;
          if (typeof v === 'string') this.protocolVersion = v;
        }
      }
    };
    const mediaType = (ct ?? '').split(';')[0]!.trim().toLowerCase();
    let problem: string | undefined;
    if (mediaType === 'text/event-stream' && res.status >= 200 && res.status < 300) {
      const r = await this.readStream(res, x, from, seen, ac);
      problem = r.problem;
      if (
        !answered &&
        requestId !== undefined &&
        !this.closing &&
        !cancelled() &&
        r.lastEventId !== undefined &&
        (this.protocolVersion ?? '') <= NEWEST_WITH_SESSIONS
      ) {
        // The stream ended before the answer, but the server gave event ids: resume it with GET + Last-Event-ID.
        const resumed = await this.resume(r.lastEventId, r.retry, seen, requestId, x.n);
        if (resumed) problem = undefined;
      }
    } else {
      const body = await readBody(res.body, this.maxBytes, this.timeoutMs);
      x.bodyBytes = body.bytes;
      x.responseBody = cutBody(body.text);
      if (body.error) x.error = body.error;
      if (requestId === undefined) info.bodyBytes = body.bytes;
      const text = body.text;
      if (text.trim()) {
        let json: unknown;
        let ok = true;
        try {
          json = JSON.parse(text);
        } catch {
          ok = false;
        }
        // A 401/403 of the authorization layer may carry an OAuth error body ({"error":"invalid_token"}): no JSON-RPC message.
        const oauthBody =
          (res.status === 401 || res.status === 403) &&
          ok &&
          json !== null &&
          typeof json === 'object' &&
          !Array.isArray(json) &&
          !('jsonrpc' in json);
        const isMessageish = ok && json !== null && typeof json === 'object' && !oauthBody;
        // A body that is JSON is a message from the server whatever the status; other bodies are kept on the exchange.
        if (
          isMessageish &&
          (mediaType === 'application/json' || mediaType === '' || res.status >= 400 || requestId === undefined)
        ) {
          seen(json);
          if (Array.isArray(json)) for (const j of json) seen(j);
          this.onFrame?.({ raw: text, http: { ...from }, ...(body.cut ? { problem: body.error } : {}) });
        } else if (
          requestId !== undefined &&
          res.status >= 200 &&
          res.status < 300 &&
          mediaType === 'application/json'
        ) {
          this.onFrame?.({ raw: text, http: { ...from }, problem: body.error });
          seen(undefined);
        }
      }
      if (requestId !== undefined && !answered) {
        if (res.status === 202) problem = 'HTTP 202 Accepted to a request: no answer will come';
        else if (res.status >= 200 && res.status < 300 && mediaType !== 'application/json')
          problem = `HTTP ${res.status} with Content-Type ${ct ?? '(none)'}: a request must be answered with application/json or text/event-stream`;
        else if (res.status >= 200 && res.status < 300)
          problem = text.trim()
            ? `the JSON body did not answer id ${JSON.stringify(requestId)}`
            : `HTTP ${res.status} with an empty body`;
        else
          problem = `HTTP ${res.status} ${res.statusText}${res.status === 404 && headers[HEADER.sessionId] ? ' (the server no longer knows the session id)' : ''}${text.trim() ? `: ${cut(text.replace(/\s+/g, ' '), 200)}` : ''}`;
      }
    }
    this.aborts.delete(ac);
    if (key !== undefined) this.inFlight.delete(key);
    x.ms = Math.round(performance.now() - t);
    if (cancelled() && !answered) problem = 'closed by the harness before the answer came (cancellation)';
    if (problem) {
      x.error = x.error ? `${x.error}; ${problem}` : problem;
    }
    if (requestId !== undefined && !answered && !this.closing && !cancelled())
      this.onRequestFailed?.(requestId, problem ?? `HTTP ${res.status}: no answer in the body`);
    if (
      isInitialized &&
      res.status >= 200 &&
      res.status < 300 &&
      this.wantGet &&
      !this.closing &&
      (this.protocolVersion ?? '') <= NEWEST_WITH_SESSIONS
    )
      void this.openGet();
  }

  private learnTools(result: unknown): void {
    const list = (result as { tools?: unknown } | null)?.tools;
    if (Array.isArray(list))
      for (const t of list) if (t && typeof t.name === 'string') this.toolSchemas.set(t.name, t.inputSchema);
  }

  /** Read an SSE answer: every message event becomes a frame. Resolves when the stream ends. */
  private readStream(
    res: RawResponse,
    x: HttpExchange,
    from: HttpInfo,
    seen: (j: unknown) => void,
    ac: AbortController,
  ): Promise<{ problem?: string; lastEventId?: string; retry?: number }> {
    return new Promise((resolve) => {
      x.events ??= [];
      let retry: number | undefined;
      const parser = new SseParser(
        (e) => {
          recordEvent(x, e);
          if (e.retry !== undefined) retry = e.retry;
          if (e.data === '' && !e.truncated) return; // a priming event (id only) or keep-alive: no message
          const info: HttpInfo = { ...from, sseEvent: e.event, ...(e.id !== undefined ? { sseId: e.id } : {}) };
          let json: unknown;
          if (!e.truncated)
            try {
              json = JSON.parse(e.data);
            } catch {
              /* logged as not JSON */
            }
          const problems: string[] = [];
          if (e.event !== 'message')
            problems.push(`SSE event type "${e.event}": MCP messages travel in "message" events`);
          if (e.truncated) problems.push(`message longer than ${this.maxBytes} bytes: cut there, the rest dropped`);
          if (problems.length) info.problem = problems.join('; ');
          seen(json);
          this.onFrame?.({
            raw: e.data,
            http: info,
            ...(info.problem ? { problem: info.problem } : {}),
            ...(e.truncated ? { truncated: true } : {}),
          });
        },
        { maxDataBytes: this.maxBytes },
      );
      let done = false;
      const end = (error?: string) => {
        if (done) return;
        done = true;
        const partial = parser.end();
        let problem: string | undefined;
        if (partial !== undefined)
          problem = `the SSE stream ended in the middle of an event (no blank line after it), so the event is void: ${cut(partial, 200)}`;
        if (parser.invalidUtf8) problem = [problem, 'the SSE stream is not valid UTF-8'].filter(Boolean).join('; ');
        if (error && !this.closing) problem = [problem, error].filter(Boolean).join('; ');
        if (problem) x.error = problem;
        resolve({
          problem: problem ?? (error && !this.closing ? error : undefined),
          lastEventId: parser.lastEventId,
          retry,
        });
      };
      res.body.on('data', (b: Buffer) => parser.feed(b));
      res.body.on('end', () => end());
      res.body.on('error', (e) => end(ac.signal.aborted ? undefined : `the stream broke off: ${e.message}`));
      res.body.on('close', () =>
        end(res.body.complete || ac.signal.aborted ? undefined : 'the connection closed before the stream ended'),
      );
    });
  }

  /** Resume a POST stream that ended early: GET with Last-Event-ID, bounded (two tries). */
  private async resume(
    lastEventId: string,
    retryMs: number | undefined,
    seen: (j: unknown) => void,
    requestId: string | number,
    of: number,
  ): Promise<boolean> {
    let last = lastEventId;
    let answered = false;
    const mark = (j: unknown) => {
      seen(j);
      const m = j as Record<string, unknown> | null;
      if (m && typeof m === 'object' && m.id === requestId) answered = true;
    };
    for (let attempt = 0; attempt < 2 && !answered && !this.closing; attempt++) {
      await new Promise((r) => setTimeout(r, Math.min(retryMs ?? 0, 2000)));
      const headers = { ...this.baseHeaders(), Accept: 'text/event-stream', [HEADER.lastEventId]: last };
      const x = this.newExchange('resume', 'GET', this.url, headers);
      x.resumes = of;
      const ac = this.abortable();
      try {
        const res = await authorizedRequest(
          this.credentials,
          this.url,
          'GET',
          headers,
          undefined,
          { timeoutMs: this.timeoutMs, signal: ac.signal, agent: this.agent },
          x,
        );
        x.status = res.status;
        x.responseHeaders = keptHeaders(res.headers);
        if (res.status !== 200 || !(header(res.headers, 'content-type') ?? '').includes('text/event-stream')) {
          const b = await readBody(res.body, 64 * 1024, 5000);
          x.responseBody = cutBody(b.text);
          x.error = `resumption refused: HTTP ${res.status}`;
          return false;
        }
        const from: HttpInfo = {
          exchange: x.n,
          method: 'GET',
          url: this.shownUrl,
          status: res.status,
          contentType: header(res.headers, 'content-type'),
        };
        const r = await this.readStream(res, x, from, mark, ac);
        if (r.lastEventId) last = r.lastEventId;
      } catch (e) {
        x.error = (e as Error).message;
        return false;
      } finally {
        this.aborts.delete(ac);
      }
    }
    return answered;
  }

  /** Open the GET stream for server-initiated messages (405 means the server offers none). */
  private async openGet(): Promise<void> {
    const headers = { ...this.baseHeaders(), Accept: 'text/event-stream' };
    const x = this.newExchange('get-stream', 'GET', this.url, headers);
    const ac = this.abortable();
    this.getStream = { exchange: x, open: false };
    try {
      const res = await authorizedRequest(
        this.credentials,
        this.url,
        'GET',
        headers,
        undefined,
        { timeoutMs: this.timeoutMs, signal: ac.signal, agent: this.agent },
        x,
      );
      x.status = this.getStream.status = res.status;
      x.responseHeaders = keptHeaders(res.headers);
      const ct = header(res.headers, 'content-type');
      this.getStream.contentType = ct;
      if (res.status === 200 && (ct ?? '').toLowerCase().startsWith('text/event-stream')) {
        this.getStream.open = true;
        const from: HttpInfo = {
          exchange: x.n,
          method: 'GET',
          url: this.shownUrl,
          status: res.status,
          contentType: ct,
        };
        const r = await this.readStream(res, x, from, () => undefined, ac);
        this.getStream.open = false;
        if (r.problem) this.getStream.error = r.problem;
      } else {
        const b = await readBody(res.body, 64 * 1024, 5000);
        x.responseBody = cutBody(b.text);
        x.bodyBytes = b.bytes;
      }
    } catch (e) {
      if (!this.closing) x.error = this.getStream.error = (e as Error).message;
    } finally {
      this.aborts.delete(ac);
    }
  }

  /**
   * Send one HTTP request outside the session (a probe of a transport rule): defaults as for a message, with
   * overrides. The answer is read (an SSE answer until its first response, or streamMs) and recorded.
   */
  async probe(p: ProbeRequest): Promise<ProbeResult> {
    const defaults: Record<string, string> =
      p.method === 'GET'
        ? { Accept: 'text/event-stream' }
        : p.method === 'POST'
          ? { 'Content-Type': 'application/json', Accept: 'application/json, text/event-stream' }
          : {};
    const h: Record<string, string> = { ...this.baseHeaders(p.withSession !== false), ...defaults };
    if (p.sessionId !== undefined) h[HEADER.sessionId] = p.sessionId;
    // A probe that sets (or removes: null) Authorization itself sends what it asked for, not the run's token.
    const ownAuthorization = Object.keys(p.headers ?? {}).some((k) => k.toLowerCase() === 'authorization');
    for (const [k, v] of Object.entries(p.headers ?? {})) {
      for (const existing of Object.keys(h)) if (existing.toLowerCase() === k.toLowerCase()) delete h[existing];
      if (v !== null) h[k] = v;
    }
    const x = this.newExchange('probe', p.method, this.url, h, p.body);
    const ac = this.abortable();
    const result: ProbeResult = { exchange: x, headers: {}, body: '', messages: [] };
    const t = performance.now();
    try {
      // Each probe on a connection of its own (agent false: opened for it, closed after), so what one probe leaves
      // on a connection (a body the server never read) cannot decide the next probe's verdict.
      const res = await authorizedRequest(
        this.credentials,
        this.url,
        p.method,
        h,
        p.body,
        { timeoutMs: Math.min(this.timeoutMs, 15_000), signal: ac.signal, agent: false, own: ownAuthorization },
        x,
      );
      x.status = result.status = res.status;
      x.statusText = res.statusText;
      x.responseHeaders = keptHeaders(res.headers);
      result.headers = res.headers;
      result.contentType = header(res.headers, 'content-type');
      if ((result.contentType ?? '').toLowerCase().startsWith('text/event-stream')) {
        x.events = [];
        await new Promise<void>((resolve) => {
          const timer = setTimeout(() => {
            res.body.destroy();
            resolve();
          }, p.streamMs ?? 5000);
          const parser = new SseParser(
            (e) => {
              recordEvent(x, e);
              if (result.body.length < this.maxBytes) result.body += e.data + '\n';
              if (e.truncated) return;
              try {
                const j = JSON.parse(e.data);
                result.messages.push(j);
                if (j && typeof j === 'object' && ('result' in j || 'error' in j)) {
                  clearTimeout(timer);
                  res.body.destroy();
                  resolve();
                }
              } catch {
                /* not JSON */
              }
            },
            { maxDataBytes: this.maxBytes },
          );
          res.body.on('data', (b: Buffer) => parser.feed(b));
          res.body.on('close', () => {
            clearTimeout(timer);
            resolve();
          });
          res.body.on('error', () => {
            clearTimeout(timer);
            resolve();
          });
        });
      } else {
        const b = await readBody(res.body, 1024 * 1024, Math.min(this.timeoutMs, 15_000));
        result.body = b.text;
        x.bodyBytes = b.bytes;
        x.responseBody = cutBody(b.text);
        if (b.error) x.error = b.error;
        if (b.text.trim()) {
          try {
            const j = JSON.parse(b.text);
            result.messages.push(...(Array.isArray(j) ? [j] : [j]));
          } catch {
            /* not JSON */
          }
        }
      }
    } catch (e) {
      x.error = result.error = (e as Error).message;
    } finally {
      this.aborts.delete(ac);
      x.ms = Math.round(performance.now() - t);
    }
    return result;
  }

  close(): Promise<void> {
    return (this.closePromise ??= this.closeOnce());
  }

  private async closeOnce(): Promise<void> {
    this.closing = true;
    for (const a of this.aborts) a.abort();
    this.aborts.clear();
    if (this.sessionId !== undefined && !this.closed) {
      // End the session as a client should; 405 means the server does not let clients end sessions.
      const headers = this.baseHeaders();
      const x = this.newExchange('delete', 'DELETE', this.url, headers);
      this.deleteExchange = x;
      try {
        const res = await authorizedRequest(
          this.credentials,
          this.url,
          'DELETE',
          headers,
          undefined,
          { timeoutMs: Math.min(this.timeoutMs, 5000), agent: this.agent },
          x,
        );
        x.status = res.status;
        x.responseHeaders = keptHeaders(res.headers);
        const b = await readBody(res.body, 64 * 1024, 2000);
        x.responseBody = cutBody(b.text);
      } catch (e) {
        x.error = (e as Error).message;
      }
    }
    await this.shutdown();
  }
}
