import type { Report, Summary } from '../core/results.js';

/** What one invocation produced: a report per target, in the order they ran (one for a command-line target). */
export interface ReportSet {
  runs: Report[];
  /** The config file the targets came from, if any. */
  configFile?: string;
}

/** A reporter reads the finished reports and writes or prints them; it returns the path of a file it wrote. */
export interface Reporter {
  name: string;
  onFinished(set: ReportSet, outDir: string): Promise<string | undefined>;
}

/** report.json for several targets: the runs, and totals over them. */
export interface CombinedReport {
  tool: Report['tool'];
  reportVersion: 1;
  startedAt: string;
  durationMs: number;
  /** The highest exit code of the runs (1 when any run failed; 130/143 when interrupted). */
  exitCode: number;
  configFile?: string;
  /** Sums over the runs. */
  summary: Summary;
  runs: Report[];
}

/** Sums of the runs' summaries. */
export function totalSummary(runs: Report[]): Summary {
  const t: Summary = { pass: 0, warn: 0, fail: 0, skip: 0, info: 0, total: 0, messagesValidated: 0, strayLines: 0, baselined: 0 };
  for (const r of runs) for (const k of Object.keys(t) as (keyof Summary)[]) t[k] += r.summary[k] ?? 0;
  return t;
}

export function combine(set: ReportSet): CombinedReport {
  const first = set.runs[0];
  const started = Math.min(...set.runs.map((r) => Date.parse(r.startedAt)));
  const ended = Math.max(...set.runs.map((r) => Date.parse(r.startedAt) + r.durationMs));
  return {
    tool: first.tool,
    reportVersion: 1,
    startedAt: new Date(started).toISOString(),
    durationMs: Math.max(0, ended - started),
    exitCode: Math.max(...set.runs.map((r) => r.exitCode)),
    ...(set.configFile ? { configFile: set.configFile } : {}),
    summary: totalSummary(set.runs),
    runs: set.runs,
  };
}

/** How a run is named in reports: the config target's name, else the server's name, else its command or URL. */
export function runLabel(r: Report, i?: number): string {
  return r.target.name ?? r.server.name ?? r.target.command ?? r.target.url ?? (i === undefined ? 'server' : `target ${i + 1}`);
}
