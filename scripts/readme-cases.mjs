#!/usr/bin/env node
// Regenerates the table of cases in README.md (between <!-- cases:start --> and <!-- cases:end -->) from
// `mcp-conform list --format markdown`. Run after adding or renaming a case: npm run readme:cases.
// test/reports-catalogue.test.ts fails while the README and the generated table differ.
import { execFileSync } from 'node:child_process';
import { readFileSync, writeFileSync } from 'node:fs';
import { dirname, join } from 'node:path';
import { fileURLToPath } from 'node:url';

const root = join(dirname(fileURLToPath(import.meta.url)), '..');
const table = execFileSync(process.execPath, [join(root, 'dist', 'bin', 'mcp-conform.js'), 'list', '--format', 'markdown'], { encoding: 'utf8', timeout: 30_000 });
const file = join(root, 'README.md');
const readme = readFileSync(file, 'utf8');
const re = /(<!-- cases:start[^>]*-->\n)[\s\S]*?(<!-- cases:end -->)/;
if (!re.test(readme)) {
  console.error('README.md has no <!-- cases:start --> … <!-- cases:end --> markers');
  process.exit(1);
}
let next = readme.replace(re, (_, start, end) => `${start}${table}${end}`);
// The provider rule table of the compat suite (test/compat.test.ts keeps it current).
const rules = execFileSync(process.execPath, [join(root, 'dist', 'bin', 'mcp-conform.js'), 'list', '--rules', '--format', 'markdown'], { encoding: 'utf8', timeout: 30_000 });
next = next.replace(/(<!-- rules:start[^>]*-->\n)[\s\S]*?(<!-- rules:end -->)/, (_, start, end) => `${start}${rules}${end}`);
if (next === readme) console.log('README.md: the table of cases is current');
else {
  writeFileSync(file, next);
  console.log('README.md: table of cases updated');
}
