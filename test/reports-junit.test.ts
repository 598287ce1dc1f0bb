import { describe, expect, it } from 'vitest';
import { applyBaseline, parseBaseline } from '../core/baseline.js';
import { renderJunit } from '../reports/junit.js';
import { kase, makeReport } from './helpers/report.js';
import { all, parseXml, type XmlElement } from './helpers/xml.js';

const prop = (tc: XmlElement, name: string) => all(tc, 'property').find((p) => p.attrs.name === name)?.attrs.value;

describe('junit.xml', () => {
  const report = () =>
    makeReport([
      kase('lifecycle/ping', 'pass'),
      kase('lifecycle/shutdown', 'warn', { level: 'SHOULD', message: 'needed SIGTERM\nsecond line' }),
      kase('listing/tools-list', 'fail', { message: 'bad <tools> & "cursor"\u0001' }),
      kase('listing/output-schema', 'skip', { message: 'no outputSchema' }),
      kase('stdio/utf8', 'info'),
      kase('stdio/stdout-only-messages', 'fail', { message: 'stray line' }),
    ]);

  it('is well-formed XML: a testsuite per suite, a testcase per case, counts that add up', () => {
    const root = parseXml(renderJunit(report()));
    expect(root.name).toBe('testsuites');
    expect(root.attrs).toMatchObject({ tests: '6', failures: '2', errors: '0', skipped: '1' });
    const suites = all(root, 'testsuite');
    expect(suites.map((s) => s.attrs.name)).toEqual(['lifecycle', 'listing', 'stdio']);
    for (const s of suites) {
      const cases = all(s, 'testcase');
      expect(Number(s.attrs.tests)).toBe(cases.length);
      expect(Number(s.attrs.failures)).toBe(cases.filter((c) => all(c, 'failure').length).length);
      expect(Number(s.attrs.skipped)).toBe(cases.filter((c) => all(c, 'skipped').length).length);
      expect(s.attrs.time).toMatch(/^\d+\.\d{3}$/);
      expect(s.attrs.timestamp).toMatch(/^\d{4}-\d\d-\d\dT\d\d:\d\d:\d\d$/);
    }
    const tcs = all(root, 'testcase');
    expect(tcs.map((t) => t.attrs.name)).toEqual([
      'lifecycle/ping',
      'lifecycle/shutdown',
      'listing/tools-list',
      'listing/output-schema',
      'stdio/utf8',
      'stdio/stdout-only-messages',
    ]);
    for (const t of tcs) {
      expect(t.attrs.classname).toBe(`mcp-conform.${t.attrs.name.split('/')[0]}`);
      expect(t.attrs.time).toMatch(/^\d+\.\d{3}$/);
      expect(prop(t, 'verdict')).toBeDefined();
      expect(prop(t, 'level')).toBeDefined();
      expect(prop(t, 'spec')).toMatch(/^https:/);
    }
  });

  it('fail is a <failure>, skip a <skipped>, warn a passing testcase with the verdict as a property and the message in system-out', () => {
    const root = parseXml(renderJunit(report()));
    const tc = (id: string) => all(root, 'testcase').find((t) => t.attrs.name === id)!;
    const f = all(tc('listing/tools-list'), 'failure')[0];
    expect(f.attrs.message).toBe('bad <tools> & "cursor"'); // the control character dropped
    expect(f.attrs.type).toBe('MUST');
    expect(f.text).toContain('spec: https://');
    expect(all(tc('listing/output-schema'), 'skipped')[0].attrs.message).toBe('no outputSchema');
    const w = tc('lifecycle/shutdown');
    expect(all(w, 'failure')).toHaveLength(0);
    expect(prop(w, 'verdict')).toBe('warn');
    expect(prop(w, 'level')).toBe('SHOULD');
    expect(all(w, 'system-out')[0].text).toBe('warn: needed SIGTERM\nsecond line');
  });

  it('under --strict a warn made a fail is a <failure> that says so', () => {
    const r = makeReport([kase('unknown-tool/call', 'fail', { strictFromWarn: true })], { strict: true });
    const tc = all(parseXml(renderJunit(r)), 'testcase')[0];
    expect(all(tc, 'failure')[0].text).toContain('[warn made a fail by --strict]');
    expect(prop(tc, 'strictFromWarn')).toBe('true');
  });

  it('keeps line breaks in attribute values as character references', () => {
    const r = makeReport([kase('stdio/utf8', 'fail', { message: 'one\ntwo' })]);
    const xml = renderJunit(r);
    expect(xml).toContain('message="one&#10;two"');
    expect(all(parseXml(xml), 'failure')[0].attrs.message).toBe('one\ntwo'); // a raw break would read as a space
  });

  it('a baselined failure is <skipped> (the build does not fail on it), with the verdict kept in the properties', () => {
    const r = report();
    applyBaseline([r], parseBaseline('failures:\n  - id: stdio\n    reason: banner on stdout\n', 'b.yaml'));
    const root = parseXml(renderJunit(r));
    expect(root.attrs).toMatchObject({ failures: '1', skipped: '2' });
    const tc = all(root, 'testcase').find((t) => t.attrs.name === 'stdio/stdout-only-messages')!;
    expect(all(tc, 'failure')).toHaveLength(0);
    expect(all(tc, 'skipped')[0].attrs.message).toBe('known failure (baseline: banner on stdout): stray line');
    expect(prop(tc, 'verdict')).toBe('fail');
    expect(prop(tc, 'baselined')).toBe('true');
  });

  it('several targets: suites named after the target, classnames with it', () => {
    const a = makeReport([kase('lifecycle/ping', 'pass')], { name: 'alpha one' });
    const b = makeReport([kase('lifecycle/ping', 'fail')], { name: 'beta' });
    const root = parseXml(renderJunit({ runs: [a, b] }));
    expect(all(root, 'testsuite').map((s) => s.attrs.name)).toEqual(['alpha one · lifecycle', 'beta · lifecycle']);
    expect(all(root, 'testcase').map((t) => t.attrs.classname)).toEqual([
      'mcp-conform.alpha_one.lifecycle',
      'mcp-conform.beta.lifecycle',
    ]);
    expect(root.attrs).toMatchObject({ tests: '2', failures: '1' });
  });
});
