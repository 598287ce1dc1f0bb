/**
 * Matchers for what connect()'s callTool gives (a ToolCall; a bare CallToolResult works too):
 *   expect(call).toSucceed()                   a result, not isError, and its messages fit the schema
 *   expect(call).toFailWithToolError(text?)    a result with isError: true (its text containing / matching text)
 *   expect(call).toHaveText(text | /re/)       the text blocks, joined by newlines, equal text (or match)
 *   expect(call).toMatchStructured(partial)    structuredContent has the members given, equal (deep; others ignored)
 */
import { subsetDiff } from '../lib/test-helpers.js';
import type { MessageViolation, ToolCall } from './connect.js';

interface MatcherContext {
  isNot: boolean;
}
interface MatcherResult {
  pass: boolean;
  message: () => string;
  actual?: unknown;
  expected?: unknown;
}

/** A ToolCall from callTool, or a bare result object (content, isError, structuredContent). */
function asCall(received: unknown): ToolCall | undefined {
  if (!received || typeof received !== 'object') return undefined;
  const r = received as Record<string, unknown>;
  if ('violations' in r && 'isError' in r && 'text' in r) return r as unknown as ToolCall;
  if ('content' in r || 'structuredContent' in r || 'isError' in r) {
    const text = (Array.isArray(r.content) ? r.content : [])
      .filter((b) => b && (b as { type?: unknown }).type === 'text')
      .map((b) => String((b as { text?: unknown }).text))
      .join('\n');
    return {
      tool: '(result)',
      arguments: {},
      result: r,
      isError: r.isError === true,
      text,
      ...('structuredContent' in r ? { structuredContent: r.structuredContent } : {}),
      durationMs: 0,
      violations: [],
    };
  }
  return undefined;
}

const notACall = (name: string, received: unknown): MatcherResult => ({
  pass: false,
  message: () => `${name} expects what client.callTool() resolved to (or a CallToolResult), got ${safe(received)}`,
});

function safe(v: unknown): string {
  try {
    const s = JSON.stringify(v);
    return s === undefined ? String(v) : s.length > 300 ? `${s.slice(0, 300)}…` : s;
  } catch {
    return String(v);
  }
}

function what(c: ToolCall): string {
  if (c.error) return `JSON-RPC error ${c.error.code}: ${c.error.message}`;
  return `${c.isError ? 'an isError result' : 'a result'}${c.text ? ` with text ${safe(c.text)}` : ''}`;
}

const violationText = (v: MessageViolation[]) =>
  v
    .slice(0, 5)
    .map((x) => `${x.direction === 'to-server' ? 'request' : 'answer'} ${x.pointer || '(message)'} ${x.message}`)
    .join('; ');

export const matchers = {
  toSucceed(this: MatcherContext, received: unknown): MatcherResult {
    const c = asCall(received);
    if (!c) return notACall('toSucceed', received);
    const pass = !c.error && !c.isError && !c.violations.length;
    const why = c.violations.length ? `its messages break the MCP schema: ${violationText(c.violations)}` : what(c);
    return {
      pass,
      message: () =>
        this.isNot
          ? `expected ${c.tool} not to succeed, but it did: ${what(c)}`
          : `expected ${c.tool} ${safe(c.arguments)} to succeed, but got ${why}`,
    };
  },
  toFailWithToolError(this: MatcherContext, received: unknown, text?: string | RegExp): MatcherResult {
    const c = asCall(received);
    if (!c) return notACall('toFailWithToolError', received);
    const textOk = text === undefined || (typeof text === 'string' ? c.text.includes(text) : text.test(c.text));
    const pass = !c.error && c.isError && textOk;
    const want = `a tool error (isError: true)${text === undefined ? '' : ` whose text ${typeof text === 'string' ? `contains ${safe(text)}` : `matches ${String(text)}`}`}`;
    return {
      pass,
      message: () =>
        this.isNot
          ? `expected ${c.tool} not to fail with ${want}, but it did: ${what(c)}`
          : `expected ${c.tool} ${safe(c.arguments)} to fail with ${want}, but got ${what(c)}`,
    };
  },
  toHaveText(this: MatcherContext, received: unknown, expected: string | RegExp): MatcherResult {
    const c = asCall(received);
    if (!c) return notACall('toHaveText', received);
    const pass = !c.error && (typeof expected === 'string' ? c.text === expected : expected.test(c.text));
    return {
      pass,
      actual: c.error ? what(c) : c.text,
      expected: typeof expected === 'string' ? expected : String(expected),
      message: () =>
        `expected the text of ${c.tool}${this.isNot ? ' not' : ''} to ${typeof expected === 'string' ? `be ${safe(expected)}` : `match ${String(expected)}`}, got ${c.error ? what(c) : safe(c.text)}`,
    };
  },
  toMatchStructured(this: MatcherContext, received: unknown, expected: unknown): MatcherResult {
    const c = asCall(received);
    if (!c) return notACall('toMatchStructured', received);
    const has = c.structuredContent !== undefined;
    const diff = has ? subsetDiff(expected, c.structuredContent) : [];
    const pass = !c.error && has && !diff.length;
    const differs = diff
      .slice(0, 5)
      .map((d) =>
        d.missing ? `${d.at || '/'} missing` : `${d.at || '/'}: expected ${safe(d.expected)}, got ${safe(d.actual)}`,
      )
      .join('; ');
    return {
      pass,
      actual: c.structuredContent,
      expected,
      message: () =>
        this.isNot
          ? `expected the structuredContent of ${c.tool} not to match ${safe(expected)}, but it does`
          : `expected the structuredContent of ${c.tool} to have ${safe(expected)}, but ${c.error ? `got ${what(c)}` : !has ? `the result has no structuredContent (${what(c)})` : differs}`,
    };
  },
};

export interface McpMatchers<R = unknown> {
  /** A result (no JSON-RPC error), not isError, whose messages fit the schema. */
  toSucceed(): R;
  /** A result with isError: true; its text contains the string, or matches the regular expression, when one is given. */
  toFailWithToolError(text?: string | RegExp): R;
  /** The text blocks of the result, joined by newlines, equal the string (or match the regular expression). */
  toHaveText(text: string | RegExp): R;
  /** structuredContent has the members given, equal (deep); members not given are ignored. */
  toMatchStructured(expected: unknown): R;
}
