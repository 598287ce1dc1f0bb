/**
 * Proxies and recording: a mock source that forwards every client message to a real server (a command over stdio, or
 * a Streamable HTTP URL) and, with a recorder, writes both directions to a cassette as they pass. Used by `record`
 * (proxy + recorder), `serve --mode passthrough` (proxy alone) and `serve --mode record-missing` (replay first,
 * upstream for what the cassette lacks, appended to the cassette).
 */
import { spawn, type ChildProcess } from 'node:child_process';
import { once } from 'node:events';
import { performance } from 'node:perf_hooks';
import { createInterface } from 'node:readline';
import {
  messageLine,
  newHeader,
  describeFromMessages,
  writeCassette,
  type Cassette,
  type CassetteHeader,
} from '../core/formats/cassette.js';
import { errorResponse, parseJson, type MockSession, type MockSource, type Outgoing } from './engine.js';
import { shellWords } from '../core/shell-words.js';
import { noteServerEnv } from '../core/secrets.js';
import type { Redactor } from '../core/redact.js';
import { ReplaySource } from './replay.js';

/** Collects messages and keeps the cassette file current (atomic rewrites, at most every `everyMs`). */
export class CassetteRecorder {
  readonly cassette: Cassette;
  private readonly t0 = performance.now();
  private timer: NodeJS.Timeout | undefined;
  private nextConn = 0;

  constructor(
    readonly file: string,
    mode: string,
    transport: CassetteHeader['transport'],
    readonly redactor: Redactor,
    existing?: Cassette,
    private readonly everyMs = 200,
  ) {
    this.cassette = existing
      ? { header: existing.header, messages: [...existing.messages] }
      : { header: newHeader(mode, transport, redactor), messages: [] };
  }

  connection(): number {
    return this.nextConn++;
  }

  add(dir: 'to-server' | 'from-server', text: string, conn: number): void {
    this.cassette.messages.push(
      messageLine(dir, performance.now() - this.t0, text, this.redactor, conn ? { conn } : {}),
    );
    this.timer ??= setTimeout(() => {
      this.timer = undefined;
      this.flush();
    }, this.everyMs);
  }

  flush(): void {
    if (this.timer) {
      clearTimeout(this.timer);
      this.timer = undefined;
    }
    describeFromMessages(this.cassette);
    writeCassette(this.file, this.cassette);
  }
}

export interface Upstream {
  /** 'python3 server.py' (stdio) or 'http://…/mcp' (Streamable HTTP). */
  spec: string;
  argv?: string[];
  cwd?: string;
  env?: Record<string, string>;
  /** Sent with every upstream HTTP request; never recorded. */
  headers?: Record<string, string>;
  timeoutMs?: number;
}

interface UpstreamConn {
  send(raw: string): void;
  /** Ends the upstream connection (bounded); resolves when it has ended. Idempotent. */
  close(): Promise<void>;
}

interface Waiter {
  emit: (m: Outgoing) => void;
  done: () => void;
  timer: NodeJS.Timeout;
}

/** A session that forwards to one upstream connection and emits what comes back. */
class ProxySession implements MockSession {
  private conn: UpstreamConn | undefined;
  /**
   * Requests waiting for their upstream answer, by id. A list per id: a client may reuse an id while the first
   * request is still in flight (the robustness suite does), and each request must get an answer (oldest first)
   * rather than one of them waiting for its timeout.
   */
  private readonly pending = new Map<string, Waiter[]>();
  private lastEmit: ((m: Outgoing) => void) | undefined;
  private readonly connNo: number;
  /** Why the upstream can no longer answer (it exited, could not start, or the proxy is closing). */
  private gone: string | undefined;
  private closing: Promise<void> | undefined;

  constructor(
    private readonly up: Upstream,
    private readonly recorder?: CassetteRecorder,
  ) {
    this.connNo = recorder?.connection() ?? 0;
  }

