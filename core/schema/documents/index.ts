/**
 * The project's own JSON Schema documents for the MCP protocol versions (written by hand in this folder,
 * checked against the official schemas by test/schema-differential.test.ts).
 *
 * Each version module returns its table of definitions, derived from the previous version's table; the
 * document of a version is assembled on first use and memoised.
 */
import { dialectOf, type ProtocolVersion } from '../versions.js';
import { DEFS_REF_PREFIX, type Defs } from './base.js';
import { defs20241105 } from './v2024-11-05.js';
import { defs20250326 } from './v2025-03-26.js';
import { defs20250618 } from './v2025-06-18.js';
import { defs20251125 } from './v2025-11-25.js';
import { defs20260728 } from './v2026-07-28.js';

const BUILDERS: Partial<Record<ProtocolVersion, () => Defs>> = {
  '2024-11-05': defs20241105,
  '2025-03-26': defs20250326,
  '2025-06-18': defs20250618,
  '2025-11-25': defs20251125,
  '2026-07-28': defs20260728,
};

const DIALECT_URI = {
  'draft-07': 'http://json-schema.org/draft-07/schema#',
  '2020-12': 'https://json-schema.org/draft/2020-12/schema',
} as const;

const cache = new Map<ProtocolVersion, Record<string, unknown>>();
/** The documents built here (checked by the tests against the JSON Schema meta-schema and the official schemas). */
const builtIn = new WeakSet<object>();

/** True for a document returned by schemaDocument (the object itself, not a copy). */
export function isBuiltInDocument(doc: object): boolean {
  return builtIn.has(doc);
}

/** True when the project has a schema document for this version. */
export function hasSchemaDocument(v: ProtocolVersion): boolean {
  return BUILDERS[v] !== undefined;
}

/** The `$id` of the project's schema document of a version. */
function schemaDocumentId(v: ProtocolVersion): string {
  return `urn:mcp-conform:schema:${v}`;
}

/** The key the definitions live under in the document of a version. */
function definitionsKey(v: ProtocolVersion): 'definitions' | '$defs' {
  return dialectOf(v) === 'draft-07' ? 'definitions' : '$defs';
}

/**
 * The complete JSON Schema document of a version: `$schema` (the dialect of the official schema), `$id`
 * (`urn:mcp-conform:schema:<version>`) and the definitions under `definitions` (draft-07) or `$defs`
 * (2020-12). The returned object is shared and deeply frozen.
 */
export function schemaDocument(v: ProtocolVersion): Record<string, unknown> {
  const hit = cache.get(v);
  if (hit) return hit;
  const build = BUILDERS[v];
  if (!build) {
    const done = Object.keys(BUILDERS).join(', ');
    throw new Error(`mcp-conform has no schema document for MCP protocol version ${v} yet (available: ${done})`);
  }
  const key = definitionsKey(v);
  const defs = build();
  const sorted: Record<string, unknown> = {};
  for (const name of Object.keys(defs).sort()) sorted[name] = copyWithRefs(defs[name], `#/${key}/`);
  const doc = deepFreeze({ $schema: DIALECT_URI[dialectOf(v)], $id: schemaDocumentId(v), [key]: sorted });
  cache.set(v, doc);
  builtIn.add(doc);
  return doc;
}

/** The names of the definitions of a version, sorted. */
export function definitionNames(v: ProtocolVersion): string[] {
  return Object.keys(schemaDocument(v)[definitionsKey(v)] as object);
}

/** Deep copy, rewriting the builders' `#/$defs/X` references to the document's definitions key. */
function copyWithRefs(x: unknown, prefix: string): unknown {
  if (Array.isArray(x)) return x.map((e) => copyWithRefs(e, prefix));
  if (x !== null && typeof x === 'object') {
    const out: Record<string, unknown> = {};
    for (const [k, val] of Object.entries(x)) {
      out[k] =
        k === '$ref' && typeof val === 'string' && val.startsWith(DEFS_REF_PREFIX)
          ? prefix + val.slice(DEFS_REF_PREFIX.length)
          : copyWithRefs(val, prefix);
    }
    return out;
  }
  return x;
}

function deepFreeze<T>(x: T): T {
  if (x !== null && typeof x === 'object' && !Object.isFrozen(x)) {
    for (const val of Object.values(x)) deepFreeze(val);
    Object.freeze(x);
  }
  return x;
}
