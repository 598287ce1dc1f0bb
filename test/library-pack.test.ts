/**
 * The package as a user gets it: `npm pack`, installed into a fresh project (dependencies from npm's cache when it
 * has them, else from the registry), imported from an ESM script that tests the demo server the package ships, and
 * type-checked with tsc against the package's declarations (strict, skipLibCheck off).
 */
import { spawn } from 'node:child_process';
import { existsSync, mkdirSync, mkdtempSync, readdirSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { pathToFileURL } from 'node:url';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { BIN, ROOT } from './helpers/cli.js';

interface Done {
  code: number | null;
  stdout: string;
  stderr: string;
}

/** A command in its own process group, ended (with its children) when it outlives timeoutMs. */
function sh(cmd: string, args: string[], cwd: string, timeoutMs: number): Promise<Done> {
  // Without the npm_* variables of an outer `npm test` (they would configure the inner npm).
  const env = Object.fromEntries(Object.entries(process.env).filter(([k]) => !/^npm_/i.test(k)));
  return new Promise((res, rej) => {
    const child = spawn(cmd, args, { cwd, env, detached: true, stdio: ['ignore', 'pipe', 'pipe'] });
    let stdout = '';
    let stderr = '';
    child.stdout.on('data', (b) => (stdout += b));
    child.stderr.on('data', (b) => (stderr += b));
    const timer = setTimeout(() => {
      try {
        process.kill(-child.pid!, 'SIGKILL');
      } catch {
        /* gone */
      }
      rej(new Error(`${cmd} ${args.join(' ')} did not end within ${timeoutMs} ms\n${stdout}\n${stderr}`));
    }, timeoutMs);
    child.on('error', (e) => {
      clearTimeout(timer);
      rej(e);
    });
    child.on('close', (code) => {
      clearTimeout(timer);
      res({ code, stdout, stderr });
    });
  });
}

const dir = mkdtempSync(join(tmpdir(), 'mcp-conform-pack-'));
const project = join(dir, 'project');
let tarball = '';

beforeAll(async () => {
  // dist/ is built by `npm test` before the tests: pack it as it is (no prepare script, which would rebuild it
  // under the feet of the other test files).
  const pack = await sh('npm', ['pack', '--ignore-scripts', '--pack-destination', dir], ROOT, 30_000);
  expect(pack.code, pack.stderr).toBe(0);
  tarball = join(dir, readdirSync(dir).find((f) => f.endsWith('.tgz'))!);
  mkdirSync(project);
  writeFileSync(
    join(project, 'package.json'),
    JSON.stringify({ name: 'uses-mcp-conform', private: true, type: 'module' }),
  );
  const flags = ['install', '--ignore-scripts', '--no-audit', '--no-fund', '--no-package-lock', tarball];
  let inst = await sh('npm', [...flags, '--offline'], project, 120_000);
  if (inst.code !== 0) inst = await sh('npm', [...flags, '--prefer-offline'], project, 120_000);
  expect(inst.code, `npm install of the tarball\n${inst.stderr}`).toBe(0);
}, 260_000);

afterAll(() => rmSync(dir, { recursive: true, force: true }));

describe('the packed package in a fresh project', () => {
  it('ships the entry point, its declarations, the demo server and the docs pages the README links, not the tests', async () => {
    const pkg = join(project, 'node_modules', 'mcp-conform');
    for (const f of [
      'dist/index.js',
      'dist/index.d.ts',
      'dist/bin/mcp-conform.js',
      'dist/mocks/msw.js',
      'fixtures/servers/calc.py',
      'config.schema.json',
      'README.md',
      'docs/run.md',
      'docs/expectations.md',
      'expect.schema.json',
      'dist/vitest/index.js',
      'dist/vitest/index.d.ts',
    ]) {
      expect(existsSync(join(pkg, f)), f).toBe(true);
    }
    expect(existsSync(join(pkg, 'test'))).toBe(false);
    expect(existsSync(join(pkg, 'dist', 'test'))).toBe(false);
  });

  it('an ESM script imports runConformance and tests a server with a suite of its own', async () => {
    writeFileSync(
      join(project, 'check.mjs'),
      `
import { runConformance, ALL_SUITES, Session, StdioTransport, VERSION } from 'mcp-conform';
const mine = {
  id: 'mine', title: 'Mine', description: 'a case of my own',
  cases: [{ id: 'mine/ping', title: 'ping', level: 'MUST', spec: 'basic/utilities/ping', requirement: 'ping is answered',
    async run(ctx) { const r = await ctx.session.request('ping', {}); return { verdict: r.error ? 'fail' : 'pass', message: JSON.stringify(r.result) }; } }],
};
const report = await runConformance({ stdio: ['python3', 'node_modules/mcp-conform/fixtures/servers/calc.py'], suites: ['lifecycle', mine], timeout: 10000 });
console.log(JSON.stringify({
  version: VERSION, suites: ALL_SUITES.length, session: typeof Session, transport: typeof StdioTransport,
  exitCode: report.exitCode, ids: report.suites.map((s) => s.id),
  mine: report.suites.find((s) => s.id === 'mine').cases[0], server: report.server.name,
}));
`,
    );
    const r = await sh(process.execPath, ['check.mjs'], project, 30_000);
    expect(r.code, r.stderr).toBe(0);
    const out = JSON.parse(r.stdout) as Record<string, unknown>;
    expect(out).toMatchObject({
      version: '0.1.0',
      session: 'function',
      transport: 'function',
      exitCode: 0,
      ids: ['lifecycle', 'mine'],
      mine: { id: 'mine/ping', verdict: 'pass', message: '{}' },
    });
    expect(out.suites).toBeGreaterThanOrEqual(10);
    expect(out.server).toBeTruthy();
  });

  it('type-checks against the package declarations (and they are not `any`)', async () => {
    mkdirSync(join(project, 'src'), { recursive: true });
    writeFileSync(
      join(project, 'src', 'check.ts'),
      `
import { runConformance, Session, StdioTransport, type CaseContext, type Report, type Suite, type Verdict } from 'mcp-conform';

const mine: Suite = {
  id: 'mine', title: 'Mine', description: 'a case of my own',
  cases: [{
    id: 'mine/ping', title: 'ping', level: 'MUST', spec: 'basic/utilities/ping', requirement: 'ping is answered',
    async run(ctx: CaseContext) {
      const reply = await ctx.session.request('ping', {});
      return { verdict: reply.error ? 'fail' : 'pass', message: 'ping', messageIds: [reply.request.seq] };
    },
  }],
};
const report: Report = await runConformance({ stdio: 'python3 server.py', suites: ['lifecycle', mine], timeout: 5000 });
const verdict: Verdict = report.suites[0]!.cases[0]!.verdict;
const code: number = report.exitCode;
// @ts-expect-error timeout is a number of milliseconds
await runConformance({ stdio: 'python3 server.py', timeout: 'soon' });
// @ts-expect-error callTools is 'safe', 'all' or 'none'
await runConformance({ http: 'http://127.0.0.1:1/mcp', callTools: 'some' });
// @ts-expect-error a verdict is pass, warn, fail, skip or info
const no: Verdict = 'ok';
const session: Session | undefined = undefined;
const transport = new StdioTransport({ argv: ['python3', 'server.py'] });
const kind: 'stdio' | 'streamable-http' | 'sse' = transport.kind;
export { verdict, code, no, session, kind };
`,
    );
    writeFileSync(
      join(project, 'tsconfig.json'),
      JSON.stringify({
        compilerOptions: {
          target: 'ES2022',
          module: 'NodeNext',
          moduleResolution: 'NodeNext',
          strict: true,
          noEmit: true,
          skipLibCheck: false,
          types: ['node'],
          typeRoots: [join(ROOT, 'node_modules', '@types')],
        },
        include: ['src'],
      }),
    );
    const r = await sh(join(BIN, 'tsc'), ['-p', 'tsconfig.json'], project, 45_000);
    expect(r.stdout + r.stderr).toBe('');
    expect(r.code).toBe(0);
  });

  it('the installed command (the bundled CLI) lists the cases as the checkout does and tests the demo server', async () => {
    const bin = join(project, 'node_modules', '.bin', 'mcp-conform');
    const here = await sh(
      process.execPath,
      [join(ROOT, 'dist', 'bin', 'mcp-conform.js'), 'list', '--format', 'json'],
      ROOT,
      30_000,
    );
    const there = await sh(bin, ['list', '--format', 'json'], project, 30_000);
    expect(there.code, there.stderr).toBe(0);
    expect(there.stdout).toBe(here.stdout);
    expect((await sh(bin, ['--version'], project, 30_000)).stdout).toBe('0.1.0\n');
    const run = await sh(
      bin,
      [
        'run',
        '--stdio',
        'python3 node_modules/mcp-conform/fixtures/servers/calc.py',
        '--suite',
        'lifecycle,listing',
        '--quiet',
        '--out-dir',
        'out',
      ],
      project,
      60_000,
    );
    expect(run.code, run.stderr).toBe(0);
    const report = JSON.parse(readFileSync(join(project, 'out', 'report.json'), 'utf8')) as {
      tool: { version: string };
      summary: { fail: number; pass: number };
    };
    expect(report.tool.version).toBe('0.1.0');
    expect(report.summary.fail).toBe(0);
    expect(report.summary.pass).toBeGreaterThan(5);
    // The installed files keep their code caches: the CLI's commands and a precompiled validator file find theirs.
    const installed = join(project, 'node_modules', 'mcp-conform', 'dist');
    const probe = await sh(
      process.execPath,
      [
        '--input-type=module',
        '-e',
        `
      import { readFileSync } from 'node:fs';
      const loader = await import(${JSON.stringify(pathToFileURL(join(installed, 'cli', 'cli-loader.js')).href)});
      const { readCodeCache } = await import(${JSON.stringify(pathToFileURL(join(installed, 'core', 'schema', 'code-cache.js')).href)});
      const file = ${JSON.stringify(join(installed, 'core', 'schema', 'precompiled', 'messages-2025-11-25.cjs'))};
      console.log(JSON.stringify({ cli: loader.codeCacheUsed, precompiled: readCodeCache(file, readFileSync(file, 'utf8')) !== undefined }));
    `,
      ],
      project,
      30_000,
    );
    expect(JSON.parse(probe.stdout), probe.stderr).toEqual({ cli: true, precompiled: true });
  }, 90_000);

  it("mcp-conform/vitest in the user's vitest: a test per case, a failing expectation fails its test naming the case, connect() and the matchers work", async () => {
    // vitest as the user's own dependency (mcp-conform/vitest takes it as a peer): the version this checkout tests with.
    const vitest = (
      JSON.parse(readFileSync(join(ROOT, 'node_modules', 'vitest', 'package.json'), 'utf8')) as { version: string }
    ).version;
    const inst = await sh(
      'npm',
      [
        'install',
        '--ignore-scripts',
        '--no-audit',
        '--no-fund',
        '--no-package-lock',
        '--prefer-offline',
        tarball,
        `vitest@${vitest}`,
      ],
      project,
      150_000,
    );
    expect(inst.code, `npm install vitest@${vitest}\n${inst.stderr}`).toBe(0);
    const pkg = 'node_modules/mcp-conform';
    writeFileSync(
      join(project, 'calc.expect.yaml'),
      readFileSync(join(ROOT, 'fixtures', 'expect', 'notes-calc.expect.yaml'), 'utf8'),
    );
    mkdirSync(join(project, 'tests'), { recursive: true });
    writeFileSync(
      join(project, 'tests', 'good.test.ts'),
      `
import { conformance } from 'mcp-conform/vitest';
conformance({ stdio: ['python3', '${pkg}/fixtures/servers/notes-calc.py'], suites: ['lifecycle', 'expect'], expect: ['calc.expect.yaml'] });
`,
    );
    writeFileSync(
      join(project, 'tests', 'wrong.test.ts'),
      `
import { conformance } from 'mcp-conform/vitest';
conformance({ stdio: ['python3', '${pkg}/fixtures/servers/broken/expect-wrong.py'], suites: ['expect'], expect: ['calc.expect.yaml'] });
`,
    );
    writeFileSync(
      join(project, 'tests', 'hand.test.ts'),
      `
import { afterAll, beforeAll, expect, test } from 'vitest';
import { connect, type McpTestClient } from 'mcp-conform/vitest';
let client: McpTestClient;
beforeAll(async () => { client = await connect({ stdio: 'python3 ${pkg}/fixtures/servers/notes-calc.py' }); });
afterAll(() => client?.close());
test('adds', async () => {
  const r = await client.callTool('integer_addition', { a: 2, b: 3 });
  expect(r).toSucceed();
  expect(r).toHaveText('5');
  expect(r).not.toHaveText('6');
});
test('divides', async () => {
  expect(await client.callTool('integer_division', { a: 7, b: 2 })).toMatchStructured({ quotient: 3.5 });
  const zero = await client.callTool('integer_division', { a: 7, b: 0 });
  expect(zero).toFailWithToolError(/zero/);
  expect(zero).not.toSucceed();
});
test('lists, reads, prompts, and every message fits the schema', async () => {
  expect((await client.listTools()).map((t) => t.name)).toContain('get_note');
  expect(await client.readResource('note://one')).toMatchObject({ contents: [{ text: 'one' }] });
  expect(await client.getPrompt('greet', { name: 'Ada' })).toMatchObject({ messages: [{ role: 'user' }] });
  await expect(client.request('nothing/here')).rejects.toThrow(/-32601/);
  expect(client.violations).toEqual([]);
  expect(client.messages.length).toBeGreaterThan(10);
});
test('a matcher that does not hold says what came', async () => {
  expect(() => expect({ content: [{ type: 'text', text: '6' }] }).toHaveText('5')).toThrow(/expected the text of \\(result\\) to be "5", got "6"/);
});
`,
    );
    const r = await sh(
      process.execPath,
      [join('node_modules', 'vitest', 'vitest.mjs'), 'run', '--reporter=json', '--outputFile=vitest.json', 'tests'],
      project,
      120_000,
    );
    expect(r.code, r.stderr).toBe(1); // the wrong server's file fails
    const out = JSON.parse(readFileSync(join(project, 'vitest.json'), 'utf8')) as {
      testResults: {
        name: string;
        assertionResults: { ancestorTitles: string[]; title: string; status: string; failureMessages: string[] }[];
      }[];
    };
    const file = (n: string) => out.testResults.find((t) => t.name.endsWith(n))!.assertionResults;
    const good = file('good.test.ts');
    // one describe per suite, one test per case
    expect(good.filter((t) => t.ancestorTitles[1] === 'expect').map((t) => [t.title, t.status])).toEqual([
      ['expect/adds-two-integers', 'passed'],
      ['expect/divides-with-structured-output', 'passed'],
      ['expect/division-by-zero-is-a-tool-error', 'passed'],
      ['expect/an-unknown-method-is-refused', 'passed'],
      ['expect/lists-its-tools', 'passed'],
      ['expect/keeps-a-note', 'passed'],
      ['expect/reads-the-note-back-by-its-id', 'passed'],
      ['expect/reads-a-resource', 'passed'],
      ['expect/fills-in-the-greeting-prompt', 'passed'],
    ]);
    expect(new Set(good.map((t) => t.ancestorTitles[1]))).toEqual(new Set(['lifecycle', 'expect']));
    expect(good.filter((t) => t.status === 'failed')).toEqual([]);
    const wrong = file('wrong.test.ts');
    const failed = wrong.filter((t) => t.status === 'failed');
    expect(failed.map((t) => t.title)).toEqual([
      'expect/adds-two-integers',
      'expect/divides-with-structured-output',
      'expect/division-by-zero-is-a-tool-error',
      'expect/keeps-a-note',
      'expect/reads-the-note-back-by-its-id',
    ]);
    expect(failed[0]!.failureMessages[0]).toMatch(
      /expect\/adds-two-integers: tools\/call integer_addition \{"a":2,"b":3\}: text: expected "5", got "6"/,
    );
    expect(wrong.filter((t) => t.status === 'passed')).toHaveLength(4);
    expect(file('hand.test.ts').map((t) => t.status)).toEqual(['passed', 'passed', 'passed', 'passed']);
    // The matchers' types come with the import (strict, skipLibCheck off): a wrong argument is a type error.
    writeFileSync(
      join(project, 'tests', 'types.ts'),
      `
import { expect } from 'vitest';
import { connect } from 'mcp-conform/vitest';
const client = await connect({ stdio: 'python3 server.py' });
const r = await client.callTool('add', { a: 1 });
expect(r).toSucceed();
expect(r).not.toMatchStructured({ a: 1 });
expect(r).toFailWithToolError(/zero/);
// @ts-expect-error toHaveText takes a string or a regular expression
expect(r).toHaveText(5);
const text: string = r.text;
export { text };
`,
    );
    writeFileSync(
      join(project, 'tsconfig.vitest.json'),
      JSON.stringify({
        compilerOptions: {
          target: 'ES2022',
          module: 'NodeNext',
          moduleResolution: 'NodeNext',
          strict: true,
          noEmit: true,
          skipLibCheck: false,
          types: ['node'],
          typeRoots: [join(ROOT, 'node_modules', '@types')],
        },
        files: ['tests/types.ts', 'tests/hand.test.ts', 'tests/good.test.ts'],
      }),
    );
    const types = await sh(join(BIN, 'tsc'), ['-p', 'tsconfig.vitest.json'], project, 60_000);
    expect(types.stdout + types.stderr).toBe('');
    expect(types.code).toBe(0);
  }, 300_000);
});
