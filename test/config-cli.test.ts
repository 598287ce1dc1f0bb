/** A config file with several targets through the CLI: one after another, into one report. */
import { mkdtempSync, readFileSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { describe, expect, it } from 'vitest';
import type { Report } from '../core/results.js';
import type { CombinedReport } from '../reports/types.js';
import { cli, FIXTURES } from './helpers/cli.js';
import { all, parseXml } from './helpers/xml.js';

describe('config file through the CLI', () => {
  const dir = mkdtempSync(join(tmpdir(), 'mcp-conform-config-cli-'));
  writeFileSync(
    join(dir, 'mcp-conform.config.yaml'),
    [
      '# two servers, one report',
      'targets:',
      '  - name: calc',
      `    stdio: python3 ${join(FIXTURES, 'calc.py')}`,
      '  - name: stray',
      `    stdio: python3 ${join(FIXTURES, 'broken', 'stray-stdout.py')}`,
      'suites: [lifecycle, stdio]',
      'reporters: [console, json, junit, html]',
      'outDir: out',
    ].join('\n'),
  );

  it('runs every target into one report.json (runs array), one junit.xml and one report.html', async () => {
    const r = await cli(['run'], { cwd: dir });
    expect(r.code, r.stdout + r.stderr).toBe(1);
    const doc = JSON.parse(readFileSync(join(dir, 'out', 'report.json'), 'utf8')) as CombinedReport;
    expect(doc.reportVersion).toBe(1);
    expect(doc.configFile).toBe(join(dir, 'mcp-conform.config.yaml'));
    expect(doc.runs.map((x) => [x.target.name, x.server.name, x.exitCode])).toEqual([
      ['calc', 'calc', 0],
      ['stray', 'stray-stdout', 1],
    ]);
    expect(doc.exitCode).toBe(1);
    const cases = doc.runs.flatMap((x) => x.suites.flatMap((s) => s.cases));
    expect(doc.summary.total).toBe(cases.length);
    expect(doc.summary.fail).toBe(cases.filter((c) => c.verdict === 'fail').length);
    for (const run of doc.runs) expect(run.options.suites).toEqual(['lifecycle', 'stdio']);
    const junit = parseXml(readFileSync(join(dir, 'out', 'junit.xml'), 'utf8'));
    expect(all(junit, 'testcase')).toHaveLength(cases.length);
    expect(all(junit, 'testsuite').map((s) => s.attrs.name)).toEqual([
      'calc · lifecycle',
      'calc · stdio',
      'stray · lifecycle',
      'stray · stdio',
    ]);
    const html = readFileSync(join(dir, 'out', 'report.html'), 'utf8');
    expect(html).toContain('<a href="#run-0">calc</a>');
    expect(html).toContain('<a href="#run-1">stray</a>');
    expect(r.stdout).toContain('mcp-conform 0.1.0 · calc: calc 1.0.0 over stdio');
    expect(r.stdout).toMatch(/All targets: .* · 2 targets/);
    expect(r.stdout).toMatch(/✓ calc\n {2}✗ stray/);
  });

  it('flags override it: --suite, --reporter, and --stdio replaces the targets', async () => {
    const r = await cli(
      ['run', '--suite', 'lifecycle', '--reporter', 'json', '--out-dir', join(dir, 'flags'), '--quiet'],
      { cwd: dir },
    );
    expect(r.code, r.stderr).toBe(0); // stray-stdout only fails the stdio suite
    const doc = JSON.parse(readFileSync(join(dir, 'flags', 'report.json'), 'utf8')) as CombinedReport;
    expect(doc.runs.map((x) => x.suites.map((s) => s.id))).toEqual([['lifecycle'], ['lifecycle']]);
    const one = await cli(
      ['run', '--stdio', `python3 ${join(FIXTURES, 'calc.py')}`, '--out-dir', join(dir, 'one'), '--quiet'],
      { cwd: dir },
    );
    expect(one.code, one.stderr).toBe(0);
    const single = JSON.parse(readFileSync(join(dir, 'one', 'report.json'), 'utf8')) as Report;
    expect('runs' in single).toBe(false); // one target: the report itself, as without a config
    expect(single.options.suites).toEqual(['lifecycle', 'stdio']);
  });

  it('--config names a file elsewhere; a config error is exit 2', async () => {
    const other = mkdtempSync(join(tmpdir(), 'mcp-conform-config-cli-'));
    writeFileSync(
      join(other, 'c.json'),
      JSON.stringify({
        targets: [{ stdio: `python3 ${join(FIXTURES, 'calc.py')}` }],
        suites: ['lifecycle'],
        reporters: ['json'],
        outDir: 'o',
      }),
    );
    const r = await cli(['run', '--config', join(other, 'c.json'), '--quiet']);
    expect(r.code, r.stderr).toBe(0);
    expect(JSON.parse(readFileSync(join(other, 'o', 'report.json'), 'utf8')).server.name).toBe('calc');
    writeFileSync(join(other, 'bad.yaml'), 'targets:\n  - stdio: x\n    colour: red\n');
    const bad = await cli(['run', '--config', join(other, 'bad.yaml')]);
    expect(bad.code).toBe(2);
    expect(bad.stderr).toContain('targets[0].colour: unknown key');
  });
});
