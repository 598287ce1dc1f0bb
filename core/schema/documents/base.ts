/**
 * Builders for the project's own JSON Schemas of the MCP protocol versions, and the few definitions that
 * are spelt the same way in every version.
 *
 * Definitions are plain JSON-Schema objects. References are written with `ref('Name')`, which always
 * produces `#/$defs/Name`; the document assembler (./index.ts) rewrites them to `#/definitions/Name` for the
 * draft-07 versions. Builders always return fresh objects, and the assembler deep-copies everything, so a
 * definition object may be shared freely between the definition tables of several versions.
 */

export type Schema = { [key: string]: unknown };
/** A table of named definitions; version modules derive one table from the previous one. */
export type Defs = { [name: string]: Schema };

export const DEFS_REF_PREFIX = '#/$defs/';

// ---------------------------------------------------------------------------------------------------------
// Primitive builders

export const ref = (name: string): Schema => ({ $ref: DEFS_REF_PREFIX + name });
export const str = (): Schema => ({ type: 'string' });
/** A string with a `format` (uri, uri-template, byte, date-time, ...). */
export const fmt = (format: string): Schema => ({ type: 'string', format });
export const uri = (): Schema => fmt('uri');
export const int = (): Schema => ({ type: 'integer' });
export const num = (): Schema => ({ type: 'number' });
export const bool = (): Schema => ({ type: 'boolean' });
/** A number in [0, 1] (priorities). */
export const unit = (): Schema => ({ type: 'number', minimum: 0, maximum: 1 });
/** Any JSON value. */
export const any = (): Schema => ({});
/** A string constant. */
export const lit = (value: string): Schema => ({ type: 'string', const: value });
/** An integer constant (error codes). */
export const intLit = (value: number): Schema => ({ type: 'integer', const: value });
/** One of a set of strings. */
export const oneOfStr = (...values: string[]): Schema => ({ type: 'string', enum: [...values] });
/** A value of one of several JSON types, e.g. types('string', 'integer'). */
export const types = (...names: string[]): Schema => ({ type: [...names] });
export const arr = (items: Schema): Schema => ({ type: 'array', items });
export const strs = (): Schema => arr(str());
export const anyOf = (...branches: Schema[]): Schema => ({ anyOf: branches });
export const allOf = (...parts: Schema[]): Schema => ({ allOf: parts });
/** anyOf over references. */
export const union = (...names: string[]): Schema => anyOf(...names.map(ref));

/**
 * An object schema. `required` lists required property names (omitted when empty); `extra` adds other
 * keywords (e.g. additionalProperties).
 */
export function obj(properties: { [name: string]: Schema }, required: string[] = [], extra: Schema = {}): Schema {
  const s: Schema = { type: 'object', properties };
  if (required.length > 0) s.required = [...required];
  return { ...s, ...extra };
}

/** An object with no declared properties whose values all match `values`. */
export const record = (values: Schema): Schema => ({ type: 'object', additionalProperties: values });
/** An object of anything (`additionalProperties: {}`), used for `_meta`, arguments, structured content... */
export const anyRecord = (): Schema => record({});
/** The open "object" used for capability flags and metadata bags (`additionalProperties: true`). */
export const openObj = (): Schema => ({ type: 'object', properties: {}, additionalProperties: true });

/** `_meta` of results, content and other entities. */
export const meta = (): Schema => anyRecord();

// ---------------------------------------------------------------------------------------------------------
// Derivation helpers (each returns a new object)

/** The definition with properties added or replaced. */
export function withProps(def: Schema, props: { [name: string]: Schema }, required: string[] = []): Schema {
  const out: Schema = { ...def, properties: { ...(def.properties as object), ...props } };
  if (required.length > 0) out.required = sortedUnique([...((def.required as string[]) ?? []), ...required]);
  return out;
}

/** The definition without the named properties (also dropped from `required`). */
export function withoutProps(def: Schema, ...names: string[]): Schema {
  const props = { ...(def.properties as { [name: string]: Schema }) };
  for (const n of names) delete props[n];
  const out: Schema = { ...def, properties: props };
  const req = ((def.required as string[]) ?? []).filter((r) => !names.includes(r));
  if (req.length > 0) out.required = req;
  else delete out.required;
  return out;
}

/** The definition with a different `required` list. */
export function withRequired(def: Schema, required: string[]): Schema {
  const out: Schema = { ...def };
  if (required.length > 0) out.required = [...required];
  else delete out.required;
  return out;
}

/** A property of an object definition (throws if absent, to catch typos early). */
export function prop(def: Schema, name: string): Schema {
  const p = (def.properties as { [name: string]: Schema } | undefined)?.[name];
  if (!p) throw new Error(`schema builder: no property '${name}'`);
  return p;
}

/** Apply `f` to each named definition of a table, in place (tables are private copies while deriving). */
export function modify(defs: Defs, names: string[], f: (def: Schema, name: string) => Schema): void {
  for (const n of names) {
    const d = defs[n];
    if (!d) throw new Error(`schema builder: no definition '${n}' to modify`);
    defs[n] = f(d, n);
  }
}

/** Remove definitions from a table, in place (throws if one is absent). */
export function remove(defs: Defs, ...names: string[]): void {
  for (const n of names) {
    if (!(n in defs)) throw new Error(`schema builder: no definition '${n}' to remove`);
    delete defs[n];
  }
}

function sortedUnique(xs: string[]): string[] {
  return [...new Set(xs)].sort();
}

// ---------------------------------------------------------------------------------------------------------
// Definitions shared by every version

export const JSONRPC = (): Schema => lit('2.0');

export function commonDefs(): Defs {
  return {
    Cursor: str(),
    RequestId: types('string', 'integer'),
    ProgressToken: types('string', 'integer'),
    Role: oneOfStr('assistant', 'user'),
    LoggingLevel: oneOfStr('alert', 'critical', 'debug', 'emergency', 'error', 'info', 'notice', 'warning'),
    ModelHint: obj({ name: str() }),
    ModelPreferences: obj({
      costPriority: unit(),
      hints: arr(ref('ModelHint')),
      intelligencePriority: unit(),
      speedPriority: unit(),
    }),
  };
}
