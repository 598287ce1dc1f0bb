/**
 * Ownership of the processes a run starts. Each server runs in its own process group; the group is ended when the
 * run ends, and, as a last resort, when the harness process itself exits.
 */
import { spawn, type ChildProcess } from 'node:child_process';
import { existsSync, readdirSync, readFileSync } from 'node:fs';

const live = new Set<number>();
let hooked = false;

function killAllSync(): void {
  for (const pgid of live) {
    try {
      process.kill(-pgid, 'SIGKILL');
    } catch {
      /* already gone */
    }
  }
  live.clear();
}

/** Remember a process group leader so that it is killed if the harness exits without ending it. */
export function own(child: ChildProcess): void {
  if (child.pid === undefined) return;
  live.add(child.pid);
  if (!hooked) {
    hooked = true;
    process.once('exit', killAllSync);
  }
}

export function disown(pid: number | undefined): void {
  if (pid !== undefined) live.delete(pid);
}

/** Send a signal to a whole process group; false when the group no longer exists. */
export function signalGroup(pgid: number, signal: NodeJS.Signals): boolean {
  try {
    process.kill(-pgid, signal);
    return true;
  } catch {
    return false;
  }
}

/**
 * Ends what is left of a process group (its leader gone, helpers it spawned perhaps not): SIGTERM, up to `graceMs` for
 * the group to go, then SIGKILL to any process still in it. false when there was nothing left to end.
 */
export async function endGroup(pgid: number, graceMs: number): Promise<boolean> {
  if (!signalGroup(pgid, 'SIGTERM')) return false;
  const until = Date.now() + graceMs;
  while (groupAlive(pgid) && Date.now() < until) await new Promise((r) => setTimeout(r, 25));
  if (groupAlive(pgid)) signalGroup(pgid, 'SIGKILL');
  return true;
}

/** true while any process of the group is alive. */
export function groupAlive(pgid: number): boolean {
  try {
    process.kill(-pgid, 0);
    return true;
  } catch (e) {
    return (e as NodeJS.ErrnoException).code === 'EPERM';
  }
}

/**
 * On SIGINT/SIGTERM to the harness. With onSignal, the first signal only calls it: the run stops, shuts its servers
 * down and writes its partial report, and the caller exits with 128 + signal number. A second signal, or the run
 * not having ended within forceAfterMs, ends every owned group at once and exits. Without onSignal every signal
 * does that at once. Calling it again (the next target of a config file) replaces onSignal; the process listeners
 * are added once.
 */
let signalHandler: { onSignal?: (signal: 'SIGINT' | 'SIGTERM') => void; forceAfterMs: number } | undefined;
let signalled = false;
/** A signal kept while the CLI starts (deferSignals), for the run to act on when it begins. */
let deferred: 'SIGINT' | 'SIGTERM' | undefined;
let deferring = false;
const CODES = { SIGINT: 130, SIGTERM: 143 } as const;

function forceExit(sig: 'SIGINT' | 'SIGTERM', ms: number): NodeJS.Timeout {
  return setTimeout(() => {
    killAllSync();
    process.exit(CODES[sig]);
  }, ms).unref();
}

export function endOwnedOnSignals(onSignal?: (signal: 'SIGINT' | 'SIGTERM') => void, forceAfterMs = 30_000): void {
  const first = signalHandler === undefined;
  signalHandler = { onSignal, forceAfterMs };
  deferring = false;
  if (!first) return;
  for (const sig of ['SIGINT', 'SIGTERM'] as const) {
    process.on(sig, () => {
      const h = signalHandler;
      if (deferring && !signalled) {
        signalled = true;
        deferred = sig;
        return;
      }
      if (h?.onSignal && !signalled) {
        signalled = true;
        forceExit(sig, h.forceAfterMs);
        h.onSignal(sig);
        return;
      }
      killAllSync();
      process.exit(CODES[sig]);
    });
  }
}

/**
 * While the CLI starts with an early-started server (before the run sets its own onSignal): the first SIGINT/SIGTERM
 * is kept (takeDeferredSignal), and the run, when it begins, takes the server over and stops at once (its cases
 * skipped as interrupted, the server shut down as at the end of any run, the report written, exit 130/143), as if the
 * signal had come during the run; a second signal ends everything at once.
 */
export function deferSignals(): void {
  endOwnedOnSignals();
  deferring = true;
}

/**
 * The signal deferSignals kept, for the run that now begins (after its endOwnedOnSignals): taken once, with the
 * force-exit bound of that run armed as for a signal during the run (a second signal still ends everything at once).
 */
export function takeDeferredSignal(forceAfterMs: number): 'SIGINT' | 'SIGTERM' | undefined {
  const sig = deferred;
  deferred = undefined;
  if (sig) forceExit(sig, forceAfterMs);
  return sig;
}

