/**
 * stdio transport: spawns the server in its own process group, frames stdout by newline (bounded), keeps stderr,
 * and shuts down as the spec asks (close stdin, wait, SIGTERM, wait, SIGKILL), to the whole group.
 * https://modelcontextprotocol.io/specification/2025-11-25/basic/transports#stdio
 */
import type { ChildProcess } from 'node:child_process';
import { once } from 'node:events';
import { performance } from 'node:perf_hooks';
import type { IncomingFrame, Transport, TransportClosed } from './types.js';
import type { ProcessInfo } from '../results.js';
import { descendants, disown, endGroup, endOutsiders, signalGroup, spawnGroup, takeEarlyStart } from '../processes.js';
import { noteServerEnv } from '../secrets.js';

export interface StdioOptions {
  argv: string[];
  cwd?: string;
  env?: Record<string, string>;
  /** Longest stdout line accepted; longer lines are cut there and reported. Default 64 MiB. */
  maxLineBytes?: number;
  /** How long each shutdown step waits for the process to end. Default 2000 ms. */
  shutdownGraceMs?: number;
  /** How many stderr lines are kept (the newest). Default 2000. */
  maxStderrLines?: number;
}

export type ShutdownHow = 'exited' | 'SIGTERM' | 'SIGKILL' | 'already-exited' | 'not-started';

const utf8 = new TextDecoder('utf-8', { fatal: true });
const utf8Lossy = new TextDecoder('utf-8');

/** Up to this many characters, the lines of one turn are joined into one write (see flushOutgoing). */
const JOIN_LIMIT = 256 * 1024;

export class StdioTransport implements Transport {
  readonly kind = 'stdio' as const;
  onFrame?: (frame: IncomingFrame) => void;
  onClose?: (info: TransportClosed) => void;
  closed = false;
  closeInfo?: TransportClosed;
  child?: ChildProcess;
  exitCode?: number | null;
  signal?: string | null;
  shutdownHow?: ShutdownHow;
  readonly stderr: string[] = [];
  stderrTruncated = false;
  /** How long the process took to end from the moment its stdin was closed (ms). */
  shutdownMs?: number;
  /** Every stderr line written so far (the kept ones are the newest); the count when stdin was closed. */
  private stderrCount = 0;
  private stderrAtClose?: number;
  private exitedAt?: number;

  private readonly maxLine: number;
  private readonly grace: number;
  private readonly maxStderr: number;
  private chunks: Buffer[] = [];
  private pending = 0;
  private oversize = false;
  private stderrPartial = '';
  private exited?: Promise<void>;
  private writeFailed = false;

  constructor(private readonly opts: StdioOptions) {
    this.maxLine = opts.maxLineBytes ?? 64 * 1024 * 1024;
    this.grace = opts.shutdownGraceMs ?? 2000;
    this.maxStderr = opts.maxStderrLines ?? 2000;
  }

  get pid(): number | undefined {
    return this.child?.pid;
  }

  /** Bytes written to the server's stdin that the pipe has not taken yet (the server is not reading). */
  get unreadBytes(): number {
    return this.child?.stdin?.writableLength ?? 0;
  }

  processInfo(): ProcessInfo {
    return {
      pid: this.pid,
      exitCode: this.exitCode,
      signal: this.signal,
      shutdown: this.shutdownHow,
      ...(this.shutdownMs !== undefined
        ? { shutdownMs: this.shutdownMs, stderrAfterClose: this.stderrAfterClose() }
        : {}),
      stderr: this.stderr,
      ...(this.stderrTruncated ? { stderrTruncated: true } : {}),
    };
  }

