/**
 * The order test files start in: project by project (peers, unit, cli), each project's files longest first.
 * - vitest's own order runs the projects by name (cli, then peers, then unit): the peers' longest files started only
 *   once every cli file had, and the run ended on them. peers goes first: it has the longest files.
 * - The files of one project stay together because vitest reuses a worker process (isolate: false) only for a file of
 *   the same project as the one it just ran: the longest first whatever its project had it start 81 workers in a full
 *   run, each importing vitest and the helpers again (~0.8 s of CPU each, on a run the CPU bounds).
 * - cli ends the run: its many short files keep the last workers evenly busy to the end, where the unit project's
 *   20-second file (suites/robustness) ran alone.
 * A file's length is the duration vitest cached from the last run on this machine, else its figure in durations.json
 * (a full run on the two-core development machine; docs/developing.md), else unknown (those go after, in vitest's
 * order). Only the order changes: every file still runs.
 */
import { readFileSync } from 'node:fs';
import { join, relative } from 'node:path';
import { BaseSequencer, type TestSpecification } from 'vitest/node';

/**
 * Seconds each test file (by its path from the package root) took in a full run on the two-core development machine
 * (`scripts/test-durations.mjs` writes them from vitest's JSON report).
 */
export const LONGEST: Record<string, number> = JSON.parse(
  readFileSync(join(import.meta.dirname, 'durations.json'), 'utf8'),
);

/** The projects in the order they run (vitest.config.ts defines them). */
const PROJECTS = ['peers', 'unit', 'cli'];

export default class LongestFirst extends BaseSequencer {
  override async sort(files: TestSpecification[]): Promise<TestSpecification[]> {
    const base = await super.sort(files);
    const root = this.ctx.config.root;
    const seconds = (s: TestSpecification): number => {
      const file = relative(root, s.moduleId);
      const cached = this.ctx.cache.getFileTestResults(`${s.project.name}:${file}`);
      if (cached) return cached.duration / 1000;
      return LONGEST[file] ?? 0;
    };
    const at = new Map(base.map((s, i) => [s, i]));
    const rank = (s: TestSpecification) => {
      const i = PROJECTS.indexOf(s.project.name);
      return i < 0 ? PROJECTS.length : i; // a project not named there (none today) goes last
    };
    return [...base].sort((a, b) => rank(a) - rank(b) || seconds(b) - seconds(a) || at.get(a)! - at.get(b)!);
  }
}