/** The exit code of a signal deferSignals kept that no run took (the CLI ended before a run began), else undefined. */
export function deferredSignalCode(): number | undefined {
  return deferred ? CODES[deferred] : undefined;
}

/** A process seen in /proc: pid, and its start time (so that a reused pid is never mistaken for it). */
export interface SeenProcess {
  pid: number;
  start: string;
}

function procStat(pid: number): { ppid: number; pgid: number; start: string } | undefined {
  try {
    const text = readFileSync(`/proc/${pid}/stat`, 'utf8');
    const f = text.slice(text.lastIndexOf(')') + 2).split(' ');
    // after "pid (comm) ": state ppid pgrp session tty_nr tpgid flags minflt cminflt majflt cmajflt utime stime
    // cutime cstime priority nice num_threads itrealvalue starttime
    return { ppid: Number(f[1]), pgid: Number(f[2]), start: f[19] ?? '' };
  } catch {
    return undefined;
  }
}

/**
 * Linux: every process descended from root (children, grandchildren, …), read from /proc; [] where there is no
 * /proc. Used to find helpers that left the server's process group (setsid) before the server is ended.
 */
export function descendants(root: number): SeenProcess[] {
  return descendantsByChildren(root) ?? descendantsByScan(root);
}

/** Whether this kernel lists each thread's children in /proc/PID/task/TID/children (CONFIG_PROC_CHILDREN). */
let childrenFiles: boolean | undefined;

/**
 * descendants() from the children files: the server's own processes only, a read or two for a server without
 * children, where the scan reads the stat file of every process of the machine (~3 ms before the server's stdin is
 * closed, more on a busy machine). undefined where the kernel has no children files.
 */
function descendantsByChildren(root: number): SeenProcess[] | undefined {
  childrenFiles ??= existsSync(`/proc/${process.pid}/task/${process.pid}/children`);
  if (!childrenFiles) return undefined;
  const out: SeenProcess[] = [];
  const queue = [root];
  while (queue.length && out.length < 10_000) {
    const pid = queue.shift()!;
    let tasks: string[];
    try {
      tasks = readdirSync(`/proc/${pid}/task`);
    } catch {
      continue;
    } // gone meanwhile
    for (const tid of tasks) {
      let text: string;
      try {
        text = readFileSync(`/proc/${pid}/task/${tid}/children`, 'utf8');
      } catch {
        continue;
      }
      for (const w of text.split(' ')) {
        if (!w.trim()) continue;
        const child = Number(w);
        const st = procStat(child);
        if (!st) continue;
        out.push({ pid: child, start: st.start });
        queue.push(child);
      }
    }
  }
  return out;
}

/** descendants() by reading the parent of every process in /proc; [] where there is no /proc. */
function descendantsByScan(root: number): SeenProcess[] {
  let names: string[];
  try {
    names = readdirSync('/proc');
  } catch {
    return [];
  }
  const children = new Map<number, SeenProcess[]>();
  for (const name of names) {
    if (!/^\d+$/.test(name)) continue;
    const st = procStat(Number(name));
    if (!st) continue;
    const list = children.get(st.ppid) ?? [];
    list.push({ pid: Number(name), start: st.start });
    children.set(st.ppid, list);
  }
  const out: SeenProcess[] = [];
  const queue = [root];
  while (queue.length && out.length < 10_000) {
    for (const c of children.get(queue.shift()!) ?? []) {
      out.push(c);
      queue.push(c.pid);
    }
  }
  return out;
}

/** SIGKILL the processes seen earlier that are still the same processes and outside the group pgid; returns how many. */
export function endOutsiders(seen: SeenProcess[], pgid: number): number {
  let n = 0;
  for (const p of seen) {
    const st = procStat(p.pid);
    if (!st || st.start !== p.start || st.pgid === pgid) continue;
    try {
      process.kill(p.pid, 'SIGKILL');
      n++;
    } catch {
      /* gone meanwhile */
    }
  }
  return n;
}

/** A server process spawned in its own process group, with its first events already caught. */
export interface SpawnedGroup {
  child: ChildProcess;
  /** Resolves once the process runs; rejects with the spawn error (ENOENT, EACCES…). */
  spawned: Promise<void>;
  /** Resolves with how the process ended ('exit'). */
  exited: Promise<{ code: number | null; signal: NodeJS.Signals | null }>;
}

/**
 * Spawns a command in its own process group (detached), stdin/stdout/stderr piped, and catches its 'spawn', 'error'
 * and 'exit' events at once, so that whoever takes the process later (core/transport/stdio.ts) misses none of them.
 * The output waits in the pipes until a reader attaches. Owned (ended at exit) once it runs.
 */
