/**
 * The validators the build compiles ahead of time (scripts/precompile-schemas.mjs → dist/core/schema/precompiled/)
 * give the same results as ajv compiling at runtime, and the built CLI really uses them.
 *
 * - every definition of every version's schema document, on instances generated from that document (valid ones and
 *   schema-blind mutations of them) and on hand-written broken shapes: same verdict, same ajv errors;
 * - MessageValidator.check of whole messages (requests, notifications, results, errors, invalid JSON-RPC) of every
 *   version: the built validator (precompiled) against the one running from source (compiles at runtime);
 * - the meta-schema check of the JSON Schemas servers send (SchemaWorkbench.prepare, both dialects), good and bad;
 * - the built CLI, on two broken fixtures: loads the files of the version in force, compiles nothing but the server's
 *   own schemas, and reports exactly what a build without the files reports.
 * Needs `npm run build` first (npm test does it).
 */
import { spawnSync } from 'node:child_process';
import {
  cpSync,
  existsSync,
  mkdirSync,
  mkdtempSync,
  readdirSync,
  readFileSync,
  rmSync,
  symlinkSync,
  writeFileSync,
} from 'node:fs';
import { createRequire } from 'node:module';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { pathToFileURL } from 'node:url';
import { isDeepStrictEqual } from 'node:util';
import { afterAll, describe, expect, it } from 'vitest';
import type { ErrorObject, ValidateFunction } from 'ajv';
import { newAjv } from '../core/schema/ajv.js';
import { definitionNames, hasSchemaDocument, schemaDocument } from '../core/schema/documents/index.js';
import { MessageValidator, type MessageToCheck } from '../core/schema/validator.js';
import {
  fingerprint,
  messageAjvOptions,
  messagesFile,
  metaFile,
  PRECOMPILED_FOLDER,
  precompiledUse,
  runCommonJs,
} from '../core/schema/precompiled.js';
import { PROTOCOL_VERSIONS, dialectOf, type ProtocolVersion } from '../core/schema/versions.js';
import { SchemaWorkbench, type PreparedSchema } from '../core/jsonschema.js';
import { codeCachePath, readCodeCache, tagSource, untagSource } from '../core/schema/code-cache.js';
import { generateVariants, mutations, type Json } from './helpers/schema-generate.js';
import { ROOT } from './helpers/cli.js';

const DIST = join(ROOT, 'dist');
const FOLDER = join(DIST, 'core', 'schema', PRECOMPILED_FOLDER);
const requireDist = createRequire(join(FOLDER, 'x.cjs'));
const VERSIONS = PROTOCOL_VERSIONS.filter(hasSchemaDocument);

type BuiltSchemaModule = typeof import('../core/schema/index.js');
type BuiltValidatorModule = typeof import('../core/schema/validator.js');
type BuiltWorkbenchModule = typeof import('../core/jsonschema.js');
type BuiltPrecompiledModule = typeof import('../core/schema/precompiled.js');
const fromDist = <T>(file: string): Promise<T> => import(pathToFileURL(join(DIST, file)).href) as Promise<T>;

const defsKey = (v: ProtocolVersion) => (dialectOf(v) === 'draft-07' ? 'definitions' : '$defs');

/** Instances of a definition: generated valid variants and mutations of them. */
function instancesOf(
  doc: Record<string, unknown>,
  def: unknown,
  variants = 8,
  firstMutations = 60,
  otherMutations = 12,
): Json[] {
  const out: Json[] = [];
  generateVariants(doc, def as { [k: string]: unknown }, { max: variants }).forEach((variant, i) => {
    out.push(variant.value);
    for (const m of mutations(variant.value, i < 2 ? firstMutations : otherMutations)) out.push(m.value);
  });
  return out;
}

