/**
 * Verdicts a second audit on real servers found wrong or misleading, each pinned on a deliberately broken fixture
 * (fixtures/servers/broken, fixtures/servers/http): what the case says and what it gives.
 */
import { describe, expect, it } from 'vitest';
import { join } from 'node:path';
import { FIXTURES, runArgs, runBroken, startServer } from './http-helpers.js';
import { cli, py, run } from './helpers/cli.js';

describe('2026-07-28 statelessness: a notification must not change how requests are served', () => {
  it('a server that takes a notification without version _meta for a legacy opening fails robustness/unknown-notification; the 1 MiB request is inconclusive, not "refused"', async () => {
    const r = await run(py('broken/legacy-after-notification.py'), ['--suite', 'lifecycle,robustness']);
    const n = r.c('robustness/unknown-notification');
    expect(n.verdict, n.message).toBe('fail');
    expect(n.message).toMatch(/server\/discover was answered with error code -32601 .*where it had succeeded before/);
    const big = r.c('robustness/large-request');
    expect(big.verdict, big.message).toBe('skip');
    expect(big.message).toMatch(/^inconclusive: .*and so was the small server\/discover request after it/);
    // The probes after it say that the heartbeat was an error answer, not that the server "still answers"; those
    // before it (in 2026-07-28 the notification goes out at its turn) met the server as it was.
    expect(r.c('robustness/duplicate-id').message).toMatch(
      /still answers server\/discover, though with error code -32601/,
    );
    expect(r.c('robustness/invalid-json').message).toMatch(/the server still answers server\/discover$/);
    // The same defect, probed on a fresh connection by the protocol-2026 suite.
    const fresh = await run(py('broken/legacy-after-notification.py'), ['--suite', 'lifecycle,protocol-2026']);
    expect(fresh.c('protocol-2026/stateless-after-notification')).toMatchObject({
      verdict: 'fail',
      message: expect.stringMatching(/second server\/discover got error code -32601/),
    });
  }, 60_000);
});

describe('a size limit: a 1 MiB request refused with HTTP 413', () => {
  it('robustness/large-request reports the refusal (info: no MCP or JSON-RPC rule sets a size), and the server keeps serving', async () => {
    const r = await runBroken('size-limit', 'lifecycle,robustness');
    const big = r.c('robustness/large-request');
    expect(big.verdict, big.message).toBe('info');
    expect(big.message).toMatch(
      /^a ping request of 10\d{5} bytes \(id .*\) was refused with HTTP 413.*the small ping request after it was answered.*limits a request's size/,
    );
    expect(r.c('robustness/unknown-notification').verdict).toBe('pass');
  }, 60_000);
});

describe('Streamable HTTP: unparsable JSON answered with a server error', () => {
  it('HTTP 500 carrying -32700: http/invalid-json and robustness/invalid-json agree (warn), and neither says "no JSON-RPC error"', async () => {
    const r = await runBroken('json-500', 'lifecycle,http,robustness');
    const h = r.c('http/invalid-json');
    const b = r.c('robustness/invalid-json');
    expect([h.verdict, b.verdict], `${h.message}\n${b.message}`).toEqual(['warn', 'warn']);
    expect(h.message).toMatch(/HTTP 500.*error -32700/);
    expect(b.message).toMatch(/HTTP 500.*-32700/);
    expect(h.message + b.message).not.toContain('no JSON-RPC error');
  }, 60_000);
});

describe('a listing refused because the environment lacks something', () => {
  it('-32603 "fetch failed" / ECONNREFUSED is inconclusive (skip), as invalid-params rules such cases; an internal error that blames nothing outside still fails', async () => {
    const r = await run(py('broken/list-env-failure.py'), ['--suite', 'listing,resources,prompts']);
    for (const id of ['listing/tools-list', 'resources/list']) {
      expect(r.c(id).verdict, r.c(id).message).toBe('skip');
      expect(r.c(id).message).toMatch(/^inconclusive: .* -32603 "fetch failed".*environment/);
    }
    expect(r.c('prompts/list').verdict).toBe('fail');
    expect(r.code).toBe(1);
  }, 60_000);
});

describe('HTTP+SSE: the Origin of the stream request', () => {
  const sseHttp = join(FIXTURES, 'http', 'sse_http.py');
  it('a stream opened for any Origin fails sse/origin (as http/origin fails the same server over Streamable HTTP); a 403 passes', async () => {
    for (const [mode, verdict] of [
      ['any-origin', 'fail'],
      ['good', 'pass'],
    ] as const) {
      const s = await startServer(['python3', sseHttp, mode]);
      try {
        const r = await runArgs(['--sse', `http://127.0.0.1:${s.port}/sse`, '--suite', 'lifecycle,sse'], {
          timeoutMs: 60_000,
        });
        const c = r.c('sse/origin');
        expect(c.verdict, c.message).toBe(verdict);
        expect(c.message).toMatch(
          verdict === 'fail'
            ? /Origin: http:\/\/mcp-conform-foreign\.invalid opened a stream .*first event "endpoint".*DNS rebinding/
            : /→ 403/,
        );
        const ex = (
          r.report.http!.exchanges as { purpose: string; method: string; requestHeaders: Record<string, string> }[]
        ).filter((x) => x.purpose === 'probe' && x.method === 'GET');
        expect(ex.map((x) => x.requestHeaders.Origin)).toEqual(['http://mcp-conform-foreign.invalid']);
      } finally {
        await s.stop();
      }
    }
  }, 90_000);
});

