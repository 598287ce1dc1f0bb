/**
 * Reporters by name, and what happens once every target has run and the reports are final: every reporter's
 * onFinished writes or prints (file reporters first, then github, the console last: it lists the files).
 */
import { didYouMean } from '../core/suggest.js';
import { existsSync } from 'node:fs';
import { resolve } from 'node:path';
import { loadBaseline, type Baseline } from '../core/baseline.js';
import type { Report } from '../core/results.js';
import { consoleReporter, useColor, wantProgress } from './console.js';
import { githubReporter, isGithubActions } from './github.js';
import { htmlReporter } from './html.js';
import { jsonReporter } from './json.js';
import { junitReporter } from './junit.js';
import { sarifReporter } from './sarif.js';
import {
  combine,
  type FinishContext,
  type Reporter,
  type ReporterIO,
  type ReportSet,
  type RunStart,
  type SuitePhase,
} from './types.js';

/** Every reporter, by name: each makes its hooks for one invocation. */
export const REPORTERS = {
  console: consoleReporter,
  json: (): Reporter => jsonReporter,
  junit: (): Reporter => junitReporter,
  html: (): Reporter => htmlReporter,
  sarif: sarifReporter,
  github: githubReporter,
} satisfies Record<string, (io: ReporterIO) => Reporter>;
export type ReporterName = keyof typeof REPORTERS;
export const REPORTER_NAMES = Object.keys(REPORTERS) as ReporterName[];
export type { FinishContext, Reporter, ReporterIO, ReportSet, RunStart, SuitePhase };

/** An unknown reporter name (a usage error). */
export class ReporterError extends Error {}

/** Where the CLI prints: this process's stdout and stderr, colour and progress as the terminal allows. */
export function processIO(o: { verbose?: boolean; quiet?: boolean } = {}): ReporterIO {
  const write = (stream: NodeJS.WriteStream, s: string) => new Promise<void>((res) => stream.write(s, () => res()));
  return {
    stdout: (s) => write(process.stdout, s),
    stderr: (s) => write(process.stderr, s),
    env: process.env,
    color: useColor(process.stdout),
    verbose: o.verbose,
    progress: !o.quiet && wantProgress(process.stderr) ? { color: useColor(process.stderr) } : false,
  };
}

/** One reporter by name (io: default this process's stdout/stderr). */
export function createReporter(name: string, io: ReporterIO = processIO()): Reporter {
  if (!Object.hasOwn(REPORTERS, name))
    throw new ReporterError(
      `--reporter: unknown reporter "${name}"${didYouMean(name, REPORTER_NAMES)} (known: ${REPORTER_NAMES.join(', ')})`,
    );
  return REPORTERS[name as ReporterName](io);
}

/**
 * The reporters of an invocation, in the order they finish: those named (json, junit, html as given), github when
 * named or under GitHub Actions (GITHUB_ACTIONS=true), and the console unless quiet.
 */
export function createReporters(names: string[], io: ReporterIO, o: { quiet?: boolean } = {}): Reporter[] {
  for (const n of names) createReporter(n, io); // unknown names are usage errors
  const order = [...new Set(names.filter((n) => n !== 'console' && n !== 'github'))];
  if (names.includes('github') || isGithubActions(io.env)) order.push('github');
  if (!o.quiet) order.push('console');
  return order.map((n) => createReporter(n, io));
}

/** All the reporters' hooks as one reporter (what a run calls). */
export function fanOut(
  reporters: Reporter[],
): Required<Pick<Reporter, 'onRunStart' | 'onSuiteDone' | 'onSessionEnd' | 'onRunDone'>> {
  return {
    onRunStart: (run) => {
      for (const r of reporters) r.onRunStart?.(run);
    },
    onSessionEnd: (messages) => {
      for (const r of reporters) r.onSessionEnd?.(messages);
    },
    onSuiteDone: (suite, phase, added, at) => {
      for (const r of reporters) r.onSuiteDone?.(suite, phase, added, at);
    },
    onRunDone: (report) => {
      for (const r of reporters) r.onRunDone?.(report);
    },
  };
}

/**
 * One target's live hooks, kept instead of delivered (targets run side by side): `reporter` records each call (and
 * `stderr` the target's own lines), `flush` delivers them all, in order, to the reporters when the target is done,
 * so that its progress lines come out whole, never between another target's.
 */
