/**
 * `mcp-conform client` with today's real clients: the TS SDK v2 Client (auto, pinned 2026-07-28), the Python SDK's
 * mcp.Client and FastMCP's Client (auto) against the dual-era mock, graded in 2026-07-28 (client-2026: _meta, the
 * request-metadata headers, negotiation, input_required rounds); probing clients against the legacy mock
 * (--protocol-version 2025-11-25), their lifecycle graded on each session (the probe process apart); a client that
 * cannot connect fails its run; the verdicts the issue found false, each held by a real client; the AI SDK, mastra (Node 22)
 * and mcp-remote over every transport they support, their verdicts held by the ledger. Needs the build.
 */
import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { describe, expect, it } from 'vitest';
import { client, nonPass, type ClientResult } from './helpers/client-run.js';
import { clientHttp } from '../clients/suites/http.js';
import { serverRequestsFor } from '../mocks/client-mock.js';
import type { ClientCaseContext } from '../clients/suites/helpers.js';
import { ROOT } from './helpers/cli.js';
import { pythonPeers } from './helpers/python-peers.js';
import { node22Peers } from './helpers/node22-peers.js';
import { unledgered } from './helpers/client-ledger.js';

const V2 = (mode: string, kind: string) =>
  `node ${join(ROOT, 'fixtures/clients/peers/ts-v2-client.mjs')} ${mode} ${kind} ${kind === 'stdio' ? '{server}' : '{url}'}`;
const V1 = (kind: string) =>
  `node ${join(ROOT, 'fixtures/clients/sdk-client.mjs')} ${kind} ${kind === 'stdio' ? '{server}' : '{url}'}`;
const cases = (r: ClientResult, scenario: string) =>
  r.reports.find((x) => x.target.name === `scenario ${scenario}`)!.suites.flatMap((s) => s.cases);

describe('the TS SDK v2 Client, 2026-07-28 against the dual-era mock', () => {
  it('auto over stdio and Streamable HTTP: graded in 2026-07-28, no fail, no warn; headers, negotiation, input_required pass', async () => {
    const [s, h] = await Promise.all([
      client(['--stdio', V2('auto', 'stdio')], 300_000),
      client(['--http', V2('auto', 'http')], 300_000),
    ]);
    for (const r of [s, h]) {
      expect(r.code, nonPass(r).join('\n')).toBe(0);
      expect(nonPass(r).filter((x) => !/ info: /.test(x))).toEqual([]);
      expect(r.reports[0]!.options.protocolVersionInForce).toBe('2026-07-28');
      for (const id of [
        'client-process/exit',
        'client-2026/meta',
        'client-2026/client-info',
        'client-2026/negotiation',
        'client-requests/schema',
      ])
        expect(r.verdict('pages', id).verdict, id).toBe('pass');
      expect(r.verdict('server-requests', 'client-2026/input-required')).toMatchObject({
        verdict: 'pass',
        message: expect.stringMatching(/inputResponses roots, sampling, elicitation and requestState echoed/),
      });
      expect(r.verdict('list-changed', 'client-requests/list-changed').verdict).toBe('pass');
      expect(r.verdict('list-changed', 'client-2026/subscriptions').message).toMatch(/toolsListChanged/);
      // No initialize in 2026-07-28: the lifecycle says why it is not graded, and how to grade it.
      expect(r.verdict('pages', 'client-lifecycle/initialize-first')).toMatchObject({
        verdict: 'skip',
        message: expect.stringMatching(/--protocol-version 2025-11-25/),
      });
    }
    for (const id of ['client-2026/version-header', 'client-2026/standard-headers', 'client-2026/custom-headers'])
      expect(h.verdict('pages', id).verdict, id).toBe('pass');
    // The stdio probe runs in a process of its own: two sessions, ids graded in each.
    expect(s.verdict('pages', 'client-requests/unique-ids').message).toMatch(
      /session 1 of 2: 1 request,.*session 2 of 2/,
    );
  }, 600_000);

  it('pinned to 2026-07-28 against a legacy mock cannot connect: client-process/exit fails, mcp-conform exits 1', async () => {
    const r = await client(['--stdio', V2('pin', 'stdio'), '--protocol-version', '2025-11-25', '--scenario', 'pages']);
    expect(r.code).toBe(1);
    expect(r.verdict('pages', 'client-process/exit')).toMatchObject({
      verdict: 'fail',
      message: expect.stringMatching(/exited with code 1 and never got a request answered/),
    });
    expect(r.verdict('pages', 'client-2026/negotiation')).toMatchObject({
      verdict: 'info',
      message: expect.stringMatching(/did not fall back to initialize/),
    });
  }, 600_000);
});

