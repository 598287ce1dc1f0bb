import { describe, expect, it } from 'vitest';
import { applyBaseline, parseBaseline } from '../core/baseline.js';
import { fmtDuration, progressPrinter, renderConsole, wantProgress } from '../reports/console.js';
import { kase, makeReport, message } from './helpers/report.js';

describe('console report', () => {
  const failing = () => {
    const req = message(4, { jsonrpc: '2.0', id: 2, method: 'tools/list' }, { direction: 'to-server', kind: 'request', method: 'tools/list' });
    const res = message(5, { jsonrpc: '2.0', id: 2, result: { tools: [{ name: 'x' }] } }, {
      method: 'tools/list', schema: { checked: true, valid: false, violations: [{ pointer: '/result/tools/0', message: 'missing required property "inputSchema"' }] },
    });
    return makeReport([kase('lifecycle/ping', 'pass'), kase('schema/from-server/tools/list', 'fail', { messageIds: [4, 5], durationMs: 1500 })], { messages: [req, res] });
  };

  it('plain: a line per case, durations of suites and slow cases, counts per verdict, report files, result', () => {
    const text = renderConsole({ runs: [failing()] }, ['/out/report.json'], { color: false });
    expect(text).not.toContain('\x1b[');
    expect(text).toContain('  ✓ pass  lifecycle/ping — pass message of lifecycle/ping\n');
    expect(text).toContain('  ✗ fail  schema/from-server/tools/list — fail message of schema/from-server/tools/list (1.5 s)');
    expect(text).toContain('lifecycle  Suite lifecycle  3 ms');
    expect(text).toMatch(/Summary: 1 pass, 0 warn, 1 fail, 0 skip, 0 info · 2 messages validated · 0\.8 s\nReports: \/out\/report\.json\nResult: 1 failing case\n$/);
    expect(text).not.toContain('→ #4'); // exchanges only with --verbose
  });

  it('--verbose prints the exchange of each failing case, with the violations', () => {
    const text = renderConsole({ runs: [failing()] }, [], { color: false, verbose: true });
    expect(text).toContain('        → #4 {"jsonrpc":"2.0","id":2,"method":"tools/list"}\n        ← #5 {"jsonrpc":"2.0","id":2,"result":{"tools":[{"name":"x"}]}}\n          ✗ /result/tools/0 missing required property "inputSchema"');
    expect(text).toContain('lifecycle/ping — pass message of lifecycle/ping (2 ms)');
  });

  it('baselined failures and stale entries', () => {
    const r = failing();
    applyBaseline([r], parseBaseline('- id: schema\n  reason: old SDK\n- lifecycle/ping\n', '/b.yaml'));
    const text = renderConsole(r, [], false);
    expect(text).toContain('  ~ fail  schema/from-server/tools/list');
    expect(text).toContain('known failure (baseline entry schema: old SDK)');
    expect(text).toContain('Baseline /b.yaml: 1 of 2 entries excused 1 failing case');
    expect(text).toContain('  ! stale  lifecycle/ping — no failure any more (lifecycle/ping: pass): remove it from the baseline');
    expect(text).toContain('1 fail (1 baselined)');
    expect(text).toMatch(/Result: no failures \(1 known failure in the baseline; 1 stale baseline entry\)\n$/);
  });

  it('several targets: a block each, then the totals', () => {
    const a = makeReport([kase('lifecycle/ping', 'pass')], { name: 'alpha' });
    const b = failing();
    b.target.name = 'beta';
    const text = renderConsole({ runs: [a, b] }, ['/o/report.json'], { color: false });
    expect(text).toContain('mcp-conform 0.1.0 · alpha: demo 1.0.0 over stdio');
    expect(text).toContain('mcp-conform 0.1.0 · beta: demo 1.0.0 over stdio');
    expect(text).toMatch(/All targets: 2 pass, 0 warn, 1 fail, 0 skip, 0 info · 2 targets · .*\n {2}✓ alpha\n {2}✗ beta\nReports: \/o\/report.json\nResult: 1 failing case\n$/);
  });

  it('colour only when asked', () => {
    expect(renderConsole(failing(), [], true)).toContain('\x1b[31m');
  });
});

describe('progress', () => {
  it('a line per suite and phase, with counts and time', () => {
    let out = '';
    const p = progressPrinter((s) => (out += s), false, 'python3 calc.py');
    const r = failing2();
    p(r.suites[0], 'session', r.suites[0].cases);
    p(r.suites[1], 'session', []);
    p(r.suites[1], 'after-shutdown', r.suites[1].cases);
    const lines = out.split('\n');
    expect(lines[0]).toBe('Testing python3 calc.py');
    expect(lines[1]).toMatch(/^ {2}▸ lifecycle {14}1 pass, 1 info {2}\d+ ms$/);
    expect(lines[2]).toMatch(/^ {2}▸ schema \(log\) {11}1 fail {2}\d+ ms$/);
    expect(lines).toHaveLength(4);
  });

  it('only on a TTY, never in CI', () => {
    const tty = { isTTY: true } as NodeJS.WriteStream;
    expect(wantProgress(tty, {})).toBe(true);
    expect(wantProgress(tty, { CI: 'true' })).toBe(false);
    expect(wantProgress(tty, { GITHUB_ACTIONS: 'true' })).toBe(false);
    expect(wantProgress({ isTTY: false } as NodeJS.WriteStream, {})).toBe(false);
  });

  it('durations read well', () => {
    expect([fmtDuration(0.4), fmtDuration(999), fmtDuration(1500), fmtDuration(-1)]).toEqual(['0 ms', '999 ms', '1.5 s', '']);
  });
});

function failing2() {
  return makeReport([kase('lifecycle/ping', 'pass'), kase('lifecycle/shutdown', 'info'), kase('schema/from-server/x', 'fail')]);
}
