/**
 * A new user's first mistakes, through the built CLI: each gets a few lines that lead with the cause (held to a line
 * bound, the cause in the first lines), and a target that never came up is one failing case with the cause, every
 * other case skipped with it, no pass (report.startFailure). Needs the build.
 */
import { spawn } from 'node:child_process';
import { mkdtempSync, readFileSync, writeFileSync, existsSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { describe, expect, it } from 'vitest';
import type { Report } from '../core/results.js';
import { cli, CLI, FIXTURES, ROOT } from './helpers/cli.js';
import { freePort } from './http-helpers.js';

const lines = (s: string) => s.split('\n').filter((l, i, a) => l !== '' || i < a.length - 1);
const first = (s: string, n: number) => lines(s).slice(0, n).join('\n');

/** A port nothing listens on (bound, then released). */

/** `run` with the console on (as a user runs it) and report.json written: the console text and the report. */
async function userRun(
  args: string[],
  timeoutMs = 90_000,
): Promise<{ code: number | null; out: string; report: Report; ms: number; dir: string }> {
  const dir = mkdtempSync(join(tmpdir(), 'mcp-conform-first-'));
  const r = await cli(['run', ...args, '--out-dir', dir], { cwd: dir, timeoutMs });
  const file = join(dir, 'report.json');
  if (!existsSync(file)) throw new Error(`no report (exit ${r.code})\n${r.stdout}\n${r.stderr}`);
  return {
    code: r.code,
    out: r.stdout + r.stderr,
    report: JSON.parse(readFileSync(file, 'utf8')) as Report,
    ms: r.ms,
    dir,
  };
}

/** What a target that never came up must give: one fail with the cause, the rest skipped with it, no pass. */
function neverCameUp(report: Report, cause: RegExp, failing = 'lifecycle/initialize'): void {
  const cases = report.suites.flatMap((s) => s.cases);
  expect(report.startFailure?.cause).toMatch(cause);
  expect(report.summary.pass).toBe(0);
  expect(cases.filter((c) => c.verdict === 'fail').map((c) => c.id)).toEqual([failing]);
  expect(cases.filter((c) => c.verdict !== 'fail' && c.verdict !== 'skip')).toEqual([]);
  for (const c of cases) expect(c.message).toMatch(cause);
  expect(report.exitCode).toBe(1);
}

const py = (f: string) => `python3 ${join(FIXTURES, f)}`;

describe('first mistakes: a few lines that lead with the cause', () => {
  it('a typo\'d command: "did you mean run?", exit 2, 2 lines', async () => {
    const r = await cli(['rnu', '--stdio', 'x']);
    expect(r.code).toBe(2);
    expect(lines(r.stderr).length).toBeLessThanOrEqual(3);
    expect(first(r.stderr, 1)).toMatch(/unknown command "rnu"; did you mean run\?/);
    expect(r.stderr).toContain('mcp-conform --help');
  });

  it('a typo\'d flag: "did you mean --stdio?", and the command\'s own help', async () => {
    const r = await cli(['run', '--stdoi', 'python3 server.py']);
    expect(r.code).toBe(2);
    expect(lines(r.stderr).length).toBeLessThanOrEqual(3);
    expect(first(r.stderr, 1)).toMatch(/unknown option --stdoi of run; did you mean --stdio\?/);
    expect(r.stderr).toContain('mcp-conform run --help');
    const reporters = await cli(['run', '--stdio', 'x', '--reporters', 'html']);
    expect(first(reporters.stderr, 1)).toMatch(/--reporters.*did you mean --reporter\?/);
  });

  it('a misspelt command (pyhton3): one cause, no pass, ≤ 15 lines, "did you mean python3?"', async () => {
    const r = await userRun(['--stdio', 'pyhton3 server.py']);
    expect(r.code).toBe(1);
    expect(lines(r.out).length).toBeLessThanOrEqual(15);
    expect(first(r.out, 3)).toMatch(/never came up: command not found: pyhton3/);
    expect(r.out).toMatch(/did you mean python3\?/);
    expect(r.out).not.toMatch(/^\s+- skip/m); // no per-case lines
    neverCameUp(r.report, /command not found: pyhton3/);
    expect(r.report.startFailure).toMatchObject({ kind: 'command-not-found', command: 'pyhton3 server.py' });
  });

  it('nothing listening: connection refused, one failing case, no negotiation failure on top, ≤ 15 lines', async () => {
    const port = await freePort();
    const r = await userRun(['--http', `http://127.0.0.1:${port}/mcp`]);
    expect(lines(r.out).length).toBeLessThanOrEqual(15);
    expect(first(r.out, 3)).toMatch(/never came up: connection refused at 127\.0\.0\.1:\d+/);
    expect(r.out).toMatch(/Try: start the server first/);
    neverCameUp(r.report, /connection refused/);
    expect(r.report.startFailure?.kind).toBe('refused');
  });

  it('an import error: the exit code and the error line in the first lines; no second MUST fail, no pass', async () => {
    const r = await userRun(['--stdio', py('first/import-error.py')]);
    expect(lines(r.out).length).toBeLessThanOrEqual(15);
    expect(first(r.out, 3)).toMatch(
      /never came up: the server exited with code 1 before answering anything: ModuleNotFoundError: No module named 'mcp_server_framework_that_is_not_installed'/,
    );
    expect(r.out).toMatch(/Try: a module is missing/);
    neverCameUp(r.report, /exited with code 1/);
    expect(r.report.startFailure).toMatchObject({ kind: 'exited', exitCode: 1 });
    expect(r.report.startFailure?.stderr.at(-1)).toMatch(/ModuleNotFoundError/);
  });

  it('a program that is no MCP server: its stdout quoted first, stopped within the start-up allowance', async () => {
    const r = await userRun(['--stdio', py('first/not-mcp.py')]);
    expect(lines(r.out).length).toBeLessThanOrEqual(15);
    expect(first(r.out, 3)).toMatch(/the server wrote text that is not JSON-RPC on stdout: 'Welcome to notes v2\.1/);
    expect(r.out).toMatch(/log to stderr/);
    neverCameUp(r.report, /not JSON-RPC on stdout/);
    // Not the 30 s --timeout (twice: discover, then initialize on a restarted server) it took before.
    expect(r.report.durationMs).toBeLessThan(25_000);
  });

  it('a server that prints a banner and then speaks MCP still gets its whole run, stdout-only-messages failing', async () => {
    const r = await userRun(['--stdio', py('first/banner-then-mcp.py'), '--suite', 'lifecycle,listing,stdio']);
    const cases = r.report.suites.flatMap((s) => s.cases);
    expect(r.report.startFailure).toBeUndefined();
    expect(first(r.out, 3)).toMatch(/not JSON-RPC on stdout: 'notes server v2\.1 starting \(stdio\)'/);
    expect(cases.find((c) => c.id === 'lifecycle/initialize')?.verdict).toBe('pass');
    expect(cases.find((c) => c.id === 'stdio/stdout-only-messages')).toMatchObject({
      verdict: 'fail',
      message: expect.stringMatching(/notes server v2\.1 starting/),
    });
    expect(cases.filter((c) => c.verdict === 'fail').map((c) => c.id)).toEqual(['stdio/stdout-only-messages']);
  });

  it('HTTP 404 and 401 without a token: the status and what to try; a 401 fails nothing', async () => {
    const servers: ReturnType<typeof spawn>[] = [];
    const start = (status: number) =>
      new Promise<string>((res, rej) => {
        const p = spawn('python3', [join(FIXTURES, 'http', 'status_http.py'), String(status), '0'], {
          stdio: ['ignore', 'pipe', 'ignore'],
        });
        servers.push(p);
        const t = setTimeout(() => rej(new Error('status_http.py did not start')), 15_000);
        let got = '';
        p.stdout!.on('data', (b: Buffer) => {
          got += b.toString();
          const m = /listening (\d+)\n/.exec(got);
          if (m) {
            clearTimeout(t);
            res(`http://127.0.0.1:${m[1]}/mcp`);
          }
        });
      });
    try {
      const notFound = await userRun(['--http', await start(404)]);
      expect(lines(notFound.out).length).toBeLessThanOrEqual(15);
      expect(first(notFound.out, 3)).toMatch(/never came up: HTTP 404/);
      expect(notFound.out).toMatch(/check the URL's path/);
      neverCameUp(notFound.report, /HTTP 404/);
      // https:// to a plain-HTTP server: TLS fails, and the hint says http://.
      const tls = await userRun(['--http', (await start(404)).replace('http://', 'https://')]);
      expect(lines(tls.out).length).toBeLessThanOrEqual(15);
      expect(first(tls.out, 3)).toMatch(/never came up: TLS failed/);
      expect(tls.out).toMatch(/try http:\/\/ instead of https:\/\//);
      neverCameUp(tls.report, /TLS failed/);
      const auth = await userRun(['--http', await start(401)]);
      expect(lines(auth.out).length).toBeLessThanOrEqual(15);
      expect(first(auth.out, 3)).toMatch(/asks for authorization the run does not have: HTTP 401/);
      expect(auth.out).toMatch(/--oauth/);
      expect(auth.report.summary.pass).toBe(0);
      expect(auth.report.summary.fail).toBe(0);
      expect(auth.report.startFailure?.kind).toBe('auth-required');
      expect(auth.code).toBe(1);
    } finally {
      for (const p of servers) p.kill('SIGKILL');
    }
  });

  it('Ctrl-C: one line says so, then only what ran; exit 130', async () => {
    const dir = mkdtempSync(join(tmpdir(), 'mcp-conform-first-'));
    const child = spawn(
      process.execPath,
      [CLI, 'run', '--stdio', py('zoo/slow-tool.py'), '--call-tools', 'all', '--out-dir', dir],
      { cwd: dir, env: { ...process.env, NO_COLOR: '1' }, stdio: ['ignore', 'pipe', 'pipe'] },
    );
    let out = '';
    child.stdout.on('data', (b) => (out += b));
    child.stderr.on('data', (b) => (out += b));
    const closed = new Promise<number | null>((r) => child.on('close', r));
    await new Promise((r) => setTimeout(r, 3500));
    child.kill('SIGINT');
    const code = await Promise.race([closed, new Promise<string>((r) => setTimeout(() => r('still running'), 30_000))]);
    expect(code).toBe(130);
    expect(first(out, 3)).toMatch(/Interrupted \(SIGINT\) after [\d.]+ s: \d+ cases? not run\. What ran:/);
    expect(out).not.toMatch(/not run: the run was interrupted/);
    expect(out).toMatch(/Result: interrupted \(exit code 130\)/);
    expect(lines(out).length).toBeLessThanOrEqual(45);
    const report = JSON.parse(readFileSync(join(dir, 'report.json'), 'utf8')) as Report;
    expect(report.aborted).toMatch(/interrupted \(SIGINT\)/);
  }, 60_000);

  it('a config typo (command: instead of stdio:): the key, its path and the suggestion, in ≤ 4 lines', async () => {
    const dir = mkdtempSync(join(tmpdir(), 'mcp-conform-first-'));
    writeFileSync(
      join(dir, 'mcp-conform.config.yaml'),
      `timout: 5000\ntargets:\n  - name: demo\n    command: ${py('calc.py')}\n`,
    );
    const r = await cli(['run'], { cwd: dir });
    expect(r.code).toBe(2);
    const err = lines(r.stderr).filter((l) => !/--help/.test(l));
    expect(err.length).toBeLessThanOrEqual(4);
    expect(r.stderr).toMatch(/targets\[0\]\.command: unknown key; did you mean stdio\?/);
    expect(r.stderr).toMatch(/timout: unknown key; did you mean timeout\?/);
    expect(r.stderr).not.toMatch(/oneOf|must have required property/);
  });

  it('a library call with a misspelt key: an OptionsError that names it, before any server starts', async () => {
    const script = `import { runConformance } from ${JSON.stringify(join(ROOT, 'dist', 'index.js'))};
try { await runConformance({ stdio: 'python3 -c "import sys; sys.exit(7)"', suits: ['lifecycle'], timout: 5 }); console.log('no error'); }
catch (e) { console.log(JSON.stringify({ name: e.name, message: e.message })); }`;
    const r = await new Promise<string>((res) => {
      const p = spawn(process.execPath, ['--input-type=module', '-e', script], { stdio: ['ignore', 'pipe', 'pipe'] });
      let o = '';
      p.stdout.on('data', (b) => (o += b));
      p.on('close', () => res(o));
    });
    const e = JSON.parse(r) as { name: string; message: string };
    expect(e.name).toBe('OptionsError');
    expect(e.message).toMatch(/"suits" \(did you mean suites\?\)/);
    expect(e.message).toMatch(/"timout" \(did you mean timeout\?\)/);
  });

  it('more first mistakes: each a usage error or a start failure that says what to write instead', async () => {
    const dir = mkdtempSync(join(tmpdir(), 'mcp-conform-first-'));
    writeFileSync(join(dir, 'dep.js'), "require('a-package-not-installed');\n");
    const usage: [string[], RegExp][] = [
      [
        ['run', 'server.py'],
        /unexpected word "server\.py": name the server with --stdio "COMMAND" \(e\.g\. --stdio "python3 server\.py"\)/,
      ],
      [
        ['run', '--stdio', 'python3', 'server.py'],
        /the command of --stdio is one argument, quoted: --stdio "python3 server\.py"/,
      ],
      [['run', '--http', 'localhost:8000/mcp'], /did you mean http:\/\/localhost:8000\/mcp\?/],
      [
        ['run', '--stdio', 'x', '--case', 'lifecycle/pingg'],
        /--case lifecycle\/pingg: no case has this id or id prefix; did you mean lifecycle\/ping\?/,
      ],
      [['run', '--stdio', 'x', '--reporter', 'htm'], /unknown reporter "htm"; did you mean html\?/],
      [['run', '--stdio', 'x', '--suite', 'listin'], /unknown suite "listin"; did you mean listing\?/],
      [['run', '--stdio', 'x', '-q'], /unknown option -q of run; did you mean --quiet\?/],
    ];
    for (const [args, want] of usage) {
      const r = await cli(args, { cwd: dir });
      expect(r.code, args.join(' ')).toBe(2);
      expect(lines(r.stderr).length, args.join(' ')).toBeLessThanOrEqual(3);
      expect(first(r.stderr, 1), args.join(' ')).toMatch(want);
    }
    const started: [string, RegExp, RegExp][] = [
      [
        `python3 ${join(dir, 'nosuchserver.py')}`,
        /exited with code 2 before answering anything: .*can't open file/,
        /Try: a file of the command is not there: check its path/,
      ],
      [`node ${join(dir, 'dep.js')}`, /Cannot find module 'a-package-not-installed'/, /Try: a module is missing/],
    ];
    for (const [command, cause, hint] of started) {
      const r = await userRun(['--stdio', command], 60_000);
      expect(lines(r.out).length, command).toBeLessThanOrEqual(15);
      expect(first(r.out, 3), command).toMatch(cause);
      expect(r.out, command).toMatch(hint);
      expect(r.report.summary.pass).toBe(0);
    }
  });

  it('the console names only the report files it wrote; --update-expect says what it changed', async () => {
    const dir = mkdtempSync(join(tmpdir(), 'mcp-conform-first-'));
    const file = join(dir, 'calc.expect.yaml');
    writeFileSync(
      file,
      'version: 1\nexpectations:\n  - name: adds\n    call: integer_addition\n    arguments: {a: 2, b: 3}\n    expect: {text: "6"}\n',
    );
    const args = ['--stdio', py('notes-calc.py'), '--expect', file, '--update-expect', '--suite', 'expect'];
    const once = await userRun(args);
    expect(once.out).toContain(`updated ${file}: 1 expectation changed (adds)`);
    expect(readFileSync(file, 'utf8')).toContain('text: "5"');
    expect(once.out).not.toMatch(/report\.html/); // no html reporter: not named
    expect(once.out).toMatch(/Reports: .*report\.json$/m);
    const again = await userRun(args);
    expect(again.out).toContain(`${file} unchanged`);
  });

  it("the client console: a line per scenario, the client's stderr labelled as the client's", async () => {
    const r = await cli(
      [
        'client',
        '--stdio',
        `node ${join(ROOT, 'fixtures/clients/sdk-client.mjs')} stdio {server}`,
        '--scenario',
        'pages,tool-schemas',
        '--out-dir',
        mkdtempSync(join(tmpdir(), 'mcp-conform-first-')),
      ],
      { timeoutMs: 120_000 },
    );
    const out = r.stdout;
    expect(lines(out).length).toBeLessThanOrEqual(40);
    expect(out).toMatch(/^✓ pages\s+\d+ pass/m);
    expect(out).toMatch(/^✗ tool-schemas\s+2 fail/m);
    expect(out).toMatch(/client stderr, scenario tool-schemas/);
    expect(out).not.toMatch(/server stderr/);
    // "checked in scenario X" is said once, not per scenario.
    expect(out.match(/checked in scenario dropped-answer/g)?.length ?? 0).toBeLessThanOrEqual(1);
  }, 150_000);

  it('report.html of a real run lists the failure before the first pass', async () => {
    const r = await userRun([
      '--stdio',
      py('broken/stray-stdout.py'),
      '--reporter',
      'json',
      '--reporter',
      'html',
      '--reporter',
      'console',
    ]);
    const html = readFileSync(join(r.dir, 'report.html'), 'utf8');
    const failAt = html.indexOf('stdio/stdout-only-messages');
    const passAt = html.indexOf('lifecycle/initialize');
    expect(failAt).toBeGreaterThan(0);
    expect(failAt).toBeLessThan(passAt);
    expect(r.out).toMatch(/report\.html and report\.json hold them all/);
  });
});
