/** The result model: verdicts, cases, suites, the report. Reporters read only this. */
import type { LoggedMessage } from './log.js';
import type { ProtocolVersion } from './schema/versions.js';

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
  /** The requirement checked, in plain words (from the case definition). */
  requirement?: string;
  /** A fail listed in the baseline (--baseline): it keeps verdict fail but does not fail the run. */
  baselined?: boolean;
  /** The reason the baseline entry gives, and the entry as written. */
  baselineReason?: string;
  baselineEntry?: string;
  details?: Record<string, unknown>;
  /**
   * A case run once per item (a tool, prompt, resource, provider…): the item's name; `id` is the case's own id, "/",
   * then this. Absent on a case with one result.
   */
  item?: string;
  /**
   * On a skip: the case does not apply to this run, by what it declares (protocol version, transport, a capability or
   * extension the server did not declare) — the runner's one rule, not a finding about the server — or because the
   * server has nothing of the kind the case is about, as the case found (Outcome.notApplicable: no tool takes a path).
   */
  notApplicable?: true;
  /**
   * A report of two eras (report.eras: a dual-era server judged in 2026-07-28 and in its newest legacy version): the
   * protocol version this result was judged in. Absent in a report of one version (report.options.protocolVersionInForce).
   */
  protocolVersion?: string;
  /** The case judges a file (server.json, an MCPB manifest), not the session: a report of two eras has it once. */
  ofFile?: true;
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
  /** Failing cases excused by the baseline (they are counted in fail too; the exit code ignores them). */
  baselined: number;
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
  /** The target's name in a config file; absent for a command-line target. */
  name?: string;
  transport: 'stdio' | 'streamable-http' | 'sse';
  command?: string;
  argv?: string[];
  cwd?: string;
  url?: string;
  /** HTTP: the --header names sent, with secret values (Authorization, Cookie, *token*, *key*, *secret*) redacted. */
  headers?: Record<string, string>;
  /** --url: the probes that chose the transport, in order. */
  detection?: string[];
}

/** report.updatedFiles: one file of the user's an option rewrote. */
export interface UpdatedFile {
  file: string;
  /** Which option wrote it: 'update-expect', 'update-baseline', 'snapshot'. */
  by: string;
  /** Whether the file was written (false: it already said what it would say). */
  written: boolean;
  /** How many entries changed (expectations, baseline entries, surface items); 0: the file is unchanged. */
  changed: number;
  /** What the entries are called ('expectations', 'entries', …). */
  unit: string;
  /** What changed, in words (each expectation updated and its checks, entries added or removed). */
  details: string[];
}

/** What kind of start failure (report.startFailure.kind). */
export type StartFailureKind =
  | 'command-not-found'
  | 'spawn-failed'
  | 'exited'
  | 'not-json-rpc'
  | 'silent'
  | 'refused'
  | 'dns'
  | 'tls'
  | 'http-status'
  | 'unreachable'
  | 'auth-required';

/** report.startFailure: a target that never came up, in one cause. */
export interface StartFailure {
  kind: StartFailureKind;
  /** The cause in one sentence: the OS error, the exit code, the HTTP status, the text written instead of JSON-RPC. */
  cause: string;
  /** What to try. */
  hint: string;
  /** The command as run (stdio, or --start) and its working directory. */
  command?: string;
  cwd?: string;
  /** The URL (HTTP), redacted. */
  url?: string;
  /** The HTTP status that refused the run. */
  status?: number;
  /** The server process's exit (null: ended by a signal). */
  exitCode?: number | null;
  signal?: string | null;
  /** The last lines the server wrote to stderr (at most 5). */
  stderr: string[];
  /** Lines it wrote to stdout that are not JSON-RPC (at most 3). */
  stdout?: string[];
}

