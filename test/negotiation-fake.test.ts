/**
 * Version negotiation against the in-process fake server (test/helpers/fake-server.ts), for what needs no real
 * process: a server of 2024-11-05 … 2025-11-25 (server/discover unknown to it), forced versions, a version nobody
 * published, a counter-offer. Hangs, crashes, slow starts, restarts and real peers: test/negotiation.test.ts.
 */
import { describe, expect, it } from 'vitest';
import { extend, FakeTransport, runFake, standard, type Handler } from './helpers/fake-server.js';

const OLD = ['2024-11-05', '2025-03-26', '2025-06-18', '2025-11-25'] as const;

/** Answers initialize with this version whatever was offered (standard echoes the offer). */
const answersWith = (version: string): Handler =>
  extend({
    initialize: (m, api) => {
      api.state.initialized = true;
      api.send({
        jsonrpc: '2.0',
        id: m.id,
        result: {
          protocolVersion: version,
          capabilities: { tools: {} },
          serverInfo: { name: 'fake', version: '1.0.0' },
        },
      });
    },
  });

describe('negotiation with a server of 2024-11-05 … 2025-11-25 (server/discover unknown to it)', () => {
  it('default: server/discover gets -32601, initialize offering 2025-11-25 follows on the same connection', async () => {
    const r = await runFake(standard, ['lifecycle']);
    expect(r.report.exitCode).toBe(0);
    const n = r.report.negotiation!;
    expect(n).toMatchObject({ mode: 'default', handshake: 'initialize', version: '2025-11-25', restarts: 0 });
    expect(n.steps.map((s) => [s.method, s.outcome, s.errorCode])).toEqual([
      ['server/discover', 'error', -32601],
      ['initialize', 'result', undefined],
    ]);
    expect(r.transports).toHaveLength(1);
    expect(r.report.server.protocolVersion).toBe('2025-11-25');
    expect(r.c('lifecycle/initialize').message).toMatch(/negotiation: server\/discover was answered with error -32601/);
  });

  it.each(OLD)('--protocol-version %s is spoken (initialize only)', async (v) => {
    const r = await runFake(standard, ['lifecycle', 'schema'], { protocolVersion: v });
    expect(r.report.exitCode).toBe(0);
    expect(r.report.options.protocolVersionInForce).toBe(v);
    expect(r.report.server.protocolVersion).toBe(v);
    expect(r.report.negotiation!.steps.map((s) => s.method)).toEqual(['initialize']);
    expect(r.c('lifecycle/version-negotiation').verdict).toBe('pass');
  });

  it('--protocol-version 2026-07-28 fails lifecycle: the server cannot speak it', async () => {
    const r = await runFake(standard, [], { protocolVersion: '2026-07-28' });
    expect(r.report.exitCode).toBe(1);
    expect(r.c('lifecycle/initialize').verdict).toBe('fail');
    expect(r.c('lifecycle/version-negotiation')).toMatchObject({
      verdict: 'fail',
      message: expect.stringMatching(/cannot speak 2026-07-28/),
    });
    expect(r.report.negotiation).toMatchObject({ mode: 'forced', requested: '2026-07-28', handshake: 'none' });
    expect(r.report.aborted).toMatch(/cannot speak 2026-07-28/);
  });
});

describe('servers that answer another version', () => {
  it('initialize answered with 2099-01-01 fails lifecycle/version-negotiation', async () => {
    const r = await runFake(answersWith('2099-01-01'), ['lifecycle']);
    expect(r.report.exitCode).toBe(1);
    expect(r.c('lifecycle/version-negotiation').verdict).toBe('fail');
  });

  it('--protocol-version on a version the server counters with another it supports: info "does not serve", not a fail; the run goes on in the version answered', async () => {
    const r = await runFake(answersWith('2025-11-25'), ['lifecycle'], { protocolVersion: '2025-06-18' });
    expect(r.c('lifecycle/version-negotiation')).toMatchObject({
      verdict: 'info',
      message: expect.stringMatching(
        /^--protocol-version 2025-06-18: the server does not serve 2025-06-18; it answered initialize with 2025-11-25/,
      ),
    });
    expect(r.report.options.protocolVersionInForce).toBe('2025-11-25');
    expect(r.report.exitCode).toBe(0);
  });
});

describe('a server that hangs on server/discover: started again, or only connected to again', () => {
  const hangs = extend({ 'server/discover': (_m, api) => api.hang() });

  it('a server the run started is restarted, and the step says so', async () => {
    const r = await runFake(hangs, ['lifecycle']);
    expect(r.report.negotiation).toMatchObject({ handshake: 'initialize', restarts: 1 });
    expect(r.report.negotiation!.steps[0]!.message).toMatch(/: the server was restarted and initialize offered/);
  });

  it('a server the run did not start (no process of its own) is not said to be restarted: it gets a new connection', async () => {
    // An HTTP server reached by URL: the transport has no process of its own.
    const reached = () => Object.assign(new FakeTransport(hangs), { processInfo: () => undefined });
    const r = await runFake(hangs, ['lifecycle'], { transportFactory: reached });
    expect(r.report.negotiation).toMatchObject({ handshake: 'initialize', restarts: 1 });
    const m = r.report.negotiation!.steps[0]!.message;
    expect(m).toMatch(/: the harness connected afresh \(a server it did not start is not restarted\) and initialize/);
    expect(m).not.toMatch(/was restarted/);
  });
});
