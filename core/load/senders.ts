/**
 * How a load client sends one request and gets its answer, two ways:
 * - over a Session (stdio: the session's own matching of answers by id, every message logged and checked);
 * - over Streamable HTTP, lean: after the handshake (made with a Session: negotiation, session id), each request is a
 *   POST on the client's own keep-alive agent and its answer (a JSON body or the SSE stream's message with its id) is
 *   checked against the schema as it comes, with nothing logged. The load generator is then not the bottleneck
 *   (bench/bench.mjs: load against autocannon).
 */
import http from 'node:http';
import https from 'node:https';
import { SessionError, type Session } from '../session.js';
import { httpRequest, readBody, SseParser } from '../transport/http.js';
import { headerSafe } from '../param-headers.js';
import type { MessageValidator } from '../schema/validator.js';

/** What became of one request. */
export interface SendOutcome {
  result?: Record<string, unknown>;
  error?: { code: number; message?: string };
  /** The answer broke the schema of the version in force. */
  invalid?: boolean;
  /** The answer named another id than the request's. */
  otherId?: unknown;
}

/** A request that got no answer: its error kind (timeout, http-503, connection-reset, …) and why. */
export class SendFailure extends Error {
  constructor(readonly kind: string, message: string) {
    super(message);
  }
}

export interface Sender {
  send(msg: Record<string, unknown>, timeoutMs: number): Promise<SendOutcome>;
  readonly closed: boolean;
  /** The session behind it (for stdio, and to trim its log). */
  readonly session?: Session;
}

/** The error kind of a failure from a Session. */
export function sessionFailureKind(e: unknown): string {
  if (e instanceof SessionError) {
    if (e.kind === 'timeout' || e.kind === 'unresponsive') return 'timeout';
    if (e.kind === 'too-large') return 'too-large';
    const status = /HTTP (\d{3})/.exec(e.message);
    if (status) return `http-${status[1]}`;
    if (/reset|ECONNRESET|EPIPE|socket hang up/i.test(e.message)) return 'connection-reset';
    if (e.kind === 'closed') return 'connection-closed';
    return 'transport';
  }
  return e instanceof SendFailure ? e.kind : 'internal';
}

export function sessionSender(session: Session): Sender {
  return {
    session,
    get closed() { return session.closed; },
    async send(msg, timeoutMs) {
      try {
        const reply = await session.sendRequest(msg, { timeoutMs });
        const s = reply.response.schema;
        return { ...(reply.result ? { result: reply.result } : {}), ...(reply.error ? { error: reply.error } : {}), ...(s.checked && !s.valid ? { invalid: true } : {}) };
      } catch (e) {
        throw new SendFailure(sessionFailureKind(e), (e as Error).message);
      }
    },
  };
}

export interface HttpSenderOptions {
  url: URL;
  /** Headers every POST carries: the user's, the session id, the protocol version. */
  headers: Record<string, string>;
  /** 2026-07-28: the method (and name) mirrored into headers, and `_meta` in every request. */
  requestMeta?: Record<string, unknown>;
  validator: MessageValidator;
  maxMessageBytes?: number;
}

const ERRNO_KIND: Record<string, string> = { ECONNRESET: 'connection-reset', EPIPE: 'connection-reset', ECONNREFUSED: 'connection-refused', ETIMEDOUT_HEADERS: 'timeout' };

export class HttpSender implements Sender {
  closed = false;
  private readonly agent: http.Agent;

  constructor(private readonly o: HttpSenderOptions) {
    this.agent = o.url.protocol === 'https:' ? new https.Agent({ keepAlive: true, maxSockets: 64 }) : new http.Agent({ keepAlive: true, maxSockets: 64 });
  }

  close(): void {
    this.closed = true;
    this.agent.destroy();
  }

