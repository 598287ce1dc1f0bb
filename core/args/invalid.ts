/** Invalid arguments for the invalid-params suite: one required property left out, or one property of the wrong type. */
import { ajvCheck } from './ajv-check.js';
import { generateRoot, ROOT, rootConj, type RootResult } from './arguments.js';
import type { Ctx } from './context.js';
import { expand, typeOrder } from './generate.js';
import { hasOwn, isObj, jsonTypeOf, own, setProp } from './json.js';
import { ARGUMENT_LIMITS } from './limits.js';
import { copyInvalid, memoized } from './memo.js';
import { propertySchemas } from './objects.js';
import type { InvalidArguments } from './types.js';
import { validAll } from './validate.js';

/**
 * Checks that `value` fails the schema (by ajv where it can read the schema) but passes when `property` is
 * disregarded (by the generator's own check: ajv has no way to disregard one property).
 */
export function failsOnlyBecauseOf(r: RootResult, value: Record<string, unknown>, property: string): boolean {
  try {
    r.ctx.steps = ARGUMENT_LIMITS.maxValidationSteps;
    const fails = !(ajvCheck(r.schema, value)?.valid ?? validAll([r.schema], value, r.ctx));
    return fails && validAll([r.schema], value, r.ctx, property);
  } catch {
    return false;
  }
}

/** Valid arguments with one required property left out; undefined if the schema requires nothing. */
export function missingRequiredArguments(inputSchema: unknown): InvalidArguments | undefined {
  return memoized('missing-required', inputSchema, () => missingRequiredUncached(inputSchema), copyInvalid);
}

export function missingRequiredUncached(inputSchema: unknown): InvalidArguments | undefined {
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

export const WRONG_STRING: Record<string, string> = {
  integer: 'not-a-number',
  number: 'not-a-number',
  boolean: 'not-a-boolean',
  object: 'not-an-object',
  array: 'not-an-array',
  null: 'not-null',
};

/** The JSON types a property's schema definitely requires (from `type`, or enum/const of one type). */
export function definiteTypes(schemas: unknown[], ctx: Ctx): string[] | undefined {
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

export function wrongValueFor(types: string[]): { kind: string; value: unknown } {
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

export function wrongTypeUncached(inputSchema: unknown): InvalidArguments | undefined {
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
