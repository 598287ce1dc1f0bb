/**
 * A directory under node_modules/.cache that a test helper fills once per machine (a Python venv, an npm install of
 * peers the project's own install must not carry) and later runs reuse: a `.ready` marker says it is complete.
 * Concurrent test files (vitest workers, or two vitest runs) do not race: the creator holds a lock directory (mkdir
 * is atomic); the others wait for it, bounded, and take over a lock whose owner died. A failed creation is
 * remembered for FAILURE_TTL_MS so the files of one run do not each try again; its reason is what the tests print
 * when they skip. Also: running a command in its own process group, bounded, its output kept short.
 */
import { spawn } from 'node:child_process';
import { existsSync, mkdirSync, readFileSync, rmSync, statSync, writeFileSync } from 'node:fs';
import { dirname } from 'node:path';

const FAILURE_TTL_MS = 10 * 60_000;

export interface Ran {
  code: number | null;
  out: string;
  timedOut: boolean;
}

/** Run a command in its own process group, bounded; output (stdout + stderr) kept to its last `keep` bytes (4 KB). */
export function runBounded(
  cmd: string,
  args: string[],
  timeoutMs: number,
  env: NodeJS.ProcessEnv = process.env,
  cwd?: string,
  keep = 4096,
): Promise<Ran> {
  return new Promise((resolve) => {
    let out = '';
    let timedOut = false;
    const child = spawn(cmd, args, { stdio: ['ignore', 'pipe', 'pipe'], detached: true, env, cwd });
    const add = (b: Buffer) => {
      out = (out + b.toString()).slice(-keep);
    };
    child.stdout.on('data', add);
    child.stderr.on('data', add);
    const timer = setTimeout(() => {
      timedOut = true;
      try {
        process.kill(-child.pid!, 'SIGKILL');
      } catch {
        /* already gone */
      }
    }, timeoutMs);
    child.on('error', (e) => {
      clearTimeout(timer);
      resolve({ code: -1, out: String(e), timedOut });
    });
    child.on('close', (code) => {
      clearTimeout(timer);
      resolve({ code, out, timedOut });
    });
  });
}

export const lastLine = (s: string) =>
  s
    .trim()
    .split('\n')
    .filter((l) => l.trim())
    .slice(-1)[0] ?? '';

function pidAlive(pid: number): boolean {
  try {
    process.kill(pid, 0);
    return true;
  } catch (e) {
    return (e as NodeJS.ErrnoException).code === 'EPERM';
  }
}

function lockAge(lock: string): number {
  try {
    return Date.now() - statSync(lock).mtimeMs;
  } catch {
    return 0;
  }
}

const sleep = (ms: number) => new Promise((r) => setTimeout(r, ms));

export interface CachedInstall {
  /** The directory to fill (its parent is created). */
  dir: string;
  /** Bound of one creation; waiters give up 30 s after it. */
  timeoutMs: number;
  /** Fill `dir` (it was removed first): undefined when it worked, else why not. */
  create(dir: string): Promise<string | undefined>;
  /** What the `.ready` marker says (for a person looking at the cache). */
  marker: string;
}

/** undefined once `dir` is complete (made now or by an earlier run), else why it could not be made. */
export async function cachedInstall(o: CachedInstall): Promise<string | undefined> {
  const { dir } = o;
  const ready = `${dir}/.ready`;
  const failed = `${dir}.failed`;
  const lock = `${dir}.lock`;
  mkdirSync(dirname(dir), { recursive: true });
  const until = Date.now() + o.timeoutMs + 30_000;
  for (;;) {
    if (existsSync(ready)) return undefined;
    if (existsSync(failed) && Date.now() - statSync(failed).mtimeMs < FAILURE_TTL_MS) {
      return `${readFileSync(failed, 'utf8').trim()} (remembered from a try at ${statSync(failed).mtime.toISOString()}; delete ${failed} to try again)`;
    }
    let mine = false;
    try {
      mkdirSync(lock);
      mine = true;
    } catch {
      /* someone else creates it */
    }
    if (mine) {
      writeFileSync(`${lock}/pid`, String(process.pid));
      try {
        if (existsSync(ready)) return undefined;
        rmSync(dir, { recursive: true, force: true });
        const why = await o.create(dir);
        if (why) {
          writeFileSync(failed, why);
          return why;
        }
        rmSync(failed, { force: true });
        writeFileSync(ready, `${o.marker}\n${new Date().toISOString()}\n`);
        return undefined;
      } finally {
        rmSync(lock, { recursive: true, force: true });
      }
    }
    // Another process holds the lock: wait for it; a lock whose owner died is taken over.
    let owner = NaN;
    try {
      owner = Number(readFileSync(`${lock}/pid`, 'utf8'));
    } catch {
      /* not written yet, or just removed */
    }
    const stale = Number.isFinite(owner) && owner > 0 ? !pidAlive(owner) : lockAge(lock) > 30_000;
    if (stale) rmSync(lock, { recursive: true, force: true });
    if (Date.now() > until)
      return `waited ${Math.round((o.timeoutMs + 30_000) / 1000)} s for another process creating ${dir} (lock ${lock})`;
    await sleep(500);
  }
}