  private fromUpstream(text: string): void {
    if (!text.trim()) return;
    this.recorder?.add('from-server', text, this.connNo);
    const p = parseJson(text);
    if (!p.ok || !p.value || typeof p.value !== 'object') return;
    const m = p.value as Outgoing;
    const key = m.method === undefined && ('result' in m || 'error' in m) ? JSON.stringify(m.id) : undefined;
    const w = key !== undefined ? this.take(key) : undefined;
    if (w) {
      clearTimeout(w.timer);
      w.emit(m);
      w.done();
      return;
    }
    this.lastEmit?.(m);
  }

  /** The oldest request waiting under this id (removed), or, given w, that one. */
  private take(key: string, w?: Waiter): Waiter | undefined {
    const list = this.pending.get(key);
    if (!list) return undefined;
    const i = w ? list.indexOf(w) : 0;
    const found = i >= 0 ? list.splice(i, 1)[0] : undefined;
    if (!list.length) this.pending.delete(key);
    return found;
  }

  private open(): UpstreamConn {
    if (this.conn) return this.conn;
    this.conn = /^https?:\/\//.test(this.up.spec)
      ? httpUpstream(this.up, (t) => this.fromUpstream(t))
      : stdioUpstream(
          this.up,
          (t) => this.fromUpstream(t),
          (why) => this.fail(why),
        );
    return this.conn;
  }

  /** The upstream is gone: every waiting request gets an error now, and so does every later one. */
  private fail(why: string): void {
    this.gone ??= why;
    const all = [...this.pending];
    this.pending.clear();
    for (const [key, list] of all)
      for (const w of list) {
        clearTimeout(w.timer);
        w.emit(errorResponse(JSON.parse(key), -32603, `upstream: ${why}`));
        w.done();
      }
  }

  receive(raw: string, emit: (m: Outgoing) => void): Promise<void> {
    this.lastEmit = emit;
    this.recorder?.add('to-server', raw, this.connNo);
    const p = parseJson(raw);
    const m =
      p.ok && p.value && typeof p.value === 'object' && !Array.isArray(p.value)
        ? (p.value as Record<string, unknown>)
        : undefined;
    const isRequest = !!m && typeof m.method === 'string' && 'id' in m;
    if (this.gone !== undefined) {
      // Nothing will answer: say so at once instead of waiting for the timeout.
      if (isRequest) emit(errorResponse(m!.id, -32603, `upstream: ${this.gone}`));
      return Promise.resolve();
    }
    const conn = this.open();
    if (!isRequest) {
      conn.send(raw);
      return Promise.resolve();
    }
    return new Promise((resolve) => {
      const key = JSON.stringify(m!.id);
      const w: Waiter = {
        emit,
        done: resolve,
        timer: setTimeout(() => {
          if (!this.take(key, w)) return;
          emit(errorResponse(m!.id, -32603, `upstream: no answer within ${this.up.timeoutMs ?? 30_000} ms`));
          resolve();
        }, this.up.timeoutMs ?? 30_000),
      };
      const list = this.pending.get(key);
      if (list) list.push(w);
      else this.pending.set(key, [w]);
      conn.send(raw);
    });
  }

  /**
   * The client will send nothing more (its stdin ended): end the upstream the same way (stdin closed, then SIGTERM,
   * then SIGKILL, bounded). What it still answers is passed on and recorded; whatever is left unanswered when it
   * exits gets an error, so nothing waits for a timeout.
   */
  end(): void {
    void this.close();
  }

  /** Ends the upstream (bounded) and answers whatever still waits. Idempotent. */
  close(): Promise<void> {
    this.closing ??= (this.conn ? this.conn.close() : Promise.resolve()).then(() =>
      this.fail('the proxy is shutting down'),
    );
    return this.closing;
  }
}

const children = new Set<ChildProcess>();

