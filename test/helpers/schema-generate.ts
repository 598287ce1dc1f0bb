/**
 * A small deterministic generator of JSON instances from a JSON Schema document (the subset the MCP
 * schemas use: $ref, type incl. type arrays, properties/required, additionalProperties, enum/const,
 * anyOf/oneOf/allOf, items, minItems/maxItems, minimum/maximum, formats), and of mutations of instances.
 *
 * Used by the differential tests: instances are generated from the OFFICIAL schema and judged by both the
 * official and the project's schema; the verdicts must agree.
 */

export type Json = null | boolean | number | string | Json[] | { [k: string]: Json };
type S = { [k: string]: unknown } | boolean;

export interface Variant {
  label: string;
  value: Json;
}

interface Ctx {
  doc: { [k: string]: unknown };
  full: boolean;
  choices: Map<string, number>;
  /** choice points met: path -> number of alternatives */
  seen: Map<string, number>;
  maxDepth: number;
}

const SAMPLE_BY_FORMAT: { [f: string]: string } = {
  uri: 'https://example.com/a/b?c=d',
  'uri-reference': '/a/b',
  'uri-template': 'file:///{path}',
  byte: 'aGVsbG8gd29ybGQ=',
  'date-time': '2025-01-02T03:04:05Z',
  date: '2025-01-02',
  email: 'someone@example.com',
};

/** Resolve a local `$ref` ('#/$defs/X', '#/definitions/X' or any JSON pointer into the document). */
export function resolveRef(doc: { [k: string]: unknown }, ref: string): S {
  if (!ref.startsWith('#')) throw new Error(`generator: non-local $ref ${ref}`);
  let node: unknown = doc;
  for (const raw of ref
    .slice(1)
    .split('/')
    .filter((p) => p !== '')) {
    const key = decodeURIComponent(raw).replace(/~1/g, '/').replace(/~0/g, '~');
    node = (node as { [k: string]: unknown })?.[key];
    if (node === undefined) throw new Error(`generator: unresolvable $ref ${ref}`);
  }
  return node as S;
}

function choose(ctx: Ctx, path: string, n: number): number {
  if (n <= 1) return 0;
  const prev = ctx.seen.get(path);
  if (prev === undefined || prev < n) ctx.seen.set(path, n);
  const c = ctx.choices.get(path) ?? 0;
  return c < n ? c : 0;
}

