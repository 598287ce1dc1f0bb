/**
 * Dual-era servers are judged in both eras (issue 27): a default run on a server that speaks 2026-07-28 and answers
 * initialize too judges it in 2026-07-28 and in the newest legacy version it serves, in one report whose cases name
 * their version (core/eras.ts). Proved on a broken fixture (its legacy path alone is broken), a 2026-only fixture,
 * and the TS SDK 2.x McpServer (a real dual-era server) over stdio and Streamable HTTP.
 */
import { describe, expect, it } from 'vitest';
import { mkdtempSync, readFileSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { cli, FIXTURES, py, run, runArgs } from './helpers/cli.js';
import { startServer } from './http-helpers.js';
import type { Report } from '../core/results.js';
import { renderConsole } from '../reports/console.js';

const PEER = join(FIXTURES, 'peers', 'ts-sdk2.mjs');

/** The report's log is one log: seq numbers unique and rising, every reference (messageIds, inReplyTo, HTTP exchange) resolves. */
function expectOneLog(r: Report): void {
  const seqs = r.messages.map((m) => m.seq);
  expect(seqs).toEqual([...seqs].sort((a, b) => a - b));
  expect(new Set(seqs).size).toBe(seqs.length);
  const bySeq = new Map(r.messages.map((m) => [m.seq, m]));
  for (const c of r.suites.flatMap((s) => s.cases)) for (const id of c.messageIds) expect(bySeq.has(id), `${c.id} [${c.protocolVersion}] → #${id}`).toBe(true);
  for (const m of r.messages) {
    if (m.inReplyTo === undefined) continue;
    const req = bySeq.get(m.inReplyTo);
    expect(req?.direction, `#${m.seq} answers #${m.inReplyTo}`).toBe('to-server');
    if (m.id !== null && m.id !== undefined) expect(req?.id, `#${m.seq} answers #${m.inReplyTo}`).toEqual(m.id);
  }
  const exchanges = (r.http?.exchanges ?? []) as { n: number }[];
  exchanges.forEach((x, i) => expect(x.n).toBe(i));
  for (const m of r.messages) if (m.http) expect(exchanges[m.http.exchange]?.n).toBe(m.http.exchange);
  // Each era's messages are where report.eras says.
  const [a, b] = r.eras!;
  for (const m of r.messages) {
    const era = m.seq <= a!.messages!.to ? a! : b!;
    expect(m.seq >= era.messages!.from && m.seq <= era.messages!.to).toBe(true);
  }
}

describe('a default run judges a dual-era server in both eras', () => {
  it('a server whose legacy path alone is broken fails in 2025-11-25, each case naming its version; --protocol-version 2026-07-28 judges one era', async () => {
    const r = await run(py('broken/legacy-defect.py'));
    expect(r.report.eras?.map((e) => [e.protocolVersion, e.accepted, e.handshake])).toEqual([['2026-07-28', true, 'server/discover'], ['2025-11-25', true, 'initialize']]);
    const cases = r.report.suites.flatMap((s) => s.cases);
    expect(cases.every((c) => c.protocolVersion === '2026-07-28' || c.protocolVersion === '2025-11-25')).toBe(true);
    const failing = cases.filter((c) => c.verdict === 'fail');
    expect(failing.length).toBeGreaterThan(0);
    expect(failing.every((c) => c.protocolVersion === '2025-11-25')).toBe(true);
    expect(failing.map((c) => c.id)).toContain('listing/input-schema/add');
    expect(cases.find((c) => c.id === 'listing/input-schema/add' && c.protocolVersion === '2026-07-28')?.verdict).toBe('pass');
    expect(r.report.exitCode).toBe(1);
    expect(r.code).toBe(1);
    // each era's own counts; the report's summary is both
    expect(r.report.eras![0]!.summary.fail).toBe(0);
    expect(r.report.eras![1]!.summary.fail).toBe(failing.length);
    expect(r.report.summary.fail).toBe(failing.length);
    expectOneLog(r.report);
    const legacyInit = r.report.messages.find((m) => m.direction === 'to-server' && m.method === 'initialize');
    expect(legacyInit && legacyInit.seq).toBeGreaterThanOrEqual(r.report.eras![1]!.messages!.from);

    // The console: both versions in the title, the failures marked with their era, a finding of both eras once unmarked.
    const text = renderConsole(r.report, [], { color: false });
    expect(text).toMatch(/protocol 2026-07-28 \+ 2025-11-25/);
    expect(text).toMatch(/A dual-era server: judged in 2026-07-28 and in 2025-11-25/);
    expect(text).toMatch(/✗ fail {2}listing\/input-schema\/add \[2025-11-25\] — /);
    expect(text).toMatch(/^listing .*\(2026-07-28: pass · 2025-11-25: \d+ fail\)$/m);
    expect(text.match(/- skip {2}calling\/tool\/clear_history — /g)).toHaveLength(1);

    const one = await run(py('broken/legacy-defect.py'), ['--protocol-version', '2026-07-28']);
    expect(one.report.eras).toBeUndefined();
    expect(one.report.suites.flatMap((s) => s.cases).some((c) => c.protocolVersion)).toBe(false);
    expect(one.report.exitCode).toBe(0);
  }, 120_000);

  it('a server that serves 2026-07-28 alone is judged in it only, and the report says why', async () => {
    const r = await run(py('only-2026.py'));
    expect(r.report.eras?.map((e) => [e.protocolVersion, e.accepted])).toEqual([['2026-07-28', true], ['2025-11-25', false]]);
    expect(r.report.eras![1]!.reason).toMatch(/initialize was answered with error -32601/);
    expect(r.report.suites.flatMap((s) => s.cases).some((c) => c.protocolVersion)).toBe(false);
    expect(r.report.messages.some((m) => m.method === 'initialize')).toBe(false);
    expect(r.report.exitCode).toBe(0);
    expect(renderConsole(r.report, [], { color: false })).toMatch(/Judged in 2026-07-28 only: .*offered 2025-11-25 in initialize.*not served \(initialize was answered with error -32601/);
  }, 120_000);

  it('a selection of 2026-07-28 cases alone opens no legacy era', async () => {
    const r = await run(py('calc-all.py'), ['--suite', 'protocol-2026']);
    expect(r.report.eras).toBeUndefined();
    expect(r.report.messages.some((m) => m.method === 'initialize')).toBe(false);
  }, 60_000);

  it('a run that writes files from the answers judges one era: --record (one session in the cassette), --update-expect', async () => {
    const dir = mkdtempSync(join(tmpdir(), 'mcp-conform-dual-'));
    const rec = await run(py('calc-all.py'), ['--suite', 'lifecycle', '--record', join(dir, 'session.jsonl')]);
    expect(rec.report.eras).toBeUndefined();
    expect(readFileSync(join(dir, 'session.jsonl'), 'utf8')).not.toMatch(/"method":"initialize"/);
    writeFileSync(join(dir, 'expect.yaml'), 'expectations:\n  - name: add\n    call: add\n    arguments: {a: 1, b: 2}\n    expect: {isError: false}\n');
    const upd = await run(py('calc-all.py'), ['--suite', 'expect', '--expect', join(dir, 'expect.yaml'), '--update-expect']);
    expect(upd.report.eras).toBeUndefined();
  }, 120_000);

  it('the TS SDK 2.x McpServer over stdio: judged in 2026-07-28 and 2025-11-25; its era-specific findings named so', async () => {
    const r = await run(`node ${PEER} stdio`);
    expect(r.report.eras?.map((e) => [e.protocolVersion, e.accepted])).toEqual([['2026-07-28', true], ['2025-11-25', true]]);
    const of = (id: string, v: string) => r.report.suites.flatMap((s) => s.cases).find((c) => c.id === id && c.protocolVersion === v);
    // 2026-07-28 calls an unknown resource -32602; 2025-11-25 names -32002: the same answer is a warn in the legacy era only.
    expect(of('resources/unknown-uri', '2026-07-28')?.verdict).toBe('pass');
    expect(of('resources/unknown-uri', '2025-11-25')).toMatchObject({ verdict: 'warn', spec: expect.stringContaining('/2025-11-25/') });
    expect(of('protocol-2026/stateless-after-notification', '2026-07-28')?.verdict).toBe('fail');
    expect(of('protocol-2026/stateless-after-notification', '2025-11-25')).toMatchObject({ verdict: 'skip', notApplicable: true });
    expect(of('lifecycle/initialize', '2025-11-25')?.verdict).toBe('pass');
    expectOneLog(r.report);
    // validate checks each era's messages against its own version: the log is valid; checked against 2026-07-28
    // alone, the legacy era's initialize answer (no resultType) is not.
    const file = join(r.outDir, 'report.json');
    const both = await cli(['validate', file]);
    expect([both.code, both.stdout]).toEqual([0, expect.stringMatching(/checked against protocols 2026-07-28 and 2025-11-25 \(each era's[^]*Result: all \d+ messages valid/)]);
    const one = await cli(['validate', file, '--protocol-version', '2026-07-28']);
    expect(one.code).toBe(1);
    expect(one.stdout).toMatch(/response initialize id \d+[^\n]*resultType/);
  }, 120_000);

  it('the TS SDK 2.x McpServer over Streamable HTTP: both eras on one URL, the HTTP exchanges of both in one list', async () => {
    const s = await startServer(['node', PEER, 'http']);
    try {
      const r = await runArgs(['--http', `http://127.0.0.1:${s.port}/mcp`, '--suite', 'lifecycle,listing,http,schema'], { timeoutMs: 90_000 });
      expect(r.report.eras?.map((e) => [e.protocolVersion, e.accepted])).toEqual([['2026-07-28', true], ['2025-11-25', true]]);
      const legacy = r.report.suites.flatMap((x) => x.cases).filter((c) => c.protocolVersion === '2025-11-25');
      // a legacy-era rule, judged on the legacy path (a bad MCP-Protocol-Version header must be refused)
      expect(legacy.find((c) => c.id === 'http/protocol-version-header')).toMatchObject({ verdict: 'pass' });
      expect(r.report.http!.exchanges.length).toBeGreaterThan(0);
      expectOneLog(r.report);
      // the legacy era's POSTs carry MCP-Protocol-Version 2025-11-25, the 2026-07-28 era's 2026-07-28
      const sent = r.report.messages.filter((m) => m.direction === 'to-server' && m.http?.protocolVersion);
      expect(new Set(sent.filter((m) => m.seq > r.report.eras![0]!.messages!.to).map((m) => m.http!.protocolVersion))).toEqual(new Set(['2025-11-25']));
    } finally { await s.stop(); }
  }, 120_000);

  it('--all-versions is unchanged: a matrix, one version per report, no eras', async () => {
    const r = await run(py('calc-all.py'), ['--all-versions', '--suite', 'lifecycle']);
    expect(r.code).toBe(0);
    expect(r.report.matrix).toHaveLength(5);
    expect(r.report.eras).toBeUndefined();
    expect(r.report.suites.flatMap((s) => s.cases).some((c) => c.protocolVersion)).toBe(false);
  }, 180_000);
});
