/**
 * The msw handlers (`mcp-conform/msw`): an SDK Client over StreamableHTTPClientTransport talks to a cassette and a
 * fixture served inside this test process by msw — no network, no hang (every notification is answered 202 with no
 * body, which the SDK cancels).
 */
import { readFileSync } from 'node:fs';
import { join, resolve } from 'node:path';
import { setupServer } from 'msw/node';
import { afterAll, afterEach, beforeAll, describe, expect, it } from 'vitest';
import { Client } from '@modelcontextprotocol/sdk/client/index.js';
import { StreamableHTTPClientTransport } from '@modelcontextprotocol/sdk/client/streamableHttp.js';
import { SSEClientTransport } from '@modelcontextprotocol/sdk/client/sse.js';
import { mcpHandlers, mcpSseHandlers } from '../mocks/msw.js';
import { parseCassette } from '../core/formats/cassette.js';

const ROOT = resolve(__dirname, '..');

/** A small cassette, written by hand in the documented format. */
const CASSETTE =
  [
    {
      type: 'header',
      format: 'mcp-conform-cassette',
      version: 1,
      recorder: { name: 'hand', version: '1', mode: 'manual' },
      recordedAt: '2026-01-01T00:00:00Z',
      transport: 'streamable-http',
      protocolVersion: '2025-06-18',
      server: { serverInfo: { name: 'weather', version: '2.0.0' } },
      redactions: [],
    },
    {
      type: 'message',
      dir: 'to-server',
      t: 0,
      message: {
        jsonrpc: '2.0',
        id: 0,
        method: 'initialize',
        params: { protocolVersion: '2025-06-18', capabilities: {}, clientInfo: { name: 'rec', version: '1' } },
      },
    },
    {
      type: 'message',
      dir: 'from-server',
      t: 5,
      message: {
        jsonrpc: '2.0',
        id: 0,
        result: {
          protocolVersion: '2025-06-18',
          capabilities: { tools: {}, logging: {} },
          serverInfo: { name: 'weather', version: '2.0.0' },
        },
      },
    },
    { type: 'message', dir: 'to-server', t: 6, message: { jsonrpc: '2.0', method: 'notifications/initialized' } },
    { type: 'message', dir: 'to-server', t: 7, message: { jsonrpc: '2.0', id: 1, method: 'tools/list' } },
    {
      type: 'message',
      dir: 'from-server',
      t: 9,
      message: {
        jsonrpc: '2.0',
        id: 1,
        result: {
          tools: [{ name: 'forecast', inputSchema: { type: 'object', properties: { city: { type: 'string' } } } }],
        },
      },
    },
    {
      type: 'message',
      dir: 'to-server',
      t: 10,
      message: {
        jsonrpc: '2.0',
        id: 2,
        method: 'tools/call',
        params: { name: 'forecast', arguments: { city: 'Oslo' }, _meta: { progressToken: 77 } },
      },
    },
    {
      type: 'message',
      dir: 'from-server',
      t: 11,
      message: {
        jsonrpc: '2.0',
        method: 'notifications/progress',
        params: { progressToken: 77, progress: 1, total: 1 },
      },
      http: { sseEvent: 'message', sseId: '1' },
    },
    {
      type: 'message',
      dir: 'from-server',
      t: 12,
      message: { jsonrpc: '2.0', method: 'notifications/message', params: { level: 'info', data: 'looked up Oslo' } },
      http: { sseEvent: 'message', sseId: '2' },
    },
    {
      type: 'message',
      dir: 'from-server',
      t: 13,
      message: { jsonrpc: '2.0', id: 2, result: { content: [{ type: 'text', text: 'Oslo: snow, -3 °C' }] } },
      http: { sseEvent: 'message', sseId: '3' },
    },
  ]
    .map((l) => JSON.stringify(l))
    .join('\n') + '\n';

const server = setupServer(
  ...mcpHandlers('http://mcp.test/mcp', { cassette: parseCassette(CASSETTE, 'weather.jsonl') }),
  ...mcpHandlers('http://fixture.test/mcp', { fixture: join(ROOT, 'fixtures/mocks/calc.yaml') }),
  ...mcpSseHandlers('http://legacy.test/sse', { cassette: parseCassette(CASSETTE, 'weather.jsonl') }),
  ...mcpSseHandlers('http://legacy-fixture.test/sse', { fixture: join(ROOT, 'fixtures/mocks/calc.yaml') }),
);

beforeAll(() => server.listen({ onUnhandledRequest: 'error' }));
afterEach(() => server.resetHandlers());
afterAll(() => server.close());