/** Hand-written broken shapes, each with the definition it is checked against (where a version has it). */
const BROKEN_SHAPES: [string, Json][] = [
  ['CallToolResult', { content: [{ type: 'text' }] }],
  ['CallToolResult', { content: [{ type: 'image', data: 'not base64 !!', mimeType: 'image/png' }] }],
  ['CallToolResult', { content: [{ type: 'resource', resource: { uri: 'not a uri', text: 'x' } }] }],
  ['CallToolResult', { content: [{ type: 'resource_link', uri: 'file:///a', name: 5 }] }],
  ['CallToolResult', { content: [{ type: 'audio', data: 'AAAA' }, { type: 'unknown' }, 7, null] }],
  ['CallToolResult', { content: 'text', isError: 'yes', structuredContent: [1] }],
  ['ListToolsResult', { tools: [{ name: 'a', inputSchema: { type: 'array' } }, { inputSchema: {} }, { name: 3 }] }],
  [
    'ListToolsResult',
    { tools: [{ name: 'a', inputSchema: { type: 'object' }, annotations: { readOnlyHint: 'no' } }], nextCursor: 5 },
  ],
  [
    'ListResourcesResult',
    {
      resources: [
        {
          uri: 'relative/path',
          name: 'r',
          annotations: { priority: 2, audience: ['robot'], lastModified: 'yesterday' },
        },
      ],
    },
  ],
  ['ReadResourceResult', { contents: [{ uri: 'file:///a', blob: '***' }, { uri: 'file:///b' }] }],
  ['GetPromptResult', { messages: [{ role: 'system', content: { type: 'text', text: 'x' } }, { role: 'user' }] }],
  ['InitializeResult', { protocolVersion: 2025, capabilities: { tools: true }, serverInfo: { name: 'x' } }],
  ['InitializeResult', { capabilities: {}, serverInfo: { version: '1' } }],
  ['CompleteResult', { completion: { values: Array.from({ length: 3 }, (_, i) => i), total: 'many' } }],
  ['CreateMessageResult', { role: 'assistant', content: { type: 'text' }, model: 5 }],
  ['ElicitResult', { action: 'maybe', content: { a: { b: 1 } } }],
  ['JSONRPCRequest', { jsonrpc: '1.0', id: 1.5, method: 7 }],
  ['JSONRPCNotification', { jsonrpc: '2.0', id: 3, method: 'x', params: [] }],
  ['JSONRPCError', { jsonrpc: '2.0', id: 1, error: { code: 'E', message: 1 } }],
  ['JSONRPCMessage', [{ jsonrpc: '2.0' }, 5]],
  [
    'Tool',
    {
      name: 'a',
      inputSchema: { type: 'object', properties: 5 },
      outputSchema: { type: 'string' },
      icons: [{ src: 'not a uri', sizes: 5 }],
    },
  ],
  ['GetTaskResult', { taskId: 1, status: 'sleeping', createdAt: 'today', ttl: 'long' }],
];