export interface ProcessInfo {
  pid?: number;
  /** Exit code of the server process, or null when it was ended by a signal. */
  exitCode?: number | null;
  signal?: string | null;
  /** How the process ended after stdin closed: by itself, or the signal the harness had to send. */
  shutdown?: 'exited' | 'SIGTERM' | 'SIGKILL' | 'not-started' | 'already-exited';
  /** How long the process took to end, from the moment the harness closed its stdin (ms); with `shutdown` exited, SIGTERM or SIGKILL. */
  shutdownMs?: number;
  /** The stderr lines the server wrote after its stdin was closed (the newest 50), with `shutdownMs`. */
  stderrAfterClose?: string[];
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
  /**
   * The target never came up (it never gave one JSON-RPC answer): why, once (core/start-failure.ts). Every case is then
   * skipped with this cause but lifecycle/initialize (or the first case selected), which fails with it; none fails
   * when the server only asked for authorization.
   */
  startFailure?: StartFailure;
  /**
   * The run was repeated without early work (robustness/unknown-notification's notification sent before the first
   * case): the server died or went silent while that wait was open, so the first attempt was set aside (why, and how
   * long it took). The report is the repeat's.
   */
  repeated?: { reason: string; firstAttemptMs: number };
  summary: Summary;
  server: ServerInfo;
  target: TargetInfo;
  process: ProcessInfo;
  options: Record<string, unknown>;
  /** Tools listed by the server that the run did not call, with why (--call-tools, --call-tool, task support). */
  skippedTools: ToolSkip[];
  /**
   * Tools the run called (or would call, by its policy) that may reach the outside world: read-only, but with
   * openWorldHint true or absent (a web search, a paid API). Absent when none.
   */
  openWorldTools?: string[];
  /** --call-tool names that match no tool the server listed (absent when there are none). */
  unknownCallTools?: string[];
  suites: SuiteResult[];
  messages: LoggedMessage[];
  /**
   * Messages from the server left out of `messages` once the log reached its bounds (a flood): how many, their
   * characters, and the count per method. Absent when nothing was left out.
   */
  droppedMessages?: { messages: number; chars: number; byMethod: Record<string, number> };
  /**
   * Files of the user's that the invocation rewrote or left as they were (--update-expect, --update-baseline,
   * --snapshot): each with what changed, so the console can say "updated FILE: …" or "FILE unchanged". Absent when
   * none was asked for.
   */
  updatedFiles?: UpdatedFile[];
  /** Present when a baseline was applied (--baseline / --update-baseline). */
  baseline?: BaselineOutcome;
  /** HTTP transports: every HTTP exchange of the run, in order (messages[].http.exchange points here). */
  http?: { exchanges: unknown[] };
  /**
   * HTTP with credentials (--oauth, a Bearer --header, library credentials): where the token came from, what --oauth
   * found and did (every exchange, secrets redacted), and why it could not get in. Never a token or a secret.
   */
  authorization?: AuthorizationInfo;
  /** `mcp-conform load`: the figures of the load run (lib/load.ts LoadSummary; docs/load.md). */
  load?: Record<string, unknown>;
  /** How the protocol version was negotiated: mode, handshake, version and every step (see core/negotiate.ts). */
  negotiation?: Negotiation;
  /** `mcp-conform client`: the client under test, as its initialize request described it (`server` is then the mock). */
  client?: { name?: string; version?: string; protocolVersion?: string; capabilities?: Record<string, unknown> };
  /** --all-versions: one entry per published version tried (the rest of the report is the newest accepted run). */
  matrix?: MatrixEntry[];
  /**
   * A default run of a dual-era server (it answered both server/discover with 2026-07-28 and initialize): the eras it
   * was judged in, the 2026-07-28 one first (the report's own server, process, negotiation and messages up to its
   * `messages.to` are that run's). Every case then names its version (suites[].cases[].protocolVersion). Absent in a
   * run of one version. See core/eras.ts.
   */
  eras?: Era[];
}

/** report.authorization: how the run got past a protected server (or why it could not). */
export interface AuthorizationInfo {
  source: CredentialSource;
  /** --oauth: why getting in failed (the run then went on unauthenticated, and fails). */
  failure?: string;
  /** What --oauth learnt and did: metadata URLs, issuer, registration, grant, scope, whether a person was needed. */
  discovered?: Omit<AuthDiscovered, 'resourceMetadata' | 'authorizationServerMetadata'>;
  /** How long getting in took (ms). */
  ms?: number;
  /** The HTTP exchanges of the authorization itself, in order, secrets redacted. */
  exchanges: readonly AuthExchange[];
}

/** How the baseline applied to a run: which entries excused a failure, which are stale. */
export interface BaselineOutcome {
  file: string;
  /** 'mcp-conform' (our format) or 'expected-failures' (the official MCP conformance suite's). */
  format: 'mcp-conform' | 'expected-failures';
  /** Entries that apply to this run. */
  entries: number;
  /** Entries (as written) that matched at least one failing case. */
  used: string[];
  /** Entries that match no failing case: they can be removed (a warning; under --strict it fails the run). */
  stale: { entry: string; reason?: string; why: string }[];
  /** Entries about cases this run did not check (suite or case not selected, or only skipped). */
  unchecked: string[];
}

/* How the run negotiated its version, the eras it was judged in, and how it got past a protected server: report shapes,
 * defined here with the rest of the report (core/negotiate.ts, core/eras.ts and core/auth/credentials.ts fill them). */

/** One step of the negotiation, as the report shows it (`report.negotiation.steps`). */
export interface NegotiationStep {
  method: 'server/discover' | 'initialize';
  /** The version the step offered. */
  offered: string;
  outcome: 'result' | 'error' | 'timeout' | 'closed' | 'failed';
  /** The error code of an error answer. */
  errorCode?: number;
  /** initialize: the version answered. server/discover: the versions listed. */
  answered?: unknown;
  /** What happened, in words. */
  message: string;
  /** The server process (or HTTP session) was restarted after this step; its messages are not in `messages`. */
  restartedAfter?: boolean;
  /** The messages of the step (text as sent and received, cut at 2000 characters). */
  exchange?: { sent?: string; received?: string };
}

