/**
 * The checks of an expectation against the answer that came: each check gives what was expected and what came, and a
 * structure the differences member by member (JSON pointers), so that a failing case shows them side by side.
 */
import type { JsonRpcError } from '../../core/session.js';
import { operatorOf, regexOf, type Checks, type Form } from './format.js';
import { brief } from '../helpers.js';
import { parsePath, projectOnto, subsetDiff, valueAt, type Difference } from './paths.js';
import { isObject } from '../../core/objects.js';

/** What came back to an expectation's request. */
export interface Answer {
  result?: Record<string, unknown>;
  error?: JsonRpcError;
  /** From the request to its answer (ms). */
  durationMs?: number;
}

export interface CheckOutcome {
  /** The check's key in the file: text, structuredContent, paths./a/b, error.code… */
  check: string;
  ok: boolean;
  expected: unknown;
  actual: unknown;
  /** For structures: the members that differ. */
  diff?: Difference[];
  /** The outcome in words (for the case message). */
  say: string;
}

/** A value for a message: JSON, cut to max characters. */
export function shown(v: unknown, max = 160): string {
  return v === undefined ? 'nothing' : brief(v, max);
}

function textsOf(content: unknown): string[] {
  const blocks = Array.isArray(content) ? content : isObject(content) ? [content] : [];
  return blocks
    .filter((b) => isObject(b) && b.type === 'text' && typeof b.text === 'string')
    .map((b) => (b as { text: string }).text);
}

/**
 * The text of an answer: call and request the text blocks of result.content; read the text of result.contents;
 * prompt the text blocks of each message's content; joined by newlines. Undefined when the answer has none.
 */
export function answerText(form: Form, result: Record<string, unknown> | undefined): string | undefined {
  if (!result) return undefined;
  let texts: string[];
  if (form === 'read')
    texts = (Array.isArray(result.contents) ? result.contents : [])
      .filter((c) => isObject(c) && typeof c.text === 'string')
      .map((c) => (c as { text: string }).text);
  else if (form === 'prompt')
    texts = (Array.isArray(result.messages) ? result.messages : []).flatMap((m) =>
      isObject(m) ? textsOf(m.content) : [],
    );
  else texts = textsOf(result.content);
  return texts.length ? texts.join('\n') : undefined;
}

function differences(d: Difference[]): string {
  const parts = d
    .slice(0, 4)
    .map((x) =>
      x.missing
        ? `${x.at || '/'} missing (expected ${shown(x.expected, 80)})`
        : `${x.at || '/'} expected ${shown(x.expected, 80)}, got ${shown(x.actual, 80)}`,
    );
  return parts.join('; ') + (d.length > 4 ? `; and ${d.length - 4} more` : '');
}

/** The outcome of a path's value against a literal (the members-given rule) or an operator ($exists, $type, $matches). */
function pathCheck(path: string, want: unknown, result: unknown): CheckOutcome {
  const got = valueAt(result, parsePath(path));
  const check = `paths.${path}`;
  const op = operatorOf(want);
  if (op && !(op instanceof Error)) {
    const problems: string[] = [];
    if (op.$exists !== undefined && op.$exists !== got.found)
      problems.push(op.$exists ? 'nothing is there' : `something is there: ${shown(got.value, 80)}`);
    if (op.$type !== undefined && got.found) {
      const v = got.value;
      const t =
        v === null
          ? 'null'
          : Array.isArray(v)
            ? 'array'
            : typeof v === 'number' && Number.isInteger(v) && op.$type === 'integer'
              ? 'integer'
              : typeof v;
      if (t !== op.$type)
        problems.push(
          `it is ${t === 'undefined' ? 'nothing' : `a${/^[aeiou]/.test(t) ? 'n' : ''} ${t}`}: ${shown(v, 80)}`,
        );
    } else if (op.$type !== undefined) problems.push('nothing is there');
    if (
      op.$matches !== undefined &&
      !(got.found && typeof got.value === 'string' && regexOf(op.$matches).test(got.value))
    )
      problems.push(got.found ? `${shown(got.value, 80)} does not match ${op.$matches}` : 'nothing is there');
    const ok = problems.length === 0;
    return {
      check,
      ok,
      expected: want,
      actual: got.found ? got.value : undefined,
      say: ok
        ? `${path} ${shown(want, 60)}`
        : `${path}: expected ${shown(want, 80)}, but ${[...new Set(problems)].join(', ')}`,
    };
  }
  if (!got.found)
    return {
      check,
      ok: false,
      expected: want,
      actual: undefined,
      diff: [{ at: '', expected: want, missing: true }],
      say: `${path}: expected ${shown(want, 80)}, but nothing is there`,
    };
  const diff = subsetDiff(want, got.value);
  return diff.length
    ? {
        check,
        ok: false,
        expected: want,
        actual: projectOnto(want, got.value),
        diff,
        say:
          isObject(want) || Array.isArray(want)
            ? `${path} differs: ${differences(diff)}`
            : `${path}: expected ${shown(want, 80)}, got ${shown(got.value, 80)}`,
      }
    : { check, ok: true, expected: want, actual: got.value, say: `${path} ${shown(want, 60)}` };
}

