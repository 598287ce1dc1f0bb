/**
 * HTTP+SSE transport (protocol 2024-11-05): a GET opens an SSE stream whose first event, `endpoint`, names the URL to
 * POST messages to (resolved against the stream's URL); the server's messages all arrive as `message` events on that
 * one stream. https://modelcontextprotocol.io/specification/2024-11-05/basic/transports#http-with-sse
 */
import { performance } from 'node:perf_hooks';
import type { HttpInfo } from '../log.js';
import type { Transport } from './types.js';
import type { ServerProcess } from '../start.js';
import type { Credentials } from '../auth/credentials.js';
import {
  HttpTransportBase,
  SseParser,
  authorizedRequest,
  cutBody,
  header,
  isUnreachable,
  keptHeaders,
  readBody,
  recordEvent,
  redactUrl,
  MAX_EXCHANGE_EVENTS,
  type HttpExchange,
  type RawResponse,
} from './http-base.js';
import { cut } from '../text.js';

export interface SseOptions {
  url: URL;
  headers?: Record<string, string>;
  proc?: ServerProcess;
  /** Bound for the status line and for the endpoint event (ms). */
  timeoutMs?: number;
  maxMessageBytes?: number;
  /** What gets the run past a protected server: its token goes on the stream's GET and every POST. */
  credentials?: Credentials;
}

export class SseTransport extends HttpTransportBase implements Transport {
  readonly kind = 'sse' as const;
  /** The stream exchange, and what was seen on it. */
  stream?: HttpExchange;
  /** The data of the endpoint event as sent, and the URL it resolved to. */
  endpoint?: { raw: string; url?: string; event: number; problem?: string };
  /** The first event the stream carried (should be endpoint). */
  firstEvent?: string;
  /** Why and when the stream ended (if it did before the harness closed it). */
  streamEnded?: { reason: string; t: number };
  /** Events whose type is neither endpoint nor message. */
  readonly otherEvents: { event: string; id?: string; data: string }[] = [];
  private readonly maxBytes: number;
  private postUrl?: URL;

  constructor(opts: SseOptions) {
    super(opts.url, opts.headers ?? {}, opts.proc, opts.timeoutMs, opts.credentials);
    this.maxBytes = opts.maxMessageBytes ?? 64 * 1024 * 1024;
  }

