/**
 * The acceptance run of the reports: a failing fixture with every reporter, under GITHUB_ACTIONS=true. junit.xml has
 * a testcase per case of report.json; report.html renders in headless Chromium and names the server; the annotations
 * and the step summary appear.
 */
import { mkdtempSync, readFileSync, statSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { beforeAll, describe, expect, it } from 'vitest';
import type { Report } from '../core/results.js';
import { chromium, findChromium } from './helpers/chromium.js';
import { cli, py, type CliResult } from './helpers/cli.js';
import { all, parseXml } from './helpers/xml.js';

describe('every reporter on a failing server, as in GitHub Actions', () => {
  const dir = mkdtempSync(join(tmpdir(), 'mcp-conform-reports-'));
  const out = join(dir, 'out');
  const stepSummary = join(dir, 'step-summary.md');
  let run: CliResult;
  let report: Report;

  beforeAll(async () => {
    run = await cli(
      [
        'run',
        '--stdio',
        py('broken/schema-violation.py'),
        '--out-dir',
        out,
        '--reporter',
        'console',
        '--reporter',
        'json',
        '--reporter',
        'junit',
        '--reporter',
        'html',
      ],
      {
        env: { GITHUB_ACTIONS: 'true', GITHUB_STEP_SUMMARY: stepSummary, CI: 'true' },
      },
    );
    report = JSON.parse(readFileSync(join(out, 'report.json'), 'utf8')) as Report;
  });

  it('exits 1 and names every report file', () => {
    expect(run.code, run.stderr).toBe(1);
    for (const f of ['report.json', 'junit.xml', 'report.html']) expect(run.stdout).toContain(join(out, f));
    expect(run.stdout).toMatch(/Result: \d+ failing cases?\n$/);
  });

  it('junit.xml has one testcase per case in report.json, failures where report.json has fail', () => {
    const cases = report.suites.flatMap((s) => s.cases.map((c) => ({ ...c, suite: s.id })));
    const root = parseXml(readFileSync(join(out, 'junit.xml'), 'utf8'));
    const tcs = all(root, 'testcase');
    expect(tcs.map((t) => `${t.attrs.classname}|${t.attrs.name}`)).toEqual(
      cases.map((c) => `mcp-conform.${c.suite}|${c.id}`),
    );
    expect(tcs.filter((t) => all(t, 'failure').length).map((t) => t.attrs.name)).toEqual(
      cases.filter((c) => c.verdict === 'fail').map((c) => c.id),
    );
    expect(tcs.filter((t) => all(t, 'skipped').length).map((t) => t.attrs.name)).toEqual(
      cases.filter((c) => c.verdict === 'skip').map((c) => c.id),
    );
    expect(Number(root.attrs.tests)).toBe(report.summary.total);
    expect(Number(root.attrs.failures)).toBe(report.summary.fail);
  });

  it('prints an ::error annotation per failing case, and appends the step summary', () => {
    const errors = run.stdout.split('\n').filter((l) => l.startsWith('::error '));
    const failing = report.suites.flatMap((s) => s.cases).filter((c) => c.verdict === 'fail');
    expect(errors).toHaveLength(failing.length);
    for (const c of failing)
      expect(errors.some((l) => l.startsWith(`::error title=mcp-conform%3A ${c.id} (${c.level})::`))).toBe(true);
    const md = readFileSync(stepSummary, 'utf8');
    expect(md).toContain(`## ❌ mcp-conform: schema-violation — ${failing.length} failing case`);
    for (const c of failing) expect(md).toContain(`\`${c.id}\``);
  });

  it('plain output in CI: no colour, no progress lines', () => {
    expect(run.stdout).not.toContain('\x1b[');
    expect(run.stderr).not.toContain('▸');
  });

  const bin = findChromium();
  it.skipIf(!bin && !process.env.CI)(
    'report.html renders in headless Chromium: the server name and the verdict counts are on the page',
    async () => {
      if (!bin) throw new Error('chromium is not installed (CI installs it in .ci/run)');
      const file = join(out, 'report.html');
      const dom = await chromium(bin, file, ['--dump-dom']);
      expect(dom.code).toBe(0);
      expect(dom.stdout).toContain('<span class="server-name">schema-violation 1.0.0</span>');
      const s = report.summary;
      for (const [v, n] of [
        ['fail', s.fail],
        ['warn', s.warn],
        ['pass', s.pass],
        ['skip', s.skip],
        ['info', s.info],
      ] as const) {
        expect(dom.stdout).toContain(`<span class="chip v-${v}${n ? '' : ' zero'}"><b>${n}</b> ${v}</span>`);
      }
      expect(dom.stdout).toContain(`Result: ${s.fail} failing case`);
      expect(dom.stdout).toContain('class=" js"'); // the filter script ran
      const png = join(dir, 'report.png'); // test output, not the repository
      const shot = await chromium(bin, file, [`--screenshot=${png}`]);
      expect(shot.code, shot.stderr.slice(-2000)).toBe(0);
      expect(readFileSync(png).subarray(0, 8).toString('hex')).toBe('89504e470d0a1a0a');
      expect(statSync(png).size).toBeGreaterThan(50_000);
    },
  );
});
