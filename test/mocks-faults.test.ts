/**
 * Faults in `serve` (--latency, --jitter, --drop, --fail-rate with --seed, --disconnect-after, --expire-session-after):
 * a raw client (JSON lines over stdio, fetch over Streamable HTTP and HTTP+SSE) and the SDK Client (msw handlers)
 * against the mock, showing each flag does what it says. Every wait is bounded. Needs the build.
 */
import { spawn, type ChildProcess } from 'node:child_process';
import { join, resolve } from 'node:path';
import { createInterface } from 'node:readline';
import { setupServer } from 'msw/node';
import { afterAll, afterEach, beforeAll, describe, expect, it } from 'vitest';
import { Client } from '@modelcontextprotocol/sdk/client/index.js';
import { StreamableHTTPClientTransport } from '@modelcontextprotocol/sdk/client/streamableHttp.js';
import { mcpHandlers } from '../mocks/msw.js';
import { FaultPlan } from '../mocks/faults.js';

const ROOT = resolve(__dirname, '..');
const CLI = join(ROOT, 'dist/bin/mcp-conform.js');
const FIXTURE = join(ROOT, 'fixtures/mocks/calc.yaml');
const children = new Set<ChildProcess>();

const init = (id: number | string = 0) => ({
  jsonrpc: '2.0',
  id,
  method: 'initialize',
  params: { protocolVersion: '2025-06-18', capabilities: {}, clientInfo: { name: 'raw', version: '1' } },
});
const ping = (id: number | string) => ({ jsonrpc: '2.0', id, method: 'ping' });

/** `serve --fixture calc.yaml <flags>` over stdio, spoken to one JSON line at a time. */
function stdioServe(flags: string[]) {
  const p = spawn(process.execPath, [CLI, 'serve', '--fixture', FIXTURE, ...flags], {
    stdio: ['pipe', 'pipe', 'pipe'],
  });
  children.add(p);
  const got = new Map<unknown, { msg: Record<string, unknown>; at: number }>();
  const waiters = new Set<() => void>();
  let stderr = '';
  p.stderr!.on('data', (d) => (stderr += d));
  createInterface({ input: p.stdout! }).on('line', (l) => {
    const msg = JSON.parse(l) as Record<string, unknown>;
    got.set(msg.id, { msg, at: performance.now() });
    for (const w of waiters) w();
  });
  const exited = new Promise<number | null>((r) =>
    p.once('exit', (code) => {
      children.delete(p);
      r(code);
    }),
  );
  return {
    send(m: unknown) {
      p.stdin!.write(JSON.stringify(m) + '\n');
      return performance.now();
    },
    /** The answer with this id, or undefined when none came within ms. */
    answer(id: unknown, ms = 5000): Promise<{ msg: Record<string, unknown>; at: number } | undefined> {
      return new Promise((r) => {
        const check = () => {
          const a = got.get(id);
          if (a) {
            waiters.delete(check);
            clearTimeout(t);
            r(a);
          }
        };
        const t = setTimeout(() => {
          waiters.delete(check);
          r(undefined);
        }, ms);
        waiters.add(check);
        check();
      });
    },
    exited,
    stderr: () => stderr,
    end() {
      p.stdin!.end();
      p.kill('SIGTERM');
    },
  };
}

/** serve over HTTP (--http 0 or --sse 0) with flags; the URL it prints. */
function httpServe(kind: 'http' | 'sse', flags: string[]): Promise<{ url: string; p: ChildProcess }> {
  const p = spawn(process.execPath, [CLI, 'serve', '--fixture', FIXTURE, `--${kind}`, '0', ...flags], {
    stdio: ['ignore', 'ignore', 'pipe'],
  });
  children.add(p);
  p.once('exit', () => children.delete(p));
  return new Promise((res, rej) => {
    let err = '';
    const timer = setTimeout(() => rej(new Error(`serve did not start: ${err}`)), 15_000);
    p.stderr!.on('data', (d: Buffer) => {
      err += d.toString();
      const m = /at (http:\/\/\S+)/.exec(err);
      if (m) {
        clearTimeout(timer);
        res({ url: m[1]!, p });
      }
    });
  });
}

