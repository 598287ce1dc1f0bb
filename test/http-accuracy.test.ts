/**
 * Accuracy of the HTTP verdicts (issue 11, items 6, 7, 9, 11, 12): one probe's leftovers never decide another's
 * verdict, an HTTP refusal is an answer, a server that accepts a batch is not at fault, and messages name the request
 * actually sent. Stdlib fixtures here; the Python SDK peers where they can be installed.
 */
import { describe, expect, it } from 'vitest';
import { brokenHttp, runArgs, startServer } from './http-helpers.js';

const runBroken = async (mode: string, suites: string, extra: string[] = []) => {
  const s = await startServer(['python3', brokenHttp, mode]);
  try { return await runArgs(['--http', `http://127.0.0.1:${s.port}/mcp`, '--suite', suites, ...extra], { timeoutMs: 60_000 }); } finally { await s.stop(); }
};

describe('HTTP probes do not depend on each other (item 12)', () => {
  it('a server that refuses by the headers before reading the body: every verdict is about its own probe', async () => {
    // Mode early answers 403 / 404 / 400 without reading the body, on a kept-alive connection. Reused, that
    // connection would carry the unread body into the next request, which Python's http.server answers with 501.
    const r = await runBroken('early', 'lifecycle,listing,robustness,http');
    expect(r.code).toBe(0);
    expect(r.report.server?.name ?? JSON.stringify(r.report.server)).toContain('broken-http-early');
    expect(r.verdicts('http/')).toMatchObject({
      'http/session-id/required': 'pass',
      'http/session-id/unknown': 'pass',
      'http/delete': 'pass',
      'http/protocol-version-header': 'pass',
      'http/origin': 'pass',
      'http/host': 'info',
      'http/accept': 'info',
      'http/invalid-json': 'pass',
      'http/batch': 'pass',
    });
    // The probe after the refused Origin probe is the Host probe: served, not a garbled 501.
    expect(r.c('http/host').message).toContain('HTTP 200');
    const statuses = ((r.report.http?.exchanges ?? []) as { status?: number }[]).map((x) => x.status);
    expect(statuses).not.toContain(501);
    expect(Object.values(r.verdicts('robustness/')).filter((v) => v === 'fail')).toEqual([]);
  }, 60_000);
});

describe('http/batch (item 7)', () => {
  it('a server that accepts a batch outside 2025-03-26 is reported, not warned', async () => {
    const r = await runBroken('sloppy', 'lifecycle,http', ['--case', 'http/batch', '--case', 'lifecycle']);
    expect(r.c('http/batch').verdict).toBe('info');
    expect(r.c('http/batch').message).toMatch(/^a batch of two ping requests was accepted/);
  }, 60_000);
});
