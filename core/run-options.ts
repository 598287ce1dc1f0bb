/** What a run is told: the target, the suites and their filters, the policies, bounds and hooks (core/run.ts runs it). */
import type { CaseResult, SuiteResult } from './results.js';
import type { ProtocolVersion } from './schema/versions.js';
import type { Suite } from './suite.js';
import type { CallToolsPolicy } from './call-policy.js';
import type { LoggedMessage } from './log.js';
import type { Credentials } from './auth/credentials.js';
import type { RunInputs } from './inputs.js';
import type { Target, TransportOptions } from './transport/index.js';
import type { Transport } from './transport/types.js';
import type { Root } from './client-capabilities.js';

export interface RunOptions {
  target: Target;
  suites: Suite[];
  /** Suite ids to run (all when empty). */
  suiteFilter?: string[];
  /** Case ids or id prefixes to run (all when empty). */
  caseFilter?: string[];
  timeoutMs?: number;
  strict?: boolean;
  /** The call policy (a run option: core/call-policy.ts callToolsOption). */
  callTools?: CallToolsPolicy;
  /** --call-tool NAME: tools called on top of the callTools policy (whatever it is). */
  callToolNames?: string[];
  /** Values of the suites' own options, by key (e.g. { unknownToolCode: -32601 }); see Suite.options. */
  optionValues?: Record<string, unknown>;
  /** @deprecated the unknown-tool suite's option: optionValues.unknownToolCode. */
  unknownToolCode?: number;
  /**
   * Values for features the engine carries without knowing them (core/inputs.ts): the surface snapshot options
   * (surfaceInput), the published file the server was started from (publishedInput)… Cases read them with ctx.input.
   */
  inputs?: RunInputs;
  /** --client-capabilities: client capabilities the harness declares and answers with canned results (sampling, elicitation, roots). */
  clientCapabilities?: string[];
  /** --root: the roots answered to roots/list when roots is declared. */
  roots?: Root[];
  /** Speak only this version. */
  protocolVersion?: ProtocolVersion;
  /** Open with initialize offering this version, as a 2025 client does (the legacy era of a dual-era server: runEras). */
  legacyOffer?: ProtocolVersion;
  /** Bound for each shutdown step (ms). */
  shutdownGraceMs?: number;
  maxMessageBytes?: number;
  /**
   * Progress: called when a suite has run its cases of a phase ('session' while the server runs, 'after-shutdown' for
   * the cases that read the whole log), with the results that phase added. The suite is complete after its
   * 'after-shutdown' call.
   */
  onSuite?: (suite: SuiteResult, phase: 'session' | 'after-shutdown', added: CaseResult[]) => void;
  /**
   * Called once the run's session has sent its last message, before the harness waits for the server to end, with the
   * message log (report.messages): the messages in it stay as they are from then on (a late line is added after
   * them). The JSON report renders them meanwhile (reports/json.ts prerenderMessages).
   */
  onSessionEnd?: (messages: readonly LoggedMessage[]) => void;
  /**
   * Bound on the whole run (ms, default 10 minutes). When it runs out, the case in progress and every case still to
   * come are skipped with the reason, the server is shut down and the report is built (exit code 1).
   */
  maxDurationMs?: number;
  /**
   * Cancels the run the same way (SIGINT/SIGTERM in the CLI): the report covers what ran so far. The abort reason
   * (a string such as 'SIGINT', or an Error) is quoted in report.aborted.
   */
  signal?: AbortSignal;
  /**
   * --schema FILE: validate with this schema document instead of the built-in one of the version in force (loaded and
   * compiled beforehand: see lib/validate.ts loadSchemaFile). The dialect comes from its `$schema`.
   */
  schema?: { file: string; document: Record<string, unknown>; dialect: 'draft-07' | '2020-12' };
  /**
   * HTTP: what gets the run past a protected (OAuth) server. Its token goes on every request of the run (the
   * transports' POST, GET, DELETE, the SSE stream); cases read it as ctx.input(credentialsInput). Never written anywhere.
   */
  credentials?: Credentials;
  /** Builds the transport for a target (default: createTransport); tests put an in-process fake server here. */
  transportFactory?: (target: Target, opts: TransportOptions) => Transport;
}
