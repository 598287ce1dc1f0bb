/**
 * One defect, many failures: a server that lists 2026-07-28 and answers in 2025-11-25 shapes fails a dozen
 * cases for one defect. The console marks those failures with their shared cause and says it once, report.html
 * groups them in a box with links, and both suggest --all-versions (its older versions pass). The server answers
 * initialize too: the default run judges it in 2025-11-25 as well (a dual-era server), where it passes.
 */
import { readFileSync } from 'node:fs';
import { join } from 'node:path';
import { describe, expect, it } from 'vitest';
import type { Report } from '../core/results.js';
import { accountFor } from './helpers/console-listing.js';
import { cli, py, run } from './helpers/cli.js';
import { mkdtempSync } from 'node:fs';
import { tmpdir } from 'node:os';

describe('a server that claims 2026-07-28 and answers in 2025 shapes (broken/answers-2025-shapes.py)', () => {
  it('its failures are one shared cause in the console and report.html, with --all-versions suggested', async () => {
    const out = mkdtempSync(join(tmpdir(), 'mcp-conform-causes-'));
    const r = await cli(
      [
        'run',
        '--stdio',
        py('broken/answers-2025-shapes.py'),
        '--reporter',
        'console',
        '--reporter',
        'json',
        '--reporter',
        'html',
        '--out-dir',
        out,
      ],
      { timeoutMs: 120_000 },
    );
    expect(r.code, r.stderr).toBe(1);
    const report = JSON.parse(readFileSync(join(out, 'report.json'), 'utf8')) as Report;
    const fails = report.suites.flatMap((s) => s.cases).filter((c) => c.verdict === 'fail');
    expect(fails.length).toBeGreaterThanOrEqual(7);
    expect(fails.map((c) => c.id)).toEqual(
      expect.arrayContaining([
        'lifecycle/result-type',
        'schema/from-server/tools/list',
        'schema/from-server/tools/call',
      ]),
    );
    // Every failure is listed, each marked with the one cause; the cause is said once, with the violation.
    expect(report.eras?.map((e) => [e.protocolVersion, e.accepted, e.summary.fail])).toEqual([
      ['2026-07-28', true, fails.length],
      ['2025-11-25', true, 0],
    ]);
    for (const c of fails)
      expect(r.stdout).toMatch(
        new RegExp(`\\n  ✗ fail  ${c.id.replace(/[/]/g, '\\/')} \\[2026-07-28\\] — \\[cause 1\\] `),
      );
    expect(r.stdout).toContain(
      `\nShared cause 1: ${fails.length} failing cases (MUST, marked [cause 1]) rest on answers with one schema violation: /result missing required property "resultType" in `,
    );
    expect(r.stdout).not.toContain('Shared cause 2');
    expect(r.stdout).toContain("The server's 2026-07-28 support looks partial");
    // 2025-11-25 was judged in this run (its cells and lines say so): the versions suggested are the others it lists.
    expect(r.stdout).toMatch(/\nlifecycle .*\(2026-07-28: \d+ fail · 2025-11-25: pass\)\n/);
    expect(r.stdout).toContain(
      'it lists 2025-06-18, 2025-03-26, 2024-11-05 too: --all-versions judges every version it serves (or --protocol-version 2025-06-18 that one).',
    );
    expect(accountFor(r.stdout, report).missing).toEqual([]);
    // One screen: 81 lines today (suite protocol-2026's three warns and calling/open-world's info joined the run, then
    // the three multi round-trip retry probes' and log-level-floor's skips).
    expect(r.stdout.trimEnd().split('\n').length).toBeLessThanOrEqual(85);

    const html = readFileSync(join(out, 'report.html'), 'utf8');
    const box = /<div class="box bad causes">(.*?)<\/div>/s.exec(html)?.[1] ?? '';
    expect(box).toContain(
      `<b>Cause 1</b>: ${fails.length} failing cases rest on answers with one schema violation, <code>/result</code> missing required property &quot;resultType&quot;`,
    );
    expect(box).toContain('--all-versions judges every version it serves');
    // Each link leads to a failing case that says it is in the cause.
    const links = [...box.matchAll(/href="#(r0-c\d+)"/g)].map((m) => m[1]!);
    expect(links).toHaveLength(fails.length);
    for (const id of links)
      expect(html).toMatch(
        new RegExp(
          `<details class="case v-fail" data-cat="fail" data-id="[^"]*" id="${id}" open><summary>[^\\n]*?<span class="cause">cause 1</span>`,
        ),
      );
  }, 150_000);

  it('judged in 2025-11-25 it passes: the failures were one defect of its 2026-07-28 answers', async () => {
    const r = await run(py('broken/answers-2025-shapes.py'), ['--protocol-version', '2025-11-25']);
    expect(
      r.report.summary.fail,
      JSON.stringify(r.report.suites.flatMap((s) => s.cases).filter((c) => c.verdict === 'fail')),
    ).toBe(0);
    expect(r.code).toBe(0);
  }, 120_000);
});
