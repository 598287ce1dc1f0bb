/**
 * Version negotiation: server/discover first, the initialize fallback, forced versions, restarts, --all-versions,
 * against real processes. What needs none (a 2025-era server, forced versions, a counter-offer, an unpublished
 * version): test/negotiation-fake.test.ts.
 */
import { describe, expect, it } from 'vitest';
import { join } from 'node:path';
import { BIN, FIXTURES, py, run } from './helpers/cli.js';
import { pythonPeers } from './helpers/python-peers.js';

const OLD = ['2024-11-05', '2025-03-26', '2025-06-18', '2025-11-25'] as const;

describe('negotiation against calc-all.py (speaks all five)', () => {
  it('default: 2026-07-28 through server/discover, stateless _meta on every request, resultType on every result', async () => {
    const r = await run(py('calc-all.py'));
    expect(r.code).toBe(0);
    expect(r.report.summary.fail).toBe(0);
    // mcpkit serves a request without _meta as a legacy one, which 2026-07-28 calls malformed: the one warn.
    expect(
      r.report.suites
        .flatMap((s) => s.cases)
        .filter((c) => c.verdict === 'warn')
        .map((c) => c.id),
    ).toEqual(['protocol-2026/missing-meta']);
    expect(r.report.negotiation).toMatchObject({ handshake: 'server/discover', version: '2026-07-28', restarts: 0 });
    expect(r.report.server).toMatchObject({ name: 'calc', protocolVersion: '2026-07-28' });
    // It answers initialize too: a dual-era server, judged in 2025-11-25 as well (test/dual-era.test.ts); the messages
    // of the 2026-07-28 era come first.
    expect(r.report.eras?.map((e) => e.protocolVersion)).toEqual(['2026-07-28', '2025-11-25']);
    const first = r.report.messages.filter((m) => m.seq <= r.report.eras![0]!.messages!.to);
    const sent = first.filter((m) => m.direction === 'to-server' && m.kind === 'request');
    expect(sent.map((m) => m.method)).not.toContain('initialize');
    expect(sent.map((m) => m.method)).not.toContain('ping');
    for (const m of sent) {
      if (m.schema.expectedInvalid) continue;
      expect((m.json as { params: { _meta: Record<string, unknown> } }).params._meta).toMatchObject({
        'io.modelcontextprotocol/protocolVersion': '2026-07-28',
        'io.modelcontextprotocol/clientCapabilities': {},
      });
    }
    expect(first.some((m) => m.method === 'notifications/initialized')).toBe(false);
    expect(r.c('lifecycle/initialize').message).toMatch(/server\/discover/);
    expect(r.c('lifecycle/result-type').verdict).toBe('pass');
    expect(r.c('lifecycle/ping')).toMatchObject({ verdict: 'skip', message: expect.stringMatching(/removed ping/) });
    expect(r.c('lifecycle/initialized-notification').verdict).toBe('skip');
    // Spec links point at the 2026-07-28 pages (moved sections included).
    expect(r.c('robustness/invalid-json').spec).toBe(
      'https://modelcontextprotocol.io/specification/2026-07-28/basic/transports/stdio',
    );
    expect(r.c('lifecycle/initialize').spec).toBe(
      'https://modelcontextprotocol.io/specification/2026-07-28/server/discover',
    );
  });

  it.each([...OLD, '2026-07-28'])('--protocol-version %s: all pass', async (v) => {
    const r = await run(py('calc-all.py'), ['--protocol-version', v]);
    expect(r.code).toBe(0);
    expect(r.report.options.protocolVersionInForce).toBe(v);
    expect(r.report.negotiation!.handshake).toBe(v === '2026-07-28' ? 'server/discover' : 'initialize');
  });

  it('--all-versions: every version accepted, a matrix and a console table', async () => {
    const r = await run(py('calc-all.py'), ['--all-versions', '--suite', 'lifecycle,listing,schema']);
    expect(r.code).toBe(0);
    expect(r.report.matrix!.map((m) => [m.protocolVersion, m.accepted, m.summary.fail])).toEqual(
      [...OLD, '2026-07-28'].map((v) => [v, true, 0]),
    );
    expect(r.report.matrix![0]!.suites.map((s) => s.id)).toEqual(['lifecycle', 'listing', 'schema']);
    expect(r.report.options.protocolVersionInForce).toBe('2026-07-28');
  });
});

