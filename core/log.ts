/**
 * The message log: every line that crossed the wire, in order, with its parse and schema verdicts.
 * Suites read it; reporters print it; the JSON report contains it whole.
 */

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
}

export function classify(json: unknown): { kind: MessageKind; method?: string; id?: string | number | null; problem?: string } {
  if (json === null || typeof json !== 'object' || Array.isArray(json)) {
    return { kind: 'invalid', problem: Array.isArray(json) ? 'a JSON array (batch), not a single JSON-RPC message' : `a JSON ${json === null ? 'null' : typeof json}, not a JSON-RPC message object` };
  }
  const m = json as Record<string, unknown>;
  const idOk = (v: unknown): v is string | number | null => v === null || typeof v === 'string' || typeof v === 'number';
  const id = idOk(m.id) ? m.id : undefined;
  if (typeof m.method === 'string') {
    if ('id' in m) return { kind: 'request', method: m.method, id };
    return { kind: 'notification', method: m.method };
  }
  if ('result' in m) return { kind: 'response', id };
  if ('error' in m) return { kind: 'error', id };
  return { kind: 'invalid', id, problem: 'an object with neither method, result nor error' };
}
