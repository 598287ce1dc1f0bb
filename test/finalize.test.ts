/** finalizeReport: the one step that makes a report final (--strict, baseline, interrupt, summary, exit code). */
import { describe, expect, it } from 'vitest';
import { parseBaseline } from '../core/baseline.js';
import { finalizeReport } from '../core/finalize.js';
import { kase, makeReport } from './helpers/report.js';

describe('finalizeReport', () => {
  it('--strict: every warn becomes a fail marked strictFromWarn; the summary and exit code follow; twice is the same', () => {
    const r = makeReport([kase('lifecycle/ping', 'pass'), kase('listing/cursor', 'warn')], { strict: true });
    expect(r.exitCode).toBe(0);
    finalizeReport(r);
    const c = r.suites[1]!.cases[0]!;
    expect(c).toMatchObject({ verdict: 'fail', strictFromWarn: true });
    expect(r.summary).toMatchObject({ pass: 1, warn: 0, fail: 1, total: 2 });
    expect(r.exitCode).toBe(1);
    const once = JSON.stringify(r);
    finalizeReport(r);
    expect(JSON.stringify(r)).toBe(once);
  });

  it('without --strict a warn stays a warn (exit 0); strict: true in the options turns it on', () => {
    const r = makeReport([kase('listing/cursor', 'warn')]);
    finalizeReport(r);
    expect([r.suites[0]!.cases[0]!.verdict, r.exitCode]).toEqual(['warn', 0]);
    finalizeReport(r, { strict: true });
    expect([r.suites[0]!.cases[0]!.verdict, r.exitCode, r.options.strict]).toEqual(['fail', 1, true]);
  });

  it('a baseline over several reports: excused failures, exit codes per report', () => {
    const a = makeReport([kase('stdio/utf8', 'fail')], { name: 'alpha' });
    const b = makeReport([kase('stdio/utf8', 'fail'), kase('lifecycle/ping', 'fail')], { name: 'beta' });
    finalizeReport([a, b], { baseline: parseBaseline('- stdio/utf8\n', 'b.yaml') });
    expect([a.exitCode, b.exitCode]).toEqual([0, 1]);
    expect([a.summary.baselined, b.summary.baselined]).toEqual([1, 1]);
  });

  it('an interrupted run: 130, or 143 for SIGTERM, whatever the verdicts and the baseline', () => {
    const r = makeReport([kase('lifecycle/ping', 'pass')]);
    finalizeReport(r, { signal: AbortSignal.abort('SIGINT') });
    expect(r.exitCode).toBe(130);
    finalizeReport(r, { baseline: parseBaseline('- lifecycle\n', 'b') });
    expect(r.exitCode).toBe(130);
    const t = makeReport([kase('lifecycle/ping', 'pass')]);
    finalizeReport(t, { signal: AbortSignal.abort('SIGTERM') });
    expect(t.exitCode).toBe(143);
  });

  it('a run that ended early fails; --all-versions fails when no version was accepted', () => {
    const r = makeReport([kase('lifecycle/ping', 'pass')]);
    r.aborted = 'the server exited';
    finalizeReport(r);
    expect(r.exitCode).toBe(1);
    const m = makeReport([kase('lifecycle/ping', 'pass')]);
    m.matrix = [{ protocolVersion: '2025-11-25', accepted: false, reason: 'no', summary: m.summary, suites: [] }];
    finalizeReport(m);
    expect(m.exitCode).toBe(1);
    m.matrix[0]!.accepted = true;
    finalizeReport(m);
    expect(m.exitCode).toBe(0);
  });
});

describe('finalizeInvocation (run and client: --update-baseline, then the baseline over every report)', () => {
  it('writes the failures of all the reports to the file and excuses them; a file that cannot be written is the reason returned', async () => {
    const { finalizeInvocation } = await import('../core/finalize.js');
    const { mkdtempSync, readFileSync } = await import('node:fs');
    const { tmpdir } = await import('node:os');
    const { join } = await import('node:path');
    const dir = mkdtempSync(join(tmpdir(), 'mcp-conform-finalize-'));
    const a = makeReport([kase('stdio/utf8', 'fail')], { name: 'alpha' });
    const b = makeReport([kase('lifecycle/ping', 'fail'), kase('listing/cursor', 'pass')], { name: 'beta' });
    const file = join(dir, 'baseline.yaml');
    expect(await finalizeInvocation([a, b], { updateBaseline: file })).toBeUndefined();
    const written = readFileSync(file, 'utf8');
    expect(written).toContain('stdio/utf8');
    expect(written).toContain('lifecycle/ping');
    expect([a.exitCode, b.exitCode]).toEqual([0, 0]);
    const c = makeReport([kase('stdio/utf8', 'fail')]);
    // Under a file, not a folder: cannot be written.
    expect(await finalizeInvocation([c], { updateBaseline: join(file, 'b.yaml') })).toMatch(
      /could not write the baseline/,
    );
    // Without a baseline the failure stands.
    expect(await finalizeInvocation([c], {})).toBeUndefined();
    expect(c.exitCode).toBe(1);
  });
});
