/**
 * What a suite is: a list of cases, each a value with an id, the requirement it checks, the spec section and a run
 * function that reads the session (and its log) and returns a verdict with the evidence.
 */
import type { Level, Report, Verdict } from './results.js';
import type { RunInput } from './inputs.js';
import type { Reply, Session } from './session.js';
import { SessionError } from './session.js';
import type { ProtocolVersion } from './schema/versions.js';
import type { SchemaWorkbench } from './jsonschema.js';
import type { Transport } from './transport/types.js';
import type { Handshake } from './negotiate.js';
import type { OptionDef } from './options.js';
import type { FeatureFlag, VersionFeatures } from './features.js';
import type { StreamableHttpTransport } from './transport/http.js';
import type { SseTransport } from './transport/sse.js';

export type TransportKind = 'stdio' | 'streamable-http' | 'sse';

/**
 * When a case applies: data on the case, applied by the runner, which skips a case that does not apply with one
 * uniform reason ("does not apply: …"). No case body compares version strings or checks a transport class.
 */
export interface Requires {
  /** First protocol version the case applies to. */
  from?: ProtocolVersion;
  /** First protocol version it no longer applies to (exclusive). */
  until?: ProtocolVersion;
  /** A feature of the version in force (core/features.ts) the case needs; several: all of them. */
  feature?: FeatureFlag | FeatureFlag[];
  /** The transports the case is about (absent: every transport). */
  transports?: TransportKind[];
  /** A server capability the case needs (skipped when the server did not declare it). */
  capability?: string;
  /** An extension the case needs in capabilities.extensions (2026-07-28: e.g. io.modelcontextprotocol/tasks). */
  extension?: string;
  /**
   * What the case reads. 'server' (default): it talks to the live server (skipped once the server is gone or the
   * handshake failed). 'handshake': only the handshake outcome (runs in order even when the handshake failed).
   * 'log': the whole message log (runs once the server has been shut down). 'listed': only what the run listed
   * (the tool list, through its run service) and what earlier cases recorded — an offline analysis: it still runs, on
   * what was listed before, once the server died or stopped answering (a list never fetched is then "nothing to look
   * at"); skipped only when the handshake failed or the run was stopped.
   */
  needs?: 'server' | 'handshake' | 'log' | 'listed';
  /**
   * The case also runs when the server refused the run for want of authorization (401 to the handshake, no usable
   * token): it checks that refusal itself (the `auth` suite's unauthenticated checks). Every other case but those
   * reading the log is then skipped with the reason "the server requires authorization: …".
   */
  withoutToken?: boolean;
}

export interface Outcome {
  verdict: Verdict;
  message: string;
  messageIds?: number[];
  details?: Record<string, unknown>;
  /** The level of the requirement this verdict is about, when it differs from the case's (a SHOULD inside a MUST case). */
  level?: Level;
  /** Time this result took, when the case measured it (per-item cases); else the case's time is shared out. */
  durationMs?: number;
  /**
   * Error answers the verdict rests on that are not in the run's message log (a probe on a connection of its own, an
   * HTTP probe): the engine's environment rule (core/environment.ts) reads them as it reads the errors among messageIds.
   * Not reported.
   */
  errors?: { code: number; message: string; data?: unknown }[];
  /**
   * On a skip: the server has nothing of the kind the case is about, found by the case itself where no declaration
   * says it (no tool takes a path, no file:// resource): reported as a case that does not apply (CaseResult.notApplicable).
   */
  notApplicable?: true;
}

/**
 * The verdict for a request that got no answer: fail, except for a request sent after the server was already gone
 * (the failure was reported where it happened; this one is skipped).
 */
export function unanswered(e: Error): Outcome {
  const mids = e instanceof SessionError && e.request ? [e.request.seq] : [];
  if (e instanceof SessionError && e.afterClose)
    return { verdict: 'skip', message: `not run: ${e.message}`, messageIds: mids };
  return { verdict: 'fail', message: e.message, messageIds: mids };
}

/** One result of a case that runs once per item (per tool, say): its id is `<case id>/<item>`. */
export interface ItemOutcome extends Outcome {
  item: string;
  title?: string;
}