function stdioUpstream(up: Upstream, onLine: (t: string) => void, onGone: (why: string) => void): UpstreamConn {
  const argv = up.argv ?? shellWords(up.spec);
  noteServerEnv(up.env); // its secret values are redacted from the cassette
  const child = spawn(argv[0]!, argv.slice(1), {
    cwd: up.cwd,
    env: { ...process.env, ...up.env },
    stdio: ['pipe', 'pipe', 'inherit'],
    detached: true,
  });
  children.add(child);
  child.on('error', (e) => onGone(`could not start ${argv[0]}: ${e.message}`));
  // Gone once what it wrote before exiting has been read (bounded: a grandchild may hold its stdout open).
  child.on('exit', (code, sig) => {
    children.delete(child);
    void stdoutDrained(child, 200).then(() => onGone(`the server exited (${sig ?? `code ${code}`})`));
  });
  child.stdin!.on('error', () => undefined);
  createInterface({ input: child.stdout!, crlfDelay: Infinity }).on('line', onLine);
  return {
    send: (raw) => {
      if (child.stdin!.writable) child.stdin!.write(raw.replace(/\n/g, ' ') + '\n');
      else onGone('its stdin is closed');
    },
    close: () => endChild(child),
  };
}

const ending = new WeakMap<ChildProcess, Promise<void>>();

function signalChild(child: ChildProcess, sig: NodeJS.Signals): void {
  try {
    process.kill(-child.pid!, sig);
  } catch {
    try {
      child.kill(sig);
    } catch {
      /* gone */
    }
  }
}

/** Waits (at most ms) for the child's stdout to be read to its end, so that its last lines are passed on and recorded. */
function stdoutDrained(child: ChildProcess, ms: number): Promise<void> {
  const out = child.stdout;
  if (!out || out.destroyed || out.readableEnded) return Promise.resolve();
  let timer: NodeJS.Timeout | undefined;
  return Promise.race([
    once(out, 'close').then(
      () => undefined,
      () => undefined,
    ),
    new Promise<void>((r) => {
      timer = setTimeout(r, ms);
    }),
  ]).finally(() => clearTimeout(timer));
}

/**
 * Ends an upstream process: stdin closed, then SIGTERM, then SIGKILL to its process group; resolves within about
 * 2 × graceMs + 200 ms whatever the process does. Idempotent: a second call gets the same shutdown.
 */
export function endChild(child: ChildProcess, graceMs = 1500): Promise<void> {
  let p = ending.get(child);
  if (p) return p;
  const exited = () => child.exitCode !== null || child.signalCode !== null;
  p = exited()
    ? stdoutDrained(child, 200)
    : new Promise<void>((resolve) => {
        const t1 = setTimeout(() => signalChild(child, 'SIGTERM'), graceMs);
        const t2 = setTimeout(() => {
          signalChild(child, 'SIGKILL');
          resolve();
        }, graceMs * 2);
        child.once('exit', () => {
          clearTimeout(t1);
          clearTimeout(t2);
          void stdoutDrained(child, 200).then(resolve);
        });
        child.stdin?.end();
      });
  ending.set(child, p);
  return p;
}

/** Every upstream process still running (for shutdown). */
export function endAllUpstreams(): Promise<void> {
  return Promise.all([...children].map((c) => endChild(c))).then(() => undefined);
}

/** Sends a signal to every upstream process group at once (the proxy itself was signalled). */
export function signalAllUpstreams(sig: NodeJS.Signals): void {
  for (const c of children) signalChild(c, sig);
}

