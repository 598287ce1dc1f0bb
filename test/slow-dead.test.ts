/**
 * Issue 42 (and 41's items 3 and 4): a slow server is told from a dead one, what the run gives up on is cancelled,
 * environment errors are inconclusive in every suite, and nothing passes on evidence that is not there.
 */
import { describe, expect, it } from 'vitest';
import type { CaseResult } from '../core/results.js';
import { join } from 'node:path';
import { tmpdir } from 'node:os';
import { py, run, type RunResult } from './helpers/cli.js';

const all = (r: RunResult): CaseResult[] => r.report.suites.flatMap((s) => s.cases);
const sent = (r: RunResult) => (r.report.messages ?? []).filter((m) => m.direction === 'to-server');
/** The notifications/cancelled the run sent because it stopped waiting (robustness/cancel-in-flight's own probe aside). */
function cancellations(r: RunResult): { requestId: unknown; reason: string }[] {
  return sent(r)
    .filter((m) => m.method === 'notifications/cancelled')
    .map((m) => (m.json as { params: { requestId: unknown; reason: string } }).params)
    .filter((p) => !/robustness probe/.test(p.reason));
}
/** Requests of the harness's main session that no answer came for. */
function unanswered(r: RunResult): unknown[] {
  const msgs = r.report.messages ?? [];
  const answered = new Set(
    msgs
      .filter((m) => m.direction === 'from-server' && (m.kind === 'response' || m.kind === 'error'))
      .map((m) => JSON.stringify(m.id)),
  );
  return msgs
    .filter((m) => m.direction === 'to-server' && m.kind === 'request' && !answered.has(JSON.stringify(m.id)))
    .map((m) => m.id);
}

describe('liveness before death', () => {
  it('slow read-only tools with a prompt ping: each late call is its own fail, the server is never called gone, later suites are judged, one cancellation per call given up on', async () => {
    const r = await run(
      py('zoo/hangs-on-backend.py'),
      ['--suite', 'calling,unknown-tool,prompts,compat,quality', '--timeout', '1500'],
      { timeoutMs: 120_000 },
    );
    const cases = all(r);
    expect(
      cases
        .map((c) => c.message)
        .filter((m) => /stopped answering|in a row went unanswered|since its turn came/.test(m)),
    ).toEqual([]);
    for (const t of ['lookup', 'search', 'fetch_page'])
      expect(r.c(`calling/tool/${t}`)).toMatchObject({
        verdict: 'fail',
        message: expect.stringMatching(/not answered within 1500 ms/),
      });
    // Suites after the time-outs are judged, not skipped.
    expect(r.c('prompts/list').verdict).toBe('pass');
    expect(r.c('prompts/get/summary').verdict).toBe('pass');
    expect(r.c('compat/openai').verdict).toBe('pass');
    expect(cases.filter((c) => c.verdict === 'skip' && /^not run/.test(c.message))).toEqual([]);
    // Every request the run gave up on was cancelled, once, with its id and a reason; the server saw each.
    const cancelled = cancellations(r);
    expect(cancelled.length).toBeGreaterThanOrEqual(4);
    expect(new Set(cancelled.map((c) => JSON.stringify(c.requestId))).size).toBe(cancelled.length);
    expect(cancelled.map((c) => c.requestId).sort()).toEqual([...unanswered(r)].sort());
    for (const c of cancelled) expect(c.reason).toBe('no answer within 1500 ms');
    expect(r.report.process.stderr.filter((l) => /hangs-on-backend: cancelled id=/.test(l)).length).toBe(
      cancelled.length,
    );
    // The ping after each time-out was answered at once.
    const pings = sent(r).filter((m) => m.method === 'ping');
    expect(pings.length).toBeGreaterThanOrEqual(1);
  }, 150_000);

  it('a server that goes silent: the ping after the time-out goes unanswered too, so it is gone — the cases that need it are skipped, the offline analyses of what was listed still run', async () => {
    const r = await run(py('zoo/goes-silent.py'), ['--timeout', '1500'], { timeoutMs: 120_000 });
    expect(r.c('calling/tool/lookup')).toMatchObject({
      verdict: 'fail',
      message: expect.stringMatching(/not answered within 1500 ms/),
    });
    // The calls sent with it are not judged; the cases after it that need the server are skipped, saying why.
    for (const t of ['search', 'fetch_page'])
      expect(r.c(`calling/tool/${t}`)).toMatchObject({ verdict: 'skip', message: expect.stringMatching(/not judged/) });
    expect(r.c('unknown-tool/call')).toMatchObject({
      verdict: 'skip',
      message: expect.stringMatching(
        /the server stopped answering: tools\/call \(id \d+\) got no answer within 1500 ms, nor did the ping sent then/,
      ),
    });
    // Compat, quality and listing's checks of the list run on what was listed.
    for (const id of [
      'compat/openai',
      'compat/anthropic',
      'quality/tools',
      'listing/unique-names',
      'listing/input-schema/lookup',
    ])
      expect(r.c(id).verdict, id).toBe('pass');
    expect(r.c('quality/token-cost').verdict).toBe('info');
    // What was not run has no duration.
    const notRun = all(r).filter(
      (c) => c.verdict === 'skip' && /^not run: the server stopped answering/.test(c.message),
    );
    expect(notRun.length).toBeGreaterThan(10);
    for (const c of notRun) expect(c.durationMs, c.id).toBe(0);
    // Each request given up on was cancelled once.
    const cancelled = cancellations(r);
    expect(new Set(cancelled.map((c) => JSON.stringify(c.requestId))).size).toBe(cancelled.length);
    expect(cancelled.map((c) => c.requestId).sort()).toEqual([...unanswered(r)].sort());
    expect(r.code).toBe(1);
  }, 150_000);
});

