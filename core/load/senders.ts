/**
 * How a load client sends one request and gets its answer, two ways:
 * - over a Session (stdio: the session's own matching of answers by id, every message logged and checked);
 * - over Streamable HTTP, lean: after the handshake (made with a Session: negotiation, session id), each request is a
 *   POST on the client's own keep-alive connections (core/load/raw-http.ts) and its answer (a JSON body or the SSE stream's message with its id) is
 *   checked against the schema as it comes, with nothing logged. The load generator is then not the bottleneck
 *   (bench/bench.mjs: load against autocannon).
 */
import { SessionError, type Session } from '../session.js';
import { SseParser } from '../transport/sse-parser.js';
import { RawHttpClient, RawHttpError } from './raw-http.js';
import { headerSafe } from '../param-headers.js';
import { renewal } from '../transport/http-base.js';
import type { MessageValidator } from '../schema/validator.js';
import type { Credentials } from '../auth/credentials.js';

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
  constructor(
    readonly kind: string,
    message: string,
  ) {
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
    get closed() {
      return session.closed;
    },
    async send(msg, timeoutMs) {
      try {
        const reply = await session.sendRequest(msg, { timeoutMs });
        const s = reply.response.schema;
        return {
          ...(reply.result ? { result: reply.result } : {}),
          ...(reply.error ? { error: reply.error } : {}),
          ...(s.checked && !s.valid ? { invalid: true } : {}),
        };
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
  /**
   * The run's credentials (--oauth, --auth-server, a Bearer --header): each POST carries the token accessToken() gives
   * now; a refusal gets one more try with a renewed or stepped-up token (core/transport/http-base.ts renewal).
   */
  credentials?: Credentials;
}

export class HttpSender implements Sender {
  private readonly client: RawHttpClient;

  constructor(private readonly o: HttpSenderOptions) {
    this.client = new RawHttpClient(o.url, {
      ...o.headers,
      'Content-Type': 'application/json',
      Accept: 'application/json, text/event-stream',
    });
  }

  get closed(): boolean {
    return this.client.closed;
  }

  close(): void {
    this.client.close();
  }

  async send(msg: Record<string, unknown>, timeoutMs: number): Promise<SendOutcome> {
    const method = String(msg.method);
    const extra: Record<string, string> = {};
    if (this.o.requestMeta) {
      const p = (msg.params ?? {}) as Record<string, unknown>;
      msg = {
        ...msg,
        params: { ...p, _meta: { ...this.o.requestMeta, ...((p._meta as Record<string, unknown>) ?? {}) } },
      };
      // 2026-07-28: the method (and the name of a named call) mirrored into headers.
      extra['Mcp-Method'] = method;
      const name = typeof p.name === 'string' ? p.name : typeof p.uri === 'string' ? p.uri : undefined;
      if (name !== undefined && ['tools/call', 'resources/read', 'prompts/get'].includes(method))
        extra['Mcp-Name'] = headerSafe(name);
    }
    const body = JSON.stringify(msg);
    const c = this.o.credentials;
    const token = c ? await c.accessToken() : undefined;
    if (token !== undefined) extra.Authorization = `Bearer ${token}`;
    let got = await this.post(body, extra, timeoutMs);
    const retry = c && token !== undefined && renewal(c, got.res.status, got.res.headers['www-authenticate'], token);
    const again = retry ? await retry.get() : undefined;
    if (again !== undefined) got = await this.post(body, { ...extra, Authorization: `Bearer ${again}` }, timeoutMs);
    const { res, sse } = got;
    let { answer } = got;
    if (res.status < 200 || res.status >= 300) throw new SendFailure(`http-${res.status}`, `HTTP ${res.status}`);
    if (answer === undefined) {
      if (sse) throw new SendFailure('connection-reset', 'the SSE stream ended before the answer');
      const text = res.body.toString('utf8');
      try {
        answer = JSON.parse(text);
      } catch {
        throw new SendFailure('invalid-message', `the answer is not JSON: ${text.slice(0, 120)}`);
      }
    }
    return this.judge(answer, msg, method);
  }

  /** One POST: the response, and the answer when it came on an SSE stream. */
  private async post(body: string, extra: Record<string, string>, timeoutMs: number) {
    let answer: unknown;
    let sse: SseParser | undefined;
    const max = this.o.maxMessageBytes ?? 64 * 1024 * 1024;
    let res;
    try {
      res = await this.client.post(body, extra, {
        timeoutMs,
        onData: (b, status, headers) => {
          if (status < 200 || status >= 300 || !/^text\/event-stream/i.test(headers['content-type'] ?? ''))
            return false;
          sse ??= new SseParser(
            (e) => {
              if (answer !== undefined || e.event !== 'message' || !e.data) return;
              try {
                const m = JSON.parse(e.data) as Record<string, unknown> | null;
                if (m && typeof m === 'object' && ('result' in m || 'error' in m)) answer = m;
              } catch {
                /* not JSON: not the answer */
              }
            },
            { maxDataBytes: max },
          );
          sse.feed(b);
          return answer !== undefined ? true : 'consumed';
        },
      });
    } catch (e) {
      if (e instanceof RawHttpError) throw new SendFailure(e.kind, e.message);
      throw new SendFailure('transport', (e as Error).message);
    }
    return { res, sse: sse as SseParser | undefined, answer: answer as unknown };
  }

  private judge(answer: unknown, msg: Record<string, unknown>, method: string): SendOutcome {
    const m = answer as Record<string, unknown> | null;
    if (!m || typeof m !== 'object' || Array.isArray(m) || (!('result' in m) && !('error' in m)))
      throw new SendFailure('invalid-message', 'the answer is no JSON-RPC response');
    const isError = 'error' in m;
    const verdict = this.o.validator.check({
      direction: 'from-server',
      kind: isError ? 'error' : 'response',
      method,
      json: m,
    });
    const out: SendOutcome = {};
    if (!verdict.valid) out.invalid = true;
    if (m.id !== msg.id) out.otherId = m.id;
    if (isError) {
      const e = (m.error ?? {}) as Record<string, unknown>;
      out.error = {
        code: typeof e.code === 'number' ? e.code : NaN,
        ...(typeof e.message === 'string' ? { message: e.message } : {}),
      };
    } else {
      const r = m.result;
      out.result =
        r !== null && typeof r === 'object' && !Array.isArray(r) ? (r as Record<string, unknown>) : { value: r };
    }
    return out;
  }
}
