/**
 * JSON Schemas that servers send (tool inputSchema / outputSchema): meta-validation and compilation, with the
 * dialect chosen from `$schema`, else by the protocol version (2020-12 from 2025-11-25 on, draft-07 before).
 */
import type { Ajv, ErrorObject, ValidateFunction } from 'ajv';
import { newAjv, type Dialect } from './schema/ajv.js';
import { META_SCHEMA_ID, precompiledMetaSchema, workbenchAjvOptions } from './schema/precompiled.js';
import { toViolations } from './schema/validator.js';
import type { SchemaViolation } from './log.js';

export type { Dialect };

export interface PreparedSchema {
  dialect: Dialect;
  /** Problems with the schema itself (meta-schema violations, unresolvable refs). Empty when usable. */
  problems: string[];
  /** Notes that are not problems (e.g. an unknown $schema treated as draft-07). */
  notes: string[];
  /**
   * `$ref`s to a URI outside the schema (another document, a network address): never fetched (2026-07-28 forbids
   * dereferencing network URIs by default), so the schema cannot be used to validate. Not a problem of the schema's
   * validity: a client should reject such a schema (basic#ref-resolution, SHOULD).
   */
  externalRefs: string[];
  validate?: (value: unknown) => SchemaViolation[];
}

/** One per run: holds two ajv instances, compiles each distinct schema once. */
export class SchemaWorkbench {
  private ajv07?: Ajv;
  private ajv2020?: Ajv;
  private readonly cache = new Map<string, PreparedSchema>();

  constructor(private readonly defaultDialect: Dialect) {}

  private instance(d: Dialect): Ajv {
    if (d === 'draft-07') return (this.ajv07 ??= newAjv(d, workbenchAjvOptions()));
    return (this.ajv2020 ??= newAjv(d, workbenchAjvOptions()));
  }

  /**
   * The meta-schema check of ajv.validateSchema(s), by the validator the build generated for the dialect's
   * meta-schema when there is one and `$schema` names that meta-schema (or is absent): ajv would pick the same
   * schema. Anything else (another spelling, a fragment, a non-string) goes through ajv itself.
   */
  private metaCheck(d: Dialect, s: Record<string, unknown>): { ok: boolean; errors: ErrorObject[] | null | undefined } {
    const declared = s.$schema;
    const id = META_SCHEMA_ID[d];
    const pre =
      declared === undefined || declared === id || declared === `${id}#` ? precompiledMetaSchema(d) : undefined;
    if (pre) {
      const ok = pre(s) as boolean;
      return { ok, errors: pre.errors };
    }
    const ajv = this.instance(d);
    const ok = ajv.validateSchema(s) as boolean;
    return { ok, errors: ajv.errors };
  }

  prepare(schema: unknown): PreparedSchema {
    let key: string;
    try {
      key = JSON.stringify(schema) ?? 'undefined';
    } catch {
      key = String(Math.random());
    }
    const hit = this.cache.get(key);
    if (hit) return hit;
    const prepared = this.build(schema);
    this.cache.set(key, prepared);
    return prepared;
  }

  private build(schema: unknown): PreparedSchema {
    const notes: string[] = [];
    if (typeof schema === 'boolean')
      return {
        dialect: this.defaultDialect,
        problems: [],
        notes,
        externalRefs: [],
        validate: (_v) => (schema ? [] : [{ pointer: '', message: 'the schema `false` accepts nothing' }]),
      };
    if (schema === null || typeof schema !== 'object' || Array.isArray(schema)) {
      return {
        dialect: this.defaultDialect,
        problems: [
          `not a JSON Schema object (got ${schema === null ? 'null' : Array.isArray(schema) ? 'an array' : typeof schema})`,
        ],
        notes,
        externalRefs: [],
      };
    }
    let s = schema as Record<string, unknown>;
    let dialect = this.defaultDialect;
    const declared = typeof s.$schema === 'string' ? s.$schema : undefined;
    if (declared) {
      if (/draft-07|draft-06/.test(declared)) dialect = 'draft-07';
      else if (/2020-12/.test(declared)) dialect = '2020-12';
      else {
        notes.push(`$schema "${declared}" is not a dialect this tool checks; checked as ${dialect} instead`);
        s = { ...s };
        delete s.$schema;
      }
    }
    // A string $id stays (a $ref may name the schema by it) and is taken out of the ajv again after compiling, so that
    // another tool's schema with the same $id does not collide with it; another $id is not a usable base: dropped.
    const id = typeof s.$id === 'string' && s.$id !== '' ? s.$id : undefined;
    if ('$id' in s && !id) {
      s = { ...s };
      delete s.$id;
    }
    const problems: string[] = [];
    let metaOk: boolean;
    let metaErrors: ErrorObject[] | null | undefined;
    try {
      ({ ok: metaOk, errors: metaErrors } = this.metaCheck(dialect, s));
    } catch (e) {
      metaOk = false;
      metaErrors = undefined;
      problems.push(`meta-schema check failed: ${(e as Error).message}`);
    }
    if (!metaOk && metaErrors) {
      for (const v of toViolations(metaErrors)) problems.push(`${v.pointer || '(root)'}: ${v.message}`);
    }
    let fn: ValidateFunction | undefined;
    const externalRefs: string[] = [];
    if (problems.length === 0) {
      const ajv = this.instance(dialect);
      try {
        if (id) ajv.removeSchema(id);
        fn = ajv.compile(s);
      } catch (e) {
        const missing = (e as { missingSchema?: unknown }).missingSchema;
        const base = id?.replace(/#.*$/, '');
        if (typeof missing === 'string' && missing !== '' && missing !== base)
          externalRefs.push((e as { missingRef?: string }).missingRef ?? missing);
        else problems.push(`does not compile: ${(e as Error).message}`);
      } finally {
        if (id) ajv.removeSchema(id);
      }
    }
    const validate = fn ? (value: unknown) => (fn!(value) ? [] : toViolations(fn!.errors ?? [])) : undefined;
    return { dialect, problems, notes, externalRefs, validate };
  }
}
