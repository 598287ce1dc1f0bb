import { createHash } from 'node:crypto';
import { mkdtempSync, readFileSync, statSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { describe, expect, it } from 'vitest';
import { applyBaseline, parseBaseline } from '../core/baseline.js';
import { esc, HTML_LIMITS, messageJsonHtml, renderHtml } from '../reports/html.js';
import { chromium, findChromium } from './helpers/chromium.js';
import { kase, makeReport, message } from './helpers/report.js';

const PWN = `<script>document.documentElement.setAttribute('data-pwned','1')</script>`;

function hostileReport() {
  const m = message(
    3,
    {
      jsonrpc: '2.0',
      id: 1,
      result: {
        [`</pre>${PWN}`]: `<img src=x onerror="document.documentElement.setAttribute('data-pwned','2')">`,
        tools: [{ name: 'x', description: '\u0000\u0007 & "quotes" \'single\'' }],
      },
    },
    {
      schema: {
        checked: true,
        valid: false,
        definition: `<b>Def</b>`,
        violations: [{ pointer: '/result/tools/0', message: `missing ${PWN}`, keyword: 'required' }],
      },
    },
  );
  const stray = message(4, undefined, {
    raw: `plain ${PWN} line \u0000`,
    kind: 'invalid',
    problem: `not JSON ${PWN}`,
    schema: { checked: false, valid: false, violations: [] },
  });
  return makeReport(
    [
      kase('lifecycle/initialize', 'pass'),
      kase(`calling/tool/"><svg onload=alert(1)>`, 'fail', {
        message: `bad ${PWN}`,
        messageIds: [3, 4],
        title: PWN,
        details: { args: PWN },
      }),
      kase('calling/tool/ok', 'warn', { spec: 'javascript:alert(1)' }),
    ],
    {
      server: { name: `evil ${PWN}`, version: '<i>1</i>', title: PWN, instructions: PWN },
      messages: [message(0, { ok: 1 }), m, stray],
    },
  );
}

describe('report.html', () => {
  it('escapes every string that comes from the server', () => {
    const html = renderHtml({ runs: [hostileReport()] });
    expect(html.match(/<script/gi)).toHaveLength(1); // ours, at the end
    expect(html).not.toMatch(/<img|<svg|<i>|<b>Def/i);
    expect(html).toContain('evil &lt;script&gt;');
    expect(html).toContain('&lt;svg onload=alert(1)&gt;');
    // a spec "link" that is not http(s) is shown as text, not a link
    expect(html).not.toContain('href="javascript:');
    // control characters never reach the page
    expect(html).not.toMatch(/[\u0000\u0007]/);
  });

  it('loads nothing from outside, and the CSP allows only its own inline style and script', () => {
    const html = renderHtml({ runs: [hostileReport()] });
    const tags = html.match(/<[a-z][^>]*>/gi) ?? [];
    expect(tags.filter((t) => /^<(link|img|iframe|object|embed)|\ssrc=/i.test(t))).toEqual([]);
    expect(html).not.toMatch(/@import|url\(/i);
    const style = /<style>([\s\S]*?)<\/style>/.exec(html)![1];
    const script = /<script>([\s\S]*?)<\/script>/.exec(html)![1];
    const hash = (s: string) => `'sha256-${createHash('sha256').update(s).digest('base64')}'`;
    const csp = /http-equiv="Content-Security-Policy" content="([^"]+)"/.exec(html)![1];
    expect(csp).toContain("default-src 'none'");
    expect(csp).toContain(`style-src ${hash(style)}`);
    expect(csp).toContain(`script-src ${hash(script)}`);
  });

  it('marks a violation at its JSON pointer, with ~0 and ~1 escapes', () => {
    const out = messageJsonHtml({ a: { 'x/y': 1, 'm~n': 'two' }, b: [true] }, [
      { pointer: '/a/x~1y', message: 'expected string' },
      { pointer: '/a/m~0n', message: 'too short' },
      { pointer: '/b/0', message: 'expected false' },
    ]);
    expect(out).toContain('<mark class="viol" title="expected string"><span class="j-num">1</span></mark>');
    expect(out).toContain('<mark class="viol" title="too short"><span class="j-str">&quot;two&quot;</span></mark>');
    expect(out).toContain('<mark class="viol" title="expected false"><span class="j-bool">true</span></mark>');
    expect(out.match(/<mark/g)).toHaveLength(3);
  });

  it('shows per case the requirement, the spec link, the message and the exchange', () => {
    const m = message(
      7,
      { jsonrpc: '2.0', id: 2, result: { content: [{ type: 'text' }] } },
      {
        method: 'tools/call',
        schema: {
          checked: true,
          valid: false,
          definition: 'CallToolResult',
          violations: [
            { pointer: '/result/content/0', message: 'missing required property "text"', keyword: 'required' },
          ],
        },
      },
    );
    const r = makeReport(
      [kase('schema/from-server/tools/call', 'fail', { messageIds: [7], requirement: 'Every message validates' })],
      { messages: [m] },
    );
    const html = renderHtml({ runs: [r] });
    expect(html).toContain('Every message validates');
    expect(html).toContain('href="https://modelcontextprotocol.io/specification/2025-11-25/basic"');
    expect(html).toContain('fail message of schema/from-server/tools/call');
    expect(html).toContain('Exchange (1 message)');
    expect(html).toContain('1 schema violation (CallToolResult)');
    expect(html).toMatch(/<mark class="viol" title="missing required property &quot;text&quot;">\{/);
    // failing cases are open, with a filter per verdict
    expect(html).toMatch(/<details class="case v-fail" data-cat="fail"[^>]* open>/);
    for (const v of ['fail', 'baselined', 'warn', 'pass', 'skip', 'info'])
      expect(html).toContain(`data-cat="${v}" checked`);
  });

  it('keeps the page bounded when a message is huge', () => {
    const big = message(1, {
      jsonrpc: '2.0',
      id: 1,
      result: { items: Array.from({ length: 20_000 }, (_, i) => ({ i, s: 'x'.repeat(50) })) },
    });
    const r = makeReport([kase('listing/tools-list', 'fail', { messageIds: [1] })], { messages: [big] });
    const html = renderHtml({ runs: [r] });
    expect(big.raw.length).toBeGreaterThan(1_000_000);
    expect(html.length).toBeLessThan(4 * HTML_LIMITS.jsonChars + 50_000);
    expect(html).toContain('more items');
  });

  it('shows baselined failures and stale baseline entries', () => {
    const r = makeReport([kase('stdio/utf8', 'fail'), kase('lifecycle/ping', 'pass')]);
    applyBaseline(
      [r],
      parseBaseline('failures:\n  - id: stdio/utf8\n    reason: "tracked in #12"\n  - lifecycle/ping\n', 'b.yaml'),
    );
    const html = renderHtml({ runs: [r] });
    expect(html).toContain('data-cat="baselined"');
    expect(html).toContain('tracked in #12');
    expect(html).toContain('1 stale entry');
    expect(html).toContain('Result: no failures (1 known failure in the baseline)');
  });

  it('puts several targets on one page, a section each', () => {
    const a = makeReport([kase('lifecycle/ping', 'pass')], { name: 'alpha' });
    const b = makeReport([kase('lifecycle/ping', 'fail')], { name: 'beta', server: { name: 'other' } });
    const html = renderHtml({ runs: [a, b], configFile: '/x/mcp-conform.config.yaml' });
    expect(html).toContain('mcp-conform report · 2 targets');
    expect(html).toContain('<a href="#run-0">alpha</a>');
    expect(html).toContain('<a href="#run-1">beta</a>');
    expect(html).toContain('id="run-1"');
    expect(html).toContain('Result: 1 failing case');
  });

  it('esc() escapes the five specials', () => {
    expect(esc(`<a href="x">'&'</a>`)).toBe('&lt;a href=&quot;x&quot;&gt;&#39;&amp;&#39;&lt;/a&gt;');
  });
});

const bin = findChromium();
describe.skipIf(!bin && !process.env.CI)('report.html in headless Chromium', () => {
  it('renders a hostile report without running its strings, and the filters script runs', async () => {
    if (!bin) throw new Error('chromium is not installed (CI installs it in .ci/run)');
    const dir = mkdtempSync(join(tmpdir(), 'mcp-conform-html-'));
    const file = join(dir, 'report.html');
    writeFileSync(file, renderHtml({ runs: [hostileReport()] }));
    const dom = await chromium(bin, file, ['--dump-dom']);
    expect(dom.code).toBe(0);
    expect(dom.stdout).toContain('<html lang="en" class=" js">'); // our script ran
    expect(dom.stdout).not.toMatch(/<[^>]*\sdata-pwned=/); // the hostile scripts never ran
    expect(dom.stdout).toContain('evil &lt;script&gt;');
    const png = join(dir, 'hostile.png');
    const shot = await chromium(bin, file, [`--screenshot=${png}`]);
    expect(shot.code).toBe(0);
    expect(statSync(png).size).toBeGreaterThan(10_000);
    expect(readFileSync(png).subarray(1, 4).toString()).toBe('PNG');
  });

  it("the first fail's id appears before the first pass's id in the DOM", async () => {
    if (!bin) throw new Error('chromium is not installed (CI installs it in .ci/run)');
    const dir = mkdtempSync(join(tmpdir(), 'mcp-conform-html-'));
    const file = join(dir, 'report.html');
    writeFileSync(file, renderHtml({ runs: [lateFailureReport()] }));
    const dom = await chromium(bin, file, ['--dump-dom']);
    expect(dom.code).toBe(0);
    expect(dom.stdout).toContain('<html lang="en" class=" js">');
    const firstFail = dom.stdout.indexOf('stdio/late-failure');
    const firstPass = dom.stdout.search(/(lifecycle|listing|calling)\/case-\d+/);
    expect(firstFail).toBeGreaterThan(0);
    expect(firstPass).toBeGreaterThan(0);
    expect(firstFail).toBeLessThan(firstPass);
  });
});

/** A report whose only failure comes last: 40 passes in suites before it, then a warn, then the fail. */
function lateFailureReport() {
  const passes = Array.from({ length: 40 }, (_, i) =>
    kase(`${['lifecycle', 'listing', 'calling'][i % 3]}/case-${i}`, 'pass'),
  );
  return makeReport([
    ...passes,
    kase('schema/warned-late', 'warn'),
    kase('stdio/late-failure', 'fail', { message: 'the one failure, last in suite order' }),
  ]);
}

describe('report.html leads with what failed', () => {
  it('lists every fail, then every warn, at the top, each linking to its case; passes are collapsed', () => {
    const html = renderHtml({ runs: [lateFailureReport()] });
    const top = html.indexOf('What failed');
    expect(top).toBeGreaterThan(0);
    expect(html.indexOf('stdio/late-failure')).toBeLessThan(html.indexOf('lifecycle/case-0'));
    expect(html.indexOf('stdio/late-failure')).toBeLessThan(html.indexOf('schema/warned-late'));
    // The link points at the case's own anchor.
    const link = /<a href="#(r0-c\d+)"><code class="cid">stdio\/late-failure<\/code>/.exec(html);
    expect(link).not.toBeNull();
    expect(html).toContain(`id="${link![1]}"`);
    // Each suite's passes sit in one collapsed <details class="passes">.
    expect(html).toMatch(/<details class="passes"><summary class="dim">14 passes<\/summary>/);
    expect(html).not.toMatch(/<details class="passes" open/);
  });

  it('says so when nothing failed', () => {
    const html = renderHtml({ runs: [makeReport([kase('lifecycle/initialize', 'pass')])] });
    expect(html).toContain('Nothing failed and nothing was warned at.');
  });
});

describe('report.html: failures that share a cause', () => {
  it('a box lists them with links, each case says its cause, and what the server sent is escaped', () => {
    const bad = (seq: number, method: string) =>
      message(
        seq,
        { x: 1 },
        {
          method,
          schema: { checked: true, valid: false, violations: [{ pointer: '/result', message: `missing ${PWN}` }] },
        },
      );
    const r = makeReport(
      [
        kase('lifecycle/ping', 'pass'),
        ...['a', 'b', 'c'].map((m, i) => kase(`schema/from-server/${m}`, 'fail', { messageIds: [i + 1] })),
        kase('calling/tool/x', 'fail'),
      ],
      { messages: [bad(1, 'tools/list'), bad(2, 'tools/call'), bad(3, `<b>m</b>`)] },
    );
    const html = renderHtml({ runs: [r] });
    expect(html.match(/<script/gi)).toHaveLength(1);
    expect(html).not.toContain('<b>m</b>');
    const box = /<div class="box bad causes">(.*?)<\/div>/s.exec(html)![1]!;
    expect(box).toContain(
      '<b>Cause 1</b>: 3 failing cases rest on answers with one schema violation, <code>/result</code> missing &lt;script&gt;',
    );
    expect(box).toContain('(tools/list, tools/call, &lt;b&gt;m&lt;/b&gt;)');
    expect(box).not.toContain('calling/tool/x');
    for (const id of [...box.matchAll(/href="#(r0-c\d+)"/g)].map((m) => m[1]!))
      expect(html).toMatch(
        new RegExp(
          `id="${id}" open><summary><span class="badge v-fail">fail</span> <code class="cid">schema/from-server/\\w</code> <span class="cause">cause 1</span>`,
        ),
      );
    expect(html).not.toContain('support looks partial'); // a 2025-11-25 run
  });
});
