#!/usr/bin/env node
// Writes the generated parts of the docs pages, each between markers `<!-- NAME:start … -->` and `<!-- NAME:end -->`
// in docs/*.md, from the built CLI (run `npm run build` first; `npm run docs:generate` does both):
//   cases           the table of cases: `mcp-conform list --format markdown`
//   rules           the provider rule table of the compat suite: `mcp-conform list --rules --format markdown`
//   surface-rules   the rule table of `diff` (core/surface/rules.ts)
//   options:CMD     the options of `mcp-conform CMD --help`, as a table
// Run after adding or renaming a case, a rule or an option. With --check it writes nothing and exits 1 when a page
// is out of date (test/docs.test.ts and test/reports-catalogue.test.ts fail then too).
import { readdirSync, readFileSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { pathToFileURL } from 'node:url';
import { cliOutput, commandOptions, optionsTable, ROOT } from './docs-options.mjs';

export const REGENERATE = 'npm run docs:generate';

const producers = {
  cases: () => cliOutput(['list', '--format', 'markdown']),
  rules: () => cliOutput(['list', '--rules', '--format', 'markdown']),
  'surface-rules': async () =>
    (await import(pathToFileURL(join(ROOT, 'dist', 'core', 'surface', 'rules.js')).href)).rulesMarkdown(),
};

async function produce(name) {
  if (name.startsWith('options:')) return optionsTable(commandOptions(name.slice('options:'.length)));
  if (!producers[name]) throw new Error(`unknown generated block <!-- ${name}:start -->`);
  return producers[name]();
}

/** Every docs page with its generated blocks brought up to date: [{ file, text, next, stale: [names] }]. */
export async function generate() {
  const dir = join(ROOT, 'docs');
  const out = [];
  for (const f of readdirSync(dir)
    .filter((n) => n.endsWith('.md'))
    .sort()) {
    const file = join(dir, f);
    const text = readFileSync(file, 'utf8');
    const re = /(<!-- ([a-z][\w:-]*):start[^>]*-->\n)([\s\S]*?)(<!-- \2:end -->)/g;
    let next = '';
    let at = 0;
    const stale = [];
    for (const m of text.matchAll(re)) {
      const body = await produce(m[2]);
      if (body !== m[3]) stale.push(m[2]);
      next += text.slice(at, m.index) + m[1] + body + m[4];
      at = m.index + m[0].length;
    }
    next += text.slice(at);
    out.push({ file: `docs/${f}`, text, next, stale });
  }
  return out;
}

if (import.meta.url === pathToFileURL(process.argv[1]).href) {
  const check = process.argv.includes('--check');
  const pages = await generate();
  const stale = pages.filter((p) => p.stale.length);
  for (const p of stale) {
    if (check) console.log(`${p.file}: out of date: ${p.stale.join(', ')}`);
    else {
      writeFileSync(join(ROOT, p.file), p.next);
      console.log(`${p.file}: updated ${p.stale.join(', ')}`);
    }
  }
  if (!stale.length) console.log('docs: every generated table is current');
  else if (check) {
    console.log(`regenerate with: ${REGENERATE}`);
    process.exitCode = 1;
  }
}
