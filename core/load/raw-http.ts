/**
 * A lean HTTP/1.1 client for `load`: keep-alive sockets of its own, each request written whole in one write (head and
 * body prebuilt), the response read by a small incremental parser (status line, headers, a Content-Length or chunked
 * body, or a body to the connection's end). What autocannon does to stay out of the way, so that `load` measures the
 * server and not Node's HTTP client. A socket carries one request at a time; a client with more in flight (open loop)
 * opens more, up to a bound.
 */
import net from 'node:net';
import tls from 'node:tls';
import { portOf } from '../urls.js';

export interface RawResponse {
  status: number;
  headers: Record<string, string>;
  /** Called with each piece of the body as it comes (for SSE); the whole body is also collected unless `stream`. */
  body: Buffer;
}

export class RawHttpError extends Error {
  constructor(
    readonly kind: string,
    message: string,
  ) {
    super(message);
  }
}

interface Pending {
  onHead(status: number, headers: Record<string, string>): void;
  onData(b: Buffer): void;
  onEnd(): void;
  onError(e: RawHttpError): void;
}

const CRLFCRLF = Buffer.from('\r\n\r\n');

/** One keep-alive connection: writes a request, parses its response, then takes the next. */
class Conn {
  private buf: Buffer = Buffer.alloc(0);
  private state: 'head' | 'length' | 'chunk-size' | 'chunk-data' | 'chunk-trailer' | 'to-end' | 'idle' = 'idle';
  private left = 0;
  private p?: Pending;
  private closeAfter = false;
  dead = false;
  /** Responses it has carried (a kept-alive connection the server may have closed meanwhile when > 0). */
  served = 0;

  constructor(
    readonly socket: net.Socket,
    private readonly onFree: (c: Conn) => void,
  ) {
    socket.setNoDelay(true);
    socket.on('data', (b: Buffer) => this.feed(b));
    socket.on('error', (e: NodeJS.ErrnoException) =>
      this.fail(
        new RawHttpError(
          e.code === 'ECONNRESET' || e.code === 'EPIPE'
            ? 'connection-reset'
            : e.code === 'ECONNREFUSED'
              ? 'connection-refused'
              : 'transport',
          e.message,
        ),
      ),
    );
    socket.on('close', () => {
      if (this.state === 'to-end' && this.p) {
        const p = this.p;
        this.p = undefined;
        this.state = 'idle';
        p.onEnd();
      }
      this.fail(new RawHttpError('connection-reset', 'the server closed the connection before the answer'));
    });
  }

  get busy(): boolean {
    return this.p !== undefined;
  }

  send(request: Buffer, p: Pending): void {
    this.p = p;
    this.state = 'head';
    this.buf = Buffer.alloc(0);
    this.socket.write(request);
  }

  private fail(e: RawHttpError): void {
    this.dead = true;
    const p = this.p;
    this.p = undefined;
    this.state = 'idle';
    p?.onError(e);
  }

  destroy(): void {
    this.dead = true;
    this.socket.destroy();
  }

  private done(): void {
    this.served++;
    const p = this.p!;
    this.p = undefined;
    this.state = 'idle';
    if (this.closeAfter) this.destroy();
    p.onEnd();
    if (!this.dead) this.onFree(this);
  }

  private feed(b: Buffer): void {
    if (!this.p) return; // nothing asked: a stray byte of a finished response
    this.buf = this.buf.length ? Buffer.concat([this.buf, b]) : b;
    for (;;) {
      if (!this.p) return;
      if (this.state === 'head') {
        const i = this.buf.indexOf(CRLFCRLF);
        if (i < 0) return;
        const head = this.buf.subarray(0, i).toString('latin1').split('\r\n');
        this.buf = this.buf.subarray(i + 4);
        const m = /^HTTP\/1\.[01] (\d{3})/.exec(head[0] ?? '');
        if (!m)
          return this.fail(
            new RawHttpError('invalid-http', `not an HTTP/1.1 answer: ${JSON.stringify((head[0] ?? '').slice(0, 80))}`),
          );
        const headers: Record<string, string> = {};
        for (const line of head.slice(1)) {
          const c = line.indexOf(':');
          if (c > 0) headers[line.slice(0, c).trim().toLowerCase()] = line.slice(c + 1).trim();
        }
        this.closeAfter = /close/i.test(headers.connection ?? '');
        const status = Number(m[1]);
        this.p.onHead(status, headers);
        if (status === 204 || status === 304 || (status >= 100 && status < 200)) {
          this.done();
          continue;
        }
        if (/chunked/i.test(headers['transfer-encoding'] ?? '')) this.state = 'chunk-size';
        else if (headers['content-length'] !== undefined) {
          this.left = Number(headers['content-length']);
          this.state = 'length';
          if (this.left === 0) {
            this.done();
          }
        } else {
          this.state = 'to-end';
          this.closeAfter = true;
        }
      } else if (this.state === 'length') {
        if (!this.buf.length) return;
        const piece = this.buf.subarray(0, this.left);
        this.buf = this.buf.subarray(piece.length);
        this.left -= piece.length;
        this.p.onData(piece);
        if (this.left === 0) {
          this.done();
          continue;
        }
        return;
      } else if (this.state === 'chunk-size') {
        const i = this.buf.indexOf('\r\n');
        if (i < 0) return;
        const size = parseInt(this.buf.subarray(0, i).toString('latin1').split(';')[0]!.trim(), 16);
        this.buf = this.buf.subarray(i + 2);
        if (!Number.isFinite(size))
          return this.fail(new RawHttpError('invalid-http', 'a chunk size that is no number'));
        if (size === 0) {
          this.state = 'chunk-trailer';
          continue;
        }
        this.left = size;
        this.state = 'chunk-data';
      } else if (this.state === 'chunk-data') {
        if (!this.buf.length) return;
        if (this.left > 0) {
          const piece = this.buf.subarray(0, this.left);
          this.buf = this.buf.subarray(piece.length);
          this.left -= piece.length;
          this.p.onData(piece);
          if (this.left > 0) return;
        }
        if (this.buf.length < 2) return;
        this.buf = this.buf.subarray(2); // the chunk's CRLF
        this.state = 'chunk-size';
      } else if (this.state === 'chunk-trailer') {
        const i = this.buf.indexOf('\r\n');
        if (i < 0) return;
        this.buf = this.buf.subarray(i + 2);
        if (i === 0) {
          this.done();
        } // the empty line after the (usually absent) trailers
      } else if (this.state === 'to-end') {
        if (this.buf.length) {
          this.p.onData(this.buf);
          this.buf = Buffer.alloc(0);
        }
        return;
      } else return;
    }
  }
}

