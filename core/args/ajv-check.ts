/**
 * The check of finished arguments against a tool's whole inputSchema, by ajv (the validator the rest of the harness
 * uses, core/schema/ajv.ts): does the value a server will receive satisfy its schema?
 *
 * A schema that declares its dialect (`$schema`) is checked in that dialect; one that does not is checked in both
 * draft-07 and 2020-12 and must pass both (a server may read it either way). A dialect in which ajv cannot compile
 * the schema (a draft-04 `exclusiveMinimum: true`, an unresolvable `$ref`, a pattern that is not a valid "u" regular
 * expression...) is left out; when no dialect compiles, the schema declares another dialect (draft-04, 2019-09), or
 * it names a property `__proto__` (which ajv disregards), `undefined` tells the caller to use its own check
 * (validate.ts), which reads such schemas leniently.
 */
import type { Ajv, ValidateFunction } from 'ajv';
import { newAjv, type Dialect } from '../schema/ajv.js';
import { own } from './json.js';
import type { SchemaObject } from './types.js';

export interface AjvVerdict {
  valid: boolean;
  /** The keyword of the first error, when invalid. */
  keyword?: string;
}

/** Compiled schemas remembered at most (then the ajv instances are dropped and made anew, freeing what they hold). */
const MAX_COMPILED = 500;

let instances = new Map<Dialect, Ajv>();
let compiled = new WeakMap<SchemaObject, ValidateFunction[]>();
let compiledCount = 0;

function instance(dialect: Dialect): Ajv {
  let ajv = instances.get(dialect);
  if (!ajv) {
    ajv = newAjv(dialect, {
      strict: false,
      allErrors: false,
      validateSchema: false,
      addUsedSchema: false,
      ownProperties: true,
      logger: false,
    });
    instances.set(dialect, ajv);
  }
  return ajv;
}

/** The dialects a schema is to be read in: the one it declares, both when it declares none; none for other dialects. */
function dialectsOf(schema: SchemaObject): Dialect[] {
  const declared = own(schema, '$schema');
  if (declared === undefined) return ['draft-07', '2020-12'];
  if (typeof declared !== 'string') return [];
  if (declared.includes('2020-12')) return ['2020-12'];
  if (/draft-0[67]/.test(declared)) return ['draft-07'];
  return []; // draft-04, 2019-09...: ajv would read some of their keywords differently (exclusiveMinimum, $recursiveRef)
}

function compile(schema: SchemaObject): ValidateFunction[] {
  const hit = compiled.get(schema);
  if (hit) return hit;
  if (compiledCount >= MAX_COMPILED) {
    instances = new Map();
    compiled = new WeakMap();
    compiledCount = 0;
  }
  // ajv must not see `$schema` (it would look the meta-schema up) nor a top-level `$id` (two tools' ids would collide).
  const copy: SchemaObject = { ...schema };
  delete copy.$schema;
  delete copy.$id;
  const fns: ValidateFunction[] = [];
  // ajv disregards a property named `__proto__` (a guard against prototype pollution): leave such schemas to validate.ts.
  let text: string | undefined;
  try {
    text = JSON.stringify(schema);
  } catch {
    text = undefined;
  }
  const dialects = text === undefined || text.includes('"__proto__"') ? [] : dialectsOf(schema);
  for (const dialect of dialects) {
    try {
      fns.push(instance(dialect).compile(copy));
    } catch {
      /* ajv cannot read the schema in this dialect */
    }
  }
  compiled.set(schema, fns);
  compiledCount++;
  return fns;
}

/** ajv's verdict on `value` against `schema`; undefined when ajv cannot compile the schema in any plausible dialect. */
export function ajvCheck(schema: SchemaObject, value: unknown): AjvVerdict | undefined {
  const fns = compile(schema);
  if (fns.length === 0) return undefined;
  for (const fn of fns) {
    let valid: boolean;
    try {
      valid = fn(value) as boolean;
    } catch {
      return undefined;
    }
    if (!valid) return { valid: false, keyword: fn.errors?.[0]?.keyword };
  }
  return { valid: true };
}