describe('servers that answer a version nobody published', () => {
  it('server/discover listing only 2099-01-01: fallback to initialize, which answers 2099-01-01: fail', async () => {
    const r = await run(py('broken/unknown-version-discover.py'), ['--suite', 'lifecycle']);
    expect(r.code).toBe(1);
    expect(r.c('lifecycle/version-negotiation')).toMatchObject({
      verdict: 'fail',
      message: expect.stringMatching(/2099-01-01/),
    });
    expect(r.report.negotiation!.steps[0]).toMatchObject({
      method: 'server/discover',
      outcome: 'result',
      answered: ['2099-01-01'],
    });
    const forced = await run(py('broken/unknown-version-discover.py'), [
      '--suite',
      'lifecycle',
      '--protocol-version',
      '2026-07-28',
    ]);
    expect(forced.code).toBe(1); // nothing could be spoken: lifecycle/initialize fails
    // Listing other versions is legal: the server does not serve the version forced (info, as --all-versions says).
    expect(forced.c('lifecycle/version-negotiation')).toMatchObject({
      verdict: 'info',
      message: expect.stringMatching(
        /--protocol-version 2026-07-28: the server does not serve 2026-07-28 \(server\/discover lists \["2099-01-01"\]\)/,
      ),
    });
  });
});

describe('servers that hang or die on server/discover', () => {
  it('a hang: the attempt is bounded, the server restarted once, initialize on the fresh process', async () => {
    const r = await run(py('broken/discover-hangs.py'), ['--suite', 'lifecycle', '--timeout', '1500']);
    expect(r.code).toBe(0);
    expect(r.report.negotiation).toMatchObject({ handshake: 'initialize', restarts: 1 });
    expect(r.report.negotiation!.steps[0]).toMatchObject({
      method: 'server/discover',
      outcome: 'timeout',
      restartedAfter: true,
    });
    expect(r.report.messages[0]!.method).toBe('initialize'); // the first process's messages are described in the step
  });

  it('a hang with the default --timeout: the 5 s bound applies once the server is idle, then the fallback', async () => {
    const r = await run(py('broken/discover-hangs.py'), ['--suite', 'lifecycle']);
    expect(r.report.negotiation).toMatchObject({ handshake: 'initialize', restarts: 1 });
    expect(r.report.negotiation!.steps[0]).toMatchObject({
      method: 'server/discover',
      outcome: 'timeout',
      message: expect.stringMatching(/no answer within 5000 ms/),
    });
  }, 60_000);

  it('a server busy starting for longer than the bound (6 s of CPU before it reads) is waited for: 2026-07-28, no restart', async () => {
    const r = await run(py('slow-start.py'), ['--suite', 'lifecycle'], { timeoutMs: 90_000 });
    expect(r.report.negotiation).toMatchObject({ handshake: 'server/discover', version: '2026-07-28', restarts: 0 });
    expect(r.report.negotiation!.steps).toHaveLength(1);
  }, 120_000);

  it("a short --timeout and a slow start (1.5 s of CPU): start-up is not the first request's time, in either era", async () => {
    // Default: server/discover is answered once the server is idle (no restart, 2026-07-28).
    const d = await run(py('slow-start.py'), ['--suite', 'lifecycle', '--timeout', '500', '--env', 'SLOW_START=1.5']);
    expect(d.report.negotiation).toMatchObject({ handshake: 'server/discover', version: '2026-07-28', restarts: 0 });
    // Forced to 2025-11-25: initialize is the first message; its 500 ms count once the server is idle.
    const f = await run(py('slow-start.py'), [
      '--suite',
      'lifecycle',
      '--timeout',
      '500',
      '--env',
      'SLOW_START=1.5',
      '--protocol-version',
      '2025-11-25',
    ]);
    expect(f.report.negotiation).toMatchObject({ handshake: 'initialize', version: '2025-11-25', restarts: 0 });
    expect(f.c('lifecycle/initialize').verdict).toBe('pass');
    expect(f.code).toBe(0);
    // Forced to 2026-07-28: server/discover is the first message; its 500 ms count once the server is idle too.
    const s = await run(py('slow-start.py'), [
      '--suite',
      'lifecycle',
      '--timeout',
      '500',
      '--env',
      'SLOW_START=1.5',
      '--protocol-version',
      '2026-07-28',
    ]);
    expect(s.report.negotiation).toMatchObject({
      mode: 'forced',
      handshake: 'server/discover',
      version: '2026-07-28',
      restarts: 0,
    });
    expect(s.code).toBe(0);
  }, 90_000);

  it("a real peer forced to 2026-07-28 (and --all-versions) with --timeout 300: the Python SDK 2.x's import time is not held against server/discover", async (t) => {
    // Before the start-up allowance covered a forced discover, the official Python SDK (~1 s to import `mcp`) failed
    // lifecycle/initialize and version-negotiation here ("not answered within 300 ms").
    const peers = await pythonPeers();
    if (!peers.python) return t.skip(`no Python SDK: ${peers.reason}`);
    const r = await run(`${peers.python} ${join(FIXTURES, 'peers', 'python_sdk.py')}`, [
      '--suite',
      'lifecycle',
      '--timeout',
      '300',
      '--protocol-version',
      '2026-07-28',
    ]);
    expect(r.report.negotiation).toMatchObject({
      mode: 'forced',
      handshake: 'server/discover',
      version: '2026-07-28',
      restarts: 0,
    });
    expect(r.c('lifecycle/version-negotiation').verdict).toBe('pass');
    expect(r.code).toBe(0);
    // --all-versions forces each version on a fresh process the same way: its matrix said 2026-07-28 "not accepted".
    const all = await run(`${peers.python} ${join(FIXTURES, 'peers', 'python_sdk.py')}`, [
      '--suite',
      'lifecycle',
      '--timeout',
      '300',
      '--all-versions',
    ]);
    expect(all.report.matrix!.map((m) => [m.protocolVersion, m.accepted])).toContainEqual(['2026-07-28', true]);
    expect(all.code).toBe(0);
  }, 300_000);

  it('a crash: restarted once, initialize on the fresh process', async () => {
    const r = await run(py('broken/discover-hangs.py'), ['--suite', 'lifecycle', '--env', 'EXIT=1']);
    expect(r.code).toBe(0);
    expect(r.report.negotiation!.steps[0]).toMatchObject({ outcome: 'closed', restartedAfter: true });
    expect(r.report.negotiation!.restarts).toBe(1);
  });
});

