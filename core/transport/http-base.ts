/**
 * HTTP plumbing shared by the Streamable HTTP transport (http.ts), the HTTP+SSE transport (sse.ts) and --url's
 * detection (detect.ts): one request on node:http / node:https with its bounds, bodies read within limits, the headers
 * kept and redacted, network errors in words, the record of an exchange, and the bookkeeping both transports share.
 */
import http, { type IncomingHttpHeaders, type IncomingMessage } from 'node:http';
import https from 'node:https';
import { performance } from 'node:perf_hooks';
import type { ProcessInfo } from '../results.js';
import type { IncomingFrame, TransportClosed } from './types.js';
import type { ServerProcess } from '../start.js';
import type { SseEvent } from './sse-parser.js';
import type { Credentials } from '../auth/credentials.js';
import { cut } from '../text.js';
import { redactHeaders, redactUrl } from '../secrets.js';
import { portOf } from '../urls.js';

// Headers given with --header are sent as given and never written in clear: the rule and the redaction are in
// core/secrets.ts (re-exported here for the transports that import them from here), the parser in core/headers.ts.
export { redactHeaders, redactUrl } from '../secrets.js';

// Server-sent events: the parser is in sse-parser.ts (re-exported here for the modules that import it from here).
export { SseParser, type SseEvent, type SseParserOptions } from './sse-parser.js';

// ---------------------------------------------------------------------------------------------------------------
// One HTTP exchange, on node:http / node:https.

export interface HttpExchange {
  /** Position in report.http.exchanges. */
  n: number;
  /** ms since the transport was created. */
  t: number;
  purpose: 'message' | 'get-stream' | 'resume' | 'delete' | 'probe' | 'sse-stream' | 'detect';
  method: string;
  url: string;
  /** Request headers as sent (secret ones redacted). */
  requestHeaders: Record<string, string>;
  /** The body sent, cut at 2 kB. */
  requestBody?: string;
  status?: number;
  statusText?: string;
  /** The response headers that matter: content-type, mcp-session-id, mcp-protocol-version, allow, location. */
  responseHeaders?: Record<string, string>;
  /** Non-stream response body, cut at 2 kB. */
  responseBody?: string;
  bodyBytes?: number;
  /** SSE events seen on this exchange (name and id; the data is in the message log), the first MAX_EXCHANGE_EVENTS. */
  events?: SseEventRecord[];
  /** SSE events past MAX_EXCHANGE_EVENTS: counted, not listed. */
  eventsOmitted?: number;
  /** How the exchange ended, and anything that went wrong on the wire. */
  error?: string;
  ms?: number;
  /**
   * With credentials: the request was sent again with a new token after the server refused the first (the status it
   * refused with and why: 'token refreshed after 401', 'stepped up after 403 insufficient_scope').
   */
  authRetry?: { firstStatus: number; reason: string };
  /** A resumption (GET with Last-Event-ID): the exchange whose stream it resumes. */
  resumes?: number;
}

export interface SseEventRecord {
  event: string;
  id?: string;
  dataBytes: number;
  retry?: number;
  truncated?: boolean;
}

/** Events listed per exchange; a long-lived stream may carry any number, and the report must stay bounded. */
export const MAX_EXCHANGE_EVENTS = 10_000;

/** Note an SSE event on its exchange (listed up to MAX_EXCHANGE_EVENTS, counted after). Returns its index in the list, or -1. */
export function recordEvent(x: HttpExchange, e: SseEvent): number {
  const list = (x.events ??= []);
  if (list.length >= MAX_EXCHANGE_EVENTS) {
    x.eventsOmitted = (x.eventsOmitted ?? 0) + 1;
    return -1;
  }
  list.push({
    event: e.event,
    ...(e.id !== undefined ? { id: e.id } : {}),
    dataBytes: Buffer.byteLength(e.data),
    ...(e.retry !== undefined ? { retry: e.retry } : {}),
    ...(e.truncated ? { truncated: true } : {}),
  });
  return list.length - 1;
}

/** A refusal for want of authorization: the status, the request it answered and its challenge. */
export interface AuthRefusal {
  status: number;
  method: string;
  wwwAuthenticate?: string;
}

export interface RawResponse {
  status: number;
  statusText: string;
  headers: IncomingHttpHeaders;
  body: IncomingMessage;
}

const KEPT_RESPONSE_HEADERS = [
  'content-type',
  'mcp-session-id',
  'mcp-protocol-version',
  'allow',
  'location',
  'content-length',
  'www-authenticate',
];