describe('probing clients against the legacy mock (--protocol-version 2025-11-25): the lifecycle of every session', () => {
  it('TS SDK v2 auto falls back: the probe process apart, the working session graded, no fail', async () => {
    const [s, h] = await Promise.all([
      client(['--stdio', V2('auto', 'stdio'), '--protocol-version', '2025-11-25'], 300_000),
      client(['--http', V2('auto', 'http'), '--protocol-version', '2025-11-25'], 300_000),
    ]);
    for (const r of [s, h]) {
      expect(r.code, nonPass(r).join('\n')).toBe(0);
      expect(r.reports[0]!.options.protocolVersionInForce).toBe('2025-11-25');
      for (const id of [
        'client-lifecycle/initialize-first',
        'client-lifecycle/initialize-params',
        'client-lifecycle/initialized-sent',
        'client-lifecycle/wait-for-initialize-answer',
      ])
        expect(r.verdict('pages', id).verdict, id).toBe('pass');
      expect(r.verdict('pages', 'client-2026/negotiation')).toMatchObject({
        verdict: 'pass',
        message: expect.stringMatching(/fell back to initialize/),
      });
      expect(r.verdict('ping', 'client-lifecycle/ping-answered').verdict).toBe('pass');
      expect(r.verdict('server-requests', 'client-requests/server-requests-answered')).toMatchObject({
        verdict: 'pass',
        message: expect.stringMatching(/roots\/list, sampling\/createMessage, elicitation\/create/),
      });
    }
    // Over stdio the probe was a process of its own, with server/discover only.
    expect(s.verdict('pages', 'client-requests/unique-ids').message).toMatch(/session 1 of 2/);
  }, 600_000);
});