describe('the TypeScript SDK (server-everything: 2024-11-05 … 2025-11-25)', () => {
  const everything = `${join(BIN, 'mcp-server-everything')} stdio`;
  it('default: -32601 to server/discover, then initialize', async () => {
    const r = await run(everything, ['--suite', 'lifecycle'], { timeoutMs: 120_000 });
    expect(r.code).toBe(0);
    expect(r.report.negotiation!.steps.map((s) => [s.method, s.errorCode])).toEqual([
      ['server/discover', -32601],
      ['initialize', undefined],
    ]);
    expect(r.report.server.protocolVersion).toBe('2025-11-25');
  }, 120_000);

  it('--all-versions: the four it speaks are accepted, 2026-07-28 is not', async () => {
    const r = await run(everything, ['--all-versions', '--suite', 'lifecycle,listing'], { timeoutMs: 120_000 });
    expect(r.report.matrix!.map((m) => [m.protocolVersion, m.accepted])).toEqual([
      ...OLD.map((v) => [v, true]),
      ['2026-07-28', false],
    ]);
    expect(r.report.matrix!.at(-1)!.reason).toMatch(/-32601/);
    expect(r.code).toBe(0); // a refused version does not fail the run; failures of accepted ones would
  }, 120_000);
});

describe('version-aware checks', () => {
  it('resultType missing in 2026-07-28 fails; the same server forced to 2025-11-25 passes', async () => {
    const r = await run(py('broken/no-result-type.py'), ['--suite', 'lifecycle,schema']);
    expect(r.code).toBe(1);
    expect(r.c('lifecycle/result-type').verdict).toBe('fail');
    expect(r.c('schema/from-server/server/discover').message).toMatch(/resultType/);
    const old = await run(py('broken/no-result-type.py'), [
      '--suite',
      'lifecycle,schema',
      '--protocol-version',
      '2025-11-25',
    ]);
    expect(old.code).toBe(0);
    expect(old.c('lifecycle/result-type').verdict).toBe('skip');
  });
});