export function keptHeaders(h: IncomingHttpHeaders): Record<string, string> {
  const out: Record<string, string> = {};
  for (const k of KEPT_RESPONSE_HEADERS) {
    const v = h[k];
    if (v !== undefined) out[k] = Array.isArray(v) ? v.join(', ') : v;
  }
  return out;
}

export function header(h: IncomingHttpHeaders, name: string): string | undefined {
  const v = h[name.toLowerCase()];
  return Array.isArray(v) ? v.join(', ') : v;
}

/** Plain words for a failed connection. */
export function describeNetError(e: NodeJS.ErrnoException, url: URL): string {
  const where = `${url.hostname}:${portOf(url)}`;
  switch (e.code) {
    case 'ECONNREFUSED':
      return `connection refused at ${where} (is the server running and listening there?)`;
    case 'ENOTFOUND':
    case 'EAI_AGAIN':
      return `DNS lookup of ${url.hostname} failed (${e.code})`;
    case 'ECONNRESET':
      return `the server reset the connection (${where})`;
    case 'EHOSTUNREACH':
    case 'ENETUNREACH':
      return `${where} is unreachable (${e.code})`;
    case 'ETIMEDOUT':
      return `connecting to ${where} timed out`;
    default:
      if (e.code && /CERT|TLS|SSL|SELF_SIGNED|ERR_SSL/.test(e.code))
        return `TLS error talking to ${where}: ${e.message} (${e.code})`;
      return `${e.message}${e.code ? ` (${e.code})` : ''}`;
  }
}

/** A network failure that means the server cannot be reached at all (as opposed to one broken exchange). */
export function isUnreachable(e: NodeJS.ErrnoException): boolean {
  return (
    ['ECONNREFUSED', 'ENOTFOUND', 'EAI_AGAIN', 'EHOSTUNREACH', 'ENETUNREACH'].includes(e.code ?? '') ||
    /CERT|TLS|SSL|SELF_SIGNED/.test(e.code ?? '')
  );
}

const agentOpts = { keepAlive: true, maxSockets: 16 };

/**
 * Send one HTTP request; resolves when the status line and headers are in (bounded by timeoutMs), with the body as
 * a stream. Rejects with a plain-words Error (its `code` kept) on network failure.
 */
export async function httpRequest(
  url: URL,
  method: string,
  headers: Record<string, string>,
  body: string | undefined,
  opts: { timeoutMs: number; signal?: AbortSignal; agent?: http.Agent | false },
): Promise<RawResponse> {
  try {
    return await httpRequestOnce(url, method, headers, body, opts);
  } catch (e) {
    // A kept-alive connection the server closed (idle too long) just as it was reused: the server never read the
    // request, so it is sent once more, on a new connection (what Node's documentation advises for reusedSocket).
    if (!(e as { staleSocket?: boolean }).staleSocket || opts.agent === false) throw e;
    return httpRequestOnce(url, method, headers, body, { ...opts, agent: false });
  }
}

/** A copy of headers without the user's Authorization (any case) and with `Authorization: Bearer token`. */
export function withBearer(headers: Record<string, string>, token: string): Record<string, string> {
  const h: Record<string, string> = {};
  for (const [k, v] of Object.entries(headers)) if (k.toLowerCase() !== 'authorization') h[k] = v;
  h.Authorization = `Bearer ${token}`;
  return h;
}

/** Whether a 403's challenge names error="insufficient_scope" (RFC 6750 §3.1). */
export function isInsufficientScope(wwwAuthenticate: string | undefined): boolean {
  return /(^|[\s,])error\s*=\s*"?insufficient_scope"?/i.test(wwwAuthenticate ?? '');
}

/**
 * What a request refused with the run's token may try once more: a 401 renews the token (onUnauthorized), a 403
 * error="insufficient_scope" steps up (onInsufficientScope). undefined when neither applies; get() resolves to the new
 * token, or undefined when there is none other than the refused one (a failure to get one included).
 */
export function renewal(
  credentials: Credentials,
  status: number,
  wwwAuthenticate: string | undefined,
  refused: string,
): { reason: string; get: () => Promise<string | undefined> } | undefined {
  const other = (p: Promise<string | undefined>) =>
    p.then(
      (t) => (t === refused ? undefined : t),
      () => undefined,
    );
  if (status === 401 && credentials.onUnauthorized)
    return {
      reason: 'token renewed after 401',
      get: () => other(credentials.onUnauthorized!(wwwAuthenticate, refused)),
    };
  if (status === 403 && credentials.onInsufficientScope && isInsufficientScope(wwwAuthenticate))
    return {
      reason: 'stepped up after 403 insufficient_scope',
      get: () => other(credentials.onInsufficientScope!(wwwAuthenticate!)),
    };
  return undefined;
}

