/**
 * Differential tests: the project's own JSON Schemas (core/schema/documents) against the official MCP
 * schemas, read at run time from `<repo>/../shared/mcp-spec` (skipped when that folder is missing).
 *
 * For every finished version and every definition, instances generated from the OFFICIAL schema (valid
 * variants and schema-blind mutations of them) and the official examples are validated by ajv against both
 * schemas; the verdicts must agree. The definition names, and the structure of every definition once
 * annotations are dropped, must be identical too.
 */
import { isDeepStrictEqual } from 'node:util';
import { describe, expect, test } from 'vitest';
import { Ajv, type ValidateFunction } from 'ajv';
import { Ajv2020 } from 'ajv/dist/2020.js';
import addFormatsModule from 'ajv-formats';
import { PROTOCOL_VERSIONS, dialectOf, type ProtocolVersion } from '../core/schema/versions.js';
import { definitionNames, hasSchemaDocument, schemaDocument } from '../core/schema/documents/index.js';
import {
  SPEC_DIR,
  normaliseSchema,
  officialDefinitions,
  officialDocument,
  officialExamples,
  officialSchemasAvailable,
  type JsonObject,
} from './helpers/schema-official.js';
import { generateVariants, mutations, type Json } from './helpers/schema-generate.js';

const addFormats = ((addFormatsModule as unknown as { default?: unknown }).default ?? addFormatsModule) as (
  ajv: Ajv,
) => unknown;

const AVAILABLE = officialSchemasAvailable();
if (!AVAILABLE) {
  console.warn(`schema-differential: official MCP schemas not found at ${SPEC_DIR}; differential tests skipped`);
}

/** Variants generated per definition, mutations per variant (the first variants get the most). */
const MAX_VARIANTS = 40;
const MUTATIONS_FIRST = 300;
const MUTATIONS_OTHER = 60;

/** The version whose folder holds the official examples. */
const EXAMPLES_VERSION: ProtocolVersion = '2026-07-28';

const defsKey = (v: ProtocolVersion) => (dialectOf(v) === 'draft-07' ? 'definitions' : '$defs');

function newAjv(v: ProtocolVersion): Ajv {
  const opts = { strict: false, allErrors: false };
  const ajv = dialectOf(v) === 'draft-07' ? new Ajv(opts) : (new Ajv2020(opts) as unknown as Ajv);
  addFormats(ajv);
  return ajv;
}

/** Validators for every definition of a document (which must have an `$id`). */
function validators(v: ProtocolVersion, doc: JsonObject): (name: string) => ValidateFunction {
  const ajv = newAjv(v);
  ajv.addSchema(doc);
  const id = doc.$id as string;
  const cache = new Map<string, ValidateFunction>();
  return (name) => {
    let fn = cache.get(name);
    if (!fn) {
      fn = ajv.getSchema(`${id}#/${defsKey(v)}/${name}`);
      if (!fn) throw new Error(`no definition ${name} in ${id}`);
      cache.set(name, fn);
    }
    return fn;
  };
}

const officialWithId = (v: ProtocolVersion): JsonObject => ({
  ...officialDocument(v),
  $id: `https://mcp-conform.invalid/official-schema/${v}`,
});

interface Disagreement {
  definition: string;
  instance: string;
  value: Json;
  official: boolean;
  ours: boolean;
}

interface Outcome {
  definitions: number;
  examples: number;
  examplesValid: number;
  variants: number;
  variantsValid: number;
  mutationsTotal: number;
  mutationsRejected: number;
  /** instances generated from our schema (catches properties only ours constrains) */
  oursVariants: number;
  oursMutations: number;
  disagreements: Disagreement[];
}

