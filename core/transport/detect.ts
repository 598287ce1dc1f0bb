/**
 * `--url`: find out which HTTP transport a server speaks, as the spec's backwards-compatibility section tells clients
 * to: POST an initialize request to the URL; if that works, it is Streamable HTTP; if it fails with 400, 404 or 405,
 * GET the URL and wait for an `endpoint` event: then it is the old HTTP+SSE transport.
 * https://modelcontextprotocol.io/specification/2025-11-25/basic/transports#backwards-compatibility
 */
import type { HttpInfo } from '../log.js';
import type { ProcessInfo } from '../results.js';
import type { ServerProcess } from '../start.js';
import type { Credentials } from '../auth/credentials.js';
import {
  authorizedRequest,
  cutBody,
  header,
  isInsufficientScope,
  keptHeaders,
  readBody,
  redactHeaders,
  redactUrl,
  SseParser,
  type HttpExchange,
} from './http-base.js';
import { StreamableHttpTransport } from './http.js';
import type { AuthRefusal } from './http-base.js';
import { SseTransport } from './sse.js';
import type { IncomingFrame, Transport, TransportClosed } from './types.js';
import { HEADER } from '../wire.js';

export interface DetectOptions {
  url: URL;
  headers?: Record<string, string>;
  proc?: ServerProcess;
  timeoutMs?: number;
  maxMessageBytes?: number;
  /** The version to offer in the probing initialize. */
  protocolVersion: string;
  clientInfo: { name: string; version: string };
  /** The run's token goes on the probes too (core/auth/credentials.ts). */
  credentials?: Credentials;
}

export interface Detection {
  transport: 'streamable-http' | 'sse';
  /** What was tried, in order, in plain words. */
  steps: string[];
}

/** An AbortController that also aborts when signal does. */
function linked(signal?: AbortSignal): AbortController {
  const a = new AbortController();
  if (!signal) return a;
  if (signal.aborted) a.abort();
  else {
    const f = () => a.abort();
    signal.addEventListener('abort', f, { once: true });
    a.signal.addEventListener('abort', () => signal.removeEventListener('abort', f), { once: true });
  }
  return a;
}

/**
 * Probe the URL. Resolves with the transport found; rejects with what was tried when neither answers, or when
 * signal aborts (every probe in flight is aborted then).
 */
