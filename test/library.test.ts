/**
 * The library entry point (`import … from 'mcp-conform'`, resolved through the package's own exports to dist/):
 * runConformance gives what report.json holds, finalized as the CLI does; the example of docs/library.md is the
 * file test/library-example.test.ts, word for word.
 */
import { mkdtempSync, readFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { describe, expect, it } from 'vitest';
import {
  createReporter,
  OptionsError,
  parseBaseline,
  runConformance,
  type Reporter,
  type Report,
  type Suite,
} from 'mcp-conform';
import { py, ROOT, runArgs } from './helpers/cli.js';

const cases = (r: Report) => r.suites.flatMap((s) => s.cases);
const verdicts = (r: Report) => Object.fromEntries(cases(r).map((c) => [c.id, c.verdict]));

describe('docs/library.md', () => {
  it('shows test/library-example.test.ts as it is', () => {
    const page = readFileSync(join(ROOT, 'docs', 'library.md'), 'utf8');
    const block = /```ts\n([\s\S]*?)```/.exec(page)?.[1];
    expect(block).toBe(readFileSync(join(ROOT, 'test', 'library-example.test.ts'), 'utf8'));
  });
});

describe('runConformance', () => {
  it('resolves to the report the CLI writes to report.json for the same options', async () => {
    const suites = ['lifecycle', 'listing', 'calling', 'unknown-tool', 'stdio'];
    const [lib, cli] = await Promise.all([
      runConformance({ stdio: py('calc.py'), suites, timeout: 10_000 }),
      runArgs(['--stdio', py('calc.py'), '--suite', suites.join(','), '--timeout', '10000']),
    ]);
    expect(Object.keys(lib).sort()).toEqual(Object.keys(cli.report).sort());
    expect(verdicts(lib)).toEqual(verdicts(cli.report));
    expect(cases(lib).length).toBeGreaterThan(20);
    expect(lib.exitCode).toBe(0);
    expect(cli.code).toBe(0);
    expect(lib.summary).toEqual(cli.report.summary);
    expect(lib.options).toEqual(cli.report.options);
    expect(lib.server).toEqual(cli.report.server);
    expect(lib.target).toEqual(cli.report.target);
    // A plain object: what JSON.stringify writes and JSON.parse reads back is the same.
    expect(JSON.parse(JSON.stringify(lib))).toEqual(lib);
  });

  it('applies a baseline: a listed failure no longer fails the run', async () => {
    const plain = await runConformance({ stdio: py('broken/duplicate-tools.py'), suites: ['listing'], timeout: 5000 });
    expect(cases(plain).find((c) => c.id === 'listing/unique-names')?.verdict).toBe('fail');
    expect(plain.exitCode).toBe(1);
    const excused = await runConformance({
      stdio: py('broken/duplicate-tools.py'),
      suites: ['listing'],
      timeout: 5000,
      baseline: parseBaseline('- id: listing/unique-names\n  reason: tracked upstream\n', 'inline.yaml'),
    });
    const c = cases(excused).find((x) => x.id === 'listing/unique-names');
    expect(c).toMatchObject({ verdict: 'fail', baselined: true, baselineReason: 'tracked upstream' });
    expect(excused.summary.baselined).toBe(1);
    expect(excused.baseline?.used).toEqual(['listing/unique-names']);
    expect(excused.exitCode).toBe(0);
  });

  it('strict: a warn becomes a fail and fails the run', async () => {
    const r = await runConformance({
      stdio: py('broken/unknown-tool-iserror.py'),
      suites: ['unknown-tool'],
      strict: true,
      timeout: 5000,
    });
    expect(cases(r).find((c) => c.id === 'unknown-tool/call')).toMatchObject({ verdict: 'fail', strictFromWarn: true });
    expect(r.exitCode).toBe(1);
  });

  it('runs a suite of your own beside the built-in ones', async () => {
    const mine: Suite = {
      id: 'mine',
      title: 'My cases',
      description: 'A case written outside mcp-conform',
      cases: [
        {
          id: 'mine/has-add',
          title: 'The server has an add tool',
          level: 'MUST',
          spec: 'server/tools',
          requirement: 'tools/list lists "add"',
          async run(ctx) {
            const reply = await ctx.session.request('tools/list', {});
            const names = ((reply.result?.tools ?? []) as { name: string }[]).map((t) => t.name);
            return {
              verdict: names.includes('add') ? 'pass' : 'fail',
              message: `tools/list answered ${names.join(', ')}`,
              messageIds: [reply.request.seq, reply.response.seq],
            };
          },
        },
      ],
    };
    const r = await runConformance({ stdio: py('calc.py'), suites: ['lifecycle', mine], timeout: 5000 });
    expect(r.suites.map((s) => s.id)).toEqual(['lifecycle', 'mine']);
    const c = cases(r).find((x) => x.id === 'mine/has-add')!;
    expect(c.verdict, c.message).toBe('pass');
    expect(c.spec).toMatch(/^https:\/\/modelcontextprotocol\.io\/specification\/2025-11-25\/server\/tools/);
    expect(c.messageIds).toHaveLength(2);
    expect(r.exitCode).toBe(0);
  });

  it('an aborted signal gives the partial report with exit code 130 (143 for SIGTERM)', async () => {
    const r = await runConformance({ stdio: py('calc.py'), signal: AbortSignal.abort('SIGINT') });
    expect(r.aborted).toMatch(/interrupted \(SIGINT\)/);
    expect(r.exitCode).toBe(130);
    expect(cases(r).find((c) => c.id === 'lifecycle/ping')).toMatchObject({
      verdict: 'skip',
      message: expect.stringMatching(/interrupted \(SIGINT\)/),
    });
    const t = await runConformance({ stdio: py('calc.py'), signal: AbortSignal.abort('SIGTERM') });
    expect(t.exitCode).toBe(143);
  });

  it('reporters: hooks see the run go, and the json reporter writes the object the promise resolves to', async () => {
    const outDir = mkdtempSync(join(tmpdir(), 'mcp-conform-lib-'));
    const seen: string[] = [];
    const mine: Reporter = {
      name: 'mine',
      onRunStart: ({ label }) => seen.push(`start ${label}`),
      onSuiteDone: (suite, phase, added) => seen.push(`${suite.id} ${phase} ${added.length}`),
      onRunDone: (r) => seen.push(`done ${r.exitCode}`),
      onFinished: (set, ctx) => {
        seen.push(`finished ${set.runs.length} ${ctx.written.map((f) => f.slice(outDir.length)).join(',')}`);
        return undefined;
      },
    };
    let err = '';
    let out = '';
    const console = createReporter('console', {
      stdout: async (s) => {
        out += s;
      },
      stderr: (s) => {
        err += s;
      },
      env: {},
      color: false,
      progress: { color: false },
    });
    const r = await runConformance({
      stdio: py('calc.py'),
      name: 'calc',
      suites: ['lifecycle', 'schema'],
      reporters: ['json', mine, console],
      outDir,
    });
    expect(seen[0]).toBe('start calc');
    expect(seen[1]).toMatch(/^lifecycle session [1-9]\d*$/);
    expect(seen.filter((x) => x.startsWith('schema '))).toEqual([
      expect.stringMatching(/^schema session \d+$/),
      expect.stringMatching(/^schema after-shutdown [1-9]\d*$/),
    ]);
    expect(seen.slice(-2)).toEqual(['done 0', 'finished 1 /report.json']);
    expect(JSON.parse(readFileSync(join(outDir, 'report.json'), 'utf8'))).toEqual(JSON.parse(JSON.stringify(r)));
    // The console reporter: progress on stderr while the run goes, the report on stdout at the end.
    expect(err.split('\n')[0]).toBe('Testing calc');
    expect(err).toMatch(/▸ lifecycle\s+\d+ pass/);
    expect(out).toContain(`Reports: ${join(outDir, 'report.json')}`);
    expect(out).toMatch(/Result: no failures\n$/);
  });

  it('rejects wrong options with an OptionsError that names the option', async () => {
    const wrong = async (o: Parameters<typeof runConformance>[0]) => {
      const e = await runConformance(o).then(
        () => undefined,
        (x: unknown) => x,
      );
      expect(e).toBeInstanceOf(OptionsError);
      return (e as Error).message;
    };
    expect(await wrong({})).toMatch(/needs a server: stdio/);
    expect(await wrong({ stdio: 'python3 x.py', http: 'http://127.0.0.1:1/mcp' })).toBe(
      'give only one of stdio, http, sse, url (got stdio, http)',
    );
    expect(await wrong({ http: 'not a url' })).toMatch(/^http: "not a url" is not a URL/);
    expect(await wrong({ stdio: 'python3 x.py', timeout: -1 })).toMatch(/^timeout must be a positive number/);
    expect(await wrong({ stdio: 'python3 x.py', suites: ['nope'] })).toMatch(
      /^suites: unknown suite "nope" \(known: lifecycle, /,
    );
    expect(await wrong({ stdio: 'python3 x.py', headers: { Authorization: 'x' } })).toMatch(
      /^headers goes with http, sse or url/,
    );
    expect(await wrong({ stdio: 'python3 x.py', baseline: join(ROOT, 'no-such-baseline.yaml') })).toMatch(
      /cannot read the baseline/,
    );
    expect(await wrong({ stdio: 'python3 x.py', reporters: ['pdf'] })).toMatch(
      /^reporters: unknown reporter "pdf" \(known: console, json, junit, html, sarif, github\)/,
    );
  });
});
