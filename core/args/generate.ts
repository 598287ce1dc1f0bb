/**
 * Generation of a value for a conjunction of schemas: `$ref`/`allOf` flattening, anyOf/oneOf and if/then/else
 * branches, the choice of type, preferred values (const, default, examples, enum). The value of each type is made in
 * numbers.ts, strings.ts, objects.ts and arrays.ts; every candidate is checked by validate.ts.
 */
import { synthArray } from './arrays.js';
import type { Ctx } from './context.js';
import { cloneJson, deepEqual, hasOwn, isObj, own, pathText, show } from './json.js';
import { ARGUMENT_LIMITS } from './limits.js';
import { synthNumber } from './numbers.js';
import { synthObject } from './objects.js';
import { REF_KEYWORDS, refTarget } from './refs.js';
import { synthString } from './strings.js';
import type { SchemaObject } from './types.js';
import { none, NUMBER_KEYWORDS, ok, pickScalar, type Frame, type Gen } from './frame.js';
export { child, none, NUMBER_KEYWORDS, ok, pickScalar, type Frame, type Gen } from './frame.js';
import { validAll, validate } from './validate.js';

export interface Expanded {
  conj: SchemaObject[];
  never: boolean;
  stop: boolean;
  notes: string[];
  frame: Frame;
}

/** Flattens schemas into a conjunction of schema objects, following `$ref` and `allOf`. */
export function expand(schemas: readonly unknown[], ctx: Ctx, frame: Frame): Expanded {
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

export function generate(schemas: readonly unknown[], ctx: Ctx, frame: Frame, hint: string, variant: number): Gen {
  const where = pathText(frame.path);
  if (ctx.nodes <= 0) return none([`${where}: output size limit reached; value left out`]);
  if (frame.depth > ARGUMENT_LIMITS.maxDepth) return none([`${where}: nested too deeply; value left out`]);
  const ex = expand(schemas, ctx, frame);
  if (ex.never) return none([...ex.notes, `${where}: the schema allows no value at all`]);
  if (ex.stop) return none([...ex.notes, `${where}: recursive $ref nested too deeply; no finite value found`]);
  const r = genConj(ex.conj, ctx, ex.frame, hint, variant, new Set());
  return ex.notes.length ? { ...r, notes: [...ex.notes, ...r.notes] } : r;
}

export function mentionsRef(s: unknown, depth = 0): boolean {
  if (depth > 6 || typeof s !== 'object' || s === null) return false;
  if (Array.isArray(s)) return s.some((x) => mentionsRef(x, depth + 1));
  for (const k of Object.keys(s)) {
    if ((REF_KEYWORDS as readonly string[]).includes(k)) return true;
    if (
      k !== 'enum' &&
      k !== 'const' &&
      k !== 'default' &&
      k !== 'examples' &&
      mentionsRef((s as SchemaObject)[k], depth + 1)
    )
      return true;
  }
  return false;
}

export function genConj(
  conj: SchemaObject[],
  ctx: Ctx,
  frame: Frame,
  hint: string,
  variant: number,
  handled: Set<unknown>,
): Gen {
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
      if (frame.minimal)
        order = [...order.filter((i) => !mentionsRef(branches[i])), ...order.filter((i) => mentionsRef(branches[i]))];
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
      kw === 'not'
        ? '"not" could not be honoured'
        : kw
          ? `the value fails "${kw}"`
          : 'the value does not satisfy every constraint';
    r = { ...r, notes: [`${where}: ${what} (sent ${show(r.value)})`] };
  }
  return r;
}

// --- type selection ---------------------------------------------------------------------------

export const ALL_TYPES = ['object', 'array', 'string', 'number', 'integer', 'boolean', 'null'];
export const OBJECT_KEYWORDS = [
  'properties',
  'required',
  'additionalProperties',
  'patternProperties',
  'minProperties',
  'maxProperties',
  'propertyNames',
  'dependentRequired',
  'dependencies',
];
export const ARRAY_KEYWORDS = [
  'items',
  'prefixItems',
  'additionalItems',
  'minItems',
  'maxItems',
  'uniqueItems',
  'contains',
];
export const STRING_KEYWORDS = ['minLength', 'maxLength', 'pattern', 'format'];

/** Allowed types in the order to try; `explicit` says whether a `type` keyword said so. */
export function typeOrder(conj: readonly SchemaObject[]): { types: string[]; explicit: boolean } {
  let allowed: string[] | undefined;
  for (const s of conj) {
    const t = own(s, 'type');
    const list =
      typeof t === 'string' ? [t] : Array.isArray(t) ? t.filter((x): x is string => typeof x === 'string') : undefined;
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
  for (const t of ['string', 'number', 'boolean', 'object', 'array', 'null'])
    if (!inferred.includes(t)) inferred.push(t);
  return { types: inferred, explicit: false };
}

// --- base generation ---------------------------------------------------------------------------

/** Preferred values: const, default, examples[0], enum; those valid against the whole conjunction. */
export function preferred(
  conj: SchemaObject[],
  ctx: Ctx,
  variant: number,
): { found: unknown[]; pick?: Gen; constrained: boolean } {
  const candidates: unknown[] = [];
  let constrained = false;
  for (const s of conj)
    if (hasOwn(s, 'const')) {
      candidates.push(s.const);
      constrained = true;
    }
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

export function genBase(conj: SchemaObject[], ctx: Ctx, frame: Frame, hint: string, variant: number): Gen {
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

export function synthesize(
  type: string,
  conj: SchemaObject[],
  ctx: Ctx,
  frame: Frame,
  hint: string,
  variant: number,
  exclude: unknown[],
): Gen {
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
      return synthObject(conj, ctx, frame, variant, false, generate);
    case 'array':
      return synthArray(conj, ctx, frame, hint, variant, generate);
    default:
      return none([`${pathText(frame.path)}: unknown type ${show(type)}`]);
  }
}
