// The pieces of `load` on their own: the canary judge, the id pool, the memory trend, and the raw HTTP client's
// response parser against a real node:http server (Content-Length, chunked in odd pieces, SSE, keep-alive reuse).
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import http from 'node:http';
import { canary, classifyAnswer, shapeOf } from '../core/concurrency/canary.js';
import { IdPool } from '../core/load/engine.js';
import { memoryGrowth } from '../core/load/memory.js';
import { RawHttpClient } from '../core/load/raw-http.js';
import { HttpSender } from '../core/load/senders.js';
import type { Credentials } from '../core/auth/credentials.js';
import type { MessageValidator } from '../core/schema/validator.js';
import { LoadStats } from '../core/load/stats.js';

describe('canaries', () => {
  const run = 'abcd1234';
  it("own canary: own; another client's canary: crossed, naming it; wrong shape: crossed", () => {
    const req = { client: 1, seq: 5, method: 'tools/call', canary: canary(run, 1, 5), tool: 'echo' };
    expect(
      classifyAnswer(req, { result: { content: [{ type: 'text', text: `echo: ${canary(run, 1, 5)}` }] } }, run).kind,
    ).toBe('own');
    const x = classifyAnswer(req, { result: { content: [{ type: 'text', text: `echo: ${canary(run, 3, 5)}` }] } }, run);
    expect(x).toMatchObject({ kind: 'crossed', from: [3] });
    const s = classifyAnswer({ client: 0, seq: 1, method: 'ping' }, { result: { tools: [] } }, run, [
      { client: 2, seq: 1, method: 'tools/list' },
    ]);
    expect(s).toMatchObject({ kind: 'crossed', from: [2] });
    expect(
      classifyAnswer({ client: 0, seq: 1, method: 'tools/list' }, { error: { code: -32601, message: 'nope' } }, run)
        .kind,
    ).toBe('error');
  });
  it('shapes: ping is empty, _meta alone is still empty, discover has its own', () => {
    expect(shapeOf({})).toBe('empty');
    expect(shapeOf({ _meta: { x: 1 } })).toBe('empty');
    expect(shapeOf({ supportedVersions: ['2026-07-28'] })).toBe('discover');
    expect(shapeOf({ contents: [] })).toBe('contents');
  });
});

describe('id pool', () => {
  it('takes the lowest free id; a timed-out id is never reused', () => {
    const p = new IdPool(10);
    expect([p.take(), p.take(), p.take()]).toEqual([10, 11, 12]);
    p.release(11);
    expect(p.take()).toBe(11);
    p.release(10, true);
    expect(p.take()).toBe(13);
  });
});

describe('memory trend', () => {
  it('steady growth warns; a flat or noisy series does not', () => {
    const grow = Array.from({ length: 8 }, (_, i) => ({ s: i, mb: 20 + i * 5, requests: i * 1000 }));
    expect(memoryGrowth(grow)).toMatchObject({ steady: true, mbPer1000: 5 });
    const flat = Array.from({ length: 8 }, (_, i) => ({ s: i, mb: 20 + (i % 2), requests: i * 1000 }));
    expect(memoryGrowth(flat)?.steady).toBe(false);
  });
});

describe('stats', () => {
  it('percentiles come from the histogram; tool errors do not count against the error rate', () => {
    const s = new LoadStats(0);
    for (let i = 1; i <= 100; i++) s.answer('ping', i, 10);
    s.answer('tools/call x', 1, 10, 'tool-error');
    s.error('ping', 'http-503', 10);
    expect(s.failedRequests).toBe(1);
    expect(s.byMethod.get('ping')!.requests).toBe(101);
    expect(s.timeline()[0]!.requests).toBe(101);
    expect(s.buckets().reduce((a, b) => a + b[1], 0)).toBe(101);
  });
});

