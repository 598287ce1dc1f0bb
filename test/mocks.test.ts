/**
 * Mocks end to end: record the harness's session with calc.py (run --record), replay it to the SDK's Client over
 * stdio (serve --cassette), the harness against its own replay and against the bundled fixtures, redaction and
 * check-secrets, the stdio recording proxy, and bad input. Needs the build (npm test builds first).
 */
import { execFile, spawn } from 'node:child_process';
import { mkdtempSync, readdirSync, readFileSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join, resolve } from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { Client } from '@modelcontextprotocol/sdk/client/index.js';
import { StdioClientTransport } from '@modelcontextprotocol/sdk/client/stdio.js';
import { StreamableHTTPClientTransport } from '@modelcontextprotocol/sdk/client/streamableHttp.js';
import { SSEClientTransport } from '@modelcontextprotocol/sdk/client/sse.js';
import { parseCassette, readCassette } from '../core/formats/cassette.js';
import { ReplaySource } from '../mocks/replay.js';
import { findSecrets } from '../core/redact.js';
import { parseFixture } from '../core/formats/fixture.js';

const ROOT = resolve(__dirname, '..');
const CLI = join(ROOT, 'dist/bin/mcp-conform.js');
const CALC = `python3 ${join(ROOT, 'fixtures/servers/calc.py')}`;
const dir = mkdtempSync(join(tmpdir(), 'mcp-mocks-'));
const cassette = join(dir, 'calc.jsonl');

function cli(
  args: string[],
  o: { env?: Record<string, string>; timeout?: number } = {},
): Promise<{ code: number; stdout: string; stderr: string }> {
  return new Promise((res) => {
    execFile(
      'node',
      [CLI, ...args],
      { cwd: dir, env: { ...process.env, ...o.env, NO_COLOR: '1', GITHUB_ACTIONS: '' }, timeout: o.timeout ?? 90_000 },
      (err, stdout, stderr) => {
        res({ code: err ? (typeof err.code === 'number' ? err.code : 1) : 0, stdout, stderr });
      },
    );
  });
}

async function sdkClient(args: string[]): Promise<Client> {
  const client = new Client({ name: 'sdk-test-client', version: '1.0.0' });
  await client.connect(new StdioClientTransport({ command: 'node', args: [CLI, ...args], stderr: 'pipe' }));
  return client;
}

/** serve over HTTP on a free port; resolves with the URL it prints. */
function serveHttp(args: string[]): Promise<{ url: string; stop: () => Promise<void> }> {
  const p = spawn('node', [CLI, 'serve', ...args], { stdio: ['ignore', 'ignore', 'pipe'] });
  return new Promise((res, rej) => {
    let err = '';
    const timer = setTimeout(() => {
      p.kill('SIGKILL');
      rej(new Error(`serve did not start: ${err}`));
    }, 15_000);
    p.stderr!.on('data', (d: Buffer) => {
      err += d.toString();
      const m = /at (http:\/\/\S+)/.exec(err);
      if (m) {
        clearTimeout(timer);
        res({
          url: m[1]!,
          stop: () =>
            new Promise((r) => {
              if (p.exitCode !== null) return r();
              p.once('exit', () => r());
              p.kill('SIGTERM');
              setTimeout(() => p.kill('SIGKILL'), 3000).unref();
            }),
        });
      }
    });
  });
}

beforeAll(async () => {
  const r = await cli([
    'run',
    '--stdio',
    CALC,
    '--record',
    cassette,
    '--quiet',
    '--reporter',
    'json',
    '--out-dir',
    join(dir, 'rec'),
  ]);
  expect(r.code, r.stderr).toBe(0);
}, 120_000);

