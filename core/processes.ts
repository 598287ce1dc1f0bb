/**
 * Ownership of the processes a run starts. Each server runs in its own process group; the group is ended when the
 * run ends, and, as a last resort, when the harness process itself exits.
 */
import type { ChildProcess } from 'node:child_process';
import { readdirSync, readFileSync } from 'node:fs';

const live = new Set<number>();
let hooked = false;

function killAllSync(): void {
  for (const pgid of live) {
    try { process.kill(-pgid, 'SIGKILL'); } catch { /* already gone */ }
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

export function endOwnedOnSignals(onSignal?: (signal: 'SIGINT' | 'SIGTERM') => void, forceAfterMs = 30_000): void {
  const first = signalHandler === undefined;
  signalHandler = { onSignal, forceAfterMs };
  if (!first) return;
  for (const [sig, code] of [['SIGINT', 130], ['SIGTERM', 143]] as const) {
    process.on(sig, () => {
      const h = signalHandler;
      if (h?.onSignal && !signalled) {
        signalled = true;
        setTimeout(() => { killAllSync(); process.exit(code); }, h.forceAfterMs).unref();
        h.onSignal(sig);
        return;
      }
      killAllSync();
      process.exit(code);
    });
  }
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
  let names: string[];
  try { names = readdirSync('/proc'); } catch { return []; }
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
    for (const c of children.get(queue.shift()!) ?? []) { out.push(c); queue.push(c.pid); }
  }
  return out;
}

/** SIGKILL the processes seen earlier that are still the same processes and outside the group pgid; returns how many. */
export function endOutsiders(seen: SeenProcess[], pgid: number): number {
  let n = 0;
  for (const p of seen) {
    const st = procStat(p.pid);
    if (!st || st.start !== p.start || st.pgid === pgid) continue;
    try { process.kill(p.pid, 'SIGKILL'); n++; } catch { /* gone meanwhile */ }
  }
  return n;
}