describe('raw HTTP client', () => {
  let server: http.Server;
  let url: URL;
  const sockets = new Set<unknown>();
  beforeAll(async () => {
    server = http.createServer((req, res) => {
      sockets.add(req.socket);
      let body = '';
      req.on('data', (b) => (body += b));
      req.on('end', () => {
        const mode = req.headers['x-mode'];
        if (mode === 'length') {
          res.writeHead(200, { 'content-type': 'application/json', 'content-length': Buffer.byteLength(body) });
          res.end(body);
          return;
        }
        if (mode === 'chunked') {
          res.writeHead(200, { 'content-type': 'application/json' });
          for (const piece of [body.slice(0, 3), body.slice(3, 4), body.slice(4)]) res.write(piece);
          res.end();
          return;
        }
        if (mode === 'sse') {
          res.writeHead(200, { 'content-type': 'text/event-stream' });
          res.write('event: message\ndata: {"jsonrpc":"2.0","method":"notifications/progress"}\n\n');
          setTimeout(() => {
            res.write(`event: message\ndata: ${body}\n\n`);
            res.end();
          }, 20);
          return;
        }
        res.writeHead(503);
        res.end();
      });
    });
    await new Promise<void>((r) => server.listen(0, '127.0.0.1', r));
    url = new URL(`http://127.0.0.1:${(server.address() as { port: number }).port}/mcp`);
  });
  afterAll(() => new Promise<void>((r) => server.close(() => r())));

  it('reads Content-Length and chunked bodies, and reuses one kept-alive connection', async () => {
    const c = new RawHttpClient(url, {});
    const body = JSON.stringify({ jsonrpc: '2.0', id: 1, result: { text: 'ä'.repeat(100) } });
    for (const mode of ['length', 'chunked', 'length', 'chunked']) {
      const r = await c.post(body, { 'x-mode': mode }, { timeoutMs: 5000 });
      expect(r.status).toBe(200);
      expect(r.body.toString('utf8')).toBe(body);
    }
    expect(sockets.size).toBe(1);
    const r = await c.post('{}', { 'x-mode': 'refuse' }, { timeoutMs: 5000 });
    expect(r.status).toBe(503);
    c.close();
  });

  it('stops at the answer on an SSE stream', async () => {
    const c = new RawHttpClient(url, {});
    const seen: string[] = [];
    const r = await c.post(
      JSON.stringify({ jsonrpc: '2.0', id: 7, result: {} }),
      { 'x-mode': 'sse' },
      {
        timeoutMs: 5000,
        onData: (b) => {
          seen.push(b.toString());
          return seen.join('').includes('"id":7') ? true : 'consumed';
        },
      },
    );
    expect(r.status).toBe(200);
    expect(seen.join('')).toContain('notifications/progress');
    c.close();
  });
});

describe('lean HTTP sender with the run’s credentials', () => {
  let server: http.Server;
  let url: URL;
  const seen: string[] = [];
  beforeAll(async () => {
    server = http.createServer((req, res) => {
      let body = '';
      req.on('data', (b) => (body += b));
      req.on('end', () => {
        const auth = String(req.headers.authorization ?? '');
        seen.push(auth);
        if (auth === 'Bearer narrow') {
          res.writeHead(403, { 'www-authenticate': 'Bearer error="insufficient_scope", scope="mcp:all"' });
          res.end();
        } else if (auth !== 'Bearer fresh' && auth !== 'Bearer wide') {
          res.writeHead(401, { 'www-authenticate': 'Bearer error="invalid_token"' });
          res.end();
        } else {
          const id = (JSON.parse(body) as { id: number }).id;
          res.writeHead(200, { 'content-type': 'application/json' });
          res.end(JSON.stringify({ jsonrpc: '2.0', id, result: {} }));
        }
      });
    });
    await new Promise<void>((r) => server.listen(0, '127.0.0.1', r));
    url = new URL(`http://127.0.0.1:${(server.address() as { port: number }).port}/mcp`);
  });
  afterAll(() => new Promise<void>((r) => server.close(() => r())));

  const validator = { check: () => ({ valid: true }) } as unknown as MessageValidator;
  const creds = (first: string, renewed: string | undefined): Credentials => {
    let now = first;
    return {
      source: 'oauth',
      exchanges: [],
      accessToken: async () => now,
      onUnauthorized: async () => (renewed === undefined ? undefined : (now = renewed)),
      onInsufficientScope: async () => (renewed === undefined ? undefined : (now = renewed)),
    };
  };

  it('sends the token; a 401 renews it once and the request is sent again, the next requests carry the new one', async () => {
    seen.length = 0;
    const s = new HttpSender({ url, headers: {}, validator, credentials: creds('stale', 'fresh') });
    expect(await s.send({ jsonrpc: '2.0', id: 1, method: 'ping' }, 5000)).toEqual({ result: {} });
    expect(await s.send({ jsonrpc: '2.0', id: 2, method: 'ping' }, 5000)).toEqual({ result: {} });
    expect(seen).toEqual(['Bearer stale', 'Bearer fresh', 'Bearer fresh']);
    s.close();
  });

  it('a 403 insufficient_scope steps up once; a refusal that stands is an http-NNN error', async () => {
    seen.length = 0;
    const up = new HttpSender({ url, headers: {}, validator, credentials: creds('narrow', 'wide') });
    expect(await up.send({ jsonrpc: '2.0', id: 1, method: 'ping' }, 5000)).toEqual({ result: {} });
    expect(seen).toEqual(['Bearer narrow', 'Bearer wide']);
    up.close();
    seen.length = 0;
    const stuck = new HttpSender({ url, headers: {}, validator, credentials: creds('stale', undefined) });
    await expect(stuck.send({ jsonrpc: '2.0', id: 1, method: 'ping' }, 5000)).rejects.toMatchObject({
      kind: 'http-401',
    });
    expect(seen).toEqual(['Bearer stale']);
    stuck.close();
  });
});
