/**
 * The generator's own JSON Schema check of values it makes up (draft-07 and 2020-12 keywords; formats checked with
 * ajv-formats' own definitions). Conservative: a value passes only if it is valid under the plausible readings.
 *
 * It exists beside ajv because generation needs what ajv does not offer: sub-schemas checked with `$ref`s resolved
 * against the root, one property disregarded (`skip`), the first failing keyword for notes, and a step budget.
 */
import { fullFormats } from 'ajv-formats/dist/formats.js';
import { regex, type Ctx } from './context.js';
import { cpLength, deepEqual, hasOwn, isNum, isObj, own, typeMatches } from './json.js';
import { LimitError } from './limits.js';
import { REF_KEYWORDS, refTarget } from './refs.js';
import type { Dialect, SchemaObject } from './types.js';

export type FormatCheck = { type: 'string' | 'number'; test: (v: unknown) => boolean };

export const formatChecks = new Map<string, FormatCheck | null>();

export function formatCheck(name: string): FormatCheck | undefined {
  if (formatChecks.has(name)) return formatChecks.get(name) ?? undefined;
  let check: FormatCheck | null = null;
  const table = fullFormats as unknown as Record<string, unknown>;
  const def = hasOwn(table, name) ? table[name] : undefined;
  if (def === true) check = { type: 'string', test: () => true };
  else if (def instanceof RegExp)
    check = {
      type: 'string',
      test: (v) => {
        def.lastIndex = 0;
        return def.test(v as string);
      },
    };
  else if (typeof def === 'function')
    check = { type: 'string', test: (v) => Boolean((def as (x: unknown) => unknown)(v)) };
  else if (isObj(def)) {
    const validate = own(def, 'validate');
    const type = own(def, 'type') === 'number' ? 'number' : 'string';
    if (validate instanceof RegExp)
      check = {
        type,
        test: (v) => {
          validate.lastIndex = 0;
          return validate.test(String(v));
        },
      };
    else if (typeof validate === 'function')
      check = { type, test: (v) => Boolean((validate as (x: unknown) => unknown)(v)) };
  }
  formatChecks.set(name, check);
  return check ?? undefined;
}

/** Schemas that item `i` of an array must satisfy according to schema `s` (both tuple forms). */
export function itemSchemas(s: SchemaObject, i: number, dialect: Dialect): unknown[] {
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

export function multipleOk(x: number, m: number): boolean {
  const q = x / m; // same test as ajv: result !== parseInt(result)
  return q === parseInt(String(q), 10);
}

export function evaluatedNames(
  s: unknown,
  ctx: Ctx,
  out: { names: Set<string>; patterns: string[] },
  depth: number,
): void {
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
export function validate(schema: unknown, value: unknown, ctx: Ctx, skip?: string, quiet = false): boolean {
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

export function fail(ctx: Ctx, quiet: boolean, keyword: string): false {
  if (!quiet && ctx.failure === undefined) ctx.failure = keyword;
  return false;
}

export function validateIn(s: SchemaObject, v: unknown, ctx: Ctx, skip: string | undefined, quiet: boolean): boolean {
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

export interface NumberBounds {
  lo: number;
  loEx: boolean;
  hi: number;
  hiEx: boolean;
  multiples: number[];
}

export function addBounds(b: NumberBounds, s: SchemaObject): void {
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

export function inBounds(b: NumberBounds, x: number): boolean {
  if (!Number.isFinite(x)) return false;
  if (b.loEx ? !(x > b.lo) : !(x >= b.lo)) return false;
  if (b.hiEx ? !(x < b.hi) : !(x <= b.hi)) return false;
  return b.multiples.every((m) => multipleOk(x, m));
}

export function validateNumber(s: SchemaObject, v: number): boolean {
  const b: NumberBounds = { lo: -Infinity, loEx: false, hi: Infinity, hiEx: false, multiples: [] };
  addBounds(b, s);
  return inBounds(b, v);
}

/** How many items must match `contains`: minContains exists only from 2019-09 on (draft-07 ignores it). */
export function containsMinimum(minContains: unknown, dialect: Dialect): number {
  if (!isNum(minContains)) return 1;
  return dialect === '2020-12' ? minContains : Math.max(minContains, 1);
}

export function validateArray(s: SchemaObject, v: unknown[], ctx: Ctx, quiet: boolean): boolean {
  const minI = own(s, 'minItems');
  const maxI = own(s, 'maxItems');
  if (isNum(minI) && v.length < minI) return fail(ctx, quiet, 'minItems');
  if (isNum(maxI) && v.length > maxI) return fail(ctx, quiet, 'maxItems');
  if (own(s, 'uniqueItems') === true) {
    for (let i = 1; i < v.length; i++)
      for (let j = 0; j < i; j++) if (deepEqual(v[i], v[j])) return fail(ctx, quiet, 'uniqueItems');
  }
  if (hasOwn(s, 'items') || hasOwn(s, 'prefixItems')) {
    for (let i = 0; i < v.length; i++)
      for (const sub of itemSchemas(s, i, ctx.dialect)) if (!validate(sub, v[i], ctx, undefined, quiet)) return false;
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

export function validateObject(
  s: SchemaObject,
  v: SchemaObject,
  ctx: Ctx,
  skip: string | undefined,
  quiet: boolean,
): boolean {
  const keys = Object.keys(v);
  const present = (k: string) => hasOwn(v, k) || k === skip;
  const req = own(s, 'required');
  if (Array.isArray(req))
    for (const k of req) if (typeof k === 'string' && !present(k)) return fail(ctx, quiet, 'required');
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
    if (!matched && ap !== undefined && !validate(ap, v[k], ctx, undefined, quiet))
      return fail(ctx, quiet, 'additionalProperties');
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
export function validAll(conj: readonly unknown[], value: unknown, ctx: Ctx, skip?: string): boolean {
  ctx.failure = undefined;
  for (const s of conj) if (!validate(s, value, ctx, skip)) return false;
  return true;
}
