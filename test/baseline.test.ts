import { describe, expect, it } from 'vitest';
import {
  applyBaseline,
  BaselineError,
  baselineFor,
  normalizeEntry,
  parseBaseline,
  stringifyBaseline,
} from '../core/baseline.js';
import { kase, makeReport } from './helpers/report.js';

describe('baseline files', () => {
  it('reads our format: version, failures with ids, reasons, targets', () => {
    const b = parseBaseline(
      'version: 1\nfailures:\n  - id: stdio/utf8\n    reason: "BOM, see #3"\n  - stdio\n  - id: calling:tool/add\n    target: alpha\n',
      'b.yaml',
    );
    expect(b.format).toBe('mcp-conform');
    expect(b.entries).toEqual([
      { written: 'stdio/utf8', id: 'stdio/utf8', reason: 'BOM, see #3' },
      { written: 'stdio', id: 'stdio' },
      { written: 'calling:tool/add', id: 'calling/tool/add', target: 'alpha' },
    ]);
  });

  it('reads a bare list, and an empty file', () => {
    expect(parseBaseline('- lifecycle/ping\n- id: stdio\n', 'b').entries.map((e) => e.id)).toEqual([
      'lifecycle/ping',
      'stdio',
    ]);
    expect(parseBaseline('', 'b').entries).toEqual([]);
    expect(parseBaseline('# only a comment\n', 'b').entries).toEqual([]);
  });

  it("reads the official conformance suite's expected-failures shape (server list; client ignored)", () => {
    const b = parseBaseline(
      'server:\n  - tools-call-with-progress\n  - stdio:stdout-only-messages\nclient:\n  - sse-retry\n',
      'expected-failures.yaml',
    );
    expect(b.format).toBe('expected-failures');
    expect(b.entries.map((e) => [e.written, e.id])).toEqual([
      ['tools-call-with-progress', 'tools-call-with-progress'],
      ['stdio:stdout-only-messages', 'stdio/stdout-only-messages'],
    ]);
  });

  it('normalizes suite:case pairs', () => {
    expect(normalizeEntry('calling:tool/add')).toBe('calling/tool/add');
    expect(normalizeEntry('calling:calling/tool/add')).toBe('calling/tool/add');
    expect(normalizeEntry('stdio')).toBe('stdio');
    expect(normalizeEntry('stdio:')).toBe('stdio');
    expect(normalizeEntry('calling/tool/ns:name')).toBe('calling/tool/ns:name'); // a colon inside a case id stays
  });

  it('refuses what it cannot read, saying why', () => {
    expect(() => parseBaseline('failures: [', 'b.yaml')).toThrow(/b.yaml: not valid YAML/);
    expect(() => parseBaseline('failures:\n  - stdio/utf8: BOM\n', 'b.yaml')).toThrow(
      /"stdio\/utf8: BOM" is a mapping; write "- id: stdio\/utf8"/,
    );
    expect(() => parseBaseline('failures:\n  - id: x\n    because: y\n', 'b.yaml')).toThrow(/unknown keys: because/);
    expect(() => parseBaseline('version: 2\nfailures: []\n', 'b.yaml')).toThrow(/version 2 is not supported/);
    expect(() => parseBaseline('cases: []\n', 'b.yaml')).toThrow(BaselineError);
    expect(() => parseBaseline('42\n', 'b.yaml')).toThrow(/expected a mapping/);
  });
});

