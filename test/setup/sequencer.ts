/**
 * The order test files start in: the longest first, whatever their project. vitest's own order runs the projects one
 * after the other (cli, then peers, then unit), so the peers' longest files started only once every cli file had, and
 * the run ended on them. Here a file's length is the duration vitest cached from the last run on this machine, else
 * its figure below (seconds on the two-core development machine, from a full run; docs/developing.md), else unknown
 * (those go after, in vitest's order). Only the order changes: every file still runs.
 */
import { relative } from 'node:path';
import { BaseSequencer, type TestSpecification } from 'vitest/node';

/** Seconds each of the longest files took in a full run (`npx vitest run --reporter=json`: endTime - startTime). */
export const LONGEST: Record<string, number> = {
  'client-auth-real': 175,
  'real-servers': 150,
  'client-auth': 78,
  load: 63,
  client: 60,
  'client-2026': 42,
  'max-in-flight': 45,
  negotiation: 47,
  'suites/auth': 38,
  'verdicts-peers': 33,
  'client-schemas': 28,
  'client-inspector': 28,
  concurrency: 23,
  'zoo-output': 23,
  'stop-leaks': 21,
  'zoo-pipelined': 20,
  'suites/robustness': 20,
  compat: 19,
  'serve-faults-matrix': 18,
  'slow-dead': 18,
};

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