/** How the run arrived at its version (`report.negotiation`). */
export interface Negotiation {
  /** 'default': newest first with fallback; 'forced': --protocol-version. */
  mode: 'default' | 'forced';
  requested?: ProtocolVersion;
  /** The handshake of the version in force: server/discover (stateless) or initialize; none when both failed. */
  handshake: 'server/discover' | 'initialize' | 'none';
  /** The version in force (undefined when no usable version came of it). */
  version?: string;
  steps: NegotiationStep[];
  /** How many times the server was restarted during negotiation (0 or 1). */
  restarts: number;
}

/** One row of `report.matrix` (--all-versions). */
export interface MatrixEntry {
  protocolVersion: ProtocolVersion;
  /** The server spoke this version when it was asked to (the handshake agreed on it). */
  accepted: boolean;
  /**
   * false: the version was not tested, because the run was stopped (--max-duration, which bounds all versions
   * together, or an interrupt) before its handshake decided, or before it started (reason says which).
   */
  tested?: false;
  /** Why not, when not accepted. */
  reason?: string;
  summary: Summary;
  suites: { id: string; pass: number; warn: number; fail: number; skip: number; info: number }[];
}

/** One era of a dual-era report (report.eras): a row of the --all-versions matrix and what its run was. */
export interface Era extends MatrixEntry {
  /** The handshake its run opened with. */
  handshake?: 'server/discover' | 'initialize' | 'none';
  /** Where its messages are in report.messages (seq numbers, both included); absent when it logged none. */
  messages?: { from: number; to: number };
  startedAt?: string;
  durationMs?: number;
  /** The server as its handshake described it (the report's own `server` is the first era's). */
  server?: ServerInfo;
  /** The server process of its run (a fresh one over stdio, or with --start). */
  process?: ProcessInfo;
  negotiation?: Negotiation;
  /** Set when its run ended early. */
  aborted?: string;
}

/** Where the run's token came from. */
export type CredentialSource = 'header' | 'oauth' | 'auth-server';

/** One HTTP exchange of the authorization itself (discovery, registration, token request), secrets redacted. */
export interface AuthExchange {
  /** What the exchange was for, in plain words ("protected-resource metadata (from the challenge)"). */
  purpose: string;
  method: string;
  /** The URL asked, with secret-looking query parameters redacted. */
  url: string;
  /** HTTP status, or undefined when no answer came (then `error` says why). */
  status?: number;
  /** Response headers that matter to grading (www-authenticate, content-type, access-control-*). */
  headers?: Record<string, string>;
  /** The response body as text (cut to a few kB), with token-like members redacted. */
  body?: string;
  error?: string;
  /** ms since the run's start. */
  t: number;
}

/** What getting in learnt (Credentials.discovered; in the report without the metadata documents). */
export interface AuthDiscovered {
  resourceMetadataUrl?: string;
  resourceMetadata?: Record<string, unknown>;
  authorizationServerMetadataUrl?: string;
  authorizationServerMetadata?: Record<string, unknown>;
  /** How the client registered: 'pre-registered' | 'client-id-metadata-document' | 'dynamic' | 'none' (client_credentials with given id). */
  registration?: string;
  scope?: string;
  /** --oauth: the issuer of the authorization server used. */
  issuer?: string;
  /** --oauth: the grant that got the token ('authorization_code' | 'client_credentials'). */
  grant?: string;
  /** --oauth: how the token endpoint authenticated the client ('none' | 'client_secret_post' | 'client_secret_basic'). */
  tokenEndpointAuthMethod?: string;
  /** --oauth: the authorization needed a person (its URL was printed), else it was approved at once. */
  interactive?: boolean;
  /** --oauth: the server had no protected-resource metadata, so the 2025-03-26 way was taken (the MCP URL's origin). */
  legacy?: boolean;
}

export function summarize(suites: SuiteResult[], messages: LoggedMessage[]): Summary {
  const s: Summary = {
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
  for (const suite of suites)
    for (const c of suite.cases) {
      s[c.verdict]++;
      s.total++;
      if (c.baselined && c.verdict === 'fail') s.baselined++;
    }
  for (const m of messages) {
    if (m.schema.checked) s.messagesValidated++;
    else if (m.direction === 'from-server') s.strayLines++;
  }
  return s;
}

/**
 * The exit code a report's content gives: 1 when a failure is not baselined, the run ended early, (--all-versions) an
 * accepted version has a failure or none was accepted, or (--strict) a baseline entry is stale; else 0. An interrupted
 * run's 130/143 stays.
 */
export function exitCodeOf(r: Report): number {
  if (r.exitCode > 1) return r.exitCode; // interrupted (130, 143): stays
  const unexcused = r.summary.fail - (r.summary.baselined ?? 0);
  if (unexcused > 0 || r.aborted || r.authorization?.failure) return 1;
  if (r.matrix?.some((m) => m.accepted && m.summary.fail > 0)) return 1; // --all-versions: a failing version
  if (r.matrix && !r.matrix.some((m) => m.accepted)) return 1;
  if (r.options.strict === true && r.baseline?.stale.length) return 1;
  return 0;
}
