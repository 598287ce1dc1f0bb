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
  'real-servers': 152,
  'client-auth-real': 115,
  load: 92,
  client: 68,
  'client-auth': 60,
  'client-2026': 48,
  'suites/auth': 47,
  'max-in-flight': 47,
  negotiation: 45,
  'verdicts-peers': 34,
  'client-schemas': 34,
  concurrency: 32,
  'client-inspector': 30,
  'zoo-output': 29,
  compat: 23,
  'slow-dead': 22,
  'stop-leaks': 21,
  'zoo-pipelined': 21,
  'suites/robustness': 19,
  'suites/http': 19,
  'serve-faults-matrix': 19,
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