describe('the verdicts the issue found false', () => {
  it('list-changed and pagination are info at most (no client SHOULD); list-changed is credited only in the session that got the notification', async () => {
    const r = await client(['--stdio', V1('stdio'), '--scenario', 'list-changed']);
    const c = r.verdict('list-changed', 'client-requests/list-changed');
    expect(c).toMatchObject({ verdict: 'pass', level: 'MAY', message: expect.stringMatching(/in the same session/) });
    expect(r.verdict('list-changed', 'client-requests/pagination').level).toBe('MAY');
  }, 600_000);

  it('session-expired expires the session the client works in; a 404 on the closing DELETE alone asks for no new session; delete-session does not warn about the expired one', async () => {
    const r = await client(['--http', V1('http'), '--scenario', 'session-expired']);
    expect(r.code, nonPass(r).join('\n')).toBe(0);
    expect(r.verdict('session-expired', 'client-http/reinitialize-after-404').verdict).toBe('pass');
    expect(r.verdict('session-expired', 'client-http/delete-session')).toMatchObject({
      verdict: 'pass',
      message: expect.stringMatching(/not asked of 1 session the mock expired/),
    });
    // The TS SDK v2 Client (legacy mode): its script starts a new session after a 404 (the SDK leaves that to the application).
    const v2 = await client(['--http', V2('legacy', 'http'), '--scenario', 'session-expired']);
    const reinit = v2.verdict('session-expired', 'client-http/reinitialize-after-404');
    expect(reinit.verdict, reinit.message).toBe('pass');
    expect(v2.verdict('session-expired', 'client-http/delete-session').verdict).not.toBe('warn');
  }, 600_000);

  it('a 404 to the closing DELETE alone is no reason to re-initialize (grader, on exchanges as the mock records them)', () => {
    const ex = (n: number, method: string, extra: Record<string, unknown> = {}) => ({
      n,
      t: n,
      method,
      url: 'http://127.0.0.1/mcp',
      headers: { 'mcp-session-id': 's1' },
      session: 'k1',
      ...extra,
    });
    const exchanges = [
      {
        n: 0,
        t: 0,
        method: 'POST',
        url: 'http://127.0.0.1/mcp',
        headers: {},
        rpcMethod: 'initialize',
        rpcId: 0,
        status: 200,
        issuedSession: 's1',
        session: 'k1',
      },
      ex(1, 'POST', { rpcMethod: 'tools/list', rpcId: 1, status: 200 }),
      ex(2, 'DELETE', { status: 404 }),
    ];
    const ctx = {
      exchanges,
      sessions: [],
      log: [],
      transport: 'streamable-http',
      scenario: 'session-expired',
      version: '2025-11-25',
      client: { exitCode: 0, signal: null, durationMs: 1 },
    } as unknown as ClientCaseContext;
    const c = clientHttp.cases.find((x) => x.id === 'client-http/reinitialize-after-404')!;
    expect(c.run(ctx)).toMatchObject({ verdict: 'skip', message: expect.stringMatching(/closing DELETE \(404\)/) });
  });

  it('server-requests asks only for what the client declared (elicitation: form by default, url when declared)', () => {
    expect(serverRequestsFor({})).toEqual([]);
    expect(serverRequestsFor({ roots: {}, sampling: {} }).map((r) => r.method)).toEqual([
      'roots/list',
      'sampling/createMessage',
    ]);
    expect(serverRequestsFor({ elicitation: {} }).map((r) => r.params.mode)).toEqual(['form']);
    expect(serverRequestsFor({ elicitation: { url: {} } }).map((r) => r.params.mode)).toEqual(['url']);
    expect(serverRequestsFor({ elicitation: { form: {}, url: {} } }).map((r) => r.params.mode)).toEqual([
      'form',
      'url',
    ]);
  });

  it('stream-resume: a page on the cut stream the client never got is not held against its pagination', async () => {
    const r = await client(['--http', V2('legacy', 'http'), '--scenario', 'stream-resume']);
    const p = r.verdict('stream-resume', 'client-requests/pagination');
    expect(p.verdict).not.toBe('warn');
    expect(p.level).toBe('MAY');
  }, 600_000);
});

const peers = await pythonPeers();
describe('Python clients: mcp.Client and FastMCP Client', () => {
  const python = peers.python;
  const PY = (lib: string, mode: string, kind: string) =>
    `${python} ${join(ROOT, 'fixtures/clients/peers/py-client.py')} ${lib} ${mode} ${kind} ${kind === 'stdio' ? '{server}' : '{url}'}`;
  it.skipIf(!python)(
    `auto over stdio and Streamable HTTP: no fail (${python ? python : `skipped: ${peers.reason}`})`,
    async () => {
      const runs = await Promise.all([
        client(['--stdio', PY('mcp', 'auto', 'stdio'), '--scenario', 'pages,server-requests'], 300_000),
        client(['--http', PY('mcp', 'auto', 'http'), '--scenario', 'pages,server-requests'], 300_000),
        client(['--stdio', PY('fastmcp', 'auto', 'stdio'), '--scenario', 'pages,server-requests'], 300_000),
        client(['--http', PY('fastmcp', 'auto', 'http'), '--scenario', 'pages,server-requests'], 300_000),
      ]);
      for (const r of runs) {
        expect(r.code, nonPass(r).join('\n')).toBe(0);
        expect(r.verdict('pages', 'client-process/exit').verdict).toBe('pass');
        expect(r.verdict('pages', 'client-2026/meta').verdict).toBe('pass');
        expect(cases(r, 'pages').filter((c) => c.verdict === 'fail')).toEqual([]);
      }
    },
    600_000,
  );

  it.skipIf(!python)(
    'auto against the legacy mock: falls back, the lifecycle graded',
    async () => {
      const r = await client([
        '--stdio',
        PY('mcp', 'auto', 'stdio'),
        '--protocol-version',
        '2025-11-25',
        '--scenario',
        'pages',
      ]);
      expect(r.code, nonPass(r).join('\n')).toBe(0);
      expect(r.verdict('pages', 'client-lifecycle/initialize-first').verdict).toBe('pass');
      expect(r.verdict('pages', 'client-2026/negotiation').message).toMatch(/fell back to initialize/);
    },
    600_000,
  );
});