function gen(schema: S, ctx: Ctx, path: string, depth: number): Json {
  if (schema === true || schema === false) return 'anything';
  const s = schema as { [k: string]: unknown };
  // beyond the depth limit, fall back to minimal instances (recursion through unions and JSONValue)
  const full = ctx.full && depth < ctx.maxDepth;

  if (typeof s.$ref === 'string') {
    // sibling keywords next to $ref are legal in 2020-12; merge them only if present
    const target = gen(resolveRef(ctx.doc, s.$ref), ctx, path, depth + 1);
    const rest = Object.keys(s).filter((k) => k !== '$ref' && k !== 'description');
    if (rest.length === 0) return target;
    const { $ref: _ignored, ...others } = s;
    return merge(target, gen(others, ctx, path + '&', depth + 1));
  }
  if ('const' in s) return s.const as Json;
  if (Array.isArray(s.enum)) return s.enum[choose(ctx, path + '|enum', s.enum.length)] as Json;

  if (Array.isArray(s.allOf)) {
    let acc: Json = {};
    s.allOf.forEach((part, i) => {
      acc = merge(acc, gen(part as S, ctx, `${path}/allOf${i}`, depth + 1));
    });
    const { allOf: _a, ...rest } = s;
    return Object.keys(rest).some((k) => k !== 'description') ? merge(acc, gen(rest, ctx, path + '&', depth)) : acc;
  }
  for (const kw of ['anyOf', 'oneOf'] as const) {
    const branches = s[kw];
    if (Array.isArray(branches)) {
      const i = choose(ctx, `${path}|${kw}`, branches.length);
      const base = gen(branches[i] as S, ctx, `${path}/${kw}${i}`, depth + 1);
      const { [kw]: _b, ...rest } = s;
      return Object.keys(rest).some((k) => k !== 'description') ? merge(base, gen(rest, ctx, path + '&', depth)) : base;
    }
  }

  let type = s.type as string | string[] | undefined;
  if (Array.isArray(type)) type = type[choose(ctx, path + '|type', type.length)];
  if (type === undefined) {
    if (s.properties || s.additionalProperties !== undefined || s.required) type = 'object';
    else if (s.items) type = 'array';
    else return full ? { any: ['value', 1, true, null] } : 42; // unconstrained value
  }

  switch (type) {
    case 'string':
      return typeof s.format === 'string' ? (SAMPLE_BY_FORMAT[s.format] ?? 'text') : 'text';
    case 'integer': {
      const min = typeof s.minimum === 'number' ? s.minimum : undefined;
      const max = typeof s.maximum === 'number' ? s.maximum : undefined;
      if (min !== undefined) return Math.ceil(min) + (max === undefined || max >= Math.ceil(min) + 1 ? 1 : 0);
      if (max !== undefined) return Math.floor(max);
      return 7;
    }
    case 'number': {
      const min = typeof s.minimum === 'number' ? s.minimum : undefined;
      const max = typeof s.maximum === 'number' ? s.maximum : undefined;
      if (min !== undefined && max !== undefined) return (min + max) / 2 + (max - min) / 8;
      if (min !== undefined) return min + 1.5;
      if (max !== undefined) return max - 1.5;
      return 2.5; // deliberately not an integer, so number vs integer is exercised
    }
    case 'boolean':
      return true;
    case 'null':
      return null;
    case 'array': {
      const minItems = typeof s.minItems === 'number' ? s.minItems : 0;
      const maxItems = typeof s.maxItems === 'number' ? s.maxItems : Infinity;
      const n = Math.min(maxItems, Math.max(minItems, full ? 1 : 0));
      const out: Json[] = [];
      for (let i = 0; i < n; i++) out.push(s.items ? gen(s.items as S, ctx, `${path}[${i}]`, depth + 1) : 'item');
      return out;
    }
    case 'object': {
      const props = (s.properties ?? {}) as { [k: string]: S };
      const required = new Set((s.required as string[] | undefined) ?? []);
      const out: { [k: string]: Json } = {};
      for (const key of Object.keys(props)) {
        if (full || required.has(key)) out[key] = gen(props[key], ctx, `${path}.${key}`, depth + 1);
      }
      // required names without a property schema
      for (const key of required) if (!(key in out)) out[key] = 'value';
      const ap = s.additionalProperties;
      if (full && ap !== false && ap !== undefined) {
        out['x-extra'] = ap === true ? 'extra' : gen(ap as S, ctx, `${path}.*`, depth + 1);
      }
      return out;
    }
    default:
      throw new Error(`generator: unsupported type ${String(type)} at ${path}`);
  }
}

function merge(a: Json, b: Json): Json {
  if (isObj(a) && isObj(b)) {
    const out: { [k: string]: Json } = { ...a };
    for (const [k, v] of Object.entries(b)) out[k] = k in out ? merge(out[k], v) : v;
    return out;
  }
  return b;
}

function isObj(x: unknown): x is { [k: string]: Json } {
  return x !== null && typeof x === 'object' && !Array.isArray(x);
}

/**
 * Valid-looking instances of a schema node of `doc`: minimal (required properties only), full (every
 * property, one array item, one extra property where allowed), and variants taking each alternative of every
 * anyOf/oneOf, type array and enum met along the way (breadth-first, up to `max` variants, deduplicated).
 */
