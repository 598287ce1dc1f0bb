/**
 * `--start "<command>"`: a server the harness starts for an HTTP run. It runs in its own process group; the run waits
 * until the URL's host and port accept TCP connections (bounded), fails with the exit code and stderr if the process
 * ends first, and stops it at the end as a stdio server is stopped (stdin closed, SIGTERM, SIGKILL, to the group).
 */
import { spawn, type ChildProcess } from 'node:child_process';
import { connect } from 'node:net';
import type { ProcessInfo } from './results.js';
import { disown, endGroup, own, signalGroup } from './processes.js';
import { noteServerEnv } from './secrets.js';
import { portOf } from './urls.js';

export interface StartSpec {
  /** The command as the user gave it (for the report). */
  command: string;
  argv: string[];
  cwd?: string;
  env?: Record<string, string>;
  /** How long to wait for the port (ms). Default 15000. */
  timeoutMs?: number;
  /** How long each shutdown step waits (ms). Default 2000. */
  shutdownGraceMs?: number;
}

const MAX_LINES = 2000;

export class ServerProcess {
  child?: ChildProcess;
  private exitCode?: number | null;
  private signal?: string | null;
  private shutdownHow?: ProcessInfo['shutdown'];
  private readonly lines: string[] = [];
  private truncated = false;
  private partial = '';
  private exited?: Promise<void>;
  private started?: Promise<void>;
  private stopping = false;
  private readonly exitListeners: ((reason: string) => void)[] = [];

  constructor(readonly spec: StartSpec) {}

  /** Called once if the process ends before the harness stops it. */
  onExit(fn: (reason: string) => void): void {
    this.exitListeners.push(fn);
  }

  info(): ProcessInfo {
    return {
      pid: this.child?.pid,
      exitCode: this.exitCode,
      signal: this.signal,
      shutdown: this.shutdownHow,
      stderr: this.partial ? [...this.lines, this.partial] : this.lines,
      ...(this.truncated ? { stderrTruncated: true } : {}),
    };
  }

  /** Start (once) and wait until url's port accepts connections. Rejects with a plain-words Error. */
  start(url: URL): Promise<void> {
    this.started ??= this.doStart(url);
    return this.started;
  }

  private async doStart(url: URL): Promise<void> {
    const [cmd, ...args] = this.spec.argv;
    if (!cmd) throw new Error('--start: the command is empty');
    noteServerEnv(this.spec.env); // its secret values are redacted from what the harness writes
    const child = spawn(cmd, args, {
      cwd: this.spec.cwd,
      env: { ...process.env, ...this.spec.env },
      stdio: ['pipe', 'pipe', 'pipe'],
      detached: true,
    });
    this.child = child;
    child.stdin!.on('error', () => undefined);
    // stdout is not a protocol channel here: both streams are kept as the server's log.
    child.stdout!.on('data', (b: Buffer) => this.take(b));
    child.stderr!.on('data', (b: Buffer) => this.take(b));
    this.exited = new Promise<void>((resolve) => {
      child.once('exit', (code, signal) => {
        this.exitCode = code;
        this.signal = signal;
        disown(child.pid);
        if (!this.stopping) {
          this.shutdownHow ??= 'already-exited';
          const reason =
            code === null
              ? `the server started with --start was ended by ${signal}`
              : `the server started with --start exited with code ${code}`;
          for (const fn of this.exitListeners) fn(reason);
        }
        resolve();
      });
    });
    await new Promise<void>((resolve, reject) => {
      child.once('spawn', () => {
        own(child);
        resolve();
      });
      child.once('error', (e: NodeJS.ErrnoException) => {
        this.shutdownHow = 'not-started';
        const why =
          e.code === 'ENOENT'
            ? `command not found: ${cmd}`
            : e.code === 'EACCES'
              ? `permission denied: ${cmd}`
              : e.message;
        reject(new Error(`--start: could not start ${this.spec.command}: ${why}`));
      });
    });
    const bound = this.spec.timeoutMs ?? 15_000;
    const host = url.hostname.replace(/^\[|\]$/g, '');
    const port = portOf(url);
    const until = Date.now() + bound;
    let gone = false;
    void this.exited.then(() => {
      gone = true;
    });
    while (Date.now() < until) {
      if (gone) break;
      if (await canConnect(host, port, Math.min(1000, Math.max(50, until - Date.now())))) return;
      if (gone) break;
      await new Promise((r) => setTimeout(r, 100));
    }
    await new Promise((r) => setTimeout(r, 50)); // let the last output and the exit status arrive
    const tail = this.info().stderr.slice(-10);
    const tailText = tail.length ? `; its last output: ${tail.join(' | ')}` : '; it wrote nothing';
    if (gone || this.exitCode !== undefined) {
      const how = this.exitCode === null ? `was ended by ${this.signal}` : `exited with code ${this.exitCode}`;
      throw new Error(`--start: the server ${how} before ${host}:${port} accepted connections${tailText}`);
    }
    await this.stop();
    throw new Error(
      `--start: ${host}:${port} did not accept connections within ${bound} ms (--start-timeout); the server was stopped${tailText}`,
    );
  }

