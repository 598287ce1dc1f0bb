/**
 * Generation of tool-call arguments from an MCP tool's `inputSchema`.
 *
 * The schema comes from an arbitrary server, so nothing about it is trusted: every keyword is read
 * defensively (own properties only, type-checked), `$ref` cycles are cut by a depth limit, and the
 * size of the output and the work spent are bounded. Nothing here throws: problems become `notes`.
 *
 * Generation is deterministic (no randomness). Every generated value is checked by a small,
 * conservative JSON Schema validator (draft-07 and 2020-12 keywords; formats checked with
 * ajv-formats' own definitions) before it is reported as confident.
 */
import { fullFormats } from 'ajv-formats/dist/formats.js';

export interface GeneratedArguments {
  /** Arguments for `tools/call`. */
  value: Record<string, unknown>;
  /** What could not be honoured (a pattern that could not be satisfied, a contradiction, a limit hit...). */
  notes: string[];
  /** True when the value is believed to satisfy the schema (then `notes` is empty). */
  confident: boolean;
}

export interface InvalidArguments {
  /** Arguments that are valid except for `property`. */
  value: Record<string, unknown>;
  /** e.g. `argument "a" left out (required)`. */
  description: string;
  /** The top-level property that makes the arguments invalid. */
  property: string;
}

// ---------------------------------------------------------------------------------------------
// Limits
// ---------------------------------------------------------------------------------------------

/** Bounds that keep the output small and the work finite whatever the schema says. */
export const ARGUMENT_LIMITS = {
  /** Arrays never get more items than this (a larger minItems is capped, with a note). */
  maxItems: 50,
  /** Strings never get longer than this (a larger minLength is capped, with a note). */
  maxStringLength: 1000,
  /** Object properties added to satisfy minProperties, at most. */
  maxProperties: 100,
  /** Rough budget of generated JSON nodes per call. */
  maxNodes: 5000,
  /** Values nested deeper than this are generated minimally (required properties, minItems only). */
  minimalDepth: 8,
  /** Values nested deeper than this are not generated at all. */
  maxDepth: 16,
  /** Optional properties are generated only at this nesting depth or less. */
  optionalDepth: 4,
  /** The same `$ref` entered this many times on one path means a cycle: generation gives up. */
  maxRefRepeats: 3,
  /** anyOf/oneOf branch attempts per call. */
  maxBranchAttempts: 400,
  /** Validator steps per call. */
  maxValidationSteps: 1_000_000,
} as const;

// ---------------------------------------------------------------------------------------------
// Small helpers
// ---------------------------------------------------------------------------------------------

type SchemaObject = Record<string, unknown>;
type Dialect = 'draft-07' | '2020-12' | 'unknown';
type PathPart = string | number;

class LimitError extends Error {}

const hasOwn = (o: object, k: string): boolean => Object.prototype.hasOwnProperty.call(o, k);

function isObj(x: unknown): x is SchemaObject {
  return typeof x === 'object' && x !== null && !Array.isArray(x);
}

/** An own property of a schema object (never an inherited one such as `constructor`). */
function own(o: SchemaObject, k: string): unknown {
  return hasOwn(o, k) ? o[k] : undefined;
}

function isNum(x: unknown): x is number {
  return typeof x === 'number' && Number.isFinite(x);
}

function isNonNegInt(x: unknown): x is number {
  return isNum(x) && Number.isInteger(x) && x >= 0;
}

/** Sets a property as an own, enumerable data property (safe for `__proto__`). */
function setProp(o: Record<string, unknown>, k: string, v: unknown): void {
  Object.defineProperty(o, k, { value: v, enumerable: true, writable: true, configurable: true });
}

function jsonTypeOf(v: unknown): 'null' | 'boolean' | 'integer' | 'number' | 'string' | 'array' | 'object' | 'other' {
  if (v === null) return 'null';
  if (typeof v === 'boolean') return 'boolean';
  if (typeof v === 'number') return Number.isFinite(v) ? (Number.isInteger(v) ? 'integer' : 'number') : 'other';
  if (typeof v === 'string') return 'string';
  if (Array.isArray(v)) return 'array';
  if (typeof v === 'object') return 'object';
  return 'other';
}