function structure(check: string, want: unknown, got: unknown, present: boolean): CheckOutcome {
  if (!present)
    return {
      check,
      ok: false,
      expected: want,
      actual: undefined,
      diff: [{ at: '', expected: want, missing: true }],
      say: `${check}: expected ${shown(want, 100)}, but the result has no ${check}`,
    };
  const diff = subsetDiff(want, got);
  return diff.length
    ? {
        check,
        ok: false,
        expected: want,
        actual: projectOnto(want, got),
        diff,
        say: `${check} differs: ${differences(diff)}`,
      }
    : { check, ok: true, expected: want, actual: got, say: `${check} ${shown(want, 80)}` };
}

/**
 * Every check of an expectation (its values with ${…} already put in) against the answer, in a fixed order: error,
 * isError, text, textContains, textMatches, structuredContent, result, paths, maxMs. A JSON-RPC error where a result
 * was expected (or the other way round) is one failing check; the checks of a result are then not made.
 */
export function runChecks(form: Form, c: Checks, a: Answer): CheckOutcome[] {
  const out: CheckOutcome[] = [];
  const result = a.result;
  if (c.error !== undefined) {
    const want = c.error;
    if (!a.error) {
      out.push({
        check: 'error',
        ok: false,
        expected: want,
        actual: result,
        say: `expected a JSON-RPC error${want !== true && want.code !== undefined ? ` ${want.code}` : ''}, got a result: ${shown(result, 200)}`,
      });
    } else {
      const e = a.error;
      if (want === true)
        out.push({ check: 'error', ok: true, expected: true, actual: e, say: `JSON-RPC error ${e.code}` });
      else {
        if (want.code !== undefined)
          out.push({
            check: 'error.code',
            ok: e.code === want.code,
            expected: want.code,
            actual: e.code,
            say:
              e.code === want.code
                ? `error ${e.code}`
                : `error.code: expected ${want.code}, got ${e.code} ("${shown(e.message, 100).slice(1, -1)}")`,
          });
        if (want.message !== undefined)
          out.push({
            check: 'error.message',
            ok: e.message === want.message,
            expected: want.message,
            actual: e.message,
            say:
              e.message === want.message
                ? `error message ${shown(e.message, 60)}`
                : `error.message: expected ${shown(want.message)}, got ${shown(e.message)}`,
          });
        if (want.messageContains !== undefined) {
          const ok = typeof e.message === 'string' && e.message.includes(want.messageContains);
          out.push({
            check: 'error.messageContains',
            ok,
            expected: want.messageContains,
            actual: e.message,
            say: ok
              ? `error message contains ${shown(want.messageContains, 60)}`
              : `error.messageContains: expected the message to contain ${shown(want.messageContains)}, got ${shown(e.message)}`,
          });
        }
        if (!out.length)
          out.push({ check: 'error', ok: true, expected: want, actual: e, say: `JSON-RPC error ${e.code}` });
      }
    }
  } else if (a.error) {
    out.push({
      check: 'error',
      ok: false,
      expected: 'a result',
      actual: a.error,
      say: `expected a result, got JSON-RPC error ${a.error.code}: ${shown(a.error.message, 200)}`,
    });
  }
  if (result && !a.error && c.error === undefined) {
    if (c.isError !== undefined) {
      const got = result.isError === true;
      out.push({
        check: 'isError',
        ok: got === c.isError,
        expected: c.isError,
        actual: got,
        say:
          got === c.isError
            ? `isError ${got}`
            : `isError: expected ${c.isError}, got ${got}${answerText(form, result) !== undefined ? ` (text ${shown(answerText(form, result), 120)})` : ''}`,
      });
    }
    const text = answerText(form, result);
    const noText = `the ${form === 'read' ? 'contents have' : form === 'prompt' ? 'messages have' : 'result has'} no text`;
    if (c.text !== undefined) {
      const ok = text === c.text;
      out.push({
        check: 'text',
        ok,
        expected: c.text,
        actual: text,
        say: ok
          ? `text ${shown(text, 60)}`
          : `text: expected ${shown(c.text)}, ${text === undefined ? `but ${noText}` : `got ${shown(text)}`}`,
      });
    }
    if (c.textContains !== undefined) {
      for (const want of [c.textContains].flat()) {
        const ok = text?.includes(want) === true;
        out.push({
          check: 'textContains',
          ok,
          expected: want,
          actual: text,
          say: ok
            ? `text contains ${shown(want, 60)}`
            : `textContains: expected the text to contain ${shown(want)}, ${text === undefined ? `but ${noText}` : `got ${shown(text)}`}`,
        });
      }
    }
    if (c.textMatches !== undefined) {
      const ok = text !== undefined && regexOf(c.textMatches).test(text);
      out.push({
        check: 'textMatches',
        ok,
        expected: c.textMatches,
        actual: text,
        say: ok
          ? `text matches ${c.textMatches}`
          : `textMatches: expected the text to match ${c.textMatches}, ${text === undefined ? `but ${noText}` : `got ${shown(text)}`}`,
      });
    }
    if (c.structuredContent !== undefined)
      out.push(
        structure('structuredContent', c.structuredContent, result.structuredContent, 'structuredContent' in result),
      );
    if (c.result !== undefined) out.push(structure('result', c.result, result, true));
    for (const [p, want] of Object.entries(c.paths ?? {})) out.push(pathCheck(p, want, result));
  }
  if (c.maxMs !== undefined && a.durationMs !== undefined) {
    const ok = a.durationMs <= c.maxMs;
    out.push({
      check: 'maxMs',
      ok,
      expected: c.maxMs,
      actual: Math.round(a.durationMs),
      say: ok
        ? `${Math.round(a.durationMs)} ms (within ${c.maxMs})`
        : `maxMs: answered in ${Math.round(a.durationMs)} ms, more than ${c.maxMs}`,
    });
  }
  return out;
}

