/**
 * Expectation files (format version 1): a server author's own checks, YAML or JSON, run as the cases of suite
 * `expect` (docs/expectations.md; the JSON Schema for editors is expect.schema.json at the package root).
 *
 * loadExpectFile reads and checks one file; whatever does not parse or fit the format is an ExpectFileError that
 * names the file, the line and column, and the path inside the file (a usage error: exit 2).
 */
import { existsSync, readFileSync } from 'node:fs';
import { dirname, join, resolve } from 'node:path';
import { fileURLToPath } from 'node:url';
import { Ajv, type ErrorObject } from 'ajv';
import { isMap, isScalar, isSeq, LineCounter, parseDocument, type Document, type Node } from 'yaml';
import { parsePath, REFERENCE, type PathPart } from './paths.js';
import { didYouMean, nearest } from '../../core/suggest.js';

export const EXPECT_FORMAT_VERSION = 1;
export const FORMS = ['call', 'request', 'read', 'prompt', 'tools'] as const;
export type Form = (typeof FORMS)[number];

/** Keys a form takes besides its own (name, save and expect go with every form but tools, which saves nothing). */
const FORM_KEYS: Record<Form, readonly string[]> = {
  call: ['arguments'],
  request: ['params'],
  read: [],
  prompt: ['arguments'],
  tools: [],
};

export interface ToolsCheck {
  includes?: string[];
  excludes?: string[];
  exactly?: string[];
}

export interface ErrorCheck {
  code?: number;
  message?: string;
  messageContains?: string;
}

export interface Checks {
  isError?: boolean;
  text?: string;
  textContains?: string | string[];
  textMatches?: string;
  structuredContent?: unknown;
  result?: unknown;
  paths?: Record<string, unknown>;
  error?: true | ErrorCheck;
  maxMs?: number;
}

export interface Expectation {
  name: string;
  /** The case id is expect/<slug>. */
  slug: string;
  /** Position in the file (from 0) and the line it starts on (from 1). */
  index: number;
  line: number;
  form: Form;
  /** The tool, method, URI or prompt named by the form (tools: undefined). */
  target?: string;
  arguments?: Record<string, unknown>;
  params?: Record<string, unknown>;
  tools?: ToolsCheck;
  save?: string;
  expect: Checks;
}

export interface ExpectFile {
  file: string;
  /** JSON (rewritten as JSON by --update-expect) or YAML. */
  json: boolean;
  expectations: Expectation[];
  /** The text read, the parsed document and its line index (--update-expect edits the text where the document says). */
  text: string;
  doc: Document;
  lines: LineCounter;
}

/** A file that cannot be read, does not parse, or does not fit the format: the message names the file and the place. */
export class ExpectFileError extends Error {}

/** The case-id slug of a name: lower case, runs of other characters turned into '-', at most 80 characters. */
export function slugOf(name: string): string {
  const s = name
    .normalize('NFKD')
    .replace(/[\u0300-\u036f]/g, '')
    .toLowerCase()
    .replace(/[^a-z0-9]+/g, '-')
    .replace(/^-+|-+$/g, '');
  return s.slice(0, 80).replace(/-+$/, '') || 'expectation';
}

/** A file shipped at the package root (expect.schema.json), found from this module in dist/ and in the CLI bundle. */
function packageFile(name: string): string {
  let dir = dirname(fileURLToPath(import.meta.url));
  for (let i = 0; i < 5; i++, dir = dirname(dir)) {
    const p = join(dir, name);
    if (existsSync(p)) return p;
  }
  throw new Error(`${name} is missing from the package`);
}

let validator: (((x: unknown) => boolean) & { errors?: ErrorObject[] | null }) | undefined;
/** The JSON Schema of expectation files (expect.schema.json). */
export function expectSchema(): Record<string, unknown> {
  return JSON.parse(readFileSync(packageFile('expect.schema.json'), 'utf8')) as Record<string, unknown>;
}

