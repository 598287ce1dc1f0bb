/** Memo: generation is a pure function of the schema, and the tools of a server often share one shape. */
import { setProp } from './json.js';
import type { GeneratedArguments, InvalidArguments } from './types.js';

/** Schemas whose JSON text is longer than this are not remembered (the key would cost more than it saves). */
export const MEMO_MAX_KEY = 20_000;
export const MEMO_MAX_ENTRIES = 1000;
export const memo = new Map<string, unknown>();

export class NotPlainJson extends Error {}

/** A key that tells apart any two plain-JSON schemas; undefined for anything else (then nothing is remembered). */
export function memoKey(kind: string, schema: unknown): string | undefined {
  let key: string | undefined;
  try {
    key = JSON.stringify(schema, function (this: unknown, k: string, v: unknown) {
      // Only plain JSON maps one to one onto its text: anything else (undefined, NaN, -0, a toJSON, class
      // instances, holes) could make two different schemas look alike. (Schemas come from JSON.parse.)
      if ((this as Record<string, unknown>)[k] !== v) throw new NotPlainJson(); // a toJSON replaced it
      switch (typeof v) {
        case 'string':
        case 'boolean':
          return v;
        case 'number':
          if (!Number.isFinite(v) || Object.is(v, -0)) throw new NotPlainJson();
          return v;
        case 'object': {
          if (v === null) return v;
          const proto = Object.getPrototypeOf(v);
          if (Array.isArray(v)) {
            if (proto !== Array.prototype) throw new NotPlainJson();
            for (let i = 0; i < v.length; i++) if (!(i in v)) throw new NotPlainJson();
            return v;
          }
          if (proto !== Object.prototype && proto !== null) throw new NotPlainJson();
          return v;
        }
        default:
          throw new NotPlainJson();
      }
    });
  } catch {
    return undefined;
  }
  if (key === undefined || key.length > MEMO_MAX_KEY) return undefined;
  return kind + '\u0000' + key;
}

/** A deep copy of a generated value (callers get their own objects, as without the memo). */
export function copyValue<T>(v: T): T {
  if (v === null || typeof v !== 'object') return v;
  if (Array.isArray(v)) return v.map(copyValue) as T;
  const out: Record<string, unknown> = {};
  for (const k of Object.keys(v)) setProp(out, k, copyValue((v as Record<string, unknown>)[k]));
  return out as T;
}

export function memoized<R>(kind: string, schema: unknown, compute: () => R, copy: (r: R) => R): R {
  const key = memoKey(kind, schema);
  if (key === undefined) return compute();
  if (memo.has(key)) return copy(memo.get(key) as R);
  const r = compute();
  if (memo.size >= MEMO_MAX_ENTRIES) memo.clear();
  memo.set(key, copy(r));
  return r;
}

export const copyGenerated = (r: GeneratedArguments): GeneratedArguments => ({
  value: copyValue(r.value),
  notes: [...r.notes],
  confident: r.confident,
});
export const copyInvalid = (r: InvalidArguments | undefined): InvalidArguments | undefined =>
  r ? { value: copyValue(r.value), description: r.description, property: r.property } : undefined;