/**
 * Send one HTTP request carrying the run's token (when there are credentials and the caller has not set its own
 * Authorization: `own`): `Authorization: Bearer <accessToken()>`. A 401 to it calls onUnauthorized once, a 403 with
 * error="insufficient_scope" calls onInsufficientScope once; a new token is tried once more. The exchange record (if
 * given) gets the headers as sent (redacted) and, after a retry, authRetry. Without credentials: httpRequest.
 */
export async function authorizedRequest(
  credentials: Credentials | undefined,
  url: URL,
  method: string,
  headers: Record<string, string>,
  body: string | undefined,
  opts: { timeoutMs: number; signal?: AbortSignal; agent?: http.Agent | false; own?: boolean },
  x?: HttpExchange,
): Promise<RawResponse> {
  const token = credentials && !opts.own ? await credentials.accessToken() : undefined;
  if (token === undefined) return httpRequest(url, method, headers, body, opts);
  let sent = withBearer(headers, token);
  if (x) x.requestHeaders = redactHeaders(sent)!;
  const res = await httpRequest(url, method, sent, body, opts);
  const retry = renewal(credentials!, res.status, header(res.headers, 'www-authenticate'), token);
  if (!retry) return res;
  const again = await retry.get();
  if (again === undefined) return res;
  res.body.resume();
  sent = withBearer(headers, again);
  if (x) {
    x.requestHeaders = redactHeaders(sent)!;
    x.authRetry = { firstStatus: res.status, reason: retry.reason };
  }
  return httpRequest(url, method, sent, body, opts);
}

function httpRequestOnce(
  url: URL,
  method: string,
  headers: Record<string, string>,
  body: string | undefined,
  opts: { timeoutMs: number; signal?: AbortSignal; agent?: http.Agent | false },
): Promise<RawResponse> {
  return new Promise((resolve, reject) => {
    const mod = url.protocol === 'https:' ? https : http;
    const h: Record<string, string | number> = { ...headers };
    if (body !== undefined) h['Content-Length'] = Buffer.byteLength(body);
    let settled = false;
    const req = mod.request(url, { method, headers: h, agent: opts.agent, signal: opts.signal }, (res) => {
      settled = true;
      clearTimeout(timer);
      // A server that refuses a request may do so before it has read the body; the unread body would then be the
      // start of the next request on a kept-alive connection. After a refusal the connection is not used again.
      if ((res.statusCode ?? 0) >= 300) req.shouldKeepAlive = false;
      resolve({ status: res.statusCode ?? 0, statusText: res.statusMessage ?? '', headers: res.headers, body: res });
    });
    const timer = setTimeout(() => {
      if (settled) return;
      settled = true;
      req.destroy();
      const e = new Error(
        `no answer (status line) from ${url.host} within ${opts.timeoutMs} ms`,
      ) as NodeJS.ErrnoException;
      e.code = 'ETIMEDOUT_HEADERS';
      reject(e);
    }, opts.timeoutMs);
    req.on('error', (e: NodeJS.ErrnoException) => {
      clearTimeout(timer);
      if (settled) return;
      settled = true;
      const err = new Error(e.name === 'AbortError' ? 'aborted' : describeNetError(e, url)) as NodeJS.ErrnoException & {
        staleSocket?: boolean;
      };
      err.code = e.name === 'AbortError' ? 'ABORT_ERR' : e.code;
      if (req.reusedSocket && (e.code === 'ECONNRESET' || e.code === 'EPIPE')) err.staleSocket = true;
      reject(err);
    });
    if (body !== undefined) req.write(body);
    req.end();
  });
}

/** Read a whole (non-stream) body, bounded in size and time. */
export function readBody(
  res: IncomingMessage,
  maxBytes: number,
  timeoutMs: number,
): Promise<{ text: string; bytes: number; cut: boolean; error?: string }> {
  return new Promise((resolve) => {
    const chunks: Buffer[] = [];
    let bytes = 0;
    let cut = false;
    let done = false;
    const finish = (error?: string) => {
      if (done) return;
      done = true;
      clearTimeout(timer);
      resolve({ text: Buffer.concat(chunks).toString('utf8'), bytes, cut, ...(error ? { error } : {}) });
    };
    const timer = setTimeout(() => {
      finish(`the body did not end within ${timeoutMs} ms`);
      res.destroy();
    }, timeoutMs);
    res.on('data', (b: Buffer) => {
      bytes += b.length;
      if (bytes > maxBytes) {
        cut = true;
        const room = maxBytes - (bytes - b.length);
        if (room > 0) chunks.push(b.subarray(0, room));
        res.destroy();
        finish(`body longer than ${maxBytes} bytes: cut there`);
        return;
      }
      chunks.push(b);
    });
    res.on('end', () => finish());
    res.on('error', (e) => finish(`the body broke off: ${e.message}`));
    res.on('close', () => finish(res.complete ? undefined : 'the connection closed before the body was complete'));
  });
}