/** "file:line:col (at expectations[2].expect.text)" for a place in the document. */
function placeOf(file: string, doc: Document, lines: LineCounter, path: PathPart[]): string {
  let node: unknown = doc.contents;
  let found: Node | undefined = node as Node | undefined;
  for (const p of path) {
    if (isMap(node)) {
      const pair = node.items.find((i) => isScalar(i.key) && String(i.key.value) === String(p));
      if (!pair) break;
      node = pair.value;
      if (node) found = node as Node;
      else {
        found = pair.key as Node;
        break;
      }
    } else if (isSeq(node)) {
      node = node.items[Number(p)];
      if (!node) break;
      found = node as Node;
    } else break;
  }
  const offset = found?.range?.[0] ?? 0;
  const { line, col } = lines.linePos(offset);
  return `${file}:${line}:${col}${path.length ? ` (at ${pathText(path)})` : ''}`;
}

function pathText(path: PathPart[]): string {
  return path.map((p, i) => (typeof p === 'number' ? `[${p}]` : i ? `.${p}` : p)).join('');
}

function schemaProblem(e: ErrorObject): string {
  const p = e.params as Record<string, unknown>;
  switch (e.keyword) {
    case 'additionalProperties': {
      const known = Object.keys(
        (e.parentSchema as { properties?: Record<string, unknown> } | undefined)?.properties ?? {},
      );
      return `unknown key "${String(p.additionalProperty)}"${didYouMean(String(p.additionalProperty), known)}`;
    }
    case 'required':
      return `"${String(p.missingProperty)}" is missing`;
    case 'const':
      return `must be ${JSON.stringify(p.allowedValue)}`;
    case 'type':
      return `must be ${String(p.type)}`;
    case 'pattern':
      return `must match ${String(p.pattern)}`;
    default:
      return e.message ?? e.keyword;
  }
}