export async function detectTransport(
  o: DetectOptions,
  exchanges: HttpExchange[] = [],
  signal?: AbortSignal,
  onRefusal?: (r: AuthRefusal) => void,
): Promise<Detection> {
  // The URL as reports and messages show it: no password, no secret-looking query values.
  const shown = redactUrl(o.url);
  if (signal?.aborted) throw new Error(`--url ${shown}: detection stopped: the connection was closed`);
  const steps: string[] = [];
  const timeoutMs = Math.min(o.timeoutMs ?? 30_000, 15_000);
  const user = o.headers ?? {};
  const body = JSON.stringify({
    jsonrpc: '2.0',
    id: 'mcp-conform-detect',
    method: 'initialize',
    params: { protocolVersion: o.protocolVersion, capabilities: {}, clientInfo: o.clientInfo },
  });
  const postHeaders = { ...user, 'Content-Type': 'application/json', Accept: 'application/json, text/event-stream' };
  const px: HttpExchange = {
    n: exchanges.length,
    t: 0,
    purpose: 'detect',
    method: 'POST',
    url: shown,
    requestHeaders: redactHeaders(postHeaders)!,
    requestBody: body,
  };
  exchanges.push(px);
  const ac = linked(signal);
  let status: number;
  try {
    const res = await authorizedRequest(
      o.credentials,
      o.url,
      'POST',
      postHeaders,
      body,
      { timeoutMs, signal: ac.signal },
      px,
    );
    status = px.status = res.status;
    px.responseHeaders = keptHeaders(res.headers);
    const ct = (header(res.headers, 'content-type') ?? '').toLowerCase();
    const sid = header(res.headers, HEADER.sessionId);
    if (
      res.status >= 200 &&
      res.status < 300 &&
      (ct.startsWith('application/json') || ct.startsWith('text/event-stream'))
    ) {
      ac.abort(); // the answer itself is not needed
      res.body.destroy();
      steps.push(`POST initialize to ${shown}: HTTP ${res.status} (${ct.split(';')[0]}): Streamable HTTP`);
      if (sid !== undefined) {
        // Leave no session behind: end the one the probe opened (405 is fine: the server keeps sessions itself).
        const dh: Record<string, string> = { ...user, [HEADER.sessionId]: sid };
        const dx: HttpExchange = {
          n: exchanges.length,
          t: 0,
          purpose: 'detect',
          method: 'DELETE',
          url: shown,
          requestHeaders: redactHeaders(dh)!,
        };
        exchanges.push(dx);
        try {
          const d = await authorizedRequest(
            o.credentials,
            o.url,
            'DELETE',
            dh,
            undefined,
            { timeoutMs: 5000, signal },
            dx,
          );
          dx.status = d.status;
          await readBody(d.body, 64 * 1024, 2000);
        } catch (e) {
          dx.error = (e as Error).message;
        }
      }
      return { transport: 'streamable-http', steps };
    }
    const b = await readBody(res.body, 64 * 1024, 5000);
    px.responseBody = cutBody(b.text);
    steps.push(`POST initialize to ${shown}: HTTP ${res.status}${ct ? ` (${ct.split(';')[0]})` : ''}`);
    const www = header(res.headers, 'www-authenticate');
    if (res.status === 401 || (res.status === 403 && isInsufficientScope(www)))
      onRefusal?.({ status: res.status, method: 'POST', ...(www !== undefined ? { wwwAuthenticate: www } : {}) });
  } catch (e) {
    px.error = (e as Error).message;
    throw new Error(`--url ${shown}: ${(e as Error).message}`);
  }
  if (signal?.aborted) throw new Error(`--url ${shown}: detection stopped: the connection was closed`);
  if (![400, 404, 405].includes(status)) {
    throw new Error(
      `--url ${shown}: neither transport answers: ${steps.join('; ')} (only 400, 404 or 405 lead to trying HTTP+SSE)`,
    );
  }
  // The old transport: GET, and the first event must be endpoint.
  const gh = { ...user, Accept: 'text/event-stream' };
  const gx: HttpExchange = {
    n: exchanges.length,
    t: 0,
    purpose: 'detect',
    method: 'GET',
    url: shown,
    requestHeaders: redactHeaders(gh)!,
  };
  exchanges.push(gx);
  const gac = linked(signal);
  try {
    const res = await authorizedRequest(
      o.credentials,
      o.url,
      'GET',
      gh,
      undefined,
      { timeoutMs, signal: gac.signal },
      gx,
    );
    gx.status = res.status;
    gx.responseHeaders = keptHeaders(res.headers);
    const ct = (header(res.headers, 'content-type') ?? '').toLowerCase();
    if (res.status !== 200 || !ct.startsWith('text/event-stream')) {
      const b = await readBody(res.body, 64 * 1024, 5000);
      gx.responseBody = cutBody(b.text);
      steps.push(`GET ${shown}: HTTP ${res.status}${ct ? ` (${ct.split(';')[0]})` : ''}, no SSE stream`);
      throw new Error(`--url ${shown}: neither transport answers: ${steps.join('; ')}`);
    }
    const first = await new Promise<string | undefined>((resolve) => {
      const timer = setTimeout(() => resolve(undefined), timeoutMs);
      const p = new SseParser((e) => {
        clearTimeout(timer);
        resolve(e.event);
      });
      res.body.on('data', (b: Buffer) => p.feed(b));
      res.body.on('close', () => {
        clearTimeout(timer);
        resolve(undefined);
      });
      gac.signal.addEventListener(
        'abort',
        () => {
          clearTimeout(timer);
          resolve(undefined);
        },
        { once: true },
      );
      res.body.on('error', () => undefined);
    });
    gac.abort();
    res.body.destroy();
    if (first !== 'endpoint') {
      steps.push(`GET ${shown}: an SSE stream whose first event was ${first ? `"${first}"` : 'none'}, not endpoint`);
      throw new Error(`--url ${shown}: neither transport answers: ${steps.join('; ')}`);
    }
    steps.push(`GET ${shown}: SSE stream with an endpoint event first: HTTP+SSE`);
    return { transport: 'sse', steps };
  } catch (e) {
    if ((e as Error).message.startsWith('--url')) throw e;
    gx.error = (e as Error).message;
    throw new Error(`--url ${shown}: ${steps.join('; ')}; GET failed: ${(e as Error).message}`);
  }
}

