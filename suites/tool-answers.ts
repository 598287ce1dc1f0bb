/**
 * Reading tool results: what kind of answer a tools/call got (an error of one form or another, or a success), whether
 * a success result plainly reports a failure, whether an error answer is about the argument the harness broke, and
 * whether a text block carries the structured content. Shared by calling and invalid-params.
 * https://modelcontextprotocol.io/specification/2025-11-25/server/tools#error-handling
 */
import { isDeepStrictEqual } from 'node:util';
import type { Reply } from '../core/session.js';
import type { Tool } from '../core/tools.js';
import { isObject } from './helpers.js';

/** The texts of a result's text blocks, in order. */
export function textBlocks(content: unknown): string[] {
  if (!Array.isArray(content)) return [];
  return content
    .filter((c) => isObject(c) && c.type === 'text' && typeof c.text === 'string')
    .map((c) => (c as { text: string }).text);
}

/** One line, cut to max characters, for a message. */
export function quote(text: string, max = 200): string {
  const s = text.replace(/\s+/g, ' ').trim();
  return JSON.stringify(s.length > max ? s.slice(0, max) + '…' : s);
}

/**
 * Text at the start of a result that reports a failure: "Error: …", "ERROR - …", "[error] …", "Failed to …",
 * "Failed: …", "Failure: …", "Fatal error: …", "Exception: …", "MCP error -32602: …", "Error executing tool …"
 * (and, see FAILURE_CODE, "[NOT_FOUND] … does not exist").
 * Kept narrow on purpose: a word "error" in the middle of a sentence, "Errors: 0" or "Error handling guide" do not count.
 */
const FAILURE_START =
  /^(?:\[(?:error|fatal)\]|(?:fatal\s+)?error\s*(?::|\s-\s|\s\u2014\s)|(?:mcp\s+)?error\s+-?\d+\s*:|error\s+(?:executing|calling|running|invoking|while|during|occurred)\b|failed(?:\s+to\b|\s*[:!.]?\s*$|\s*:(?!\s*0\b)|\s*!)|failure\s*:|exception\s*:|unhandled\s+exception\b)/i;

/**
 * An error code in brackets at the start, as some servers mark a failure: "[NOT_FOUND] …", "[PERMISSION_DENIED] …",
 * "[INTERNAL_ERROR] …". Upper case only, and only codes that name a failure (a "[INFO]" or "[OK]" prefix does not
 * count); the text after it must read as a failure too (does not exist, not found, failed, denied, invalid…), so a
 * heading such as "[NOT_FOUND] handling" in a document is no failure.
 */
const FAILURE_CODE = /^\[([A-Z][A-Z0-9]*(?:_[A-Z0-9]+)*)\]/;
const FAILURE_CODE_NAME =
  /(?:^|_)(?:NOT_FOUND|NOTFOUND|ERROR|ERR|FAILED|FAILURE|DENIED|FORBIDDEN|UNAUTHORI[SZ]ED|INVALID|TIMEOUT|TIMED_OUT|UNAVAILABLE|CONFLICT|ABORTED|EXCEPTION)(?:_|$)/;
