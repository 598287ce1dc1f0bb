/**
 * HTTP+SSE: a POST still open when the run ends is no refusal. The answer of a message comes on the stream, so a
 * server may send it before the POST's own 202; the harness closes the transport once its cases are done, and
 * closing aborts the POSTs still waiting for their status. sse/post-accepted must not count those as POSTs "not
 * accepted" (it did: a flaky 'ping (message 5): aborted' under load), while a POST the server really refuses
 * (HTTP 500, a connection reset) stays a fail.
 * https://modelcontextprotocol.io/specification/2024-11-05/basic/transports#http-with-sse
 */
import { describe, expect, it } from 'vitest';
import { join } from 'node:path';
import { FIXTURES, freePort, groupAlive, runArgs } from './http-helpers.js';

const sseHttp = join(FIXTURES, 'http', 'sse_http.py');
// Far longer than the run (about 2 s): every request's 202 is still held back when the harness closes.
const HOLD_S = 20;

interface Exchange {
  n: number;
  purpose: string;
  method: string;
  status?: number;
  error?: string;
  requestBody?: string;
}

async function runMode(mode: string, extra: string[] = []) {
  const port = await freePort();
  const r = await runArgs([
    '--start',
    `python3 ${sseHttp} ${mode} ${port} ${extra.join(' ')}`.trim(),
    '--sse',
    `http://127.0.0.1:${port}/sse`,
    '--suite',
    'lifecycle,sse',
  ]);
  const posts = (r.report.http!.exchanges as Exchange[]).filter((x) => x.purpose === 'message' && x.method === 'POST');
  const method = (x: Exchange) => (JSON.parse(x.requestBody!) as { method?: string }).method;
  return { r, posts, method };
}

describe('HTTP+SSE: POSTs open when the run ends', () => {
  it('answers on the stream at once, 202s held back: the run ends without them, post-accepted is no fail, the exchanges say why', async () => {
    const { r, posts, method } = await runMode('slow-202', [String(HOLD_S)]);
    const fails = r.report.suites
      .flatMap((s) => s.cases)
      .filter((c) => c.verdict === 'fail')
      .map((c) => `${c.id}: ${c.message}`);
    expect([r.code, r.report.aborted, fails]).toEqual([0, undefined, []]);
    // The answers came on the stream while their POSTs were open: the pings were answered.
    expect(r.c('lifecycle/ping').verdict).toBe('pass');
    // initialize and the notification got their 202 at once; every ping's POST was still open at the end.
    const held = posts.filter((x) => method(x) === 'ping');
    expect(held.length).toBeGreaterThan(0);
    expect(posts.filter((x) => method(x) !== 'ping').map((x) => `${method(x)} ${x.status}`)).toEqual([
      'initialize 202',
      'notifications/initialized 202',
    ]);
    // The run did not wait for the held 202s (it would have got them), and the report says why each has none.
    for (const x of held) {
      expect(x.status).toBeUndefined();
      expect(x.error).toMatch(/\(the run ended before the POST was answered\)$/);
    }
    // The POST messages carry no problem, so post-accepted leaves them out rather than failing them.
    const pings = r.report.messages.filter((m) => m.direction === 'to-server' && m.method === 'ping');
    expect(pings.length).toBe(held.length);
    for (const m of pings) {
      expect(m.http).toMatchObject({ method: 'POST' });
      expect([m.http!.status, m.http!.problem]).toEqual([undefined, undefined]);
    }
    // initialize and the notification got their 202: a pass, which says how many POSTs it left out.
    expect(r.c('sse/post-accepted')).toMatchObject({
      verdict: 'pass',
      message: `all 2 POSTs got 202; ${held.length} more ${held.length === 1 ? 'was' : 'were'} still waiting for a status when the run ended (not judged)`,
    });
    // The server the run started was stopped with the held-back threads in it: nothing is left.
    expect(groupAlive(r.report.process.pid!)).toBe(false);
  }, 60_000);

  it('every 202 held back: post-accepted has nothing to judge and says so (skip)', async () => {
    const { r, posts } = await runMode('slow-all', [String(HOLD_S)]);
    expect([r.code, r.report.aborted]).toEqual([0, undefined]);
    expect(posts.length).toBeGreaterThan(2);
    for (const x of posts)
      expect([x.status, x.error]).toEqual([undefined, 'aborted (the run ended before the POST was answered)']);
    expect(r.c('sse/post-accepted')).toMatchObject({
      verdict: 'skip',
      message: `no POST got a status before the run ended (${posts.length} still waiting: not judged)`,
    });
    expect(groupAlive(r.report.process.pid!)).toBe(false);
  }, 60_000);

  it('a POST the server refuses (HTTP 500) or whose connection it resets is still not accepted', async () => {
    const [refused, reset] = await Promise.all([runMode('500'), runMode('reset')]);
    for (const { r } of [refused, reset]) {
      expect(r.code).toBe(1);
      expect(r.report.aborted).toBeUndefined();
      expect(r.c('sse/post-accepted').verdict).toBe('fail');
      expect(groupAlive(r.report.process.pid!)).toBe(false);
    }
    const pingSeqs = (run: typeof refused) =>
      run.r.report.messages.filter((m) => m.direction === 'to-server' && m.method === 'ping').map((m) => m.seq);
    const n = pingSeqs(refused).length;
    expect(n).toBeGreaterThan(0);
    expect(refused.r.c('sse/post-accepted').message).toBe(
      `${n} of ${n + 2} POSTs were not accepted: ${pingSeqs(refused)
        .map((s) => `ping (message ${s}): HTTP 500`)
        .join('; ')}`,
    );
    expect(reset.r.c('sse/post-accepted').message).toMatch(
      /^\d+ of \d+ POSTs were not accepted: ping \(message \d+\): the server reset the connection/,
    );
    // The reset is the server's doing, before the run ended: its exchange carries the error as it came.
    for (const x of reset.posts.filter((p) => reset.method(p) === 'ping')) {
      expect(x.status).toBeUndefined();
      expect(x.error).toMatch(/reset the connection/);
      expect(x.error).not.toMatch(/the run ended/);
    }
  }, 60_000);
});