describe('precompiled validators', () => {
  it('the build wrote a file per version and per dialect, made from the documents this source builds', () => {
    const versions = {
      ajv: requireDist('ajv/package.json').version as string,
      'ajv-formats': requireDist('ajv-formats/package.json').version as string,
    };
    for (const v of VERSIONS) {
      const file = join(FOLDER, messagesFile(v));
      expect(existsSync(file), `${file} (run npm run build)`).toBe(true);
      expect(requireDist(file).fingerprint, v).toBe(
        fingerprint(versions, messageAjvOptions(), dialectOf(v), schemaDocument(v)),
      );
    }
    for (const d of ['draft-07', '2020-12'] as const) expect(existsSync(join(FOLDER, metaFile(d))), d).toBe(true);
  });

  it.each(VERSIONS)(
    '%s: every definition gives the same verdict and the same ajv errors as compiled at runtime',
    (v) => {
      const doc = schemaDocument(v);
      const pre = requireDist(join(FOLDER, messagesFile(v))) as Record<string, ValidateFunction>;
      const ajv = newAjv(dialectOf(v), messageAjvOptions());
      ajv.addSchema({ ...doc }, undefined, undefined, false);
      const defs = doc[defsKey(v)] as Record<string, unknown>;
      const broken = BROKEN_SHAPES.filter(([name]) => name in defs);
      let invalid = 0;
      let checked = 0;
      const differences: string[] = [];
      for (const name of definitionNames(v)) {
        const ref = `#/${defsKey(v)}/${name}`;
        const a = pre[ref];
        expect(typeof a, `${v} ${ref} is exported`).toBe('function');
        const b = ajv.compile({ $ref: `${doc.$id as string}${ref}` });
        const values = [
          ...instancesOf(doc, defs[name]),
          ...broken.filter(([n]) => n === name).map(([, x]) => x),
          null,
          'x',
          1,
          [],
          {},
        ];
        for (const value of values) {
          const va = a!(value);
          const ea = a!.errors;
          const vb = b(value);
          const eb = b.errors;
          checked++;
          if (!vb) invalid++;
          if (va !== vb || !isDeepStrictEqual(ea, eb))
            differences.push(`${name}: ${JSON.stringify(value).slice(0, 200)}`);
        }
      }
      expect(differences).toEqual([]);
      // The corpus has both kinds, in numbers.
      expect(invalid).toBeGreaterThan(1000);
      expect(checked - invalid).toBeGreaterThan(300);
    },
  );

  describe('MessageValidator.check: the built validator (precompiled) and the source one (runtime) agree', () => {
    it.each(VERSIONS)('%s', async (v) => {
      const built = await fromDist<BuiltSchemaModule>('core/schema/index.js');
      const builtDocs = await fromDist<{ schemaDocument: typeof schemaDocument }>('core/schema/documents/index.js');
      const pre = new built.MessageValidator(v, builtDocs.schemaDocument(v));
      const run = new MessageValidator(v, schemaDocument(v));
      expect(pre.precompiled).toBe(true);
      expect(run.precompiled).toBe(false);
      // Loaded with its code cache (the same Node built it).
      const builtPre = await fromDist<BuiltPrecompiledModule>('core/schema/precompiled.js');
      expect(builtPre.precompiledUse.codeCacheRejected).toEqual([]);
      const messages = messageCorpus(v);
      const differences: string[] = [];
      let invalid = 0;
      for (const m of messages) {
        const a = pre.check(m);
        const b = run.check(m);
        if (!b.valid) invalid++;
        if (!isDeepStrictEqual(a, b))
          differences.push(
            `${m.direction} ${m.kind} ${m.method ?? ''}: ${JSON.stringify(m.json).slice(0, 200)}\n  precompiled ${JSON.stringify(a)}\n  runtime ${JSON.stringify(b)}`,
          );
      }
      expect(differences.slice(0, 5)).toEqual([]);
      expect(invalid).toBeGreaterThan(500);
      expect(messages.length - invalid).toBeGreaterThan(100);
      // Violations of unions are refined to the closest branch in both (the refiner re-validates branch refs).
      const badBlock = { jsonrpc: '2.0', id: 3, result: { content: [{ type: 'text' }] } };
      const msg: MessageToCheck = { direction: 'from-server', kind: 'response', method: 'tools/call', json: badBlock };
      expect(pre.check(msg).violations).toContainEqual(
        expect.objectContaining({ pointer: '/result/content/0', message: 'missing required property "text"' }),
      );
      expect(pre.check(msg).violations.filter((x) => x.pointer.startsWith('/result/content'))).toHaveLength(1);
    });
  });

  it('a code cache V8 rejects (another Node, a damaged file) only costs time: the module loads from its source', () => {
    const file = join(FOLDER, metaFile('draft-07'));
    const good = runCommonJs(file, readCodeCache(file, readFileSync(file, 'utf8')));
    const bad = runCommonJs(file, Buffer.from('not a code cache'));
    expect([good.script.cachedDataRejected, bad.script.cachedDataRejected]).toEqual([false, true]);
    const id = 'http://json-schema.org/draft-07/schema';
    for (const s of [{ type: 'object' }, { type: 'objekt' }, { required: 'a' }]) {
      const a = good.exports[id] as ValidateFunction;
      const b = bad.exports[id] as ValidateFunction;
      expect([b(s), b.errors]).toEqual([a(s), a.errors]);
    }
  });

  it("a generated file of another build (same length: V8 alone would take this build's cache) is compiled without it", () => {
    const dir = mkdtempSync(join(tmpdir(), 'mcp-conform-cache-'));
    symlinkSync(join(ROOT, 'node_modules'), join(dir, 'node_modules'), 'dir'); // the generated code requires ajv's runtime
    try {
      const name = metaFile('draft-07');
      const file = join(dir, name);
      const text = readFileSync(join(FOLDER, name), 'utf8');
      const cache = codeCachePath(join(FOLDER, name), text)!;
      expect(existsSync(cache), cache).toBe(true);
      cpSync(join(FOLDER, name), file);
      cpSync(cache, codeCachePath(file, text)!);
      // A copy finds its cache, and V8 takes it.
      expect(runCommonJs(file, readCodeCache(file, text)).script.cachedDataRejected).toBe(false);
      // The file as another build would write it: a text of the same length, tagged with its own hash.
      expect(text).toContain('Do not edit.');
      const other = tagSource(untagSource(text).replace('Do not edit.', 'DO NOT EDIT.'));
      expect(other.length).toBe(text.length);
      writeFileSync(file, other);
      expect(runCommonJs(file, readFileSync(cache)).script.cachedDataRejected).toBe(false); // V8 would take the old one
      expect(readCodeCache(file, other)).toBeUndefined();
      // An untagged file has no cache.
      expect(codeCachePath(file, untagSource(text))).toBeUndefined();
    } finally {
      rmSync(dir, { recursive: true, force: true });
    }
  });

  it('a --schema FILE (a copy of a built-in document) and another dialect are compiled at runtime, with the same results', async () => {
    const built = await fromDist<BuiltValidatorModule>('core/schema/validator.js');
    const builtDocs = await fromDist<{ schemaDocument: typeof schemaDocument }>('core/schema/documents/index.js');
    const v: ProtocolVersion = '2025-06-18';
    const copy = new built.MessageValidator(v, { ...builtDocs.schemaDocument(v) });
    const pre = new built.MessageValidator(v, builtDocs.schemaDocument(v));
    const other = new built.MessageValidator(v, builtDocs.schemaDocument(v), '2020-12');
    expect([copy.precompiled, pre.precompiled, other.precompiled]).toEqual([false, true, false]);
    for (const m of messageCorpus(v).slice(0, 3000)) expect(copy.check(m)).toEqual(pre.check(m));
  });

  it('the meta-schema check of server-sent JSON Schemas (both dialects): same problems, notes and validation', async () => {
    const built = await fromDist<BuiltWorkbenchModule>('core/jsonschema.js');
    const builtPre = await fromDist<BuiltPrecompiledModule>('core/schema/precompiled.js');
    const schemas = toolSchemaCorpus();
    let bad = 0;
    for (const dialect of ['draft-07', '2020-12'] as const) {
      const pre = new built.SchemaWorkbench(dialect);
      const run = new SchemaWorkbench(dialect);
      const differences: string[] = [];
      for (const s of schemas) {
        const a = pre.prepare(s);
        const b = run.prepare(s);
        if (b.problems.length) bad++;
        if (!isDeepStrictEqual(summary(a), summary(b)))
          differences.push(
            `${JSON.stringify(s)}\n  precompiled ${JSON.stringify(summary(a))}\n  runtime ${JSON.stringify(summary(b))}`,
          );
      }
      expect(differences.slice(0, 5)).toEqual([]);
    }
    expect(bad).toBeGreaterThan(200);
    // The built workbench used the precompiled meta-schemas; the source one found none.
    expect(new Set(builtPre.precompiledUse.meta)).toEqual(new Set(['draft-07', '2020-12']));
    expect(precompiledUse.meta).toEqual([]);
  });

  it('a schema whose $schema ajv cannot look up gets that one problem, not the errors of the schema checked before it', async () => {
    // (Before the meta-schema check was precompiled, ajv.errors of the previous check leaked into this one's problems.)
    const built = await fromDist<BuiltWorkbenchModule>('core/jsonschema.js');
    for (const wb of [new built.SchemaWorkbench('draft-07'), new SchemaWorkbench('draft-07')]) {
      expect(wb.prepare({ type: 5 }).problems).toEqual(['/type: matches none of the allowed shapes']);
      expect(wb.prepare({ $schema: 'http://json-schema.org/draft-06/schema#', type: 'object' }).problems).toEqual([
        'meta-schema check failed: no schema with key or ref "http://json-schema.org/draft-06/schema#"',
      ]);
      expect(wb.prepare({ required: 'a' }).problems).toEqual(['/required: expected array']);
      expect(wb.prepare({ $schema: 5 }).problems).toEqual(['meta-schema check failed: $schema must be a string']);
    }
  });

  it("the precompiled meta-schema validators give ajv.validateSchema's verdicts and errors", () => {
    for (const dialect of ['draft-07', '2020-12'] as const) {
      const mod = requireDist(join(FOLDER, metaFile(dialect))) as Record<string, ValidateFunction>;
      const id =
        dialect === 'draft-07'
          ? 'http://json-schema.org/draft-07/schema'
          : 'https://json-schema.org/draft/2020-12/schema';
      const meta = mod[id]!;
      const ajv = newAjv(dialect, { strict: false, allErrors: true, validateSchema: false, addUsedSchema: false });
      for (const s of toolSchemaCorpus()) {
        if (s === null || typeof s !== 'object' || Array.isArray(s)) continue;
        const declared = (s as Record<string, unknown>).$schema;
        if (declared !== undefined && declared !== id && declared !== `${id}#`) continue;
        let expected: { ok: boolean; errors: ErrorObject[] | null | undefined };
        try {
          expected = { ok: ajv.validateSchema(s) as boolean, errors: ajv.errors };
        } catch {
          continue;
        }
        const ok = meta(s) as boolean;
        expect({ ok, errors: meta.errors }, JSON.stringify(s)).toEqual(expected);
      }
    }
  });
});

