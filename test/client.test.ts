/**
 * `mcp-conform client`: real SDK clients pass with no fail over stdio, Streamable HTTP and SSE; each deliberately
 * broken client (fixtures/clients/broken) fails the case about its defect and only the cases its defect explains; a
 * client that hangs is ended within the bounds with a report; placeholders, environment, reporters, baselines, usage
 * errors. Needs the build (npm test builds first).
 */
import { mkdtempSync, readFileSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { describe, expect, it } from 'vitest';
import type { Report } from '../core/results.js';
import { shellWords } from '../core/shell-words.js';
import { shellQuote, substitute } from '../bin/commands/client.js';
import { logOf } from '../clients/grade.js';
import { readFixture } from '../core/formats/fixture.js';
import { FixtureSource } from '../mocks/fixture.js';
import { defaultFixtureFile } from '../mocks/client-mock.js';
import { cli, ROOT } from './helpers/cli.js';
import { client, nonPass } from './helpers/client-run.js';
import { unledgered } from './helpers/client-ledger.js';
import { processTable } from './helpers/proc.js';
import { pythonPeers } from './helpers/python-peers.js';

/** The scenarios whose verdicts on the TS SDK v1 test/client-schemas.test.ts holds (a fail in tool-schemas: ledger). */
const SCHEMA_SCENARIOS = /^scenario (tool-schemas|remote-ref)\b/;
const SDK = `node ${join(ROOT, 'fixtures/clients/sdk-client.mjs')}`;
const BROKEN = join(ROOT, 'fixtures/clients/broken');
const py = (defect: string) => `python3 ${join(BROKEN, defect === 'none' ? 'clientkit.py none' : `${defect}.py`)}`;

describe('the TypeScript SDK Client passes', () => {
  it('over stdio: every scenario, no fail but in tool-schemas (ledger), the scenario cases pass', async () => {
    const r = await client(['--stdio', `${SDK} stdio {server}`]);
    expect(r.code, nonPass(r).join('\n')).toBe(1);
    expect(r.reports.map((x) => x.target.name)).toEqual([
      'scenario pages',
      'scenario ping',
      'scenario list-changed',
      'scenario unknown-tool',
      'scenario server-requests',
      'scenario tool-schemas',
      'scenario remote-ref',
    ]);
    expect(nonPass(r).filter((s) => !/after-error info/.test(s) && !SCHEMA_SCENARIOS.test(s))).toEqual([]);
    expect(
      unledgered('TS SDK v1', { ...r, reports: r.reports.filter((x) => SCHEMA_SCENARIOS.test(x.target.name ?? '')) }),
    ).toEqual([]);
    expect(r.verdict('ping', 'client-lifecycle/ping-answered').verdict).toBe('pass');
    expect(r.verdict('list-changed', 'client-requests/list-changed').verdict).toBe('pass');
    expect(r.verdict('pages', 'client-requests/pagination').verdict).toBe('pass');
    expect(r.verdict('unknown-tool', 'client-requests/after-error').verdict).toBe('info');
    const rep = r.reports[0]!;
    expect(rep.client).toMatchObject({ name: 'sdk-example-client', version: '1.0.0' });
    expect(rep.summary.messagesValidated).toBeGreaterThan(10);
    expect(rep.messages.every((m) => m.schema.valid)).toBe(true);
    // The version in force in the links; client-2026's requirements are those of 2026-07-28 whatever was spoken.
    for (const c of rep.suites.flatMap((s) => s.cases))
      expect(c.spec, c.id).toMatch(
        c.id.startsWith('client-2026/') || c.id === 'client-schemas/no-network-ref'
          ? /^https:\/\/modelcontextprotocol\.io\/specification\/2026-07-28\//
          : /^https:\/\/modelcontextprotocol\.io\/specification\/2025-11-25\//,
      );
  });

  it('over Streamable HTTP: nine scenarios, no fail but in tool-schemas (new session after 404, resumed stream, DELETE)', async () => {
    const r = await client(['--http', `${SDK} http {url}`]);
    expect(r.code, nonPass(r).join('\n')).toBe(1);
    expect(r.reports.map((x) => x.target.name)).toEqual([
      'scenario pages',
      'scenario ping',
      'scenario list-changed',
      'scenario unknown-tool',
      'scenario session-expired',
      'scenario server-requests',
      'scenario tool-schemas',
      'scenario remote-ref',
      'scenario stream-resume',
    ]);
    expect(nonPass(r).filter((s) => !/after-error info/.test(s) && !SCHEMA_SCENARIOS.test(s))).toEqual([]);
    for (const id of [
      'client-http/accept',
      'client-http/session-id',
      'client-http/protocol-version-header',
      'client-http/delete-session',
    ])
      expect(r.verdict('pages', id).verdict, id).toBe('pass');
    expect(r.verdict('session-expired', 'client-http/reinitialize-after-404').verdict).toBe('pass');
    expect(r.verdict('stream-resume', 'client-http/resume-with-last-event-id').verdict).toBe('pass');
    expect(r.verdict('stream-resume', 'client-http/retry-respected').verdict).toBe('pass'); // the SDK waits out retry: since 1.23
    const ex = r.reports[0]!.http!.exchanges as { headers: Record<string, string> }[];
    expect(ex.length).toBeGreaterThan(5);
  });

  it('over HTTP+SSE: no fail but in tool-schemas, client-http left out', async () => {
    const r = await client(['--sse', `${SDK} sse {url}`]);
    expect(nonPass(r).filter((s) => !/after-error info/.test(s) && !SCHEMA_SCENARIOS.test(s))).toEqual([]);
    expect(r.reports.length).toBe(7);
    expect(r.reports[0]!.suites.map((s) => s.id)).toEqual([
      'client-process',
      'client-lifecycle',
      'client-requests',
      'client-2026',
      'client-schemas',
    ]);
    expect(r.verdict('ping', 'client-lifecycle/ping-answered').verdict).toBe('pass');
  });
});

describe('fault scenarios (only when named)', () => {
  it('server-error and dropped-answer: the TS SDK Client retries, times out and cancels, over stdio and Streamable HTTP', async () => {
    const [s, h] = await Promise.all([
      client(['--stdio', `${SDK} stdio {server}`, '--scenario', 'server-error,dropped-answer']),
      client(['--http', `${SDK} http {url}`, '--scenario', 'server-error,dropped-answer']),
    ]);
    for (const r of [s, h]) {
      expect(r.code, nonPass(r).join('\n')).toBe(0);
      expect(r.verdict('server-error', 'client-requests/retry-after-failure')).toMatchObject({
        verdict: 'info',
        message: expect.stringMatching(/tried again/),
      });
      expect(r.verdict('dropped-answer', 'client-requests/cancel-after-timeout')).toMatchObject({
        verdict: 'pass',
        message: expect.stringMatching(/cancelled it after \d+ ms/),
      });
    }
    expect(h.verdict('server-error', 'client-requests/retry-after-failure').message).toMatch(/HTTP 503/);
    expect(s.verdict('server-error', 'client-requests/retry-after-failure').message).toMatch(/-32603/);
    const defaults = await cli(['client', '--help'], { timeoutMs: 30_000 });
    expect(defaults.stdout.replace(/\s+/g, ' ')).toMatch(/except the faults server-error and dropped-answer/);
  });
});

const peers = await pythonPeers();
describe('the Python SDK ClientSession', () => {
  const python = peers.python;
  it.skipIf(!python)(
    `passes over stdio and Streamable HTTP (${python ? python : `skipped: ${peers.reason}`})`,
    async () => {
      const script = join(ROOT, 'fixtures/clients/python-sdk-client.py');
      const s = await client(['--stdio', `${python} ${script} stdio {server}`]);
      expect(s.code, nonPass(s).join('\n')).toBe(0);
      const h = await client(['--http', `${python} ${script} http {url}`]);
      expect(h.code, nonPass(h).join('\n')).toBe(0);
    },
    300_000,
  );
});

describe('a 2026-07-28-only client written by hand (fixtures/clients/discover-2026.py)', () => {
  const D = `python3 ${join(ROOT, 'fixtures/clients/discover-2026.py')} {server}`;
  it('is graded in 2026-07-28: _meta passes; without clientCapabilities client-2026/meta fails; against a legacy mock it cannot connect and the run fails', async () => {
    const [good, bad, legacy] = await Promise.all([
      client(['--stdio', D, '--scenario', 'pages']),
      client(['--stdio', `${D} no-capabilities`, '--scenario', 'pages']),
      client(['--stdio', D, '--scenario', 'pages', '--protocol-version', '2025-11-25']),
    ]);
    expect(good.code, nonPass(good).join('\n')).toBe(0);
    expect(good.verdict('pages', 'client-2026/meta').verdict).toBe('pass');
    expect(good.verdict('pages', 'client-lifecycle/initialize-first')).toMatchObject({
      verdict: 'skip',
      message: expect.stringMatching(/spoke 2026-07-28 only/),
    });
    expect(good.reports[0]!.client).toMatchObject({
      name: 'discover-2026',
      version: '1.0.0',
      protocolVersion: '2026-07-28',
    });
    expect(bad.code).toBe(1);
    expect(bad.verdict('pages', 'client-2026/meta')).toMatchObject({
      verdict: 'fail',
      message: expect.stringMatching(/1 of 1 requests lack them: server\/discover/),
    });
    expect(legacy.code).toBe(1);
    expect(legacy.verdict('pages', 'client-process/exit')).toMatchObject({
      verdict: 'fail',
      message: expect.stringMatching(/never got a request answered: it could not connect/),
    });
  });
});

describe('broken clients fail the case about their defect', () => {
  const stdioCases: [string, string, string, string][] = [
    ['no-initialize-first', 'pages', 'client-lifecycle/initialize-first', 'fail'],
    ['no-initialized', 'pages', 'client-lifecycle/initialized-sent', 'fail'],
    ['duplicate-ids', 'pages', 'client-requests/unique-ids', 'fail'],
    ['ping-unanswered', 'ping', 'client-lifecycle/ping-answered', 'fail'],
    ['schema-invalid', 'pages', 'client-requests/schema', 'fail'],
    // A SHOULD in the spec: warn, and a fail under --strict (below).
    ['request-before-init-answer', 'pages', 'client-lifecycle/wait-for-initialize-answer', 'warn'],
  ];
  it('over stdio: each defect fails its case; the correct client passes them all', async () => {
    const good = await client(['--stdio', `${py('none')} stdio {server}`, '--scenario', 'pages,ping']);
    expect(good.code, nonPass(good).join('\n')).toBe(0);
    for (const [, scenario, id] of stdioCases) expect(good.verdict(scenario, id).verdict, id).toBe('pass');
    const results = await Promise.all(
      stdioCases.map(([defect, scenario]) =>
        client(['--stdio', `${py(defect)} stdio {server}`, '--scenario', scenario]),
      ),
    );
    stdioCases.forEach(([defect, scenario, id, verdict], i) => {
      const r = results[i]!;
      expect(r.verdict(scenario, id).verdict, `${defect}: ${id}`).toBe(verdict);
      expect(r.code, defect).toBe(verdict === 'fail' ? 1 : 0);
      // The defect explains every fail.
      const fails = r.reports
        .flatMap((x) => x.suites.flatMap((s) => s.cases))
        .filter((c) => c.verdict === 'fail')
        .map((c) => c.id);
      expect(
        fails.every((f) => f === id),
        `${defect}: ${fails.join(', ')}`,
      ).toBe(true);
    });
  });

  it('--strict turns the SHOULD about waiting for the initialize answer into a fail', async () => {
    const r = await client([
      '--stdio',
      `${py('request-before-init-answer')} stdio {server}`,
      '--scenario',
      'pages',
      '--strict',
    ]);
    expect(r.code).toBe(1);
    expect(r.verdict('pages', 'client-lifecycle/wait-for-initialize-answer')).toMatchObject({
      verdict: 'fail',
      strictFromWarn: true,
    });
  });

  it('over Streamable HTTP: missing Accept types, session id not echoed, no MCP-Protocol-Version, no new session after 404, retry not waited out', async () => {
    const httpCases: [string, string, string][] = [
      ['missing-accept', 'pages', 'client-http/accept'],
      ['no-session-id', 'pages', 'client-http/session-id'],
      ['no-protocol-version', 'pages', 'client-http/protocol-version-header'],
      ['no-reinit', 'session-expired', 'client-http/reinitialize-after-404'],
      ['ignores-retry', 'stream-resume', 'client-http/retry-respected'],
    ];
    const good = await client([
      '--http',
      `${py('none')} http {url}`,
      '--scenario',
      'pages,session-expired,stream-resume',
    ]);
    expect(good.code, nonPass(good).join('\n')).toBe(0);
    for (const [, scenario, id] of httpCases) expect(good.verdict(scenario, id).verdict, id).toBe('pass');
    const results = await Promise.all(
      httpCases.map(([defect, scenario]) => client(['--http', `${py(defect)} http {url}`, '--scenario', scenario])),
    );
    httpCases.forEach(([defect, scenario, id], i) => {
      expect(results[i]!.verdict(scenario, id).verdict, `${defect}: ${id}`).toBe('fail');
      expect(results[i]!.code).toBe(1);
    });
    expect(results[0]!.verdict('pages', 'client-http/accept').message).toMatch(/Accept: application\/json;/);
  });

  it('--max-duration bounds the whole command: scenarios not started are named in the report', async () => {
    const r = await client([
      '--stdio',
      `${py('hang')} stdio {server}`,
      '--scenario',
      'pages,ping',
      '--concurrency',
      '1', // one after another: the second is the one not started
      '--max-duration',
      '3000',
      '--shutdown-grace',
      '500',
    ]);
    expect(r.code).toBe(1);
    expect(r.ms).toBeLessThan(15_000);
    expect(r.reports.map((x) => x.target.name)).toEqual(['scenario pages']);
    expect(r.reports[0]!.aborted).toMatch(
      /not finished within \d+ ms.*not run: --max-duration ran out before scenario ping/,
    );
  });

  it('SIGINT ends the client in progress with its group, writes the partial report, exits 130', async () => {
    const { spawn } = await import('node:child_process');
    const outDir = mkdtempSync(join(tmpdir(), 'mcp-conform-client-int-'));
    const p = spawn(
      process.execPath,
      [
        join(ROOT, 'dist/bin/mcp-conform.js'),
        'client',
        '--stdio',
        `${py('hang')} stdio {server}`,
        '--scenario',
        'pages,ping',
        '--concurrency',
        '1', // one after another: the first is in progress, the second not started
        '--out-dir',
        outDir,
        '--reporter',
        'json',
        '--quiet',
      ],
      { stdio: 'ignore' },
    );
    // Long enough for the CLI to be up with its handlers (it takes 3–4 s on a loaded machine).
    await new Promise((r) => setTimeout(r, 8000));
    p.kill('SIGINT');
    const code = await new Promise<number | null>((r) => {
      const t = setTimeout(() => {
        p.kill('SIGKILL');
        r(null);
      }, 20_000);
      p.once('exit', (c) => {
        clearTimeout(t);
        r(c);
      });
    });
    expect(code).toBe(130);
    const rep = JSON.parse(readFileSync(join(outDir, 'report.json'), 'utf8')) as Report;
    expect(rep.aborted).toMatch(/interrupted by SIGINT/);
    expect(processTable().filter((x) => !x.stat.startsWith('Z') && x.pgid === rep.process.pid)).toEqual([]);
  });

  it('version-aware: MCP-Protocol-Version is not asked of a 2025-03-26 session', async () => {
    const r = await client([
      '--http',
      `${py('no-protocol-version')} http {url}`,
      '--scenario',
      'pages',
      '--env',
      'CLIENTKIT_PROTOCOL_VERSION=2025-03-26',
    ]);
    expect(r.code, nonPass(r).join('\n')).toBe(0);
    expect(r.verdict('pages', 'client-http/protocol-version-header')).toMatchObject({
      verdict: 'skip',
      message: expect.stringMatching(/protocol 2025-03-26 \(the case applies from 2025-06-18 on\)/),
    });
    expect(r.verdict('pages', 'client-http/accept').spec).toBe(
      'https://modelcontextprotocol.io/specification/2025-03-26/basic/transports#sending-messages-to-the-server',
    );
  });

  it('a client that hangs is ended at --timeout with its process group, and reported', async () => {
    // 10 s: the client and the mock it starts must be up and through initialize first (3–4 s each on a loaded machine).
    const r = await client([
      '--stdio',
      `${py('hang')} stdio {server}`,
      '--scenario',
      'pages',
      '--timeout',
      '10000',
      '--shutdown-grace',
      '500',
    ]);
    expect(r.code).toBe(1);
    expect(r.ms).toBeLessThan(25_000);
    const rep = r.reports[0]!;
    expect(rep.aborted).toMatch(/not finished within 10000 ms/);
    expect(rep.process.shutdown).toMatch(/SIGTERM|SIGKILL/);
    // What it did before hanging is still graded.
    expect(r.verdict('pages', 'client-lifecycle/initialized-sent').verdict).toBe('pass');
    // Nothing of it is left: neither the client nor the mock it started.
    const left = processTable().filter(
      (p) =>
        !p.stat.startsWith('Z') &&
        (p.pgid === rep.process.pid ||
          /^python3 \S*broken\/hang\.py/.test(p.args) ||
          (/--client-scenario/.test(p.args) && p.pgid === rep.process.pid)),
    );
    expect(left).toEqual([]);
  });
});

describe('the command', () => {
  it('{server} is one argument holding the mock command line, quoted as a shell would; without a placeholder it is appended', () => {
    const line = shellQuote(['/usr/bin/node', '/a dir/cli.js', 'serve', '--x', "it's"]);
    expect(shellWords(line)).toEqual(['/usr/bin/node', '/a dir/cli.js', 'serve', '--x', "it's"]);
    expect(substitute(['py', 'c.py', '--server', '{server}'], '{server}', 'node x')).toEqual([
      'py',
      'c.py',
      '--server',
      'node x',
    ]);
    expect(substitute(['py', 'c.py'], '{url}', 'http://h/mcp')).toEqual(['py', 'c.py', 'http://h/mcp']);
    expect(substitute(['c', '--url={url}'], '{url}', 'http://h/mcp')).toEqual(['c', '--url=http://h/mcp']);
  });

  it('the environment carries MCP_CONFORM_URL and MCP_CONFORM_SCENARIO (the value appended when no placeholder)', async () => {
    const dir = mkdtempSync(join(tmpdir(), 'mcp-conform-env-'));
    const script = join(dir, 'env.mjs');
    writeFileSync(
      script,
      'console.error(`url=${process.env.MCP_CONFORM_URL} scenario=${process.env.MCP_CONFORM_SCENARIO} arg=${process.argv[2]}`);\n',
    );
    const r = await client(['--http', `node ${script}`, '--scenario', 'ping']);
    const line = r.reports[0]!.process.stderr.join('\n');
    const m = /url=(\S+) scenario=ping arg=(\S+)/.exec(line);
    expect(m, line).toBeTruthy();
    expect(m![1]).toBe(m![2]);
    expect(m![1]).toMatch(/^http:\/\/127\.0\.0\.1:\d+\/mcp$/);
    // It sent nothing: initialize-first fails with what happened.
    expect(r.verdict('ping', 'client-lifecycle/initialize-first').message).toMatch(
      /sent nothing at all; the client exited with code 0/,
    );
  });

  it('usage errors exit 2: unknown scenario, a scenario of another transport, no client command', async () => {
    for (const args of [
      ['--stdio', 'x {server}', '--scenario', 'nope'],
      ['--stdio', 'x {server}', '--scenario', 'session-expired'],
      [],
    ]) {
      const r = await cli(['client', ...args], { timeoutMs: 30_000 });
      expect(r.code, args.join(' ')).toBe(2);
      expect(r.stderr).toMatch(/scenario|client needs/);
    }
  });

  it('junit report and baselines work as for run', async () => {
    const outDir = mkdtempSync(join(tmpdir(), 'mcp-conform-client-b-'));
    const base = join(outDir, 'baseline.yaml');
    const args = [
      'client',
      '--stdio',
      `${py('duplicate-ids')} stdio {server}`,
      '--scenario',
      'pages',
      '--out-dir',
      outDir,
      '--quiet',
    ];
    const first = await cli([...args, '--reporter', 'junit', '--update-baseline', base]);
    expect(first.code).toBe(0); // the failure written to the baseline, then excused by it
    expect(readFileSync(base, 'utf8')).toMatch(/client-requests\/unique-ids/);
    expect(readFileSync(join(outDir, 'junit.xml'), 'utf8')).toMatch(/client-requests\/unique-ids/);
    const again = await cli([...args, '--reporter', 'json', '--baseline', base]);
    expect(again.code).toBe(0);
    const plain = await cli([...args, '--reporter', 'json']);
    expect(plain.code).toBe(1);
  });

  it('the built-in fixture serves its resource and prompt (fixtures now have resources and prompts)', async () => {
    const session = new FixtureSource(readFixture(defaultFixtureFile())).newSession();
    const ask = async (method: string, params: unknown) => {
      const out: Record<string, unknown>[] = [];
      await session.receive(JSON.stringify({ jsonrpc: '2.0', id: 1, method, params }), (m) => out.push(m));
      return out[0]!;
    };
    expect(
      await ask('initialize', {
        protocolVersion: '2025-11-25',
        capabilities: {},
        clientInfo: { name: 't', version: '1' },
      }),
    ).toMatchObject({ result: { capabilities: { tools: {}, resources: {}, prompts: {} } } });
    expect(await ask('resources/list', {})).toMatchObject({
      result: { resources: [{ uri: 'mock://readme', name: 'readme', title: 'Read me' }] },
    });
    expect(await ask('resources/read', { uri: 'mock://readme' })).toMatchObject({
      result: { contents: [{ uri: 'mock://readme', text: expect.any(String) }] },
    });
    expect(await ask('resources/read', { uri: 'mock://nope' })).toMatchObject({ error: { code: -32002 } });
    expect(await ask('prompts/get', { name: 'greet', arguments: { name: 'Ada' } })).toMatchObject({
      result: { messages: [{ role: 'user', content: { type: 'text', text: 'Say hello to Ada.' } }] },
    });
    expect(await ask('prompts/get', { name: 'greet' })).toMatchObject({
      error: { code: -32602, message: expect.stringMatching(/needs argument name/) },
    });
    expect(await ask('tools/list', {})).toMatchObject({
      result: { tools: [{ name: 'echo' }, { name: 'add' }], nextCursor: 'page-2' },
    });
  });

  it('the log is linked and checked offline as run does: responses know their request', () => {
    const t = 1000;
    const { log, version } = logOf(
      [
        {
          t,
          dir: 'to-server',
          raw: JSON.stringify({
            jsonrpc: '2.0',
            id: 0,
            method: 'initialize',
            params: { protocolVersion: '2025-06-18', capabilities: {}, clientInfo: { name: 'c', version: '1' } },
          }),
        },
        {
          t: t + 1,
          dir: 'from-server',
          raw: JSON.stringify({
            jsonrpc: '2.0',
            id: 0,
            result: { protocolVersion: '2025-06-18', capabilities: {}, serverInfo: { name: 's', version: '1' } },
          }),
        },
        { t: t + 2, dir: 'from-server', raw: JSON.stringify({ jsonrpc: '2.0', id: 'p', method: 'ping' }) },
        { t: t + 3, dir: 'to-server', raw: JSON.stringify({ jsonrpc: '2.0', id: 'p', result: {} }) },
        { t: t + 4, dir: 'to-server', raw: 'not json' },
      ],
      t,
    );
    expect(version).toBe('2025-06-18');
    expect(log[1]).toMatchObject({ inReplyTo: 0, method: 'initialize' });
    expect(log[3]).toMatchObject({ inReplyTo: 2, method: 'ping', schema: { valid: true } });
    expect(log[4]).toMatchObject({ kind: 'invalid', schema: { valid: false } });
  });
});
