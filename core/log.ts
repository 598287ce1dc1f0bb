/**
 * The message log: every line that crossed the wire, in order, with its parse and schema verdicts.
 * Suites read it; reporters print it; the JSON report contains it whole.
 */
import type { OptionDef } from './options.js';

export type Direction = 'to-server' | 'from-server';
export type MessageKind = 'request' | 'notification' | 'response' | 'error' | 'invalid';

export interface SchemaViolation {
  /** JSON pointer into the message where the problem is ('' = the whole message). */
  pointer: string;
  /** What the schema expected, in plain words. */
  message: string;
  /** The schema keyword that failed (ajv's), e.g. 'required', 'type'. */
  keyword?: string;
}

export interface SchemaVerdict {
  /** false only for lines that are not JSON at all (they are no messages: see the stdio suite). */
  checked: boolean;
  valid: boolean;
  /** The definition the message was checked against, e.g. 'CallToolResult' (via the envelope it was wrapped in). */
  definition?: string;
  violations: SchemaViolation[];
  /**
   * Set on messages the harness sent malformed on purpose (a probe): their violations are expected and do not
   * fail the schema suite.
   */
  expectedInvalid?: string;
}

export interface LoggedMessage {
  /** Position in the log, from 0; cases refer to messages by it. */
  seq: number;
  direction: Direction;
  /** Milliseconds since the start of the run. */
  t: number;
  /** The exact text of the line as sent or received (without the newline). */
  raw: string;
  /** The parsed JSON value (absent when the line is not JSON). */
  json?: unknown;
  kind: MessageKind;
  /** Method of a request or notification; for a response, the method of the request it answers. */
  method?: string;
  id?: string | number | null;
  /** For a response: seq of the request it answers. */
  inReplyTo?: number;
  /** Why the line is 'invalid' (not JSON, not a JSON-RPC message, ...). */
  problem?: string;
  schema: SchemaVerdict;
  /** Over HTTP: the exchange that carried the message (absent over stdio). */
  http?: HttpInfo;
}

/**
 * How a message crossed HTTP. For a message sent: the POST and the answer's status line and headers (filled in when
 * the answer comes). For a message received: the exchange whose body or SSE stream carried it, and the SSE event.
 * Only these headers are kept; the values of `--header` never appear here.
 */
export interface HttpInfo {
  /** Number of the HTTP exchange in the run (report.http.exchanges[n]). */
  exchange: number;
  method: 'POST' | 'GET' | 'DELETE';
  url: string;
  /** HTTP status of the answer (absent until it came, or when the connection failed). */
  status?: number;
  /** Content-Type of the answer. */
  contentType?: string;
  /** Mcp-Session-Id: sent with the request (to-server) or set by the answer (from-server). */
  sessionId?: string;
  /** MCP-Protocol-Version sent with the request. */
  protocolVersion?: string;
  /** Bytes in the body of the answer to a notification or response (a 202 must have none). */
  bodyBytes?: number;
  /** SSE event name ('message' when the event named none) and id, for messages that came in an SSE stream. */
  sseEvent?: string;
  sseId?: string;
  /** What went wrong on the wire, in plain words (connection refused, stream cut, …). */
  problem?: string;
}

export function classify(json: unknown): {
  kind: MessageKind;
  method?: string;
  id?: string | number | null;
  problem?: string;
} {
  if (json === null || typeof json !== 'object' || Array.isArray(json)) {
    return {
      kind: 'invalid',
      problem: Array.isArray(json)
        ? 'a JSON array (batch), not a single JSON-RPC message'
        : `a JSON ${json === null ? 'null' : typeof json}, not a JSON-RPC message object`,
    };
  }
  const m = json as Record<string, unknown>;
  const idOk = (v: unknown): v is string | number | null =>
    v === null || typeof v === 'string' || typeof v === 'number';
  const id = idOk(m.id) ? m.id : undefined;
  if (typeof m.method === 'string') {
    if ('id' in m) return { kind: 'request', method: m.method, id };
    return { kind: 'notification', method: m.method };
  }
  if ('result' in m) return { kind: 'response', id };
  if ('error' in m) return { kind: 'error', id };
  return { kind: 'invalid', id, problem: 'an object with neither method, result nor error' };
}

export type ReportBodies = 'full' | 'truncated' | 'none';

/** Characters of `raw` report.json keeps of a message with --report-bodies truncated. */
export const TRUNCATED_RAW_CHARS = 1024;

/**
 * --report-bodies (config key and library option `reportBodies`): what report.json keeps of each message's body.
 * A run option (core/run.ts RUN_OPTIONS); reported in report.options.reportBodies when given, which is where the JSON
 * reporter reads it. The run itself, the other reporters and `--record` always have the whole log.
 */
export const reportBodiesOption: OptionDef<ReportBodies> = {
  flag: 'report-bodies',
  key: 'reportBodies',
  type: 'string',
  choices: ['full', 'truncated', 'none'],
  inReport: 'when-set',
  help: `What report.json keeps of each message: full (raw and json, the default); truncated (a raw line longer than ${TRUNCATED_RAW_CHARS} characters cut there, with rawChars, and its json left out); none (no raw, no json: a smaller report for huge logs)`,
};

/**
 * A message as report.json carries it under --report-bodies `mode`: the same object for full (and for a short
 * message under truncated), else a copy without the body (none), or with raw cut and json left out (truncated; its
 * rawChars is the length of the whole line). The other members keep their order.
 */
export function messageWithBodies(
  m: LoggedMessage,
  mode: ReportBodies | undefined,
): LoggedMessage | Omit<LoggedMessage, 'raw'> {
  if (
    !mode ||
    mode === 'full' ||
    (mode === 'truncated' && (typeof m.raw !== 'string' || m.raw.length <= TRUNCATED_RAW_CHARS))
  )
    return m;
  const out: Record<string, unknown> = {};
  for (const k of Object.keys(m)) {
    if (k === 'json') continue;
    if (k === 'raw') {
      if (mode === 'none') continue;
      out.raw = m.raw.slice(0, TRUNCATED_RAW_CHARS);
      out.rawChars = m.raw.length;
      continue;
    }
    out[k] = (m as unknown as Record<string, unknown>)[k];
  }
  return out as Omit<LoggedMessage, 'raw'>;
}
