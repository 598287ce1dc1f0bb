/**
 * The last step of a run, in one place: the report is made final — `--strict` (warn → fail), the baseline, an
 * interrupted run, the summary and the exit code. The runner calls it when it builds a report (and again after
 * --all-versions added the matrix), the library's runConformance and the CLI when the invocation's baseline and
 * signal are known. It can be applied again: a report finalized twice is the same.
 */
import { applyBaseline, type Baseline } from './baseline.js';
import { exitCodeOf, summarize, type Report } from './results.js';

export interface FinalizeOptions {
  /** Turn every warn into a fail (marked strictFromWarn). Default: what the report's options.strict says. */
  strict?: boolean;
  /** Known failures: listed failing cases do not fail the run (applied across all the reports given: stale entries are judged over them all). */
  baseline?: Baseline;
  /** The run's signal: when it was aborted the exit code is 143 for the reason 'SIGTERM', else 130. */
  signal?: AbortSignal;
}

/** Finalizes one report, or the reports of one invocation (one per target). */
export function finalizeReport(reports: Report | Report[], o: FinalizeOptions = {}): void {
  const runs = Array.isArray(reports) ? reports : [reports];
  for (const r of runs) {
    if (o.strict) r.options.strict = true;
    if (r.options.strict === true) {
      for (const s of r.suites)
        for (const c of s.cases)
          if (c.verdict === 'warn') {
            c.verdict = 'fail';
            c.strictFromWarn = true;
          }
    }
    // In place: a --all-versions matrix row shares its run's summary object.
    Object.assign(r.summary, summarize(r.suites, r.messages));
    if (o.signal?.aborted) r.exitCode = o.signal.reason === 'SIGTERM' ? 143 : 130;
  }
  if (o.baseline) applyBaseline(runs, o.baseline); // marks the listed failures, counts them, finds stale entries
  for (const r of runs) r.exitCode = exitCodeOf(r);
}

export interface InvocationBaseline {
  /** --baseline: known failures. */
  baseline?: Baseline;
  /** --update-baseline FILE: write this invocation's failures there first, then apply it. */
  updateBaseline?: string;
  /** The baseline already in the --update-baseline file (its reasons are kept). */
  updatePrevious?: Baseline;
}

/**
 * The last step of a command that grades (run over its targets, client over its scenarios): --update-baseline is
 * written first (from --baseline, or the file it replaces), then every report is finalized with the baseline in force.
 * Returns why the baseline could not be written (the command then exits 2), or undefined.
 */
export async function finalizeInvocation(reports: Report[], o: InvocationBaseline): Promise<string | undefined> {
  let baseline = o.baseline;
  if (o.updateBaseline) {
    const { writeUpdatedBaseline } = await import('./baseline.js');
    try {
      baseline = await writeUpdatedBaseline(reports, o.updateBaseline, o.baseline ?? o.updatePrevious);
    } catch (e) {
      return `could not write the baseline ${o.updateBaseline}: ${(e as Error).message}`;
    }
  }
  finalizeReport(reports, { baseline });
  return undefined;
}