// The AI SDK's client and mcp-remote are devDependencies; mastra (Node 22) is installed by node22-peers.ts. Their default
// runs are held against the ledger: every non-pass verdict stands in a row of docs/real-servers.md (Clients).
describe('the AI SDK MCP client (@ai-sdk/mcp)', () => {
  const A = (kind: string) =>
    `node ${join(ROOT, 'fixtures/clients/peers/ai-sdk-client.mjs')} ${kind} ${kind === 'stdio' ? '{server}' : '{url}'}`;
  it('stdio (2026-07-28, or initialize after a slow start) and Streamable HTTP (2026-07-28), every scenario: no fail, no warn, every info in the ledger', async () => {
    const [s, h] = await Promise.all([
      client(['--stdio', A('stdio')], 300_000),
      client(['--http', A('http')], 300_000),
    ]);
    for (const r of [s, h]) {
      expect(r.code, nonPass(r).join('\n')).toBe(0);
      expect(nonPass(r).filter((x) => !/ info: /.test(x))).toEqual([]);
      expect(unledgered('AI SDK', r)).toEqual([]);
      expect(r.verdict('pages', 'client-process/exit').verdict).toBe('pass');
    }
    // Over stdio it sends server/discover with a 1 s bound that includes the server's start-up (@ai-sdk/mcp
    // DEFAULT_PROTOCOL_DISCOVERY_TIMEOUT) and falls back to initialize when the mock is slower to start (a loaded
    // machine): either era is its behaviour, and each is graded as such.
    const stdioVersion = s.reports[0]!.options.protocolVersionInForce;
    expect(['2025-11-25', '2026-07-28']).toContain(stdioVersion);
    if (stdioVersion === '2025-11-25')
      expect(s.verdict('pages', 'client-lifecycle/initialize-first').verdict).toBe('pass');
    else expect(s.verdict('pages', 'client-2026/meta').verdict).toBe('pass');
    expect(h.reports[0]!.options.protocolVersionInForce).toBe('2026-07-28');
    for (const id of ['client-2026/meta', 'client-2026/version-header', 'client-2026/custom-headers'])
      expect(h.verdict('pages', id).verdict, id).toBe('pass');
  }, 600_000);
});