  async send(msg: Record<string, unknown>, timeoutMs: number): Promise<SendOutcome> {
    const method = String(msg.method);
    if (this.o.requestMeta) {
      const p = (msg.params ?? {}) as Record<string, unknown>;
      msg = { ...msg, params: { ...p, _meta: { ...this.o.requestMeta, ...((p._meta as Record<string, unknown>) ?? {}) } } };
    }
    const headers: Record<string, string> = { ...this.o.headers, 'Content-Type': 'application/json', Accept: 'application/json, text/event-stream' };
    if (this.o.requestMeta) {
      headers['Mcp-Method'] = method;
      const p = msg.params as Record<string, unknown> | undefined;
      const name = typeof p?.name === 'string' ? p.name : typeof p?.uri === 'string' ? p.uri : undefined;
      if (name !== undefined && ['tools/call', 'resources/read', 'prompts/get'].includes(method)) headers['Mcp-Name'] = headerSafe(name);
    }
    const ac = new AbortController();
    const timer = setTimeout(() => ac.abort(), timeoutMs);
    try {
      let res;
      try {
        res = await httpRequest(this.o.url, 'POST', headers, JSON.stringify(msg), { timeoutMs, agent: this.agent, signal: ac.signal });
      } catch (e) {
        const err = e as NodeJS.ErrnoException;
        if (ac.signal.aborted || err.code === 'ABORT_ERR') throw new SendFailure('timeout', `no answer within ${timeoutMs} ms`);
        throw new SendFailure(ERRNO_KIND[err.code ?? ''] ?? 'transport', err.message);
      }
      const ct = String(res.headers['content-type'] ?? '').split(';')[0]!.trim().toLowerCase();
      if (res.status < 200 || res.status >= 300) {
        res.body.resume();
        throw new SendFailure(`http-${res.status}`, `HTTP ${res.status} ${res.statusText}`);
      }
      let answer: unknown;
      if (ct === 'text/event-stream') answer = await this.readSse(res.body, msg.id, ac.signal);
      else {
        const body = await readBody(res.body, this.o.maxMessageBytes ?? 64 * 1024 * 1024, timeoutMs);
        if (ac.signal.aborted) throw new SendFailure('timeout', `no answer within ${timeoutMs} ms`);
        if (body.error && !body.text) throw new SendFailure('connection-reset', body.error);
        try { answer = JSON.parse(body.text); } catch { throw new SendFailure('invalid-message', `the answer is not JSON: ${body.text.slice(0, 120)}`); }
      }
      return this.judge(answer, msg, method);
    } finally {
      clearTimeout(timer);
    }
  }

  private readSse(body: NodeJS.ReadableStream & { destroy(): void }, id: unknown, signal: AbortSignal): Promise<unknown> {
    return new Promise((resolve, reject) => {
      let done = false;
      const finish = (f: () => void) => { if (!done) { done = true; signal.removeEventListener('abort', onAbort); f(); } };
      const onAbort = () => { body.destroy(); finish(() => reject(new SendFailure('timeout', 'no answer on the SSE stream in time'))); };
      signal.addEventListener('abort', onAbort, { once: true });
      const parser = new SseParser((e) => {
        if (e.event !== 'message' || !e.data) return;
        let m: unknown;
        try { m = JSON.parse(e.data); } catch { return; }
        const r = m as Record<string, unknown> | null;
        if (r && typeof r === 'object' && ('result' in r || 'error' in r)) finish(() => resolve(m));
      });
      body.on('data', (b: Buffer) => parser.feed(b));
      body.on('end', () => finish(() => reject(new SendFailure('connection-reset', 'the SSE stream ended before the answer'))));
      body.on('error', (e: Error) => finish(() => reject(new SendFailure('connection-reset', e.message))));
    });
  }

  private judge(answer: unknown, msg: Record<string, unknown>, method: string): SendOutcome {
    const m = answer as Record<string, unknown> | null;
    if (!m || typeof m !== 'object' || Array.isArray(m) || (!('result' in m) && !('error' in m))) throw new SendFailure('invalid-message', 'the answer is no JSON-RPC response');
    const isError = 'error' in m;
    const verdict = this.o.validator.check({ direction: 'from-server', kind: isError ? 'error' : 'response', method, json: m });
    const out: SendOutcome = {};
    if (!verdict.valid) out.invalid = true;
    if (m.id !== msg.id) out.otherId = m.id;
    if (isError) {
      const e = (m.error ?? {}) as Record<string, unknown>;
      out.error = { code: typeof e.code === 'number' ? e.code : NaN, ...(typeof e.message === 'string' ? { message: e.message } : {}) };
    } else {
      const r = m.result;
      out.result = r !== null && typeof r === 'object' && !Array.isArray(r) ? (r as Record<string, unknown>) : { value: r };
    }
    return out;
  }
}