describe('cassette written by run --record', () => {
  it('has a header, then every message of the report in order', () => {
    const c = readCassette(cassette);
    expect(c.header).toMatchObject({
      format: 'mcp-conform-cassette',
      version: 1,
      transport: 'stdio',
      protocolVersion: '2025-11-25',
      recorder: { mode: 'run' },
    });
    expect(c.header.server?.serverInfo).toMatchObject({ name: 'calc' });
    const report = JSON.parse(readFileSync(join(dir, 'rec/report.json'), 'utf8')) as { messages: unknown[] };
    expect(c.messages.length).toBe(report.messages.length);
    // The harness may ask server/discover (2026-07-28) before it falls back to initialize: both are recorded.
    expect(c.messages[0]).toMatchObject({ type: 'message', dir: 'to-server', message: { jsonrpc: '2.0' } });
    expect(
      c.messages.find((m) => m.dir === 'to-server' && (m.message as { method?: string }).method === 'initialize'),
    ).toBeTruthy();
  });

  it('readers skip unknown line types; corrupt and truncated files name the line', () => {
    const text = readFileSync(cassette, 'utf8');
    const lines = text.trimEnd().split('\n');
    const withUnknown = [lines[0], '{"type":"future-thing","x":1}', ...lines.slice(1)].join('\n');
    expect(parseCassette(withUnknown).messages.length).toBe(lines.length - 1);
    expect(() => parseCassette(lines.slice(0, 5).join('\n') + '\n{"type":"message","dir":"to-se', 'x.jsonl')).toThrow(
      /x\.jsonl:6: not JSON \(the file looks truncated\)/,
    );
    expect(() => parseCassette('{"type":"message"}\n', 'y.jsonl')).toThrow(
      /y\.jsonl:1: the first line must be the cassette header/,
    );
  });

  it('serve exits 2 on a corrupt cassette and on a broken fixture, naming file and line', async () => {
    const bad = join(dir, 'bad.jsonl');
    writeFileSync(bad, readFileSync(cassette, 'utf8').split('\n').slice(0, 3).join('\n') + '\n{not json\n');
    const r = await cli(['serve', '--cassette', bad], { timeout: 20_000 });
    expect(r.code).toBe(2);
    expect(r.stderr).toMatch(/bad\.jsonl:4: not JSON/);
    const badFx = join(dir, 'bad.yaml');
    writeFileSync(badFx, 'server: { name: x, version: "1" }\ntools:\n  - name: t\n    answers:\n      - bogus: 1\n');
    const f = await cli(['serve', '--fixture', badFx], { timeout: 20_000 });
    expect(f.code).toBe(2);
    expect(f.stderr).toMatch(/bad\.yaml:5: tools\[0\]\.answers\[0\]\.bogus: unknown key/);
  });
});

