/** --update-baseline and --baseline through the CLI, against fixture servers. */
import { mkdtempSync, readFileSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { describe, expect, it } from 'vitest';
import { parseBaseline } from '../core/baseline.js';
import type { Report } from '../core/results.js';
import { cli, py } from './helpers/cli.js';

const readReport = (dir: string) => JSON.parse(readFileSync(join(dir, 'report.json'), 'utf8')) as Report;

describe('baselines from the command line', () => {
  const dir = mkdtempSync(join(tmpdir(), 'mcp-conform-baseline-'));
  const file = join(dir, 'known-failures.yaml');

  it('--update-baseline on a failing server writes every failure and exits 0; --baseline with it exits 0; on a passing server the entries are stale', async () => {
    const broken = py('broken/schema-violation.py');
    const first = await cli(['run', '--stdio', broken, '--out-dir', join(dir, 'one'), '--update-baseline', file]);
    expect(first.code, first.stdout + first.stderr).toBe(0);
    const written = parseBaseline(readFileSync(file, 'utf8'), file);
    const failing = readReport(join(dir, 'one'))
      .suites.flatMap((s) => s.cases)
      .filter((c) => c.verdict === 'fail')
      .map((c) => c.id);
    expect(failing.length).toBeGreaterThan(0);
    expect(written.entries.map((e) => e.id).sort()).toEqual([...failing].sort());
    expect(first.stdout).toContain(`Reports: `);
    expect(first.stdout).toContain(file);

    const second = await cli(['run', '--stdio', broken, '--out-dir', join(dir, 'two'), '--baseline', file]);
    expect(second.code, second.stdout + second.stderr).toBe(0);
    expect(second.stdout).toMatch(
      new RegExp(`Result: no failures \\(${failing.length} known failures? in the baseline\\)`),
    );
    expect(second.stdout).toContain('~ fail  schema/from-server/tools/list');
    const r2 = readReport(join(dir, 'two'));
    expect(r2.exitCode).toBe(0);
    expect(r2.summary.baselined).toBe(failing.length);
    expect(r2.summary.fail).toBe(failing.length);
    expect(r2.baseline).toMatchObject({ file, format: 'mcp-conform', stale: [] });
    for (const c of r2.suites.flatMap((s) => s.cases).filter((x) => x.verdict === 'fail'))
      expect(c.baselined).toBe(true);

    // The same baseline on a server that passes: exit 0, every entry reported stale.
    const third = await cli(['run', '--stdio', py('calc.py'), '--out-dir', join(dir, 'three'), '--baseline', file]);
    expect(third.code, third.stdout + third.stderr).toBe(0);
    for (const id of failing) expect(third.stdout).toMatch(new RegExp(`! stale  ${id.replace(/[/]/g, '\\/')} — `));
    expect(third.stdout).toContain(`${failing.length} stale baseline entr`);
    const r3 = readReport(join(dir, 'three'));
    expect(r3.baseline!.stale.map((s) => s.entry).sort()).toEqual([...failing].sort());

    // Under --strict a stale entry fails the run.
    const strict = await cli([
      'run',
      '--stdio',
      py('calc.py'),
      '--out-dir',
      join(dir, 'four'),
      '--baseline',
      file,
      '--strict',
      '--suite',
      'lifecycle,listing,schema',
      '--quiet',
    ]);
    expect(strict.code).toBe(1);
  });

  it('accepts the official expected-failures shape', async () => {
    const ef = join(dir, 'expected-failures.yaml');
    writeFileSync(
      ef,
      'server:\n  - stdio:stdout-only-messages\n  - tools-call-with-progress\nclient:\n  - sse-retry\n',
    );
    const r = await cli([
      'run',
      '--stdio',
      py('broken/stray-stdout.py'),
      '--out-dir',
      join(dir, 'ef'),
      '--baseline',
      ef,
      '--suite',
      'lifecycle,stdio',
    ]);
    expect(r.code, r.stdout + r.stderr).toBe(0);
    const rep = readReport(join(dir, 'ef'));
    expect(rep.baseline!.format).toBe('expected-failures');
    expect(rep.baseline!.used).toEqual(['stdio:stdout-only-messages']);
    expect(rep.baseline!.unchecked).toEqual(['tools-call-with-progress']);
  });

  it('a baseline that cannot be read is a usage error before anything runs', async () => {
    const bad = join(dir, 'bad.yaml');
    writeFileSync(bad, 'failures:\n  - stdio/utf8: oops\n');
    const r = await cli(['run', '--stdio', py('calc.py'), '--out-dir', join(dir, 'bad'), '--baseline', bad]);
    expect(r.code).toBe(2);
    expect(r.stderr).toContain('is a mapping');
    const missing = await cli(['run', '--stdio', py('calc.py'), '--baseline', join(dir, 'nope.yaml')]);
    expect(missing.code).toBe(2);
    expect(missing.stderr).toContain('cannot read the baseline');
  });
});
