/** The process table, for tests that check nothing of a server remains (zombies, already dead, do not count). */
import { execFileSync } from 'node:child_process';

export interface Row {
  pid: number;
  pgid: number;
  stat: string;
  args: string;
}

export function processTable(): Row[] {
  const out = execFileSync('ps', ['-eo', 'pid=,pgid=,stat=,args='], { encoding: 'utf8' });
  return out
    .split('\n')
    .filter((l) => l.trim())
    .map((l) => {
      const m = /^\s*(\d+)\s+(\d+)\s+(\S+)\s+(.*)$/.exec(l)!;
      return { pid: Number(m[1]), pgid: Number(m[2]), stat: m[3]!, args: m[4]! };
    });
}

/** Live processes (not zombies) that are in process group pgid or have one of the pids. */
export function remaining(pgid: number | undefined, pids: number[] = []): Row[] {
  return processTable().filter(
    (r) => !r.stat.startsWith('Z') && ((pgid !== undefined && r.pgid === pgid) || pids.includes(r.pid)),
  );
}

/** pids the zoo servers announce on stderr ("child pid <n>"). */
export function announcedPids(stderr: string[]): number[] {
  return stderr.flatMap((l) => [...l.matchAll(/child pid (\d+)/g)].map((m) => Number(m[1])));
}
