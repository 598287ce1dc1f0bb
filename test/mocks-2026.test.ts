/**
 * The mock speaks 2026-07-28 (mocks/era.ts, mocks/http-modern.ts): dual-era by default (initialize and modern
 * requests alike), one version with --protocol-version. Real clients: the TS SDK v2 Client (auto, pinned 2026-07-28,
 * legacy) over stdio and Streamable HTTP against `serve`, and over msw handlers; the TS SDK v1 Client still served.
 * The wire: server/discover, resultType and cache hints, -32022, -32602 for missing _meta, HTTP 404 for an unknown
 * method, -32020 for a header that contradicts the body (Mcp-Method, Mcp-Name, x-mcp-header), subscriptions/listen.
 * Needs the build (the CLI runs from dist/).
 */
import { spawn } from 'node:child_process';
import { join } from 'node:path';
import { setupServer } from 'msw/node';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { Client, StreamableHTTPClientTransport } from '@modelcontextprotocol/client';
import { EraSource, META } from '../mocks/era.js';
import { FixtureSource } from '../mocks/fixture.js';
import { startHttpMock, type RunningHttpMock } from '../mocks/http.js';
import { mcpHandlers } from '../mocks/msw.js';
import { ROOT } from './helpers/cli.js';

const FIXTURE = join(ROOT, 'fixtures/mocks/client-default.yaml');
const V2 = join(ROOT, 'fixtures/clients/peers/ts-v2-client.mjs');
const V1 = join(ROOT, 'fixtures/clients/sdk-client.mjs');
const CLI = join(ROOT, 'dist/bin/mcp-conform.js');

function run(cmd: string, args: string[], timeoutMs = 30_000): Promise<{ code: number | null; out: string }> {
  return new Promise((resolve) => {
    const child = spawn(cmd, args, { stdio: ['ignore', 'pipe', 'pipe'], detached: true });
    let out = '';
    child.stdout.on('data', (b: Buffer) => {
      out += b;
    });
    child.stderr.on('data', (b: Buffer) => {
      out += b;
    });
    const t = setTimeout(() => {
      try {
        process.kill(-child.pid!, 'SIGKILL');
      } catch {
        /* gone */
      }
    }, timeoutMs);
    child.on('close', (code) => {
      clearTimeout(t);
      resolve({ code, out });
    });
  });
}

const serveCmd = (extra = '') => `node ${CLI} serve --fixture ${FIXTURE}${extra}`;
const meta = (v = '2026-07-28') => ({
  [META.protocolVersion]: v,
  [META.clientCapabilities]: {},
  [META.clientInfo]: { name: 't', version: '1' },
});

async function post(url: string, body: Record<string, unknown>, headers: Record<string, string> = {}) {
  const r = await fetch(url, {
    method: 'POST',
    headers: { 'content-type': 'application/json', accept: 'application/json, text/event-stream', ...headers },
    body: JSON.stringify(body),
  });
  const text = await r.text();
  return { status: r.status, json: text ? (JSON.parse(text) as Record<string, any>) : undefined };
}

describe('serve over stdio: the TS SDK v2 Client', () => {
  it('auto and pinned speak 2026-07-28 to the dual-era mock, legacy speaks 2025-11-25', async () => {
    const [auto, pin, legacy] = await Promise.all(
      ['auto', 'pin', 'legacy'].map((m) => run('node', [V2, m, 'stdio', serveCmd()])),
    );
    for (const r of [auto, pin]) {
      expect(r.code, r.out).toBe(0);
      expect(r.out).toMatch(/connected: 2026-07-28/);
      expect(r.out).toMatch(/echo: \[\{"type":"text","text":"hello"\}\]/);
    }
    expect(legacy.code, legacy.out).toBe(0);
    expect(legacy.out).toMatch(/connected: 2025-11-25/);
  });

  it('--protocol-version 2025-11-25: auto falls back to initialize, pinned cannot connect', async () => {
    const [auto, pin] = await Promise.all(
      ['auto', 'pin'].map((m) => run('node', [V2, m, 'stdio', serveCmd(' --protocol-version 2025-11-25')])),
    );
    expect(auto.code, auto.out).toBe(0);
    expect(auto.out).toMatch(/connected: 2025-11-25/);
    expect(pin.code).not.toBe(0);
    expect(pin.out).toMatch(/did not offer pinned protocol version 2026-07-28/);
  });

  it('--protocol-version 2026-07-28: the v1 Client (initialize only) is refused; a bad version is a usage error', async () => {
    const v1 = await run('node', [V1, 'stdio', serveCmd(' --protocol-version 2026-07-28')]);
    expect(v1.code).not.toBe(0);
    expect(v1.out).toMatch(/2026-07-28 only/);
    const bad = await run('node', [CLI, 'serve', '--fixture', FIXTURE, '--protocol-version', '2030-01-01']);
    expect(bad.code).toBe(2);
    expect(bad.out).toMatch(/--protocol-version: 2030-01-01 is not a protocol version the mock speaks/);
  });
});