const node22 = await node22Peers();
describe('mastra MCPClient (@mastra/mcp, Node 22)', () => {
  const M = (kind: string) =>
    `${node22.node} ${join(ROOT, 'fixtures/clients/node22/mastra-client.mjs')} ${kind} ${kind === 'stdio' ? '{server}' : '{url}'}`;
  const env = ['--env', `NODE22_MODULES=${node22.modules}`, '--env', 'MASTRA_TELEMETRY_DISABLED=1'];
  it.skipIf(!node22.node)(
    `stdio and Streamable HTTP against the dual-era mock, every scenario: 2026-07-28, no fail, no warn, every info in the ledger${node22.node ? '' : ` (skipped: ${node22.reason})`}`,
    async () => {
      const [s, h] = await Promise.all([
        client(['--stdio', M('stdio'), ...env], 300_000),
        client(['--http', M('http'), ...env], 300_000),
      ]);
      for (const r of [s, h]) {
        expect(r.code, nonPass(r).join('\n')).toBe(0);
        expect(nonPass(r).filter((x) => !/ info: /.test(x))).toEqual([]);
        expect(unledgered('mastra', r)).toEqual([]);
        expect(r.reports[0]!.options.protocolVersionInForce).toBe('2026-07-28');
        for (const id of [
          'client-process/exit',
          'client-2026/meta',
          'client-2026/client-info',
          'client-2026/negotiation',
        ])
          expect(r.verdict('pages', id).verdict, id).toBe('pass');
      }
      for (const id of ['client-2026/version-header', 'client-2026/standard-headers'])
        expect(h.verdict('pages', id).verdict, id).toBe('pass');
    },
    600_000,
  );

  it.skipIf(!node22.node)(
    'against the legacy mock it falls back to initialize: its lifecycle graded and passed; over HTTP it leaves its session without DELETE (ledger)',
    async () => {
      const runs = await Promise.all(
        ['stdio', 'http'].map((k) =>
          client([`--${k}`, M(k), ...env, '--protocol-version', '2025-11-25', '--scenario', 'pages'], 300_000),
        ),
      );
      for (const r of runs) {
        expect(r.code, nonPass(r).join('\n')).toBe(0);
        expect(unledgered('mastra', r)).toEqual([]);
        for (const id of [
          'client-lifecycle/initialize-first',
          'client-lifecycle/initialize-params',
          'client-lifecycle/initialized-sent',
          'client-lifecycle/wait-for-initialize-answer',
        ])
          expect(r.verdict('pages', id).verdict, id).toBe('pass');
        expect(r.verdict('pages', 'client-2026/negotiation').message).toMatch(/fell back to initialize/);
      }
      expect(runs[1]!.verdict('pages', 'client-http/delete-session')).toMatchObject({
        verdict: 'warn',
        message: expect.stringMatching(/never sent DELETE/),
      });
    },
    600_000,
  );
});

// mcp-remote (a stdio-to-HTTP bridge): the TS SDK v1 Client drives it over stdio; the mock grades its HTTP side.
describe('mcp-remote', () => {
  const REMOTE = join(ROOT, 'node_modules/mcp-remote/dist/proxy.js');
  it('every session graded (its probe session and the working one); after a 404 it starts a new session and retries with the cursor it had; every non-pass in the ledger', async () => {
    const config = mkdtempSync(join(tmpdir(), 'mcp-remote-'));
    try {
      const r = await client(
        [
          '--http',
          `node ${join(ROOT, 'fixtures/clients/sdk-client.mjs')} stdio 'node ${REMOTE} {url} --allow-http'`,
          '--env',
          `MCP_REMOTE_CONFIG_DIR=${config}`,
        ],
        300_000,
      );
      // Its driver, the TS SDK v1 Client, refuses plot's valid result in scenario tool-schemas (ledger): exit 1.
      expect(r.code, nonPass(r).join('\n')).toBe(1);
      expect(nonPass(r).filter((x) => / fail: /.test(x) && !/^scenario tool-schemas:/.test(x))).toEqual([]);
      expect(unledgered('mcp-remote', r)).toEqual([]);
      expect(r.verdict('pages', 'client-lifecycle/initialize-first').message).toMatch(
        /session 1 of 2: .*session 2 of 2: /,
      );
      expect(r.verdict('session-expired', 'client-http/reinitialize-after-404').verdict).toBe('pass');
      expect(r.verdict('session-expired', 'client-requests/pagination').verdict).not.toBe('fail');
      // It leaves both sessions without DELETE (a SHOULD): the ledger row says why that is a warn.
      expect(r.verdict('pages', 'client-http/delete-session')).toMatchObject({
        verdict: 'warn',
        message: expect.stringMatching(/never sent DELETE for session \S+, session \S+;/),
      });
    } finally {
      rmSync(config, { recursive: true, force: true });
    }
  }, 600_000);
});
