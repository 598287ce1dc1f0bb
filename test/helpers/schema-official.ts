/**
 * Access to the official MCP JSON Schemas (reference data kept outside the repository, at
 * `<repo>/../shared/mcp-spec`, or MCP_CONFORM_SPEC_DIR), for the differential tests. Nothing here is copied into the product.
 */
import { existsSync, readFileSync, readdirSync } from 'node:fs';
import path from 'node:path';
import { fileURLToPath } from 'node:url';
import type { ProtocolVersion } from '../../core/schema/versions.js';

export const REPO_ROOT = path.resolve(path.dirname(fileURLToPath(import.meta.url)), '..', '..');
/** MCP_CONFORM_SPEC_DIR names another folder (a checkout elsewhere, e.g. a git worktree); without one the tests skip. */
export const SPEC_DIR = path.resolve(
  process.env.MCP_CONFORM_SPEC_DIR || path.join(REPO_ROOT, '..', 'shared', 'mcp-spec'),
);

export function officialSchemasAvailable(): boolean {
  return existsSync(SPEC_DIR);
}

export type JsonObject = { [k: string]: unknown };

const cache = new Map<string, JsonObject>();

/** The official schema document of a version (parsed afresh once; treat as read-only). */
export function officialDocument(v: ProtocolVersion): JsonObject {
  let doc = cache.get(v);
  if (!doc) {
    doc = JSON.parse(readFileSync(path.join(SPEC_DIR, v, 'schema.json'), 'utf8')) as JsonObject;
    cache.set(v, doc);
  }
  return doc;
}

export function officialDefinitions(v: ProtocolVersion): { [name: string]: JsonObject } {
  const doc = officialDocument(v);
  return (doc.$defs ?? doc.definitions) as { [name: string]: JsonObject };
}

/** The official example instances, by definition name (only 2026-07-28 has any). */
export function officialExamples(v: ProtocolVersion): Map<string, { file: string; instance: unknown }[]> {
  const out = new Map<string, { file: string; instance: unknown }[]>();
  const dir = path.join(SPEC_DIR, v, 'examples');
  if (!existsSync(dir)) return out;
  for (const def of readdirSync(dir).sort()) {
    const files = readdirSync(path.join(dir, def))
      .filter((f) => f.endsWith('.json'))
      .sort();
    out.set(
      def,
      files.map((f) => ({ file: `${def}/${f}`, instance: JSON.parse(readFileSync(path.join(dir, def, f), 'utf8')) })),
    );
  }
  return out;
}

/**
 * A schema reduced to what matters for validation, for structural comparison: annotation strings
 * (`description`) dropped, keys sorted, `required` sorted, local references reduced to `#/X`.
 */
export function normaliseSchema(x: unknown): unknown {
  if (Array.isArray(x)) return x.map(normaliseSchema);
  if (x === null || typeof x !== 'object') return x;
  const out: JsonObject = {};
  for (const k of Object.keys(x).sort()) {
    const val = (x as JsonObject)[k];
    if (k === 'description' && typeof val === 'string') continue;
    if (k === 'properties' && val && typeof val === 'object') {
      const props: JsonObject = {};
      for (const pk of Object.keys(val).sort()) props[pk] = normaliseSchema((val as JsonObject)[pk]);
      out[k] = props;
    } else if (k === 'required' && Array.isArray(val)) {
      out[k] = [...val].sort();
    } else if (k === '$ref' && typeof val === 'string') {
      out[k] = val.replace(/^#\/(\$defs|definitions)\//, '#/');
    } else {
      out[k] = normaliseSchema(val);
    }
  }
  return out;
}