describe('serve over Streamable HTTP (in process)', () => {
  let dual: RunningHttpMock;
  let legacyOnly: RunningHttpMock;
  beforeAll(async () => {
    dual = await startHttpMock(new EraSource(FixtureSource.fromFile(FIXTURE)), { port: 0, kind: 'streamable-http' });
    legacyOnly = await startHttpMock(new EraSource(FixtureSource.fromFile(FIXTURE), '2025-11-25'), {
      port: 0,
      kind: 'streamable-http',
    });
  });
  afterAll(async () => {
    await dual.close();
    await legacyOnly.close();
  });

  it('the TS SDK v2 Client, auto, pinned and legacy; the v1 Client', async () => {
    const rs = await Promise.all([
      ...['auto', 'pin', 'legacy'].map((m) => run('node', [V2, m, 'http', dual.url])),
      run('node', [V1, 'http', dual.url]),
    ]);
    for (const r of rs) expect(r.code, r.out).toBe(0);
    expect(rs[0]!.out).toMatch(/connected: 2026-07-28/);
    expect(rs[1]!.out).toMatch(/connected: 2026-07-28/);
    expect(rs[2]!.out).toMatch(/connected: 2025-11-25/);
    const fallback = await run('node', [V2, 'auto', 'http', legacyOnly.url]);
    expect(fallback.code, fallback.out).toBe(0);
    expect(fallback.out).toMatch(/connected: 2025-11-25/);
  });

  it('server/discover, resultType and cache hints, -32022, -32602, 404 for an unknown method', async () => {
    const h = (method: string, name?: string) => ({
      'mcp-protocol-version': '2026-07-28',
      'mcp-method': method,
      ...(name ? { 'mcp-name': name } : {}),
    });
    const d = await post(
      dual.url,
      { jsonrpc: '2.0', id: 1, method: 'server/discover', params: { _meta: meta() } },
      h('server/discover'),
    );
    expect(d.status).toBe(200);
    expect(d.json!.result).toMatchObject({
      resultType: 'complete',
      supportedVersions: expect.arrayContaining(['2026-07-28', '2025-11-25']),
      capabilities: { tools: {} },
      ttlMs: expect.any(Number),
      cacheScope: 'public',
      _meta: { [META.serverInfo]: { name: 'mcp-conform-client-mock' } },
    });
    const list = await post(
      dual.url,
      { jsonrpc: '2.0', id: 2, method: 'tools/list', params: { _meta: meta() } },
      h('tools/list'),
    );
    expect(list.json!.result).toMatchObject({
      resultType: 'complete',
      nextCursor: 'page-2',
      ttlMs: expect.any(Number),
    });
    const old = await post(
      dual.url,
      { jsonrpc: '2.0', id: 3, method: 'tools/list', params: { _meta: meta('1900-01-01') } },
      { ...h('tools/list'), 'mcp-protocol-version': '1900-01-01' },
    );
    expect(old.status).toBe(400);
    expect(old.json!.error).toMatchObject({
      code: -32022,
      data: { requested: '1900-01-01', supported: expect.arrayContaining(['2026-07-28']) },
    });
    const noCaps = await post(
      dual.url,
      { jsonrpc: '2.0', id: 4, method: 'tools/list', params: { _meta: { [META.protocolVersion]: '2026-07-28' } } },
      h('tools/list'),
    );
    expect(noCaps.status).toBe(400);
    expect(noCaps.json!.error.code).toBe(-32602);
    const unknown = await post(
      dual.url,
      { jsonrpc: '2.0', id: 5, method: 'no/such', params: { _meta: meta() } },
      h('no/such'),
    );
    expect(unknown.status).toBe(404);
    expect(unknown.json!.error.code).toBe(-32601);
    const ping = await post(dual.url, { jsonrpc: '2.0', id: 6, method: 'ping', params: { _meta: meta() } }, h('ping'));
    expect(ping.status).toBe(404);
  });

  it('-32020 when a header contradicts the body or is missing; Base64 sentinel values are decoded', async () => {
    const body = {
      jsonrpc: '2.0',
      id: 7,
      method: 'tools/call',
      params: { name: 'echo', arguments: { text: 'x' }, _meta: meta() },
    };
    // echo's text is marked x-mcp-header: Text in the built-in fixture.
    const ok = await post(dual.url, body, {
      'mcp-protocol-version': '2026-07-28',
      'mcp-method': 'tools/call',
      'mcp-name': `=?base64?${Buffer.from('echo').toString('base64')}?=`,
      'mcp-param-text': 'x',
    });
    expect(ok.status).toBe(200);
    expect(ok.json!.result).toMatchObject({ resultType: 'complete', content: [{ type: 'text', text: 'x' }] });
    for (const [headers, why] of [
      [{ 'mcp-protocol-version': '2026-07-28', 'mcp-method': 'tools/call' }, /Mcp-Name header is missing/],
      [
        { 'mcp-protocol-version': '2026-07-28', 'mcp-method': 'tools/list', 'mcp-name': 'echo' },
        /Mcp-Method tools\/list does not match/,
      ],
      [
        { 'mcp-protocol-version': '2025-11-25', 'mcp-method': 'tools/call', 'mcp-name': 'echo' },
        /MCP-Protocol-Version 2025-11-25 does not match/,
      ],
      [{ 'mcp-method': 'tools/call', 'mcp-name': 'echo' }, /MCP-Protocol-Version header is missing/],
    ] as const) {
      const r = await post(dual.url, body, headers);
      expect(r.status).toBe(400);
      expect(r.json!.error.code).toBe(-32020);
      expect(r.json!.error.message).toMatch(why);
    }
  });

  it('x-mcp-header: the argument a tool marks must come as Mcp-Param-{Name}', async () => {
    const f = {
      server: { name: 'h', version: '1' },
      tools: [
        {
          name: 'sql',
          inputSchema: {
            type: 'object',
            properties: { region: { type: 'string', 'x-mcp-header': 'Region' }, q: { type: 'string' } },
          },
          answers: [{ text: 'done' }],
        },
      ],
    };
    const m = await startHttpMock(new EraSource(new FixtureSource(f)), { port: 0, kind: 'streamable-http' });
    try {
      const body = {
        jsonrpc: '2.0',
        id: 1,
        method: 'tools/call',
        params: { name: 'sql', arguments: { region: 'us-west1', q: 'select' }, _meta: meta() },
      };
      const base = { 'mcp-protocol-version': '2026-07-28', 'mcp-method': 'tools/call', 'mcp-name': 'sql' };
      const missing = await post(m.url, body, base);
      expect(missing.status).toBe(400);
      expect(missing.json!.error.message).toMatch(/Mcp-Param-Region header is missing/);
      const wrong = await post(m.url, body, { ...base, 'mcp-param-region': 'eu' });
      expect(wrong.json!.error.code).toBe(-32020);
      const right = await post(m.url, body, { ...base, 'mcp-param-region': 'us-west1' });
      expect(right.status).toBe(200);
      // Absent argument: no header expected.
      const none = await post(m.url, { ...body, params: { ...body.params, arguments: { q: 'x' } } }, base);
      expect(none.status).toBe(200);
    } finally {
      await m.close();
    }
  });

  it('subscriptions/listen: an SSE stream that stays open, the acknowledgment first with the subscription id', async () => {
    const ac = new AbortController();
    const r = await fetch(dual.url, {
      method: 'POST',
      signal: ac.signal,
      headers: {
        'content-type': 'application/json',
        accept: 'application/json, text/event-stream',
        'mcp-protocol-version': '2026-07-28',
        'mcp-method': 'subscriptions/listen',
      },
      body: JSON.stringify({
        jsonrpc: '2.0',
        id: 'L1',
        method: 'subscriptions/listen',
        params: { _meta: meta(), notifications: { toolsListChanged: true, promptsListChanged: true } },
      }),
    });
    expect(r.status).toBe(200);
    expect(r.headers.get('content-type')).toMatch(/text\/event-stream/);
    const reader = r.body!.getReader();
    const { value } = await reader.read();
    const text = new TextDecoder().decode(value);
    const ack = JSON.parse(/data: (.*)/.exec(text)![1]!) as Record<string, any>;
    expect(ack).toMatchObject({
      method: 'notifications/subscriptions/acknowledged',
      params: {
        _meta: { [META.subscriptionId]: 'L1' },
        notifications: { toolsListChanged: true, promptsListChanged: true },
      },
    });
    ac.abort();
  });

  it('the legacy-only mock answers server/discover as a legacy server does (no session: 400)', async () => {
    const d = await post(
      legacyOnly.url,
      { jsonrpc: '2.0', id: 1, method: 'server/discover', params: { _meta: meta() } },
      { 'mcp-protocol-version': '2026-07-28', 'mcp-method': 'server/discover' },
    );
    expect(d.status).toBe(400);
    expect(d.json!.error.code).not.toBe(-32022);
  });
});

describe('msw handlers speak 2026-07-28 too', () => {
  const server = setupServer(
    ...mcpHandlers('http://dual.test/mcp', { fixture: FIXTURE }),
    ...mcpHandlers('http://legacy.test/mcp', { fixture: FIXTURE, protocolVersion: '2025-11-25' }),
  );
  beforeAll(() => server.listen({ onUnhandledRequest: 'error' }));
  afterAll(() => server.close());

  it('the TS SDK v2 Client in auto mode: 2026-07-28 on the dual-era handlers, 2025-11-25 on the legacy ones', async () => {
    for (const [url, want] of [
      ['http://dual.test/mcp', '2026-07-28'],
      ['http://legacy.test/mcp', '2025-11-25'],
    ] as const) {
      const client = new Client({ name: 't', version: '1' }, { versionNegotiation: { mode: 'auto' } });
      await client.connect(new StreamableHTTPClientTransport(new URL(url)));
      expect(client.getNegotiatedProtocolVersion()).toBe(want);
      const { tools } = await client.listTools();
      expect(tools.map((t) => t.name)).toEqual(expect.arrayContaining(['echo', 'add']));
      await client.close();
    }
  });
});
