/**
 * What a suite is: a list of cases, each a value with an id, the requirement it checks, the spec section and a run
 * function that reads the session (and its log) and returns a verdict with the evidence.
 */
import type { Level, Verdict } from './results.js';
import type { Reply, Session } from './session.js';
import { SessionError } from './session.js';
import type { ProtocolVersion } from './schema/versions.js';
import type { SchemaWorkbench } from './jsonschema.js';
import type { Transport } from './transport/types.js';
import type { ToolListing } from './tools.js';
import type { CallPlan, CallToolsPolicy } from './call-policy.js';

export interface Outcome {
  verdict: Verdict;
  message: string;
  messageIds?: number[];
  details?: Record<string, unknown>;
  /** The level of the requirement this verdict is about, when it differs from the case's (a SHOULD inside a MUST case). */
  level?: Level;
  /** Time this result took, when the case measured it (per-item cases); else the case's time is shared out. */
  durationMs?: number;
}

/**
 * The verdict for a request that got no answer: fail, except for a request sent after the server was already gone
 * (the failure was reported where it happened; this one is skipped).
 */
export function unanswered(e: Error): Outcome {
  const mids = e instanceof SessionError && e.request ? [e.request.seq] : [];
  if (e instanceof SessionError && e.afterClose) return { verdict: 'skip', message: `not run: ${e.message}`, messageIds: mids };
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
  /** 'after-shutdown': runs once the server has been shut down (reads the whole log). */
  phase?: 'session' | 'after-shutdown';
  /** The case needs this server capability; skipped when it is not declared. */
  needsCapability?: string;
  run(ctx: CaseContext): Promise<Outcome | ItemOutcome[]>;
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
  transports?: ('stdio' | 'streamable-http' | 'sse')[];
}

export type { CallToolsPolicy } from './call-policy.js';

export interface InitOutcome {
  /** The version the harness offered. */
  offered: ProtocolVersion;
  reply?: Reply;
  failure?: SessionError | Error;
  /** seq of notifications/initialized. */
  initializedSeq?: number;
  /** The handshake of the version in force: 'server/discover' (2026-07-28, stateless) or 'initialize'. */
  handshake?: 'server/discover' | 'initialize' | 'none';
  /** The server/discover answer, when the run speaks a stateless version (or discover was tried on this connection). */
  discover?: Reply;
  discoverFailure?: Error;
  /** How the version was negotiated (report.negotiation). */
  negotiation?: import('./negotiate.js').Negotiation;
}

export interface ToolCallRecord {
  tool: string;
  /** 'reference': a call with valid arguments made by invalid-params when the calling suite made none. */
  purpose: 'call' | 'reference' | 'unknown-tool' | 'missing-required' | 'wrong-type' | 'malformed' | 'task' | 'task-required-plain' | 'progress';
  reply?: Reply;
  failure?: Error;
}

export interface CaseContext {
  session: Session;
  transport: Transport;
  /** The protocol version in force (negotiated, or offered when the answer was unusable). */
  version: ProtocolVersion;
  init: InitOutcome;
  /** Server capabilities from the initialize result ({} when none). */
  capabilities: Record<string, unknown>;
  timeoutMs: number;
  callTools: CallToolsPolicy;
  unknownToolCode?: number;
  forcedVersion?: ProtocolVersion;
  workbench: SchemaWorkbench;
  /** The tool list, fetched once (all pages) and shared by the suites that need it. */
  tools(): Promise<ToolListing>;
  /**
   * Tools that may be called under --call-tools / --call-tool (plainly: `call`; only as tasks: `tasks`), and those
   * skipped with why (see core/call-policy.ts). Every tools/call with a listed tool's name goes through it.
   */
  callPlan(): Promise<CallPlan>;
  /** --call-tool NAME: tools allowed on top of --call-tools. */
  callToolNames: readonly string[];
  /** Call a tool and remember the answer for later suites (is-error). */
  callTool(name: string, args: unknown, purpose: ToolCallRecord['purpose'], opts?: { expectInvalid?: string; params?: Record<string, unknown> }): Promise<ToolCallRecord>;
  readonly toolCalls: ToolCallRecord[];
  /**
   * Open another session with the same server, not initialized (for probes that need a fresh one): over stdio a
   * second server process. Rejects when it cannot be started. The run closes it at the end if the case did not.
   */
  openSession?(): Promise<{ session: Session; transport: Transport; close(): Promise<void> }>;
  /** Whether a full case id (for per-item cases: stem/item) is selected by --case. */
  selected(id: string): boolean;
  spec(path: string): string;
}
