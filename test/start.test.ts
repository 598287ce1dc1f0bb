/** --start: the harness starts the HTTP server, waits for its port, tests it and leaves nothing behind. */
import { describe, expect, it } from 'vitest';
import { freePort, groupAlive, runArgs, sdkHttp } from './http-helpers.js';

describe('--start', () => {
  it('starts the server, runs, and stops its whole process group', async () => {
    const port = await freePort();
    const r = await runArgs([
      '--start',
      `node ${sdkHttp} stateful ${port}`,
      '--http',
      `http://127.0.0.1:${port}/mcp`,
      '--suite',
      'lifecycle,listing',
    ]);
    expect(r.code).toBe(0);
    expect(r.report.target).toMatchObject({
      transport: 'streamable-http',
      command: `node ${sdkHttp} stateful ${port}`,
    });
    const p = r.report.process;
    expect(p.pid).toBeGreaterThan(0);
    // An HTTP server does not watch its stdin: it ends on SIGTERM, a step the spec's shutdown plans for (info, not warn).
    expect(p.shutdown).toBe('SIGTERM');
    expect(r.c('lifecycle/shutdown')).toMatchObject({
      verdict: 'info',
      message: expect.stringMatching(/started with --start ended on SIGTERM after its stdin was closed/),
    });
    expect(groupAlive(p.pid!)).toBe(false);
  }, 60_000);

  it('a server that exits before opening its port: exit 1 with its exit code and output', async () => {
    const port = await freePort();
    const r = await runArgs([
      '--start',
      `python3 -c "import sys; sys.stderr.write('no config file\\n'); sys.exit(3)"`,
      '--http',
      `http://127.0.0.1:${port}/mcp`,
    ]);
    expect(r.code).toBe(1);
    expect(r.report.aborted).toContain('exited with code 3');
    expect(r.report.aborted).toContain('no config file');
  }, 30_000);

  it('a server that never opens its port: stopped after --start-timeout, nothing left', async () => {
    const port = await freePort();
    const r = await runArgs([
      '--start',
      'sh -c "sleep 60 & sleep 60"',
      '--start-timeout',
      '1000',
      '--http',
      `http://127.0.0.1:${port}/mcp`,
    ]);
    expect(r.code).toBe(1);
    expect(r.report.aborted).toContain('did not accept connections within 1000 ms');
    expect(r.ms).toBeLessThan(15_000);
    expect(groupAlive(r.report.process.pid!)).toBe(false);
  }, 30_000);

  it('with --url: started, detected, stopped', async () => {
    const port = await freePort();
    // sse-protected: the SDK's DNS-rebinding protection on, so that sse/origin (a foreign Origin) is refused, not failed.
    const r = await runArgs([
      '--start',
      `node ${sdkHttp} sse-protected ${port}`,
      '--url',
      `http://127.0.0.1:${port}/sse`,
      '--suite',
      'lifecycle,sse',
    ]);
    expect([
      r.code,
      r.report.aborted,
      r.report.suites
        .flatMap((x) => x.cases)
        .filter((c) => c.verdict === 'fail')
        .map((c) => `${c.id}: ${c.message}`),
    ]).toEqual([0, undefined, []]);
    expect(r.report.target.transport).toBe('sse');
    expect(groupAlive(r.report.process.pid!)).toBe(false);
  }, 60_000);
});