function summary(p: PreparedSchema): unknown {
  const probes: unknown[] = [
    {},
    { query: 'x', limit: 1 },
    { query: 1 },
    [],
    'x',
    null,
    { a: [1, 'b'], b: { c: null } },
  ];
  return {
    dialect: p.dialect,
    problems: p.problems,
    notes: p.notes,
    validate: p.validate ? probes.map((x) => p.validate!(x)) : undefined,
  };
}

/** Tool schemas as servers send them: good ones of both dialects, broken ones, and schema-blind mutations of both. */
function toolSchemaCorpus(): unknown[] {
  const D7 = 'http://json-schema.org/draft-07/schema#';
  const D2020 = 'https://json-schema.org/draft/2020-12/schema';
  const good: Json[] = [
    { type: 'object' },
    {
      type: 'object',
      properties: {
        query: { type: 'string', description: 'x' },
        limit: { type: 'number' },
        exact: { type: 'boolean' },
      },
      required: ['query', 'limit'],
    },
    {
      $schema: D7,
      type: 'object',
      properties: {
        when: { type: 'string', format: 'date-time' },
        tags: { type: 'array', items: [{ type: 'string' }], additionalItems: false },
      },
      definitions: { a: { type: 'integer', minimum: 0 } },
    },
    {
      $schema: D7.slice(0, -1),
      type: 'object',
      properties: { n: { $ref: '#/definitions/n' } },
      definitions: { n: { type: 'number', exclusiveMinimum: 0 } },
    },
    {
      $schema: D2020,
      type: 'object',
      properties: { list: { type: 'array', prefixItems: [{ type: 'string' }], items: false } },
      unevaluatedProperties: false,
      $defs: { x: { enum: [1, 'a', null] } },
    },
    {
      $schema: `${D2020}#`,
      type: 'object',
      properties: { u: { type: 'string', format: 'uri' }, e: { type: 'string', format: 'email', pattern: '^[a-z]' } },
      dependentRequired: { u: ['e'] },
    },
    {
      type: 'object',
      properties: {
        o: { oneOf: [{ type: 'string' }, { type: 'object', additionalProperties: { type: 'number' } }] },
        c: { const: 3 },
      },
      additionalProperties: false,
    },
    {
      type: 'object',
      properties: { x: { anyOf: [{ $ref: '#/$defs/y' }, { type: 'null' }] } },
      $defs: { y: { type: 'string', minLength: 1, maxLength: 3 } },
    },
  ];
  const broken: unknown[] = [
    { type: 'objekt' },
    { type: 5 },
    { type: ['string', 'nonsense'] },
    { required: 'a' },
    { required: [1] },
    { properties: [] },
    { properties: { x: { type: 'nonsense' } } },
    { minimum: 'x' },
    { maxLength: -1 },
    { enum: 'x' },
    { items: 5 },
    { additionalProperties: 'no' },
    { $ref: 5 },
    { pattern: 5 },
    { format: 5 },
    { $defs: { a: 5 } },
    { definitions: { a: 'b' } },
    { anyOf: [] },
    { anyOf: {} },
    { allOf: [5] },
    { $schema: 'http://json-schema.org/draft-06/schema#', type: 'object' },
    { $schema: 5, type: 'object' },
    { $schema: '', type: 'object' },
    { $schema: 'https://json-schema.org/draft/2019-09/schema', type: 'object' },
    { $schema: `${D2020}#/$defs/nothing`, type: 'object' },
    { $schema: 'https://json-schema.org/draft/2020-12/meta/core', type: 'object' },
    { $id: 'urn:x', type: 'object', properties: { a: { $ref: 'urn:y#/nowhere' } } },
    { type: 'object', properties: { a: { $ref: '#/$defs/missing' } } },
    { type: 'object', patternProperties: { '[': {} } },
    true,
    false,
    null,
    [],
    'object',
    7,
  ];
  const out: unknown[] = [...good, ...broken];
  for (const g of good) for (const m of mutations(g, 40)) out.push(m.value);
  return out;
}

