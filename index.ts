/**
 * mcp-conform as a library: `import { runConformance } from 'mcp-conform'`.
 *
 * runConformance(options) tests one server with the options of `mcp-conform run` (the config file's names:
 * `{ stdio: 'python server.py' }`, `{ http: url, headers }`, `suites`, `cases`, `timeout`, `strict`, `baseline`…)
 * and resolves to the report — the object report.json holds, finalized as the CLI does it.
 *
 * For your own cases: the Suite / CaseDef / CaseContext types (pass your Suite objects in `suites`), the Session a
 * case talks through, and the transports.
 */
export {
  runConformance,
  prepareRun,
  executeRun,
  OptionsError,
  type ConformanceOptions,
  type PreparedRun,
} from './lib/conformance.js';
export { finalizeReport, type FinalizeOptions } from './core/finalize.js';
export { runSuites, runAllVersions, runEras, caseWanted, CLIENT_INFO, type RunOptions } from './core/run.js';
export { loadBaseline, parseBaseline, BaselineError, type Baseline, type BaselineEntry } from './core/baseline.js';
export {
  summarize,
  VERDICTS,
  type Verdict,
  type Level,
  type CaseResult,
  type SuiteResult,
  type Summary,
  type Report,
  type ServerInfo,
  type TargetInfo,
  type ProcessInfo,
  type ToolSkip,
  type BaselineOutcome,
} from './core/results.js';
export {
  unanswered,
  type Suite,
  type CaseDef,
  type CaseContext,
  type Outcome,
  type ItemOutcome,
  type InitOutcome,
  type ToolCallRecord,
  type ExchangeRecord,
  type Requires,
  type TransportKind,
} from './core/suite.js';
export { tools, toolCallsOf } from './core/tools.js';
export { callTool } from './core/call-policy.js';
export { callPlan, callToolsOption, callToolOption, type CallToolsPolicy } from './core/call-policy.js';
export { FEATURES, featuresOf, type VersionFeatures, type FeatureFlag } from './core/features.js';
export type { Service } from './core/services.js';
export type { OptionDef } from './core/options.js';
export {
  Session,
  SessionError,
  type SessionOptions,
  type RequestOptions,
  type Reply,
  type JsonRpcError,
  type SessionErrorKind,
} from './core/session.js';
export type { LoggedMessage, SchemaViolation, SchemaVerdict, Direction, MessageKind } from './core/log.js';
export type { Tool, ToolListing } from './core/tools.js';
export type { Negotiation, NegotiationStep, MatrixEntry, Handshake } from './core/negotiate.js';
export {
  createTransport,
  targetInfo,
  type Target,
  type StdioTarget,
  type HttpTarget,
  type TransportOptions,
} from './core/transport/index.js';
export type { Transport, IncomingFrame, TransportClosed } from './core/transport/types.js';
export { StdioTransport, type StdioOptions } from './core/transport/stdio.js';
export { StreamableHttpTransport, type StreamableHttpOptions } from './core/transport/http.js';
export { SseTransport, type SseOptions } from './core/transport/sse.js';
export { DetectingTransport } from './core/transport/detect.js';
export { PROTOCOL_VERSIONS, DEFAULT_OFFERED_VERSION, specUrl, type ProtocolVersion } from './core/schema/versions.js';
export { ALL_SUITES, suiteById } from './suites/index.js';
export {
  createReporter,
  createReporters,
  processIO,
  REPORTERS,
  REPORTER_NAMES,
  ReporterError,
  type ReporterName,
} from './reports/index.js';
export type {
  Reporter,
  ReporterIO,
  ReportSet,
  FinishContext,
  RunStart,
  SuitePhase,
  CombinedReport,
} from './reports/types.js';
export { VERSION } from './core/version.js';