describe('replay to the SDK Client over stdio', () => {
  it('gives the recorded answers to listTools and callTool, and explains a miss', async () => {
    const client = await sdkClient(['serve', '--cassette', cassette]);
    try {
      expect(client.getServerVersion()).toMatchObject({ name: 'calc', version: '1.0.0' });
      const tools = await client.listTools();
      expect(tools.tools.map((t) => t.name)).toEqual(['add', 'subtract', 'multiply', 'divide']);
      expect(tools.nextCursor).toBeTruthy();
      const sum = await client.callTool({ name: 'add', arguments: { a: 1, b: 1 } });
      expect(sum.content).toEqual([{ type: 'text', text: '2' }]);
      // Not recorded: an explanatory error that names the nearest recording, never a made-up answer.
      const miss = client.callTool({ name: 'add', arguments: { a: 1, b: 40 } });
      await expect(miss).rejects.toThrow(
        /replay miss \(different\).*nearest is cassette line \d+ \{"name":"add","arguments":\{"a":1,"b":1\}\}.*\/arguments\/b: recorded 1, got 40/,
      );
      // The one recorded add is used up: exhausted.
      await expect(client.callTool({ name: 'add', arguments: { a: 1, b: 1 } })).rejects.toThrow(
        /replay miss \(exhausted\)/,
      );
      // A method the recorded run never sent (the run probes the methods of undeclared capabilities — prompts/list,
      // resources/templates/list… — so those are in the cassette; it never unsubscribes).
      await expect(client.unsubscribeResource({ uri: 'file:///nothing' })).rejects.toThrow(
        /replay miss \(missing\): .* has no resources\/unsubscribe request/,
      );
    } finally {
      await client.close();
    }
  });

  it("rewrites ids to the client's and replays identical requests from a pool in recorded order", async () => {
    const src = ReplaySource.fromFile(cassette);
    const s = src.newSession();
    const out: Record<string, unknown>[] = [];
    await s.receive(
      JSON.stringify({
        jsonrpc: '2.0',
        id: 'client-1',
        method: 'initialize',
        params: {
          protocolVersion: '2025-11-25',
          capabilities: { roots: {} },
          clientInfo: { name: 'other', version: '9' },
        },
      }),
      (m) => out.push(m),
    );
    await s.receive(JSON.stringify({ jsonrpc: '2.0', method: 'notifications/initialized' }), (m) => out.push(m));
    const pings = readCassette(cassette).messages.filter(
      (m) =>
        m.dir === 'to-server' &&
        (m.message as { method?: string })?.method === 'ping' &&
        (m.message as { jsonrpc?: string }).jsonrpc === '2.0',
    ).length;
    for (let i = 0; i < pings; i++)
      await s.receive(
        JSON.stringify({ jsonrpc: '2.0', id: 1000 + i, method: 'ping', params: { _meta: { foo: i } } }),
        (m) => out.push(m),
      );
    expect(out[0]).toMatchObject({ id: 'client-1', result: { serverInfo: { name: 'calc' } } });
    expect(out.slice(1).map((m) => m.id)).toEqual(Array.from({ length: pings }, (_, i) => 1000 + i));
    const extra: Record<string, unknown>[] = [];
    await s.receive(JSON.stringify({ jsonrpc: '2.0', id: 'x', method: 'ping' }), (m) => extra.push(m));
    expect(extra[0]).toMatchObject({ id: 'x', error: { code: -32001 } });
  });
});

describe('the harness against the mocks', () => {
  it('run against serve --cassette of calc.py: the same verdicts as calc.py itself, no fail', async () => {
    const r = await cli([
      'run',
      '--stdio',
      `node ${CLI} serve --cassette ${cassette}`,
      '--quiet',
      '--reporter',
      'json',
      '--out-dir',
      join(dir, 'replayed'),
    ]);
    expect(r.code, r.stderr).toBe(0);
    const replayed = JSON.parse(readFileSync(join(dir, 'replayed/report.json'), 'utf8')) as {
      summary: Record<string, number>;
    };
    const real = JSON.parse(readFileSync(join(dir, 'rec/report.json'), 'utf8')) as { summary: Record<string, number> };
    expect(replayed.summary.fail).toBe(0);
    expect(replayed.summary.pass).toBe(real.summary.pass);
    expect(replayed.summary.warn).toBe(real.summary.warn);
  });

  // Every bundled fixture (whatever is added to fixtures/mocks later), over stdio and over Streamable HTTP.
  const fixtures = readdirSync(join(ROOT, 'fixtures/mocks'))
    .filter((f) => /\.(ya?ml|json)$/.test(f) && !f.endsWith('.schema.json'))
    .sort();
  it('the bundled fixtures are found', () => {
    expect(fixtures).toEqual(expect.arrayContaining(['calc.yaml', 'minimal.json']));
  });
  for (const f of fixtures) {
    it(`run against serve --fixture ${f} (stdio): no fail`, async () => {
      const r = await cli([
        'run',
        '--stdio',
        `node ${CLI} serve --fixture ${join(ROOT, 'fixtures/mocks', f)}`,
        '--quiet',
        '--reporter',
        'json',
        '--out-dir',
        join(dir, `fx-${f}`),
      ]);
      expect(r.code, r.stderr).toBe(0);
      const rep = JSON.parse(readFileSync(join(dir, `fx-${f}/report.json`), 'utf8')) as {
        summary: Record<string, number>;
      };
      expect(rep.summary.fail).toBe(0);
      expect(rep.summary.pass).toBeGreaterThan(40);
    });
    it(`run against serve --fixture ${f} --http 0 (Streamable HTTP): no fail`, async () => {
      const mock = await serveHttp(['--fixture', join(ROOT, 'fixtures/mocks', f), '--http', '0']);
      try {
        const r = await cli([
          'run',
          '--http',
          mock.url,
          '--quiet',
          '--reporter',
          'json',
          '--out-dir',
          join(dir, `fxh-${f}`),
        ]);
        expect(r.code, r.stderr).toBe(0);
        const rep = JSON.parse(readFileSync(join(dir, `fxh-${f}/report.json`), 'utf8')) as {
          summary: Record<string, number>;
        };
        expect(rep.summary.fail).toBe(0);
        expect(rep.summary.pass).toBeGreaterThan(40);
      } finally {
        await mock.stop();
      }
    });
  }
});