/** Whole messages of a version: every request, notification and result of its document, valid and mutated, both directions. */
function messageCorpus(v: ProtocolVersion): MessageToCheck[] {
  const doc = schemaDocument(v);
  const defs = doc[defsKey(v)] as Record<string, Record<string, unknown>>;
  const methodOf = (name: string): string | undefined => {
    const m = (defs[name]?.properties as Record<string, Record<string, unknown>> | undefined)?.method?.const;
    return typeof m === 'string' ? m : undefined;
  };
  const out: MessageToCheck[] = [];
  const both = (m: Omit<MessageToCheck, 'direction'>) => {
    out.push({ ...m, direction: 'to-server' }, { ...m, direction: 'from-server' });
  };
  for (const name of Object.keys(defs)) {
    const method = methodOf(name);
    if (!method) continue;
    const isRequest = name.endsWith('Request');
    for (const x of instancesOf(doc, defs[name], 4, 30, 6)) {
      const json =
        x !== null && typeof x === 'object' && !Array.isArray(x)
          ? { jsonrpc: '2.0', ...(isRequest ? { id: 1 } : {}), ...x }
          : x;
      both({ kind: isRequest ? 'request' : 'notification', method, json });
    }
    // A request of this method also travels as the other kind and unknown methods pass through.
    both({
      kind: isRequest ? 'notification' : 'request',
      method,
      json: { jsonrpc: '2.0', ...(isRequest ? {} : { id: 2 }), method },
    });
    if (!isRequest) continue;
    const result = defs[name.replace(/Request$/, 'Result')] ? name.replace(/Request$/, 'Result') : 'EmptyResult';
    if (!defs[result]) continue;
    for (const r of instancesOf(doc, defs[result], 4, 30, 6)) {
      for (const taskAugmented of [false, true])
        both({ kind: 'response', method, json: { jsonrpc: '2.0', id: 1, result: r }, taskAugmented });
    }
  }
  for (const [name, x] of BROKEN_SHAPES) {
    if (!defs[name]) continue;
    const method =
      name === 'CallToolResult'
        ? 'tools/call'
        : name === 'ListToolsResult'
          ? 'tools/list'
          : name === 'ReadResourceResult'
            ? 'resources/read'
            : name === 'InitializeResult'
              ? 'initialize'
              : undefined;
    if (method) both({ kind: 'response', method, json: { jsonrpc: '2.0', id: 1, result: x } });
    both({ kind: 'invalid', json: x });
  }
  const errorDef = defs.JSONRPCErrorResponse ? defs.JSONRPCErrorResponse : defs.JSONRPCError;
  for (const x of instancesOf(doc, errorDef, 4, 30, 6)) both({ kind: 'error', json: x });
  for (const x of [null, 5, 'x', [], {}, { jsonrpc: '2.0' }, { jsonrpc: '2.0', id: 1, method: 'no/such', params: 5 }])
    both({ kind: 'invalid', json: x });
  both({ kind: 'request', method: 'no/such', json: { jsonrpc: '2.0', id: 1, method: 'no/such' } });
  both({ kind: 'response', method: 'no/such', json: { jsonrpc: '2.0', id: 1, result: 5 } });
  return out;
}