/** Compare the verdicts of the official schema and `ours` on generated instances of the given definitions. */
function differential(v: ProtocolVersion, ours: JsonObject, names: string[]): Outcome {
  const official = officialWithId(v);
  const off = validators(v, official);
  const our = validators(v, ours);
  const offDefs = officialDefinitions(v);
  // the official examples (published for 2026-07-28 only) are judged under every version that has a
  // definition of the same name: the verdicts must agree there too, whatever they are
  const examples = officialExamples(EXAMPLES_VERSION);
  const out: Outcome = {
    definitions: 0,
    examples: 0,
    examplesValid: 0,
    variants: 0,
    variantsValid: 0,
    mutationsTotal: 0,
    mutationsRejected: 0,
    oursVariants: 0,
    oursMutations: 0,
    disagreements: [],
  };
  for (const name of names) {
    out.definitions++;
    const a = off(name);
    const b = our(name);
    const judge = (label: string, value: Json): boolean => {
      const va = a(value) as boolean;
      const vb = b(value) as boolean;
      if (va !== vb) out.disagreements.push({ definition: name, instance: label, value, official: va, ours: vb });
      return va;
    };
    for (const ex of examples.get(name) ?? []) {
      out.examples++;
      if (judge(`${EXAMPLES_VERSION} example ${ex.file}`, ex.instance as Json)) out.examplesValid++;
    }
    const variants = generateVariants(official, offDefs[name], { max: MAX_VARIANTS });
    variants.forEach((variant, i) => {
      out.variants++;
      if (judge(`variant ${variant.label}`, variant.value)) out.variantsValid++;
      for (const m of mutations(variant.value, i < 2 ? MUTATIONS_FIRST : MUTATIONS_OTHER)) {
        out.mutationsTotal++;
        if (!judge(`mutation of ${variant.label}: ${m.label}`, m.value)) out.mutationsRejected++;
      }
    });
    // and the other way round, fewer: instances generated from our schema
    const ourDefs = ours[defsKey(v)] as { [n: string]: JsonObject };
    generateVariants(ours, ourDefs[name], { max: MAX_VARIANTS / 2 }).forEach((variant, i) => {
      out.oursVariants++;
      judge(`variant generated from ours: ${variant.label}`, variant.value);
      for (const m of mutations(variant.value, i < 2 ? MUTATIONS_OTHER : 10)) {
        out.oursMutations++;
        judge(`mutation of variant generated from ours: ${variant.label}: ${m.label}`, m.value);
      }
    });
  }
  return out;
}

function describeDisagreements(ds: Disagreement[], max = 15): string {
  return (
    ds
      .slice(0, max)
      .map(
        (d) =>
          `${d.definition} — ${d.instance}\n    official: ${d.official ? 'valid' : 'invalid'}, ours: ${d.ours ? 'valid' : 'invalid'}\n    instance: ${JSON.stringify(d.value).slice(0, 400)}`,
      )
      .join('\n') + (ds.length > max ? `\n... and ${ds.length - max} more` : '')
  );
}

const FINISHED = PROTOCOL_VERSIONS.filter((v) => hasSchemaDocument(v));