/** Parses and checks expectation text (YAML, or JSON when json is set or the file name ends in .json). */
export function parseExpectText(text: string, file: string): ExpectFile {
  const json = /\.json$/i.test(file);
  const lines = new LineCounter();
  const doc = parseDocument(text, { lineCounter: lines, prettyErrors: false, uniqueKeys: true });
  const bad = doc.errors[0];
  if (bad) {
    const { line, col } = lines.linePos(bad.pos[0]);
    throw new ExpectFileError(
      `${file}:${line}:${col}: not valid ${json ? 'JSON' : 'YAML'}: ${bad.message.split('\n')[0]}`,
    );
  }
  const value: unknown = doc.toJS({ maxAliasCount: 100 });
  const at = (path: PathPart[]) => placeOf(file, doc, lines, path);
  if (value === null || typeof value !== 'object' || Array.isArray(value))
    throw new ExpectFileError(`${at([])}: an expectation file is a mapping with "expectations" (a list)`);
  const top = value as Record<string, unknown>;
  if (top.version !== undefined && top.version !== EXPECT_FORMAT_VERSION)
    throw new ExpectFileError(
      `${at(['version'])}: version ${JSON.stringify(top.version)} is not one this mcp-conform reads (it reads version ${EXPECT_FORMAT_VERSION})`,
    );
  if (!Array.isArray(top.expectations))
    throw new ExpectFileError(
      `${at(top.expectations === undefined ? [] : ['expectations'])}: "expectations" must be a list of expectations`,
    );
  // The form of each expectation first (the schema's oneOf would only say "must match exactly one schema").
  top.expectations.forEach((e, i) => {
    if (e === null || typeof e !== 'object' || Array.isArray(e))
      throw new ExpectFileError(
        `${at(['expectations', i])}: an expectation is a mapping (name, one of ${FORMS.join(', ')}, expect)`,
      );
    const keys = Object.keys(e as object);
    const forms = FORMS.filter((f) => keys.includes(f));
    if (forms.length !== 1) {
      // A misspelt form ("cal:", "tool:") is named with the form it is nearest to.
      const guess = forms.length
        ? undefined
        : keys
            .map(
              (k) =>
                [
                  k,
                  nearest(k, FORMS) ??
                    (
                      { tool: 'call', method: 'request', resource: 'read', uri: 'read', list: 'tools' } as Record<
                        string,
                        string
                      >
                    )[k],
                ] as const,
            )
            .find(([, f]) => f);
      throw new ExpectFileError(
        `${at(['expectations', i, ...(guess ? [guess[0]] : [])])}: ${guess ? `unknown key "${guess[0]}"; did you mean ${guess[1]}? ` : ''}an expectation has exactly one of ${FORMS.join(', ')} (${forms.length ? `found ${forms.join(' and ')}` : 'found none'})`,
      );
    }
    const form = forms[0]!;
    for (const k of keys) {
      if ((FORMS as readonly string[]).includes(k) || !['arguments', 'params', 'save'].includes(k)) continue;
      if (k === 'save' ? form === 'tools' : !FORM_KEYS[form].includes(k))
        throw new ExpectFileError(
          `${at(['expectations', i, k])}: "${k}" does not go with ${form}${k === 'params' ? ' (params go with request)' : k === 'arguments' ? ' (arguments go with call and prompt)' : ''}`,
        );
    }
  });
  validator ??= new Ajv({ allErrors: true, strict: false, verbose: true }).compile(expectSchema());
  if (!validator(value)) {
    const errs = (validator.errors ?? []).filter(
      (e) =>
        !['oneOf', 'not', 'anyOf'].includes(e.keyword) &&
        !(e.keyword === 'required' && e.schemaPath.includes('/oneOf/')),
    );
    const first = errs.find((e) => e.keyword === 'additionalProperties') ?? errs[0] ?? validator.errors![0]!;
    const parts = parsePath(first.instancePath);
    const where =
      first.keyword === 'additionalProperties'
        ? [...parts, String((first.params as { additionalProperty: string }).additionalProperty)]
        : parts;
    throw new ExpectFileError(
      `${at(where)}: ${schemaProblem(first)}${errs.length > 1 ? ` (and ${errs.length - 1} more problem${errs.length > 2 ? 's' : ''})` : ''}`,
    );
  }
  const seen = new Map<string, number>();
  const saved = new Set<string>();
  const expectations = (top.expectations as Record<string, unknown>[]).map((e, i): Expectation => {
    const form = FORMS.find((f) => f in e)!;
    const name = String(e.name);
    const slug = slugOf(name);
    const before = seen.get(slug);
    if (before !== undefined)
      throw new ExpectFileError(
        `${at(['expectations', i, 'name'])}: the name gives the case id expect/${slug}, as expectation ${before + 1} ("${String((top.expectations as Record<string, unknown>[])[before]!.name)}") does: names must differ in more than case and punctuation`,
      );
    seen.set(slug, i);
    const checks = (e.expect ?? {}) as Checks;
    if (checks.textMatches !== undefined) {
      try {
        regexOf(checks.textMatches);
      } catch (x) {
        throw new ExpectFileError(
          `${at(['expectations', i, 'expect', 'textMatches'])}: not a regular expression: ${(x as Error).message}`,
        );
      }
    }
    for (const [p, v] of Object.entries(checks.paths ?? {})) {
      try {
        parsePath(p);
      } catch (x) {
        throw new ExpectFileError(`${at(['expectations', i, 'expect', 'paths', p])}: ${(x as Error).message}`);
      }
      const op = operatorOf(v);
      if (op instanceof Error)
        throw new ExpectFileError(`${at(['expectations', i, 'expect', 'paths', p])}: ${op.message}`);
    }
    // ${name…} may only name what an earlier expectation saves.
    for (const ref of references(e)) {
      if (!saved.has(ref.name))
        throw new ExpectFileError(
          `${at(['expectations', i, ...ref.path])}: \${${ref.name}…} names no answer saved by an earlier expectation (save: ${ref.name})`,
        );
    }
    if (typeof e.save === 'string') saved.add(e.save);
    const line = lines.linePos((doc.getIn(['expectations', i], true) as Node | undefined)?.range?.[0] ?? 0).line;
    return {
      name,
      slug,
      index: i,
      line,
      form,
      ...(form !== 'tools' ? { target: String(e[form]) } : { tools: e.tools as ToolsCheck }),
      ...(e.arguments !== undefined ? { arguments: e.arguments as Record<string, unknown> } : {}),
      ...(e.params !== undefined ? { params: e.params as Record<string, unknown> } : {}),
      ...(typeof e.save === 'string' ? { save: e.save } : {}),
      expect: checks,
    };
  });
  return { file, json, expectations, text, doc, lines };
}