describe('read-only tools that reach the outside world', () => {
  const openWorld = py('safety/open-world.py');
  const called = (r: Awaited<ReturnType<typeof run>>) =>
    [
      ...new Set(
        r.report.messages
          .filter((m) => m.direction === 'to-server' && m.method === 'tools/call')
          .map((m) => (m.json as { params?: { name?: unknown } }).params?.name)
          .filter(
            (n): n is string =>
              typeof n === 'string' && ['lookup_local', 'web_search', 'fetch_url', 'note'].includes(n),
          ),
      ),
    ].sort();

  it('the default run says how many it calls (calling/open-world, info; report.openWorldTools); --call-tools safe-closed calls only those annotated openWorldHint: false', async () => {
    const [safe, closed] = await Promise.all([
      run(openWorld, ['--suite', 'calling,invalid-params']),
      run(openWorld, ['--suite', 'calling,invalid-params', '--call-tools', 'safe-closed']),
    ]);
    expect(called(safe)).toEqual(['fetch_url', 'lookup_local', 'web_search']);
    expect(safe.c('calling/open-world')).toMatchObject({
      verdict: 'info',
      message: expect.stringMatching(
        /^2 of the 3 tools the run calls may reach the outside world .*web_search, fetch_url.*--call-tools safe-closed/,
      ),
    });
    expect(safe.report.openWorldTools).toEqual(['web_search', 'fetch_url']);

    expect(called(closed)).toEqual(['lookup_local']);
    expect(closed.report.options.callTools).toBe('safe-closed');
    expect(closed.c('calling/tool/web_search')).toMatchObject({
      verdict: 'skip',
      message: expect.stringMatching(
        /--call-tools safe-closed calls only read-only tools annotated openWorldHint: false; no openWorldHint \(it defaults to true/,
      ),
    });
    expect(closed.c('calling/tool/fetch_url').message).toMatch(/openWorldHint is true/);
    expect(closed.c('calling/tool/note').message).toMatch(
      /--call-tools safe-closed calls only tools annotated readOnlyHint: true \(and openWorldHint: false\); no annotations/,
    );
    expect(closed.c('calling/open-world')).toMatchObject({
      verdict: 'pass',
      message: 'none of the 1 tool the run calls may reach the outside world: each is annotated openWorldHint: false',
    });
    expect(closed.report.openWorldTools).toBeUndefined();
    expect(closed.code).toBe(0);
  }, 60_000);

  it('a policy that is not one of safe, safe-closed, all, none is a usage error', async () => {
    const r = await cli(['run', '--stdio', openWorld, '--call-tools', 'closed']);
    expect(r.code).toBe(2);
    expect(r.stderr).toMatch(/safe-closed/);
  }, 30_000);
});

describe('capabilities/undeclared-refused probes every method of an undeclared capability', () => {
  it('completion/complete answered {"result": null} and prompts/get served by a server that declares neither: warn, each named', async () => {
    const r = await run(py('broken/completion-undeclared-null.py'), ['--suite', 'capabilities']);
    const c = r.c('capabilities/undeclared-refused');
    expect(c.verdict, c.message).toBe('warn');
    expect(c.message).toMatch(/completion\/complete \(completions not declared\) answered a result: null/);
    expect(c.message).toMatch(/prompts\/get \(prompts not declared\) answered a result/);
    const sent = r.report.messages
      .filter((m) => m.direction === 'to-server' && m.kind === 'request')
      .map((m) => m.method);
    for (const m of [
      'resources/list',
      'resources/templates/list',
      'resources/read',
      'resources/subscribe',
      'prompts/list',
      'prompts/get',
      'completion/complete',
      'logging/setLevel',
    ])
      expect(sent).toContain(m);
  }, 60_000);
});

describe('2026-07-28 requests and results (protocol-2026 suite)', () => {
  it('a loose 2026-only server: -32602 for an unserved version, a request without _meta served, clientInfo required, no serverInfo, unrequested log messages, any logLevel accepted', async () => {
    const r = await run(py('broken/loose-2026.py'), ['--suite', 'lifecycle,listing,protocol-2026']);
    expect(r.verdicts('protocol-2026/')).toEqual({
      'protocol-2026/unsupported-version': 'fail',
      'protocol-2026/missing-meta': 'fail',
      'protocol-2026/client-info-optional': 'fail',
      'protocol-2026/server-info': 'warn',
      'protocol-2026/log-unrequested': 'fail',
      'protocol-2026/log-level-unknown': 'warn',
      'protocol-2026/log-level-floor': 'warn',
      'protocol-2026/stateless-after-notification': 'pass',
    });
    expect(r.c('protocol-2026/unsupported-version').message).toMatch(
      /"1999-01-01": error code -32602 "bad version"; expected error -32022/,
    );
    expect(r.c('protocol-2026/client-info-optional').message).toMatch(/clientInfo is required/);
    // each probe went to a fresh process, with exactly the _meta the case meant
    const sent = (r.c('protocol-2026/missing-meta').details as { secondConnection: string[] }).secondConnection[0]!;
    expect(sent).not.toContain('_meta');
  }, 90_000);

  it('a conformant dual-era server (calc-all.py): -32022 with data.supported; a request without _meta served as a legacy one is a warn, not a fail', async () => {
    const r = await run(py('calc-all.py'), ['--suite', 'lifecycle,protocol-2026']);
    expect(r.verdicts('protocol-2026/')).toMatchObject({
      'protocol-2026/unsupported-version': 'pass',
      'protocol-2026/missing-meta': 'warn',
      'protocol-2026/client-info-optional': 'pass',
      'protocol-2026/server-info': 'pass',
      'protocol-2026/log-unrequested': 'pass',
    });
    expect(r.c('protocol-2026/unsupported-version').message).toMatch(/-32022 .*data\.supported \[.*"2026-07-28"\]/);
    expect(r.c('protocol-2026/missing-meta').message).toMatch(/also serves 2024-11-05, .*legacy client's request/);
  }, 90_000);
});

describe('tools that fail offline: the run called them, they gave no result', () => {
  it('quality/result-size says the calls were answered with JSON-RPC errors, not that no tool was called; a "progressive" chart is no long-running tool (a chart server offline)', async () => {
    const r = await run(py('broken/offline-api.py'), ['--suite', 'calling,progress,quality']);
    // The engine's environment rule: the warn for a JSON-RPC error rests on an error that blames the network.
    expect(r.c('calling/tool/generate_bar_chart')).toMatchObject({
      verdict: 'skip',
      message: expect.stringMatching(
        /^inconclusive: .*ENOTFOUND.*the case would have said warn: answered with a JSON-RPC error code -32603 "Failed to generate chart/,
      ),
    });
    const size = r.c('quality/result-size');
    expect(size.verdict, size.message).toBe('skip');
    expect(size.message).toBe(
      'no tool result was seen (the 3 calls of 3 tools the run made got no result: 3 answered with a JSON-RPC error; see calling/tool/<tool>)',
    );
    expect(size.message).not.toMatch(/no tool was called/);
    // "the progressive reduction of data" (a funnel chart) does not make a tool look long-running.
    expect(r.c('progress/notifications')).toMatchObject({
      verdict: 'skip',
      message: expect.stringMatching(/^no callable tool looks long-running/),
    });
    // A run that calls nothing still says so.
    const none = await run(py('broken/offline-api.py'), ['--suite', 'calling,quality', '--call-tools', 'none']);
    expect(none.c('quality/result-size').message).toMatch(/\(no tool was called: see --call-tools \/ --call-tool\)$/);
  }, 60_000);
});

describe('prompts/get without the optional arguments field', () => {
  it('a prompt refused when "arguments" is left out but served with {} fails, and the message says what to fix (git-mcp-server on the TS SDK 1.x)', async () => {
    const r = await run(py('broken/prompt-args-omitted.py'), ['--suite', 'prompts']);
    const w = r.c('prompts/get/wrapup');
    expect(w.verdict, w.message).toBe('fail');
    expect(w.message).toMatch(
      /^prompts\/get "wrapup" with no arguments answered with error code -32602 .*though with "arguments": \{\} it is served: the server refuses a request that leaves out the optional arguments field/,
    );
    // The request the verdict rests on left the field out; the second one sent {}.
    const gets = r.report.messages.filter(
      (m) =>
        m.direction === 'to-server' &&
        (m.json as { method?: string }).method === 'prompts/get' &&
        (m.json as { params: { name: string } }).params.name === 'wrapup',
    );
    expect(gets.map((m) => (m.json as { params: Record<string, unknown> }).params.arguments)).toEqual([undefined, {}]);
    expect(r.c('prompts/get/greet').verdict).toBe('pass');
  }, 60_000);
});

describe('Streamable HTTP: a request without the session id answered with a server error', () => {
  it('HTTP 500 is a warn that says "server error, not a refusal", not "was not refused" (git-mcp-server 2.15.3)', async () => {
    const r = await runBroken('session-500', 'lifecycle,http');
    const c = r.c('http/session-id/required');
    expect(c.verdict, c.message).toBe('warn');
    expect(c.message).toMatch(
      /^a ping without Mcp-Session-Id got a server error, not a refusal: HTTP 500 .*the spec asks for 400$/,
    );
    expect(c.message).not.toContain('was not refused');
  }, 60_000);
});
