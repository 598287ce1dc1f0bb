/** The run's bounds (--max-duration, an AbortSignal), over the in-process fake server. */
import { describe, expect, it } from 'vitest';
import { extend, runFake } from './helpers/fake-server.js';

const probe = runFake;

describe('run bounds, over the fake server', () => {
  it('maxDurationMs during initialize: the handshake cases are skipped, not failed; exit 1', async () => {
    const r = await probe(extend({ initialize: () => {} }), ['lifecycle'], { maxDurationMs: 300, timeoutMs: 60_000 });
    expect(r.report.aborted).toBe('the run reached its time limit of 300 ms (--max-duration)');
    expect(r.c('lifecycle/initialize')).toMatchObject({
      verdict: 'skip',
      message: 'not run: the run reached its time limit of 300 ms (--max-duration)',
    });
    expect(r.report.exitCode).toBe(1);
    expect(r.report.durationMs).toBeLessThan(2000);
  });

  it('an AbortSignal stops the run where it is: the case in flight is "not finished", the rest "not run"; the server is closed', async () => {
    const controller = new AbortController();
    // every call hangs, and the first one interrupts the run: it is stuck in the calling suite (not a timer: a loaded
    // machine may not have finished the lifecycle cases within any fixed delay)
    const r = await probe(
      extend({ 'tools/call': (_m, api) => api.later(50, () => controller.abort('SIGINT')) }),
      ['lifecycle', 'calling', 'robustness'],
      { signal: controller.signal, timeoutMs: 60_000 },
    );
    expect(r.report.aborted).toBe('the run was interrupted (SIGINT)');
    expect(r.c('lifecycle/ping').verdict).toBe('pass');
    expect(r.c('calling/tool')).toMatchObject({
      verdict: 'skip',
      message: 'not finished: the run was interrupted (SIGINT)',
    });
    expect(r.c('robustness/invalid-json')).toMatchObject({
      verdict: 'skip',
      message: 'not run: the run was interrupted (SIGINT)',
    });
    expect(r.transports.every((t) => t.closed)).toBe(true);
    expect(r.report.durationMs).toBeLessThan(2000);
  });
});
