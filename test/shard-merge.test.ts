/**
 * `run --shard i/n` and `merge`: a stable split of a config's targets (by identity, not position: disjoint, complete,
 * the same target always in the same shard), and shard reports joined into the report a serial run writes, with its
 * exit code; bad shard specs and bad reports are usage errors that say why.
 */
import { existsSync, mkdtempSync, readFileSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { beforeAll, describe, expect, it } from 'vitest';
import type { Report } from '../core/results.js';
import { parseShard, selectShard, ShardError } from '../core/shard.js';
import type { CombinedReport } from '../reports/types.js';
import { cli, FIXTURES } from './helpers/cli.js';
import { all, parseXml } from './helpers/xml.js';

const target = (name: string) => ({ name, argv: { stdio: `python3 ${name}.py` } });

describe('shards', () => {
  it('reads i/n and refuses 0/3, 4/3 and garbage with the reason', () => {
    expect(parseShard('2/3')).toEqual({ index: 2, count: 3 });
    expect(() => parseShard('0/3')).toThrow(/shards count from 1 \(1\/3 … 3\/3\)/);
    expect(() => parseShard('4/3')).toThrow(/there are only 3 shards/);
    expect(() => parseShard('1/0')).toThrow(ShardError);
    expect(() => parseShard('two')).toThrow(/expected INDEX\/COUNT/);
  });

  it('splits targets disjointly and completely, by identity: reordering or adding targets moves none', () => {
    const names = Array.from({ length: 40 }, (_, i) => `server-${i}`);
    const shardOfName = (targets: ReturnType<typeof target>[], n: number) => {
      const m = new Map<string, number>();
      for (let i = 1; i <= n; i++)
        for (const t of selectShard(targets, { index: i, count: n }).targets) {
          expect(m.has(t.name), `${t.name} in two shards`).toBe(false);
          m.set(t.name, i);
        }
      return m;
    };
    const a = shardOfName(names.map(target), 3);
    expect([...a.keys()].sort()).toEqual([...names].sort()); // complete
    expect(new Set(a.values()).size).toBe(3); // 40 targets fill every shard
    const shuffled = [...names].reverse().concat(['new-1', 'new-2']);
    const b = shardOfName(shuffled.map(target), 3);
    for (const n of names) expect(b.get(n)).toBe(a.get(n));
    // The positions each shard reports are those of its targets in the config.
    const s = selectShard(names.map(target), { index: 2, count: 3 });
    expect(s.info).toMatchObject({ index: 2, count: 3, of: 40 });
    expect(s.info.targets.map((i) => names[i])).toEqual(s.targets.map((t) => t.name));
  });
});

describe('run --shard and merge through the CLI', () => {
  const dir = mkdtempSync(join(tmpdir(), 'mcp-conform-shards-'));
  const servers = [
    'calc.py',
    'broken/stray-stdout.py',
    'broken/schema-violation.py',
    'calc-all.py',
    'surface-ok.py',
    'broken/unknown-tool-iserror.py',
  ];
  writeFileSync(
    join(dir, 'mcp-conform.config.yaml'),
    [
      'suites: [lifecycle, stdio]',
      'targets:',
      ...servers.flatMap((s) => [
        `  - name: ${s.replace(/^broken\//, '').replace(/\.py$/, '')}`,
        `    stdio: python3 ${join(FIXTURES, s)}`,
      ]),
    ].join('\n'),
  );
  const names = servers.map((s) => s.replace(/^broken\//, '').replace(/\.py$/, ''));
  const verdicts = (runs: Report[]) =>
    runs.map((r) => [r.target.name, r.exitCode, r.suites.flatMap((s) => s.cases.map((c) => `${c.id}=${c.verdict}`))]);
  let serial: CombinedReport;
  let serialCode: number | null;
  const shardReports: CombinedReport[] = [];

  beforeAll(async () => {
    const s = await cli(['run', '--out-dir', 'serial', '--reporter', 'json', '--quiet'], {
      cwd: dir,
      timeoutMs: 240_000,
    });
    serialCode = s.code;
    serial = JSON.parse(readFileSync(join(dir, 'serial', 'report.json'), 'utf8')) as CombinedReport;
    for (const i of [1, 2, 3]) {
      const r = await cli(['run', '--shard', `${i}/3`, '--out-dir', `shard-${i}`, '--reporter', 'json', '--quiet'], {
        cwd: dir,
        timeoutMs: 240_000,
      });
      expect(r.code, r.stderr).toBeLessThan(2);
      shardReports.push(JSON.parse(readFileSync(join(dir, `shard-${i}`, 'report.json'), 'utf8')) as CombinedReport);
    }
  }, 600_000);

  it('three shards partition the targets: each report says which shard and which config positions it holds', () => {
    expect(serialCode).toBe(1);
    const got = shardReports.flatMap((r) => r.runs.map((x) => x.target.name));
    expect([...got].sort()).toEqual([...names].sort());
    shardReports.forEach((r, i) => {
      expect(r.shard).toMatchObject({ index: i + 1, count: 3, of: 6 });
      expect(r.shard!.targets.map((p) => names[p])).toEqual(r.runs.map((x) => x.target.name));
    });
  });

  it('merge equals the serial report (runs in config order, same verdicts, same exit code) with every reporter', async () => {
    const m = await cli(
      [
        'merge',
        ...[3, 1, 2].map((i) => join(dir, `shard-${i}`, 'report.json')),
        '--out-dir',
        'merged',
        '--reporter',
        'console',
        '--reporter',
        'json',
        '--reporter',
        'junit',
        '--reporter',
        'html',
        '--reporter',
        'sarif',
        '--reporter',
        'github',
      ],
      { cwd: dir },
    );
    expect(m.code, m.stderr).toBe(serialCode);
    const merged = JSON.parse(readFileSync(join(dir, 'merged', 'report.json'), 'utf8')) as CombinedReport;
    expect(verdicts(merged.runs)).toEqual(verdicts(serial.runs));
    expect(merged.exitCode).toBe(serial.exitCode);
    expect(merged.summary).toEqual(serial.summary);
    expect(merged.shard).toBeUndefined();
    // Console: every target, the totals line, the result of the whole.
    for (const n of names) expect(m.stdout).toContain(n);
    expect(m.stdout).toMatch(/All targets: .* 6 targets/);
    // JUnit: a testcase per case of every target; HTML: an overview row per target; SARIF and the summary written.
    const junit = parseXml(readFileSync(join(dir, 'merged', 'junit.xml'), 'utf8'));
    expect(all(junit, 'testcase')).toHaveLength(serial.summary.total);
    const html = readFileSync(join(dir, 'merged', 'report.html'), 'utf8');
    const overview = /<table class="runs">([\s\S]*?)<\/table>/.exec(html)![1];
    expect([...overview.matchAll(/<a href="#run-\d+">([^<]+)<\/a>/g)].map((x) => x[1])).toEqual(names);
    const sarif = JSON.parse(readFileSync(join(dir, 'merged', 'report.sarif'), 'utf8')) as {
      runs: { results: unknown[] }[];
    };
    expect(sarif.runs[0].results).toHaveLength(serial.summary.fail + serial.summary.warn);
    expect(readFileSync(join(dir, 'merged', 'summary.md'), 'utf8')).toContain('6 targets');
  });

  it('an empty shard writes an empty report that merge accepts', async () => {
    // One target over five shards: four have none.
    const one = join(dir, 'one.yaml');
    writeFileSync(
      one,
      ['suites: [lifecycle]', 'targets:', '  - name: calc', `    stdio: python3 ${join(FIXTURES, 'calc.py')}`].join(
        '\n',
      ),
    );
    const files: string[] = [];
    for (let i = 1; i <= 5; i++) {
      const r = await cli(
        ['run', '--config', one, '--shard', `${i}/5`, '--out-dir', `one-${i}`, '--reporter', 'json', '--quiet'],
        { cwd: dir },
      );
      expect(r.code, r.stderr).toBe(0);
      files.push(join(dir, `one-${i}`, 'report.json'));
    }
    const runs = files.map((f) => (JSON.parse(readFileSync(f, 'utf8')) as CombinedReport).runs.length);
    expect(runs.filter((n) => n === 1)).toHaveLength(1);
    const m = await cli(['merge', ...files, '--out-dir', 'one-merged', '--reporter', 'json', '--quiet'], { cwd: dir });
    expect(m.code, m.stderr).toBe(0);
    expect((JSON.parse(readFileSync(join(dir, 'one-merged', 'report.json'), 'utf8')) as Report).target.name).toBe(
      'calc',
    );
  }, 120_000);

  it('usage errors (exit 2) that say why: 0/3, 4/3, a missing shard, a file that is not a report, another version', async () => {
    for (const [spec, why] of [
      ['0/3', 'shards count from 1'],
      ['4/3', 'there are only 3 shards'],
    ]) {
      const r = await cli(['run', '--shard', spec], { cwd: dir });
      expect(r.code).toBe(2);
      expect(r.stderr).toContain(why);
    }
    const missing = await cli(
      ['merge', join(dir, 'shard-1', 'report.json'), join(dir, 'shard-3', 'report.json'), '--quiet'],
      { cwd: dir },
    );
    expect(missing.code).toBe(2);
    expect(missing.stderr).toContain('shard 2/3 missing');
    const twice = await cli(
      [
        'merge',
        join(dir, 'shard-1', 'report.json'),
        join(dir, 'shard-1', 'report.json'),
        join(dir, 'shard-2', 'report.json'),
        '--quiet',
      ],
      { cwd: dir },
    );
    expect(twice.code).toBe(2);
    expect(twice.stderr).toContain('are both shard 1/3');
    writeFileSync(join(dir, 'not-a-report.json'), '{"hello": "world"}');
    const notReport = await cli(['merge', join(dir, 'not-a-report.json')], { cwd: dir });
    expect(notReport.code).toBe(2);
    expect(notReport.stderr).toContain('not-a-report.json is not a report');
    writeFileSync(join(dir, 'garbage.json'), 'junit?');
    expect((await cli(['merge', join(dir, 'garbage.json')], { cwd: dir })).stderr).toMatch(
      /garbage\.json is not a report: not JSON/,
    );
    const old = JSON.parse(readFileSync(join(dir, 'shard-2', 'report.json'), 'utf8')) as CombinedReport;
    old.tool.version = '0.0.1';
    writeFileSync(join(dir, 'old.json'), JSON.stringify(old));
    const other = await cli(
      ['merge', join(dir, 'shard-1', 'report.json'), join(dir, 'old.json'), join(dir, 'shard-3', 'report.json')],
      { cwd: dir },
    );
    expect(other.code).toBe(2);
    expect(other.stderr).toMatch(/old\.json was written by mcp-conform 0\.0\.1; this is mcp-conform \d/);
    expect(existsSync(join(dir, 'mcp-conform-report'))).toBe(false); // nothing written
  }, 120_000);
});