/** The tool-list checks of a `tools` expectation. */
export function toolListChecks(
  t: { includes?: string[]; excludes?: string[]; exactly?: string[] },
  names: readonly string[],
): CheckOutcome[] {
  const have = new Set(names);
  const out: CheckOutcome[] = [];
  if (t.includes) {
    const missing = t.includes.filter((n) => !have.has(n));
    out.push({
      check: 'tools.includes',
      ok: !missing.length,
      expected: t.includes,
      actual: names,
      say: missing.length
        ? `tools.includes: ${missing.map((n) => `"${n}"`).join(', ')} not listed (the server lists ${shown(names, 200)})`
        : `lists ${t.includes.length} tool${t.includes.length === 1 ? '' : 's'} named`,
    });
  }
  if (t.excludes) {
    const there = t.excludes.filter((n) => have.has(n));
    out.push({
      check: 'tools.excludes',
      ok: !there.length,
      expected: t.excludes,
      actual: names,
      say: there.length
        ? `tools.excludes: ${there.map((n) => `"${n}"`).join(', ')} listed`
        : `lists none of ${t.excludes.length} excluded`,
    });
  }
  if (t.exactly) {
    const want = new Set(t.exactly);
    const missing = t.exactly.filter((n) => !have.has(n));
    const extra = names.filter((n) => !want.has(n));
    const ok = !missing.length && !extra.length && names.length === t.exactly.length;
    out.push({
      check: 'tools.exactly',
      ok,
      expected: [...t.exactly].sort(),
      actual: [...names].sort(),
      diff: ok
        ? undefined
        : [
            ...missing.map((n) => ({ at: `/${n}`, expected: n, missing: true })),
            ...extra.map((n) => ({ at: `/${n}`, expected: undefined, actual: n })),
          ],
      say: ok
        ? `lists exactly the ${names.length} tools named`
        : `tools.exactly: ${[missing.length ? `not listed: ${missing.join(', ')}` : '', extra.length ? `listed but not expected: ${extra.join(', ')}` : '', !missing.length && !extra.length ? `${names.length} listed for ${t.exactly.length} names (duplicates)` : ''].filter(Boolean).join('; ')}`,
    });
  }
  return out;
}