  /** Stop: close stdin, wait; SIGTERM the group, wait; SIGKILL the group. Then end whatever is left of the group. */
  async stop(): Promise<void> {
    const child = this.child;
    if (!child || child.pid === undefined) {
      this.shutdownHow ??= 'not-started';
      return;
    }
    if (this.stopping) {
      await this.exited;
      return;
    }
    this.stopping = true;
    const pgid = child.pid;
    const grace = this.spec.shutdownGraceMs ?? 2000;
    if (this.exitCode !== undefined || child.exitCode !== null || child.signalCode !== null)
      this.shutdownHow ??= 'already-exited';
    else {
      child.stdin?.end();
      if (await this.waitExit(grace)) this.shutdownHow = 'exited';
      else {
        signalGroup(pgid, 'SIGTERM');
        if (await this.waitExit(grace)) this.shutdownHow = 'SIGTERM';
        else {
          signalGroup(pgid, 'SIGKILL');
          await this.waitExit(grace);
          this.shutdownHow = 'SIGKILL';
        }
      }
    }
    await endGroup(pgid, grace);
    disown(pgid);
    child.stdout?.destroy();
    child.stderr?.destroy();
  }

  private async waitExit(ms: number): Promise<boolean> {
    if (!this.exited) return true;
    let timer: NodeJS.Timeout | undefined;
    const r = await Promise.race([
      this.exited.then(() => true),
      new Promise<boolean>((res) => {
        timer = setTimeout(() => res(false), ms);
      }),
    ]);
    clearTimeout(timer);
    return r;
  }

  private take(b: Buffer): void {
    const parts = (this.partial + b.toString('utf8')).split('\n');
    this.partial = parts.pop() ?? '';
    if (this.partial.length > 8192) {
      parts.push(this.partial.slice(0, 8192) + ' …');
      this.partial = '';
    }
    for (const l of parts) {
      const line = l.replace(/\r$/, '');
      this.lines.push(line.length > 8192 ? line.slice(0, 8192) + ' …' : line);
    }
    if (this.lines.length > MAX_LINES) {
      this.lines.splice(0, this.lines.length - MAX_LINES);
      this.truncated = true;
    }
  }
}

function canConnect(host: string, port: number, timeoutMs: number): Promise<boolean> {
  return new Promise((resolve) => {
    const s = connect({ host, port });
    const done = (ok: boolean) => {
      clearTimeout(timer);
      s.destroy();
      resolve(ok);
    };
    const timer = setTimeout(() => done(false), timeoutMs);
    s.once('connect', () => done(true));
    s.once('error', () => done(false));
  });
}