async function post(url: string, body: unknown, session?: string, ms = 5000): Promise<Response> {
  return fetch(url, {
    method: 'POST',
    headers: {
      'content-type': 'application/json',
      accept: 'application/json, text/event-stream',
      ...(session ? { 'mcp-session-id': session, 'mcp-protocol-version': '2025-06-18' } : {}),
    },
    body: JSON.stringify(body),
    signal: AbortSignal.timeout(ms),
  });
}

async function httpSession(url: string): Promise<string> {
  const r = await post(url, init());
  expect(r.status).toBe(200);
  await r.text();
  const sid = r.headers.get('mcp-session-id')!;
  await (await post(url, { jsonrpc: '2.0', method: 'notifications/initialized' }, sid)).text();
  return sid;
}

afterAll(() => {
  for (const c of children) c.kill('SIGKILL');
});

describe('serve faults over stdio', () => {
  it('--latency delays every answer; --jitter adds at most its bound', async () => {
    const s = stdioServe(['--latency', '300', '--jitter', '100', '--seed', '1']);
    const t0 = s.send(init());
    const a = await s.answer(0);
    expect(a?.msg.result).toBeTruthy();
    const t1 = s.send(ping(1));
    const b = await s.answer(1);
    expect(b!.at - t1).toBeGreaterThanOrEqual(295);
    expect(b!.at - t1).toBeLessThan(2000);
    expect(a!.at - t0).toBeGreaterThanOrEqual(295);
    s.end();
  });

  it('--drop METHOD never answers that method, and answers the others', async () => {
    const s = stdioServe(['--drop', 'tools/list', '--drop', 'tools/call']);
    s.send(init());
    expect(await s.answer(0)).toBeTruthy();
    s.send({ jsonrpc: '2.0', id: 1, method: 'tools/list' });
    s.send({ jsonrpc: '2.0', id: 2, method: 'tools/call', params: { name: 'add', arguments: { a: 1, b: 2 } } });
    s.send(ping(3));
    expect((await s.answer(3))?.msg).toMatchObject({ id: 3, result: {} });
    expect(await s.answer(1, 1000)).toBeUndefined();
    expect(await s.answer(2, 10)).toBeUndefined();
    s.end();
  });

  async function failedIds(seed: string): Promise<number[]> {
    const s = stdioServe(['--fail-rate', '0.5', '--seed', seed]);
    for (let i = 1; i <= 20; i++) s.send(ping(i));
    const failed: number[] = [];
    for (let i = 1; i <= 20; i++) {
      const a = await s.answer(i);
      expect(a, `ping ${i} got no answer`).toBeTruthy();
      if (a!.msg.error) {
        expect((a!.msg.error as { code: number }).code).toBe(-32603);
        failed.push(i);
      } else expect(a!.msg.result).toEqual({});
    }
    s.end();
    return failed;
  }

  it('--fail-rate P answers that share with -32603; --seed makes the sequence repeatable', async () => {
    const [a, b, c] = await Promise.all([failedIds('7'), failedIds('7'), failedIds('8')]);
    expect(a).toEqual(b);
    expect(a.length).toBeGreaterThan(3);
    expect(a.length).toBeLessThan(17);
    expect(c).not.toEqual(a);
    // The same sequence as the plan's own (the CLI adds nothing of its own).
    const plan = new FaultPlan({ failRate: 0.5, seed: 7 });
    expect(
      Array.from({ length: 20 }, (_, i) => (plan.decide('ping').action === 'fail' ? i + 1 : 0)).filter(Boolean),
    ).toEqual(a);
  });

  it('--disconnect-after N: the process exits once N requests are answered', async () => {
    const s = stdioServe(['--disconnect-after', '2']);
    s.send(init());
    s.send(ping(1));
    expect(await s.answer(0)).toBeTruthy();
    expect(await s.answer(1)).toBeTruthy();
    const code = await Promise.race([s.exited, new Promise((r) => setTimeout(() => r('still running'), 5000))]);
    expect(code).toBe(0);
    expect(s.stderr()).toMatch(/disconnecting after 2 answered requests/);
  });

  it('--disconnect-after 1 with three requests written at once: exactly one is answered', async () => {
    const p = spawn(process.execPath, [CLI, 'serve', '--fixture', FIXTURE, '--disconnect-after', '1'], {
      stdio: ['pipe', 'pipe', 'pipe'],
    });
    children.add(p);
    let out = '';
    p.stdout!.on('data', (d) => (out += d));
    const exited = new Promise<number | null>((r) =>
      p.once('exit', (code) => {
        children.delete(p);
        r(code);
      }),
    );
    // initialize, tools/list and ping in one write: all three arrive before the first answer goes out.
    p.stdin!.write(
      [init(0), { jsonrpc: '2.0', id: 1, method: 'tools/list' }, ping(2)].map((m) => JSON.stringify(m) + '\n').join(''),
    );
    const code = await Promise.race([exited, new Promise((r) => setTimeout(() => r('still running'), 10_000))]);
    expect(code).toBe(0);
    const answers = out
      .split('\n')
      .filter((l) => l.trim())
      .map((l) => JSON.parse(l) as { id: unknown });
    expect(answers.map((a) => a.id)).toEqual([0]);
  });

  it('--drop without a method is a usage error; a method MCP does not have is served with a warning', async () => {
    const bare = stdioServe(['--drop']);
    expect(await Promise.race([bare.exited, new Promise((r) => setTimeout(() => r('still running'), 10_000))])).toBe(2);
    expect(bare.stderr()).toMatch(/--drop/);
    const typo = stdioServe(['--drop', 'tool/list']);
    typo.send(init());
    expect(await typo.answer(0)).toBeTruthy();
    expect(typo.stderr()).toMatch(/--drop.*tool\/list.*not a method/);
    typo.end();
    expect(
      await Promise.race([typo.exited, new Promise((r) => setTimeout(() => r('still running'), 10_000))]),
    ).not.toBe('still running');
  });

  it('--expire-session-after over stdio is a usage error; so is a fail rate above 1', async () => {
    for (const flags of [
      ['--expire-session-after', '2'],
      ['--fail-rate', '1.5'],
      ['--seed', '3'],
    ]) {
      const s = stdioServe(flags);
      expect(await Promise.race([s.exited, new Promise((r) => setTimeout(() => r('still running'), 10_000))])).toBe(2);
      expect(s.stderr()).toMatch(/--(expire-session-after|fail-rate|seed)/);
    }
  });
});