export function bufferHooks(reporters: Reporter[]): {
  reporter: Reporter;
  stderr: (s: string) => void;
  flush: (stderr: (s: string) => Promise<void>) => Promise<void>;
} {
  const out = fanOut(reporters);
  const calls: (() => void)[] = [];
  const lines: string[] = [];
  return {
    reporter: {
      name: 'buffer',
      onRunStart: (run) => {
        const at = performance.now();
        calls.push(() => out.onRunStart({ ...run, at: run.at ?? at }));
      },
      onSuiteDone: (suite, phase, added, at) => {
        const now = at ?? performance.now();
        const copy = [...added];
        calls.push(() => out.onSuiteDone(suite, phase, copy, now));
      },
      onSessionEnd: (messages) => {
        calls.push(() => out.onSessionEnd(messages));
      },
      onRunDone: (report) => {
        calls.push(() => out.onRunDone(report));
      },
    },
    stderr: (s) => {
      lines.push(s);
    },
    async flush(stderr) {
      // All at once (the writes are queued in order before anything else can run): the target's output stays whole.
      for (const c of calls.splice(0)) c();
      await Promise.all(lines.splice(0).map(stderr));
    },
  };
}

export interface OutputPlan {
  /** The reporter names given (--reporter; default console and json). */
  reporters: string[];
  /** The reporters of this invocation (see createReporters). */
  instances: Reporter[];
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
  /** `run --shard i/n`: the shard these runs are (see ReportSet.shard). */
  shard?: import('../core/shard.js').ShardInfo;
}

/** Reads the output options of an invocation, makes its reporters, loads the baselines. Throws on a bad baseline file or reporter name. */
export async function prepareOutput(
  shared: Record<string, unknown>,
  list: (v: unknown) => string[],
  configFile?: string,
  io: ReporterIO = processIO({ verbose: shared.verbose === true, quiet: shared.quiet === true }),
): Promise<OutputPlan> {
  const reporters = shared.reporter === undefined ? ['console', 'json'] : list(shared.reporter);
  const plan: OutputPlan = {
    reporters,
    instances: createReporters(reporters, io, { quiet: shared.quiet === true }),
    outDir: resolve(String(shared['out-dir'] ?? 'mcp-conform-report')),
    quiet: shared.quiet === true,
    verbose: shared.verbose === true,
    configFile,
  };
  if (typeof shared.baseline === 'string') plan.baseline = await loadBaseline(resolve(shared.baseline));
  if (typeof shared['update-baseline'] === 'string') {
    plan.updateBaseline = resolve(shared['update-baseline']);
    if (existsSync(plan.updateBaseline) && plan.updateBaseline !== plan.baseline?.file)
      plan.updatePrevious = await loadBaseline(plan.updateBaseline);
  }
  return plan;
}

/**
 * Lets every reporter write and print the final reports (finalizeReport has run: the baseline is applied); returns
 * the exit code of the invocation, or 2 when a report could not be written.
 */
export async function finishRuns(runs: Report[], plan: OutputPlan, io: Pick<ReporterIO, 'stderr'>): Promise<number> {
  const set: ReportSet = { runs, configFile: plan.configFile, ...(plan.shard ? { shard: plan.shard } : {}) };
  const ctx: FinishContext = { outDir: plan.outDir, written: [] };
  // No run at all (a shard that got no target): report.json says so (for `merge`); the other reporters have nothing to show.
  const instances = runs.length ? plan.instances : plan.instances.filter((r) => r.name === 'json');
  if (!runs.length && !plan.quiet)
    await io.stderr(
      `mcp-conform: no target to test${plan.shard ? ` in shard ${plan.shard.index}/${plan.shard.count} (of ${plan.shard.of} targets)` : ''}\n`,
    );
  for (const rep of instances) {
    // The console lists every file written, the baseline written by --update-baseline last.
    // (not when it already said what it would say: the console then says it is unchanged).
    if (
      rep.name === 'console' &&
      plan.updateBaseline &&
      runs.some((r) => r.updatedFiles?.some((u) => u.by === 'update-baseline' && u.written))
    )
      ctx.written.push(plan.updateBaseline);
    try {
      const files = await rep.onFinished?.(set, ctx);
      for (const f of [files ?? []].flat()) ctx.written.push(f);
    } catch (e) {
      await io.stderr(
        `mcp-conform: could not write ${rep.what ?? `the ${rep.name} report to ${plan.outDir}`}: ${(e as Error).message}\n`,
      );
      if (!rep.optional) return 2;
    }
  }
  return runs.length === 1 ? runs[0].exitCode : combine(set).exitCode;
}