/** A transport that detects on start and then is the one it found. */
export class DetectingTransport implements Transport {
  onFrame?: (frame: IncomingFrame) => void;
  onClose?: (info: TransportClosed) => void;
  onRequestFailed?: (id: string | number, reason: string) => void;
  inner?: StreamableHttpTransport | SseTransport;
  detection?: Detection;
  private readonly detectExchanges: HttpExchange[] = [];
  private failed?: TransportClosed;
  /** close() was called: no transport is started after it (detection in flight is aborted). */
  private closing = false;
  private readonly stop = new AbortController();
  private wantedVersion?: string;
  private refusal?: AuthRefusal;

  constructor(private readonly o: DetectOptions) {}

  /** The URL being detected (also when no transport was found). */
  get url(): URL {
    return this.o.url;
  }

  /** A refusal for want of authorization: of the detection, or of the transport found. */
  get authRequired(): AuthRefusal | undefined {
    return this.inner?.authRequired ?? this.refusal;
  }

  get kind(): 'streamable-http' | 'sse' {
    return this.inner?.kind ?? this.detection?.transport ?? 'streamable-http';
  }

  get closed(): boolean {
    return this.inner ? this.inner.closed : !!this.failed;
  }

  get closeInfo(): TransportClosed | undefined {
    return this.inner ? this.inner.closeInfo : this.failed;
  }

  /** The version the Streamable HTTP transport found puts in its headers (2026-07-28: on every POST); see negotiate. */
  get protocolVersion(): string | undefined {
    return this.inner instanceof StreamableHttpTransport ? this.inner.protocolVersion : this.wantedVersion;
  }

  set protocolVersion(v: string | undefined) {
    this.wantedVersion = v;
    if (this.inner instanceof StreamableHttpTransport) this.inner.protocolVersion = v;
  }

  private closedBeforeStart(): Error {
    const reason = `--url ${redactUrl(this.o.url)}: the connection was closed before the transport was detected`;
    this.failed ??= { reason, stderrTail: this.o.proc?.info().stderr.slice(-20) ?? [] };
    return new Error(reason);
  }

  async start(): Promise<void> {
    if (this.closing) throw this.closedBeforeStart();
    if (this.o.proc) await this.o.proc.start(this.o.url);
    if (this.closing) throw this.closedBeforeStart();
    try {
      this.detection = await detectTransport(this.o, this.detectExchanges, this.stop.signal, (r) => {
        this.refusal ??= r;
      });
    } catch (e) {
      if (this.closing) throw this.closedBeforeStart();
      this.failed = { reason: (e as Error).message, stderrTail: this.o.proc?.info().stderr.slice(-20) ?? [] };
      throw e;
    }
    // Closed while detecting: connect nothing (close() has stopped the process, if any).
    if (this.closing) throw this.closedBeforeStart();
    const common = {
      url: this.o.url,
      headers: this.o.headers,
      proc: this.o.proc,
      timeoutMs: this.o.timeoutMs,
      maxMessageBytes: this.o.maxMessageBytes,
      credentials: this.o.credentials,
    };
    const inner = this.detection.transport === 'sse' ? new SseTransport(common) : new StreamableHttpTransport(common);
    inner.onFrame = (f) => this.onFrame?.(f);
    inner.onClose = (i) => this.onClose?.(i);
    inner.onRequestFailed = (id, r) => this.onRequestFailed?.(id, r);
    // Number the detection exchanges first in the report.
    for (const x of this.detectExchanges) inner.exchanges.push(x);
    if (this.wantedVersion !== undefined && inner instanceof StreamableHttpTransport)
      inner.protocolVersion = this.wantedVersion;
    this.inner = inner;
    await inner.start();
  }

  send(raw: string): HttpInfo | void {
    return this.inner?.send(raw);
  }

  async close(): Promise<void> {
    this.closing = true;
    this.stop.abort();
    if (this.inner) await this.inner.close();
    else {
      this.failed ??= {
        reason: 'the harness closed the connection before the transport was detected',
        stderrTail: this.o.proc?.info().stderr.slice(-20) ?? [],
      };
      await this.o.proc?.stop();
    }
  }

  processInfo(): ProcessInfo | undefined {
    return this.o.proc?.info();
  }

  httpExchanges(): HttpExchange[] {
    return this.inner?.exchanges ?? this.detectExchanges;
  }
}
