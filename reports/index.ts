/**
 * Reporters by name, and what happens once every target has run: the baseline is applied (or written), the report
 * files are written, GitHub gets its annotations and step summary, the console report is printed.
 */
import { existsSync } from 'node:fs';
import { writeFile } from 'node:fs/promises';
import { resolve } from 'node:path';
import { applyBaseline, baselineFor, loadBaseline, stringifyBaseline, type Baseline } from '../core/baseline.js';
import type { Report } from '../core/results.js';
import { htmlReporter } from './html.js';
import { jsonReporter } from './json.js';
import { junitReporter } from './junit.js';
import { combine, type Reporter, type ReportSet } from './types.js';

/** File reporters by name; 'console' and 'github' print (github also writes the step summary). */
export const FILE_REPORTERS: Record<string, Reporter> = { json: jsonReporter, junit: junitReporter, html: htmlReporter };
export const REPORTER_NAMES = ['console', ...Object.keys(FILE_REPORTERS), 'github'];
export type { Reporter, ReportSet };

export interface OutputPlan {
  reporters: string[];
  outDir: string;
  quiet: boolean;
  verbose: boolean;
  /** --baseline, loaded before the run (so a bad file is a usage error, not a lost run). */
  baseline?: Baseline;
  /** --update-baseline FILE: written from this run, then applied to it. */
  updateBaseline?: string;
  /** The previous content of the --update-baseline file, if it existed (its reasons are kept). */
  updatePrevious?: Baseline;
  configFile?: string;
}

/** Reads the output options of an invocation; loads the baselines. Throws on a bad baseline file. */
export async function prepareOutput(shared: Record<string, unknown>, list: (v: unknown) => string[], configFile?: string): Promise<OutputPlan> {
  const reporters = shared.reporter === undefined ? ['console', 'json'] : list(shared.reporter);
  const plan: OutputPlan = {
    reporters,
    outDir: resolve(String(shared['out-dir'] ?? 'mcp-conform-report')),
    quiet: shared.quiet === true,
    verbose: shared.verbose === true,
    configFile,
  };
  if (typeof shared.baseline === 'string') plan.baseline = await loadBaseline(resolve(shared.baseline));
  if (typeof shared['update-baseline'] === 'string') {
    plan.updateBaseline = resolve(shared['update-baseline']);
    if (existsSync(plan.updateBaseline) && plan.updateBaseline !== plan.baseline?.file) plan.updatePrevious = await loadBaseline(plan.updateBaseline);
  }
  return plan;
}

export interface FinishIO {
  stdout: (s: string) => Promise<void>;
  stderr: (s: string) => Promise<void>;
  env: NodeJS.ProcessEnv;
  color: boolean;
}

/** Applies the baseline, writes every report, prints; returns the exit code of the invocation (or 2). */
export async function finishRuns(runs: Report[], plan: OutputPlan, io: FinishIO): Promise<number> {
  const set: ReportSet = { runs, configFile: plan.configFile };
  if (plan.updateBaseline) {
    const previous = plan.baseline ?? plan.updatePrevious;
    if (previous) applyBaseline(runs, previous);
    const next = baselineFor(runs, previous);
    next.file = plan.updateBaseline;
    try {
      await writeFile(plan.updateBaseline, stringifyBaseline(next));
    } catch (e) {
      await io.stderr(`mcp-conform: could not write the baseline ${plan.updateBaseline}: ${(e as Error).message}\n`);
      return 2;
    }
    applyBaseline(runs, next);
  } else if (plan.baseline) {
    applyBaseline(runs, plan.baseline);
  }
  const written: string[] = [];
  for (const r of plan.reporters) {
    const rep = FILE_REPORTERS[r];
    if (!rep) continue;
    try {
      const file = await rep.onFinished(set, plan.outDir);
      if (file) written.push(file);
    } catch (e) {
      await io.stderr(`mcp-conform: could not write the ${r} report to ${plan.outDir}: ${(e as Error).message}\n`);
      return 2;
    }
  }
  const { isGithubActions, reportToGithub } = await import('./github.js');
  if (plan.reporters.includes('github') || isGithubActions(io.env)) {
    try {
      const summary = await reportToGithub(set, plan.outDir, { env: io.env, write: io.stdout, files: written });
      if (summary !== io.env.GITHUB_STEP_SUMMARY) written.push(summary);
    } catch (e) {
      await io.stderr(`mcp-conform: could not write the GitHub step summary: ${(e as Error).message}\n`);
    }
  }
  if (plan.updateBaseline) written.push(plan.updateBaseline);
  if (!plan.quiet) {
    const { renderConsole } = await import('./console.js');
    await io.stdout(renderConsole(set, written, { color: io.color, verbose: plan.verbose }));
  }
  return runs.length === 1 ? runs[0].exitCode : combine(set).exitCode;
}