describe('the built CLI uses the precompiled validators', () => {
  const tmp = mkdtempSync(join(tmpdir(), 'mcp-conform-aot-'));
  afterAll(() => rmSync(tmp, { recursive: true, force: true }));
  // Preloaded into the CLI: counts the functions ajv generates (every compilation ends in new Function with a body
  // that declares vErrors), lists the precompiled files the process required and the code caches V8 was given.
  const preload = join(tmp, 'count.cjs');
  writeFileSync(
    preload,
    `
const Original = globalThis.Function;
let compiles = 0;
globalThis.Function = new Proxy(Original, { construct(t, args, nt) { if (String(args[args.length - 1]).includes('vErrors')) compiles++; return Reflect.construct(t, args, nt); } });
const vm = require('vm');
const caches = [];
vm.Script = class extends vm.Script { constructor(source, options) { super(source, options); if (options && options.cachedData) caches.push([require('path').basename(options.filename), this.cachedDataRejected]); } };
require('module').syncBuiltinESMExports();
process.on('exit', () => { require('fs').writeFileSync(process.env.MCP_CONFORM_COUNT_FILE, JSON.stringify({ compiles, caches, loaded: Object.keys(require.cache).filter((k) => k.includes(${JSON.stringify(`/dist/core/schema/${PRECOMPILED_FOLDER}/`)})).map((k) => require('path').basename(k)).sort() })); });
`,
  );
  // The same build without the files: a package folder with a copy of dist/ less the precompiled folder.
  const bare = join(tmp, 'bare');
  cpSync(DIST, join(bare, 'dist'), {
    recursive: true,
    filter: (src) => !src.includes(`${PRECOMPILED_FOLDER}`) && !src.endsWith('.map'),
  });
  cpSync(join(ROOT, 'package.json'), join(bare, 'package.json'));
  symlinkSync(join(ROOT, 'node_modules'), join(bare, 'node_modules'), 'dir');

  function run(
    root: string,
    fixture: string,
    label: string,
  ): { compiles: number; loaded: string[]; caches: [string, boolean][]; report: Record<string, unknown> } {
    const out = join(tmp, label);
    const count = join(tmp, `${label}.json`);
    const r = spawnSync(
      process.execPath,
      [
        '--require',
        preload,
        join(root, 'dist', 'bin', 'mcp-conform.js'),
        'run',
        '--stdio',
        `python3 ${join(ROOT, 'fixtures', 'servers', 'broken', fixture)}`,
        '--call-tools',
        'all',
        '--quiet',
        '--timeout',
        '5000',
        '--out-dir',
        out,
      ],
      { env: { ...process.env, NO_COLOR: '1', MCP_CONFORM_COUNT_FILE: count }, encoding: 'utf8', timeout: 90_000 },
    );
    expect(r.status, r.stderr).toBe(1); // both fixtures fail
    return {
      ...JSON.parse(readFileSync(count, 'utf8')),
      report: JSON.parse(readFileSync(join(out, 'report.json'), 'utf8')),
    };
  }

  /** What a user compares: the verdicts of every case with its message, and the schema verdict of every message. */
  function verdicts(report: Record<string, unknown>): unknown {
    const suites = report.suites as { cases: { id: string; verdict: string; message: string }[] }[];
    const messages = report.messages as { direction: string; method?: string; schema?: unknown }[];
    const timing = (s: string) => s.replace(/\d+ ms/g, 'N ms').replace(/pid \d+/g, 'pid N');
    return {
      summary: report.summary,
      cases: suites.flatMap((s) => s.cases.map((c) => `${c.id} ${c.verdict} ${timing(c.message ?? '')}`)),
      schema: messages.map((m) => [m.direction, m.method, m.schema]),
    };
  }

  it('an install whose node_modules holds another ajv version: the CLI still uses the files (its own bundled ajv made them)', () => {
    // A package folder with this build's dist/ and node_modules, except ajv: a copy that says it is another version.
    const other = join(tmp, 'other-ajv');
    cpSync(DIST, join(other, 'dist'), {
      recursive: true,
      preserveTimestamps: true,
      filter: (src) => !src.endsWith('.map'),
    });
    cpSync(join(ROOT, 'package.json'), join(other, 'package.json'));
    const modules = join(other, 'node_modules');
    mkdirSync(modules);
    for (const name of readdirSync(join(ROOT, 'node_modules'))) {
      if (name !== 'ajv') symlinkSync(join(ROOT, 'node_modules', name), join(modules, name), 'dir');
    }
    cpSync(join(ROOT, 'node_modules', 'ajv'), join(modules, 'ajv'), { recursive: true });
    const pkg = JSON.parse(readFileSync(join(modules, 'ajv', 'package.json'), 'utf8')) as { version: string };
    writeFileSync(join(modules, 'ajv', 'package.json'), JSON.stringify({ ...pkg, version: `${pkg.version}-other` }));
    const r = run(other, 'schema-violation.py', 'other-ajv');
    const same = run(ROOT, 'schema-violation.py', 'other-ajv-root');
    expect(r.loaded).toEqual(['messages-2025-11-25.cjs', 'meta-2020-12.cjs']);
    expect(r.compiles).toBeLessThan(15);
    expect(verdicts(r.report)).toEqual(verdicts(same.report));
  });

  it.each(['schema-violation.py', 'bad-input-schema.py'])(
    "%s: same report, files of the version in force loaded, only the server's schemas compiled",
    (fixture) => {
      const label = fixture.replace('.py', '');
      const pre = run(ROOT, fixture, `${label}-pre`);
      const bareRun = run(bare, fixture, `${label}-bare`);
      expect(pre.loaded).toEqual(['messages-2025-11-25.cjs', 'meta-2020-12.cjs']);
      expect(bareRun.loaded).toEqual([]);
      // Compiled with the build's code cache, which V8 accepted (the same Node built it).
      // (The CLI's own bundle, dist/cli/cli.cjs, is compiled with its code cache too: left out here.)
      const schemaCaches = (caches: [string, boolean][]) =>
        caches.filter(([f]) => f.endsWith('.cjs') && f !== 'cli.cjs');
      expect(schemaCaches(pre.caches)).toEqual([
        ['messages-2025-11-25.cjs', false],
        ['meta-2020-12.cjs', false],
      ]);
      expect(schemaCaches(bareRun.caches)).toEqual([]);
      // Without the files, ajv compiles the protocol definitions and the meta-schema (dozens of functions); with
      // them, only the tools' own input schemas (a few: the workbench's and the argument checker's).
      expect(bareRun.compiles).toBeGreaterThan(30);
      expect(pre.compiles).toBeLessThan(15);
      const v = verdicts(pre.report);
      expect(v).toEqual(verdicts(bareRun.report));
      // The reports do show schema violations (so the comparison covers failing checks, not only passing ones).
      expect(JSON.stringify((v as { schema: unknown }).schema)).toContain('"valid":false');
    },
  );
});
