/** The case catalogue (`list --format markdown|json`) and docs/suites.md that carries it; the examples of the docs hold. */
import { mkdtempSync, readFileSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { describe, expect, it } from 'vitest';
import { parseBaseline } from '../core/baseline.js';
import { loadConfig } from '../lib/config.js';
import { cli, ROOT } from './helpers/cli.js';

const page = (file: string) => readFileSync(join(ROOT, file), 'utf8');

describe('case catalogue', () => {
  it('list --format markdown is a table with a row per case of list --format json', async () => {
    const [md, json] = await Promise.all([cli(['list', '--format', 'markdown']), cli(['list', '--format', 'json'])]);
    expect(md.code).toBe(0);
    expect(json.code).toBe(0);
    const doc = JSON.parse(json.stdout) as { suites: { cases: { id: string; level: string; spec: string }[] }[] };
    const cases = doc.suites.flatMap((s) => s.cases);
    const rows = md.stdout.trimEnd().split('\n');
    expect(rows.slice(0, 2)).toEqual(['| id | level | checks |', '|---|---|---|']);
    expect(rows.slice(2).map((r) => /^\| \[`([^`]+)`\]\(([^)]+)\) \| (\w+) \|/.exec(r)!.slice(1))).toEqual(
      cases.map((c) => [c.id, c.spec, c.level]),
    );
  });

  it('docs/suites.md carries the generated table (regenerate with: npm run docs:generate)', async () => {
    const md = await cli(['list', '--format', 'markdown']);
    const m = /<!-- cases:start[^>]*-->\n([\s\S]*?)<!-- cases:end -->/.exec(page('docs/suites.md'));
    expect(m, 'docs/suites.md lacks the <!-- cases:start --> … <!-- cases:end --> markers').not.toBeNull();
    expect(m![1], 'the table of cases in docs/suites.md is out of date: run npm run docs:generate').toBe(md.stdout);
  });

  it('links each case to a spec version it applies to (a 2026-only case to the 2026-07-28 page, an old one to its own)', async () => {
    const { ALL_SUITES } = await import('../suites/index.js');
    const { versionsOfCase } = await import('../core/applies.js');
    const json = await cli(['list', '--format', 'json']);
    const listed = new Map(
      (JSON.parse(json.stdout) as { suites: { cases: { id: string; spec: string }[] }[] }).suites
        .flatMap((s) => s.cases)
        .map((c) => [c.id.replace(/\/<[^>]+>$/, ''), c.spec]),
    );
    const only2026 = ALL_SUITES.flatMap((s) => s.cases).filter((c) => versionsOfCase(c).join() === '2026-07-28');
    expect(only2026.map((c) => c.id)).toContain('surface-2026/cache-hints');
    for (const c of only2026) expect(listed.get(c.id), c.id).toMatch(/\/specification\/2026-07-28\//);
    expect(listed.get('client-lifecycle/ping-answered')).toMatch(/\/specification\/2025-11-25\//); // applies up to and including 2025-11-25
  });
});

describe('examples of the docs', () => {
  const block = (file: string, marker: string) => {
    const m = new RegExp('```yaml\\n(# ' + marker.replace(/[.]/g, '\\.') + '\\n[\\s\\S]*?)```').exec(page(file));
    expect(m, `no yaml block starting with "# ${marker}" in ${file}`).not.toBeNull();
    return m![1];
  };

  it('the config file example (docs/run.md) fits the schema', () => {
    const dir = mkdtempSync(join(tmpdir(), 'mcp-conform-readme-'));
    writeFileSync(join(dir, 'mcp-conform.config.yaml'), block('docs/run.md', 'mcp-conform.config.yaml'));
    const c = loadConfig(join(dir, 'mcp-conform.config.yaml'));
    expect((c.config.targets as unknown[]).length).toBe(3);
  });

  it('the baseline example (docs/ci.md) reads', () => {
    const b = parseBaseline(block('docs/ci.md', 'mcp-conform-baseline.yaml'), 'docs/ci.md');
    expect(b.entries.map((e) => e.id)).toEqual([
      'stdio/stdout-only-messages',
      'listing/input-schema',
      'calling/tool/export',
    ]);
    expect(b.entries[2].target).toBe('staging');
  });

  it('the workflow snippets (README, docs/ci.md) use the inputs action.yml declares', () => {
    const action = readFileSync(join(ROOT, 'action.yml'), 'utf8');
    const snippets = ['README.md', 'docs/ci.md'].flatMap((f) =>
      [...page(f).matchAll(/- uses: <owner>\/mcp-conform@v1\n\s+with:\n((?:\s+[a-z-]+:.*\n)+)/g)].map(
        (m) => [f, m[1]] as const,
      ),
    );
    expect(snippets.length).toBeGreaterThanOrEqual(3);
    for (const [f, s] of snippets) {
      const used = [...s.matchAll(/^\s+([a-z-]+):/gm)].map((x) => x[1]);
      expect(used.length).toBeGreaterThan(0);
      for (const k of used) expect(action, `${f}: input ${k}`).toMatch(new RegExp(`^  ${k}:`, 'm'));
    }
  });
});