export function spawnGroup(cmd: string, args: string[], opts: { cwd?: string; env: NodeJS.ProcessEnv }): SpawnedGroup {
  const child = spawn(cmd, args, { cwd: opts.cwd, env: opts.env, stdio: ['pipe', 'pipe', 'pipe'], detached: true });
  let started = false;
  const spawned = new Promise<void>((resolve, reject) => {
    child.once('spawn', () => {
      started = true;
      own(child);
      resolve();
    });
    child.on('error', (e) => {
      if (!started) reject(e);
    });
  });
  spawned.catch(() => undefined); // handled by the taker
  const exited = new Promise<{ code: number | null; signal: NodeJS.Signals | null }>((resolve) => {
    child.once('exit', (code, signal) => resolve({ code, signal }));
  });
  return { child, spawned, exited };
}

/**
 * The CLI's early start: `run --stdio CMD` spawns the server before the harness loads its modules (ajv, the suites,
 * yargs…), so that the server's own start-up overlaps with the harness's. The run's stdio transport takes it
 * (takeEarlyStart) when its command, working directory and environment are the ones it was started with; else it is
 * ended (endEarlyStart). A library run never starts anything early.
 */
let early: { argv: string[]; proc: SpawnedGroup } | undefined;

export function earlyStart(argv: string[]): void {
  if (early || !argv.length) return;
  early = { argv, proc: spawnGroup(argv[0]!, argv.slice(1), { env: process.env }) };
}

/** The early-started process, once, if it was started with exactly this command, in the current directory, with no added environment. */
export function takeEarlyStart(
  argv: string[],
  cwd: string | undefined,
  env: Record<string, string> | undefined,
): SpawnedGroup | undefined {
  if (
    !early ||
    cwd !== undefined ||
    (env && Object.keys(env).length) ||
    argv.length !== early.argv.length ||
    argv.some((w, i) => w !== early!.argv[i])
  )
    return undefined;
  const { proc } = early;
  early = undefined;
  return proc;
}

/**
 * Ends an early-started process no run took (a usage error, another command): stdin closed and its group sent
 * SIGTERM; it stays owned, so the exit hook SIGKILLs whatever is left of the group.
 */
export function endEarlyStart(): void {
  const e = early;
  early = undefined;
  if (!e) return;
  const { child } = e.proc;
  child.stdin?.destroy();
  child.stdout?.destroy();
  child.stderr?.destroy();
  if (child.pid !== undefined && child.exitCode === null && child.signalCode === null)
    signalGroup(child.pid, 'SIGTERM');
}

/** CPU time (clock ticks) of a process and its descendants, and whether one of them is running; undefined without /proc. */
function groupActivity(root: number): { ticks: number; running: boolean } | undefined {
  let ticks = 0;
  let running = false;
  let seen = 0;
  for (const pid of [root, ...descendants(root).map((p) => p.pid)]) {
    let text: string;
    try {
      text = readFileSync(`/proc/${pid}/stat`, 'utf8');
    } catch {
      continue;
    }
    const f = text.slice(text.lastIndexOf(')') + 2).split(' ');
    // state ppid pgrp session tty_nr tpgid flags minflt cminflt majflt cmajflt utime stime
    ticks += Number(f[11]) + Number(f[12]);
    if (f[0] === 'R') running = true;
    seen++;
  }
  return seen ? { ticks, running } : undefined;
}

/**
 * Resolves once a server process (with its children) has been idle — no CPU time used, none of them running — for
 * `quietMs`, or after `maxMs` at most; at once where there is no /proc (or the process is gone). Polls every 100 ms.
 * A server that is still starting (a Python interpreter importing its packages, more slowly on a busy machine) is
 * busy; one waiting for input is idle. `cancel` stops the polling.
 */
export function whenIdle(pid: number, o: { quietMs: number; maxMs: number }): { idle: Promise<void>; cancel(): void } {
  let timer: NodeJS.Timeout | undefined;
  let done = false;
  let finish!: () => void;
  const idle = new Promise<void>((resolve) => {
    finish = () => {
      if (!done) {
        done = true;
        clearTimeout(timer);
        resolve();
      }
    };
  });
  const start = Date.now();
  let last = groupActivity(pid);
  let quietSince = Date.now();
  const poll = () => {
    if (done) return;
    const now = groupActivity(pid);
    if (!now || !last) return finish();
    if (now.running || now.ticks !== last.ticks) quietSince = Date.now();
    last = now;
    if (Date.now() - quietSince >= o.quietMs || Date.now() - start >= o.maxMs) return finish();
    timer = setTimeout(poll, 100);
    timer.unref();
  };
  if (!last) finish();
  else {
    timer = setTimeout(poll, 100);
    timer.unref();
  }
  return { idle, cancel: finish };
}