describe('environment errors are inconclusive in every suite (one engine rule)', () => {
  it('listed resources, a prompt and completions whose backend refuses: inconclusive, nothing fails or warns', async () => {
    const r = await run(py('broken/backend-refused.py'), ['--timeout', '3000']);
    for (const id of [
      'resources/read/k8s://default/pods',
      'prompts/get/cluster-status',
      'prompts/unknown-prompt',
      'completion/unknown-prompt',
    ]) {
      expect(r.c(id), id).toMatchObject({
        verdict: 'skip',
        message: expect.stringMatching(
          /^inconclusive: .*ECONNREFUSED 127\.0\.0\.1:6443.*speaks of the server's environment .*the case would have said (fail|warn): /,
        ),
      });
    }
    expect(
      all(r)
        .filter((c) => c.verdict === 'fail' || c.verdict === 'warn')
        .map((c) => `${c.id}: ${c.message}`),
    ).toEqual([]);
    expect(r.code).toBe(0);
  }, 120_000);

  it('every request after the handshake fails with a network-style -32603: no case fails in any suite, either era', async () => {
    const r = await run(py('broken/all-env-failure.py'), ['--timeout', '3000'], { timeoutMs: 150_000 });
    expect(r.report.eras?.length ?? 1).toBeGreaterThanOrEqual(1);
    expect(
      all(r)
        .filter((c) => c.verdict === 'fail' || c.verdict === 'warn')
        .map((c) => `${c.id}: ${c.message}`),
    ).toEqual([]);
    // The 2026 probes on connections of their own meet the same rule.
    expect(all(r).find((c) => c.id === 'protocol-2026/client-info-optional')).toMatchObject({
      verdict: 'skip',
      message: expect.stringMatching(/^inconclusive: .*fetch failed/),
    });
    expect(r.code).toBe(0);
  }, 180_000);
});