  async start(): Promise<void> {
    if (this.proc) await this.proc.start(this.url);
    const headers = { ...this.userHeaders(), Accept: 'text/event-stream' };
    const x = this.newExchange('sse-stream', 'GET', this.url, headers);
    this.stream = x;
    const ac = this.abortable();
    let res: RawResponse;
    try {
      res = await authorizedRequest(
        this.credentials,
        this.url,
        'GET',
        headers,
        undefined,
        { timeoutMs: this.timeoutMs, signal: ac.signal, agent: this.agent },
        x,
      );
    } catch (e) {
      x.error = (e as Error).message;
      throw new Error(`could not open the SSE stream at ${this.shownUrl}: ${(e as Error).message}`);
    }
    x.status = res.status;
    x.statusText = res.statusText;
    x.responseHeaders = keptHeaders(res.headers);
    this.noteRefusal(res, 'GET');
    const ct = header(res.headers, 'content-type') ?? '';
    if (res.status !== 200 || !ct.toLowerCase().startsWith('text/event-stream')) {
      const b = await readBody(res.body, 64 * 1024, 5000);
      x.responseBody = cutBody(b.text);
      throw new Error(
        `GET ${this.shownUrl} did not open an SSE stream: HTTP ${res.status} ${res.statusText}, Content-Type ${ct || '(none)'}${b.text.trim() ? `: ${cut(b.text.replace(/\s+/g, ' '), 200)}` : ''}`,
      );
    }
    x.events = [];
    const from: HttpInfo = { exchange: x.n, method: 'GET', url: this.shownUrl, status: res.status, contentType: ct };
    await new Promise<void>((resolve, reject) => {
      let gotEndpoint = false;
      const timer = setTimeout(() => {
        if (gotEndpoint) return;
        reject(
          new Error(
            `the SSE stream at ${this.shownUrl} sent no endpoint event within ${this.timeoutMs} ms${this.firstEvent ? ` (its first event was "${this.firstEvent}")` : ''}`,
          ),
        );
      }, this.timeoutMs);
      const parser = new SseParser(
        (e) => {
          const index = recordEvent(x, e);
          this.firstEvent ??= e.event;
          if (e.event === 'endpoint') {
            if (this.endpoint) {
              this.pushOther({ event: e.event, id: e.id, data: cut(e.data, 200) });
              return;
            }
            this.endpoint = { raw: e.data, event: index };
            try {
              this.postUrl = new URL(e.data.trim(), this.url);
              if (!/^https?:$/.test(this.postUrl.protocol)) throw new Error(`not an http(s) URL`);
              // A relative endpoint inherits the user info of the stream URL: shown redacted.
              this.endpoint.url = redactUrl(this.postUrl);
              gotEndpoint = true;
              clearTimeout(timer);
              resolve();
            } catch (err) {
              this.endpoint.problem = `the endpoint event's data ${JSON.stringify(cut(e.data, 200))} is not a URL: ${(err as Error).message}`;
              clearTimeout(timer);
              reject(new Error(this.endpoint.problem));
            }
            return;
          }
          if (e.event !== 'message') {
            this.pushOther({ event: e.event, id: e.id, data: cut(e.data, 200) });
            return;
          }
          if (e.data === '' && !e.truncated) return;
          const info: HttpInfo = { ...from, sseEvent: e.event, ...(e.id !== undefined ? { sseId: e.id } : {}) };
          const problems: string[] = [];
          if (!gotEndpoint) problems.push('a message event came before the endpoint event');
          if (e.truncated) problems.push(`message longer than ${this.maxBytes} bytes: cut there, the rest dropped`);
          const problem = problems.length ? problems.join('; ') : undefined;
          if (problem) info.problem = problem;
          this.onFrame?.({
            raw: e.data,
            http: info,
            ...(problem ? { problem } : {}),
            ...(e.truncated ? { truncated: true } : {}),
          });
        },
        { maxDataBytes: this.maxBytes },
      );
      let ended = false;
      const end = (why: string) => {
        if (ended) return;
        ended = true;
        const partial = parser.end();
        const reason =
          partial !== undefined
            ? `${why}; it ended in the middle of an event, which is void: ${cut(partial, 200)}`
            : why;
        x.error = reason;
        clearTimeout(timer);
        if (!gotEndpoint)
          reject(new Error(`the SSE stream at ${this.shownUrl} ended before its endpoint event: ${reason}`));
        if (!this.closing) {
          this.streamEnded = { reason, t: Math.round(performance.now() - this.t0) };
          this.finish(`the SSE stream ended: ${reason}`);
        }
      };
      res.body.on('data', (b: Buffer) => parser.feed(b));
      res.body.on('end', () => end('the server ended the SSE stream'));
      res.body.on('error', (e) => end(`the SSE stream broke off: ${e.message}`));
      res.body.on('close', () => end('the SSE connection closed'));
    });
  }

  send(raw: string): HttpInfo | void {
    if (this.closed || this.closing || !this.postUrl) return;
    let id: string | number | undefined;
    try {
      const j = JSON.parse(raw) as Record<string, unknown>;
      if (j && typeof j === 'object' && typeof j.method === 'string' && 'id' in j) id = j.id as string | number;
    } catch {
      /* sent as is */
    }
    const headers = { ...this.userHeaders(), 'Content-Type': 'application/json' };
    const url = this.postUrl;
    const x = this.newExchange('message', 'POST', url, headers, raw);
    const info: HttpInfo = { exchange: x.n, method: 'POST', url: x.url };
    void (async () => {
      const ac = this.abortable();
      const t = performance.now();
      try {
        const res = await authorizedRequest(
          this.credentials,
          url,
          'POST',
          headers,
          raw,
          { timeoutMs: this.timeoutMs, signal: ac.signal, agent: this.agent },
          x,
        );
        x.status = info.status = res.status;
        x.statusText = res.statusText;
        x.responseHeaders = keptHeaders(res.headers);
        this.noteRefusal(res, 'POST');
        const ct = header(res.headers, 'content-type');
        if (ct) info.contentType = ct;
        const b = await readBody(res.body, 64 * 1024, this.timeoutMs);
        x.bodyBytes = info.bodyBytes = b.bytes;
        x.responseBody = cutBody(b.text);
        if (res.status >= 300 && id !== undefined && !this.closing) {
          this.onRequestFailed?.(
            id,
            `the POST to ${x.url} was refused: HTTP ${res.status} ${res.statusText}${b.text.trim() ? `: ${cut(b.text.replace(/\s+/g, ' '), 200)}` : ''}`,
          );
        }
      } catch (e) {
        const err = e as NodeJS.ErrnoException;
        // Cut by the run's own end (close() aborts what is still under way; the answer may well have come on the
        // stream already): no problem of the server's, so the message carries none (sse/post-accepted skips it).
        if (this.closing) {
          x.error = `${err.message} (the run ended before the POST was answered)`;
          return;
        }
        x.error = info.problem = err.message;
        if (isUnreachable(err)) this.finish(`the server cannot be reached: ${err.message}`);
        else if (id !== undefined) this.onRequestFailed?.(id, `the POST failed: ${err.message}`);
      } finally {
        this.aborts.delete(ac);
        x.ms = Math.round(performance.now() - t);
      }
    })();
    return info;
  }

