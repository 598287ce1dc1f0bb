/**
 * The JSON Schema keywords whose values are schemas themselves, by the shape of the value. One list for every walk over
 * a schema's subschemas (the surface snapshot's normalization, the compat suite's node walk).
 */

/** A schema (and, for `items` before draft 2020-12, also a list of schemas). */
export const SUBSCHEMA_ONE: readonly string[] = [
  'items',
  'additionalProperties',
  'not',
  'if',
  'then',
  'else',
  'contains',
  'propertyNames',
  'unevaluatedProperties',
  'unevaluatedItems',
  'additionalItems',
];

/** A list of schemas. */
export const SUBSCHEMA_LIST: readonly string[] = ['anyOf', 'oneOf', 'allOf', 'prefixItems'];

/** A map from names to schemas. */
export const SUBSCHEMA_MAP: readonly string[] = [
  'properties',
  'patternProperties',
  '$defs',
  'definitions',
  'dependentSchemas',
];
