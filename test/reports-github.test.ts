import { mkdtempSync, readFileSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { describe, expect, it } from 'vitest';
import { applyBaseline, parseBaseline } from '../core/baseline.js';
import {
  escapeData,
  escapeProperty,
  md,
  renderAnnotations,
  renderStepSummary,
  reportToGithub,
} from '../reports/github.js';
import { kase, makeReport } from './helpers/report.js';

describe('GitHub Actions reporter', () => {
  it('escapes % \\r \\n in messages, and also : , in properties', () => {
    expect(escapeData('100% done\r\nnext')).toBe('100%25 done%0D%0Anext');
    expect(escapeProperty('a: b, c%\n')).toBe('a%3A b%2C c%25%0A');
  });

  it('prints an ::error per fail, a ::warning per warn, a ::notice per baselined fail, a ::warning per stale entry', () => {
    const r = makeReport([
      kase('lifecycle/ping', 'pass'),
      kase('unknown-tool/call', 'warn', { message: 'isError result\ninstead of an error' }),
      kase('stdio/utf8', 'fail', { message: '50% of lines: bad' }),
      kase('stdio/stdout-only-messages', 'fail'),
    ]);
    applyBaseline(
      [r],
      parseBaseline('- id: stdio/stdout-only-messages\n  reason: banner\n- lifecycle/ping\n', 'base.yaml'),
    );
    const lines = renderAnnotations({ runs: [r] });
    expect(lines).toEqual([
      '::warning title=mcp-conform%3A unknown-tool/call (MUST)::isError result%0Ainstead of an error%0AMUST · https://modelcontextprotocol.io/specification/2025-11-25/basic',
      '::error title=mcp-conform%3A stdio/utf8 (MUST)::50%25 of lines: bad%0AMUST · https://modelcontextprotocol.io/specification/2025-11-25/basic',
      '::notice title=mcp-conform%3A stdio/stdout-only-messages (known failure%2C baselined)::baseline: banner%0Afail message of stdio/stdout-only-messages%0AMUST · https://modelcontextprotocol.io/specification/2025-11-25/basic',
      '::warning title=mcp-conform%3A stale baseline entry lifecycle/ping::no failure any more (lifecycle/ping: pass): remove it from base.yaml',
    ]);
    for (const l of lines) expect(l).not.toMatch(/[\r\n]/);
  });

  it('the step summary is Markdown with the counts and a row per fail and warn, server text made inert', () => {
    const r = makeReport(
      [
        kase('lifecycle/ping', 'pass'),
        kase('calling/tool/a|b', 'fail', { message: 'got <script>x</script> | [link](http://evil) `code`' }),
      ],
      { server: { name: 'demo_<b>' } },
    );
    const md = renderStepSummary({ runs: [r] }, ['/out/report.json']);
    expect(md).toContain('## ❌ mcp-conform: demo\\_&lt;b&gt; — 1 failing case');
    expect(md).toContain('| fail | warn | pass | skip | info | baselined | total |');
    expect(md).toContain('| 1 | 0 | 1 | 0 | 0 | 0 | 2 |');
    const row = md.split('\n').find((l) => l.includes('calling/tool'))!;
    expect(row).toContain('`calling/tool/a\\|b`');
    expect(row).toContain('got &lt;script&gt;x&lt;/script&gt; \\| \\[link\\](http://evil) \\`code\\`');
    expect(row.split(/(?<!\\)\|/).length).toBe(6); // 4 cells: nothing from the server broke the table
    expect(md).toContain('Reports: `/out/report.json`');
  });

  it('appends the summary to $GITHUB_STEP_SUMMARY and prints the annotations', async () => {
    const dir = mkdtempSync(join(tmpdir(), 'mcp-conform-gh-'));
    const summary = join(dir, 'step-summary.md');
    writeFileSync(summary, 'before\n');
    let printed = '';
    const r = makeReport([kase('lifecycle/ping', 'fail')]);
    const file = await reportToGithub({ runs: [r] }, join(dir, 'out'), {
      env: { GITHUB_ACTIONS: 'true', GITHUB_STEP_SUMMARY: summary },
      write: (s) => {
        printed += s;
      },
    });
    expect(file).toBe(summary);
    expect(readFileSync(summary, 'utf8')).toMatch(/^before\n## ❌ mcp-conform: demo/);
    expect(printed).toMatch(/^::error title=mcp-conform%3A lifecycle\/ping \(MUST\)::/);
  });

  it('without $GITHUB_STEP_SUMMARY the summary goes to <out-dir>/summary.md', async () => {
    const dir = mkdtempSync(join(tmpdir(), 'mcp-conform-gh-'));
    const file = await reportToGithub({ runs: [makeReport([kase('lifecycle/ping', 'pass')])] }, dir, {
      env: {},
      write: () => {},
    });
    expect(file).toBe(join(dir, 'summary.md'));
    expect(readFileSync(file, 'utf8')).toContain('✅ mcp-conform: demo — no failures');
  });

  it('md() leaves plain words alone', () => {
    expect(md('expected 2 items, got 3')).toBe('expected 2 items, got 3');
  });
});