function typeMatches(t: unknown, v: unknown): boolean {
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

function deepEqual(a: unknown, b: unknown, depth = 0): boolean {
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
function cloneJson(v: unknown, maxChars = 20_000): { value: unknown } | undefined {
  try {
    const text = JSON.stringify(v);
    if (text === undefined || text.length > maxChars) return undefined;
    return { value: JSON.parse(text) as unknown };
  } catch {
    return undefined;
  }
}

/** Length in code points, as ajv counts it. */
function cpLength(s: string): number {
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

function cpSlice(s: string, n: number): string {
  return Array.from(s).slice(0, n).join('');
}

function show(v: unknown, max = 60): string {
  let text: string;
  try {
    text = JSON.stringify(v) ?? String(v);
  } catch {
    text = String(v);
  }
  return text.length > max ? `${text.slice(0, max)}…` : text;
}

function pathText(path: readonly PathPart[]): string {
  if (path.length === 0) return 'arguments';
  let out = '';
  for (const p of path) {
    if (typeof p === 'number') out += `[${p}]`;
    else if (/^[A-Za-z_$][\w$-]*$/.test(p)) out += out ? `.${p}` : p;
    else out += `[${JSON.stringify(p)}]`;
  }
  return out;
}

// ---------------------------------------------------------------------------------------------
// Context, $ref resolution
// ---------------------------------------------------------------------------------------------

interface Ctx {
  root: unknown;
  dialect: Dialect;
  nodes: number;
  attempts: number;
  steps: number;
  regexes: Map<string, RegExp | null>;
  anchors: Map<string, unknown> | undefined;
  /** Schemas being validated against which values, to cut `$ref` loops that do not consume data. */
  active: Map<object, unknown[]>;
  /** First non-speculative validation failure (keyword), for notes. */
  failure: string | undefined;
  /** Current validator recursion depth. */
  depth: number;
}

function dialectOf(schema: unknown): Dialect {
  const s = isObj(schema) ? own(schema, '$schema') : undefined;
  if (typeof s !== 'string') return 'unknown';
  if (s.includes('2020-12') || s.includes('2019-09')) return '2020-12';
  if (/draft-0[3-7]/.test(s)) return 'draft-07';
  return 'unknown';
}

function makeCtx(root: unknown): Ctx {
  return {
    root,
    dialect: dialectOf(root),
    nodes: ARGUMENT_LIMITS.maxNodes,
    attempts: ARGUMENT_LIMITS.maxBranchAttempts,
    steps: ARGUMENT_LIMITS.maxValidationSteps,
    regexes: new Map(),
    anchors: undefined,
    active: new Map(),
    failure: undefined,
    depth: 0,
  };
}

/** `new RegExp(source, 'u')`, cached; null when the source is not a valid pattern. */
function regex(ctx: Ctx, source: string): RegExp | null {
  let re = ctx.regexes.get(source);
  if (re === undefined) {
    try {
      re = new RegExp(source, 'u');
    } catch {
      re = null;
    }
    if (ctx.regexes.size < 10_000) ctx.regexes.set(source, re);
  }
  return re;
}

function collectAnchors(ctx: Ctx): Map<string, unknown> {
  const anchors = new Map<string, unknown>();
  const seen = new Set<object>();
  const stack: unknown[] = [ctx.root];
  let budget = 20_000;
  while (stack.length && budget-- > 0) {
    const node = stack.pop();
    if (typeof node !== 'object' || node === null || seen.has(node)) continue;
    seen.add(node);
    if (Array.isArray(node)) {
      for (const x of node) stack.push(x);
      continue;
    }
    const n = node as SchemaObject;
    for (const k of ['$anchor', '$dynamicAnchor']) {
      const a = own(n, k);
      if (typeof a === 'string' && !anchors.has(a)) anchors.set(a, n);
    }
    const id = own(n, '$id') ?? own(n, 'id');
    if (typeof id === 'string' && id.startsWith('#') && !anchors.has(id.slice(1))) anchors.set(id.slice(1), n);
    for (const k of Object.keys(n)) if (k !== 'enum' && k !== 'const' && k !== 'default' && k !== 'examples') stack.push(n[k]);
  }
  return anchors;
}

/** Resolves a `$ref` inside the input schema (JSON pointer or plain-name anchor). */
function resolveRef(ctx: Ctx, ref: string): { schema: unknown } | undefined {
  let r = ref;
  const rootId = isObj(ctx.root) ? own(ctx.root, '$id') : undefined;
  if (typeof rootId === 'string' && rootId && r.startsWith(rootId.replace(/#$/, ''))) r = r.slice(rootId.replace(/#$/, '').length);
  if (r === '' || r === '#') return { schema: ctx.root };
  if (!r.startsWith('#')) return undefined;
  let frag = r.slice(1);
  try {
    frag = decodeURIComponent(frag);
  } catch {
    /* keep as is */
  }
  if (frag.startsWith('/')) {
    let node: unknown = ctx.root;
    for (const raw of frag.slice(1).split('/')) {
      const key = raw.replace(/~1/g, '/').replace(/~0/g, '~');
      if (Array.isArray(node)) {
        if (!/^\d+$/.test(key) || Number(key) >= node.length) return undefined;
        node = node[Number(key)];
      } else if (isObj(node) && hasOwn(node, key)) {
        node = node[key];
      } else {
        return undefined;
      }
    }
    return { schema: node };
  }
  ctx.anchors ??= collectAnchors(ctx);
  return ctx.anchors.has(frag) ? { schema: ctx.anchors.get(frag) } : undefined;
}

const REF_KEYWORDS = ['$ref', '$recursiveRef', '$dynamicRef'] as const;

function refTarget(ctx: Ctx, kw: string, ref: string): { schema: unknown } | undefined {
  if (kw === '$recursiveRef') return { schema: ctx.root };
  const found = resolveRef(ctx, ref);
  if (!found && kw === '$dynamicRef') return { schema: ctx.root };
  return found;
}

// ---------------------------------------------------------------------------------------------
// Validator (conservative: a value passes only if it is valid under the plausible readings)
// ---------------------------------------------------------------------------------------------

type FormatCheck = { type: 'string' | 'number'; test: (v: unknown) => boolean };

const formatChecks = new Map<string, FormatCheck | null>();

function formatCheck(name: string): FormatCheck | undefined {
  if (formatChecks.has(name)) return formatChecks.get(name) ?? undefined;
  let check: FormatCheck | null = null;
  const table = fullFormats as unknown as Record<string, unknown>;
  const def = hasOwn(table, name) ? table[name] : undefined;
  if (def === true) check = { type: 'string', test: () => true };
  else if (def instanceof RegExp) check = { type: 'string', test: (v) => { def.lastIndex = 0; return def.test(v as string); } };
  else if (typeof def === 'function') check = { type: 'string', test: (v) => Boolean((def as (x: unknown) => unknown)(v)) };
  else if (isObj(def)) {
    const validate = own(def, 'validate');
    const type = own(def, 'type') === 'number' ? 'number' : 'string';
    if (validate instanceof RegExp) check = { type, test: (v) => { validate.lastIndex = 0; return validate.test(String(v)); } };
    else if (typeof validate === 'function') check = { type, test: (v) => Boolean((validate as (x: unknown) => unknown)(v)) };
  }
  formatChecks.set(name, check);
  return check ?? undefined;
}

/** Schemas that item `i` of an array must satisfy according to schema `s` (both tuple forms). */
function itemSchemas(s: SchemaObject, i: number, dialect: Dialect): unknown[] {
  const prefix = own(s, 'prefixItems');
  const items = own(s, 'items');
  const out: unknown[] = [];
  if (Array.isArray(items)) {
    if (i < items.length) out.push(items[i]);
    else if (hasOwn(s, 'additionalItems')) out.push(s.additionalItems);
    if (Array.isArray(prefix) && i < prefix.length) out.push(prefix[i]);
    return out;
  }
  const inPrefix = Array.isArray(prefix) && i < prefix.length;
  if (inPrefix) out.push((prefix as unknown[])[i]);
  // In 2020-12 `items` only covers the positions after prefixItems; draft-07 knows no prefixItems.
  if (items !== undefined && (!inPrefix || dialect !== '2020-12')) out.push(items);
  return out;
}

function multipleOk(x: number, m: number): boolean {
  const q = x / m; // same test as ajv: result !== parseInt(result)
  return q === parseInt(String(q), 10);
}

function evaluatedNames(s: unknown, ctx: Ctx, out: { names: Set<string>; patterns: string[] }, depth: number): void {
  if (!isObj(s) || depth > 8) return;
  const props = own(s, 'properties');
  if (isObj(props)) for (const k of Object.keys(props)) out.names.add(k);
  const pp = own(s, 'patternProperties');
  if (isObj(pp)) out.patterns.push(...Object.keys(pp));
  const ap = own(s, 'additionalProperties');
  if (ap !== undefined && ap !== false) out.patterns.push('');
  for (const kw of ['allOf', 'anyOf', 'oneOf']) {
    const list = own(s, kw);
    if (Array.isArray(list)) for (const x of list) evaluatedNames(x, ctx, out, depth + 1);
  }
  for (const kw of ['then', 'else']) evaluatedNames(own(s, kw), ctx, out, depth + 1);
  for (const kw of REF_KEYWORDS) {
    const r = own(s, kw);
    if (typeof r === 'string') evaluatedNames(refTarget(ctx, kw, r)?.schema, ctx, out, depth + 1);
  }
}

/**
 * Validates `value` against `schema`. `skip` names a property of this instance that is to be
 * ignored entirely (not required, not checked): used to check that arguments fail only because of it.
 */
function validate(schema: unknown, value: unknown, ctx: Ctx, skip?: string, quiet = false): boolean {
  if (--ctx.steps < 0) throw new LimitError('the schema needs too much validation work');
  if (schema === true || schema === undefined) return true;
  if (schema === false) return fail(ctx, quiet, 'false');
  if (!isObj(schema)) return true;
  const active = ctx.active.get(schema);
  if (active?.includes(value)) return true; // a $ref loop that does not consume data
  if (active) active.push(value);
  else ctx.active.set(schema, [value]);
  try {
    if (++ctx.depth > 400) throw new LimitError('the schema is nested too deeply to check');
    return validateIn(schema, value, ctx, skip, quiet);
  } finally {
    ctx.depth--;
    const list = ctx.active.get(schema);
    list?.pop();
    if (list && list.length === 0) ctx.active.delete(schema);
  }
}

function fail(ctx: Ctx, quiet: boolean, keyword: string): false {
  if (!quiet && ctx.failure === undefined) ctx.failure = keyword;
  return false;
}

function validateIn(s: SchemaObject, v: unknown, ctx: Ctx, skip: string | undefined, quiet: boolean): boolean {
  for (const kw of REF_KEYWORDS) {
    const r = own(s, kw);
    if (typeof r !== 'string') continue;
    const target = refTarget(ctx, kw, r);
    if (target && !validate(target.schema, v, ctx, skip, quiet)) return false;
  }
  const type = own(s, 'type');
  if (typeof type === 'string' || Array.isArray(type)) {
    const list: unknown[] = typeof type === 'string' ? [type] : type;
    if (!list.some((t) => typeMatches(t, v))) return fail(ctx, quiet, 'type');
  }
  if (hasOwn(s, 'const') && !deepEqual(s.const, v)) return fail(ctx, quiet, 'const');
  const en = own(s, 'enum');
  if (Array.isArray(en) && !en.some((e) => deepEqual(e, v))) return fail(ctx, quiet, 'enum');

  const allOf = own(s, 'allOf');
  if (Array.isArray(allOf)) for (const sub of allOf) if (!validate(sub, v, ctx, skip, quiet)) return false;
  const anyOf = own(s, 'anyOf');
  if (Array.isArray(anyOf) && !anyOf.some((sub) => validate(sub, v, ctx, skip, true))) return fail(ctx, quiet, 'anyOf');
  const oneOf = own(s, 'oneOf');
  if (Array.isArray(oneOf)) {
    let n = 0;
    for (const sub of oneOf) if (validate(sub, v, ctx, skip, true) && ++n > 1) break;
    if (n !== 1) return fail(ctx, quiet, 'oneOf');
  }
  if (hasOwn(s, 'not') && validate(s.not, v, ctx, skip, true)) return fail(ctx, quiet, 'not');
  if (hasOwn(s, 'if')) {
    const cond = validate(s.if, v, ctx, skip, true);
    const branch = cond ? own(s, 'then') : own(s, 'else');
    if (branch !== undefined && !validate(branch, v, ctx, skip, quiet)) return false;
  }

  if (typeof v === 'number') {
    if (!validateNumber(s, v)) return fail(ctx, quiet, 'number bounds');
  } else if (typeof v === 'string') {
    const minL = own(s, 'minLength');
    const maxL = own(s, 'maxLength');
    if (isNum(minL) || isNum(maxL)) {
      const len = cpLength(v);
      if (isNum(minL) && len < minL) return fail(ctx, quiet, 'minLength');
      if (isNum(maxL) && len > maxL) return fail(ctx, quiet, 'maxLength');
    }
    const pattern = own(s, 'pattern');
    if (typeof pattern === 'string') {
      const re = regex(ctx, pattern);
      if (re && !re.test(v)) return fail(ctx, quiet, 'pattern');
    }
  } else if (Array.isArray(v)) {
    if (!validateArray(s, v, ctx, quiet)) return false;
  } else if (isObj(v)) {
    if (!validateObject(s, v, ctx, skip, quiet)) return false;
  }
  const format = own(s, 'format');
  if (typeof format === 'string') {
    const check = formatCheck(format);
    if (check && typeof v === check.type && !check.test(v)) return fail(ctx, quiet, 'format');
  }
  return true;
}

interface NumberBounds {
  lo: number;
  loEx: boolean;
  hi: number;
  hiEx: boolean;
  multiples: number[];
}

function addBounds(b: NumberBounds, s: SchemaObject): void {
  const tightenLo = (x: number, ex: boolean) => {
    if (x > b.lo) {
      b.lo = x;
      b.loEx = ex;
    } else if (x === b.lo) b.loEx ||= ex;
  };
  const tightenHi = (x: number, ex: boolean) => {
    if (x < b.hi) {
      b.hi = x;
      b.hiEx = ex;
    } else if (x === b.hi) b.hiEx ||= ex;
  };
  const min = own(s, 'minimum');
  const max = own(s, 'maximum');
  const exMin = own(s, 'exclusiveMinimum');
  const exMax = own(s, 'exclusiveMaximum');
  if (isNum(min)) tightenLo(min, exMin === true); // draft-04: exclusiveMinimum: true qualifies minimum
  if (isNum(max)) tightenHi(max, exMax === true);
  if (isNum(exMin)) tightenLo(exMin, true);
  if (isNum(exMax)) tightenHi(exMax, true);
  const mo = own(s, 'multipleOf');
  if (isNum(mo) && mo > 0) b.multiples.push(mo);
}

function inBounds(b: NumberBounds, x: number): boolean {
  if (!Number.isFinite(x)) return false;
  if (b.loEx ? !(x > b.lo) : !(x >= b.lo)) return false;
  if (b.hiEx ? !(x < b.hi) : !(x <= b.hi)) return false;
  return b.multiples.every((m) => multipleOk(x, m));
}

function validateNumber(s: SchemaObject, v: number): boolean {
  const b: NumberBounds = { lo: -Infinity, loEx: false, hi: Infinity, hiEx: false, multiples: [] };
  addBounds(b, s);
  return inBounds(b, v);
}

/** How many items must match `contains`: minContains exists only from 2019-09 on (draft-07 ignores it). */
function containsMinimum(minContains: unknown, dialect: Dialect): number {
  if (!isNum(minContains)) return 1;
  return dialect === '2020-12' ? minContains : Math.max(minContains, 1);
}

function validateArray(s: SchemaObject, v: unknown[], ctx: Ctx, quiet: boolean): boolean {
  const minI = own(s, 'minItems');
  const maxI = own(s, 'maxItems');
  if (isNum(minI) && v.length < minI) return fail(ctx, quiet, 'minItems');
  if (isNum(maxI) && v.length > maxI) return fail(ctx, quiet, 'maxItems');
  if (own(s, 'uniqueItems') === true) {
    for (let i = 1; i < v.length; i++) for (let j = 0; j < i; j++) if (deepEqual(v[i], v[j])) return fail(ctx, quiet, 'uniqueItems');
  }
  if (hasOwn(s, 'items') || hasOwn(s, 'prefixItems')) {
    for (let i = 0; i < v.length; i++) for (const sub of itemSchemas(s, i, ctx.dialect)) if (!validate(sub, v[i], ctx, undefined, quiet)) return false;
  }
  if (hasOwn(s, 'contains')) {
    let n = 0;
    for (const x of v) if (validate(s.contains, x, ctx, undefined, true)) n++;
    const minC = own(s, 'minContains');
    const maxC = own(s, 'maxContains');
    if (n < containsMinimum(minC, ctx.dialect)) return fail(ctx, quiet, 'contains');
    if (isNum(maxC) && n > maxC) return fail(ctx, quiet, 'maxContains');
  }
  return true;
}

function validateObject(s: SchemaObject, v: SchemaObject, ctx: Ctx, skip: string | undefined, quiet: boolean): boolean {
  const keys = Object.keys(v);
  const present = (k: string) => hasOwn(v, k) || k === skip;
  const req = own(s, 'required');
  if (Array.isArray(req)) for (const k of req) if (typeof k === 'string' && !present(k)) return fail(ctx, quiet, 'required');
  const minP = own(s, 'minProperties');
  const maxP = own(s, 'maxProperties');
  if (isNum(minP) && keys.length < minP) return fail(ctx, quiet, 'minProperties');
  if (isNum(maxP) && keys.length > maxP) return fail(ctx, quiet, 'maxProperties');
  const props = own(s, 'properties');
  const pp = own(s, 'patternProperties');
  const ap = own(s, 'additionalProperties');
  const patterns: [RegExp, unknown][] = [];
  if (isObj(pp)) {
    for (const p of Object.keys(pp)) {
      const re = regex(ctx, p);
      if (re) patterns.push([re, pp[p]]);
    }
  }
  const pn = own(s, 'propertyNames');
  const unevaluated = own(s, 'unevaluatedProperties');
  let evaluated: { names: Set<string>; patterns: string[] } | undefined;
  for (const k of keys) {
    if (k === skip) continue;
    let matched = false;
    if (isObj(props) && hasOwn(props, k)) {
      matched = true;
      if (!validate(props[k], v[k], ctx, undefined, quiet)) return false;
    }
    for (const [re, sub] of patterns) {
      if (!re.test(k)) continue;
      matched = true;
      if (!validate(sub, v[k], ctx, undefined, quiet)) return false;
    }
    if (!matched && ap !== undefined && !validate(ap, v[k], ctx, undefined, quiet)) return fail(ctx, quiet, 'additionalProperties');
    if (pn !== undefined && !validate(pn, k, ctx, undefined, quiet)) return fail(ctx, quiet, 'propertyNames');
    if (unevaluated !== undefined && unevaluated !== true) {
      if (!evaluated) {
        evaluated = { names: new Set(), patterns: [] };
        evaluatedNames(s, ctx, evaluated, 0);
      }
      const ev = evaluated.names.has(k) || evaluated.patterns.some((p) => regex(ctx, p)?.test(k));
      if (!ev && !validate(unevaluated, v[k], ctx, undefined, quiet)) return fail(ctx, quiet, 'unevaluatedProperties');
    }
  }
  for (const kw of ['dependencies', 'dependentRequired', 'dependentSchemas']) {
    const deps = own(s, kw);
    if (!isObj(deps)) continue;
    for (const k of Object.keys(deps)) {
      if (!hasOwn(v, k)) continue;
      const d = deps[k];
      if (Array.isArray(d)) {
        for (const name of d) if (typeof name === 'string' && !present(name)) return fail(ctx, quiet, kw);
      } else if (kw !== 'dependentRequired' && !validate(d, v, ctx, skip, quiet)) return false;
    }
  }
  return true;
}

/** Validates against every schema of a conjunction, recording the first failing keyword. */
function validAll(conj: readonly unknown[], value: unknown, ctx: Ctx, skip?: string): boolean {
  ctx.failure = undefined;
  for (const s of conj) if (!validate(s, value, ctx, skip)) return false;
  return true;
}

// ---------------------------------------------------------------------------------------------
// Generation
// ---------------------------------------------------------------------------------------------

interface Frame {
  path: PathPart[];
  /** `$ref`s entered on the way here. */
  refs: string[];
  /** Only the minimal value is wanted (cycle or depth). */
  minimal: boolean;
  depth: number;
}

interface Gen {
  has: boolean;
  value: unknown;
  notes: string[];
}

const ok = (g: Gen): boolean => g.has && g.notes.length === 0;
const none = (notes: string[]): Gen => ({ has: false, value: undefined, notes });

interface Expanded {
  conj: SchemaObject[];
  never: boolean;
  stop: boolean;
  notes: string[];
  frame: Frame;
}

/** Flattens schemas into a conjunction of schema objects, following `$ref` and `allOf`. */
function expand(schemas: readonly unknown[], ctx: Ctx, frame: Frame): Expanded {
  const conj: SchemaObject[] = [];
  const notes: string[] = [];
  const refs = [...frame.refs];
  const seen = new Set<unknown>();
  let never = false;
  let stop = false;
  let minimal = frame.minimal;
  const where = pathText(frame.path);
  const visit = (s: unknown, depth: number): void => {
    if (s === true || s === undefined) return;
    if (s === false) {
      never = true;
      return;
    }
    if (!isObj(s)) {
      notes.push(`${where}: ignored a schema that is neither an object nor a boolean (${show(s, 30)})`);
      return;
    }
    if (seen.has(s) || conj.length >= 200 || depth > 50) return;
    seen.add(s);
    conj.push(s);
    for (const kw of REF_KEYWORDS) {
      const ref = own(s, kw);
      if (typeof ref !== 'string') continue;
      const target = refTarget(ctx, kw, ref);
      if (!target) {
        notes.push(`${where}: ${kw} ${show(ref)} could not be resolved inside the inputSchema; ignored`);
        continue;
      }
      if (seen.has(target.schema)) continue; // already part of this conjunction
      const repeats = refs.filter((r) => r === ref).length;
      if (repeats >= ARGUMENT_LIMITS.maxRefRepeats) {
        stop = true;
        continue;
      }
      if (repeats >= 1) minimal = true;
      refs.push(ref);
      visit(target.schema, depth + 1);
    }
    const allOf = own(s, 'allOf');
    if (Array.isArray(allOf)) for (const sub of allOf) visit(sub, depth + 1);
  };
  for (const s of schemas) visit(s, 0);
  return { conj, never, stop, notes, frame: { ...frame, refs, minimal } };
}

function child(frame: Frame, part: PathPart): Frame {
  return {
    path: [...frame.path, part],
    refs: frame.refs,
    minimal: frame.minimal || frame.depth + 1 >= ARGUMENT_LIMITS.minimalDepth,
    depth: frame.depth + 1,
  };
}

function generate(schemas: readonly unknown[], ctx: Ctx, frame: Frame, hint: string, variant: number): Gen {
  const where = pathText(frame.path);
  if (ctx.nodes <= 0) return none([`${where}: output size limit reached; value left out`]);
  if (frame.depth > ARGUMENT_LIMITS.maxDepth) return none([`${where}: nested too deeply; value left out`]);
  const ex = expand(schemas, ctx, frame);
  if (ex.never) return none([...ex.notes, `${where}: the schema allows no value at all`]);
  if (ex.stop) return none([...ex.notes, `${where}: recursive $ref nested too deeply; no finite value found`]);
  const r = genConj(ex.conj, ctx, ex.frame, hint, variant, new Set());
  return ex.notes.length ? { ...r, notes: [...ex.notes, ...r.notes] } : r;
}

function mentionsRef(s: unknown, depth = 0): boolean {
  if (depth > 6 || typeof s !== 'object' || s === null) return false;
  if (Array.isArray(s)) return s.some((x) => mentionsRef(x, depth + 1));
  for (const k of Object.keys(s)) {
    if ((REF_KEYWORDS as readonly string[]).includes(k)) return true;
    if (k !== 'enum' && k !== 'const' && k !== 'default' && k !== 'examples' && mentionsRef((s as SchemaObject)[k], depth + 1)) return true;
  }
  return false;
}

function genConj(conj: SchemaObject[], ctx: Ctx, frame: Frame, hint: string, variant: number, handled: Set<unknown>): Gen {
  const where = pathText(frame.path);
  // anyOf / oneOf: a valid const/default/example/enum value at this level wins; otherwise try the
  // branches in order, and keep the first that yields a valid value.
  if (conj.some((s) => ['anyOf', 'oneOf'].some((kw) => Array.isArray(own(s, kw)) && !handled.has(own(s, kw))))) {
    const { pick } = preferred(conj, ctx, variant);
    if (pick) return pick;
  }
  for (const s of conj) {
    for (const kw of ['anyOf', 'oneOf'] as const) {
      const branches = own(s, kw);
      if (!Array.isArray(branches) || handled.has(branches)) continue;
      if (branches.length === 0) return none([`${where}: ${kw} is empty, so no value can match`]);
      const nextHandled = new Set(handled).add(branches);
      let order = branches.map((_, i) => i);
      if (frame.minimal) order = [...order.filter((i) => !mentionsRef(branches[i])), ...order.filter((i) => mentionsRef(branches[i]))];
      let fallback: Gen | undefined;
      for (const i of order) {
        if (ctx.attempts <= 0) break;
        ctx.attempts--;
        const ex = expand([branches[i]], ctx, frame);
        if (ex.never || ex.stop) continue;
        const r = genConj([...conj, ...ex.conj], ctx, ex.frame, hint, variant, nextHandled);
        const withNotes = ex.notes.length ? { ...r, notes: [...ex.notes, ...r.notes] } : r;
        if (ok(withNotes)) return withNotes;
        if (!fallback || (withNotes.has && !fallback.has)) fallback = withNotes;
      }
      const why = `${where}: no branch of ${kw} yielded a valid value${ctx.attempts <= 0 ? ' (attempt limit reached)' : ''}`;
      return fallback ? { ...fallback, notes: [...fallback.notes, why] } : none([why]);
    }
  }
  let r = genBase(conj, ctx, frame, hint, variant);
  // if/then/else: evaluate each condition on the value, add the chosen branches, generate again;
  // repeat while the new value flips some condition.
  const ifs = conj.filter((s) => hasOwn(s, 'if') && !handled.has(s));
  if (ifs.length > 0 && r.has && !(ok(r) && validAll(conj, r.value, ctx))) {
    const nextHandled = new Set(handled);
    for (const s of ifs) nextHandled.add(s);
    let value = r.value;
    let choice = ifs.map((s) => validate(s.if, value, ctx, undefined, true));
    let best: Gen | undefined;
    for (let round = 0; round < 6 && ctx.attempts > 0; round++) {
      ctx.attempts--;
      const chosen = ifs.map((s, i) => own(s, choice[i] ? 'then' : 'else')).filter((b) => b !== undefined);
      const ex = expand(chosen, ctx, frame);
      if (ex.never || ex.stop) break;
      const g0 = genConj([...conj, ...ex.conj], ctx, ex.frame, hint, variant, nextHandled);
      const g = ex.notes.length ? { ...g0, notes: [...ex.notes, ...g0.notes] } : g0;
      if (ok(g)) return g;
      best ??= g;
      if (!g.has) break;
      value = g.value;
      const next = ifs.map((s) => validate(s.if, value, ctx, undefined, true));
      if (next.every((c, i) => c === choice[i])) break;
      choice = next;
    }
    r = best ?? r;
  }
  if (r.has && r.notes.length === 0 && !validAll(conj, r.value, ctx)) {
    const kw = ctx.failure;
    const what =
      kw === 'not' ? '"not" could not be honoured' : kw ? `the value fails "${kw}"` : 'the value does not satisfy every constraint';
    r = { ...r, notes: [`${where}: ${what} (sent ${show(r.value)})`] };
  }
  return r;
}

// --- type selection ---------------------------------------------------------------------------

const ALL_TYPES = ['object', 'array', 'string', 'number', 'integer', 'boolean', 'null'];
const OBJECT_KEYWORDS = ['properties', 'required', 'additionalProperties', 'patternProperties', 'minProperties', 'maxProperties', 'propertyNames', 'dependentRequired', 'dependencies'];
const ARRAY_KEYWORDS = ['items', 'prefixItems', 'additionalItems', 'minItems', 'maxItems', 'uniqueItems', 'contains'];
const STRING_KEYWORDS = ['minLength', 'maxLength', 'pattern', 'format'];
const NUMBER_KEYWORDS = ['minimum', 'maximum', 'exclusiveMinimum', 'exclusiveMaximum', 'multipleOf'];

/** Allowed types in the order to try; `explicit` says whether a `type` keyword said so. */
function typeOrder(conj: readonly SchemaObject[]): { types: string[]; explicit: boolean } {
  let allowed: string[] | undefined;
  for (const s of conj) {
    const t = own(s, 'type');
    const list = typeof t === 'string' ? [t] : Array.isArray(t) ? t.filter((x): x is string => typeof x === 'string') : undefined;
    if (!list) continue;
    const valid = list.filter((x) => ALL_TYPES.includes(x));
    if (!allowed) {
      allowed = [...new Set(valid)];
      continue;
    }
    const next: string[] = [];
    for (const a of allowed) {
      if (valid.includes(a)) next.push(a);
      else if (a === 'number' && valid.includes('integer')) next.push('integer');
      else if (a === 'integer' && valid.includes('number')) next.push('integer');
    }
    allowed = [...new Set(next)];
  }
  if (allowed) {
    const sorted = [...allowed.filter((t) => t !== 'null'), ...allowed.filter((t) => t === 'null')];
    return { types: sorted, explicit: true };
  }
  const has = (kws: string[]) => conj.some((s) => kws.some((k) => hasOwn(s, k)));
  const inferred: string[] = [];
  if (has(OBJECT_KEYWORDS)) inferred.push('object');
  if (has(ARRAY_KEYWORDS)) inferred.push('array');
  if (has(STRING_KEYWORDS)) inferred.push('string');
  if (has(NUMBER_KEYWORDS)) inferred.push('number');
  for (const t of ['string', 'number', 'boolean', 'object', 'array', 'null']) if (!inferred.includes(t)) inferred.push(t);
  return { types: inferred, explicit: false };
}

// --- base generation ---------------------------------------------------------------------------

/** Preferred values: const, default, examples[0], enum; those valid against the whole conjunction. */
function preferred(conj: SchemaObject[], ctx: Ctx, variant: number): { found: unknown[]; pick?: Gen; constrained: boolean } {
  const candidates: unknown[] = [];
  let constrained = false;
  for (const s of conj) if (hasOwn(s, 'const')) { candidates.push(s.const); constrained = true; }
  for (const s of conj) if (hasOwn(s, 'default')) candidates.push(s.default);
  for (const s of conj) {
    const ex = own(s, 'examples');
    if (Array.isArray(ex) && ex.length > 0) candidates.push(ex[0]);
    else if (hasOwn(s, 'example')) candidates.push(s.example);
  }
  for (const s of conj) {
    const en = own(s, 'enum');
    if (Array.isArray(en)) {
      constrained = true;
      candidates.push(...en.slice(0, 1000));
    }
  }
  const found: unknown[] = [];
  for (const c of candidates) {
    const copy = cloneJson(c);
    if (!copy || found.some((f) => deepEqual(f, copy.value))) continue;
    if (!validAll(conj, copy.value, ctx)) continue;
    found.push(copy.value);
    if (found.length > variant) {
      ctx.nodes -= 1 + Math.floor(JSON.stringify(copy.value).length / 100);
      return { found, constrained, pick: { has: true, value: copy.value, notes: [] } };
    }
  }
  return { found, constrained };
}

function genBase(conj: SchemaObject[], ctx: Ctx, frame: Frame, hint: string, variant: number): Gen {
  const where = pathText(frame.path);
  const { found, pick, constrained } = preferred(conj, ctx, variant);
  if (pick) return pick;
  const { types, explicit } = typeOrder(conj);
  if (types.length === 0) return none([`${where}: the "type" constraints contradict each other`]);
  let fallback: Gen | undefined;
  for (const t of types) {
    const r = synthesize(t, conj, ctx, frame, hint, variant - found.length, found);
    if (ok(r)) return r;
    if (!fallback || (r.has && !fallback.has)) fallback = r;
    if (!explicit && constrained) break;
  }
  if (constrained && found.length === 0) {
    const why = `${where}: no value from const/enum satisfies the other constraints`;
    return fallback ? { ...fallback, notes: [why] } : none([why]);
  }
  return fallback ?? none([`${where}: no value could be generated`]);
}

function synthesize(type: string, conj: SchemaObject[], ctx: Ctx, frame: Frame, hint: string, variant: number, exclude: unknown[]): Gen {
  switch (type) {
    case 'null':
      return pickScalar([null], conj, ctx, frame, 0, exclude, 'null');
    case 'boolean':
      return pickScalar([false, true], conj, ctx, frame, variant, exclude, 'boolean');
    case 'integer':
    case 'number':
      return synthNumber(type === 'integer', conj, ctx, frame, variant, exclude);
    case 'string':
      return synthString(conj, ctx, frame, hint, variant, exclude);
    case 'object':
      return synthObject(conj, ctx, frame, variant, false);
    case 'array':
      return synthArray(conj, ctx, frame, hint, variant);
    default:
      return none([`${pathText(frame.path)}: unknown type ${show(type)}`]);
  }
}

function pickScalar(cands: Iterable<unknown>, conj: SchemaObject[], ctx: Ctx, frame: Frame, variant: number, exclude: unknown[], what: string, fallbackNote?: () => string | undefined): Gen {
  const found: unknown[] = [];
  let first: { value: unknown; failure: string | undefined } | undefined;
  let tried = 0;
  for (const c of cands) {
    if (++tried > 5000) break;
    if (found.includes(c) || exclude.some((e) => deepEqual(e, c))) continue;
    if (!validAll(conj, c, ctx)) {
      first ??= { value: c, failure: ctx.failure };
      continue;
    }
    found.push(c);
    if (found.length > variant) {
      ctx.nodes -= 1 + (typeof c === 'string' ? Math.floor(c.length / 100) : 0);
      return { has: true, value: c, notes: [] };
    }
  }
  const where = pathText(frame.path);
  const failure = first?.failure;
  const note =
    fallbackNote?.() ??
    (failure === 'not'
      ? `${where}: "not" could not be honoured (no ${what} value avoids it)`
      : `${where}: no ${what} value satisfies the schema${first && failure ? ` (${show(first.value, 30)} fails "${failure}")` : ''}`);
  if (found.length > 0) return { has: true, value: found[found.length - 1], notes: [`${where}: not enough distinct ${what} values for uniqueItems`] };
  return first ? { has: true, value: first.value, notes: [note] } : none([note]);
}

// --- numbers -----------------------------------------------------------------------------------

function* numberCandidates(b: NumberBounds, integer: boolean): Generator<number> {
  const lo = b.lo;
  const hi = b.hi;
  const mid = Number.isFinite(lo) && Number.isFinite(hi) ? lo + (hi - lo) / 2 : NaN;
  const up = (x: number) => x + Math.max(1e-9, Math.abs(x) * 4 * Number.EPSILON);
  const down = (x: number) => x - Math.max(1e-9, Math.abs(x) * 4 * Number.EPSILON);
  const nearLo = Number.isFinite(lo) ? [lo, Math.ceil(lo), Math.floor(lo) + 1, lo + 1, Math.ceil(lo) + 1, up(lo), mid] : [];
  const nearHi = Number.isFinite(hi) ? [hi, Math.floor(hi), Math.ceil(hi) - 1, hi - 1, Math.floor(hi) - 1, down(hi), mid] : [];
  const multiplesNear = function* (anchor: number): Generator<number> {
    for (const m of b.multiples.slice(0, 4)) {
      if (!Number.isFinite(anchor / m)) continue;
      const k0 = Math.round(anchor / m);
      for (const d of [0, 1, -1, 2, -2, 3, -3, 4, 5, 10]) {
        yield (k0 + d) * m;
        yield Number(((k0 + d) * m).toPrecision(12));
      }
    }
  };
  yield 1;
  if (lo > 1) {
    yield* multiplesNear(lo);
    yield* nearLo;
  } else if (hi < 1) {
    yield* multiplesNear(hi);
    yield* nearHi;
  }
  yield* multiplesNear(1);
  yield* [2, 3, 0, 4, 5, 10, -1, 100];
  if (!integer) yield* [0.5, 1.5, 2.5, 0.25];
  yield* nearLo;
  yield* nearHi;
  yield* multiplesNear(0);
  if (Number.isFinite(mid)) yield* multiplesNear(mid);
  // Walk from the first allowed point for more distinct values (uniqueItems).
  const step = b.multiples[0] ?? 1;
  const start = Number.isFinite(lo) ? Math.ceil(lo / step) * step : Number.isFinite(hi) ? Math.floor(hi / step) * step : 1;
  const dir = Number.isFinite(lo) || !Number.isFinite(hi) ? 1 : -1;
  for (let i = 0; i < 2000; i++) yield start + dir * i * step;
}

function synthNumber(integer: boolean, conj: SchemaObject[], ctx: Ctx, frame: Frame, variant: number, exclude: unknown[]): Gen {
  const b: NumberBounds = { lo: -Infinity, loEx: false, hi: Infinity, hiEx: false, multiples: [] };
  const where = pathText(frame.path);
  const notes: string[] = [];
  for (const s of conj) {
    addBounds(b, s);
    for (const k of NUMBER_KEYWORDS) {
      const v = own(s, k);
      if (v !== undefined && !isNum(v) && typeof v !== 'boolean') notes.push(`${where}: ignored ${k} ${show(v, 20)} (not a number)`);
    }
    const mo = own(s, 'multipleOf');
    if (isNum(mo) && mo <= 0) notes.push(`${where}: ignored multipleOf ${mo} (not positive)`);
  }
  const what = integer ? 'integer' : 'number';
  const contradiction = b.lo > b.hi || (b.lo === b.hi && (b.loEx || b.hiEx));
  const describe = () =>
    contradiction
      ? `${where}: the numeric bounds contradict each other (minimum ${b.lo}, maximum ${b.hi})`
      : `${where}: no ${what} satisfies the numeric constraints`;
  const cands = (function* () {
    for (const x of numberCandidates(b, integer)) {
      if (!Number.isFinite(x) || (integer && !Number.isInteger(x)) || !inBounds(b, x)) continue;
      yield Object.is(x, -0) ? 0 : x;
    }
  })();
  let r = pickScalar(cands, conj, ctx, frame, variant, exclude, what, describe);
  if (!r.has) {
    // Nothing fits: send the nearest plain value, clamped into the bounds.
    let x = Math.min(Math.max(1, Number.isFinite(b.lo) ? b.lo : 1), Number.isFinite(b.hi) ? b.hi : 1);
    if (integer) x = Math.round(x);
    r = { has: true, value: x, notes: r.notes.length ? r.notes : [describe()] };
  }
  return notes.length ? { ...r, notes: [...notes, ...r.notes] } : r;
}

// --- strings -----------------------------------------------------------------------------------

/** Values for formats; each is valid for ajv-formats' "full" definitions. */
const FORMAT_VALUES: Record<string, string> = {
  'date-time': '2025-01-01T00:00:00Z',
  'iso-date-time': '2025-01-01T00:00:00Z',
  date: '2025-01-01',
  time: '12:00:00Z',
  'iso-time': '12:00:00Z',
  duration: 'P1D',
  email: 'user@example.com',
  'idn-email': 'user@example.com',
  uri: 'https://example.com',
  url: 'https://example.com',
  iri: 'https://example.com',
  'uri-reference': 'https://example.com',
  'iri-reference': 'https://example.com',
  'uri-template': 'https://example.com/{id}',
  uuid: '123e4567-e89b-42d3-a456-426614174000',
  ipv4: '127.0.0.1',
  ipv6: '::1',
  hostname: 'example.com',
  'idn-hostname': 'example.com',
  byte: 'ZXhhbXBsZQ==',
  regex: '^example$',
  'json-pointer': '/example',
  'json-pointer-uri-fragment': '#/example',
  'relative-json-pointer': '0',
  password: 'example',
  binary: 'example',
  // Formats ajv does not know, seen in the wild (pydantic, OpenAPI): plausible values.
  'file-path': 'README.md',
  'directory-path': '.',
  path: 'README.md',
  'multi-line': 'example',
  textarea: 'example',
  color: '#336699',
  phone: '+1-555-0100',
};

const NUMBER_FORMATS = new Set(['int32', 'int64', 'float', 'double']);

/** The i-th distinct value of a format (i = 0 is FORMAT_VALUES), for uniqueItems. */
function formatVariant(format: string, i: number): string | undefined {
  const base = hasOwn(FORMAT_VALUES, format) ? FORMAT_VALUES[format] : undefined;
  if (base === undefined || i === 0) return base;
  const dd = String((i % 28) + 1).padStart(2, '0');
  const n = i + 1;
  switch (format) {
    case 'date-time':
    case 'iso-date-time':
      return `2025-01-${dd}T${String(Math.floor(i / 28) % 24).padStart(2, '0')}:00:00Z`;
    case 'date':
      return `${2025 + Math.floor(i / 28)}-01-${dd}`;
    case 'time':
    case 'iso-time':
      return `12:${String(Math.floor(i / 60) % 60).padStart(2, '0')}:${String(i % 60).padStart(2, '0')}Z`;
    case 'duration':
      return `P${n}D`;
    case 'email':
    case 'idn-email':
      return `user${n}@example.com`;
    case 'uri':
    case 'url':
    case 'iri':
    case 'uri-reference':
    case 'iri-reference':
      return `https://example.com/${n}`;
    case 'uri-template':
      return `https://example.com/${n}/{id}`;
    case 'uuid':
      return `123e4567-e89b-42d3-a456-${String(426614174000 + i).padStart(12, '0')}`;
    case 'ipv4':
      return `127.0.${Math.floor(i / 250) % 250}.${(i % 250) + 1}`;
    case 'ipv6':
      return `::${n.toString(16)}`;
    case 'hostname':
    case 'idn-hostname':
      return `host${n}.example.com`;
    case 'byte':
      return btoa(`example${n}`);
    case 'regex':
      return `^example${n}$`;
    case 'json-pointer':
      return `/example${n}`;
    case 'json-pointer-uri-fragment':
      return `#/example${n}`;
    case 'relative-json-pointer':
      return String(i);
    default:
      return `${base}-${n}`;
  }
}

/** Friendly strings suggested by a property name (split into words: `imageUrl`, `file_path`). */
function hintStrings(hint: string): string[] {
  const words = hint
    .replace(/([a-z0-9])([A-Z])/g, '$1 $2')
    .toLowerCase()
    .split(/[^a-z0-9]+/)
    .filter(Boolean);
  const any = (test: (w: string) => boolean) => words.some(test);
  const out: string[] = [];
  if (any((w) => /^(ur[il]s?|links?|hrefs?|endpoints?|websites?|\w*url)$/.test(w))) out.push('https://example.com');
  if (any((w) => /^e?mails?$|^email/.test(w))) out.push('user@example.com');
  if (any((w) => /^(paths?|files?|filenames?|\w*path)$/.test(w) || w.startsWith('file'))) out.push('README.md');
  if (any((w) => /^host(name)?s?$/.test(w))) out.push('example.com');
  if (any((w) => /^(names?|titles?|labels?|\w+name)$/.test(w))) out.push('mcp-conform');
  if (any((w) => /^(lang|language|locale)s?$/.test(w))) out.push('en');
  return out;
}

function synthString(conj: SchemaObject[], ctx: Ctx, frame: Frame, hint: string, variant: number, exclude: unknown[]): Gen {
  const where = pathText(frame.path);
  const notes: string[] = [];
  let minLen = 0;
  let maxLen = Infinity;
  const patterns: string[] = [];
  const formats: string[] = [];
  for (const s of conj) {
    const a = own(s, 'minLength');
    const b = own(s, 'maxLength');
    if (isNum(a)) minLen = Math.max(minLen, Math.ceil(a));
    if (isNum(b)) maxLen = Math.min(maxLen, Math.floor(b));
    const p = own(s, 'pattern');
    if (typeof p === 'string') {
      if (regex(ctx, p)) patterns.push(p);
      else notes.push(`${where}: pattern ${show(p)} is not a valid regular expression (with the "u" flag); ignored`);
    }
    const f = own(s, 'format');
    if (typeof f === 'string' && !formats.includes(f)) formats.push(f);
  }
  for (const f of formats) {
    if (!hasOwn(FORMAT_VALUES, f) && !NUMBER_FORMATS.has(f) && !formatCheck(f)) notes.push(`${where}: format ${show(f)} is not known; sent a plain string`);
  }
  const capped = minLen > ARGUMENT_LIMITS.maxStringLength;
  if (capped) {
    notes.push(`${where}: minLength ${minLen} capped at ${ARGUMENT_LIMITS.maxStringLength}`);
    minLen = ARGUMENT_LIMITS.maxStringLength;
  }
  const fit = (c: string): string[] => {
    const len = cpLength(c);
    if (len < minLen) return [c, c + 'x'.repeat(minLen - len), c.repeat(Math.ceil(minLen / Math.max(1, len))).slice(0, Math.max(minLen, c.length))];
    if (len > maxLen) return [cpSlice(c, Math.max(0, maxLen))];
    return [c];
  };
  const bases = function* (): Generator<string> {
    yield* hintStrings(hint);
    for (const f of formats) if (hasOwn(FORMAT_VALUES, f)) yield FORMAT_VALUES[f];
    yield 'example';
    yield 'mcp-conform';
    for (const p of patterns) yield* patternStrings(p, ctx, minLen, maxLen, 0);
    yield* ['a', 'x', 'A', '1', '0', 'example-1', ''];
    for (let i = 2; i < 60; i++) {
      for (const f of formats) {
        const fv = formatVariant(f, i - 1);
        if (fv !== undefined) yield fv;
      }
      yield `example-${i}`;
      for (const p of patterns) yield* patternStrings(p, ctx, minLen, maxLen, i);
    }
  };
  const cands = (function* () {
    for (const base of bases()) for (const c of fit(base)) if (cpLength(c) <= ARGUMENT_LIMITS.maxStringLength || capped) yield c;
  })();
  const describe = () => {
    if (minLen > maxLen) return `${where}: minLength ${minLen} is greater than maxLength ${maxLen}`;
    if (patterns.length) return `${where}: could not generate a string matching pattern ${patterns.map((p) => show(p)).join(' and ')}`;
    const f = formats.filter((x) => !NUMBER_FORMATS.has(x));
    if (f.length) return `${where}: could not generate a string of format ${f.map((x) => show(x)).join(' and ')} that satisfies the schema`;
    return undefined;
  };
  let r = pickScalar(cands, conj, ctx, frame, variant, exclude, 'string', describe);
  if (!ok(r) && (!r.has || typeof r.value !== 'string' || cpLength(r.value) < minLen || cpLength(r.value) > maxLen)) {
    // Send at least a string of an allowed length.
    r = { has: true, value: cpSlice('example'.padEnd(minLen, 'x'), Math.max(0, Math.min(maxLen, Math.max(minLen, 7)))), notes: r.notes };
  }
  if (notes.length) r = { ...r, notes: [...notes, ...r.notes] };
  return r;
}

// --- a tiny generator for simple regular expressions -------------------------------------------

type RNode =
  | { t: 'seq'; items: RNode[] }
  | { t: 'alt'; alts: RNode[] }
  | { t: 'rep'; node: RNode; min: number; max: number }
  | { t: 'lit'; ch: string }
  | { t: 'set'; src: string }
  | { t: 'empty' };

class RegexParser {
  private i = 0;
  constructor(private readonly s: string) {}

  parse(): RNode {
    const node = this.alt();
    if (this.i < this.s.length) throw new Error('unbalanced');
    return node;
  }

  private alt(): RNode {
    const alts = [this.seq()];
    while (this.s[this.i] === '|') {
      this.i++;
      alts.push(this.seq());
    }
    return alts.length === 1 ? alts[0] : { t: 'alt', alts };
  }

  private seq(): RNode {
    const items: RNode[] = [];
    while (this.i < this.s.length && this.s[this.i] !== '|' && this.s[this.i] !== ')') {
      if (items.length > 1000) throw new Error('too long');
      items.push(this.quantifier(this.atom()));
    }
    return { t: 'seq', items };
  }

  private atom(): RNode {
    const s = this.s;
    const c = s[this.i];
    if (c === '^' || c === '$') {
      this.i++;
      return { t: 'empty' };
    }
    if (c === '(') {
      this.i++;
      let lookaround = false;
      if (s.startsWith('?=', this.i) || s.startsWith('?!', this.i)) {
        this.i += 2;
        lookaround = true;
      } else if (s.startsWith('?<=', this.i) || s.startsWith('?<!', this.i)) {
        this.i += 3;
        lookaround = true;
      } else if (s.startsWith('?:', this.i)) {
        this.i += 2;
      } else if (s.startsWith('?<', this.i)) {
        const end = s.indexOf('>', this.i);
        if (end < 0) throw new Error('bad group');
        this.i = end + 1;
      } else if (s[this.i] === '?') {
        throw new Error('unsupported group');
      }
      const inner = this.alt();
      if (s[this.i] !== ')') throw new Error('unbalanced');
      this.i++;
      return lookaround ? { t: 'empty' } : inner;
    }
    if (c === '[') {
      let j = this.i + 1;
      while (j < s.length && s[j] !== ']') j += s[j] === '\\' ? 2 : 1;
      if (j >= s.length) throw new Error('bad class');
      const src = s.slice(this.i, j + 1);
      this.i = j + 1;
      return { t: 'set', src };
    }
    if (c === '.') {
      this.i++;
      return { t: 'set', src: '.' };
    }
    if (c === '\\') return this.escape();
    const cp = s.codePointAt(this.i) ?? 0;
    const ch = String.fromCodePoint(cp);
    this.i += ch.length;
    return { t: 'lit', ch };
  }

  private escape(): RNode {
    const s = this.s;
    this.i++;
    const c = s[this.i];
    if (c === undefined) throw new Error('trailing backslash');
    if ('dDwWsS'.includes(c)) {
      this.i++;
      return { t: 'set', src: `\\${c}` };
    }
    if ((c === 'p' || c === 'P') && s[this.i + 1] === '{') {
      const end = s.indexOf('}', this.i);
      if (end < 0) throw new Error('bad property escape');
      const src = `\\${s.slice(this.i, end + 1)}`;
      this.i = end + 1;
      return { t: 'set', src };
    }
    if (c === 'b' || c === 'B') {
      this.i++;
      return { t: 'empty' };
    }
    if (/[1-9]/.test(c)) {
      while (/\d/.test(s[this.i] ?? '')) this.i++;
      return { t: 'empty' }; // backreference: not supported, the final check decides
    }
    if (c === 'k' && s[this.i + 1] === '<') {
      const end = s.indexOf('>', this.i);
      this.i = end < 0 ? s.length : end + 1;
      return { t: 'empty' };
    }
    const simple: Record<string, string> = { t: '\t', n: '\n', r: '\r', f: '\f', v: '\v', '0': '\0' };
    if (hasOwn(simple, c)) {
      this.i++;
      return { t: 'lit', ch: simple[c] };
    }
    if (c === 'x') {
      const hex = s.slice(this.i + 1, this.i + 3);
      this.i += 3;
      return { t: 'lit', ch: String.fromCharCode(parseInt(hex, 16) || 0) };
    }
    if (c === 'u') {
      if (s[this.i + 1] === '{') {
        const end = s.indexOf('}', this.i);
        const cp = parseInt(s.slice(this.i + 2, end), 16);
        this.i = end + 1;
        return { t: 'lit', ch: String.fromCodePoint(Number.isFinite(cp) && cp <= 0x10ffff ? cp : 0x3f) };
      }
      const hex = s.slice(this.i + 1, this.i + 5);
      this.i += 5;
      return { t: 'lit', ch: String.fromCharCode(parseInt(hex, 16) || 0) };
    }
    if (c === 'c') {
      const letter = s[this.i + 1] ?? 'A';
      this.i += 2;
      return { t: 'lit', ch: String.fromCharCode(letter.charCodeAt(0) % 32) };
    }
    const cp = s.codePointAt(this.i) ?? 0;
    const ch = String.fromCodePoint(cp);
    this.i += ch.length;
    return { t: 'lit', ch };
  }

  private quantifier(atom: RNode): RNode {
    const s = this.s;
    const c = s[this.i];
    let min: number;
    let max: number;
    if (c === '*') [min, max] = [0, Infinity];
    else if (c === '+') [min, max] = [1, Infinity];
    else if (c === '?') [min, max] = [0, 1];
    else if (c === '{') {
      const m = /^\{(\d+)(,(\d*))?\}/.exec(s.slice(this.i));
      if (!m) return atom;
      min = Number(m[1]);
      max = m[2] === undefined ? min : m[3] === '' ? Infinity : Number(m[3]);
      this.i += m[0].length - 1;
    } else return atom;
    this.i++;
    if (s[this.i] === '?') this.i++;
    return { t: 'rep', node: atom, min, max };
  }
}

const LOWER = 'example';
const UPPER = 'EXAMPLE';
const FALLBACK_CHARS = [
  ...'abcdefghijklmnopqrstuvwxyzABCDEFGHIJKLMNOPQRSTUVWXYZ0123456789',
  ...'-_. @:/+~!#$%&*=?,;()[]{}<>|^`\'"\\\t\n',
  'é', 'ß', 'α', 'ж', '中', 'あ', '😀',
];

function pickChar(src: string, k: number, ctx: Ctx): string {
  const re = regex(ctx, `^(?:${src})$`);
  if (!re) throw new Error('bad atom');
  const preferred = [LOWER[k % LOWER.length], UPPER[k % UPPER.length], String((k + 1) % 10)];
  for (const ch of preferred) if (re.test(ch)) return ch;
  for (const ch of FALLBACK_CHARS) if (re.test(ch)) return ch;
  throw new Error('no character matches');
}

function renderRegex(node: RNode, rep: number | undefined, seed: number, pos: { n: number; len: number }, ctx: Ctx): string {
  if (pos.len > ARGUMENT_LIMITS.maxStringLength) throw new Error('too long');
  switch (node.t) {
    case 'empty':
      return '';
    case 'lit':
      pos.n++;
      pos.len += node.ch.length;
      return node.ch;
    case 'set': {
      const ch = pickChar(node.src, pos.n + seed, ctx);
      pos.n++;
      pos.len += ch.length;
      return ch;
    }
    case 'seq':
      return node.items.map((x) => renderRegex(x, rep, seed, pos, ctx)).join('');
    case 'alt':
      return renderRegex(node.alts[seed % node.alts.length], rep, seed, pos, ctx);
    case 'rep': {
      const dflt = node.min > 0 ? node.min : node.max >= 1 ? 1 : 0;
      const count = Math.min(rep === undefined ? dflt : Math.min(Math.max(rep, node.min), node.max), ARGUMENT_LIMITS.maxStringLength);
      let out = '';
      for (let i = 0; i < count; i++) out += renderRegex(node.node, rep, seed, pos, ctx);
      return out;
    }
  }
}

const parsedPatterns = new Map<string, RNode | null>();

/** Strings generated from a pattern with different repetition counts (checked by the caller). */
function patternStrings(pattern: string, ctx: Ctx, minLen: number, maxLen: number, seed: number): string[] {
  let node = parsedPatterns.get(pattern);
  if (node === undefined) {
    try {
      node = new RegexParser(pattern).parse();
    } catch {
      node = null;
    }
    if (parsedPatterns.size < 1000) parsedPatterns.set(pattern, node);
  }
  if (!node) return [];
  const reps: (number | undefined)[] = [undefined, 1, 2, 3, 4, 6, 8, 12, 16, 32, 64, minLen, Number.isFinite(maxLen) ? maxLen : undefined];
  const out: string[] = [];
  for (const rep of [...new Set(reps)]) {
    try {
      const text = renderRegex(node, rep, seed, { n: 0, len: 0 }, ctx);
      if (!out.includes(text)) out.push(text);
    } catch {
      /* this variant could not be rendered */
    }
  }
  return out;
}

// --- objects -----------------------------------------------------------------------------------

/** Schemas that property `name` must satisfy under every schema of the conjunction. */
function propertySchemas(conj: readonly SchemaObject[], name: string, ctx: Ctx): unknown[] {
  const out: unknown[] = [];
  let matchedAny = false;
  for (const s of conj) {
    let matched = false;
    const props = own(s, 'properties');
    if (isObj(props) && hasOwn(props, name)) {
      out.push(props[name]);
      matched = true;
    }
    const pp = own(s, 'patternProperties');
    if (isObj(pp)) {
      for (const p of Object.keys(pp)) {
        if (regex(ctx, p)?.test(name)) {
          out.push(pp[p]);
          matched = true;
        }
      }
    }
    if (!matched && hasOwn(s, 'additionalProperties')) out.push(s.additionalProperties);
    matchedAny ||= matched;
  }
  if (!matchedAny) for (const s of conj) if (hasOwn(s, 'unevaluatedProperties')) out.push(s.unevaluatedProperties);
  return out;
}

function dependencyNames(conj: readonly SchemaObject[], name: string): { names: string[]; schemas: boolean } {
  const names: string[] = [];
  let schemas = false;
  for (const s of conj) {
    for (const kw of ['dependencies', 'dependentRequired', 'dependentSchemas']) {
      const deps = own(s, kw);
      if (!isObj(deps) || !hasOwn(deps, name)) continue;
      const d = deps[name];
      if (Array.isArray(d)) for (const n of d) if (typeof n === 'string') names.push(n);
      if (isObj(d) || d === false) schemas = true;
    }
  }
  return { names, schemas };
}

function synthObject(conj: SchemaObject[], ctx: Ctx, frame: Frame, variant: number, requiredOnly: boolean): Gen {
  const where = pathText(frame.path);
  const notes: string[] = [];
  const requiredSet = new Set<string>();
  const declaredSet = new Set<string>();
  let minProps = 0;
  let maxProps = Infinity;
  for (const s of conj) {
    const req = own(s, 'required');
    if (Array.isArray(req)) for (const r of req.slice(0, 10_000)) if (typeof r === 'string') requiredSet.add(r);
    const props = own(s, 'properties');
    if (isObj(props)) for (const k of Object.keys(props).slice(0, 1000)) declaredSet.add(k);
    const a = own(s, 'minProperties');
    const b = own(s, 'maxProperties');
    if (isNum(a)) minProps = Math.max(minProps, Math.ceil(a));
    if (isNum(b)) maxProps = Math.min(maxProps, Math.floor(b));
  }
  const required = [...requiredSet];
  const declared = [...declaredSet];
  if (minProps > ARGUMENT_LIMITS.maxProperties) {
    notes.push(`${where}: minProperties ${minProps} capped at ${ARGUMENT_LIMITS.maxProperties}`);
    minProps = ARGUMENT_LIMITS.maxProperties;
  }
  const values = new Map<string, unknown>();
  const variantTarget = required[0] ?? declared[0];
  const add = (name: string, optional: boolean): boolean => {
    if (values.has(name)) return true;
    const r = generate(propertySchemas(conj, name, ctx), ctx, child(frame, name), name, name === variantTarget ? variant : 0);
    if (optional && !ok(r)) return false;
    notes.push(...r.notes);
    if (!r.has) {
      if (!optional) notes.push(`${pathText([...frame.path, name])}: required property could not be generated`);
      return false;
    }
    values.set(name, r.value);
    return true;
  };
  // Required properties, and those they depend on.
  const queue = [...required];
  const queued = new Set(queue);
  for (let i = 0; i < queue.length && i < 10_000; i++) {
    const name = queue[i];
    if (ctx.nodes <= 0) {
      notes.push(`${where}: output size limit reached; ${queue.length - i} required properties left out`);
      break;
    }
    if (!add(name, false)) continue;
    for (const d of dependencyNames(conj, name).names) {
      if (queued.has(d)) continue;
      queued.add(d);
      queue.push(d);
    }
  }
  // Optional properties, when cheap.
  const cheap = () => !requiredOnly && !frame.minimal && frame.depth <= ARGUMENT_LIMITS.optionalDepth && ctx.nodes > ARGUMENT_LIMITS.maxNodes / 2;
  if (cheap()) {
    for (const name of declared.slice(0, 64)) {
      if (values.has(name) || values.size >= maxProps || !cheap()) continue;
      const deps = dependencyNames(conj, name);
      if (deps.schemas || deps.names.some((d) => !values.has(d))) continue;
      const declaredAs = conj.map((s) => own(s, 'properties')).map((p) => (isObj(p) ? own(p, name) : undefined));
      if (declaredAs.some((d) => isObj(d) && (own(d, 'readOnly') === true || own(d, 'deprecated') === true))) continue;
      add(name, true);
    }
  }
  // minProperties: more declared properties, then names for patternProperties/additionalProperties.
  if (values.size < minProps) {
    for (const name of declared) if (values.size < minProps) add(name, true);
    const extraNames = function* (): Generator<string> {
      for (const s of conj) {
        const pp = own(s, 'patternProperties');
        if (isObj(pp)) for (const p of Object.keys(pp)) for (let seed = 0; seed < 5; seed++) yield* patternStrings(p, ctx, 1, Infinity, seed);
      }
      for (let i = 1; i <= ARGUMENT_LIMITS.maxProperties * 2; i++) yield `extra${i}`;
    };
    for (const name of extraNames()) {
      if (values.size >= minProps || ctx.nodes <= 0) break;
      if (!values.has(name)) add(name, true);
    }
    if (values.size < minProps) notes.push(`${where}: could only generate ${values.size} of the ${minProps} properties minProperties asks for`);
  }
  // Variants (uniqueItems) of an object with no property to vary: add a distinguishing property.
  if (variant > 0 && variantTarget === undefined) add(`variant${variant}`, true);
  const value: Record<string, unknown> = {};
  for (const name of [...declared, ...values.keys()]) if (values.has(name) && !hasOwn(value, name)) setProp(value, name, values.get(name));
  ctx.nodes -= 1;
  if (values.size > required.length && !requiredOnly && !validAll(conj, value, ctx)) {
    // An optional property spoiled the object (maxProperties, oneOf, dependencies...): only what is needed.
    return synthObject(conj, ctx, frame, variant, true);
  }
  return { has: true, value, notes };
}

// --- arrays ------------------------------------------------------------------------------------

function synthArray(conj: SchemaObject[], ctx: Ctx, frame: Frame, hint: string, variant: number): Gen {
  const where = pathText(frame.path);
  const notes: string[] = [];
  let minItems = 0;
  let maxItems = Infinity;
  let unique = false;
  let prefixLen = 0;
  const contains: unknown[] = [];
  let minContains = 0;
  for (const s of conj) {
    const a = own(s, 'minItems');
    const b = own(s, 'maxItems');
    if (isNum(a)) minItems = Math.max(minItems, Math.ceil(a));
    if (isNum(b)) maxItems = Math.min(maxItems, Math.floor(b));
    if (own(s, 'uniqueItems') === true) unique = true;
    const pi = own(s, 'prefixItems');
    const it = own(s, 'items');
    if (Array.isArray(pi)) prefixLen = Math.max(prefixLen, pi.length);
    if (Array.isArray(it)) prefixLen = Math.max(prefixLen, it.length);
    if (hasOwn(s, 'contains')) {
      contains.push(s.contains);
      minContains = Math.max(minContains, Math.ceil(containsMinimum(own(s, 'minContains'), ctx.dialect)));
    }
  }
  if (minItems > maxItems) notes.push(`${where}: minItems ${minItems} is greater than maxItems ${maxItems}`);
  let n = frame.minimal ? minItems : Math.max(minItems, prefixLen, 1);
  n = Math.max(Math.min(n, maxItems), minItems, contains.length ? minContains : 0);
  if (n > ARGUMENT_LIMITS.maxItems) {
    notes.push(`${where}: ${minItems > ARGUMENT_LIMITS.maxItems ? `minItems ${minItems}` : `${n} items`} capped at ${ARGUMENT_LIMITS.maxItems}`);
    n = ARGUMENT_LIMITS.maxItems;
  }
  const items: unknown[] = [];
  let failedCost = -1;
  for (let i = 0; i < n; i++) {
    if (failedCost >= 0 && i >= prefixLen) {
      // An earlier item could not be generated well: repeat it rather than try again (and again).
      if (ctx.nodes - failedCost <= 0) {
        notes.push(`${where}: output size limit reached after ${i} items`);
        break;
      }
      ctx.nodes -= failedCost;
      items.push(items[i - 1]);
      continue;
    }
    if (ctx.nodes <= 0) {
      notes.push(`${where}: output size limit reached after ${i} items`);
      break;
    }
    const schemas = conj.flatMap((s) => itemSchemas(s, i, ctx.dialect));
    if (i < minContains) schemas.push(...contains);
    let v = unique ? variant + i : i === 0 ? variant : 0;
    const before = ctx.nodes;
    let r = generate(schemas, ctx, child(frame, i), hint, v);
    for (let tries = 0; unique && r.has && tries < 20 && items.some((x) => deepEqual(x, r.value)); tries++) {
      r = generate(schemas, ctx, child(frame, i), hint, ++v);
    }
    if (i >= minItems && !ok(r)) break; // an optional item: leave it out rather than send a doubtful one
    notes.push(...r.notes);
    if (!r.has) break;
    if (unique && items.some((x) => deepEqual(x, r.value))) notes.push(`${where}: could not generate distinct items for uniqueItems`);
    items.push(r.value);
    if (!ok(r) && r.value !== undefined) failedCost = Math.max(1, before - ctx.nodes);
  }
  ctx.nodes -= 1;
  return { has: true, value: items, notes };
}

// ---------------------------------------------------------------------------------------------
// Public API
// ---------------------------------------------------------------------------------------------

interface RootResult {
  ctx: Ctx;
  schema: SchemaObject;
  value: Record<string, unknown>;
  notes: string[];
  valid: boolean;
}

const OBJECT_SCHEMA: SchemaObject = { type: 'object' };
const ROOT: Frame = { path: [], refs: [], minimal: false, depth: 0 };

function describeNonSchema(x: unknown): string {
  if (x === null) return 'null';
  if (x === undefined) return 'missing';
  if (Array.isArray(x)) return 'an array';
  if (typeof x === 'boolean') return `\`${x}\``;
  return `a ${typeof x}`;
}

function generateRoot(inputSchema: SchemaObject): RootResult {
  const ctx = makeCtx(inputSchema);
  const notes: string[] = [];
  let value: Record<string, unknown> = {};
  let valid = false;
  try {
    const { types, explicit } = typeOrder(expand([inputSchema], ctx, ROOT).conj);
    if (explicit && !types.includes('object')) notes.push(`inputSchema has type ${show(types.length ? types : inputSchema.type)}, not "object"; arguments are always an object`);
    const r = generate([inputSchema, OBJECT_SCHEMA], ctx, ROOT, '', 0);
    if (r.has && isObj(r.value)) value = r.value;
    else if (r.has) notes.push(`arguments: generated ${show(r.value)}, which is not an object; sent {}`);
    notes.push(...r.notes);
    ctx.steps = ARGUMENT_LIMITS.maxValidationSteps;
    valid = validAll([inputSchema], value, ctx);
    if (!valid && notes.length === 0) notes.push(`arguments: the generated value fails "${ctx.failure ?? 'the schema'}"`);
  } catch (e) {
    notes.push(
      e instanceof LimitError
        ? `arguments: ${e.message}; gave up`
        : `arguments: internal error while generating (${e instanceof Error ? e.message : String(e)})`,
    );
    valid = false;
  }
  return { ctx, schema: inputSchema, value, notes: [...new Set(notes)], valid };
}

// ---------------------------------------------------------------------------------------------
// Memo: generation is a pure function of the schema, and the tools of a server often share one shape
// ---------------------------------------------------------------------------------------------

/** Schemas whose JSON text is longer than this are not remembered (the key would cost more than it saves). */
const MEMO_MAX_KEY = 20_000;
const MEMO_MAX_ENTRIES = 1000;
const memo = new Map<string, unknown>();

class NotPlainJson extends Error {}

/** A key that tells apart any two plain-JSON schemas; undefined for anything else (then nothing is remembered). */
function memoKey(kind: string, schema: unknown): string | undefined {
  let key: string | undefined;
  try {
    key = JSON.stringify(schema, function (this: unknown, k: string, v: unknown) {
      // Only plain JSON maps one to one onto its text: anything else (undefined, NaN, -0, a toJSON, class
      // instances, holes) could make two different schemas look alike. (Schemas come from JSON.parse.)
      if ((this as Record<string, unknown>)[k] !== v) throw new NotPlainJson(); // a toJSON replaced it
      switch (typeof v) {
        case 'string': case 'boolean': return v;
        case 'number': if (!Number.isFinite(v) || Object.is(v, -0)) throw new NotPlainJson(); return v;
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
        default: throw new NotPlainJson();
      }
    });
  } catch {
    return undefined;
  }
  if (key === undefined || key.length > MEMO_MAX_KEY) return undefined;
  return kind + '\u0000' + key;
}

/** A deep copy of a generated value (callers get their own objects, as without the memo). */
function copyValue<T>(v: T): T {
  if (v === null || typeof v !== 'object') return v;
  if (Array.isArray(v)) return v.map(copyValue) as T;
  const out: Record<string, unknown> = {};
  for (const k of Object.keys(v)) setProp(out, k, copyValue((v as Record<string, unknown>)[k]));
  return out as T;
}

function memoized<R>(kind: string, schema: unknown, compute: () => R, copy: (r: R) => R): R {
  const key = memoKey(kind, schema);
  if (key === undefined) return compute();
  if (memo.has(key)) return copy(memo.get(key) as R);
  const r = compute();
  if (memo.size >= MEMO_MAX_ENTRIES) memo.clear();
  memo.set(key, copy(r));
  return r;
}

const copyGenerated = (r: GeneratedArguments): GeneratedArguments => ({ value: copyValue(r.value), notes: [...r.notes], confident: r.confident });
const copyInvalid = (r: InvalidArguments | undefined): InvalidArguments | undefined => (r ? { value: copyValue(r.value), description: r.description, property: r.property } : undefined);

/** Generates arguments that satisfy `inputSchema` (as far as possible; see `notes`). Never throws. */
export function generateArguments(inputSchema: unknown): GeneratedArguments {
  return memoized('valid', inputSchema, () => generateArgumentsUncached(inputSchema), copyGenerated);
}

function generateArgumentsUncached(inputSchema: unknown): GeneratedArguments {
  if (!isObj(inputSchema)) {
    return {
      value: {},
      notes: [`inputSchema is ${describeNonSchema(inputSchema)}, not a JSON Schema object; sent {}`],
      confident: false,
    };
  }
  const r = generateRoot(inputSchema);
  return { value: r.value, notes: r.notes, confident: r.valid && r.notes.length === 0 };
}

function rootConj(r: RootResult): SchemaObject[] {
  return expand([r.schema], r.ctx, ROOT).conj;
}

/** Checks that `value` fails the schema but passes when `property` is disregarded. */
function failsOnlyBecauseOf(r: RootResult, value: Record<string, unknown>, property: string): boolean {
  try {
    r.ctx.steps = ARGUMENT_LIMITS.maxValidationSteps;
    return !validAll([r.schema], value, r.ctx) && validAll([r.schema], value, r.ctx, property);
  } catch {
    return false;
  }
}

/** Valid arguments with one required property left out; undefined if the schema requires nothing. */
export function missingRequiredArguments(inputSchema: unknown): InvalidArguments | undefined {
  return memoized('missing-required', inputSchema, () => missingRequiredUncached(inputSchema), copyInvalid);
}

function missingRequiredUncached(inputSchema: unknown): InvalidArguments | undefined {
  if (!isObj(inputSchema)) return undefined;
  try {
    const r = generateRoot(inputSchema);
    const required = new Set<string>();
    for (const s of rootConj(r)) {
      const req = own(s, 'required');
      if (Array.isArray(req)) for (const k of req.slice(0, 10_000)) if (typeof k === 'string') required.add(k);
    }
    let fallback: InvalidArguments | undefined;
    for (const property of [...required].slice(0, 200)) {
      const value: Record<string, unknown> = {};
      for (const k of Object.keys(r.value)) if (k !== property) setProp(value, k, r.value[k]);
      const description = `argument ${JSON.stringify(property)} left out (required)`;
      if (failsOnlyBecauseOf(r, value, property)) return { value, description, property };
      fallback ??= { value, description: `${description}; the other arguments may not be valid either`, property };
    }
    return fallback;
  } catch {
    return undefined;
  }
}

const WRONG_STRING: Record<string, string> = {
  integer: 'not-a-number',
  number: 'not-a-number',
  boolean: 'not-a-boolean',
  object: 'not-an-object',
  array: 'not-an-array',
  null: 'not-null',
};

/** The JSON types a property's schema definitely requires (from `type`, or enum/const of one type). */
function definiteTypes(schemas: unknown[], ctx: Ctx): string[] | undefined {
  const ex = expand(schemas, ctx, ROOT);
  if (ex.never || ex.conj.length === 0) return undefined;
  const { types, explicit } = typeOrder(ex.conj);
  if (explicit) return types.length ? types : undefined;
  const values: unknown[] = [];
  for (const s of ex.conj) {
    if (hasOwn(s, 'const')) values.push(s.const);
    const en = own(s, 'enum');
    if (Array.isArray(en)) values.push(...en);
  }
  if (values.length === 0) return undefined;
  const kinds = new Set(values.map((v) => jsonTypeOf(v)));
  if (kinds.has('other')) return undefined;
  if (kinds.size === 2 && kinds.has('integer') && kinds.has('number')) return ['number'];
  return kinds.size === 1 ? [...kinds] : undefined;
}

function wrongValueFor(types: string[]): { kind: string; value: unknown } {
  const allows = (kind: string) => types.includes(kind) || (kind === 'number' && types.includes('integer'));
  const options: { kind: string; value: unknown }[] = [
    { kind: 'string', value: WRONG_STRING[types[0]] ?? 'not-valid' },
    { kind: 'number', value: 42 },
    { kind: 'boolean', value: true },
    { kind: 'object', value: {} },
    { kind: 'array', value: [] },
    { kind: 'null', value: null },
  ];
  return options.find((o) => !allows(o.kind)) ?? options[0];
}

/** Valid arguments except that one property has a value of the wrong JSON type; undefined if no property has a definite type. */
export function wrongTypeArguments(inputSchema: unknown): InvalidArguments | undefined {
  return memoized('wrong-type', inputSchema, () => wrongTypeUncached(inputSchema), copyInvalid);
}

function wrongTypeUncached(inputSchema: unknown): InvalidArguments | undefined {
  if (!isObj(inputSchema)) return undefined;
  try {
    const r = generateRoot(inputSchema);
    const conj = rootConj(r);
    const names = new Set<string>(); // required first, then the other declared properties
    for (const s of conj) {
      const req = own(s, 'required');
      if (Array.isArray(req)) for (const k of req.slice(0, 10_000)) if (typeof k === 'string') names.add(k);
    }
    for (const s of conj) {
      const props = own(s, 'properties');
      if (isObj(props)) for (const k of Object.keys(props).slice(0, 10_000)) names.add(k);
    }
    let fallback: InvalidArguments | undefined;
    for (const property of [...names].slice(0, 200)) {
      const schemas = propertySchemas(conj, property, r.ctx);
      const types = definiteTypes(schemas, r.ctx);
      if (!types) continue;
      const wrong = wrongValueFor(types);
      r.ctx.steps = ARGUMENT_LIMITS.maxValidationSteps;
      if (validAll(schemas, wrong.value, r.ctx)) continue; // not actually wrong for this property
      const value: Record<string, unknown> = {};
      for (const k of Object.keys(r.value)) setProp(value, k, r.value[k]);
      setProp(value, property, wrong.value);
      const sent = wrong.value === null ? 'null' : `${wrong.kind} ${JSON.stringify(wrong.value)}`;
      const description = `argument ${JSON.stringify(property)} sent as ${sent} where the schema wants ${types.join(' or ')}`;
      if (failsOnlyBecauseOf(r, value, property)) return { value, description, property };
      fallback ??= { value, description: `${description}; the other arguments may not be valid either`, property };
    }
    return fallback;
  } catch {
    return undefined;
  }
}
