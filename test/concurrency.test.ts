/**
 * `run --concurrency N`: a config's targets side by side (stdio servers started together, HTTP servers tested
 * together). Each target's verdicts are those of a serial run; a target that hangs or crashes holds no other up; a
 * target's live output is printed whole; bad values are usage errors.
 */
import { spawn } from 'node:child_process';
import { mkdtempSync, readFileSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { mapPool } from '../core/pool.js';
import type { Report } from '../core/results.js';
import { consoleReporter } from '../reports/console.js';
import { bufferHooks } from '../reports/index.js';
import type { CombinedReport } from '../reports/types.js';
import { CLI, cli } from './helpers/cli.js';
import { processTable } from './helpers/proc.js';
import { brokenHttp, FIXTURES, startServer, type Started } from './http-helpers.js';
import { kase, makeReport } from './helpers/report.js';

describe('mapPool', () => {
  it('runs at most N at once, returns results in item order, and starts nothing more once stopped', async () => {
    let running = 0;
    let peak = 0;
    const out = await mapPool([30, 5, 20, 1, 10, 2], 3, async (ms, i) => {
      running++;
      peak = Math.max(peak, running);
      await new Promise((r) => setTimeout(r, ms));
      running--;
      return i;
    });
    expect(out).toEqual([0, 1, 2, 3, 4, 5]);
    expect(peak).toBe(3);
    const stop = new AbortController();
    const started: number[] = [];
    const some = await mapPool(
      [1, 2, 3, 4, 5],
      2,
      async (x) => {
        started.push(x);
        if (x === 2) stop.abort();
        await new Promise((r) => setTimeout(r, 5));
        return x;
      },
      { stop: stop.signal },
    );
    expect(started).toEqual([1, 2]);
    expect(some).toEqual([1, 2]);
    await expect(
      mapPool([1, 2, 3], 1, async (x) => {
        if (x === 2) throw new Error('boom');
        return x;
      }),
    ).rejects.toThrow('boom');
  });
});

describe("bufferHooks: a target's progress is printed whole", () => {
  it('two targets whose hooks interleave print their lines one target after the other', async () => {
    let err = '';
    const io = {
      stdout: async () => {},
      stderr: (s: string) => {
        err += s;
      },
      env: {},
      color: false,
      progress: { color: false } as const,
    };
    const reporters = [consoleReporter(io)];
    const a = bufferHooks(reporters);
    const b = bufferHooks(reporters);
    const ra = makeReport([kase('lifecycle/ping', 'pass'), kase('stdio/utf8', 'fail')]);
    const rb = makeReport([kase('lifecycle/ping', 'warn'), kase('stdio/utf8', 'pass')]);
    a.reporter.onRunStart!({ label: 'alpha' });
    b.reporter.onRunStart!({ label: 'beta' });
    b.reporter.onSuiteDone!(rb.suites[0], 'session', rb.suites[0].cases);
    a.reporter.onSuiteDone!(ra.suites[0], 'session', ra.suites[0].cases);
    a.reporter.onSuiteDone!(ra.suites[1], 'session', ra.suites[1].cases);
    b.reporter.onSuiteDone!(rb.suites[1], 'session', rb.suites[1].cases);
    b.stderr('beta: a line of its own\n');
    expect(err).toBe(''); // nothing printed while the targets run
    await b.flush(async (s) => {
      err += s;
    });
    await a.flush(async (s) => {
      err += s;
    });
    const lines = err.trimEnd().split('\n');
    expect(lines[0]).toBe('Testing beta');
    expect(lines.slice(1, 3).map((l) => l.trim().split(/\s+/)[1])).toEqual(['lifecycle', 'stdio']);
    expect(lines[3]).toBe('beta: a line of its own');
    expect(lines[4]).toBe('Testing alpha');
    expect(lines[5]).toMatch(/lifecycle\s+1 pass/);
    expect(lines[6]).toMatch(/stdio\s+1 fail/);
  });
});

describe('run --concurrency through the CLI', () => {
  const dir = mkdtempSync(join(tmpdir(), 'mcp-conform-concurrency-'));
  let good: Started;
  let sloppy: Started;
  let serial: { code: number | null; report: CombinedReport };
  let side: { code: number | null; report: CombinedReport; stdout: string };
  const verdicts = (runs: Report[]) =>
    runs.map((r) => [
      r.target.name,
      r.exitCode,
      r.aborted ?? null,
      r.suites.flatMap((s) => s.cases.map((c) => `${c.id}=${c.verdict}`)),
    ]);

  beforeAll(async () => {
    [good, sloppy] = await Promise.all([
      startServer(['python3', brokenHttp, 'good']),
      startServer(['python3', brokenHttp, 'sloppy']),
    ]);
    writeFileSync(
      join(dir, 'mcp-conform.config.yaml'),
      [
        'suites: [lifecycle, stdio, http]',
        'timeout: 5000',
        'targets:',
        // First, so that it takes a slot for its whole timeout while the others go on beside it.
        '  - name: silent',
        `    stdio: python3 ${join(FIXTURES, 'broken', 'silent.py')}`,
        '  - name: calc',
        `    stdio: python3 ${join(FIXTURES, 'calc.py')}`,
        '  - name: crash',
        `    stdio: python3 ${join(FIXTURES, 'broken', 'exit-at-start.py')}`,
        '  - name: http-good',
        `    http: http://127.0.0.1:${good.port}/mcp`,
        '  - name: stray',
        `    stdio: python3 ${join(FIXTURES, 'broken', 'stray-stdout.py')}`,
        '  - name: http-sloppy',
        `    http: http://127.0.0.1:${sloppy.port}/mcp`,
      ].join('\n'),
    );
    const s = await cli(['run', '--out-dir', 'serial', '--reporter', 'json', '--quiet'], {
      cwd: dir,
      timeoutMs: 300_000,
    });
    serial = {
      code: s.code,
      report: JSON.parse(readFileSync(join(dir, 'serial', 'report.json'), 'utf8')) as CombinedReport,
    };
    const c = await cli(
      ['run', '--concurrency', '3', '--out-dir', 'side', '--reporter', 'json', '--reporter', 'console'],
      { cwd: dir, timeoutMs: 300_000 },
    );
    side = {
      code: c.code,
      stdout: c.stdout,
      report: JSON.parse(readFileSync(join(dir, 'side', 'report.json'), 'utf8')) as CombinedReport,
    };
  }, 600_000);

  afterAll(async () => {
    await Promise.all([good?.stop(), sloppy?.stop()]);
  });

  it('gives every target the verdicts of a serial run, in config order, with the same exit code', () => {
    expect(side.code).toBe(serial.code);
    expect(side.code).toBe(1);
    expect(side.report.runs.map((r) => r.target.name)).toEqual([
      'silent',
      'calc',
      'crash',
      'http-good',
      'stray',
      'http-sloppy',
    ]);
    expect(verdicts(side.report.runs)).toEqual(verdicts(serial.report.runs));
    expect(side.report.summary).toEqual(serial.report.summary);
    // Runs in one process share no numbering: each HTTP target's probes count from 1, side by side or one after another.
    const probeIds = (r: Report) =>
      [...JSON.stringify(r).matchAll(/mcp-conform-probe-(\d+)/g)].map((m) => Number(m[1]));
    const http = [...side.report.runs, ...serial.report.runs].filter((r) => r.target.transport === 'streamable-http');
    expect(http).toHaveLength(4);
    for (const r of http) expect(Math.min(...probeIds(r)), r.target.name).toBe(1);
    // The console report lists the targets in config order too.
    const at = ['silent', 'calc', 'crash', 'http-good', 'stray', 'http-sloppy'].map((n) => side.stdout.indexOf(n));
    expect(at.every((x, i) => x >= 0 && (i === 0 || x > at[i - 1]))).toBe(true);
  });

  it('runs targets side by side: the silent server holds its slot while others start and finish', () => {
    const span = (r: Report) => [Date.parse(r.startedAt), Date.parse(r.startedAt) + r.durationMs] as const;
    const [silent, ...others] = side.report.runs;
    expect(silent.suites.flatMap((s) => s.cases).find((c) => c.id === 'lifecycle/initialize')?.verdict).toBe('fail');
    const [s0, s1] = span(silent);
    // Targets that started after the silent one and were done before it: nothing waited for it.
    const beside = others.filter((r) => {
      const [a, b] = span(r);
      return a >= s0 && b <= s1;
    });
    expect(beside.length).toBeGreaterThan(0);
    // The serial run, by contrast, never has two targets at once.
    const serialSpans = serial.report.runs.map(span);
    for (let i = 1; i < serialSpans.length; i++)
      expect(serialSpans[i][0]).toBeGreaterThanOrEqual(serialSpans[i - 1][1] - 5);
  });

  it('SIGINT stops every running target (their reports kept, their servers ended) and starts no other: exit 130', async () => {
    const sig = mkdtempSync(join(tmpdir(), 'mcp-conform-concurrency-sigint-'));
    const silent = join(FIXTURES, 'broken', 'silent.py');
    writeFileSync(
      join(sig, 'mcp-conform.config.yaml'),
      [
        'suites: [lifecycle]',
        'timeout: 60000',
        'targets:',
        ...['a', 'b', 'c'].flatMap((n) => [`  - name: ${n}`, `    stdio: python3 ${silent} ${sig}`]),
        '  - name: d',
        `    stdio: python3 ${join(FIXTURES, 'calc.py')}`,
      ].join('\n'),
    );
    const child = spawn(
      process.execPath,
      [CLI, 'run', '--concurrency', '3', '--reporter', 'json', '--quiet', '--out-dir', 'out'],
      { cwd: sig, stdio: 'ignore' },
    );
    // Once the three silent servers are up (each waits 60 s for an answer it never gets), interrupt.
    const until = Date.now() + 60_000;
    while (
      processTable().filter((p) => p.args.includes(silent) && p.args.includes(sig) && !p.stat.startsWith('Z')).length <
        3 &&
      Date.now() < until
    )
      await new Promise((r) => setTimeout(r, 200));
    child.kill('SIGINT');
    const code = await new Promise<number | null>((res) => child.on('exit', (c) => res(c)));
    expect(code).toBe(130);
    const report = JSON.parse(readFileSync(join(sig, 'out', 'report.json'), 'utf8')) as CombinedReport;
    expect(report.runs.map((r) => [r.target.name, r.exitCode])).toEqual([
      ['a', 130],
      ['b', 130],
      ['c', 130],
    ]);
    expect(
      processTable().filter((p) => p.args.includes(silent) && p.args.includes(sig) && !p.stat.startsWith('Z')),
    ).toEqual([]);
  }, 120_000);

  it('refuses a concurrency that is not a whole number ≥ 1 or auto (exit 2)', async () => {
    for (const v of ['0', '-2', '1.5', 'many']) {
      const r = await cli(['run', '--concurrency', v, '--stdio', 'python3 x.py'], { cwd: dir });
      expect(r.code, v).toBe(2);
      expect(r.stderr).toContain(`--concurrency ${v}: expected a whole number`);
    }
  });
});
