/**
 * report.json: the whole report, the machine-readable contract documented in the README. One target: the report
 * itself. Several targets (a config file): `{ tool, reportVersion, startedAt, durationMs, exitCode, summary, runs }`.
 */
import { mkdir, writeFile } from 'node:fs/promises';
import { join } from 'node:path';
import { combine, type Reporter } from './types.js';

export const jsonReporter: Reporter = {
  name: 'json',
  async onFinished(set, outDir) {
    await mkdir(outDir, { recursive: true });
    const file = join(outDir, 'report.json');
    const doc = set.runs.length === 1 ? set.runs[0] : combine(set);
    await writeFile(file, JSON.stringify(doc, null, 2) + '\n');
    return file;
  },
};