export interface CaseDef {
  /** Full id, e.g. 'lifecycle/ping'. For per-item cases the stem: results get '/<item>' appended. */
  id: string;
  title: string;
  level: Level;
  /** Section path in the spec, e.g. 'basic/utilities/ping'; the version in force is put in front. */
  spec: string;
  /** The requirement checked, in plain words (shown by `list` and in reports). */
  requirement: string;
  /** Set for cases that produce one result per item; names the item, e.g. 'tool'. */
  perItem?: string;
  /** The case judges a file the run was given (server.json, an MCPB manifest), not the session: judged once in a run of two eras. */
  ofFile?: true;
  /** When the case applies (versions, features, transports, capability, live server or log). */
  requires?: Requires;
  run(ctx: CaseContext): Promise<Outcome | ItemOutcome[]>;
  /**
   * Work the case may start when the session phase begins, so that it overlaps the cases ahead of it (a second
   * connection, say): called once, before any case runs, when the case is selected and applies; run() collects it
   * (typically through a run service). It must not send on the main session; what it opens is ended with the run.
   */
  start?(ctx: CaseContext): void;
  /**
   * True when the case's run(), in this run, only waits for work off the main session (what start() began on a second
   * server process, say): it sends nothing on the main session and the server's state does not enter its verdict. Such
   * a case is started at its turn, whether it runs decided as for any other, and the suite's next cases go on
   * meanwhile; its result is awaited at the end of the suite and keeps its place among the suite's results.
   */
  offSession?(ctx: CaseContext): boolean;
  /**
   * Work the case does on the main session before the first case runs, so that what it must wait for overlaps the
   * cases ahead of it (robustness/unknown-notification: its message, and the watch for an answer that must not come).
   * Called once when the session phase begins, for a selected, applicable case, and awaited (bounded by the run's
   * stop) before any case runs: it sends, makes sure the server still answers (so that a server that dies of the
   * message is caught before other cases), and leaves only a bounded wait running, ended by itself. It may open a
   * catch-all probe only with ProbeOptions.overlapped (answers it cannot tell apart from other cases' stay theirs).
   * run() collects the result at the case's turn; if early() threw, run() does the work itself then.
   */
  early?(ctx: CaseContext): Promise<void>;
  /**
   * With early(): the wait the early work left running, on the session's clock: undefined when it sent nothing (or
   * nothing is left to wait for), `{}` while the wait is open, `{ until }` once it ended. The runner repeats the run
   * without early work when the server died, or stopped answering, before such a wait had ended (other cases' verdicts
   * would otherwise carry what the early message did): see core/run-cases.ts earlyTrouble.
   */
  earlyWindow?(ctx: CaseContext): { until?: number } | undefined;
  /**
   * With early(): whether the early work saw the server die or stop answering (that is the case's verdict). The runner
   * then runs the case at its turn although the server is gone, instead of skipping it ("not run: …"); and while the
   * server stays silent after such a loss (Session.isStalled), it does not run the other cases that need the server.
   */
  sawLoss?(ctx: CaseContext): boolean;
}

export interface Service<T> {
  /** Unique name (for messages and debugging). */
  id: string;
  /** Produce the fact; called at most once per run, on first use. */
  produce(ctx: CaseContext): Promise<T>;
  /**
   * Fields the service adds to the report once the run ended: `value` is undefined when no case asked for it (or
   * producing it failed). Add fields, never remove the contract's.
   */
  report?(report: Report, value: T | undefined): void;
}

/** What a suite's selectedWhen reads of a run before it starts: its option values and the values given for features. */
export interface RunSelection {
  option<T>(o: OptionDef<T>): T;
  input<T>(i: RunInput<T>): T | undefined;
}