export interface RawRequestOptions {
  timeoutMs: number;
  /**
   * Called with each piece of the body: true resolves now (the rest is read and dropped), 'consumed' keeps the piece
   * out of the collected body, anything else keeps it.
   */
  onData?: (b: Buffer, status: number, headers: Record<string, string>) => boolean | 'consumed' | void;
}

export class RawHttpClient {
  private readonly free: Conn[] = [];
  private readonly all = new Set<Conn>();
  private readonly host: string;
  private readonly port: number;
  private readonly prefix: string;
  closed = false;

  constructor(
    private readonly url: URL,
    headers: Record<string, string>,
    private readonly maxConns = 64,
  ) {
    this.host = url.hostname.replace(/^\[|\]$/g, '');
    this.port = portOf(url);
    const lines = [`POST ${url.pathname}${url.search} HTTP/1.1`, `Host: ${url.host}`, 'Connection: keep-alive'];
    for (const [k, v] of Object.entries(headers)) lines.push(`${k}: ${v}`);
    this.prefix = lines.join('\r\n');
  }

  private connect(): Conn {
    const socket =
      this.url.protocol === 'https:'
        ? tls.connect({ host: this.host, port: this.port, servername: net.isIP(this.host) ? undefined : this.host })
        : net.connect({ host: this.host, port: this.port });
    const c = new Conn(socket, (x) => {
      if (!this.closed) this.free.push(x);
    });
    this.all.add(c);
    socket.on('close', () => {
      this.all.delete(c);
      const i = this.free.indexOf(c);
      if (i >= 0) this.free.splice(i, 1);
    });
    return c;
  }

  /**
   * POST body with the extra headers; resolves with the status, headers and body (or what onData kept). A kept-alive
   * connection the server closed just as it was reused (reset before any answer) is retried once on a new one, as
   * Node's own client does.
   */
  async post(body: string, extra: Record<string, string>, o: RawRequestOptions): Promise<RawResponse> {
    try {
      return await this.postOnce(body, extra, o, false);
    } catch (e) {
      if (!(e instanceof RawHttpError) || !(e as RawHttpError & { stale?: boolean }).stale) throw e;
      return this.postOnce(body, extra, o, true);
    }
  }

  private postOnce(
    body: string,
    extra: Record<string, string>,
    o: RawRequestOptions,
    fresh: boolean,
  ): Promise<RawResponse> {
    if (this.closed) return Promise.reject(new RawHttpError('connection-closed', 'the client is closed'));
    let conn: Conn | undefined;
    while (!fresh && (conn = this.free.pop()) && (conn.dead || conn.busy));
    if (!conn) {
      if (this.all.size >= this.maxConns)
        return Promise.reject(
          new RawHttpError('backlog', `more than ${this.maxConns} requests in flight on one client`),
        );
      conn = this.connect();
    }
    const payload = Buffer.from(body);
    let head = this.prefix;
    for (const [k, v] of Object.entries(extra)) head += `\r\n${k}: ${v}`;
    const request = Buffer.concat([
      Buffer.from(`${head}\r\nContent-Length: ${payload.length}\r\n\r\n`, 'latin1'),
      payload,
    ]);
    const c = conn;
    return new Promise<RawResponse>((resolve, reject) => {
      let status = 0;
      let headers: Record<string, string> = {};
      const chunks: Buffer[] = [];
      let settled = false;
      const settle = (f: () => void) => {
        if (!settled) {
          settled = true;
          clearTimeout(timer);
          f();
        }
      };
      const timer = setTimeout(() => {
        c.destroy();
        settle(() => reject(new RawHttpError('timeout', `no answer within ${o.timeoutMs} ms`)));
      }, o.timeoutMs);
      c.send(request, {
        onHead: (s, h) => {
          status = s;
          headers = h;
        },
        onData: (b) => {
          if (settled) return;
          const v = o.onData?.(b, status, headers);
          if (v === true) settle(() => resolve({ status, headers, body: Buffer.alloc(0) }));
          else if (v !== 'consumed') chunks.push(b);
        },
        onEnd: () =>
          settle(() => resolve({ status, headers, body: chunks.length === 1 ? chunks[0]! : Buffer.concat(chunks) })),
        onError: (e) => {
          if (c.served > 0 && status === 0 && e.kind === 'connection-reset')
            (e as RawHttpError & { stale?: boolean }).stale = true;
          settle(() => reject(e));
        },
      });
    });
  }

  close(): void {
    this.closed = true;
    for (const c of this.all) c.destroy();
    this.all.clear();
    this.free.length = 0;
  }
}
