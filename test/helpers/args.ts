/** Helpers of the argument-generation tests (test/args*.test.ts): ajv as the referee, schema builders. */
import { expect } from 'vitest';
import { Ajv, type ErrorObject } from 'ajv';
import { Ajv2020 } from 'ajv/dist/2020.js';
import addFormatsModule from 'ajv-formats';
import { generateArguments, type GeneratedArguments } from '../../core/args/index.js';

// ajv-formats is CommonJS: under NodeNext the default import is `module.exports`, which also has `.default`.
export const addFormats = ((addFormatsModule as unknown as { default?: unknown }).default ?? addFormatsModule) as (
  ajv: Ajv | Ajv2020,
) => unknown;

export type Schema = Record<string, unknown>;

export function makeAjv(schema: unknown, dialect?: '2020-12' | 'draft-07'): Ajv | Ajv2020 {
  const declared = typeof schema === 'object' && schema !== null ? (schema as Schema).$schema : undefined;
  const is2020 =
    dialect === '2020-12' || (dialect === undefined && typeof declared === 'string' && declared.includes('2020-12'));
  const ajv = is2020
    ? new Ajv2020({ strict: false, allErrors: true, logger: false })
    : new Ajv({ strict: false, allErrors: true, logger: false });
  addFormats(ajv);
  return ajv;
}

/** ajv errors of `value` against `schema` ([] when valid). */
export function errorsOf(schema: unknown, value: unknown, dialect?: '2020-12' | 'draft-07'): ErrorObject[] {
  const validate = makeAjv(schema, dialect).compile(schema as Schema);
  return validate(value) ? [] : [...(validate.errors ?? [])];
}

export function expectValid(schema: unknown, value: unknown, dialect?: '2020-12' | 'draft-07'): void {
  expect(errorsOf(schema, value, dialect), `${JSON.stringify(value)} should be valid`).toEqual([]);
}

/** Generated arguments must validate, and (unless told otherwise) be confident with no notes. */
export function gen(
  schema: unknown,
  opts: { dialect?: '2020-12' | 'draft-07'; confident?: boolean } = {},
): GeneratedArguments {
  const r = generateArguments(schema);
  expectValid(schema, r.value, opts.dialect);
  if (opts.confident !== false) {
    expect(r.notes).toEqual([]);
    expect(r.confident).toBe(true);
  }
  expect(generateArguments(schema)).toEqual(r); // deterministic
  return r;
}

export function pointerOf(property: string): string {
  return `/${property.replace(/~/g, '~0').replace(/\//g, '~1')}`;
}

/** `value` is invalid, every error concerns `property`, and without `property` it would be valid. */
export function expectFailsOnlyOn(
  schema: Schema,
  value: Record<string, unknown>,
  property: string,
  dialect?: '2020-12' | 'draft-07',
): void {
  const errors = errorsOf(schema, value, dialect);
  expect(errors.length, 'should be invalid').toBeGreaterThan(0);
  const ptr = pointerOf(property);
  for (const e of errors) {
    const about =
      e.instancePath === ptr ||
      e.instancePath.startsWith(`${ptr}/`) ||
      (e.keyword === 'required' && (e.params as { missingProperty?: string }).missingProperty === property);
    expect(about, `error not about ${property}: ${JSON.stringify(e)}`).toBe(true);
  }
  const without = Object.fromEntries(Object.entries(value).filter(([k]) => k !== property));
  const relaxed = {
    ...schema,
    required: Array.isArray(schema.required) ? schema.required.filter((r) => r !== property) : undefined,
  };
  expect(errorsOf(relaxed, without, dialect)).toEqual([]);
}

export const obj = (properties: Record<string, unknown>, required?: string[], extra: Schema = {}): Schema => ({
  type: 'object',
  properties,
  ...(required ? { required } : {}),
  ...extra,
});

/** Rewrites draft-04 boolean exclusiveMinimum/exclusiveMaximum into the draft-07 numeric form (for ajv). */
export function draft04ToDraft07(schema: unknown): unknown {
  if (Array.isArray(schema)) return schema.map(draft04ToDraft07);
  if (typeof schema !== 'object' || schema === null) return schema;
  const out: Schema = {};
  for (const [k, v] of Object.entries(schema)) out[k] = draft04ToDraft07(v);
  for (const [bool, bound] of [
    ['exclusiveMinimum', 'minimum'],
    ['exclusiveMaximum', 'maximum'],
  ] as const) {
    if (typeof out[bool] !== 'boolean') continue;
    if (out[bool] === true && typeof out[bound] === 'number') {
      out[bool] = out[bound];
      delete out[bound];
    } else delete out[bool];
  }
  return out;
}
