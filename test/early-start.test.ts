/**
 * `run --stdio CMD` starts the server before the CLI loads its modules (bin/early.ts, core/processes.ts earlyStart):
 * the run talks to that one process, and a usage error or a signal before the run ends it.
 */
import { describe, expect, it } from 'vitest';
import { existsSync, mkdtempSync, readFileSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { spawn } from 'node:child_process';
import { earlyStdioArgv, EARLY_CONFIG_NAMES } from '../bin/early.js';
import { CONFIG_FILE_NAMES } from '../lib/config.js';
import { CLI, cli, FIXTURES, ROOT, runArgs } from './helpers/cli.js';
import { remaining } from './helpers/proc.js';
import type { Report } from '../core/results.js';

const tmp = () => mkdtempSync(join(tmpdir(), 'mcp-conform-early-'));
/** A server command that appends its pid and start time (ns) to file, then becomes `then`. */
const logged = (file: string, then: string) => `sh -c 'echo "$$ $(date +%s%N)" >> ${file}; exec ${then}'`;
const starts = (file: string) =>
  existsSync(file)
    ? readFileSync(file, 'utf8')
        .trim()
        .split('\n')
        .filter(Boolean)
        .map((l) => l.split(' ').map(Number) as [number, number])
    : [];

async function gone(pid: number, ms = 5000): Promise<boolean> {
  const until = Date.now() + ms;
  while (Date.now() < until) {
    if (!remaining(undefined, [pid]).length) return true;
    await new Promise((r) => setTimeout(r, 50));
  }
  return false;
}

describe('early start of the stdio server', () => {
  it('the run talks to the one server process it started before loading its modules', async () => {
    const file = join(tmp(), 'starts');
    const r = await runArgs(['--stdio', logged(file, `python3 ${join(FIXTURES, 'calc.py')}`), '--suite', 'lifecycle']);
    expect(r.code).toBe(0);
    const s = starts(file);
    expect(s).toHaveLength(1); // started once, not once early and once more by the run
    expect(s[0]![0]).toBe(r.report.process.pid);
    expect(r.report.process.shutdown).toBe('exited');
    // Started before the run began (report.startedAt), i.e. while the harness was still loading.
    expect(s[0]![1] / 1e6).toBeLessThan(Date.parse(r.report.startedAt));
    expect(r.c('lifecycle/initialize').verdict).toBe('pass');
  }, 60_000);

  it('a usage error found after the early start ends the server (exit 2, no process left)', async () => {
    const file = join(tmp(), 'starts');
    const r = await cli(['run', '--stdio', logged(file, 'sleep 30'), '--suite', 'bogus', '--quiet']);
    expect(r.code).toBe(2);
    expect(r.stderr).toMatch(/unknown suite "bogus"/);
    const s = starts(file);
    expect(s).toHaveLength(1);
    expect(await gone(s[0]![0])).toBe(true);
  }, 60_000);

  it('SIGTERM while the harness is starting: the run stops as it begins, writes its report, ends the server (exit 143)', async () => {
    const file = join(tmp(), 'starts');
    const outDir = tmp();
    const child = spawn(
      process.execPath,
      [CLI, 'run', '--stdio', logged(file, 'sleep 30'), '--quiet', '--reporter', 'json', '--out-dir', outDir],
      { cwd: ROOT, stdio: 'ignore' },
    );
    const until = Date.now() + 20_000;
    while (!starts(file).length && Date.now() < until) await new Promise((r) => setTimeout(r, 5));
    child.kill('SIGTERM'); // the server has just started: the harness is still loading its modules (or, on a slow machine, already running)
    const code = await new Promise<number | null>((r) => child.on('exit', (c) => r(c)));
    expect(code).toBe(143);
    const report = JSON.parse(readFileSync(join(outDir, 'report.json'), 'utf8')) as Report;
    expect(report.aborted).toBe('the run was interrupted (SIGTERM)');
    expect(report.exitCode).toBe(143);
    const s = starts(file);
    expect(s).toHaveLength(1);
    expect(report.process.pid).toBe(s[0]![0]); // the run took the server over and shut it down as at any end
    expect(report.process.shutdown).toBe('SIGTERM'); // sleep does not end at stdin EOF
    expect(await gone(s[0]![0])).toBe(true);
  }, 60_000);

  it('starts early only a plain `run --stdio CMD` without a config file, --cwd, --env or another target', async () => {
    const dir = tmp();
    expect(EARLY_CONFIG_NAMES).toEqual(CONFIG_FILE_NAMES);
    expect(await earlyStdioArgv(['run', '--stdio', 'python3 "my server.py" -v', '--quiet'], dir)).toEqual([
      'python3',
      'my server.py',
      '-v',
    ]);
    expect(await earlyStdioArgv(['run', '--suite', 'lifecycle', '--stdio=node s.js'], dir)).toEqual(['node', 's.js']);
    for (const args of [
      ['list'],
      ['run'],
      ['run', '--http', 'http://127.0.0.1:1/mcp'],
      ['run', '--stdio', 'a', '--stdio', 'b'],
      ['run', '--stdio', 'a', '--cwd', '/'],
      ['run', '--stdio', 'a', '--env', 'K=V'],
      ['run', '--stdio', 'a', '--config', 'c.yaml'],
      ['run', '--stdio', 'a', '--help'],
      ['run', '--stdio', 'a', '-h'],
      ['run', '--stdio', 'a', '--version'],
      ['run', '--stdio', '"unclosed'],
      ['run', '--stdio', '  '],
    ])
      expect(await earlyStdioArgv(args, dir), args.join(' ')).toBeUndefined();
    writeFileSync(join(dir, 'mcp-conform.config.yaml'), 'timeout: 1000\n');
    expect(await earlyStdioArgv(['run', '--stdio', 'a'], dir)).toBeUndefined();
  });
});