  async start(): Promise<void> {
    const [cmd, ...args] = this.opts.argv;
    if (!cmd) throw new Error('empty server command');
    noteServerEnv(this.opts.env); // its secret values are redacted from what the harness writes
    // The CLI may have started this very command already, while it loaded its modules (core/processes.ts earlyStart).
    const proc =
      takeEarlyStart(this.opts.argv, this.opts.cwd, this.opts.env) ??
      spawnGroup(cmd, args, { cwd: this.opts.cwd, env: { ...process.env, ...this.opts.env } });
    const child = proc.child;
    this.child = child;
    child.stdin!.on('error', () => {
      this.writeFailed = true;
    });
    child.stdout!.on('data', (b: Buffer) => this.onStdout(b));
    child.stderr!.on('data', (b: Buffer) => this.onStderr(b));
    const stdoutEnded = once(child.stdout!, 'end').catch(() => undefined);
    this.exited = proc.exited.then(({ code, signal }) => {
      this.exitedAt = performance.now();
      this.exitCode = code;
      this.signal = signal;
      disown(child.pid);
      // Let stdout drain (bounded: a grandchild may hold it open) before announcing the end.
      let timer: NodeJS.Timeout | undefined;
      const drained = Promise.race([
        stdoutEnded,
        new Promise((r) => {
          timer = setTimeout(r, 200);
        }),
      ]);
      return drained.then(() => {
        clearTimeout(timer); // a pending timer would keep the harness alive after its work is done
        this.flushPartial();
        this.finish(code === null ? `the server was ended by ${signal}` : `the server exited with code ${code}`);
      });
    });
    await proc.spawned.catch((e: NodeJS.ErrnoException) => {
      const why =
        e.code === 'ENOENT'
          ? `command not found: ${cmd}`
          : e.code === 'EACCES'
            ? `permission denied: ${cmd}`
            : e.message;
      this.shutdownHow = 'not-started';
      this.finish(`the server could not be started: ${why}`);
      throw new Error(`could not start the server (${this.opts.argv.join(' ')}): ${why}`);
    });
  }

  send(raw: string): void {
    if (this.closed || this.writeFailed || !this.child?.stdin?.writable) return;
    // Lines sent in the same turn of the event loop (pipelined calls answered together) go in one write: one
    // system call and one wake-up of the server instead of one each. The bytes and their order are the same.
    if (this.outgoing === undefined) {
      this.outgoing = [];
      setImmediate(() => this.flushOutgoing());
    }
    this.outgoing.push(raw, '\n');
  }

  private outgoing?: string[];

  private flushOutgoing(): void {
    const lines = this.outgoing;
    this.outgoing = undefined;
    if (!lines?.length || this.writeFailed || !this.child?.stdin?.writable) return;
    const stdin = this.child.stdin;
    if (lines.length === 2) {
      stdin.write(lines[0]! + '\n');
      return;
    }
    let size = 0;
    for (const l of lines) size += l.length;
    if (size <= JOIN_LIMIT) {
      stdin.write(lines.join(''));
      return;
    }
    // Joined (or corked into one writev), a batch of large lines is copied whole in this turn — 16 MiB held the event
    // loop ~200 ms: past the limit each line is a write of its own.
    for (let i = 0; i < lines.length; i += 2) stdin.write(lines[i]! + '\n');
  }

  /** Shut down: close stdin, wait; SIGTERM the group, wait; SIGKILL the group. Records how it ended. */
  async close(): Promise<void> {
    this.flushOutgoing();
    const child = this.child;
    if (!child || child.pid === undefined) {
      this.shutdownHow ??= 'not-started';
      return;
    }
    const pgid = child.pid;
    // Helpers that left the process group (setsid) are found now, while the server still holds them as children.
    const helpers = descendants(pgid);
    if (this.exitCode !== undefined || child.exitCode !== null || child.signalCode !== null) {
      this.shutdownHow ??= 'already-exited';
    } else {
      child.stdin?.end();
      const closedAt = performance.now();
      this.stderrAtClose = this.stderrCount;
      this.exited?.then(
        () => {
          this.shutdownMs = Math.max(0, Math.round((this.exitedAt ?? performance.now()) - closedAt));
        },
        () => undefined,
      );
      if (await this.waitExit(this.grace)) this.shutdownHow = 'exited';
      else {
        signalGroup(pgid, 'SIGTERM');
        if (await this.waitExit(this.grace)) this.shutdownHow = 'SIGTERM';
        else {
          signalGroup(pgid, 'SIGKILL');
          await this.waitExit(this.grace);
          this.shutdownHow = 'SIGKILL';
        }
      }
    }
    // The leader is gone; helpers it spawned may not be. End whatever is left of the group.
    await endGroup(pgid, this.grace);
    endOutsiders(helpers, pgid);
    disown(pgid);
    child.stdin?.destroy(); // drops what a server that stopped reading never took
    child.stdout?.destroy();
    child.stderr?.destroy();
  }

