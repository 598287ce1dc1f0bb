/**
 * The verdict guard's comparison (test/verdicts.test.ts, test/verdicts-peers.test.ts): a run's case id → verdict
 * against the recorded test/verdicts/<name>.json. VERDICTS_UPDATE=1 rewrites the file instead (explain the change in
 * the commit).
 */
import { existsSync, mkdirSync, readFileSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { expect } from 'vitest';
import { ROOT, type RunResult } from './cli.js';

const DIR = join(ROOT, 'test', 'verdicts');
const UPDATE = !!process.env.VERDICTS_UPDATE;

export type Verdicts = Record<string, string>;

/**
 * Cases whose verdict depends on timing on a loaded machine rather than on the code (none known so far; a case listed
 * here must say why).
 */
const TIMING_DEPENDENT: Record<string, string> = {};

export function verdictsOf(r: RunResult): Verdicts {
  const out: Verdicts = {};
  for (const c of r.report.suites.flatMap((s) => s.cases)) if (!(c.id in TIMING_DEPENDENT)) out[c.id] = c.verdict;
  return out;
}

export function check(name: string, got: Verdicts): void {
  const file = join(DIR, `${name}.json`);
  if (UPDATE || !existsSync(file)) {
    mkdirSync(DIR, { recursive: true });
    writeFileSync(file, JSON.stringify(got, Object.keys(got).sort(), 2) + '\n');
    if (!UPDATE) throw new Error(`${file} was missing: written now; check it and commit it`);
    return;
  }
  const want = JSON.parse(readFileSync(file, 'utf8')) as Verdicts;
  const diff: string[] = [];
  for (const id of new Set([...Object.keys(want), ...Object.keys(got)])) {
    if (want[id] !== got[id]) diff.push(`${id}: recorded ${want[id] ?? '(absent)'}, now ${got[id] ?? '(absent)'}`);
  }
  expect(diff, `verdicts of ${name} changed`).toEqual([]);
}