export function generateVariants(
  doc: { [k: string]: unknown },
  schema: S,
  opts: { max?: number; maxDepth?: number } = {},
): Variant[] {
  const max = opts.max ?? 40;
  const maxDepth = opts.maxDepth ?? 8;
  const out: Variant[] = [];
  const keys = new Set<string>();
  const explored = new Set<string>();
  const queue: { full: boolean; choices: Map<string, number>; label: string }[] = [
    { full: false, choices: new Map(), label: 'minimal' },
    { full: true, choices: new Map(), label: 'full' },
  ];
  while (queue.length > 0 && out.length < max) {
    const job = queue.shift()!;
    const ctx: Ctx = { doc, full: job.full, choices: job.choices, seen: new Map(), maxDepth };
    const value = gen(schema, ctx, '#', 0);
    const key = JSON.stringify(value);
    if (!keys.has(key)) {
      keys.add(key);
      out.push({ label: job.label, value });
    }
    for (const [p, n] of ctx.seen) {
      const id = `${job.full ? 'F' : 'M'}${p}`;
      if (explored.has(id)) continue;
      explored.add(id);
      for (let k = 1; k < n; k++) {
        const choices = new Map(job.choices);
        choices.set(p, k);
        queue.push({ full: job.full, choices, label: `${job.full ? 'full' : 'minimal'} ${p}=${k}` });
      }
    }
  }
  return out;
}

// ---------------------------------------------------------------------------------------------------------
// Mutations

export interface Mutation {
  label: string;
  value: Json;
}

const OTHER_STRING = 'zz-other';

function replacementsFor(v: Json): Json[] {
  if (v === null) return [0, 'null-string'];
  switch (typeof v) {
    case 'string':
      return [OTHER_STRING, 17, null];
    case 'number':
      return Number.isInteger(v) ? [v + 0.5, -3, 'not-a-number'] : [-3.25, 3.5, 'not-a-number', 4];
    case 'boolean':
      return ['true', 1];
    default:
      return Array.isArray(v) ? ['not-an-array', {}] : ['not-an-object', []];
  }
}

/**
 * Mutations of an instance, schema-blind: for every node, replace it with values of other types (and, for
 * strings, another string; for numbers, a fraction, a negative and a number out of [0, 1]); for every object,
 * drop each property and add an unknown one; for every non-empty array, empty it and append a wrong item.
 * `limit` caps the number of mutations (breadth-first, root first).
 */
export function mutations(value: Json, limit = 400): Mutation[] {
  const out: Mutation[] = [];
  const seen = new Set<string>();
  const push = (label: string, v: Json) => {
    if (out.length >= limit) return;
    const k = JSON.stringify(v);
    if (seen.has(k)) return;
    seen.add(k);
    out.push({ label, value: v });
  };
  // breadth-first list of paths
  const paths: (string | number)[][] = [];
  const queue: (string | number)[][] = [[]];
  while (queue.length > 0) {
    const p = queue.shift()!;
    paths.push(p);
    const node = getAt(value, p);
    if (Array.isArray(node)) node.forEach((_, i) => queue.push([...p, i]));
    else if (isObj(node)) for (const k of Object.keys(node)) queue.push([...p, k]);
  }
  for (const p of paths) {
    const node = getAt(value, p);
    const where = p.length === 0 ? '(root)' : p.join('.');
    for (const r of replacementsFor(node)) push(`${where} := ${JSON.stringify(r)}`, setAt(value, p, r));
    if (isObj(node)) {
      for (const k of Object.keys(node)) {
        const copy = clone(node);
        delete copy[k];
        push(`${where} without ${k}`, setAt(value, p, copy));
      }
      push(`${where} + unknown property`, setAt(value, p, { ...clone(node), zzUnknown: 1 }));
    }
    if (Array.isArray(node) && node.length > 0) {
      push(`${where} := []`, setAt(value, p, []));
      push(`${where} + wrong item`, setAt(value, p, [...clone(node), 'wrong-item']));
    }
  }
  return out;
}

function clone<T extends Json>(v: T): T {
  return JSON.parse(JSON.stringify(v)) as T;
}

function getAt(v: Json, p: (string | number)[]): Json {
  let node: Json = v;
  for (const k of p) node = (node as { [k: string]: Json })[k as string];
  return node;
}

function setAt(v: Json, p: (string | number)[], r: Json): Json {
  if (p.length === 0) return r;
  const root = clone(v);
  let node: Json = root;
  for (const k of p.slice(0, -1)) node = (node as { [k: string]: Json })[k as string];
  (node as { [k: string]: Json })[p[p.length - 1] as string] = r;
  return root;
}