describe('fixtures', () => {
  it('canned answers by argument match, isError answers, protocol errors, progress and logs (SDK client)', async () => {
    const client = await sdkClient(['serve', '--fixture', join(ROOT, 'fixtures/mocks/calc.yaml')]);
    try {
      expect(await client.callTool({ name: 'add', arguments: { a: 2, b: 3 } })).toMatchObject({
        content: [{ type: 'text', text: '5' }],
      });
      expect(await client.callTool({ name: 'divide', arguments: { a: 4, b: 0 } })).toMatchObject({
        isError: true,
        content: [{ text: 'division by zero: cannot divide 4 by 0' }],
      });
      expect(await client.callTool({ name: 'stats', arguments: { numbers: [1, 2, 3] } })).toMatchObject({
        structuredContent: { count: 3, mean: 2, min: 1, max: 3 },
      });
      await expect(client.callTool({ name: 'slow_echo', arguments: { text: 'fail now' } })).rejects.toThrow(
        /the echo service is down/,
      );
      const progress: unknown[] = [];
      const r = await client.callTool({ name: 'slow_echo', arguments: { text: 'hi' } }, undefined, {
        onprogress: (p) => progress.push(p),
      });
      expect(r.content).toEqual([{ type: 'text', text: 'hi' }]);
      expect(progress).toEqual([
        { progress: 1, total: 2, message: 'half way' },
        { progress: 2, total: 2 },
      ]);
    } finally {
      await client.close();
    }
  });

  it('the fixture schema rejects unknown keys with a line number', () => {
    expect(() =>
      parseFixture('server: {name: a, version: "1"}\ntools:\n  - name: t\n    inputSchema: 3\n', 'f.yaml'),
    ).toThrow(/f\.yaml:4: tools\[0\]\.inputSchema: must be object/);
  });
});

