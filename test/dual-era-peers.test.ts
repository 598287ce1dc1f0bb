/**
 * The TS SDK 2.x McpServer, a real dual-era server, is judged in both eras over stdio and Streamable HTTP, in one
 * report whose cases name their version. The same on our fixtures: test/dual-era.test.ts.
 */
import { join } from 'node:path';
import { describe, expect, it } from 'vitest';
import { cli, FIXTURES, run, runArgs } from './helpers/cli.js';
import { expectOneLog } from './helpers/one-log.js';
import { startServer } from './http-helpers.js';

const PEER = join(FIXTURES, 'peers', 'ts-sdk2.mjs');

describe('a default run judges the TS SDK 2.x McpServer in both eras', () => {
  it('the TS SDK 2.x McpServer over stdio: judged in 2026-07-28 and 2025-11-25; its era-specific findings named so', async () => {
    const r = await run(`node ${PEER} stdio`);
    expect(r.report.eras?.map((e) => [e.protocolVersion, e.accepted])).toEqual([
      ['2026-07-28', true],
      ['2025-11-25', true],
    ]);
    const of = (id: string, v: string) =>
      r.report.suites.flatMap((s) => s.cases).find((c) => c.id === id && c.protocolVersion === v);
    // 2026-07-28 calls an unknown resource -32602; 2025-11-25 names -32002: the same answer is a warn in the legacy era only.
    expect(of('resources/unknown-uri', '2026-07-28')?.verdict).toBe('pass');
    expect(of('resources/unknown-uri', '2025-11-25')).toMatchObject({
      verdict: 'warn',
      spec: expect.stringContaining('/2025-11-25/'),
    });
    expect(of('protocol-2026/stateless-after-notification', '2026-07-28')?.verdict).toBe('fail');
    expect(of('protocol-2026/stateless-after-notification', '2025-11-25')).toMatchObject({
      verdict: 'skip',
      notApplicable: true,
    });
    expect(of('lifecycle/initialize', '2025-11-25')?.verdict).toBe('pass');
    expectOneLog(r.report);
    // validate checks each era's messages against its own version: the log is valid; checked against 2026-07-28
    // alone, the legacy era's initialize answer (no resultType) is not.
    const file = join(r.outDir, 'report.json');
    const both = await cli(['validate', file]);
    expect([both.code, both.stdout]).toEqual([
      0,
      expect.stringMatching(
        /checked against protocols 2026-07-28 and 2025-11-25 \(each era's[\s\S]*Result: all \d+ messages valid/,
      ),
    ]);
    const one = await cli(['validate', file, '--protocol-version', '2026-07-28']);
    expect(one.code).toBe(1);
    expect(one.stdout).toMatch(/response initialize id \d+[^\n]*resultType/);
  }, 120_000);

  it('the TS SDK 2.x McpServer over Streamable HTTP: both eras on one URL, the HTTP exchanges of both in one list', async () => {
    const s = await startServer(['node', PEER, 'http']);
    try {
      const r = await runArgs(
        ['--http', `http://127.0.0.1:${s.port}/mcp`, '--suite', 'lifecycle,listing,http,schema'],
        { timeoutMs: 90_000 },
      );
      expect(r.report.eras?.map((e) => [e.protocolVersion, e.accepted])).toEqual([
        ['2026-07-28', true],
        ['2025-11-25', true],
      ]);
      const legacy = r.report.suites.flatMap((x) => x.cases).filter((c) => c.protocolVersion === '2025-11-25');
      // a legacy-era rule, judged on the legacy path (a bad MCP-Protocol-Version header must be refused)
      expect(legacy.find((c) => c.id === 'http/protocol-version-header')).toMatchObject({ verdict: 'pass' });
      expect(r.report.http!.exchanges.length).toBeGreaterThan(0);
      expectOneLog(r.report);
      // the legacy era's POSTs carry MCP-Protocol-Version 2025-11-25, the 2026-07-28 era's 2026-07-28
      const sent = r.report.messages.filter((m) => m.direction === 'to-server' && m.http?.protocolVersion);
      expect(
        new Set(sent.filter((m) => m.seq > r.report.eras![0]!.messages!.to).map((m) => m.http!.protocolVersion)),
      ).toEqual(new Set(['2025-11-25']));
    } finally {
      await s.stop();
    }
  }, 120_000);
});
