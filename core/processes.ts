/**
 * Ownership of the processes a run starts. Each server runs in its own process group; the group is ended when the
 * run ends, and, as a last resort, when the harness process itself exits.
 */
import type { ChildProcess } from 'node:child_process';

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

/** On SIGINT/SIGTERM to the harness: end every owned group, then exit with 128 + signal number. */
export function endOwnedOnSignals(): void {
  for (const [sig, code] of [['SIGINT', 130], ['SIGTERM', 143]] as const) {
    process.once(sig, () => {
      killAllSync();
      process.exit(code);
    });
  }
}
