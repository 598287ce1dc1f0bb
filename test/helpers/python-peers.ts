/**
 * A Python virtual environment with the Python MCP SDK (`mcp` 2.x) and Python FastMCP, for the tests that run the
 * Python peers (fixtures/servers/peers/python_*.py).
 *
 * Created once with `python3 -m venv DIR && DIR/bin/pip install --retries 0 --timeout 10 'mcp>=2' fastmcp` under
 * node_modules/.cache/mcp-conform-pyvenv/ and reused by later runs (a `.ready` marker says it is complete; the
 * directory name carries a hash of the requirements, so changing them makes a new one). Concurrent test files
 * (vitest workers, or two vitest runs) do not race: the creator holds a lock directory (mkdir is atomic); the
 * others wait for it, bounded. A failed creation is remembered for FAILURE_TTL_MS so the files of one run do not
 * each try again; its reason is what the tests print when they skip.
 *
 * MCP_CONFORM_PYTHON=/path/to/python uses that interpreter instead (it must import mcp and fastmcp);
 * MCP_CONFORM_PYTHON=none skips the Python peers (the reason says so).
 */
import { spawn } from 'node:child_process';
import { createHash } from 'node:crypto';
import { existsSync, mkdirSync, readFileSync, rmSync, statSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { ROOT } from './cli.js';

export const REQUIREMENTS = ['mcp>=2', 'fastmcp'];
export const CACHE_ROOT = join(ROOT, 'node_modules', '.cache', 'mcp-conform-pyvenv');
/** Bound of the whole creation (venv + pip install); it takes about 20 s on this kind of machine. */
export const CREATE_TIMEOUT_MS = 240_000;
const FAILURE_TTL_MS = 10 * 60_000;

export type PythonPeers = { python: string; reason?: undefined } | { python?: undefined; reason: string };

const venvDir = () => join(CACHE_ROOT, createHash('sha256').update(REQUIREMENTS.join('\n')).digest('hex').slice(0, 12));

interface Ran { code: number | null; out: string; timedOut: boolean }

/** Run a command in its own process group, bounded; output (stdout + stderr) kept to its last 4 KB. */
function runBounded(cmd: string, args: string[], timeoutMs: number, env: NodeJS.ProcessEnv = process.env): Promise<Ran> {
  return new Promise((resolve) => {
    let out = '';
    let timedOut = false;
    const child = spawn(cmd, args, { stdio: ['ignore', 'pipe', 'pipe'], detached: true, env });
    const keep = (b: Buffer) => { out = (out + b.toString()).slice(-4096); };
    child.stdout.on('data', keep);
    child.stderr.on('data', keep);
    const timer = setTimeout(() => {
      timedOut = true;
      try { process.kill(-child.pid!, 'SIGKILL'); } catch { /* already gone */ }
    }, timeoutMs);
    child.on('error', (e) => { clearTimeout(timer); resolve({ code: -1, out: String(e), timedOut }); });
    child.on('close', (code) => { clearTimeout(timer); resolve({ code, out, timedOut }); });
  });
}

const lastLine = (s: string) => s.trim().split('\n').filter((l) => l.trim()).slice(-1)[0] ?? '';

/** Does this interpreter import both packages? undefined when it does, else why not. */
async function check(python: string): Promise<string | undefined> {
  const r = await runBounded(python, ['-c', 'import mcp.server, fastmcp; print("ok")'], 60_000);
  return r.code === 0 ? undefined : `${python} cannot import mcp and fastmcp: ${lastLine(r.out) || `exit ${r.code}`}`;
}

async function create(dir: string): Promise<string | undefined> {
  const deadline = Date.now() + CREATE_TIMEOUT_MS;
  const left = () => Math.max(1, deadline - Date.now());
  const version = await runBounded('python3', ['-c', 'import sys; print("%d.%d" % sys.version_info[:2])'], 10_000);
  if (version.code !== 0) return `python3 is not usable: ${lastLine(version.out) || `exit ${version.code}`}`;
  const [major, minor] = version.out.trim().split('.').map(Number);
  if (major! < 3 || (major === 3 && minor! < 10)) return `python3 is ${version.out.trim()}; the Python MCP SDK 2.x needs 3.10 or later`;
  rmSync(dir, { recursive: true, force: true });
  const venv = await runBounded('python3', ['-m', 'venv', dir], left());
  if (venv.code !== 0) return `python3 -m venv failed${venv.timedOut ? ' (timed out)' : ''}: ${lastLine(venv.out)}`;
  const pip = await runBounded(join(dir, 'bin', 'pip'), ['install', '--retries', '0', '--timeout', '10', ...REQUIREMENTS], left(),
    { ...process.env, PIP_DISABLE_PIP_VERSION_CHECK: '1' });
  if (pip.code !== 0) {
    return `pip install ${REQUIREMENTS.map((r) => `'${r}'`).join(' ')} failed${pip.timedOut ? ` (stopped after ${CREATE_TIMEOUT_MS / 1000} s)` : ''}: ${lastLine(pip.out)}`;
  }
  return check(join(dir, 'bin', 'python'));
}

function pidAlive(pid: number): boolean {
  try { process.kill(pid, 0); return true; } catch (e) { return (e as NodeJS.ErrnoException).code === 'EPERM'; }
}

function lockAge(lock: string): number {
  try { return Date.now() - statSync(lock).mtimeMs; } catch { return 0; }
}

const sleep = (ms: number) => new Promise((r) => setTimeout(r, ms));

let memo: Promise<PythonPeers> | undefined;

/** The venv's python, or why there is none. Creates the venv at most once per machine (see the file comment). */
export function pythonPeers(): Promise<PythonPeers> {
  return (memo ??= resolvePeers());
}

async function resolvePeers(): Promise<PythonPeers> {
  const forced = process.env.MCP_CONFORM_PYTHON;
  if (forced === 'none') return { reason: 'MCP_CONFORM_PYTHON=none: Python peers skipped' };
  if (forced) {
    const why = await check(forced);
    return why ? { reason: why } : { python: forced };
  }
  const dir = venvDir();
  const python = join(dir, 'bin', 'python');
  const ready = join(dir, '.ready');
  const failed = `${dir}.failed`;
  const lock = `${dir}.lock`;
  mkdirSync(CACHE_ROOT, { recursive: true });
  const until = Date.now() + CREATE_TIMEOUT_MS + 30_000;
  for (;;) {
    if (existsSync(ready)) return { python };
    if (existsSync(failed) && Date.now() - statSync(failed).mtimeMs < FAILURE_TTL_MS) {
      return { reason: `${readFileSync(failed, 'utf8').trim()} (remembered from a try at ${statSync(failed).mtime.toISOString()}; delete ${failed} to try again)` };
    }
    let mine = false;
    try { mkdirSync(lock); mine = true; } catch { /* someone else creates it */ }
    if (mine) {
      writeFileSync(join(lock, 'pid'), String(process.pid));
      try {
        if (existsSync(ready)) return { python };
        const why = await create(dir);
        if (why) {
          writeFileSync(failed, why);
          return { reason: why };
        }
        rmSync(failed, { force: true });
        writeFileSync(ready, `${REQUIREMENTS.join(' ')}\n${new Date().toISOString()}\n`);
        return { python };
      } finally {
        rmSync(lock, { recursive: true, force: true });
      }
    }
    // Another process holds the lock: wait for it; a lock whose owner died is taken over.
    let owner = NaN;
    try { owner = Number(readFileSync(join(lock, 'pid'), 'utf8')); } catch { /* not written yet, or just removed */ }
    const stale = Number.isFinite(owner) && owner > 0 ? !pidAlive(owner) : lockAge(lock) > 30_000;
    if (stale) rmSync(lock, { recursive: true, force: true });
    if (Date.now() > until) return { reason: `waited ${Math.round((CREATE_TIMEOUT_MS + 30_000) / 1000)} s for another process creating ${dir} (lock ${lock})` };
    await sleep(500);
  }
}