  private async waitExit(ms: number): Promise<boolean> {
    if (!this.exited) return true;
    let timer: NodeJS.Timeout | undefined;
    const timedOut = new Promise<boolean>((r) => {
      timer = setTimeout(() => r(false), ms);
    });
    const result = await Promise.race([this.exited.then(() => true), timedOut]);
    clearTimeout(timer);
    return result;
  }

  private finish(reason: string): void {
    if (this.closed) return;
    this.closed = true;
    this.closeInfo = { exitCode: this.exitCode, signal: this.signal, reason, stderrTail: this.stderr.slice(-20) };
    this.onClose?.(this.closeInfo);
  }

  private onStdout(b: Buffer): void {
    let start = 0;
    for (;;) {
      const nl = b.indexOf(10, start);
      if (nl < 0) break;
      this.take(b.subarray(start, nl));
      this.emitLine();
      start = nl + 1;
    }
    if (start < b.length) this.take(b.subarray(start));
  }

  private take(part: Buffer): void {
    if (part.length === 0) return;
    if (this.oversize) return;
    if (this.pending + part.length > this.maxLine) {
      const room = this.maxLine - this.pending;
      if (room > 0) this.chunks.push(part.subarray(0, room));
      this.pending = this.maxLine;
      this.oversize = true;
      return;
    }
    this.chunks.push(part);
    this.pending += part.length;
  }

  private emitLine(problem?: string): void {
    const buf = this.chunks.length === 1 ? this.chunks[0]! : Buffer.concat(this.chunks);
    const wasOversize = this.oversize;
    this.chunks = [];
    this.pending = 0;
    this.oversize = false;
    let raw: string;
    const problems: string[] = [];
    if (problem) problems.push(problem);
    if (wasOversize) problems.push(`line longer than ${this.maxLine} bytes: cut there, the rest dropped`);
    try {
      raw = utf8.decode(buf);
    } catch {
      raw = utf8Lossy.decode(buf);
      problems.push('invalid UTF-8');
    }
    if (raw.endsWith('\r')) raw = raw.slice(0, -1);
    if (raw.length === 0 && problems.length === 0) return; // blank line: nothing was sent
    this.onFrame?.({
      raw,
      problem: problems.length ? problems.join('; ') : undefined,
      ...(wasOversize ? { truncated: true } : {}),
    });
  }

  private flushPartial(): void {
    if (this.pending > 0 || this.oversize)
      this.emitLine('no newline at the end: the stream ended in the middle of a line');
    if (this.stderrPartial) {
      this.pushStderr(this.stderrPartial);
      this.stderrPartial = '';
    }
  }

  private onStderr(b: Buffer): void {
    const text = this.stderrPartial + utf8Lossy.decode(b);
    const lines = text.split('\n');
    this.stderrPartial = lines.pop() ?? '';
    if (this.stderrPartial.length > 64 * 1024) {
      this.pushStderr(this.stderrPartial.slice(0, 64 * 1024) + ' …');
      this.stderrPartial = '';
    }
    for (const l of lines) this.pushStderr(l.replace(/\r$/, ''));
  }

  /** The stderr lines written after stdin was closed that are still kept (the newest 50). */
  private stderrAfterClose(): string[] {
    if (this.stderrAtClose === undefined) return [];
    const n = Math.min(this.stderrCount - this.stderrAtClose, this.stderr.length);
    return n > 0 ? this.stderr.slice(-n).slice(-50) : [];
  }

  private pushStderr(line: string): void {
    this.stderrCount++;
    this.stderr.push(line.length > 8192 ? line.slice(0, 8192) + ' …' : line);
    if (this.stderr.length > this.maxStderr) {
      this.stderr.splice(0, this.stderr.length - this.maxStderr);
      this.stderrTruncated = true;
    }
  }
}