describe('serve faults over Streamable HTTP', () => {
  it('--fail-rate answers HTTP 503, the same requests for the same seed', async () => {
    const statuses = async () => {
      const { url, p } = await httpServe('http', ['--fail-rate', '0.4', '--seed', '42']);
      const out: number[] = [];
      let sid: string | undefined;
      // initialize until it gets through (it may be failed too), then pings
      for (let i = 0; i < 10 && !sid; i++) {
        const r = await post(url, init(i));
        out.push(r.status);
        await r.text();
        if (r.status === 200) sid = r.headers.get('mcp-session-id')!;
      }
      for (let i = 0; i < 15; i++) {
        const r = await post(url, ping(100 + i), sid);
        out.push(r.status);
        const body = await r.text();
        if (r.status === 503) expect(JSON.parse(body)).toMatchObject({ error: { code: -32603 } });
      }
      p.kill('SIGTERM');
      return out;
    };
    const [a, b] = await Promise.all([statuses(), statuses()]);
    expect(a).toEqual(b);
    expect(a.filter((s) => s === 503).length).toBeGreaterThan(1);
    expect(a.filter((s) => s === 200).length).toBeGreaterThan(1);
  });

  it('--expire-session-after N: 404 for the session after N requests; a fresh initialize works', async () => {
    const { url, p } = await httpServe('http', ['--expire-session-after', '2']);
    const sid = await httpSession(url); // initialize = request 1
    expect((await post(url, ping(1), sid)).status).toBe(200); // request 2
    const r = await post(url, ping(2), sid);
    expect(r.status).toBe(404);
    expect(await r.json()).toMatchObject({ error: { message: expect.stringMatching(/expire/) } });
    const sid2 = await httpSession(url);
    expect(sid2).not.toBe(sid);
    expect((await post(url, ping(3), sid2)).status).toBe(200);
    p.kill('SIGTERM');
  });

  it('--disconnect-after N: after N answers every request has its connection closed', async () => {
    const { url, p } = await httpServe('http', ['--disconnect-after', '2']);
    const sid = await httpSession(url); // 1 answered
    expect((await post(url, ping(1), sid)).status).toBe(200); // 2 answered
    await expect(post(url, ping(2), sid, 3000)).rejects.toThrow(/fetch failed|other side closed|socket/i);
    p.kill('SIGTERM');
  });

  it('--disconnect-after N with requests arriving together: only N are answered', async () => {
    const { url, p } = await httpServe('http', ['--disconnect-after', '2']);
    const sid = await httpSession(url); // 1 answered
    // Both pings arrive while neither is answered: only the first slot is left.
    const got = await Promise.allSettled([post(url, ping(1), sid, 5000), post(url, ping(2), sid, 5000)]);
    expect(got.filter((g) => g.status === 'fulfilled' && g.value.status === 200).length).toBe(1);
    p.kill('SIGTERM');
  });

  it('--drop: no answer (the client times out); --latency: answers come late', async () => {
    const { url, p } = await httpServe('http', ['--drop', 'tools/list', '--latency', '250']);
    const sid = await httpSession(url);
    await expect(post(url, { jsonrpc: '2.0', id: 1, method: 'tools/list' }, sid, 1000)).rejects.toThrow(
      /abort|timeout/i,
    );
    const t0 = performance.now();
    expect((await post(url, ping(2), sid)).status).toBe(200);
    expect(performance.now() - t0).toBeGreaterThanOrEqual(245);
    p.kill('SIGTERM');
  });
});

