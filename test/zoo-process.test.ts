/**
 * The zoo, part 2: process ownership and bounds — servers that ignore EOF and SIGTERM, spawn helpers, never answer;
 * --max-duration; SIGINT/SIGTERM to the harness; an internal error. Nothing of a server may remain afterwards.
 */
import { describe, expect, it } from 'vitest';
import { spawn } from 'node:child_process';
import { existsSync, mkdtempSync, readFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { runSuites } from '../core/run.js';
import type { Report } from '../core/results.js';
import { createTransport } from '../core/transport/index.js';
import type { Transport } from '../core/transport/types.js';
import { ALL_SUITES } from '../suites/index.js';
import { CLI, FIXTURES, py } from './helpers/cli.js';
import { descendants } from '../core/processes.js';
import { announcedPids, remaining } from './helpers/proc.js';
import { notPassing, zoo } from './helpers/zoo.js';

/**
 * Start the CLI; once its server process is up, send it signals at the given times (ms after that), and collect
 * the exit code, the report, and every process the run had started just before the first signal.
 */
/**
 * The CLI on a zoo server, signals sent at the given times after the server has appeared (at least minProcesses
 * descendants of the CLI: 2 for a server that starts a child, so that the child exists before the signals).
 */
function interrupted(file: string, extra: string[], signals: [number, NodeJS.Signals][], minProcesses = 1) {
  const outDir = mkdtempSync(join(tmpdir(), 'mcp-conform-signal-'));
  const t0 = Date.now();
  const child = spawn(
    process.execPath,
    [CLI, 'run', '--stdio', py(file), '--out-dir', outDir, '--reporter', 'json', '--quiet', ...extra],
    { stdio: ['ignore', 'pipe', 'pipe'] },
  );
  let stderr = '';
  child.stderr.on('data', (b) => (stderr += b));
  // every process seen under the CLI until the first signal: one snapshot could miss the server's child (a /proc
  // read racing a fork, or a slow machine), and then 'nothing remains' would be asserted of too little
  const seen = new Set<number>();
  let started: number[] = [];
  let armed = false;
  const poll = setInterval(() => {
    const now = descendants(child.pid!);
    for (const p of now) seen.add(p.pid);
    if (armed || now.length < minProcesses) return;
    armed = true;
    setTimeout(
      () => {
        clearInterval(poll);
        started = [...seen];
      },
      Math.max(0, signals[0]![0] - 50),
    );
    for (const [at, sig] of signals) setTimeout(() => child.kill(sig), at);
  }, 20);
  return new Promise<{ code: number | null; ms: number; report?: Report; stderr: string; started: number[] }>(
    (resolve) => {
      const guard = setTimeout(() => child.kill('SIGKILL'), 60_000);
      child.on('close', (code) => {
        clearTimeout(guard);
        clearInterval(poll);
        const file = join(outDir, 'report.json');
        resolve({
          code,
          ms: Date.now() - t0,
          stderr,
          started,
          report: existsSync(file) ? (JSON.parse(readFileSync(file, 'utf8')) as Report) : undefined,
        });
      });
    },
  );
}

describe('zoo: process ownership and bounds', () => {
  it('ignores EOF and SIGTERM, with a child (broken/ignore-sigterm.py): SIGKILL to the group, shutdown warn, nothing left', async () => {
    const r = await zoo('broken/ignore-sigterm.py', ['--suite', 'lifecycle'], { code: 0, withinMs: 3 * 500 + 8_000 });
    expect(r.c('lifecycle/shutdown')).toMatchObject({ verdict: 'warn', message: expect.stringMatching(/SIGKILL/) });
    expect(announcedPids(r.report.process.stderr)).toHaveLength(1);
    expect(r.report.process.shutdown).toBe('SIGKILL');
  });

  it('never answers (broken/silent.py): initialize fails on its timeout, the rest is skipped, exit 1', async () => {
    const r = await zoo('broken/silent.py', ['--timeout', '1000'], { code: 1, withinMs: 1000 + 3 * 500 + 8_000 });
    expect(r.c('lifecycle/initialize')).toMatchObject({
      verdict: 'fail',
      message: expect.stringMatching(/not answered within 1000 ms/),
    });
    expect(r.c('robustness/invalid-json')).toMatchObject({
      verdict: 'skip',
      message: expect.stringMatching(/^the server never came up: the server answered nothing within 1000 ms/),
    });
    expect(r.report.startFailure?.kind).toBe('silent');
    expect(r.report.aborted).toMatch(/initialize failed/);
  });

  it('exits at start (broken/exit-at-start.py): exit code and stderr in the report, exit 1', async () => {
    const r = await zoo('broken/exit-at-start.py', [], { code: 1, withinMs: 8_000 });
    expect(r.c('lifecycle/initialize').message).toMatch(/exited with code 2.*missing config file/);
  });

  it('helpers that hold the pipes, or leave the process group: the run does not wait on them, and ends them', async () => {
    for (const file of ['zoo/children-hold-pipes.py', 'zoo/escaping-child.py']) {
      const r = await zoo(file, ['--suite', 'lifecycle,robustness'], { code: 0, withinMs: 12_000 });
      expect(announcedPids(r.report.process.stderr)).toHaveLength(1);
      expect(notPassing(r)).toEqual({ 'robustness/request-before-initialize': 'info' });
      expect(r.report.process.shutdown).toBe('exited');
    }
  });

  it('--max-duration: the case in flight and all after it are skipped with why, the server is stopped, exit 1', async () => {
    const r = await zoo('zoo/slow-tool.py', ['--max-duration', '2500'], { code: 1, withinMs: 2500 + 4 * 500 + 5_000 });
    expect(r.report.aborted).toBe('the run reached its time limit of 2500 ms (--max-duration)');
    expect(r.c('calling/tool')).toMatchObject({
      verdict: 'skip',
      message: 'not finished: the run reached its time limit of 2500 ms (--max-duration)',
    });
    expect(r.c('unknown-tool/call')).toMatchObject({
      verdict: 'skip',
      message: expect.stringMatching(/^not run: the run reached its time limit/),
    });
    expect(r.c('lifecycle/ping').verdict).toBe('pass'); // what ran before the limit keeps its verdict
    expect(r.c('stdio/utf8').verdict).toBe('pass'); // the log is still judged
    expect(r.report.durationMs).toBeLessThan(2500 + 4 * 500 + 1000);
  });

  it('SIGINT: the partial report is written, the server is stopped, exit 130', async () => {
    const r = await interrupted('zoo/slow-tool.py', ['--shutdown-grace', '500'], [[700, 'SIGINT']]);
    expect(r.code).toBe(130);
    expect(r.report).toBeDefined();
    expect(r.report!.exitCode).toBe(130);
    expect(r.report!.aborted).toBe('the run was interrupted (SIGINT)');
    const cases = r.report!.suites.flatMap((s) => s.cases);
    expect(cases.some((c) => c.verdict === 'skip' && /interrupted \(SIGINT\)/.test(c.message))).toBe(true);
    expect(r.ms).toBeLessThan(700 + 4 * 500 + 6_000);
    expect(remaining(r.report!.process.pid, r.started)).toEqual([]);
  });

  it('SIGTERM to a run whose server ignores SIGTERM and has a child: report written, group killed, exit 143', async () => {
    const r = await interrupted(
      'broken/ignore-sigterm.py',
      ['--shutdown-grace', '500', '--timeout', '60000'],
      [[700, 'SIGTERM']],
    );
    expect(r.code).toBe(143);
    expect(r.report!.exitCode).toBe(143);
    expect(r.report!.aborted).toBe('the run was interrupted (SIGTERM)');
    expect(r.report!.process.shutdown).toBe('SIGKILL');
    expect(remaining(r.report!.process.pid, announcedPids(r.report!.process.stderr))).toEqual([]);
  });

  it('a second SIGINT ends everything at once (no waiting for a slow shutdown), exit 130', async () => {
    const r = await interrupted(
      'broken/ignore-sigterm.py',
      ['--shutdown-grace', '20000'],
      [
        [700, 'SIGINT'],
        [1200, 'SIGINT'],
      ],
      2,
    );
    expect(r.code).toBe(130);
    expect(r.ms).toBeLessThan(6_000);
    expect(r.started.length).toBeGreaterThanOrEqual(2); // the server and its child
    expect(remaining(undefined, r.started)).toEqual([]);
  });

  it('an internal error during the run still ends the server process', async () => {
    const made: Transport[] = [];
    const run = runSuites({
      target: { transport: 'stdio', command: 'calc', argv: ['python3', join(FIXTURES, 'broken', 'ignore-sigterm.py')] },
      suites: ALL_SUITES,
      suiteFilter: ['lifecycle'],
      shutdownGraceMs: 300,
      transportFactory: (t, o) => {
        const x = createTransport(t, o);
        made.push(x);
        return x;
      },
      onSuite: () => {
        throw new Error('a reporter bug');
      },
    });
    await expect(run).rejects.toThrow('a reporter bug');
    const p = made[0]!.processInfo()!;
    expect(p.shutdown).toBe('SIGKILL');
    expect(remaining(p.pid, announcedPids(p.stderr))).toEqual([]);
  });
});
