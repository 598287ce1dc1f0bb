// `mcp-conform load` against fixtures and the real SDK peers: figures, crossed answers, errors by kind, memory growth,
// requests in flight over stdio, the loopback rule, usage errors, and the bound on a run's length.
import { describe, expect, it } from 'vitest';
import { mkdtempSync, readFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { cli, FIXTURES, ROOT } from './helpers/cli.js';
import { pythonPeers } from './helpers/python-peers.js';
import { freePort, startServer } from './http-helpers.js';

async function load(server: string, extra: string[] = []) {
  const port = await freePort();
  const out = mkdtempSync(join(tmpdir(), 'load-'));
  const r = await cli(
    [
      'load',
      '--start',
      server.replace('{port}', String(port)),
      '--http',
      `http://127.0.0.1:${port}/mcp`,
      '--out-dir',
      out,
      '--reporter',
      'json',
      '--reporter',
      'junit',
      '--reporter',
      'console',
      ...extra,
    ],
    { timeoutMs: 60_000 },
  );
  let report: any;
  try {
    report = JSON.parse(readFileSync(join(out, 'report.json'), 'utf8'));
  } catch {
    /* asserted by the caller */
  }
  return { ...r, report, out, check: (id: string) => report?.suites[0].cases.find((c: any) => c.id === id) };
}

const py = (mode: string) => `python3 ${join(FIXTURES, 'http', 'load_http.py')} ${mode} {port}`;
const sdk = (v: string, mode: string) => `node ${join(FIXTURES, 'peers', 'sdk-isolation.mjs')} ${v} ${mode} {port}`;

describe('load against fixtures', () => {
  it('a sound HTTP server: 0 errors, 0 crossed, every figure present, exit 0', async () => {
    const r = await load(py('good'), ['--duration', '2', '--sessions', '4']);
    expect(r.code, r.stderr).toBe(0);
    const l = r.report.load;
    expect(l.crossed).toBe(0);
    expect(l.errors).toEqual({});
    expect(l.requests).toBeGreaterThan(20);
    expect(l.throughput).toBeGreaterThan(0);
    for (const k of ['p50', 'p90', 'p95', 'p99', 'max']) expect(l.latencyMs[k]).toBeGreaterThan(0);
    expect(l.latencyMs.p50).toBeLessThanOrEqual(l.latencyMs.p99);
    expect(Object.keys(l.byMethod)).toEqual(expect.arrayContaining(['ping', 'tools/list', 'tools/call echo']));
    expect(l.sessions).toMatchObject({ opened: 4, failed: 0, endedCleanly: 4 });
    expect(l.memory.samples.length).toBeGreaterThanOrEqual(2);
    expect(l.timeline.length).toBeGreaterThanOrEqual(2);
    expect(l.canary).toEqual({ by: 'tool', tool: 'echo' });
    const junit = readFileSync(join(r.out, 'junit.xml'), 'utf8');
    for (const id of ['load/crossed', 'load/error-rate', 'load/p95', 'load/memory']) expect(junit).toContain(id);
  }, 60_000);

  it('one reply table shared by all sessions: crossed > 0, exit 1', async () => {
    const r = await load(py('shared-replies'), ['--duration', '2', '--sessions', '4']);
    expect(r.code).toBe(1);
    expect(r.report.load.crossed).toBeGreaterThan(0);
    expect(r.check('load/crossed').verdict).toBe('fail');
    expect(r.stdout).toMatch(/reached the wrong client/);
  }, 60_000);

  it('503 when more than two requests are in flight: errors["http-503"] > 0', async () => {
    const r = await load(py('busy'), ['--duration', '2', '--sessions', '6']);
    expect(r.report.load.errors['http-503'] ?? 0).toBeGreaterThan(0);
  }, 60_000);

  it('a server that keeps memory per call: the memory warning', async () => {
    const r = await load(py('leak'), ['--duration', '5', '--sessions', '4']);
    expect(r.code, r.stderr).toBe(0);
    const m = r.check('load/memory');
    expect(m.verdict).toBe('warn');
    expect(m.message).toMatch(/MB per 1,000 requests/);
    expect(r.report.load.memory.steady).toBe(true);
  }, 60_000);

  it('a stdio server: several requests in flight on one process', async () => {
    const out = mkdtempSync(join(tmpdir(), 'load-'));
    const r = await cli(
      [
        'load',
        '--stdio',
        `python3 ${join(FIXTURES, 'slow-calls.py')}`,
        '--env',
        'SLOW_MS=200',
        '--sessions',
        '4',
        '--duration',
        '2',
        '--mix',
        'tools/call:lookup',
        '--out-dir',
        out,
        '--reporter',
        'json',
      ],
      { timeoutMs: 60_000 },
    );
    expect(r.code, r.stderr).toBe(0);
    const report = JSON.parse(readFileSync(join(out, 'report.json'), 'utf8'));
    const inFlight = Math.max(...report.process.stderr.map((l: string) => Number(/in-flight=(\d+)/.exec(l)?.[1] ?? 0)));
    expect(inFlight).toBeGreaterThanOrEqual(3);
    // One at a time would answer at most 10 calls of 200 ms in 2 s.
    expect(report.load.byMethod['tools/call lookup'].requests).toBeGreaterThan(15);
  }, 60_000);
});

describe('load modes and reports', () => {
  it('open loop (--rate) sends about rate × duration; --ramp opens every session; report.html has its plots', async () => {
    const r = await load(py('good'), [
      '--duration',
      '3',
      '--sessions',
      '4',
      '--rate',
      '20',
      '--ramp',
      '1',
      '--reporter',
      'html',
    ]);
    expect(r.code, r.stderr).toBe(0);
    const l = r.report.load;
    expect(l.mode).toBe('open-loop');
    expect(l.requests).toBeGreaterThanOrEqual(45);
    expect(l.requests).toBeLessThanOrEqual(61);
    expect(l.sessions.opened).toBe(4);
    const html = readFileSync(join(r.out, 'report.html'), 'utf8');
    expect(html.match(/<svg /g)?.length).toBeGreaterThanOrEqual(4);
    expect(html).toContain('p95 latency per second');
    expect(html).not.toMatch(/<script/);
  }, 60_000);
});

describe('merge of load reports', () => {
  it('sums the counts, merges the histograms, judges the checks again; a crossed answer on one machine fails the whole', async () => {
    const a = await load(py('good'), ['--duration', '2', '--sessions', '2']);
    const b = await load(py('shared-replies'), ['--duration', '2', '--sessions', '4']);
    const out = mkdtempSync(join(tmpdir(), 'load-merge-'));
    const r = await cli(
      ['merge', join(a.out, 'report.json'), join(b.out, 'report.json'), '--reporter', 'json', '--out-dir', out],
      { timeoutMs: 30_000 },
    );
    expect(r.code, r.stderr).toBe(1);
    const m = JSON.parse(readFileSync(join(out, 'report.json'), 'utf8'));
    expect(m.load.merged).toBe(2);
    expect(m.load.requests).toBe(a.report.load.requests + b.report.load.requests);
    expect(m.load.crossed).toBe(b.report.load.crossed);
    expect(m.load.sessions.opened).toBe(6);
    // HDR histograms keep 3 significant digits: the merged max is the same within that resolution
    const max = Math.max(a.report.load.latencyMs.max, b.report.load.latencyMs.max);
    expect(Math.abs(m.load.latencyMs.max - max) / max).toBeLessThan(0.01);
    expect(m.load.latencyMs.p50).toBeGreaterThanOrEqual(
      Math.min(a.report.load.latencyMs.p50, b.report.load.latencyMs.p50),
    );
    expect(m.load.latencyMs.p50).toBeLessThanOrEqual(
      Math.max(a.report.load.latencyMs.p50, b.report.load.latencyMs.p50),
    );
    expect(m.suites[0].cases.find((c: any) => c.id === 'load/crossed').verdict).toBe('fail');
    expect(m.load.memory).toBeUndefined();
  }, 90_000);
});

describe('load bounds', () => {
  it('never sends to a non-loopback address without --allow-remote: exit 2, saying why', async () => {
    for (const url of ['http://192.0.2.1:9/mcp', 'http://example.com/mcp', 'http://[2001:db8::1]/mcp']) {
      const r = await cli(
        [
          'load',
          '--http',
          url,
          '--duration',
          '1',
          '--reporter',
          'json',
          '--out-dir',
          mkdtempSync(join(tmpdir(), 'load-')),
        ],
        { timeoutMs: 20_000 },
      );
      expect(r.code).toBe(2);
      expect(r.stderr).toMatch(/not a loopback address.*--allow-remote/);
      expect(r.ms).toBeLessThan(10_000); // refused before any connection (192.0.2.1 would hang a connect)
    }
  }, 60_000);

  it('SIGINT stops the load cleanly: the report is written, exit 130, the server ended', async () => {
    const { spawn } = await import('node:child_process');
    const out = mkdtempSync(join(tmpdir(), 'load-'));
    const child = spawn(
      process.execPath,
      [
        join(ROOT, 'dist/bin/mcp-conform.js'),
        'load',
        '--stdio',
        `python3 ${join(FIXTURES, 'calc.py')}`,
        '--duration',
        '60',
        '--sessions',
        '2',
        '--out-dir',
        out,
        '--reporter',
        'json',
      ],
      { stdio: 'ignore' },
    );
    const t0 = Date.now();
    await new Promise((r) => setTimeout(r, 2500));
    child.kill('SIGINT');
    const code = await new Promise<number | null>((r) => child.on('exit', (c) => r(c)));
    expect(code).toBe(130);
    expect(Date.now() - t0).toBeLessThan(15_000);
    const report = JSON.parse(readFileSync(join(out, 'report.json'), 'utf8'));
    expect(report.load.endedBy).toBe('stopped');
    expect(report.load.requests).toBeGreaterThan(0);
    expect(report.process.exitCode !== undefined || report.process.signal !== undefined).toBe(true);
  }, 60_000);

  it('a config target: the one target, or the one --target names (several without --target: exit 2)', async () => {
    const { writeFileSync } = await import('node:fs');
    const dir = mkdtempSync(join(tmpdir(), 'load-config-'));
    writeFileSync(
      join(dir, 'mcp-conform.config.json'),
      JSON.stringify({
        targets: [
          { name: 'calc', stdio: `python3 ${join(FIXTURES, 'calc.py')}` },
          { name: 'other', stdio: `python3 ${join(FIXTURES, 'calc.py')}` },
        ],
      }),
    );
    const several = await cli(['load', '--duration', '1', '--reporter', 'json', '--out-dir', join(dir, 'out')], {
      cwd: dir,
      timeoutMs: 30_000,
    });
    expect(several.code).toBe(2);
    expect(several.stderr).toMatch(/--target NAME/);
    const one = await cli(
      ['load', '--target', 'calc', '--duration', '1', '--reporter', 'json', '--out-dir', join(dir, 'out')],
      { cwd: dir, timeoutMs: 30_000 },
    );
    expect(one.code, one.stderr).toBe(0);
    const report = JSON.parse(readFileSync(join(dir, 'out', 'report.json'), 'utf8'));
    expect(report.server.name).toBe('calc');
    expect(report.load.requests).toBeGreaterThan(0);
  }, 60_000);

  it('bad values are usage errors (exit 2)', async () => {
    for (const bad of [
      ['--sessions', '0'],
      ['--duration', '-1'],
      ['--rate', '10'],
      ['--requests', '0'],
      ['--max-error-rate', 'lots'],
    ]) {
      const r = await cli(['load', '--http', 'http://127.0.0.1:9/mcp', ...bad], { timeoutMs: 20_000 });
      expect(r.code, bad.join(' ')).toBe(2);
    }
  }, 60_000);

  it('a run ends within its duration plus a small grace, even when the server stops answering', async () => {
    // slow-calls answers each call after 5 s: every request outlives the 1.5 s duration.
    const out = mkdtempSync(join(tmpdir(), 'load-'));
    const r = await cli(
      [
        'load',
        '--stdio',
        `python3 ${join(FIXTURES, 'slow-calls.py')}`,
        '--env',
        'SLOW_MS=5000',
        '--sessions',
        '2',
        '--duration',
        '1.5',
        '--mix',
        'tools/call:lookup',
        '--out-dir',
        out,
        '--reporter',
        'json',
      ],
      { timeoutMs: 60_000 },
    );
    const report = JSON.parse(readFileSync(join(out, 'report.json'), 'utf8'));
    expect(report.load.endedBy).toBe('duration');
    expect(report.load.unfinished).toBe(2);
    // start-up + 1.5 s + 2 s grace + shutdown, with room for a busy machine
    expect(r.ms).toBeLessThan(12_000);
  }, 60_000);
});

describe('load against the real SDK (GHSA-345p-7cg4-v4c7)', () => {
  it('1.25.3 with one shared stateless transport: crossed > 0', async () => {
    const r = await load(sdk('sdk-1.25.3', 'shared'), ['--duration', '3', '--sessions', '4', '--timeout', '1000']);
    expect(r.code).toBe(1);
    expect(r.report.load.crossed).toBeGreaterThan(0);
  }, 60_000);

  it('1.26.0 with a server per request: 0 crossed, 0 errors', async () => {
    const r = await load(sdk('sdk-1.26.0', 'per-request'), ['--duration', '2', '--sessions', '4']);
    expect(r.code, r.stdout).toBe(0);
    expect(r.report.load.crossed).toBe(0);
    expect(r.report.load.errors).toEqual({});
  }, 60_000);
});

describe('load against protected real servers (--auth-server, a Bearer --header)', () => {
  const tokenLike = /eyJ[\w-]{10,}\.[\w-]{10,}/;

  it("the TS SDK's requireBearerAuth: every session gets in with the harness's token; the token is nowhere in the output", async () => {
    const r = await load(`node ${join(FIXTURES, 'peers', 'auth', 'sdk-bearer.mjs')} {port}`, [
      '--auth-server',
      '--duration',
      '2',
      '--sessions',
      '4',
    ]);
    expect(r.code, r.stdout + r.stderr).toBe(0);
    expect(r.report.load.errors).toEqual({});
    expect(r.report.load.requests).toBeGreaterThan(20);
    expect(r.report.load.sessions).toMatchObject({ opened: 4, failed: 0 });
    expect(r.report.load.byMethod['tools/call add']?.requests).toBeGreaterThan(0);
    expect(r.report.authorization).toMatchObject({ source: 'auth-server', discovered: { scope: 'mcp:tools' } });
    const written = readFileSync(join(r.out, 'report.json'), 'utf8') + readFileSync(join(r.out, 'junit.xml'), 'utf8');
    expect(written + r.stdout + r.stderr).not.toMatch(tokenLike);
  }, 60_000);

  it('FastMCP (Python) checking the audience: 0 errors with the harness token; a token it does not trust stops the run at the handshake (exit 1), never echoed', async () => {
    const py = await pythonPeers();
    if (!py.python) return void console.warn(`[load] FastMCP skipped: ${py.reason}`);
    const server = `${py.python} ${join(FIXTURES, 'peers', 'auth', 'python_fastmcp_jwt.py')} audience {port}`;
    const ok = await load(server, ['--auth-server', '--duration', '2', '--sessions', '3']);
    expect(ok.code, ok.stdout + ok.stderr).toBe(0);
    expect(ok.report.load.errors).toEqual({});
    expect(ok.report.load.sessions).toMatchObject({ opened: 3, failed: 0 });
    // A token of the user's the server does not trust: the run cannot even begin (the handshake is refused), exit 1.
    const bad = await load(`env MCP_CONFORM_AUTH_ISSUER=http://127.0.0.1:9 ${server}`, [
      '--header',
      'Authorization: Bearer not-a-token',
      '--duration',
      '1',
      '--sessions',
      '2',
    ]);
    expect(bad.code).toBe(1);
    expect(bad.stdout + bad.stderr).not.toContain('not-a-token');
  }, 120_000);
});

describe('load --oauth against oidc-provider in front of the TS SDK (tokens that live 1 s)', () => {
  it('every session gets in; tokens expire during the run and are renewed: 0 errors; no token or secret in the output', async () => {
    const file = join(mkdtempSync(join(tmpdir(), 'oidc-sdk-')), 'secrets.txt');
    const s = await startServer(['node', join(FIXTURES, 'peers', 'auth', 'oidc-sdk.mjs'), 'short'], {
      env: { OIDC_SDK_SECRETS_FILE: file },
    });
    try {
      const out = mkdtempSync(join(tmpdir(), 'load-'));
      const r = await cli(
        [
          'load',
          '--http',
          `http://127.0.0.1:${s.port}/mcp`,
          '--oauth',
          '--sessions',
          '4',
          '--duration',
          '4',
          '--out-dir',
          out,
          '--reporter',
          'json',
          '--reporter',
          'console',
        ],
        { timeoutMs: 60_000 },
      );
      expect(r.code, r.stdout + r.stderr).toBe(0);
      const written = readFileSync(join(out, 'report.json'), 'utf8');
      const report = JSON.parse(written);
      expect(report.authorization.source).toBe('oauth');
      expect(report.load.sessions).toMatchObject({ opened: 4, failed: 0 });
      expect(report.load.errors).toEqual({});
      // The tool `pause` takes 1.5 s, longer than a token lives: calls outlive their token throughout the run.
      expect(report.load.byMethod['tools/call pause']?.requests).toBeGreaterThan(4);
      const secrets = readFileSync(file, 'utf8')
        .split('\n')
        .filter((l) => l.length >= 8);
      expect(secrets.length).toBeGreaterThan(0);
      for (const x of secrets) expect(written + r.stdout + r.stderr).not.toContain(x);
    } finally {
      await s.stop();
    }
  }, 90_000);
});
