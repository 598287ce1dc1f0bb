/**
 * The last step of a run: the report is made final — the baseline applied, an interrupted run marked, the exit code
 * set — in one place, called by the library (runConformance) and the CLI alike.
 */
import { applyBaseline, type Baseline } from './baseline.js';
import type { Report } from './results.js';

export interface FinalizeOptions {
  /** Known failures: listed failing cases do not fail the run (applied across all the reports given). */
  baseline?: Baseline;
  /** The run's signal: when it was aborted the exit code is 143 for the reason 'SIGTERM', else 130. */
  signal?: AbortSignal;
}

/** Finalizes one report, or the reports of one invocation (one per target). Applying it twice changes nothing. */
export function finalizeReport(reports: Report | Report[], o: FinalizeOptions = {}): void {
  const runs = Array.isArray(reports) ? reports : [reports];
  if (o.signal?.aborted) for (const r of runs) r.exitCode = o.signal.reason === 'SIGTERM' ? 143 : 130;
  if (o.baseline) applyBaseline(runs, o.baseline);
}
