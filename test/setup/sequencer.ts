/**
 * The order test files start in: the longest first, whatever their project. vitest's own order runs the projects one
 * after the other (cli, then peers, then unit), so the peers' longest files started only once every cli file had, and
 * the run ended on them. Here a file's length is the duration vitest cached from the last run on this machine, else
 * its figure in durations.json (a full run on the two-core development machine; docs/developing.md), else unknown
 * (those go after, in vitest's order). Only the order changes: every file still runs.
 */
import { readFileSync } from 'node:fs';
import { join, relative } from 'node:path';
import { BaseSequencer, type TestSpecification } from 'vitest/node';

/**
 * Seconds each test file took in a full run on the two-core development machine (`scripts/test-durations.mjs` writes
 * them from vitest's JSON report).
 */
export const LONGEST: Record<string, number> = JSON.parse(
  readFileSync(join(import.meta.dirname, 'durations.json'), 'utf8'),
);

export default class LongestFirst extends BaseSequencer {
  override async sort(files: TestSpecification[]): Promise<TestSpecification[]> {
    const base = await super.sort(files);
    const root = this.ctx.config.root;
    const seconds = (s: TestSpecification): number => {
      const file = relative(root, s.moduleId);
      const cached = this.ctx.cache.getFileTestResults(`${s.project.name}:${file}`);
      if (cached) return cached.duration / 1000;
      return LONGEST[file.replace(/^test\//, '').replace(/\.test\.ts$/, '')] ?? 0;
    };
    const at = new Map(base.map((s, i) => [s, i]));
    return [...base].sort((a, b) => seconds(b) - seconds(a) || at.get(a)! - at.get(b)!);
  }
}
