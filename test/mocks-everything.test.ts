/**
 * Acceptance of the mocks with a real client and a real server: the SDK's `Client` records a session with
 * @modelcontextprotocol/server-everything through `mcp-conform record` (over stdio, and over Streamable HTTP with an
 * Authorization header), then gets identical answers from `mcp-conform serve` over stdio, Streamable HTTP and
 * HTTP+SSE; unrecorded calls get explanatory errors. Also: `--mode record-missing` and `--mode passthrough` with a
 * real upstream, and a client that disconnects mid-replay. Needs the build (npm test builds first).
 *
 * The calls are the deterministic part of server-everything: tools/list, echo, get-sum, get-tiny-image, prompts/list,
 * prompts/get simple-prompt, ping. Left out on purpose: trigger-sampling/elicitation (server→client requests that
 * need client capabilities and a human's answer), trigger-long-running-operation (progress paced by timers),
 * toggle-simulated-logging / toggle-subscriber-updates (notifications on timers, they would land anywhere in the
 * recording), get-env (the environment: differs between machines and would put it in the cassette), and roots (the
 * server asks for roots only when the client declares the capability; these clients declare none). The one
 * notification the server sends by itself, notifications/tools/list_changed after initialization, is recorded and
 * replayed, but a client without a handler ignores it.
 */
import { spawn, type ChildProcess } from 'node:child_process';
import { copyFileSync, existsSync, mkdtempSync, readFileSync, writeFileSync } from 'node:fs';
import { request as httpRequest } from 'node:http';
import { tmpdir } from 'node:os';
import { join, resolve } from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { Client } from '@modelcontextprotocol/sdk/client/index.js';
import { StdioClientTransport } from '@modelcontextprotocol/sdk/client/stdio.js';
import { StreamableHTTPClientTransport } from '@modelcontextprotocol/sdk/client/streamableHttp.js';
import { SSEClientTransport } from '@modelcontextprotocol/sdk/client/sse.js';
import type { Transport } from '@modelcontextprotocol/sdk/shared/transport.js';
import { McpError } from '@modelcontextprotocol/sdk/types.js';
import { readCassette } from '../core/formats/cassette.js';
import { findSecrets } from '../core/redact.js';
import { freePort } from './http-helpers.js';

const ROOT = resolve(__dirname, '..');
const CLI = join(ROOT, 'dist/bin/mcp-conform.js');
const EVERYTHING = join(ROOT, 'node_modules/.bin/mcp-server-everything');
const dir = mkdtempSync(join(tmpdir(), 'mcp-mocks-everything-'));
const stdioCassette = join(dir, 'everything-stdio.jsonl');
const httpCassette = join(dir, 'everything-http.jsonl');
const TOKEN = `tok_${Math.random().toString(36).slice(2)}${Math.random().toString(36).slice(2)}`;

// ---------------------------------------------------------------------------------------------------------- helpers

function bounded<T>(p: Promise<T>, what: string, ms = 15_000): Promise<T> {
  let t: NodeJS.Timeout;
  return Promise.race([
    p,
    new Promise<T>((_, rej) => {
      t = setTimeout(() => rej(new Error(`${what}: nothing within ${ms} ms`)), ms);
    }),
  ]).finally(() => clearTimeout(t));
}

interface Proc {
  proc: ChildProcess;
  match: RegExpExecArray;
  stderr: () => string;
  stop: () => Promise<number | null>;
}
const started = new Set<Proc>();