  close(): Promise<void> {
    return (this.closePromise ??= this.shutdown());
  }

  /**
   * A second GET of the stream URL with extra headers (a probe: its own connection, recorded as an exchange): the
   * status, the Content-Type, and — when a stream opened — the first event (read for at most `streamMs`), then closed.
   */
  async probeStream(
    extra: Record<string, string>,
    opts: { streamMs?: number; post?: string } = {},
  ): Promise<{
    exchange: HttpExchange;
    status?: number;
    contentType?: string;
    firstEvent?: { event: string; data: string };
    body?: string;
    error?: string;
    post?: { exchange: HttpExchange; status?: number; error?: string };
  }> {
    const streamMs = opts.streamMs ?? 2000;
    const headers = { ...this.userHeaders(), Accept: 'text/event-stream', ...extra };
    const x = this.newExchange('probe', 'GET', this.url, headers);
    const ac = this.abortable();
    const t = performance.now();
    try {
      const res = await authorizedRequest(
        this.credentials,
        this.url,
        'GET',
        headers,
        undefined,
        { timeoutMs: Math.min(this.timeoutMs, 15_000), signal: ac.signal, agent: false },
        x,
      );
      x.status = res.status;
      x.statusText = res.statusText;
      x.responseHeaders = keptHeaders(res.headers);
      const ct = header(res.headers, 'content-type');
      if (res.status === 200 && (ct ?? '').toLowerCase().startsWith('text/event-stream')) {
        x.events = [];
        const first = await new Promise<{ event: string; data: string } | undefined>((resolve) => {
          const timer = setTimeout(() => resolve(undefined), streamMs);
          const parser = new SseParser((e) => {
            recordEvent(x, e);
            clearTimeout(timer);
            resolve({ event: e.event, data: cut(e.data, 200) });
          });
          res.body.on('data', (b: Buffer) => parser.feed(b));
          res.body.on('close', () => {
            clearTimeout(timer);
            resolve(undefined);
          });
          res.body.on('error', () => {
            clearTimeout(timer);
            resolve(undefined);
          });
        });
        // With `post`: that body POSTed, with the same headers, to the endpoint this stream named (its own session).
        let post: { exchange: HttpExchange; status?: number; error?: string } | undefined;
        if (opts.post !== undefined && first?.event === 'endpoint') {
          let to: URL | undefined;
          try {
            to = new URL(first.data.trim(), this.url);
          } catch {
            to = undefined;
          }
          if (to && /^https?:$/.test(to.protocol)) {
            const ph = { ...this.userHeaders(), 'Content-Type': 'application/json', ...extra };
            const px = this.newExchange('probe', 'POST', to, ph, opts.post);
            const t1 = performance.now();
            try {
              const pr = await authorizedRequest(
                this.credentials,
                to,
                'POST',
                ph,
                opts.post,
                { timeoutMs: Math.min(this.timeoutMs, 15_000), signal: ac.signal, agent: false },
                px,
              );
              px.status = pr.status;
              px.statusText = pr.statusText;
              const pb = await readBody(pr.body, 64 * 1024, 5000);
              px.responseBody = cutBody(pb.text);
              post = { exchange: px, status: pr.status };
            } catch (e) {
              px.error = (e as Error).message;
              post = { exchange: px, error: px.error };
            } finally {
              px.ms = Math.round(performance.now() - t1);
            }
          }
        }
        res.body.destroy();
        return {
          exchange: x,
          status: res.status,
          ...(ct ? { contentType: ct } : {}),
          ...(first ? { firstEvent: first } : {}),
          ...(post ? { post } : {}),
        };
      }
      const b = await readBody(res.body, 64 * 1024, 5000);
      x.responseBody = cutBody(b.text);
      return { exchange: x, status: res.status, ...(ct ? { contentType: ct } : {}), body: b.text };
    } catch (e) {
      x.error = (e as Error).message;
      return { exchange: x, error: x.error };
    } finally {
      this.aborts.delete(ac);
      x.ms = Math.round(performance.now() - t);
    }
  }

  /** Other events are kept (cut) for the report, as many as the exchange lists. */
  private pushOther(e: { event: string; id?: string; data: string }): void {
    if (this.otherEvents.length < MAX_EXCHANGE_EVENTS) this.otherEvents.push(e);
  }
}