describe('schema documents: public interface', () => {
  test('finished versions have documents with the expected dialect, $id and definitions key', () => {
    expect(FINISHED.length).toBeGreaterThan(0);
    for (const v of FINISHED) {
      const doc = schemaDocument(v);
      expect(doc.$schema).toBe(
        dialectOf(v) === 'draft-07'
          ? 'http://json-schema.org/draft-07/schema#'
          : 'https://json-schema.org/draft/2020-12/schema',
      );
      expect(doc.$id).toBe(`urn:mcp-conform:schema:${v}`);
      expect(Object.keys(doc).sort()).toEqual(['$id', '$schema', defsKey(v)].sort());
      expect(schemaDocument(v)).toBe(doc); // memoised
      // every internal reference points into the document's own definitions
      const refs = JSON.stringify(doc).match(/"\$ref":"[^"]*"/g) ?? [];
      for (const r of refs) expect(r).toMatch(new RegExp(`^"\\$ref":"#/${defsKey(v).replace('$', '\\$')}/[A-Za-z]+"$`));
      // and every reference resolves
      const names = new Set(definitionNames(v));
      for (const r of refs) expect(names.has(r.replace(/^.*\//, '').replace(/"$/, ''))).toBe(true);
    }
  });

  test('versions without a document throw a clear error', () => {
    for (const v of [...PROTOCOL_VERSIONS.filter((x) => !hasSchemaDocument(x)), '1999-01-01' as ProtocolVersion]) {
      expect(hasSchemaDocument(v)).toBe(false);
      expect(() => schemaDocument(v)).toThrow(new RegExp(`no schema document for MCP protocol version ${v}`));
    }
  });
});

describe.skipIf(!AVAILABLE)('schema documents against the official MCP schemas', () => {
  for (const v of PROTOCOL_VERSIONS) {
    describe.skipIf(!hasSchemaDocument(v))(v, () => {
      test('same $schema dialect and the same definition names', () => {
        expect(schemaDocument(v).$schema).toBe(officialDocument(v).$schema);
        expect(definitionNames(v)).toEqual(Object.keys(officialDefinitions(v)).sort());
      });

      test('every definition has the same structure once annotations are dropped', () => {
        const ours = schemaDocument(v)[defsKey(v)] as { [name: string]: unknown };
        const off = officialDefinitions(v);
        const differing = Object.keys(off).filter(
          (n) => n in ours && !isDeepStrictEqual(normaliseSchema(ours[n]), normaliseSchema(off[n])),
        );
        const detail = differing
          .slice(0, 5)
          .map(
            (n) =>
              `${n}\n  ours:     ${JSON.stringify(normaliseSchema(ours[n]))}\n  official: ${JSON.stringify(normaliseSchema(off[n]))}`,
          )
          .join('\n');
        expect(differing, detail).toEqual([]);
      });

      test('same verdicts on examples, generated instances and their mutations', () => {
        const names = Object.keys(officialDefinitions(v)).sort();
        const r = differential(v, schemaDocument(v), names);
        console.log(
          `[schema-differential] ${v}: ${r.definitions} definitions; ` +
            `${r.examples} official examples (${r.examplesValid} valid per official); ` +
            `${r.variants} generated instances (${r.variantsValid} valid per official); ` +
            `${r.mutationsTotal} mutations (${r.mutationsRejected} invalid per official); ` +
            `${r.oursVariants} instances and ${r.oursMutations} mutations generated from ours; ` +
            `${r.disagreements.length} disagreements`,
        );
        expect(r.disagreements, describeDisagreements(r.disagreements)).toEqual([]);
        // every official example belongs to a definition of the version
        if (v === EXAMPLES_VERSION) {
          const unknown = [...officialExamples(v).keys()].filter((n) => !names.includes(n));
          expect(unknown).toEqual([]);
          expect(r.examplesValid).toBe(r.examples);
        }
        // the generator must actually produce valid instances and effective mutations
        expect(r.variantsValid).toBeGreaterThan(r.variants * 0.9);
        expect(r.mutationsRejected).toBeGreaterThan(r.mutationsTotal * 0.2);
      });
    });
  }

  describe.skipIf(!AVAILABLE || !hasSchemaDocument('2025-11-25'))('the differential test detects differences', () => {
    /** A copy of our 2025-11-25 document with one definition altered. */
    function altered(name: string, change: (def: JsonObject) => void): JsonObject {
      const doc = JSON.parse(JSON.stringify(schemaDocument('2025-11-25'))) as JsonObject;
      doc.$id = `urn:mcp-conform:test:altered:${name}`;
      change((doc.$defs as { [n: string]: JsonObject })[name]);
      return doc;
    }
    const cases: [string, string, (d: JsonObject) => void][] = [
      ['nullable ttl made non-nullable', 'Task', (d) => ((d.properties as any).ttl.type = 'integer')],
      ['required property dropped', 'CallToolRequestParams', (d) => delete d.required],
      ['integer widened to number', 'Resource', (d) => ((d.properties as any).size.type = 'number')],
      ['jsonrpc constant changed', 'PingRequest', (d) => ((d.properties as any).jsonrpc.const = '2')],
      ['enum value removed', 'LoggingLevel', (d) => (d.enum as string[]).pop()],
      ['format dropped', 'Root', (d) => delete (d.properties as any).uri.format],
      ['additional properties forbidden', 'Result', (d) => (d.additionalProperties = false)],
      ['union branch dropped', 'ContentBlock', (d) => (d.anyOf as unknown[]).pop()],
      ['maximum dropped', 'Annotations', (d) => delete (d.properties as any).priority.maximum],
      ['property only ours constrains', 'Root', (d) => ((d.properties as any).title = { type: 'integer' })],
    ];
    for (const [what, name, change] of cases) {
      test(`${what} (${name})`, () => {
        const r = differential('2025-11-25', altered(name, change), [name]);
        expect(r.disagreements.length).toBeGreaterThan(0);
      });
    }
  });
});
