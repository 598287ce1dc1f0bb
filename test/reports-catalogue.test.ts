/** The case catalogue (`list --format markdown|json`) and the README that carries it; the README's examples hold. */
import { mkdtempSync, readFileSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { describe, expect, it } from 'vitest';
import { parseBaseline } from '../core/baseline.js';
import { loadConfig } from '../lib/config.js';
import { cli, ROOT } from './helpers/cli.js';

const readme = () => readFileSync(join(ROOT, 'README.md'), 'utf8');

describe('case catalogue', () => {
  it('list --format markdown is a table with a row per case of list --format json', async () => {
    const [md, json] = await Promise.all([cli(['list', '--format', 'markdown']), cli(['list', '--format', 'json'])]);
    expect(md.code).toBe(0);
    expect(json.code).toBe(0);
    const doc = JSON.parse(json.stdout) as { suites: { cases: { id: string; level: string; spec: string }[] }[] };
    const cases = doc.suites.flatMap((s) => s.cases);
    const rows = md.stdout.trimEnd().split('\n');
    expect(rows.slice(0, 2)).toEqual(['| id | level | checks |', '|---|---|---|']);
    expect(rows.slice(2).map((r) => /^\| \[`([^`]+)`\]\(([^)]+)\) \| (\w+) \|/.exec(r)!.slice(1))).toEqual(cases.map((c) => [c.id, c.spec, c.level]));
  });

  it('the README carries the generated table (regenerate with: npm run readme:cases)', async () => {
    const md = await cli(['list', '--format', 'markdown']);
    const m = /<!-- cases:start[^>]*-->\n([\s\S]*?)<!-- cases:end -->/.exec(readme());
    expect(m, 'README.md lacks the <!-- cases:start --> … <!-- cases:end --> markers').not.toBeNull();
    expect(m![1], 'the README table of cases is out of date: run npm run readme:cases').toBe(md.stdout);
  });

  it('links each case to a spec version it applies to (a 2026-only case to the 2026-07-28 page, an old one to its own)', async () => {
    const { ALL_SUITES } = await import('../suites/index.js');
    const { versionsOfCase } = await import('../core/applies.js');
    const json = await cli(['list', '--format', 'json']);
    const listed = new Map((JSON.parse(json.stdout) as { suites: { cases: { id: string; spec: string }[] }[] }).suites.flatMap((s) => s.cases).map((c) => [c.id.replace(/\/<[^>]+>$/, ''), c.spec]));
    const only2026 = ALL_SUITES.flatMap((s) => s.cases).filter((c) => versionsOfCase(c).join() === '2026-07-28');
    expect(only2026.map((c) => c.id)).toContain('surface-2026/cache-hints');
    for (const c of only2026) expect(listed.get(c.id), c.id).toMatch(/\/specification\/2026-07-28\//);
    expect(listed.get('client-lifecycle/ping-answered')).toMatch(/\/specification\/2025-11-25\//); // applies up to and including 2025-11-25
  });
});

describe('README examples', () => {
  const block = (marker: string) => {
    const m = new RegExp('```yaml\\n(# ' + marker.replace(/[.]/g, '\\.') + '\\n[\\s\\S]*?)```').exec(readme());
    expect(m, `no yaml block starting with "# ${marker}"`).not.toBeNull();
    return m![1];
  };

  it('the config file example fits the schema', () => {
    const dir = mkdtempSync(join(tmpdir(), 'mcp-conform-readme-'));
    writeFileSync(join(dir, 'mcp-conform.config.yaml'), block('mcp-conform.config.yaml'));
    const c = loadConfig(join(dir, 'mcp-conform.config.yaml'));
    expect((c.config.targets as unknown[]).length).toBe(3);
  });

  it('the baseline example reads', () => {
    const b = parseBaseline(block('mcp-conform-baseline.yaml'), 'README');
    expect(b.entries.map((e) => e.id)).toEqual(['stdio/stdout-only-messages', 'listing/input-schema', 'calling/tool/export']);
    expect(b.entries[2].target).toBe('staging');
  });

  it('the workflow snippet uses the inputs action.yml declares', () => {
    const action = readFileSync(join(ROOT, 'action.yml'), 'utf8');
    const m = /- uses: <owner>\/mcp-conform@v1\n\s+with:\n([\s\S]*?)```/.exec(readme())!;
    const used = [...m[1].matchAll(/^\s+([a-z-]+):/gm)].map((x) => x[1]);
    expect(used.length).toBeGreaterThan(0);
    for (const k of used) expect(action).toMatch(new RegExp(`^  ${k}:`, 'm'));
  });
});
