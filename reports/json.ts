/** report.json: the whole report, the machine-readable contract documented in the README. */
import { mkdir, writeFile } from 'node:fs/promises';
import { join } from 'node:path';
import type { Reporter } from './types.js';

export const jsonReporter: Reporter = {
  name: 'json',
  async onFinished(report, outDir) {
    await mkdir(outDir, { recursive: true });
    const file = join(outDir, 'report.json');
    await writeFile(file, JSON.stringify(report, null, 2) + '\n');
    return file;
  },
};
