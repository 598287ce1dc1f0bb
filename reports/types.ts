import type { LoggedMessage } from '../core/log.js';
import type { CaseResult, Report, SuiteResult, Summary } from '../core/results.js';
import type { ShardInfo } from '../core/shard.js';
import { VERSION } from '../core/version.js';

/** What one invocation produced: a report per target, in the order they ran (one for a command-line target). */
export interface ReportSet {
  runs: Report[];
  /** The config file the targets came from, if any. */
  configFile?: string;
  /** `run --shard i/n`: which shard of the config's targets these runs are (report.json then always has the combined shape). */
  shard?: ShardInfo;
}

/** The phase of a run a suite has just finished: the cases that talk to the server, or those that read the log after it stopped. */
export type SuitePhase = 'session' | 'after-shutdown';

/** What a reporter is told when a target's run starts. */
export interface RunStart {
  /** How progress names the target: the config target's name, else the command or URL as given. */
  label: string;
  /** When the run started (performance.now()), when the hook is called later than that (targets run side by side). */
  at?: number;
}

/** Where reporters write and print, once every target has run. */
export interface FinishContext {
  /** Directory for report files (--out-dir). */
  outDir: string;
  /**
   * Files written so far by the reporters before this one, in order (file reporters first, then github, then the
   * console, which lists them); a reporter adds what it writes by returning it.
   */
  written: string[];
}

/**
 * A reporter: optional hooks, called as the invocation goes (the vitest shape). Live progress comes from
 * onRunStart/onSuiteDone; the reports from onFinished, once every target has run and the reports are final.
 */
export interface Reporter {
  name: string;
  /** Writes files into the out-dir (the CLI checks it can before the run). */
  writesFiles?: boolean;
  /** A failure in onFinished is reported but does not fail the invocation (else exit code 2). */
  optional?: boolean;
  /** What onFinished produces, for an error message ("could not write <what>"); default "the <name> report to <outDir>". */
  what?: string;
  /** A target's run starts. */
  onRunStart?(run: RunStart): void;
  /**
   * A suite has run its cases of a phase; `added` holds the results of that phase. The suite is complete after its
   * 'after-shutdown' call. (A throwing hook is an internal error of the run.) `at` (performance.now()) is when the
   * suite was done, given when the call comes later than that (targets run side by side: see bufferHooks).
   */
  onSuiteDone?(suite: SuiteResult, phase: SuitePhase, added: CaseResult[], at?: number): void;
  /**
   * A target's session has sent its last message (the server is being ended): `messages` is its message log, whose
   * messages stay as they are from then on (report.messages; a late line is added after them).
   */
  onSessionEnd?(messages: readonly LoggedMessage[]): void;
  /** A target's run is done and its report finalized (the invocation's baseline is applied after the last run). */
  onRunDone?(report: Report): void;
  /** Every target has run and the reports are final: write or print them. Returns the file(s) written, if any. */
  onFinished?(
    set: ReportSet,
    ctx: FinishContext,
  ): Promise<string | string[] | undefined> | string | string[] | undefined;
}

/** What reporters that print need: where to print, colours, and the environment (GITHUB_ACTIONS…). */
export interface ReporterIO {
  stdout: (s: string) => Promise<void>;
  stderr: (s: string) => Promise<void> | void;
  env: NodeJS.ProcessEnv;
  /** Colour on stdout (the console report). */
  color: boolean;
  /** Console: print the exchanges of failing cases and every duration. */
  verbose?: boolean;
  /** Console: progress lines on stderr as suites finish (with their colour), or none. */
  progress?: { color: boolean } | false;
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
  /** `run --shard i/n`: the shard, the number of targets of the whole config, and each run's position in it. */
  shard?: ShardInfo;
  /** Sums over the runs. */
  summary: Summary;
  runs: Report[];
}

/** Sums of the runs' summaries. */
export function totalSummary(runs: Report[]): Summary {
  const t: Summary = {
    pass: 0,
    warn: 0,
    fail: 0,
    skip: 0,
    info: 0,
    total: 0,
    messagesValidated: 0,
    strayLines: 0,
    baselined: 0,
  };
  for (const r of runs) for (const k of Object.keys(t) as (keyof Summary)[]) t[k] += r.summary[k] ?? 0;
  return t;
}

/** The report of several runs (none: a shard without targets). */
export function combine(set: ReportSet): CombinedReport {
  const started = set.runs.length ? Math.min(...set.runs.map((r) => Date.parse(r.startedAt))) : Date.now();
  const ended = set.runs.length ? Math.max(...set.runs.map((r) => Date.parse(r.startedAt) + r.durationMs)) : started;
  return {
    tool: set.runs[0]?.tool ?? { name: 'mcp-conform', version: VERSION },
    reportVersion: 1,
    startedAt: new Date(started).toISOString(),
    durationMs: Math.max(0, ended - started),
    exitCode: Math.max(0, ...set.runs.map((r) => r.exitCode)),
    ...(set.configFile ? { configFile: set.configFile } : {}),
    ...(set.shard ? { shard: set.shard } : {}),
    summary: totalSummary(set.runs),
    runs: set.runs,
  };
}

/** How a run is named in reports: the config target's name, else the server's name, else its command or URL. */
export function runLabel(r: Report, i?: number): string {
  return (
    r.target.name ??
    r.server.name ??
    r.target.command ??
    r.target.url ??
    (i === undefined ? 'server' : `target ${i + 1}`)
  );
}