describe('serve faults over HTTP+SSE', () => {
  /** Opens the SSE stream; returns the message endpoint and a reader of `message` events by id. */
  async function sseOpen(url: string) {
    const ac = new AbortController();
    const res = await fetch(url, { headers: { accept: 'text/event-stream' }, signal: ac.signal });
    const reader = res.body!.getReader();
    const dec = new TextDecoder();
    let buf = '';
    let endpoint: string | undefined;
    const msgs = new Map<unknown, Record<string, unknown>>();
    let ended = false;
    void (async () => {
      try {
        for (;;) {
          const { value, done } = await reader.read();
          if (done) break;
          buf += dec.decode(value, { stream: true });
          let i: number;
          while ((i = buf.indexOf('\n\n')) >= 0) {
            const ev = buf.slice(0, i);
            buf = buf.slice(i + 2);
            const name = /^event: (.*)$/m.exec(ev)?.[1];
            const data = /^data: (.*)$/m.exec(ev)?.[1] ?? '';
            if (name === 'endpoint') endpoint = new URL(data, url).href;
            else {
              const m = JSON.parse(data) as Record<string, unknown>;
              msgs.set(m.id, m);
            }
          }
        }
      } catch {
        /* aborted */
      }
      ended = true;
    })();
    const until = async (f: () => boolean, ms = 5000) => {
      const t = Date.now() + ms;
      while (!f() && Date.now() < t) await new Promise((r) => setTimeout(r, 20));
      return f();
    };
    await until(() => !!endpoint);
    return { endpoint: endpoint!, msgs, until, ended: () => ended, close: () => ac.abort() };
  }

  it('--fail-rate: HTTP 503 on the POST; --drop: no event for that request; --disconnect-after ends the stream', async () => {
    const { url, p } = await httpServe('sse', [
      '--fail-rate',
      '0.5',
      '--seed',
      '3',
      '--drop',
      'tools/list',
      '--disconnect-after',
      '6',
    ]);
    const s = await sseOpen(url);
    const postSse = (m: unknown) =>
      fetch(s.endpoint, {
        method: 'POST',
        headers: { 'content-type': 'application/json' },
        body: JSON.stringify(m),
        signal: AbortSignal.timeout(5000),
      });
    const statuses: (number | 'closed')[] = [];
    for (let i = 1; i <= 12; i++)
      statuses.push(
        await postSse(ping(i)).then(
          (r) => r.status,
          () => 'closed' as const,
        ),
      );
    expect(statuses).toContain(503);
    expect(statuses).toContain(202);
    // After 6 answers (503s and answers on the stream) the stream ends and later POSTs have their connection closed.
    expect(statuses.slice(-1)).toEqual(['closed']);
    await s.until(() => s.ended());
    expect(s.ended()).toBe(true);
    expect(s.msgs.size + statuses.filter((x) => x === 503).length).toBe(6);
    s.close();
    p.kill('SIGTERM');
  });

  it('--drop over SSE: the request is accepted (202) and never answered on the stream', async () => {
    const { url, p } = await httpServe('sse', ['--drop', 'tools/list']);
    const s = await sseOpen(url);
    const postSse = (m: unknown) =>
      fetch(s.endpoint, {
        method: 'POST',
        headers: { 'content-type': 'application/json' },
        body: JSON.stringify(m),
        signal: AbortSignal.timeout(5000),
      });
    expect((await postSse({ jsonrpc: '2.0', id: 1, method: 'tools/list' })).status).toBe(202);
    expect((await postSse(ping(2))).status).toBe(202);
    expect(await s.until(() => s.msgs.has(2))).toBe(true);
    expect(s.msgs.has(1)).toBe(false);
    s.close();
    p.kill('SIGTERM');
  });
});