const FAILURE_WORDS =
  /\b(?:does not exist|doesn't exist|not found|no such|failed|failure|denied|forbidden|unauthori[sz]ed|invalid|could not|couldn't|cannot|can't|unable to|timed out|unavailable|not allowed|error)\b/i;

/** A tool whose job is to show errors, logs or test outcomes: its text may start with "Error:" and be a success. */
const REPORTS_ERRORS = /error|fail|exception|log|diagnos|lint|debug|test|simulat|echo|validat|check|status|health/i;

export interface FailureText {
  /** The text that reports the failure, quoted for a message. */
  quoted: string;
  /** How it reports it, e.g. 'begins with "Error:"', 'is JSON with "success": false'. */
  how: string;
}

/**
 * Whether a success result (isError absent or false) plainly reports a failure: its first text block begins with an
 * error marker, or is a JSON object with "success": false or a non-empty top-level "error" member. Conservative —
 * a false warn is worse than a miss: nothing is reported for a tool whose name or title says it deals with errors,
 * logs, tests or echoes (its job may be to show an error), for a text that repeats an argument of the call (an echo),
 * or for a JSON member the tool's outputSchema declares (it is data the tool promises).
 */
export function failureReportedAsSuccess(
  result: Record<string, unknown> | undefined,
  tool?: Pick<Tool, 'name' | 'title' | 'outputSchema'>,
  args?: unknown,
): FailureText | undefined {
  if (!result || result.isError === true) return undefined;
  if (tool && (REPORTS_ERRORS.test(tool.name) || (typeof tool.title === 'string' && REPORTS_ERRORS.test(tool.title))))
    return undefined;
  const texts = textBlocks(result.content);
  const first = texts[0]?.trim();
  if (!first) return undefined;
  // An echo: the words that look like a failure came in with the call.
  const sent = argumentStrings(args).map((a) => a.toLowerCase());
  const m = FAILURE_START.exec(first);
  if (m) {
    const marker = m[0].trim();
    // The call asked for it: an argument holds the marker's word ("error", "fail"…), say messageType: "error".
    const word = /error|fail|exception|fatal/i.exec(marker)?.[0].toLowerCase();
    if (word && sent.some((a) => a.includes(word))) return undefined;
    return { quoted: quote(first), how: `begins with ${JSON.stringify(marker)}` };
  }
  const code = FAILURE_CODE.exec(first);
  if (code && FAILURE_CODE_NAME.test(code[1]!) && FAILURE_WORDS.test(first.slice(code[0].length))) {
    const word = code[1]!.toLowerCase();
    if (sent.some((a) => a.toLowerCase().includes(word))) return undefined;
    return { quoted: quote(first), how: `begins with the error code ${JSON.stringify(code[0])}` };
  }
  if (sent.some((a) => a.includes(first.toLowerCase()))) return undefined;
  if (!first.startsWith('{')) return undefined;
  let json: unknown;
  try {
    json = JSON.parse(first);
  } catch {
    return undefined;
  }
  if (!isObject(json)) return undefined;
  const declared = declaredProperties(tool?.outputSchema);
  if (json.success === false && !declared.has('success'))
    return { quoted: quote(first), how: 'is JSON with "success": false' };
  const err = json.error;
  const substantial =
    (typeof err === 'string' && err.trim() !== '') || (isObject(err) && Object.keys(err).length > 0) || err === true;
  if (substantial && !declared.has('error') && json.success !== true)
    return { quoted: quote(first), how: 'is JSON with a top-level "error" member' };
  return undefined;
}

function argumentStrings(args: unknown, out: string[] = [], depth = 0): string[] {
  if (typeof args === 'string') out.push(args.trim());
  else if (depth < 4 && Array.isArray(args)) for (const a of args.slice(0, 50)) argumentStrings(a, out, depth + 1);
  else if (depth < 4 && isObject(args))
    for (const v of Object.values(args).slice(0, 50)) argumentStrings(v, out, depth + 1);
  return out;
}

function declaredProperties(schema: unknown): Set<string> {
  return new Set(isObject(schema) && isObject(schema.properties) ? Object.keys(schema.properties) : []);
}

/** What came back to a tools/call, in the terms the grading uses. */
export interface Answer {
  kind: 'rpc-error' | 'is-error' | 'failure-text' | 'success';
  /** The words of the answer: the error message (and data), or the result's text blocks. */
  text: string;
  /** The JSON-RPC error code, for kind 'rpc-error'. */
  code?: number;
  failure?: FailureText;
}

export function classifyAnswer(
  reply: Reply,
  tool?: Pick<Tool, 'name' | 'title' | 'outputSchema'>,
  args?: unknown,
): Answer {
  if (reply.error) {
    const data =
      reply.error.data === undefined
        ? ''
        : ` ${typeof reply.error.data === 'string' ? reply.error.data : safeJson(reply.error.data)}`;
    return { kind: 'rpc-error', text: `${reply.error.message}${data}`, code: reply.error.code };
  }
  const r = reply.result;
  const text = textBlocks(r?.content).join('\n');
  if (r?.isError === true) return { kind: 'is-error', text: text || safeJson(r.content) };
  const failure = failureReportedAsSuccess(r, tool, args);
  if (failure) return { kind: 'failure-text', text, failure };
  return { kind: 'success', text };
}

function safeJson(v: unknown): string {
  try {
    return JSON.stringify(v) ?? String(v);
  } catch {
    return String(v);
  }
}

/**
 * How the content of a result carries its structuredContent for a client that reads only content, or undefined when
 * it does not: a text block holding its JSON (the SHOULD), or — structuredContent being an object with one member,
 * the SDKs' wrapping of a return value that is not an object ({"result": 5}) — the wrapped value itself: a text
 * block that is the value (JSON, or the string as it is), the text blocks of a list one item each (the Python SDK),
 * the content blocks themselves, or no content for an empty list or null.
 */
export function carriesStructured(content: unknown, structured: unknown): string | undefined {
  const texts = textBlocks(content);
  if (texts.some((t) => carries(t, structured))) return 'a text block carries it as JSON';
  if (!isObject(structured)) return undefined;
  const keys = Object.keys(structured);
  if (keys.length !== 1) return undefined;
  const key = keys[0]!;
  const v = structured[key];
  const what = `its one member ${JSON.stringify(key)}`;
  if (texts.some((t) => carries(t, v))) return `a text block carries ${what}`;
  if (Array.isArray(v)) {
    if (v.length > 0 && texts.length === v.length && v.every((item, i) => carries(texts[i]!, item)))
      return `the text blocks carry the items of ${what}, one each`;
    if (Array.isArray(content) && v.length > 0 && isDeepStrictEqual(content, v))
      return `the content blocks are ${what}`;
    if (v.length === 0 && Array.isArray(content) && content.length === 0)
      return `${what} is an empty list and the content is empty`;
  }
  if (v === null && Array.isArray(content) && content.length === 0) return `${what} is null and the content is empty`;
  return undefined;
}

function carries(text: string, value: unknown): boolean {
  if (typeof value === 'string' && text === value) return true;
  try {
    return isDeepStrictEqual(JSON.parse(text), value);
  } catch {
    return false;
  }
}