describe('no empty passes', () => {
  it('every case on a server that writes nothing: no pass anywhere', async () => {
    const r = await run(py('broken/silent.py'), ['--timeout', '1500'], { timeoutMs: 120_000 });
    expect((r.report.messages ?? []).filter((m) => m.direction === 'from-server')).toEqual([]);
    const passes = all(r).filter((c) => c.verdict === 'pass' || c.verdict === 'info');
    expect(passes.map((c) => `${c.id}: ${c.message}`)).toEqual([]);
    // Case ids are unique (a per-item case skipped whole does not repeat its sibling's id: compat/openai), and what
    // was not run has no duration.
    const ids = all(r).map((c) => c.id);
    expect(ids.filter((id, i) => ids.indexOf(id) !== i)).toEqual([]);
    const skipped = all(r).filter((x) => x.verdict === 'skip'); // none of them ran: the server never came up
    expect(skipped.length).toBeGreaterThan(20);
    for (const c of skipped) expect(c.durationMs, c.id).toBe(0);
    for (const id of [
      'stdio/utf8',
      'lifecycle/shutdown',
      'capabilities/list-changed',
      'server-requests/declared-only',
    ]) {
      const c = all(r).find((x) => x.id === id);
      if (c) expect(c.verdict, id).toBe('skip');
    }
  }, 150_000);
});

describe('URLs the argument generator makes up point at a loopback listener of the harness', () => {
  it('while a run holds it: a 127.0.0.1 address that answers 404; released, the listener is gone', async () => {
    const { acquireUrlSink } = await import('../core/url-sink.js');
    const { generateArguments } = await import('../core/args/index.js');
    const release = await acquireUrlSink();
    const schema = {
      type: 'object',
      properties: { url: { type: 'string' }, page: { type: 'string', format: 'uri' } },
      required: ['url', 'page'],
    };
    const { url, page } = generateArguments(schema).value as { url: string; page: string };
    expect(url).toMatch(/^http:\/\/127\.0\.0\.1:\d{2,5}\/$/);
    expect(page).toBe(url);
    const res = await fetch(url);
    expect(res.status).toBe(404);
    expect(await res.text()).toMatch(/made up for a tool argument/);
    await release();
    await expect(fetch(url)).rejects.toThrow();
    // Outside a run: still loopback, never a public host.
    expect((generateArguments(schema).value as { url: string }).url).toMatch(/^http:\/\/127\.0\.0\.1:/);
  });

  it("a run sends a tool with a url parameter the harness's own address, never example.com", async () => {
    const r = await run(py('broken/env-failure.py'), ['--suite', 'calling']);
    const args = r.c('calling/tool/browser_navigate').details?.arguments as { url: string };
    expect(args.url).toMatch(/^http:\/\/127\.0\.0\.1:\d+\/$/);
    expect(JSON.stringify(r.report.messages)).not.toContain('https://example.com');
  }, 60_000);
});

describe('a server started again is said to be, with why', () => {
  it('server/discover kills it: the console says it was started twice and why; the report counts the restart', async () => {
    const { cli } = await import('./helpers/cli.js');
    const { mkdtempSync, readFileSync } = await import('node:fs');
    const out = mkdtempSync(join(tmpdir(), 'mcp-conform-restart-'));
    const r = await cli(['run', '--stdio', py('zoo/crashes-on-discover.py'), '--suite', 'lifecycle', '--out-dir', out]);
    expect(r.stdout).toMatch(
      /The server was started twice: server\/discover was not answered: the server exited .*code 3.*: the server was restarted and initialize offered 2025-11-25 on the fresh connection/,
    );
    expect(r.code).toBe(0);
    const report = JSON.parse(readFileSync(join(out, 'report.json'), 'utf8')) as { negotiation?: { restarts: number } };
    expect(report.negotiation?.restarts).toBe(1);
  }, 60_000);
});

describe('a server reached over HTTP that hangs on server/discover', () => {
  it('its POST gets no answer: the step says it failed (not that it was refused), initialize follows, no restart', async () => {
    const { runBroken } = await import('./http-helpers.js');
    const r = await runBroken('discover-hangs', 'lifecycle', ['--timeout', '1500']);
    expect(r.code, r.stdout).toBe(0);
    expect(r.report.negotiation).toMatchObject({ handshake: 'initialize', version: '2025-11-25', restarts: 0 });
    const m = r.report.negotiation!.steps[0]!.message;
    expect(m).toMatch(/^server\/discover failed \(.*within 1500 ms\): falling back to initialize offering 2025-11-25$/);
    expect(m).not.toMatch(/refused|restarted/);
  }, 60_000);
});