describe('faults in the msw handlers (options of the same names), with the SDK Client', () => {
  const server = setupServer(
    ...mcpHandlers('http://slow.test/mcp', { fixture: FIXTURE, latency: 200 }),
    ...mcpHandlers('http://expiring.test/mcp', { fixture: FIXTURE, expireSessionAfter: 2 }),
    ...mcpHandlers('http://gone.test/mcp', { fixture: FIXTURE, disconnectAfter: 2 }),
    ...mcpHandlers('http://flaky.test/mcp', { fixture: FIXTURE, failRate: 1 }),
  );
  beforeAll(() => server.listen({ onUnhandledRequest: 'error' }));
  afterEach(() => undefined);
  afterAll(() => server.close());

  it('latency: the SDK Client connects and lists, each request at least 200 ms', async () => {
    const c = new Client({ name: 't', version: '1' });
    const t0 = performance.now();
    await c.connect(new StreamableHTTPClientTransport(new URL('http://slow.test/mcp')));
    const t1 = performance.now();
    expect(t1 - t0).toBeGreaterThanOrEqual(195);
    await c.listTools();
    expect(performance.now() - t1).toBeGreaterThanOrEqual(195);
    await c.close();
  });

  it('expireSessionAfter: the third request of the session gets 404', async () => {
    const c = new Client({ name: 't', version: '1' });
    await c.connect(new StreamableHTTPClientTransport(new URL('http://expiring.test/mcp')));
    await c.listTools();
    await expect(c.ping()).rejects.toThrow(/404|Session not found/);
    await c.close();
  });

  it('disconnectAfter: a network error after two answers; failRate 1: every request is a 503', async () => {
    const c = new Client({ name: 't', version: '1' });
    await c.connect(new StreamableHTTPClientTransport(new URL('http://gone.test/mcp')));
    await c.listTools();
    await expect(c.ping()).rejects.toThrow();
    await c.close().catch(() => undefined);
    const f = new Client({ name: 't', version: '1' });
    await expect(f.connect(new StreamableHTTPClientTransport(new URL('http://flaky.test/mcp')))).rejects.toThrow(
      /503|Service Unavailable/,
    );
  });
});
