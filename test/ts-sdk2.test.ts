/**
 * The TypeScript SDK 2.x (`@modelcontextprotocol/server`), the stable line that implements 2026-07-28, as a real
 * peer: an `McpServer` over stdio (`serveStdio`) and over Streamable HTTP (`createMcpHandler`), in
 * fixtures/servers/peers/ts-sdk2.mjs. What the 2026-07-28 cases make of it.
 */
import { describe, expect, it } from 'vitest';
import { join } from 'node:path';
import { FIXTURES, runArgs, startServer } from './http-helpers.js';
import { run } from './helpers/cli.js';

const PEER = join(FIXTURES, 'peers', 'ts-sdk2.mjs');
const MRTR_PEER = join(FIXTURES, 'peers', 'ts-sdk2-mrtr.mjs');
const MRTR_CASES = [
  'surface-2026/input-required-rounds',
  'surface-2026/input-missing-reasked',
  'surface-2026/input-state-tampered',
  'surface-2026/input-extra-ignored',
  'surface-2026/input-responses-checked',
  'protocol-2026/log-level-floor',
  'protocol-2026/log-unrequested',
  'resources/unknown-uri',
];

describe('TS SDK 2.x McpServer', () => {
  it('stdio: served in 2026-07-28; a notification without _meta opening a connection pins it to the legacy era (protocol-2026/stateless-after-notification fails), and the rest of the run is not dragged along', async () => {
    const r = await run(`node ${PEER} stdio`, [
      '--suite',
      'lifecycle,listing,calling,protocol-2026,robustness,surface-2026,schema',
    ]);
    expect(r.report.options.protocolVersionInForce).toBe('2026-07-28');
    expect(r.c('protocol-2026/stateless-after-notification')).toMatchObject({
      verdict: 'fail',
      message: expect.stringMatching(/second server\/discover got error code -32601/),
    });
    expect(r.c('protocol-2026/unsupported-version')).toMatchObject({
      verdict: 'pass',
      message: expect.stringMatching(/-32022 .*data\.supported \["2026-07-28"\]/),
    });
    // A request without _meta as the opening message is served as a legacy client's: a deviation, said as such.
    expect(r.c('protocol-2026/missing-meta')).toMatchObject({
      verdict: 'warn',
      message: expect.stringMatching(/no resultType: the server took it for a legacy/),
    });
    expect(r.c('protocol-2026/client-info-optional').verdict).toBe('pass');
    expect(r.c('protocol-2026/server-info').verdict).toBe('pass');
    // The unknown notification goes out at its turn in 2026-07-28: the suites before it see the 2026-07-28 server.
    for (const id of [
      'lifecycle/result-type',
      'surface-2026/cache-hints',
      'schema/from-server/tools/list',
      'robustness/unknown-notification',
    ])
      expect(r.c(id).verdict, `${id}: ${r.c(id).message}`).toBe('pass');
  }, 120_000);

  it("stdio and Streamable HTTP, input asked by multi round-trip requests with the SDK's HMAC requestState codec, and logging through the SDK: every altered retry handled, no log message below the level asked for", async () => {
    const args = [
      '--protocol-version',
      '2026-07-28',
      '--suite',
      'calling,resources,surface-2026,protocol-2026',
      '--client-capabilities',
      'sampling,elicitation,roots',
    ];
    const s = await startServer(['node', MRTR_PEER, 'http']);
    try {
      const [stdio, http] = await Promise.all([
        run(`node ${MRTR_PEER} stdio`, args),
        runArgs(['--http', `http://127.0.0.1:${s.port}/mcp`, ...args], { timeoutMs: 90_000 }),
      ]);
      for (const r of [stdio, http]) {
        for (const id of MRTR_CASES) expect(r.c(id).verdict, `${id}: ${r.c(id).message}`).toBe('pass');
        expect(r.c('surface-2026/input-state-tampered').message).toMatch(
          /requestState altered in one character .*: error code -32602 "Invalid or expired requestState"/,
        );
        expect(r.c('surface-2026/input-responses-checked').message).toMatch(
          /as the answer to "proceed": (input_required again|error code -32602)/,
        );
        expect(r.c('protocol-2026/log-level-floor').message).toMatch(
          /^tools\/call chatty with logLevel "info": 3 notifications\/message, none below "info"; at "debug" it sent 4 message\(s\) \(debug, info, warning, error\)/,
        );
      }
    } finally {
      await s.stop();
    }
  }, 180_000);

  it('Streamable HTTP: -32022 and -32602 with 400, every header mismatch 400 -32020, lower-case header names and a Base64 Mcp-Name understood, unknown method 404', async () => {
    const s = await startServer(['node', PEER, 'http']);
    try {
      const r = await runArgs(['--http', `http://127.0.0.1:${s.port}/mcp`, '--suite', 'lifecycle,http,protocol-2026'], {
        timeoutMs: 90_000,
      });
      expect(r.verdicts('protocol-2026/')).toMatchObject({
        'protocol-2026/unsupported-version': 'pass',
        'protocol-2026/missing-meta': 'pass',
        'protocol-2026/client-info-optional': 'pass',
        'protocol-2026/stateless-after-notification': 'pass',
        'protocol-2026/server-info': 'pass',
        'protocol-2026/log-unrequested': 'pass',
      });
      expect(r.c('protocol-2026/unsupported-version').message).toMatch(/HTTP 400 with error code -32022/);
      expect(r.c('http/2026/header-mismatch')).toMatchObject({
        verdict: 'pass',
        message: expect.stringMatching(
          /MCP-Protocol-Version: 2025-11-25 .*HTTP 400 with error -32020; Mcp-Name: .*HTTP 400 with error -32020/,
        ),
      });
      expect(r.c('http/2026/header-forms').verdict, r.c('http/2026/header-forms').message).toBe('pass');
      expect(r.c('http/2026/unknown-method').verdict).toBe('pass');
      // mounted bare (the SDK leaves Origin checks to the code in front of it): http/origin fails
      expect(r.c('http/origin').verdict).toBe('fail');
    } finally {
      await s.stop();
    }
  }, 120_000);
});