export interface Suite {
  id: string;
  title: string;
  description: string;
  cases: CaseDef[];
  /**
   * The transports the suite is about (absent: every transport). A run without --suite leaves the suite out on other
   * transports; named with --suite, its cases are skipped with the reason.
   */
  transports?: TransportKind[];
  /** The suite's own options (CLI flag, config key, library option and report.options entry come from these). */
  options?: OptionDef[];
  /** Run services whose report fields the suite's run should carry even when no case used them. */
  // biome-ignore lint/suspicious/noExplicitAny: services of any value type; each is read back typed through ctx.service
  services?: Service<any>[];
  /**
   * A suite that is in a run without --suite only when this says so for the run's options (absent: always) and, once
   * the handshake is over, what it met (`run`: the transport and the handshake's outcome; absent while the server
   * starts, when suites warm up). Named with --suite, it runs anyway.
   */
  selectedWhen?: (run: RunSelection, met?: Pick<CaseContext, 'transport' | 'init'>) => boolean;
  /**
   * Called once as a run that will run one of the suite's cases starts, while the server starts and before its first
   * answer (the harness waits then): begin loading what the cases will need (quality: the tokenizer), so that work
   * overlaps the wait. It must not throw or block for long; the cases still load what they need themselves.
   */
  warmUp?: () => void;
}

/** The handshake outcome (ctx.init): one type, defined with the negotiation (core/negotiate.ts Handshake). */
export type InitOutcome = Handshake;

/**
 * One request a case made through ctx.request, with what came back and why it was sent. Later suites read them
 * (is-error reads every tools/call answer; a lint or cost suite could read them all).
 */
export interface ExchangeRecord {
  method: string;
  /** Why the case sent it, in the suite's own words ('call', 'unknown-tool', 'missing-required'…). */
  purpose: string;
  /** The case that made it. */
  caseId: string;
  /** tools/call: the tool named. */
  tool?: string;
  reply?: Reply;
  failure?: Error;
  /** 2026-07-28: the request met input_required; every round, and what the harness answered (core/mrtr.ts). reply is the final one. */
  mrtr?: import('./input-answers.js').MrtrExchange;
}

/** A tools/call exchange (core/tools.ts callTool). */
export interface ToolCallRecord extends ExchangeRecord {
  tool: string;
}

export interface CaseContext {
  session: Session;
  transport: Transport;
  /** The Streamable HTTP transport of the run (also when --url found it), else undefined. */
  http?: StreamableHttpTransport;
  /** The HTTP+SSE transport of the run (also when --url found it), else undefined. */
  sse?: SseTransport;
  /** The protocol version in force (negotiated, or offered when the answer was unusable). */
  version: ProtocolVersion;
  /** What the version in force has (core/features.ts): cases consult this, never a version string. */
  features: Readonly<VersionFeatures>;
  init: InitOutcome;
  /** Server capabilities from the initialize result ({} when none). */
  capabilities: Record<string, unknown>;
  timeoutMs: number;
  forcedVersion?: ProtocolVersion;
  /**
   * The value the run was given for a feature (core/inputs.ts): e.g. ctx.input(surfaceInput) for the surface
   * snapshot options, ctx.input(credentialsInput) for what got the run past a protected server. undefined: none.
   */
  input<T>(i: RunInput<T>): T | undefined;
  workbench: SchemaWorkbench;
  /** A run service's value (produced once per run on first use, then shared): e.g. ctx.service(tools). */
  service<T>(s: Service<T>): Promise<T>;
  /**
   * A run service's value once some case has asked for it and it has been produced; never asks for it itself (a
   * start hook uses it to do work on a fact as soon as it is in, without changing when the fact is fetched). Never
   * settles in a run where nothing asks for the service; rejects as ctx.service does.
   */
  whenProduced<T>(s: Service<T>): Promise<T>;
  /** The value of a declared option (a suite's own, or a run option such as the call policy), or its default. */
  option<T>(o: OptionDef<T>): T;
  /** Send a request and record it with its purpose in `exchanges`. */
  request(
    method: string,
    params: Record<string, unknown> | undefined,
    how: {
      purpose: string;
      tool?: string;
      expectInvalid?: string;
      beforeRetry?: () => Promise<void> | void;
      timeoutFrom?: Promise<unknown>;
    },
  ): Promise<ExchangeRecord>;
  /** Every exchange cases made through ctx.request (and any a case recorded itself), in the order made. */
  readonly exchanges: ExchangeRecord[];
  /**
   * Open another session with the same server, not initialized (for probes that need a fresh one): over stdio a
   * second server process. Rejects when it cannot be started. The run closes it at the end if the case did not.
   */
  openSession?(): Promise<{ session: Session; transport: Transport; close(): Promise<void> }>;
  /** Whether a full case id (for per-item cases: stem/item) is selected by --case. */
  selected(id: string): boolean;
  spec(path: string): string;
}
