/**
 * The README and the docs pages: every relative link resolves (the file exists; an #anchor names a heading of the
 * target, by GitHub's slug), the generated tables are current, and the options tables say what `--help` says.
 */
import { spawnSync } from 'node:child_process';
import { existsSync, readdirSync, readFileSync, statSync } from 'node:fs';
import { dirname, join, relative, resolve } from 'node:path';
import { describe, expect, it } from 'vitest';
import { commandOptions } from '../scripts/docs-options.mjs';
import { ROOT } from './helpers/cli.js';

const PAGES = [
  'README.md',
  ...readdirSync(join(ROOT, 'docs'))
    .filter((f) => f.endsWith('.md'))
    .map((f) => `docs/${f}`),
];
const read = (file: string) => readFileSync(join(ROOT, file), 'utf8');

/** The text outside fenced code blocks, line by line (a fence's lines become empty: line numbers stay right). */
function prose(text: string): string[] {
  let fenced = false;
  return text.split('\n').map((line) => {
    if (/^\s*(```|~~~)/.test(line)) {
      fenced = !fenced;
      return '';
    }
    return fenced ? '' : line;
  });
}

/** GitHub's anchor of a heading: its text without Markdown, lower case, punctuation dropped, spaces as dashes. */
export function slug(heading: string): string {
  const text = heading
    .replace(/!?\[([^\]]*)\]\([^)]*\)/g, '$1') // links and images: their text
    .replace(/<[^>]+>/g, '') // inline HTML
    .replace(/[`*~]/g, '');
  return text
    .trim()
    .toLowerCase()
    .replace(/[^\p{L}\p{M}\p{N}\p{Pc} -]/gu, '')
    .replace(/ /g, '-');
}

/** The anchors of a page: one per heading, a repeated one numbered as GitHub numbers it (-1, -2…). */
function anchors(file: string): Set<string> {
  const seen = new Map<string, number>();
  const out = new Set<string>();
  for (const line of prose(read(file))) {
    const h = /^#{1,6}\s+(.*?)\s*#*\s*$/.exec(line);
    if (!h) continue;
    const base = slug(h[1]);
    const n = seen.get(base) ?? 0;
    seen.set(base, n + 1);
    out.add(n ? `${base}-${n}` : base);
  }
  return out;
}

interface Link {
  file: string;
  line: number;
  target: string;
}

/** Every Markdown link of a page whose target is not a URL (inline code and code blocks left out). */
function relativeLinks(file: string): Link[] {
  const out: Link[] = [];
  prose(read(file)).forEach((raw, i) => {
    const line = raw.replace(/`[^`]*`/g, '``');
    for (const m of line.matchAll(/\]\(\s*<?([^)\s>]+)>?(?:\s+"[^"]*")?\s*\)/g)) {
      if (!/^[a-z][a-z0-9+.-]*:/i.test(m[1])) out.push({ file, line: i + 1, target: m[1] });
    }
  });
  return out;
}

describe('links in README.md and docs/*.md', () => {
  it('the link reader finds links and anchors as GitHub does', () => {
    expect(slug('`run` options')).toBe('run-options');
    expect(slug('Report contract (`report.json`)')).toBe('report-contract-reportjson');
    expect(slug('`validate`: offline checks of a recorded log')).toBe('validate-offline-checks-of-a-recorded-log');
    expect(slug('Provider compatibility, quality and context cost')).toBe(
      'provider-compatibility-quality-and-context-cost',
    );
    expect(slug('Multi round-trip requests (2026-07-28)')).toBe('multi-round-trip-requests-2026-07-28');
    expect(relativeLinks('README.md').map((l) => l.target)).toContain('docs/run.md');
  });

  it('every relative link names a file that exists, and an #anchor a heading of it', () => {
    const broken: string[] = [];
    for (const page of PAGES) {
      for (const l of relativeLinks(page)) {
        const [path, anchor] = l.target.split('#') as [string, string | undefined];
        const target = path ? relative(ROOT, resolve(ROOT, dirname(page), decodeURIComponent(path))) : page;
        const where = `${l.file}:${l.line}: (${l.target})`;
        if (!existsSync(join(ROOT, target))) broken.push(`${where}: no file ${target}`);
        else if (anchor !== undefined) {
          if (!statSync(join(ROOT, target)).isFile() || !target.endsWith('.md'))
            broken.push(`${where}: an anchor into ${target}, which is no Markdown page`);
          else if (!anchors(target).has(anchor))
            broken.push(`${where}: ${target} has no heading with the anchor #${anchor}`);
        }
      }
    }
    expect(broken, broken.join('\n')).toEqual([]);
  });

  it('the README links every docs page', () => {
    const linked = new Set(relativeLinks('README.md').map((l) => l.target.split('#')[0]));
    const pages = PAGES.filter((p) => p.startsWith('docs/'));
    expect(pages.length).toBeGreaterThan(10);
    expect(
      pages.filter((p) => !linked.has(p)),
      'docs pages the README does not link',
    ).toEqual([]);
  });

  it('the README is the page a newcomer needs: at most 400 lines, with the set-up commands and npm test', () => {
    const readme = read('README.md');
    expect(readme.split('\n').length).toBeLessThanOrEqual(401);
    expect(readme).toContain('npm install && npx mcp-conform run --stdio "python3 fixtures/servers/calc.py"');
    expect(readme).toMatch(/^npm test\b/m);
  });
});