/** The most of an exchange's request or response body kept in the report (characters). */
export const EXCHANGE_BODY_CHARS = 2048;

/** A body as the report keeps it: cut to EXCHANGE_BODY_CHARS. */
export function cutBody(s: string): string {
  return cut(s, EXCHANGE_BODY_CHARS);
}

/** Bookkeeping shared by both HTTP transports: the exchange list, the started process, close info. */
export abstract class HttpTransportBase {
  closed = false;
  closeInfo?: TransportClosed;
  onFrame?: (frame: IncomingFrame) => void;
  onClose?: (info: TransportClosed) => void;
  onRequestFailed?: (id: string | number, reason: string) => void;
  readonly exchanges: HttpExchange[] = [];
  protected readonly t0 = performance.now();
  protected closing = false;
  protected readonly aborts = new Set<AbortController>();
  protected readonly agent: http.Agent;
  /** The URL as reports and messages may show it (redactUrl). */
  protected readonly shownUrl: string;
  /** The one close in progress: a second close() waits for the same. */
  protected closePromise?: Promise<void>;
  /** The first refusal for want of authorization (401, or 403 insufficient_scope) the run's own requests met. */
  authRequired?: AuthRefusal;

  constructor(
    readonly url: URL,
    protected readonly headers: Record<string, string>,
    protected readonly proc?: ServerProcess,
    protected readonly timeoutMs = 30_000,
    readonly credentials?: Credentials,
  ) {
    this.agent = url.protocol === 'https:' ? new https.Agent(agentOpts) : new http.Agent(agentOpts);
    this.shownUrl = redactUrl(url);
    proc?.onExit((reason) => this.finish(reason));
  }

  processInfo(): ProcessInfo | undefined {
    return this.proc?.info();
  }

  httpExchanges(): HttpExchange[] {
    // Exchanges pushed from outside (the detection probes of --url) get the same redaction as our own.
    for (const x of this.exchanges) x.url = redactUrl(x.url);
    return this.exchanges;
  }

  protected now(): number {
    return Math.round((performance.now() - this.t0) * 1000) / 1000;
  }

  protected newExchange(
    purpose: HttpExchange['purpose'],
    method: string,
    url: URL,
    headers: Record<string, string>,
    body?: string,
  ): HttpExchange {
    const x: HttpExchange = {
      n: this.exchanges.length,
      t: this.now(),
      purpose,
      method,
      url: url === this.url ? this.shownUrl : redactUrl(url),
      requestHeaders: redactHeaders(headers)!,
    };
    if (body !== undefined) x.requestBody = cutBody(body);
    this.exchanges.push(x);
    return x;
  }

  protected abortable(): AbortController {
    const a = new AbortController();
    this.aborts.add(a);
    return a;
  }

  protected finish(reason: string): void {
    if (this.closed) return;
    this.closed = true;
    this.closeInfo = {
      reason,
      stderrTail: this.proc?.info().stderr.slice(-20) ?? [],
      exitCode: this.proc?.info().exitCode,
      signal: this.proc?.info().signal,
    };
    this.onClose?.(this.closeInfo);
  }

  /** Abort every open exchange, stop the started process, end. */
  protected async shutdown(): Promise<void> {
    this.closing = true;
    for (const a of this.aborts) a.abort();
    this.aborts.clear();
    this.agent.destroy();
    this.finish('the harness closed the connection');
    await this.proc?.stop();
  }

  /** Note a refusal for want of authorization (the run reports it as such: core/auth/required.ts). */
  protected noteRefusal(res: RawResponse, method: string): void {
    if (this.authRequired) return;
    const www = header(res.headers, 'www-authenticate');
    if (res.status === 401 || (res.status === 403 && isInsufficientScope(www)))
      this.authRequired = { status: res.status, method, ...(www !== undefined ? { wwwAuthenticate: www } : {}) };
  }

  protected userHeaders(): Record<string, string> {
    return { ...this.headers };
  }
}
