/**
 * Streamable HTTP: the transport, the CLI flags and the http suite against real servers (server-everything, the
 * SDK's StreamableHTTPServerTransport stateful and stateless) and the deliberately broken fixture.
 */
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { brokenHttp, everything, runArgs, sdkHttp, startServer, type Started } from '../http-helpers.js';
import { cli } from '../helpers/cli.js';

const CORE = 'lifecycle,listing,calling,unknown-tool,invalid-params,is-error,schema';

describe('server-everything over Streamable HTTP', () => {
  let s: Started;
  beforeAll(async () => {
    s = await startServer([everything, 'streamableHttp'], { portArg: false });
  });
  afterAll(async () => {
    await s?.stop();
  });

  it('the core suites give the same verdicts over HTTP as over stdio', async () => {
    const [http, stdio] = await Promise.all([
      runArgs(['--http', `http://127.0.0.1:${s.port}/mcp`, '--suite', CORE]),
      runArgs(['--stdio', `${everything} stdio`, '--suite', CORE]),
    ]);
    const strip = (v: Record<string, string>) =>
      Object.fromEntries(Object.entries(v).filter(([k]) => k !== 'lifecycle/shutdown' && !k.startsWith('schema/')));
    const h = { ...http.verdicts('') };
    const o = { ...stdio.verdicts('') };
    expect(strip(h)).toEqual(strip(o));
    // Every schema case that exists on both sides has the same verdict.
    for (const [k, v] of Object.entries(h)) if (k.startsWith('schema/') && o[k]) expect([k, v]).toEqual([k, o[k]]);
    expect(http.report.target.transport).toBe('streamable-http');
    expect(http.c('lifecycle/shutdown').verdict).toBe('skip');
  }, 120_000);

  it('http suite: spec deviations of server-everything are reported as such, and the log carries HTTP details', async () => {
    const r = await runArgs([
      '--http',
      `http://127.0.0.1:${s.port}/mcp`,
      '--suite',
      'lifecycle,http',
      '--header',
      'Authorization: Bearer s3cr3t-value',
      '--header',
      'X-Api-Key: k3y-value',
      '--header',
      'X-Trace: visible',
    ]);
    expect(r.verdicts('http/')).toMatchObject({
      'http/request-answer': 'pass',
      'http/accepted-202': 'pass',
      'http/session-id/visible-ascii': 'pass',
      'http/session-id/required': 'pass',
      // its own routing answers 400, not 404, for a session id it does not know (also after DELETE)
      'http/session-id/unknown': 'fail',
      'http/delete': 'fail',
      'http/get-stream': 'pass',
      'http/get-stream/no-responses': 'pass',
      'http/protocol-version-header': 'pass',
      // the SDK transport validates Origin only when configured to
      'http/origin': 'fail',
      'http/invalid-json': 'pass',
      'http/batch': 'info',
      'http/sse-event-ids': 'pass',
      'http/2026/header-mismatch': 'skip',
    });
    const text = JSON.stringify(r.report);
    expect(text).not.toContain('s3cr3t-value');
    expect(text).not.toContain('k3y-value');
    expect(r.report.target.headers).toEqual({
      Authorization: '[redacted]',
      'X-Api-Key': '[redacted]',
      'X-Trace': 'visible',
    });
    const init = r.report.messages.find((m) => m.direction === 'from-server' && m.method === 'initialize')!;
    expect(init.http).toMatchObject({
      method: 'POST',
      status: 200,
      contentType: 'text/event-stream',
      sseEvent: 'message',
    });
    expect(init.http!.sessionId).toMatch(/^[\x21-\x7e]+$/);
    const ping = r.report.messages.find((m) => m.direction === 'to-server' && m.method === 'ping')!;
    expect(ping.http).toMatchObject({ status: 200, protocolVersion: '2025-11-25', sessionId: init.http!.sessionId });
    const exchanges = r.report.http!.exchanges as { purpose: string; method: string; status?: number }[];
    expect(exchanges.some((x) => x.purpose === 'get-stream' && x.status === 200)).toBe(true);
    expect(exchanges.some((x) => x.purpose === 'delete' && x.method === 'DELETE')).toBe(true);
  }, 60_000);
});

describe('SDK StreamableHTTPServerTransport', () => {
  it('stateful, SSE answers: core suites pass, session rules hold', async () => {
    const s = await startServer(['node', sdkHttp, 'stateful']);
    try {
      const r = await runArgs(['--http', `http://127.0.0.1:${s.port}/mcp`]);
      const fails = r.report.suites
        .flatMap((x) => x.cases)
        .filter((c) => c.verdict === 'fail')
        .map((c) => c.id);
      expect(fails).toEqual(['http/origin']);
      expect(r.verdicts('http/session-id')).toEqual({
        'http/session-id/visible-ascii': 'pass',
        'http/session-id/required': 'pass',
        'http/session-id/unknown': 'pass',
      });
      expect(r.c('http/delete').verdict).toBe('pass');
      expect(r.c('http/request-answer').message).toContain('text/event-stream');
    } finally {
      await s.stop();
    }
  }, 60_000);

  it('stateful with JSON answers and DNS-rebinding protection: Origin and Host refused with 403', async () => {
    const s = await startServer(['node', sdkHttp, 'stateful-json']);
    try {
      const r = await runArgs([
        '--http',
        `http://127.0.0.1:${s.port}/mcp`,
        '--suite',
        'lifecycle,listing,calling,http',
      ]);
      expect(r.code).toBe(0);
      expect(r.c('http/origin').verdict).toBe('pass');
      expect(r.c('http/host').verdict).toBe('pass');
      expect(r.c('http/request-answer').message).toContain('application/json');
    } finally {
      await s.stop();
    }
  }, 60_000);

  it('stateless: no session id, session cases skip, core suites pass', async () => {
    const s = await startServer(['node', sdkHttp, 'stateless']);
    try {
      const r = await runArgs(['--http', `http://127.0.0.1:${s.port}/mcp`, '--suite', `${CORE},http`]);
      expect(r.verdicts('http/session-id')).toEqual({
        'http/session-id/visible-ascii': 'skip',
        'http/session-id/required': 'skip',
        'http/session-id/unknown': 'skip',
      });
      expect(r.c('http/delete').verdict).toBe('skip');
      const fails = r.report.suites
        .flatMap((x) => x.cases)
        .filter((c) => c.verdict === 'fail')
        .map((c) => c.id);
      expect(fails).toEqual(['http/origin']);
    } finally {
      await s.stop();
    }
  }, 60_000);
});