/** Starts a command in its own process group and waits (bounded) until its stderr matches `ready`. */
function startProc(cmd: string, args: string[], ready: RegExp, env: Record<string, string> = {}): Promise<Proc> {
  const proc = spawn(cmd, args, {
    cwd: dir,
    env: { ...process.env, ...env },
    stdio: ['ignore', 'ignore', 'pipe'],
    detached: true,
  });
  let err = '';
  const stop = () =>
    new Promise<number | null>((res) => {
      started.delete(handle);
      if (proc.exitCode !== null || proc.signalCode !== null) return res(proc.exitCode);
      const kill = (sig: NodeJS.Signals) => {
        try {
          process.kill(-proc.pid!, sig);
        } catch {
          /* gone */
        }
      };
      const hard = setTimeout(() => kill('SIGKILL'), 8000);
      proc.once('exit', (code) => {
        clearTimeout(hard);
        res(code);
      });
      kill('SIGTERM');
    });
  const handle: Proc = { proc, match: undefined as unknown as RegExpExecArray, stderr: () => err, stop };
  started.add(handle);
  return new Promise((res, rej) => {
    const timer = setTimeout(() => {
      void stop();
      rej(new Error(`${cmd} ${args.join(' ')} did not start: ${err}`));
    }, 20_000);
    proc.once('exit', (code) => {
      clearTimeout(timer);
      rej(new Error(`${cmd} ${args.join(' ')} exited (${code}) before it was ready: ${err}`));
    });
    proc.stderr!.on('data', (d: Buffer) => {
      err += d.toString();
      const m = ready.exec(err);
      if (m && !handle.match) {
        handle.match = m;
        clearTimeout(timer);
        res(handle);
      }
    });
  });
}

/** `mcp-conform serve|record … --http/--sse/--listen-http 0`: resolves with the URL it prints. */
async function startMock(args: string[]): Promise<Proc & { url: string }> {
  const p = await startProc('node', [CLI, ...args], / at (http:\/\/\S+)\s*$/m);
  return { ...p, url: p.match[1]! };
}

/** server-everything over HTTP (`streamableHttp` at /mcp, or `sse` at /sse) on a free loopback port. */
async function startEverything(kind: 'streamableHttp' | 'sse'): Promise<Proc & { url: string }> {
  const port = await freePort();
  const p = await startProc(EVERYTHING, [kind], /(listening on|running on) port \d+/i, { PORT: String(port) });
  return { ...p, url: `http://127.0.0.1:${port}${kind === 'sse' ? '/sse' : '/mcp'}` };
}

function stdio(args: string[]): Transport {
  return new StdioClientTransport({ command: 'node', args: [CLI, ...args], cwd: dir, stderr: 'pipe' });
}

async function connect(transport: Transport, name = 'mocks-everything-test'): Promise<Client> {
  const client = new Client({ name, version: '1.0.0' });
  await bounded(client.connect(transport), 'connect');
  return client;
}

/** The deterministic calls, in one order; the answers as the client sees them. */
async function session(client: Client): Promise<Record<string, unknown>> {
  const b = <T>(p: Promise<T>, what: string) => bounded(p, what);
  return {
    server: client.getServerVersion(),
    capabilities: client.getServerCapabilities(),
    instructions: client.getInstructions(),
    tools: await b(client.listTools(), 'tools/list'),
    echo: await b(client.callTool({ name: 'echo', arguments: { message: 'hello, cassette' } }), 'echo'),
    sum: await b(client.callTool({ name: 'get-sum', arguments: { a: 2, b: 40 } }), 'get-sum'),
    image: await b(client.callTool({ name: 'get-tiny-image', arguments: {} }), 'get-tiny-image'),
    prompts: await b(client.listPrompts(), 'prompts/list'),
    prompt: await b(client.getPrompt({ name: 'simple-prompt' }), 'prompts/get'),
    ping: await b(client.ping(), 'ping'),
  };
}