describe('applying a baseline', () => {
  const report = () =>
    makeReport([
      kase('lifecycle/ping', 'pass'),
      kase('listing/input-schema/a', 'fail'),
      kase('listing/input-schema/b', 'fail'),
      kase('stdio/utf8', 'fail', { message: 'not UTF-8' }),
      kase('schema/from-server/tools/call', 'skip'),
    ]);

  it('listed failures keep verdict fail, get baselined + reason, are counted, and do not set the exit code', () => {
    const r = report();
    expect(r.exitCode).toBe(1);
    applyBaseline(
      [r],
      parseBaseline(
        'failures:\n  - id: listing/input-schema\n    reason: legacy schemas\n  - id: stdio:utf8\n    reason: BOM\n',
        'b.yaml',
      ),
    );
    const c = r.suites.flatMap((s) => s.cases);
    expect(c.filter((x) => x.baselined).map((x) => [x.id, x.verdict, x.baselineReason, x.baselineEntry])).toEqual([
      ['listing/input-schema/a', 'fail', 'legacy schemas', 'listing/input-schema'],
      ['listing/input-schema/b', 'fail', 'legacy schemas', 'listing/input-schema'],
      ['stdio/utf8', 'fail', 'BOM', 'stdio:utf8'],
    ]);
    expect(r.summary).toMatchObject({ fail: 3, baselined: 3 });
    expect(r.exitCode).toBe(0);
    expect(r.baseline).toEqual({
      file: 'b.yaml',
      format: 'mcp-conform',
      entries: 2,
      used: ['listing/input-schema', 'stdio:utf8'],
      stale: [],
      unchecked: [],
    });
  });

  it('a failure not listed still fails the run', () => {
    const r = report();
    applyBaseline([r], parseBaseline('- stdio/utf8\n', 'b'));
    expect(r.summary.baselined).toBe(1);
    expect(r.exitCode).toBe(1);
  });

  it('the most specific entry gives the reason', () => {
    const r = report();
    applyBaseline(
      [r],
      parseBaseline(
        '- id: listing\n  reason: all listing\n- id: listing/input-schema/b\n  reason: just b\n- stdio\n',
        'b',
      ),
    );
    const b = r.suites.flatMap((s) => s.cases).find((c) => c.id === 'listing/input-schema/b')!;
    expect(b.baselineReason).toBe('just b');
    expect(r.baseline!.used).toEqual(['listing', 'listing/input-schema/b', 'stdio']);
  });

  it('stale: an entry whose cases now pass, or that names no case of a suite that ran; not stale: suites not run, cases only skipped', () => {
    const r = report();
    applyBaseline(
      [r],
      parseBaseline(
        [
          '- id: lifecycle/ping',
          '  reason: was flaky',
          '- listing/no-such-case',
          '- robustness/whatever',
          '- schema/from-server/tools/call',
          '- stdio',
        ].join('\n'),
        'b.yaml',
      ),
    );
    expect(r.baseline!.stale).toEqual([
      { entry: 'lifecycle/ping', reason: 'was flaky', why: 'no failure any more (lifecycle/ping: pass)' },
      { entry: 'listing/no-such-case', why: 'matches no case of this run (renamed or removed?)' },
    ]);
    expect(r.baseline!.unchecked).toEqual(['robustness/whatever', 'schema/from-server/tools/call']);
    expect(r.exitCode).toBe(1); // listing/input-schema/* still fail
  });

  it('stale entries are a warning, but fail the run under --strict', () => {
    const plain = makeReport([kase('lifecycle/ping', 'pass')]);
    applyBaseline([plain], parseBaseline('- lifecycle/ping\n', 'b'));
    expect(plain.baseline!.stale).toHaveLength(1);
    expect(plain.exitCode).toBe(0);
    const strict = makeReport([kase('lifecycle/ping', 'pass')], { strict: true });
    applyBaseline([strict], parseBaseline('- lifecycle/ping\n', 'b'));
    expect(strict.exitCode).toBe(1);
  });

  it('a run that ended early fails whatever the baseline says', () => {
    const r = makeReport([kase('lifecycle/initialize', 'fail')]);
    r.aborted = 'the server exited';
    applyBaseline([r], parseBaseline('- lifecycle\n', 'b'));
    expect(r.summary.baselined).toBe(1);
    expect(r.exitCode).toBe(1);
  });

  it('several targets: target entries apply to theirs; an entry used by one target is not stale in another', () => {
    const a = makeReport([kase('stdio/utf8', 'fail'), kase('lifecycle/ping', 'pass')], { name: 'alpha' });
    const b = makeReport([kase('stdio/utf8', 'pass'), kase('lifecycle/ping', 'fail')], { name: 'beta' });
    applyBaseline([a, b], parseBaseline('- stdio/utf8\n- id: lifecycle/ping\n  target: beta\n', 'b'));
    expect([a.exitCode, b.exitCode]).toEqual([0, 0]);
    expect(a.baseline!.entries).toBe(1);
    expect(b.baseline!.used).toEqual(['stdio/utf8', 'lifecycle/ping']);
    expect(a.baseline!.stale).toEqual([]);
    expect(b.baseline!.stale).toEqual([]);
  });

  it('applying twice gives the same result (nothing left over from the first)', () => {
    const r = report();
    applyBaseline([r], parseBaseline('- stdio\n- listing\n', 'b'));
    applyBaseline([r], parseBaseline('- stdio\n', 'b'));
    expect(r.summary.baselined).toBe(1);
    expect(r.exitCode).toBe(1);
  });
});

describe('writing a baseline (--update-baseline)', () => {
  it('an entry per failing case, reasons from the message; kept entries keep their reasons; stale ones go', () => {
    const r = makeReport([
      kase('lifecycle/ping', 'pass'),
      kase('listing/input-schema/a', 'fail'),
      kase('stdio/utf8', 'fail', { message: 'line 3\nis not   UTF-8' }),
    ]);
    const previous = parseBaseline(
      'failures:\n  - id: listing\n    reason: old schemas\n  - id: lifecycle/ping\n    reason: fixed now\n  - id: robustness\n    reason: not run today\n',
      'b.yaml',
    );
    applyBaseline([r], previous);
    const next = baselineFor([r], previous);
    expect(next.entries).toEqual([
      { written: 'listing', id: 'listing', reason: 'old schemas' },
      { written: 'robustness', id: 'robustness', reason: 'not run today' },
      { written: 'stdio/utf8', id: 'stdio/utf8', reason: 'line 3 is not UTF-8' },
    ]);
    const text = stringifyBaseline(next);
    expect(text).toMatch(/^# mcp-conform baseline/);
    expect(parseBaseline(text, 'again').entries).toEqual(next.entries);
  });

  it('several targets: new entries name their target', () => {
    const a = makeReport([kase('stdio/utf8', 'fail')], { name: 'alpha' });
    const b = makeReport([kase('stdio/utf8', 'pass')], { name: 'beta' });
    expect(baselineFor([a, b]).entries).toEqual([
      { written: 'stdio/utf8', id: 'stdio/utf8', reason: 'fail message of stdio/utf8', target: 'alpha' },
    ]);
  });
});
