/**
 * Paths into answers, and the comparison the expectation checks use.
 *
 * A path is a JSON pointer (RFC 6901: "/structuredContent/items/0/id", "~1" for "/" and "~0" for "~") or a dotted
 * path: members by name (`structuredContent.items`), array items and odd names in brackets (`items[0]`,
 * `["a.b"]`). ${name.path} in a later expectation reads a saved answer by the dotted form: ${created.structuredContent.id}.
 */
import { isDeepStrictEqual } from 'node:util';

export type PathPart = string | number;

/** ${name.path} in a string; $${ writes a literal ${. */
export const REFERENCE = /\$(\$?)\{([^}]*)\}/g;

/** The parts of a path (a JSON pointer when it starts with "/", else a dotted path); throws on a malformed one. */
export function parsePath(p: string): PathPart[] {
  if (p === '') return [];
  if (p.startsWith('/'))
    return p
      .split('/')
      .slice(1)
      .map((s) => s.replace(/~1/g, '/').replace(/~0/g, '~'))
      .map((s) => (/^(0|[1-9]\d*)$/.test(s) ? Number(s) : s));
  const out: PathPart[] = [];
  const re = /\.?([A-Za-z_$][\w$-]*)|\[(\d+)\]|\["((?:[^"\\]|\\.)*)"\]/y;
  let i = 0;
  while (i < p.length) {
    re.lastIndex = i;
    const m = re.exec(p);
    if (!m || (m.index === 0 && p[0] === '.') || (i > 0 && m[1] !== undefined && p[i] !== '.'))
      throw new Error(
        `"${p}" is not a path: a JSON pointer (/a/0/b) or a dotted path (a[0].b) was expected, from character ${i + 1}`,
      );
    out.push(m[1] ?? (m[2] !== undefined ? Number(m[2]) : (JSON.parse(`"${m[3]}"`) as string)));
    i = re.lastIndex;
  }
  return out;
}

/** The value at parts, and whether it is there. */
export function valueAt(v: unknown, parts: readonly PathPart[]): { found: boolean; value?: unknown } {
  let cur = v;
  for (const p of parts) {
    if (Array.isArray(cur) && typeof p === 'number' && p < cur.length) cur = cur[p];
    else if (cur !== null && typeof cur === 'object' && !Array.isArray(cur) && Object.hasOwn(cur, String(p)))
      cur = (cur as Record<string, unknown>)[String(p)];
    else return { found: false };
  }
  return { found: true, value: cur };
}

/** A JSON pointer for parts. */
export function pointerOf(parts: readonly PathPart[]): string {
  return parts.map((p) => `/${String(p).replace(/~/g, '~0').replace(/\//g, '~1')}`).join('');
}

/** A reference that cannot be resolved: the expectation fails with this message. */
export class ReferenceError_ extends Error {}

/**
 * Replaces ${name.path} in every string of v with what was saved: a string that is only a reference takes the value
 * itself (a number stays a number); a reference inside other text is put in as text (JSON for an object).
 */
export function substitute(v: unknown, saved: ReadonlyMap<string, unknown>): unknown {
  if (typeof v === 'string') {
    const whole = /^\$\{([^}]*)\}$/.exec(v);
    if (whole) return resolveRef(whole[1]!, saved);
    return v.replace(REFERENCE, (_, dollar: string, ref: string) => {
      if (dollar) return `\${${ref}}`;
      const x = resolveRef(ref, saved);
      return typeof x === 'string' ? x : JSON.stringify(x);
    });
  }
  if (Array.isArray(v)) return v.map((x) => substitute(x, saved));
  if (v && typeof v === 'object')
    return Object.fromEntries(Object.entries(v).map(([k, x]) => [k, substitute(x, saved)]));
  return v;
}

function resolveRef(ref: string, saved: ReadonlyMap<string, unknown>): unknown {
  let parts: PathPart[];
  try {
    parts = parsePath(ref.trim());
  } catch (e) {
    throw new ReferenceError_(`\${${ref}}: ${(e as Error).message}`);
  }
  const name = String(parts[0]);
  if (!saved.has(name))
    throw new ReferenceError_(
      `\${${ref}}: nothing was saved as "${name}" (the expectation that saves it failed before it had an answer, or was not run)`,
    );
  const got = valueAt(saved.get(name), parts.slice(1));
  if (!got.found || got.value === undefined)
    throw new ReferenceError_(
      `\${${ref}}: the answer saved as "${name}" has nothing at ${pointerOf(parts.slice(1)) || '/'}`,
    );
  return got.value;
}

/** One difference between what an expectation gives and what came. */
export interface Difference {
  /** JSON pointer inside the compared value ('' = the value itself). */
  at: string;
  expected: unknown;
  /** Absent when nothing is there (missing: true). */
  actual?: unknown;
  missing?: boolean;
}

/**
 * The differences of actual from expected under the "members given" rule: every member an expected object gives must
 * be in actual and match (recursively); members it does not give are ignored; arrays must have the same length and
 * match item by item; anything else must be deep-equal. Empty: it matches.
 */
export function subsetDiff(expected: unknown, actual: unknown, at = ''): Difference[] {
  if (expected !== null && typeof expected === 'object' && !Array.isArray(expected)) {
    if (actual === null || typeof actual !== 'object' || Array.isArray(actual)) return [{ at, expected, actual }];
    const out: Difference[] = [];
    for (const [k, v] of Object.entries(expected)) {
      const here = `${at}/${k.replace(/~/g, '~0').replace(/\//g, '~1')}`;
      if (!Object.hasOwn(actual, k)) out.push({ at: here, expected: v, missing: true });
      else out.push(...subsetDiff(v, (actual as Record<string, unknown>)[k], here));
    }
    return out;
  }
  if (Array.isArray(expected)) {
    if (!Array.isArray(actual) || actual.length !== expected.length) return [{ at, expected, actual }];
    return expected.flatMap((v, i) => subsetDiff(v, actual[i], `${at}/${i}`));
  }
  // Numbers: 5 and 5.0 are one JSON number.
  return isDeepStrictEqual(expected, actual) ? [] : [{ at, expected, actual }];
}

/** actual cut down to the members expected gives (for --update-expect and for showing a structure next to the expected one). */
export function projectOnto(expected: unknown, actual: unknown): unknown {
  if (
    expected !== null &&
    typeof expected === 'object' &&
    !Array.isArray(expected) &&
    actual !== null &&
    typeof actual === 'object' &&
    !Array.isArray(actual)
  ) {
    const out: Record<string, unknown> = {};
    for (const k of Object.keys(expected))
      if (Object.hasOwn(actual, k))
        out[k] = projectOnto((expected as Record<string, unknown>)[k], (actual as Record<string, unknown>)[k]);
    return out;
  }
  if (Array.isArray(expected) && Array.isArray(actual) && expected.length === actual.length)
    return actual.map((v, i) => projectOnto(expected[i], v));
  return actual;
}
