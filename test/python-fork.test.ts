/**
 * The Python peers' fork server (test/helpers/python-fork.ts) keeps the contract of `python script.py args` that the
 * harness relies on: arguments, environment, working directory, standard streams, the exit code, a forwarded SIGTERM,
 * and no child left when the launcher is killed. Run here with the system python3 (standard library only: the
 * preloaded SDK modules are simply absent).
 */
import { spawn, spawnSync } from 'node:child_process';
import { mkdtempSync, realpathSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { describe, expect, it } from 'vitest';
import { remaining } from './helpers/proc.js';
import { withForkServer } from './helpers/python-fork.js';

const which = spawnSync('sh', ['-c', 'command -v python3'], { encoding: 'utf8' });
const exe = spawnSync(which.stdout.trim(), ['-c', 'import sys; print(sys.executable)'], { encoding: 'utf8' });
const PYTHON = exe.status === 0 ? realpathSync(exe.stdout.trim()) : '';

const SCRIPT = `
import json, os, signal, sys, time
mode = sys.argv[1]
if mode == 'echo':
    data = sys.stdin.read()
    print(json.dumps({'argv': sys.argv[1:], 'env': os.environ.get('PYFORK_TEST'), 'cwd': os.getcwd(),
                      'stdin': data, 'pid': os.getpid(), 'ppid': os.getppid()}), flush=True)
    print('to stderr', file=sys.stderr, flush=True)
    sys.exit(3)
print(os.getpid(), flush=True)
time.sleep(60)
`;

interface Ended {
  code: number | null;
  signal: NodeJS.Signals | null;
  out: string;
  err: string;
}

function start(cmd: string, args: string[], opts: { env?: NodeJS.ProcessEnv; cwd?: string; input?: string } = {}) {
  const child = spawn(cmd, args, { env: opts.env ?? process.env, cwd: opts.cwd, stdio: 'pipe' });
  let out = '';
  let err = '';
  child.stdout.on('data', (b) => (out += b));
  child.stderr.on('data', (b) => (err += b));
  if (opts.input !== undefined) child.stdin.end(opts.input);
  const ended = new Promise<Ended>((r) => child.on('close', (code, signal) => r({ code, signal, out, err })));
  const firstLine = new Promise<string>((r) => {
    const t = setInterval(() => {
      if (out.includes('\n')) {
        clearInterval(t);
        r(out.split('\n')[0]!);
      }
    }, 20);
  });
  return { child, ended, firstLine };
}

/** The peer or anything of its process group still running (the fork server kills the group). */
const alive = (peer: number) => remaining(peer, [peer]).length > 0;

describe.skipIf(!PYTHON)('the Python peers’ fork server', () => {
  const dir = mkdtempSync(join(tmpdir(), 'pyfork-test-'));
  const script = join(dir, 'peer.py');
  writeFileSync(script, SCRIPT);

  it('runs the script with its arguments, environment, working directory and streams, and ends with its exit code', async () => {
    const launcher = await withForkServer(PYTHON);
    expect(launcher).not.toBe(PYTHON);
    const r = start(launcher, [script, 'echo', 'two words'], {
      env: { ...process.env, PYFORK_TEST: 'given' },
      cwd: dir,
      input: 'from stdin',
    });
    const e = await r.ended;
    expect(e.code).toBe(3);
    const seen = JSON.parse(e.out);
    expect(seen).toMatchObject({
      argv: ['echo', 'two words'],
      env: 'given',
      cwd: realpathSync(dir),
      stdin: 'from stdin',
    });
    expect(e.err).toContain('to stderr');
    // A fork of the server, not the launcher running the interpreter itself (exec keeps the pid).
    expect(seen.pid).not.toBe(r.child.pid);
    expect(seen.ppid).not.toBe(process.pid);
  });

  it('passes SIGTERM on to the peer and ends by it', async () => {
    const r = start(await withForkServer(PYTHON), [script, 'sleep']);
    const peer = Number(await r.firstLine);
    r.child.kill('SIGTERM');
    const e = await r.ended;
    expect(e.signal).toBe('SIGTERM');
    expect(alive(peer)).toBe(false);
  });

  it('a launcher killed outright (SIGKILL) leaves no peer behind', async () => {
    const r = start(await withForkServer(PYTHON), [script, 'sleep']);
    const peer = Number(await r.firstLine);
    r.child.kill('SIGKILL');
    await r.ended;
    const until = Date.now() + 5_000;
    while (alive(peer) && Date.now() < until) await new Promise((s) => setTimeout(s, 100));
    expect(alive(peer)).toBe(false);
  });

  it('anything but a script (an option such as -c) runs the interpreter itself', async () => {
    const e = await start(await withForkServer(PYTHON), ['-c', 'import os; print(os.getpid())']).ended;
    expect(e.code).toBe(0);
    expect(Number(e.out.trim())).toBeGreaterThan(0);
  });
});