function httpUpstream(up: Upstream, onMessage: (t: string) => void): UpstreamConn {
  let sessionId: string | undefined;
  let protocolVersion: string | undefined;
  let chain = Promise.resolve();
  const post = async (raw: string) => {
    const headers: Record<string, string> = {
      'content-type': 'application/json',
      accept: 'application/json, text/event-stream',
      ...up.headers,
    };
    if (sessionId) headers['mcp-session-id'] = sessionId;
    if (protocolVersion) headers['mcp-protocol-version'] = protocolVersion;
    const ctl = new AbortController();
    const timer = setTimeout(() => ctl.abort(), up.timeoutMs ?? 30_000);
    try {
      const r = await fetch(up.spec, { method: 'POST', headers, body: raw, signal: ctl.signal });
      sessionId = r.headers.get('mcp-session-id') ?? sessionId;
      const type = r.headers.get('content-type') ?? '';
      if (r.status === 202 || !r.body) {
        await r.body?.cancel().catch(() => undefined);
        return;
      }
      const text = await r.text();
      if (type.includes('text/event-stream')) {
        for (const block of text.split(/\r?\n\r?\n/)) {
          const data = block
            .split(/\r?\n/)
            .filter((l) => l.startsWith('data:'))
            .map((l) => l.slice(5).replace(/^ /, ''))
            .join('\n');
          if (data) deliver(data);
        }
      } else if (text.trim()) deliver(text);
    } catch (e) {
      const p = parseJson(raw);
      const id = p.ok && p.value && typeof p.value === 'object' ? (p.value as { id?: unknown }).id : undefined;
      if (id !== undefined)
        onMessage(JSON.stringify(errorResponse(id, -32603, `upstream ${up.spec}: ${(e as Error).message}`)));
    } finally {
      clearTimeout(timer);
    }
  };
  const deliver = (text: string) => {
    const p = parseJson(text);
    if (p.ok && p.value && typeof p.value === 'object') {
      const r = (p.value as { result?: { protocolVersion?: unknown } }).result;
      if (typeof r?.protocolVersion === 'string') protocolVersion = r.protocolVersion;
    }
    onMessage(text);
  };
  return {
    // Requests in order (the initialize answer carries the session id every later POST needs).
    send: (raw) => {
      chain = chain.then(() => post(raw));
    },
    close: () => {
      if (!sessionId) return Promise.resolve();
      return fetch(up.spec, {
        method: 'DELETE',
        headers: { 'mcp-session-id': sessionId, ...up.headers },
        signal: AbortSignal.timeout(1000),
      })
        .then(
          (r) => r.body?.cancel(),
          () => undefined,
        )
        .then(
          () => undefined,
          () => undefined,
        );
    },
  };
}

export class ProxySource implements MockSource {
  readonly label: string;
  readonly protocolVersions: string[] = [];
  private readonly sessions: ProxySession[] = [];

  constructor(
    private readonly up: Upstream,
    private readonly recorder?: CassetteRecorder,
  ) {
    this.label = `upstream ${up.spec}`;
  }

  newSession(): MockSession {
    const s = new ProxySession(this.up, this.recorder);
    this.sessions.push(s);
    return s;
  }

  async close(): Promise<void> {
    await Promise.all([...this.sessions.map((s) => s.close()), endAllUpstreams()]);
    this.recorder?.flush();
  }
}

/**
 * `--mode record-missing`: answers from the cassette where it can; every client message also goes to the upstream
 * (so that its session stays in step), and what the cassette lacks is answered by the upstream and appended.
 */
export class RecordMissingSource implements MockSource {
  readonly label: string;
  readonly protocolVersions: string[];
  private readonly replay: ReplaySource;
  private readonly proxy: ProxySource;

  constructor(cassette: Cassette, file: string, up: Upstream, redactor: Redactor) {
    this.replay = new ReplaySource(cassette);
    this.label = `${this.replay.label} + ${up.spec}`;
    this.protocolVersions = this.replay.protocolVersions;
    this.recorder = new CassetteRecorder(file, 'record-missing', cassette.header.transport, redactor, cassette);
    this.proxy = new ProxySource(up);
  }

  private readonly recorder: CassetteRecorder;

  newSession(): MockSession {
    const replay = this.replay.newSession();
    const proxy = this.proxy.newSession();
    const recorder = this.recorder;
    const conn = recorder.connection() + 1000; // new recordings: their own connection numbers
    return {
      end() {
        proxy.end?.();
      },
      async receive(raw, emit) {
        const fromCassette: Outgoing[] = [];
        await replay.receive(raw, (m) => fromCassette.push(m));
        const miss = fromCassette.some((m) => {
          const e = m.error as { data?: { replay?: unknown } } | undefined;
          return !!e?.data?.replay;
        });
        const fromUpstream: Outgoing[] = [];
        await proxy.receive(raw, (m) => fromUpstream.push(m));
        if (!miss) {
          fromCassette.forEach(emit);
          return;
        }
        recorder.add('to-server', raw, conn);
        for (const m of fromUpstream) {
          recorder.add('from-server', JSON.stringify(m), conn);
          emit(m);
        }
      },
    };
  }

  async close(): Promise<void> {
    await this.proxy.close();
    this.recorder.flush();
  }
}
