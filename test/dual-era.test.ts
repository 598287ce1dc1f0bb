/**
 * Dual-era servers are judged in both eras: a default run on a server that speaks 2026-07-28 and answers
 * initialize too judges it in 2026-07-28 and in the newest legacy version it serves, in one report whose cases name
 * their version (core/eras.ts). Proved on a broken fixture (its legacy path alone is broken) and a 2026-only fixture;
 * on the TS SDK 2.x McpServer (a real dual-era server) over stdio and Streamable HTTP: test/dual-era-peers.test.ts.
 */
import { describe, expect, it } from 'vitest';
import { mkdtempSync, readFileSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { py, run } from './helpers/cli.js';
import { expectOneLog } from './helpers/one-log.js';
import { renderConsole } from '../reports/console.js';

describe('a default run judges a dual-era server in both eras', () => {
  it('a server whose legacy path alone is broken fails in 2025-11-25, each case naming its version; --protocol-version 2026-07-28 judges one era', async () => {
    const r = await run(py('broken/legacy-defect.py'));
    expect(r.report.eras?.map((e) => [e.protocolVersion, e.accepted, e.handshake])).toEqual([
      ['2026-07-28', true, 'server/discover'],
      ['2025-11-25', true, 'initialize'],
    ]);
    const cases = r.report.suites.flatMap((s) => s.cases);
    expect(cases.every((c) => c.protocolVersion === '2026-07-28' || c.protocolVersion === '2025-11-25')).toBe(true);
    const failing = cases.filter((c) => c.verdict === 'fail');
    expect(failing.length).toBeGreaterThan(0);
    expect(failing.every((c) => c.protocolVersion === '2025-11-25')).toBe(true);
    expect(failing.map((c) => c.id)).toContain('listing/input-schema/add');
    expect(cases.find((c) => c.id === 'listing/input-schema/add' && c.protocolVersion === '2026-07-28')?.verdict).toBe(
      'pass',
    );
    expect(r.report.exitCode).toBe(1);
    expect(r.code).toBe(1);
    // each era's own counts; the report's summary is both
    expect(r.report.eras![0]!.summary.fail).toBe(0);
    expect(r.report.eras![1]!.summary.fail).toBe(failing.length);
    expect(r.report.summary.fail).toBe(failing.length);
    expectOneLog(r.report);
    const legacyInit = r.report.messages.find((m) => m.direction === 'to-server' && m.method === 'initialize');
    expect(legacyInit?.seq).toBeGreaterThanOrEqual(r.report.eras![1]!.messages!.from);

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
    expect(r.report.eras?.map((e) => [e.protocolVersion, e.accepted])).toEqual([
      ['2026-07-28', true],
      ['2025-11-25', false],
    ]);
    expect(r.report.eras![1]!.reason).toMatch(/initialize was answered with error -32601/);
    expect(r.report.suites.flatMap((s) => s.cases).some((c) => c.protocolVersion)).toBe(false);
    expect(r.report.messages.some((m) => m.method === 'initialize')).toBe(false);
    expect(r.report.exitCode).toBe(0);
    expect(renderConsole(r.report, [], { color: false })).toMatch(
      /Judged in 2026-07-28 only: .*offered 2025-11-25 in initialize.*not served \(initialize was answered with error -32601/,
    );
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
    writeFileSync(
      join(dir, 'expect.yaml'),
      'expectations:\n  - name: add\n    call: add\n    arguments: {a: 1, b: 2}\n    expect: {isError: false}\n',
    );
    const upd = await run(py('calc-all.py'), [
      '--suite',
      'expect',
      '--expect',
      join(dir, 'expect.yaml'),
      '--update-expect',
    ]);
    expect(upd.report.eras).toBeUndefined();
  }, 120_000);

  it('--all-versions is unchanged: a matrix, one version per report, no eras', async () => {
    const r = await run(py('calc-all.py'), ['--all-versions', '--suite', 'lifecycle']);
    expect(r.code).toBe(0);
    expect(r.report.matrix).toHaveLength(5);
    expect(r.report.eras).toBeUndefined();
    expect(r.report.suites.flatMap((s) => s.cases).some((c) => c.protocolVersion)).toBe(false);
  }, 180_000);
});
