// Writes test/setup/durations.json, the seconds each test file took in a full run, from vitest's JSON report:
//   npx vitest run --reporter=json --outputFile=/tmp/vitest.json && node scripts/test-durations.mjs /tmp/vitest.json
// test/setup/sequencer.ts starts the longest files first by these figures where vitest has none cached (a fresh clone).
import { readFileSync, writeFileSync } from 'node:fs';
import { dirname, join, relative } from 'node:path';
import { fileURLToPath } from 'node:url';

const root = join(dirname(fileURLToPath(import.meta.url)), '..');
const from = process.argv[2];
if (!from) {
  console.error('usage: node scripts/test-durations.mjs VITEST_JSON_REPORT');
  process.exit(2);
}
const report = JSON.parse(readFileSync(from, 'utf8'));
const out = {};
for (const r of report.testResults.toSorted((a, b) => b.endTime - b.startTime - (a.endTime - a.startTime))) {
  const seconds = Math.round((r.endTime - r.startTime) / 100) / 10;
  out[relative(root, r.name)] = seconds; // the file's path from the package root, as the sequencer looks it up
}
writeFileSync(join(root, 'test', 'setup', 'durations.json'), `${JSON.stringify(out, null, 2)}\n`);
console.log(`test/setup/durations.json: ${Object.keys(out).length} files`);