/** Calls that were never recorded: each must be an explanatory JSON-RPC error, never an answer. */
async function expectMisses(client: Client): Promise<void> {
  const err = async (p: Promise<unknown>): Promise<McpError> => {
    const e = await bounded(
      p.then(
        () => {
          throw new Error('an unrecorded call got an answer');
        },
        (x: unknown) => x,
      ),
      'miss',
    );
    expect(e).toBeInstanceOf(McpError);
    return e as McpError;
  };
  const different = await err(client.callTool({ name: 'echo', arguments: { message: 'never recorded' } }));
  expect(different.code).toBe(-32001);
  // The nearest recording: an echo (the HTTP cassette has two; the one not used yet ranks first).
  expect(different.message).toMatch(
    /replay miss \(different\): no recorded tools\/call has these params; nearest is cassette line \d+ \{"name":"echo".*, which differs at \/arguments\/message: recorded "[^"]+", got "never recorded"/,
  );
  expect(different.data).toMatchObject({
    replay: { reason: 'different', method: 'tools/call', nearestLine: expect.any(Number) },
  });
  const exhausted = await err(client.callTool({ name: 'get-sum', arguments: { a: 2, b: 40 } }));
  expect(exhausted.code).toBe(-32001);
  expect(exhausted.message).toMatch(
    /replay miss \(exhausted\): tools\/call .* was recorded 1 time .* every recording has been used/,
  );
  const missing = await err(client.listResources());
  expect(missing.code).toBe(-32601);
  expect(missing.message).toMatch(
    /replay miss \(missing\): the cassette everything-\w+\.jsonl has no resources\/list request \(it records: .*tools\/call/,
  );
}

let live: Record<string, unknown>;

afterAll(async () => {
  await Promise.all([...started].map((p) => p.stop()));
});

// ------------------------------------------------------------------------------------------------------------ tests

describe('record a real session with server-everything, replay it over every transport', () => {
  beforeAll(async () => {
    // The client talks to `record --stdio`, which talks to the real server and writes the cassette.
    const client = await connect(stdio(['record', '--stdio', `${EVERYTHING} stdio`, '--out', stdioCassette]));
    try {
      live = await session(client);
    } finally {
      await client.close();
    }
    // The recorder writes as the session goes (at most every 200 ms) and once more when its client leaves.
    const deadline = Date.now() + 10_000;
    const answered = () =>
      existsSync(stdioCassette) &&
      readCassette(stdioCassette).messages.filter(
        (m) => m.dir === 'from-server' && (m.message as { id?: unknown })?.id !== undefined,
      ).length >= 8; // 8 requests
    while (Date.now() < deadline && !answered()) await new Promise((r) => setTimeout(r, 100));
  }, 60_000);

  it("the live answers are the real server's", () => {
    expect(live.server).toMatchObject({ name: 'mcp-servers/everything' });
    expect((live.tools as { tools: { name: string }[] }).tools.map((t) => t.name)).toEqual(
      expect.arrayContaining(['echo', 'get-sum', 'get-tiny-image']),
    );
    expect(live.echo).toEqual({ content: [{ type: 'text', text: 'Echo: hello, cassette' }] });
    expect(live.sum).toEqual({ content: [{ type: 'text', text: 'The sum of 2 and 40 is 42.' }] });
    expect((live.image as { content: { type: string }[] }).content.map((c) => c.type)).toEqual([
      'text',
      'image',
      'text',
    ]);
  });

  it('the cassette: a record-stdio header with the server, every request and its answer', () => {
    const c = readCassette(stdioCassette);
    expect(c.header).toMatchObject({
      format: 'mcp-conform-cassette',
      version: 1,
      transport: 'stdio',
      recorder: { mode: 'record-stdio' },
      protocolVersion: '2025-11-25',
    });
    expect(c.header.server?.serverInfo).toMatchObject({ name: 'mcp-servers/everything' });
    const methods = c.messages
      .filter((m) => m.dir === 'to-server')
      .map((m) => (m.message as { method?: string }).method);
    expect(methods).toEqual([
      'initialize',
      'notifications/initialized',
      'tools/list',
      'tools/call',
      'tools/call',
      'tools/call',
      'prompts/list',
      'prompts/get',
      'ping',
    ]);
    expect(findSecrets(readFileSync(stdioCassette, 'utf8'))).toEqual([]);
  });

  it('serve over stdio: identical answers; unrecorded calls get explanatory errors', async () => {
    const client = await connect(stdio(['serve', '--cassette', stdioCassette]));
    try {
      expect(await session(client)).toEqual(live);
      await expectMisses(client);
    } finally {
      await client.close();
    }
  });

  it('serve --http: identical answers over Streamable HTTP; unrecorded calls get explanatory errors', async () => {
    const mock = await startMock(['serve', '--cassette', stdioCassette, '--http', '0']);
    try {
      const client = await connect(new StreamableHTTPClientTransport(new URL(mock.url)));
      expect(await session(client)).toEqual(live);
      await expectMisses(client);
      await bounded(client.close(), 'close');
    } finally {
      expect(await mock.stop()).toBe(0);
    }
  });

  it('serve --sse: identical answers over HTTP+SSE; unrecorded calls get explanatory errors', async () => {
    const mock = await startMock(['serve', '--cassette', stdioCassette, '--sse', '0']);
    try {
      const client = await connect(new SSEClientTransport(new URL(mock.url)));
      expect(await session(client)).toEqual(live);
      await expectMisses(client);
      await bounded(client.close(), 'close');
    } finally {
      expect(await mock.stop()).toBe(0);
    }
  });
});

describe('record --http with an Authorization header', () => {
  let liveHttp: Record<string, unknown>;
  let echoedToken: unknown;

  beforeAll(async () => {
    const everything = await startEverything('streamableHttp');
    try {
      const proxy = await startMock([
        'record',
        '--http',
        everything.url,
        '--listen-http',
        '0',
        '--out',
        httpCassette,
        '--header',
        `Authorization: Bearer ${TOKEN}`,
      ]);
      try {
        const client = await connect(new StreamableHTTPClientTransport(new URL(proxy.url)));
        liveHttp = await session(client);
        // The token in a payload too: replaced wherever it appears, not only dropped from the headers.
        echoedToken = await bounded(
          client.callTool({ name: 'echo', arguments: { message: `my token is ${TOKEN}` } }),
          'echo token',
        );
        await bounded(client.close(), 'close');
      } finally {
        expect(await proxy.stop()).toBe(0); // SIGTERM: the proxy writes the cassette and exits 0
        expect(proxy.stderr()).toMatch(/Cassette: .*everything-http\.jsonl \(\d+ messages\)/);
      }
    } finally {
      await everything.stop();
    }
  }, 60_000);

  it("the proxy passes the real server's answers (the same as over stdio)", () => {
    expect(echoedToken).toEqual({ content: [{ type: 'text', text: `Echo: my token is ${TOKEN}` }] });
    expect(liveHttp).toEqual(live);
  });

  it('the cassette contains no trace of the token; check-secrets finds nothing', async () => {
    const text = readFileSync(httpCassette, 'utf8');
    expect(text.length).toBeGreaterThan(1000);
    expect(text).not.toContain(TOKEN);
    expect(text).not.toContain(TOKEN.slice(4, 16)); // no part of it either
    expect(text).not.toContain(Buffer.from(TOKEN).toString('base64'));
    expect(text).not.toMatch(/Bearer/i);
    expect(text).toContain('Echo: my token is [redacted:header:authorization]');
    const c = readCassette(httpCassette);
    expect(c.header).toMatchObject({ transport: 'streamable-http', recorder: { mode: 'record-http' } });
    expect(c.header.redactions).toEqual(expect.arrayContaining([{ kind: 'header', name: 'authorization' }]));
    expect(findSecrets(text)).toEqual([]);
    const r = await new Promise<{ code: number | null; stderr: string }>((res) => {
      const p = spawn('node', [CLI, 'check-secrets', httpCassette], { stdio: ['ignore', 'ignore', 'pipe'] });
      let stderr = '';
      p.stderr.on('data', (d: Buffer) => {
        stderr += d.toString();
      });
      const t = setTimeout(() => p.kill('SIGKILL'), 20_000);
      p.on('exit', (code) => {
        clearTimeout(t);
        res({ code, stderr });
      });
    });
    expect(r.code, r.stderr).toBe(0);
  });

  it('the HTTP recording replays over Streamable HTTP with identical answers', async () => {
    const mock = await startMock(['serve', '--cassette', httpCassette, '--http', '0']);
    try {
      const client = await connect(new StreamableHTTPClientTransport(new URL(mock.url)));
      expect(await session(client)).toEqual(liveHttp);
      await expectMisses(client);
      await bounded(client.close(), 'close');
    } finally {
      expect(await mock.stop()).toBe(0);
    }
  });
});

describe('serve --mode record-missing and --mode passthrough with a real upstream', () => {
  it('record-missing answers from the cassette where it can, from the upstream otherwise, and appends those', async () => {
    const file = join(dir, 'record-missing.jsonl');
    copyFileSync(stdioCassette, file);
    // Mark the recorded echo answer: a cassette hit must say so, an upstream answer cannot.
    writeFileSync(
      file,
      readFileSync(file, 'utf8').replace('"Echo: hello, cassette"', '"Echo: hello, cassette (from the cassette)"'),
    );
    const before = readCassette(file).messages.length;
    const client = await connect(
      stdio(['serve', '--cassette', file, '--mode', 'record-missing', '--upstream', `${EVERYTHING} stdio`]),
    );
    try {
      expect(
        await bounded(client.callTool({ name: 'echo', arguments: { message: 'hello, cassette' } }), 'echo'),
      ).toEqual({ content: [{ type: 'text', text: 'Echo: hello, cassette (from the cassette)' }] });
      expect(
        await bounded(client.callTool({ name: 'echo', arguments: { message: 'not in the cassette' } }), 'echo'),
      ).toEqual({ content: [{ type: 'text', text: 'Echo: not in the cassette' }] });
      expect(await bounded(client.callTool({ name: 'get-sum', arguments: { a: 1, b: 2 } }), 'get-sum')).toEqual({
        content: [{ type: 'text', text: 'The sum of 1 and 2 is 3.' }],
      });
    } finally {
      await client.close();
    }
    const deadline = Date.now() + 10_000;
    while (Date.now() < deadline && readCassette(file).messages.length < before + 4)
      await new Promise((r) => setTimeout(r, 100));
    const c = readCassette(file);
    const added = c.messages.slice(before);
    expect(added.map((m) => [m.dir, (m.message as { method?: string }).method ?? 'answer'])).toEqual([
      ['to-server', 'tools/call'],
      ['from-server', 'answer'],
      ['to-server', 'tools/call'],
      ['from-server', 'answer'],
    ]);
    expect(added.every((m) => (m.conn ?? 0) >= 1000)).toBe(true);
    // After a restart, plain replay serves the new recordings (and still explains what is not there).
    const replay = await connect(stdio(['serve', '--cassette', file]));
    try {
      expect(
        await bounded(replay.callTool({ name: 'echo', arguments: { message: 'not in the cassette' } }), 'echo'),
      ).toEqual({ content: [{ type: 'text', text: 'Echo: not in the cassette' }] });
      expect(await bounded(replay.callTool({ name: 'get-sum', arguments: { a: 1, b: 2 } }), 'get-sum')).toEqual({
        content: [{ type: 'text', text: 'The sum of 1 and 2 is 3.' }],
      });
      await expect(bounded(replay.callTool({ name: 'get-sum', arguments: { a: 1, b: 3 } }), 'miss')).rejects.toThrow(
        /replay miss \(different\)/,
      );
    } finally {
      await replay.close();
    }
  });

  it('record-missing creates the cassette when it does not exist', async () => {
    const file = join(dir, 'new-by-record-missing.jsonl');
    const client = await connect(
      stdio(['serve', '--cassette', file, '--mode', 'record-missing', '--upstream', `${EVERYTHING} stdio`]),
    );
    let answer: unknown;
    try {
      answer = await bounded(client.callTool({ name: 'echo', arguments: { message: 'first' } }), 'echo');
      expect(answer).toEqual({ content: [{ type: 'text', text: 'Echo: first' }] });
    } finally {
      await client.close();
    }
    const deadline = Date.now() + 10_000;
    while (
      Date.now() < deadline &&
      !(
        existsSync(file) &&
        readCassette(file).messages.some(
          (m) =>
            m.dir === 'from-server' &&
            (m.message as { id?: unknown }).id !== undefined &&
            (m.message as { result?: { content?: unknown } }).result?.content,
        )
      )
    )
      await new Promise((r) => setTimeout(r, 100));
    const replay = await connect(stdio(['serve', '--cassette', file]));
    try {
      expect(replay.getServerVersion()).toMatchObject({ name: 'mcp-servers/everything' });
      expect(await bounded(replay.callTool({ name: 'echo', arguments: { message: 'first' } }), 'echo')).toEqual(answer);
    } finally {
      await replay.close();
    }
  });

  it('passthrough is a plain proxy: the real answers, no cassette needed', async () => {
    const client = await connect(stdio(['serve', '--mode', 'passthrough', '--upstream', `${EVERYTHING} stdio`]));
    try {
      expect(await session(client)).toEqual(live);
      expect(
        await bounded(client.callTool({ name: 'echo', arguments: { message: 'anything at all' } }), 'echo'),
      ).toEqual({ content: [{ type: 'text', text: 'Echo: anything at all' }] });
    } finally {
      await client.close();
    }
  });

  it('passthrough over Streamable HTTP to an HTTP upstream', async () => {
    const everything = await startEverything('streamableHttp');
    try {
      const mock = await startMock(['serve', '--mode', 'passthrough', '--upstream', everything.url, '--http', '0']);
      try {
        const client = await connect(new StreamableHTTPClientTransport(new URL(mock.url)));
        expect(await session(client)).toEqual(live);
        await bounded(client.close(), 'close');
      } finally {
        expect(await mock.stop()).toBe(0);
      }
    } finally {
      await everything.stop();
    }
  });

  it('record-missing and passthrough without --upstream are usage errors (exit 2)', async () => {
    for (const mode of ['record-missing', 'passthrough']) {
      const p = spawn('node', [CLI, 'serve', '--cassette', stdioCassette, '--mode', mode], {
        stdio: ['ignore', 'ignore', 'pipe'],
      });
      let stderr = '';
      p.stderr.on('data', (d: Buffer) => {
        stderr += d.toString();
      });
      const code = await bounded(new Promise<number | null>((res) => p.on('exit', res)), 'exit').finally(() =>
        p.kill('SIGKILL'),
      );
      expect(code).toBe(2);
      expect(stderr).toMatch(new RegExp(`--mode ${mode} needs --upstream`));
    }
  });
});

describe('a client that disconnects mid-replay', () => {
  const post = (
    url: string,
    body: unknown,
    headers: Record<string, string> = {},
    signal: AbortSignal = AbortSignal.timeout(10_000),
  ) =>
    fetch(url, {
      method: 'POST',
      body: JSON.stringify(body),
      headers: { 'content-type': 'application/json', accept: 'application/json, text/event-stream', ...headers },
      signal,
    });
  const init = {
    jsonrpc: '2.0',
    id: 0,
    method: 'initialize',
    params: { protocolVersion: '2025-11-25', capabilities: {}, clientInfo: { name: 'rude', version: '1' } },
  };

  it('Streamable HTTP: the server stays up and serves the next client', async () => {
    const mock = await startMock(['serve', '--cassette', stdioCassette, '--http', '0']);
    try {
      const r = await post(mock.url, init);
      const sid = r.headers.get('mcp-session-id')!;
      await r.body?.cancel();
      expect(sid).toBeTruthy();
      // A request whose answer is a stream (tools/list comes with a notification), dropped before the answer is read.
      await new Promise<void>((res) => {
        const u = new URL(mock.url);
        const req = httpRequest({
          host: u.hostname,
          port: u.port,
          path: u.pathname,
          method: 'POST',
          headers: {
            'content-type': 'application/json',
            accept: 'application/json, text/event-stream',
            'mcp-session-id': sid,
          },
        });
        req.on('error', () => res());
        req.on('close', () => res());
        req.end(JSON.stringify({ jsonrpc: '2.0', id: 1, method: 'tools/list' }), () => req.destroy());
      });
      // Mid-session, the socket gone; then a request to the abandoned session, also cut off.
      const ctl = new AbortController();
      const cut = post(
        mock.url,
        {
          jsonrpc: '2.0',
          id: 2,
          method: 'tools/call',
          params: { name: 'echo', arguments: { message: 'hello, cassette' } },
        },
        { 'mcp-session-id': sid },
        ctl.signal,
      );
      setTimeout(() => ctl.abort(), 1);
      await cut.then(
        (x) => x.body?.cancel(),
        () => undefined,
      );
      // The next client gets the whole recorded session.
      const client = await connect(new StreamableHTTPClientTransport(new URL(mock.url)));
      expect(await session(client)).toEqual(live);
      await bounded(client.close(), 'close');
      expect(mock.proc.exitCode).toBe(null);
    } finally {
      expect(await mock.stop()).toBe(0);
    }
    expect(mock.stderr()).not.toMatch(/Error|EPIPE|ECONNRESET|unhandled/i);
  });

  it('HTTP+SSE: the stream closed mid-session, messages posted to it after; the next client is served', async () => {
    const mock = await startMock(['serve', '--cassette', stdioCassette, '--sse', '0']);
    try {
      // Open a stream, read the endpoint, post initialize, then drop the stream before reading the answer.
      const ctl = new AbortController();
      const stream = await fetch(mock.url, { headers: { accept: 'text/event-stream' }, signal: ctl.signal });
      const reader = stream.body!.getReader();
      let text = '';
      while (!/data: (\S+)/.test(text))
        text += new TextDecoder().decode((await bounded(reader.read(), 'endpoint')).value);
      const endpoint = new URL(/data: (\S+)/.exec(text)![1]!, mock.url).href;
      expect((await post(endpoint, init)).status).toBe(202);
      ctl.abort();
      await reader.cancel().catch(() => undefined);
      // The stream is gone: posting to its session must neither crash the server nor be answered as if alive.
      await new Promise((r) => setTimeout(r, 200));
      for (let i = 1; i <= 3; i++) {
        const r = await post(endpoint, { jsonrpc: '2.0', id: i, method: 'tools/list' });
        expect([202, 404]).toContain(r.status);
        await r.body?.cancel();
      }
      const client = await connect(new SSEClientTransport(new URL(mock.url)));
      expect(await session(client)).toEqual(live);
      await bounded(client.close(), 'close');
      expect(mock.proc.exitCode).toBe(null);
    } finally {
      expect(await mock.stop()).toBe(0);
    }
    expect(mock.stderr()).not.toMatch(/Error|EPIPE|ECONNRESET|unhandled/i);
  });

  it('stdio: the client vanishes with requests in flight; serve exits cleanly', async () => {
    const p = spawn('node', [CLI, 'serve', '--cassette', stdioCassette], {
      stdio: ['pipe', 'pipe', 'pipe'],
      detached: true,
    });
    let stderr = '';
    p.stderr!.on('data', (d: Buffer) => {
      stderr += d.toString();
    });
    const exited = new Promise<number | null>((res) => p.on('exit', (code) => res(code)));
    try {
      p.stdin!.write(JSON.stringify(init) + '\n');
      await bounded(new Promise((res) => p.stdout!.once('data', res)), 'initialize answer');
      // Requests in flight, and nobody left to read the answers.
      p.stdout!.destroy();
      p.stdin!.write(JSON.stringify({ jsonrpc: '2.0', method: 'notifications/initialized' }) + '\n');
      for (let i = 1; i <= 20; i++)
        p.stdin!.write(JSON.stringify({ jsonrpc: '2.0', id: i, method: 'tools/list' }) + '\n');
      p.stdin!.end();
      expect(await bounded(exited, 'serve exit', 10_000)).toBe(0);
      expect(stderr).not.toMatch(/Error|EPIPE|unhandled/i);
    } finally {
      try {
        process.kill(-p.pid!, 'SIGKILL');
      } catch {
        /* already gone */
      }
    }
  });
});
