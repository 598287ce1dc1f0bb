/**
 * `serve`'s faults apply in every protocol era and on every transport: era × transport × fault. Each cell starts
 * `serve --fixture calc.yaml --protocol-version ERA` with one fault, speaks to it with the harness's own session and
 * transports (as a client would), and checks the fault happened: --drop tools/call leaves the call unanswered while
 * the server still answers; --latency holds the answer back; --fail-rate 1 fails the first request (-32603 over stdio,
 * HTTP 503 over HTTP). 2026-07-28 over Streamable HTTP once answered a dropped call. Needs the build.
 */
import { spawn, type ChildProcess } from 'node:child_process';
import { join, resolve } from 'node:path';
import { performance } from 'node:perf_hooks';
import { afterAll, describe, expect, it } from 'vitest';
import { createTransport, type Target } from '../core/transport/index.js';
import { Session, SessionError } from '../core/session.js';
import { requestMetaFor } from '../core/negotiate.js';

const ROOT = resolve(__dirname, '..');
const CLI = join(ROOT, 'dist/bin/mcp-conform.js');
const FIXTURE = join(ROOT, 'fixtures/mocks/calc.yaml');
const children = new Set<ChildProcess>();
const MODERN = '2026-07-28';
const CLIENT = { name: 'matrix', version: '1' };

afterAll(() => {
  for (const p of children) {
    try {
      process.kill(-p.pid!, 'SIGKILL');
    } catch {
      /* gone */
    }
  }
});

/** serve over HTTP (--http 0 / --sse 0): the URL it prints. */
function httpServe(kind: 'http' | 'sse', flags: string[]): Promise<string> {
  const p = spawn(process.execPath, [CLI, 'serve', '--fixture', FIXTURE, `--${kind}`, '0', ...flags], {
    stdio: ['ignore', 'ignore', 'pipe'],
    detached: true,
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
        res(m[1]!);
      }
    });
  });
}

type Transport = 'stdio' | 'streamable-http' | 'sse';
type Fault = 'drop' | 'latency' | 'fail';
const FLAGS: Record<Fault, string[]> = {
  drop: ['--drop', 'tools/call'],
  latency: ['--latency', '700'],
  fail: ['--fail-rate', '1', '--seed', '1'],
};

/** A session with the mock, in the era asked for: legacy eras open with initialize; 2026-07-28 carries _meta. */
async function connect(
  era: string,
  transport: Transport,
  fault: Fault,
): Promise<{ session: Session; close(): Promise<void>; legacy: boolean }> {
  const flags = ['--protocol-version', era, ...FLAGS[fault]];
  let target: Target;
  if (transport === 'stdio')
    target = {
      transport: 'stdio',
      command: 'serve',
      argv: [process.execPath, CLI, 'serve', '--fixture', FIXTURE, ...flags],
    };
  else target = { transport, url: await httpServe(transport === 'sse' ? 'sse' : 'http', flags) };
  const t = createTransport(target, { timeoutMs: 5000 });
  const session = new Session(t, { timeoutMs: 5000 });
  await t.start();
  const legacy = era !== MODERN;
  if (!legacy) {
    session.setRequestMeta(requestMetaFor(MODERN, CLIENT));
    if ('protocolVersion' in t) (t as { protocolVersion?: string }).protocolVersion = MODERN;
  }
  return {
    session,
    legacy,
    close: async () => {
      session.abandon('test over');
      await t.close();
    },
  };
}

const initialize = (s: Session, era: string) =>
  s.request('initialize', { protocolVersion: era, capabilities: {}, clientInfo: CLIENT });
const call = (s: Session, timeoutMs = 5000) =>
  s.request('tools/call', { name: 'add', arguments: { a: 2, b: 3 } }, { timeoutMs });

const CELLS: [string, Transport][] = [
  ['2025-11-25', 'stdio'],
  ['2025-11-25', 'streamable-http'],
  [MODERN, 'stdio'],
  [MODERN, 'streamable-http'],
  ['2024-11-05', 'sse'],
  ['2024-11-05', 'stdio'],
];

describe.each(CELLS)('serve faults in %s over %s', (era, transport) => {
  it('--drop tools/call: the call is never answered, while the server still answers', { timeout: 30_000 }, async () => {
    const c = await connect(era, transport, 'drop');
    try {
      if (c.legacy) {
        await initialize(c.session, era);
        c.session.notify('notifications/initialized');
      }
      const err = await call(c.session, 1500).then(
        () => undefined,
        (e: unknown) => e,
      );
      expect(err).toBeInstanceOf(SessionError);
      expect((err as SessionError).kind).toBe('timeout');
      // Alive: a listing is answered.
      const list = await c.session.request('tools/list', {});
      expect(Array.isArray(list.result?.tools)).toBe(true);
    } finally {
      await c.close();
    }
  });

  it('--latency 700: each answer is held back that long', { timeout: 30_000 }, async () => {
    const c = await connect(era, transport, 'latency');
    try {
      if (c.legacy) {
        await initialize(c.session, era);
        c.session.notify('notifications/initialized');
      }
      const t0 = performance.now();
      const r = await call(c.session);
      expect(performance.now() - t0).toBeGreaterThanOrEqual(650);
      expect(JSON.stringify(r.result)).toContain('5');
    } finally {
      await c.close();
    }
  });

  it('--fail-rate 1: the first request fails (-32603 over stdio, HTTP 503 over HTTP)', {
    timeout: 30_000,
  }, async () => {
    const c = await connect(era, transport, 'fail');
    try {
      const first = c.legacy ? initialize(c.session, era) : call(c.session);
      const outcome = await first.then(
        (r) => r,
        (e: unknown) => e,
      );
      if (transport === 'stdio') expect((outcome as { error?: { code: number } }).error?.code).toBe(-32603);
      else if (transport === 'sse') {
        // HTTP+SSE: the POST that carries the request is refused with 503; no answer comes on the stream.
        expect(outcome).toBeInstanceOf(SessionError);
        expect(String((outcome as Error).message)).toMatch(/503/);
      } else {
        // Streamable HTTP: HTTP 503 whose body is a JSON-RPC error -32603 for the request.
        const r = outcome as { error?: { code: number }; response?: { http?: { status?: number } } };
        expect(r.error?.code).toBe(-32603);
        expect(r.response?.http?.status).toBe(503);
      }
    } finally {
      await c.close();
    }
  });
});
