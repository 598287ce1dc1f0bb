/** Small helpers for reading untrusted JSON (schemas and values): own properties only, type checks, equality, copies, text. */
import type { PathPart, SchemaObject } from './types.js';

export const hasOwn = (o: object, k: string): boolean => Object.hasOwn(o, k);

export function isObj(x: unknown): x is SchemaObject {
  return typeof x === 'object' && x !== null && !Array.isArray(x);
}

/** An own property of a schema object (never an inherited one such as `constructor`). */
export function own(o: SchemaObject, k: string): unknown {
  return hasOwn(o, k) ? o[k] : undefined;
}

export function isNum(x: unknown): x is number {
  return typeof x === 'number' && Number.isFinite(x);
}

/** Sets a property as an own, enumerable data property (safe for `__proto__`). */
export function setProp(o: Record<string, unknown>, k: string, v: unknown): void {
  Object.defineProperty(o, k, { value: v, enumerable: true, writable: true, configurable: true });
}

export function jsonTypeOf(
  v: unknown,
): 'null' | 'boolean' | 'integer' | 'number' | 'string' | 'array' | 'object' | 'other' {
  if (v === null) return 'null';
  if (typeof v === 'boolean') return 'boolean';
  if (typeof v === 'number') return Number.isFinite(v) ? (Number.isInteger(v) ? 'integer' : 'number') : 'other';
  if (typeof v === 'string') return 'string';
  if (Array.isArray(v)) return 'array';
  if (typeof v === 'object') return 'object';
  return 'other';
}

export function typeMatches(t: unknown, v: unknown): boolean {
  switch (t) {
    case 'null':
      return v === null;
    case 'boolean':
      return typeof v === 'boolean';
    case 'integer':
      return isNum(v) && Number.isInteger(v);
    case 'number':
      return isNum(v);
    case 'string':
      return typeof v === 'string';
    case 'array':
      return Array.isArray(v);
    case 'object':
      return isObj(v);
    default:
      return false;
  }
}

export function deepEqual(a: unknown, b: unknown, depth = 0): boolean {
  if (a === b) return true;
  if (depth > 100) return false;
  if (Array.isArray(a)) {
    if (!Array.isArray(b) || a.length !== b.length) return false;
    for (let i = 0; i < a.length; i++) if (!deepEqual(a[i], b[i], depth + 1)) return false;
    return true;
  }
  if (isObj(a) && isObj(b)) {
    const ka = Object.keys(a);
    const kb = Object.keys(b);
    if (ka.length !== kb.length) return false;
    for (const k of ka) if (!hasOwn(b, k) || !deepEqual(a[k], b[k], depth + 1)) return false;
    return true;
  }
  return false;
}

/** A JSON copy of a value taken from the schema (const/default/enum...), or undefined if it is not plain, small JSON. */
export function cloneJson(v: unknown, maxChars = 20_000): { value: unknown } | undefined {
  try {
    const text = JSON.stringify(v);
    if (text === undefined || text.length > maxChars) return undefined;
    return { value: JSON.parse(text) as unknown };
  } catch {
    return undefined;
  }
}

/** Length in code points, as ajv counts it. */
export function cpLength(s: string): number {
  let n = 0;
  for (let i = 0; i < s.length; i++) {
    n++;
    const c = s.charCodeAt(i);
    if (c >= 0xd800 && c <= 0xdbff && i + 1 < s.length) {
      const d = s.charCodeAt(i + 1);
      if (d >= 0xdc00 && d <= 0xdfff) i++;
    }
  }
  return n;
}

export function cpSlice(s: string, n: number): string {
  return Array.from(s).slice(0, n).join('');
}

export function show(v: unknown, max = 60): string {
  let text: string;
  try {
    text = JSON.stringify(v) ?? String(v);
  } catch {
    text = String(v);
  }
  return text.length > max ? `${text.slice(0, max)}…` : text;
}

export function pathText(path: readonly PathPart[]): string {
  if (path.length === 0) return 'arguments';
  let out = '';
  for (const p of path) {
    if (typeof p === 'number') out += `[${p}]`;
    else if (/^[A-Za-z_$][\w$-]*$/.test(p)) out += out ? `.${p}` : p;
    else out += `[${JSON.stringify(p)}]`;
  }
  return out;
}