describe('generated tables of the docs pages', () => {
  it('are what the built CLI prints now (regenerate with: npm run docs:generate)', () => {
    const r = spawnSync(process.execPath, [join(ROOT, 'scripts', 'docs-generate.mjs'), '--check'], {
      encoding: 'utf8',
      timeout: 150_000,
    });
    expect(r.status, r.stdout + r.stderr).toBe(0);
  }, 160_000); // a dozen runs of the CLI, one after another: on a loaded machine ~2 s each
});

/** The options of the table under a heading of a page: the first `--flag` of each row's first cell, and its default. */
function tableOptions(file: string, heading: string): Map<string, string> {
  const text = read(file);
  const at = text.indexOf(`\n${heading}\n`);
  expect(at, `${file} has a heading "${heading}"`).toBeGreaterThan(0);
  const rows = text
    .slice(at)
    .split('\n')
    .slice(2)
    .filter((l, i, a) => l.startsWith('|') && a.slice(0, i).every((x) => x.startsWith('|') || x === ''));
  const out = new Map<string, string>();
  for (const row of rows.slice(2)) {
    const cells = row
      .split(/(?<!\\)\|/)
      .slice(1, -1)
      .map((c) => c.trim());
    const flag = /`--([a-z][a-z0-9-]*)/.exec(cells[0] ?? '');
    if (flag) out.set(flag[1], cells[2] ?? '');
  }
  return out;
}

describe('options tables of the docs and --help', () => {
  it('every option that heads a row of a docs table (the faults of serve, say) is an option of a command', () => {
    const COMMANDS = [
      'run',
      'list',
      'validate',
      'lint',
      'tools',
      'serve',
      'client',
      'record',
      'snapshot',
      'diff',
      'expect',
      'merge',
      'load',
    ];
    const known = new Set(COMMANDS.flatMap((c) => commandOptions(c).map((o) => o.name)));
    const unknown: string[] = [];
    let rows = 0;
    for (const page of PAGES) {
      prose(read(page)).forEach((line, i) => {
        const flag = /^\|\s*`--([a-z][a-z0-9-]*)/.exec(line);
        if (flag) rows++;
        if (flag && !known.has(flag[1])) unknown.push(`${page}:${i + 1}: --${flag[1]}`);
      });
    }
    expect(rows).toBeGreaterThan(100);
    expect(unknown, 'options in docs tables that no command --help lists').toEqual([]);
  }, 160_000);
});

describe('docs/run.md and `run --help`', () => {
  const help = commandOptions('run');
  const table = tableOptions('docs/run.md', '## `run` options');

  it('the options table lists every option of --help, and only those', () => {
    expect(help.length).toBeGreaterThan(30);
    const missing = help.map((o) => o.name).filter((n) => !table.has(n));
    const extra = [...table.keys()].filter((n) => !help.some((o) => o.name === n));
    expect(
      missing,
      `options of run --help without a row in docs/run.md's table: ${missing.map((n) => `--${n}`).join(', ')}`,
    ).toEqual([]);
    expect(
      extra,
      `rows of docs/run.md's table that run --help does not know: ${extra.map((n) => `--${n}`).join(', ')}`,
    ).toEqual([]);
  });

  it('where --help shows a default, the table shows the same', () => {
    const wrong = help
      .filter((o) => o.default !== undefined)
      .filter((o) => {
        const cell = table.get(o.name) ?? '';
        return o.default === 'false'
          ? !/\boff\b/.test(cell)
          : !cell
              .replace(/`/g, '')
              .split(/[\s,()]+/)
              .includes(o.default!);
      });
    expect(wrong.map((o) => `--${o.name}: --help says ${o.default}, docs/run.md says "${table.get(o.name)}"`)).toEqual(
      [],
    );
  });
});
