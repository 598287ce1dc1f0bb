/**
 * Validators compiled ahead of time. `npm run build` (scripts/precompile-schemas.mjs, after tsc) writes ajv's
 * standalone code of every definition of the project's own schema documents (one file per protocol version) and of
 * the two JSON Schema meta-schemas (draft-07, 2020-12) into dist/core/schema/precompiled/. A run then loads the file
 * of the version in force instead of compiling with ajv at start-up, which was most of a small run's fixed cost.
 *
 * The files are generated with the very options below and the document built by the same code, and each carries a
 * fingerprint (the versions of ajv and ajv-formats, the options, the dialect and the document): a file whose
 * fingerprint does not match what this process would compile is not used. Each is compiled with the V8 code cache the
 * build made of it, where that is there (./code-cache.ts). Where a file is missing (vitest running from source, a build
 * without the step) or does not match, the callers compile at runtime as before: the results are the same either way
 * (test/precompiled.test.ts).
 */
import { createHash } from 'node:crypto';
import { existsSync } from 'node:fs';
import { createRequire, Module } from 'node:module';
import { dirname, join } from 'node:path';
import { fileURLToPath } from 'node:url';
import type { Script } from 'node:vm';
import type { Options, ValidateFunction } from 'ajv';
import type { Dialect } from './ajv.js';
import { compileFunction, readCodeCache, readSource } from './code-cache.js';

/** ajv options of the protocol-message validators (core/schema/validator.ts). */
export function messageAjvOptions(): Options {
  // code.optimize off: ajv's optimisation passes over the generated code cost more at start-up than they save
  // (what a definition accepts and the errors it gives are the same).
  // validateSchema off: the wrappers compiled for each definition ({ $ref }) need no check against the
  // meta-schema (compiling the meta-schema's own validator was most of the cost of the first check).
  return { strict: false, allErrors: true, verbose: true, validateSchema: false, code: { optimize: false } };
}

/** ajv options of the checks of the JSON Schemas servers send (core/jsonschema.ts). */
export function workbenchAjvOptions(): Options {
  return { strict: false, allErrors: true, validateSchema: false, addUsedSchema: false };
}

/** The `$id` of each dialect's meta-schema, as ajv registers it (the validator is exported under this name). */
export const META_SCHEMA_ID: Record<Dialect, string> = {
  'draft-07': 'http://json-schema.org/draft-07/schema',
  '2020-12': 'https://json-schema.org/draft/2020-12/schema',
};

/** Folder of the generated files, relative to the build output. */
export const PRECOMPILED_FOLDER = 'precompiled';

export function messagesFile(version: string): string {
  return `messages-${version}.cjs`;
}

export function metaFile(dialect: Dialect): string {
  return `meta-${dialect}.cjs`;
}

/** A generated file's source as it is compiled: CommonJS's function wrapper (the code cache is of this text). */
export function wrapCommonJs(source: string): string {
  return `(function (exports, require, module, __filename, __dirname) { ${source}\n});`;
}

/**
 * Runs a generated file (its text `text`) as CommonJS would, compiled with the code cache given (which V8 rejects, and
 * then compiles the source, when it was made by another Node or with other flags), and registers it in require.cache.
 */
export function runCommonJs(
  path: string,
  cachedData: Buffer | undefined,
  text = readSource(path),
): { exports: Record<string, unknown>; script: Script } {
  const { fn, script } = compileFunction(path, wrapCommonJs(text), cachedData);
  const mod = new Module(path);
  mod.filename = path;
  fn.call(mod.exports, mod.exports, createRequire(path), mod, path, dirname(path));
  mod.loaded = true;
  require.cache[path] = mod;
  return { exports: mod.exports as Record<string, unknown>, script };
}

/**
 * The versions a generated file depends on: `ajv`, the compiler (the one this process compiles with at runtime: the
 * bundled CLI's own copy, whose version the bundle bakes in, or the library's in node_modules), and `ajv-formats`, whose
 * formats the generated code requires from node_modules when it runs.
 */
export interface CompilerVersions {
  ajv: string;
  'ajv-formats': string;
}

/**
 * What a generated file must have been made from: the versions above, the options (without the code-generation
 * ones), the dialect and, for a protocol version, the schema document.
 */
