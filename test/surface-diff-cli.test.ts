/** `mcp-conform diff` (the built CLI) on the fixture pairs of fixtures/surface: exit codes and output formats. */
import { mkdtempSync, readFileSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { describe, expect, it } from 'vitest';
import { parseSurfaceFile, type Snapshot } from '../core/surface/snapshot.js';
import { cli, ROOT } from './helpers/cli.js';

const DIR = join(ROOT, 'fixtures', 'surface');

function read(file: string): Snapshot {
  return parseSurfaceFile(readFileSync(file, 'utf8'), file).snapshot;
}

describe('mcp-conform diff', () => {
  const tmp = mkdtempSync(join(tmpdir(), 'mcp-conform-diff-'));
  const pair = (p: string) => [join(DIR, p, 'old.json'), join(DIR, p, 'new.json')];

  it('exit 1 on a breaking change, with each change on a line', async () => {
    const r = await cli(['diff', ...pair('prompts')]);
    expect(r.code).toBe(1);
    expect(r.stdout).toContain('4 breaking, 3 compatible, 2 cosmetic');
    expect(r.stdout).toMatch(
      /prompt summarize \/arguments\/3: new required argument "length": prompts\/get without it is refused {2}\[prompt.argument-required-added\]/,
    );
  });

  it('exit 0 when nothing breaks; --fail-on compatible fails on any change, and not on identical snapshots', async () => {
    const old = read(join(DIR, 'tools', 'old.json'));
    const next = structuredClone(old);
    next.tools!.push({ name: 'brand_new', inputSchema: { type: 'object' } });
    const f1 = join(tmp, 'a.json');
    const f2 = join(tmp, 'b.json');
    writeFileSync(f1, JSON.stringify(old));
    writeFileSync(f2, JSON.stringify(next));
    const ok = await cli(['diff', f1, f2]);
    expect(ok.code).toBe(0);
    expect(ok.stdout).toContain('0 breaking, 1 compatible, 0 cosmetic');
    expect((await cli(['diff', f1, f2, '--fail-on', 'compatible'])).code).toBe(1);
    const same = await cli(['diff', f1, f1, '--fail-on', 'compatible']);
    expect(same.code).toBe(0);
    expect(same.stdout).toContain('no changes');
  });

  it('--format json: the changes with severity, kind, name, path, rule and message', async () => {
    const r = await cli(['diff', ...pair('capabilities'), '--format', 'json']);
    expect(r.code).toBe(1);
    const d = JSON.parse(r.stdout) as {
      diffVersion: number;
      summary: Record<string, number>;
      changes: Record<string, unknown>[];
    };
    expect(d.diffVersion).toBe(1);
    expect(d.summary).toEqual({ breaking: 4, compatible: 1, cosmetic: 2 });
    expect(d.changes.find((c) => c.name === 'logging')).toMatchObject({
      severity: 'breaking',
      kind: 'capability',
      name: 'logging',
      path: '/logging',
      rule: 'capability.removed',
      message: 'capability logging removed',
      before: {},
    });
  });

  it('--format markdown: a PR comment with a headline and tables', async () => {
    const r = await cli(['diff', ...pair('tools'), '--format', 'markdown']);
    expect(r.stdout).toMatch(/^## MCP surface: ❌ 7 breaking changes/);
    expect(r.stdout).toContain(
      '| tool | `legacy_export` |  | tool "legacy\\_export" removed: calls to it fail | `tool.removed` |',
    );
    expect(r.stdout).toContain('<details><summary>Cosmetic (4)</summary>');
  });

  it('exit 2 for unreadable input, with the reason', async () => {
    const bad = join(tmp, 'bad.json');
    writeFileSync(bad, 'not json');
    const r1 = await cli(['diff', bad, join(DIR, 'tools', 'old.json')]);
    expect(r1.code).toBe(2);
    expect(r1.stderr).toContain('is not JSON');
    const r2 = await cli(['diff', join(tmp, 'missing.json'), join(DIR, 'tools', 'old.json')]);
    expect(r2.code).toBe(2);
    expect(r2.stderr).toContain('ENOENT');
    expect(r2.stdout).toBe('');
  });
});