describe('redaction and check-secrets', () => {
  it('--redact and --redact-env leave no trace of the secret; replay still matches the redacted call', async () => {
    const out = join(dir, 'redacted.jsonl');
    const secret = 'sk-supersecretvalue1234567890abcd';
    const r = await cli(
      [
        'run',
        '--stdio',
        CALC,
        '--record',
        out,
        '--redact',
        'calc',
        '--redact-env',
        'MY_SECRET',
        '--check-secrets',
        '--quiet',
        '--reporter',
        'json',
        '--out-dir',
        join(dir, 'red'),
      ],
      { env: { MY_SECRET: 'A calculator' } },
    );
    expect(r.code, r.stderr).toBe(0);
    const text = readFileSync(out, 'utf8');
    expect(text).not.toMatch(/A calculator/);
    expect(text).toContain('[redacted:env:MY_SECRET]');
    expect(text).not.toMatch(/"name":"calc"/);
    expect(text).toContain('[redacted:1]');
    expect(readCassette(out).header.redactions).toEqual(
      expect.arrayContaining([
        { kind: 'regex', pattern: 'calc', placeholder: '[redacted:1]' },
        { kind: 'env', name: 'MY_SECRET', placeholder: '[redacted:env:MY_SECRET]' },
      ]),
    );
    // check-secrets finds a planted credential and exits 1
    const planted = join(dir, 'planted.jsonl');
    writeFileSync(
      planted,
      text +
        JSON.stringify({
          type: 'message',
          dir: 'to-server',
          t: 1,
          message: {
            jsonrpc: '2.0',
            id: 99,
            method: 'tools/call',
            params: { name: 'x', arguments: { api_key: secret, auth: 'Bearer abcdefghijklmnop' } },
          },
        }) +
        '\n',
    );
    const c = await cli(['check-secrets', planted]);
    expect(c.code).toBe(1);
    expect(c.stderr).toMatch(/API key/);
    expect(c.stderr).toMatch(/bearer token/);
    expect(c.stderr).not.toContain(secret);
    expect(findSecrets(text)).toEqual([]);
  });
});

describe('record --stdio: a proxy between a real client and a real server', () => {
  it("records the SDK client's session with calc.py, which then replays to a new client", async () => {
    const out = join(dir, 'proxied.jsonl');
    const client = await sdkClient(['record', '--stdio', CALC, '--out', out]);
    let live: unknown;
    try {
      await client.listTools();
      live = await client.callTool({ name: 'multiply', arguments: { a: 6, b: 7 } });
    } finally {
      await client.close();
    }
    const deadline = Date.now() + 10_000;
    while (Date.now() < deadline && readCassette(out).messages.filter((m) => m.dir === 'from-server').length < 3)
      await new Promise((r) => setTimeout(r, 100));
    const c = readCassette(out);
    expect(c.header.recorder.mode).toBe('record-stdio');
    expect(c.header.server?.serverInfo).toMatchObject({ name: 'calc' });
    const replay = await sdkClient(['serve', '--cassette', out]);
    try {
      await replay.listTools();
      expect(await replay.callTool({ name: 'multiply', arguments: { a: 6, b: 7 } })).toEqual(live);
    } finally {
      await replay.close();
    }
  });
});

describe('serve over HTTP', () => {
  let http: Awaited<ReturnType<typeof serveHttp>> | undefined;
  let sse: Awaited<ReturnType<typeof serveHttp>> | undefined;
  afterAll(async () => {
    await http?.stop();
    await sse?.stop();
  });

  it('Streamable HTTP (--http 0) and HTTP+SSE (--sse 0) give the SDK client the recorded answers', async () => {
    http = await serveHttp(['--cassette', cassette, '--http', '0']);
    expect(http.url).toMatch(/^http:\/\/127\.0\.0\.1:\d+\/mcp$/);
    const c1 = new Client({ name: 'sdk-http', version: '1' });
    await c1.connect(new StreamableHTTPClientTransport(new URL(http.url)));
    expect((await c1.callTool({ name: 'add', arguments: { a: 1, b: 1 } })).content).toEqual([
      { type: 'text', text: '2' },
    ]);
    await c1.close();
    sse = await serveHttp(['--cassette', cassette, '--sse', '0']);
    const c2 = new Client({ name: 'sdk-sse', version: '1' });
    await c2.connect(new SSEClientTransport(new URL(sse.url)));
    expect((await c2.callTool({ name: 'add', arguments: { a: 1, b: 1 } })).content).toEqual([
      { type: 'text', text: '2' },
    ]);
    await c2.close();
    // a foreign Origin is refused
    const r = await fetch(http.url, {
      method: 'POST',
      headers: {
        origin: 'http://evil.test',
        'content-type': 'application/json',
        accept: 'application/json, text/event-stream',
      },
      body: '{}',
    });
    expect(r.status).toBe(403);
    await r.body?.cancel();
  });
});
