/** HTTP+SSE (2024-11-05): the transport, --sse, --url detection and the sse suite against real servers. */
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { everything, runArgs, sdkHttp, startServer, type Started } from '../http-helpers.js';

const CORE = 'lifecycle,listing,calling,unknown-tool,invalid-params,is-error';
const SSE_PASS = {
  'sse/endpoint-first': 'pass',
  'sse/endpoint-origin': 'pass',
  'sse/post-accepted': 'pass',
  'sse/message-events': 'pass',
  'sse/stream-open': 'pass',
};
// server-everything and the SDK's SSEServerTransport (as configured by default) serve a stream and its messages to
// any Origin, as they do over Streamable HTTP (http/origin fails there too).
const SSE_VERDICTS = { ...SSE_PASS, 'sse/origin': 'fail' };

describe('server-everything over HTTP+SSE', () => {
  let s: Started;
  beforeAll(async () => {
    s = await startServer([everything, 'sse'], { portArg: false });
  });
  afterAll(async () => {
    await s?.stop();
  });

  it('--sse: the sse suite passes and the core suites give the stdio verdicts', async () => {
    const [sse, stdio] = await Promise.all([
      runArgs(['--sse', `http://127.0.0.1:${s.port}/sse`, '--suite', `${CORE},sse,http`]),
      runArgs(['--stdio', `${everything} stdio`, '--suite', CORE]),
    ]);
    expect(sse.report.target.transport).toBe('sse');
    expect(sse.verdicts('sse/')).toEqual(SSE_VERDICTS);
    expect(Object.values(sse.verdicts('http/')).every((v) => v === 'skip')).toBe(true);
    const core = (v: Record<string, string>) =>
      Object.fromEntries(
        Object.entries(v).filter(
          ([k]) => k !== 'lifecycle/shutdown' && !k.startsWith('sse/') && !k.startsWith('http/'),
        ),
      );
    expect(core(sse.verdicts(''))).toEqual(core(stdio.verdicts('')));
    const answer = sse.report.messages.find((m) => m.direction === 'from-server' && m.method === 'initialize')!;
    expect(answer.http).toMatchObject({ method: 'GET', sseEvent: 'message' });
    const post = sse.report.messages.find((m) => m.direction === 'to-server' && m.method === 'ping')!;
    expect(post.http).toMatchObject({ method: 'POST', status: 202 });
    expect(post.http!.url).toContain('/message?sessionId=');
  }, 120_000);

  it('--url on the SSE URL detects HTTP+SSE after a refused POST', async () => {
    const r = await runArgs(['--url', `http://127.0.0.1:${s.port}/sse`, '--suite', 'lifecycle,sse']);
    expect(r.code).toBe(1); // sse/origin
    expect(r.report.target.transport).toBe('sse');
    expect(r.report.target.detection).toHaveLength(2);
    expect(r.report.target.detection![1]).toContain('HTTP+SSE');
    expect(r.verdicts('sse/')).toEqual(SSE_VERDICTS);
  }, 60_000);
});

describe('SDK SSEServerTransport', () => {
  it('--sse: core suites and sse suite pass', async () => {
    const s = await startServer(['node', sdkHttp, 'sse']);
    try {
      const r = await runArgs(['--sse', `http://127.0.0.1:${s.port}/sse`]);
      expect(r.verdicts('sse/')).toEqual(SSE_VERDICTS);
      expect(
        r.report.suites
          .flatMap((x) => x.cases)
          .filter((c) => c.verdict === 'fail')
          .map((c) => c.id),
      ).toEqual(['sse/origin']);
      expect(r.c('sse/origin').message).toMatch(
        /opened a stream .*initialize POSTed from that Origin to its endpoint got HTTP 202/,
      );
      expect(r.code).toBe(1);
    } finally {
      await s.stop();
    }
  }, 60_000);

  it('--sse with DNS-rebinding protection on: the stream still opens for a foreign Origin, its POSTs are refused (sse/origin warns)', async () => {
    const s = await startServer(['node', sdkHttp, 'sse-protected']);
    try {
      const r = await runArgs(['--sse', `http://127.0.0.1:${s.port}/sse`, '--suite', 'lifecycle,sse']);
      expect(r.c('sse/origin').verdict, r.c('sse/origin').message).toBe('warn');
      expect(r.c('sse/origin').message).toMatch(
        /initialize POSTed from that Origin to its endpoint was refused \(HTTP 403\)/,
      );
      expect(r.code).toBe(0);
    } finally {
      await s.stop();
    }
  }, 60_000);

  it('--url on a Streamable HTTP endpoint picks Streamable HTTP and leaves no probe session behind', async () => {
    const s = await startServer(['node', sdkHttp, 'stateful']);
    try {
      const r = await runArgs(['--url', `http://127.0.0.1:${s.port}/mcp`, '--suite', 'lifecycle,http']);
      expect(r.report.target.transport).toBe('streamable-http');
      expect(r.report.target.detection).toHaveLength(1);
      const ex = r.report.http!.exchanges as { purpose: string; method: string; status?: number }[];
      expect(ex.filter((x) => x.purpose === 'detect').map((x) => `${x.method} ${x.status}`)).toEqual([
        'POST 200',
        'DELETE 200',
      ]);
      expect(r.c('http/session-id/unknown').verdict).toBe('pass');
    } finally {
      await s.stop();
    }
  }, 60_000);

  it('--sse on a URL that is no SSE stream: exit 1 with what came', async () => {
    const s = await startServer(['node', sdkHttp, 'stateful']);
    try {
      const r = await runArgs(['--sse', `http://127.0.0.1:${s.port}/nothing`]);
      expect(r.code).toBe(1);
      expect(r.report.aborted).toContain('did not open an SSE stream: HTTP 404');
    } finally {
      await s.stop();
    }
  }, 60_000);
});