export function fingerprint(versions: CompilerVersions, options: Options, dialect: Dialect, document: unknown): string {
  return createHash('sha256').update(JSON.stringify({ versions, options, dialect, document })).digest('hex');
}

const here = dirname(fileURLToPath(import.meta.url));
const require = createRequire(import.meta.url);

/**
 * dist/core/schema/precompiled.js finds them beside itself; the bundled CLI (dist/cli/cli.cjs, whose import.meta.url
 * its loader gives as that file's, see scripts/bundle.mjs) through ../core/schema. From source (core/schema/*.ts) neither exists: the build writes only
 * into dist/.
 */
const FOLDERS = [join(here, PRECOMPILED_FOLDER), join(here, '..', 'core', 'schema', PRECOMPILED_FOLDER)];

/**
 * The version of the ajv bundled into the CLI: scripts/bundle.mjs defines it (esbuild `define`) in dist/cli/cli.cjs;
 * undefined in tsc's output (the library, which compiles with the ajv in node_modules).
 */
declare const __MCP_CONFORM_BUNDLED_AJV_VERSION__: string | undefined;

let versionsCache: CompilerVersions | null | undefined;
/** The versions a file made for this process must carry (null: a package.json not found). */
export function compilerVersions(): CompilerVersions | null {
  if (versionsCache === undefined) {
    try {
      versionsCache = {
        ajv:
          typeof __MCP_CONFORM_BUNDLED_AJV_VERSION__ === 'string'
            ? __MCP_CONFORM_BUNDLED_AJV_VERSION__
            : (require('ajv/package.json') as { version: string }).version,
        'ajv-formats': (require('ajv-formats/package.json') as { version: string }).version,
      };
    } catch {
      versionsCache = null;
    }
  }
  return versionsCache;
}

/** A generated file: its validators by export name (references, or a meta-schema's id) and its fingerprint. */
interface GeneratedModule {
  fingerprint: unknown;
  validators: Map<string, ValidateFunction>;
}

const loaded = new Map<string, GeneratedModule | null>();

function load(file: string): GeneratedModule | null {
  if (loaded.has(file)) return loaded.get(file)!;
  let mod: GeneratedModule | null = null;
  for (const dir of FOLDERS) {
    const path = join(dir, file);
    if (!existsSync(path)) continue;
    try {
      // With the code cache the build made for this text of the file (named by the tag at its end: ./code-cache.ts).
      const text = readSource(path);
      const run = runCommonJs(path, readCodeCache(path, text), text);
      const exports = run.exports;
      if (run.script.cachedDataRejected) precompiledUse.codeCacheRejected.push(file);
      const validators = new Map<string, ValidateFunction>();
      for (const [name, fn] of Object.entries(exports))
        if (typeof fn === 'function') validators.set(name, fn as ValidateFunction);
      mod = { fingerprint: exports.fingerprint, validators };
    } catch {
      mod = null;
    }
    break;
  }
  loaded.set(file, mod);
  return mod;
}

/** How often this process used a precompiled file (the tests read it; nothing else does). */
export const precompiledUse = { messages: [] as string[], meta: [] as string[], codeCacheRejected: [] as string[] };

/**
 * The precompiled validators of a built-in schema document, by reference (`#/definitions/Name` or `#/$defs/Name`),
 * or undefined when there is no matching file. `document` must be the object core/schema/documents built for
 * `version`, validated in that version's own dialect.
 */
export function precompiledDefinitions(
  version: string,
  document: Record<string, unknown>,
  dialect: Dialect,
): Map<string, ValidateFunction> | undefined {
  const mod = load(messagesFile(version));
  if (!mod) return undefined;
  const v = compilerVersions();
  if (!v || mod.fingerprint !== fingerprint(v, messageAjvOptions(), dialect, document)) return undefined;
  precompiledUse.messages.push(version);
  return mod.validators;
}

/** The precompiled validator of a dialect's meta-schema, or undefined when there is no matching file. */
export function precompiledMetaSchema(dialect: Dialect): ValidateFunction | undefined {
  const mod = load(metaFile(dialect));
  if (!mod) return undefined;
  const v = compilerVersions();
  if (!v || mod.fingerprint !== fingerprint(v, workbenchAjvOptions(), dialect, null)) return undefined;
  const fn = mod.validators.get(META_SCHEMA_ID[dialect]);
  if (!fn) return undefined;
  precompiledUse.meta.push(dialect);
  return fn;
}
