/** The result model: verdicts, cases, suites, the report. Reporters read only this. */
import type { LoggedMessage } from './log.js';

export type Verdict = 'pass' | 'warn' | 'fail' | 'skip' | 'info';
export const VERDICTS: readonly Verdict[] = ['pass', 'warn', 'fail', 'skip', 'info'];
export type Level = 'MUST' | 'SHOULD' | 'MAY';

export interface CaseResult {
  id: string;
  title: string;
  verdict: Verdict;
  level: Level;
  /** URL of the spec section for the protocol version in force. */
  spec: string;
  /** Expected vs actual, in plain words. */
  message: string;
  durationMs: number;
  /** seq numbers of the log messages this verdict is based on. */
  messageIds: number[];
  /** Set when --strict turned a warn into this fail. */
  strictFromWarn?: boolean;
  details?: Record<string, unknown>;
}

export interface SuiteResult {
  id: string;
  title: string;
  durationMs: number;
  cases: CaseResult[];
}

export interface Summary {
  pass: number;
  warn: number;
  fail: number;
  skip: number;
  info: number;
  total: number;
  /** Messages (lines that parsed as JSON, both directions) checked against the schema. */
  messagesValidated: number;
  /** Lines on the server's stdout that were not JSON (each one also fails stdio/stdout-only-messages). */
  strayLines: number;
}

export interface ServerInfo {
  name?: string;
  version?: string;
  title?: string;
  protocolVersion?: string;
  capabilities?: Record<string, unknown>;
  instructions?: string;
  toolCount?: number;
}

export interface TargetInfo {
  transport: 'stdio' | 'streamable-http' | 'sse';
  command?: string;
  argv?: string[];
  cwd?: string;
  url?: string;
}

export interface ProcessInfo {
  pid?: number;
  /** Exit code of the server process, or null when it was ended by a signal. */
  exitCode?: number | null;
  signal?: string | null;
  /** How the process ended after stdin closed: by itself, or the signal the harness had to send. */
  shutdown?: 'exited' | 'SIGTERM' | 'SIGKILL' | 'not-started' | 'already-exited';
  /** Every line the server wrote to stderr (bounded; see stderrTruncated). */
  stderr: string[];
  stderrTruncated?: boolean;
}

export interface ToolSkip {
  name: string;
  reason: string;
}

export interface Report {
  tool: { name: 'mcp-conform'; version: string };
  reportVersion: 1;
  startedAt: string;
  durationMs: number;
  exitCode: number;
  /** Set when the run ended early (server died, never answered, ...). */
  aborted?: string;
  summary: Summary;
  server: ServerInfo;
  target: TargetInfo;
  process: ProcessInfo;
  options: Record<string, unknown>;
  skippedTools: ToolSkip[];
  suites: SuiteResult[];
  messages: LoggedMessage[];
}

export function summarize(suites: SuiteResult[], messages: LoggedMessage[]): Summary {
  const s: Summary = { pass: 0, warn: 0, fail: 0, skip: 0, info: 0, total: 0, messagesValidated: 0, strayLines: 0 };
  for (const suite of suites) for (const c of suite.cases) { s[c.verdict]++; s.total++; }
  for (const m of messages) {
    if (m.schema.checked) s.messagesValidated++;
    else if (m.direction === 'from-server') s.strayLines++;
  }
  return s;
}