/** Reads and checks one expectation file (a path resolved against the current directory). */
export function loadExpectFile(file: string): ExpectFile {
  const abs = resolve(file);
  let text: string;
  try {
    text = readFileSync(abs, 'utf8');
  } catch (e) {
    throw new ExpectFileError(
      `cannot read the expectation file ${abs}: ${(e as NodeJS.ErrnoException).code ?? (e as Error).message}`,
    );
  }
  return parseExpectText(text, abs);
}

/** Every file, in order, with case ids unique across them: the message names both places when two clash. */
export function loadExpectFiles(files: readonly string[]): ExpectFile[] {
  const loaded = files.map(loadExpectFile);
  const ids = new Map<string, string>();
  for (const f of loaded) {
    for (const e of f.expectations) {
      const other = ids.get(e.slug);
      if (other)
        throw new ExpectFileError(
          `${f.file}:${e.line}: the name "${e.name}" gives the case id expect/${e.slug}, as an expectation of ${other} does: case ids must be unique in a run`,
        );
      ids.set(e.slug, `${f.file}:${e.line}`);
    }
  }
  return loaded;
}

/** A regular expression from "/pattern/flags" or a bare pattern. */
export function regexOf(s: string): RegExp {
  const m = /^\/(.*)\/([dgimsuvy]*)$/s.exec(s);
  return m ? new RegExp(m[1]!, m[2]) : new RegExp(s);
}

export type PathOperator = { $exists?: boolean; $type?: string; $matches?: string };
const TYPES = ['string', 'number', 'integer', 'boolean', 'object', 'array', 'null'];

/** A paths value that is an operator object ($exists, $type, $matches), undefined for a literal, an Error when malformed. */
export function operatorOf(v: unknown): PathOperator | undefined | Error {
  if (v === null || typeof v !== 'object' || Array.isArray(v)) return undefined;
  const keys = Object.keys(v);
  const ops = keys.filter((k) => k.startsWith('$'));
  if (!ops.length) return undefined;
  if (ops.length !== keys.length)
    return new Error(
      `mixes operators (${ops.join(', ')}) with members (${keys.filter((k) => !k.startsWith('$')).join(', ')})`,
    );
  const o = v as Record<string, unknown>;
  for (const k of ops)
    if (!['$exists', '$type', '$matches'].includes(k))
      return new Error(`unknown operator ${k} (known: $exists, $type, $matches)`);
  if (o.$exists !== undefined && typeof o.$exists !== 'boolean') return new Error('$exists must be true or false');
  if (o.$type !== undefined && !TYPES.includes(String(o.$type)))
    return new Error(`$type must be one of ${TYPES.join(', ')}`);
  if (o.$matches !== undefined) {
    if (typeof o.$matches !== 'string') return new Error('$matches must be a string');
    try {
      regexOf(o.$matches);
    } catch (x) {
      return new Error(`$matches is not a regular expression: ${(x as Error).message}`);
    }
  }
  return o as PathOperator;
}

/** The saved names an expectation refers to, with where. */
function references(e: Record<string, unknown>): { name: string; path: PathPart[] }[] {
  const out: { name: string; path: PathPart[] }[] = [];
  const walk = (v: unknown, path: PathPart[]): void => {
    if (typeof v === 'string') {
      for (const m of v.matchAll(REFERENCE)) {
        if (m[1]) continue;
        const name = /^[A-Za-z_][A-Za-z0-9_]*/.exec(m[2]!.trim())?.[0];
        out.push({ name: name ?? m[2]!, path });
      }
    } else if (Array.isArray(v)) v.forEach((x, i) => walk(x, [...path, i]));
    else if (v && typeof v === 'object') for (const [k, x] of Object.entries(v)) walk(x, [...path, k]);
  };
  for (const k of ['call', 'request', 'read', 'prompt', 'arguments', 'params', 'expect'])
    if (e[k] !== undefined) walk(e[k], [k]);
  return out;
}