function bounded<T>(p: Promise<T>, ms = 10_000): Promise<T> {
  return Promise.race([
    p,
    new Promise<T>((_, rej) => setTimeout(() => rej(new Error(`no answer within ${ms} ms (hang)`)), ms)),
  ]);
}

describe('mcpHandlers with msw (no network)', () => {
  it('replays a cassette to the SDK client: progress token and ids rewritten, notifications where recorded', async () => {
    const client = new Client({ name: 'app-under-test', version: '0.1.0' });
    const logs: unknown[] = [];
    await bounded(client.connect(new StreamableHTTPClientTransport(new URL('http://mcp.test/mcp'))));
    client.fallbackNotificationHandler = async (n) => {
      logs.push(n);
    };
    expect(client.getServerVersion()).toEqual({ name: 'weather', version: '2.0.0' });
    const tools = await bounded(client.listTools());
    expect(tools.tools[0]!.name).toBe('forecast');
    const progress: unknown[] = [];
    const r = await bounded(
      client.callTool({ name: 'forecast', arguments: { city: 'Oslo' } }, undefined, {
        onprogress: (p) => progress.push(p),
      }),
    );
    expect(r.content).toEqual([{ type: 'text', text: 'Oslo: snow, -3 °C' }]);
    expect(progress).toEqual([{ progress: 1, total: 1 }]);
    expect(logs).toEqual([
      { jsonrpc: '2.0', method: 'notifications/message', params: { level: 'info', data: 'looked up Oslo' } },
    ]);
    await expect(bounded(client.callTool({ name: 'forecast', arguments: { city: 'Bergen' } }))).rejects.toThrow(
      /replay miss \(different\).*\/arguments\/city: recorded "Oslo", got "Bergen"/,
    );
    await bounded(client.close());
  });

  it('serves a fixture; many notifications in a row do not hang (202, no body)', async () => {
    const client = new Client(
      { name: 'app-under-test', version: '0.1.0' },
      { capabilities: { roots: { listChanged: true } } },
    );
    await bounded(client.connect(new StreamableHTTPClientTransport(new URL('http://fixture.test/mcp'))));
    for (let i = 0; i < 20; i++) await bounded(client.sendRootsListChanged(), 2000);
    expect(await bounded(client.callTool({ name: 'add', arguments: { a: 1, b: 1 } }))).toMatchObject({
      content: [{ type: 'text', text: '2' }],
    });
    await bounded(client.close());
  });

  it('legacy HTTP+SSE (mcpSseHandlers): the SDK client over SSEClientTransport, replay and fixture, no hang', async () => {
    const client = new Client({ name: 'app-under-test', version: '0.1.0' });
    const logs: unknown[] = [];
    await bounded(client.connect(new SSEClientTransport(new URL('http://legacy.test/sse'))));
    client.fallbackNotificationHandler = async (n) => {
      logs.push(n);
    };
    expect(client.getServerVersion()).toEqual({ name: 'weather', version: '2.0.0' });
    expect((await bounded(client.listTools())).tools[0]!.name).toBe('forecast');
    const progress: unknown[] = [];
    const r = await bounded(
      client.callTool({ name: 'forecast', arguments: { city: 'Oslo' } }, undefined, {
        onprogress: (p) => progress.push(p),
      }),
    );
    expect(r.content).toEqual([{ type: 'text', text: 'Oslo: snow, -3 °C' }]);
    expect(progress).toEqual([{ progress: 1, total: 1 }]);
    expect(logs).toEqual([
      { jsonrpc: '2.0', method: 'notifications/message', params: { level: 'info', data: 'looked up Oslo' } },
    ]);
    await expect(bounded(client.callTool({ name: 'forecast', arguments: { city: 'Bergen' } }))).rejects.toThrow(
      /replay miss \(different\)/,
    );
    await bounded(client.close());
    // A second client gets a fresh session (and the first stream's close did not hang anything).
    for (let i = 0; i < 3; i++) {
      const c = new Client(
        { name: 'app-under-test', version: '0.1.0' },
        { capabilities: { roots: { listChanged: true } } },
      );
      await bounded(c.connect(new SSEClientTransport(new URL('http://legacy-fixture.test/sse'))));
      for (let j = 0; j < 5; j++) await bounded(c.sendRootsListChanged(), 2000);
      expect(await bounded(c.callTool({ name: 'add', arguments: { a: 1, b: 1 } }))).toMatchObject({
        content: [{ type: 'text', text: '2' }],
      });
      await bounded(c.close());
    }
  });

  it('the package exports ./msw', () => {
    const pkg = JSON.parse(readFileSync(join(ROOT, 'package.json'), 'utf8')) as { exports: Record<string, string> };
    expect(pkg.exports['./msw']).toBe('./dist/mocks/msw.js');
  });
});