describe('broken HTTP fixtures', () => {
  const run = async (mode: string, suites = 'lifecycle,listing,http') => {
    const s = await startServer(['python3', brokenHttp, mode]);
    try {
      return await runArgs(['--http', `http://127.0.0.1:${s.port}/mcp`, '--suite', suites], { timeoutMs: 60_000 });
    } finally {
      await s.stop();
    }
  };

  it('good: every http rule holds', async () => {
    const r = await run('good');
    expect(r.code).toBe(0);
    expect(Object.values(r.verdicts('http/')).filter((v) => v === 'fail' || v === 'warn')).toEqual([]);
    expect(r.c('http/get-stream').message).toContain('405');
  }, 60_000);

  // Every Streamable HTTP version lets a server refuse input it cannot accept with an HTTP error status: the
  // harness's unknown notification refused with 400 is no failure (2025 versions).
  it('refuse-unknown (2025-11-25): a 400 refusal of an unknown notification is reported (info), not failed', async () => {
    const r = await run('refuse-unknown', 'lifecycle,listing,http,robustness');
    expect(r.c('http/accepted-202').verdict, r.c('http/accepted-202').message).toBe('info');
    expect(r.c('http/accepted-202').message).toMatch(/notifications\/mcp-conform\/unknown .*HTTP 400/);
    expect(r.c('robustness/unknown-notification').verdict).not.toBe('fail');
    expect(r.code).toBe(0);
  }, 60_000);

  it('refuse-known: a 400 refusal of notifications/initialized (a message the protocol defines) is a warn', async () => {
    const r = await run('refuse-known');
    expect(r.c('http/accepted-202').verdict, r.c('http/accepted-202').message).toBe('warn');
    expect(r.c('http/accepted-202').message).toMatch(/notifications\/initialized .*refused with HTTP 400/);
  }, 60_000);

  it('sloppy: unchecked sessions, versions, Origin; GET without a stream; bad JSON with 200', async () => {
    const r = await run('sloppy');
    expect(r.verdicts('http/')).toMatchObject({
      'http/session-id/required': 'warn',
      'http/session-id/unknown': 'fail',
      'http/delete': 'fail',
      'http/protocol-version-header': 'fail',
      'http/origin': 'fail',
      'http/get-stream': 'fail',
      'http/invalid-json': 'warn',
      'http/batch': 'info',
    });
  }, 60_000);

  it('body-on-202: a body on 202 fails', async () => {
    const r = await run('body-on-202');
    expect(r.c('http/accepted-202').verdict).toBe('fail');
    expect(r.c('http/accepted-202').message).toContain('202 with a 12-byte body');
  }, 60_000);

  it('cut-sse: an answer cut in the middle of an SSE event is no answer, said plainly and at once', async () => {
    const r = await run('cut-sse');
    expect(r.c('listing/tools-list').verdict).toBe('fail');
    expect(r.c('listing/tools-list').message).toContain('ended in the middle of an event');
    expect(r.ms).toBeLessThan(20_000);
  }, 60_000);

  it('500: requests refused with a server error fail with the status', async () => {
    const r = await run('500', 'lifecycle');
    expect(r.code).toBe(1);
    expect(r.c('lifecycle/ping').message).toContain('HTTP 500');
  }, 60_000);
});

describe('connection problems and usage', () => {
  it('connection refused: exit 1, a report, bounded time', async () => {
    const r = await runArgs(['--http', 'http://127.0.0.1:1/mcp']);
    expect(r.code).toBe(1);
    expect(r.report.aborted).toContain('connection refused');
    expect(r.ms).toBeLessThan(15_000);
  }, 30_000);

  it('DNS failure: exit 1 with a plain message', async () => {
    const r = await runArgs(['--http', 'http://mcp-conform-no-such-host.invalid/mcp'], { timeoutMs: 60_000 });
    expect(r.code).toBe(1);
    expect(r.report.aborted).toMatch(/DNS lookup|cannot be reached/);
  }, 60_000);

  it('exactly one of --stdio/--http/--sse/--url', async () => {
    expect((await cli(['run', '--http', 'http://127.0.0.1:1/mcp', '--sse', 'http://127.0.0.1:1/sse'])).code).toBe(2);
    expect((await cli(['run'])).code).toBe(2);
    expect((await cli(['run', '--http', 'not a url'])).code).toBe(2);
    expect((await cli(['run', '--http', 'http://127.0.0.1:1/mcp', '--header', 'no colon'])).code).toBe(2);
    expect((await cli(['run', '--stdio', 'x', '--start', 'y'])).code).toBe(2);
  }, 30_000);
});
