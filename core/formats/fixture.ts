/**
 * The fixture format: a mock MCP server described in YAML or JSON (schema: fixtures/mocks/fixture.schema.json),
 * read and checked here so that both the mocks (mocks/fixture.ts serves it) and `validate` can use it.
 *
 * What a fixture declares: server info, versions, capabilities, tools with schemas, answers chosen by argument
 * patterns, isError answers, protocol errors, delays, progress and log notifications.
 */
import { existsSync, readFileSync } from 'node:fs';
import { extname } from 'node:path';
import { fileURLToPath } from 'node:url';
import { Ajv } from 'ajv';
import { LineCounter, parseDocument } from 'yaml';
import { MockInputError } from './cassette.js';
import { schemaErrorLines } from '../schema-words.js';

export interface FixtureAnswer {
  when?: Record<string, unknown>;
  text?: string;
  content?: Record<string, unknown>[];
  structuredContent?: Record<string, unknown>;
  isError?: boolean;
  result?: Record<string, unknown>;
  error?: { code: number; message: string; data?: unknown };
  delayMs?: number;
  progress?: { progress: number; total?: number; message?: string }[];
  log?: { level: string; logger?: string; data?: unknown }[];
}

export interface FixtureTool {
  name: string;
  title?: string;
  description?: string;
  inputSchema?: Record<string, unknown>;
  outputSchema?: Record<string, unknown>;
  annotations?: Record<string, unknown>;
  answers?: FixtureAnswer[];
}

export interface FixtureResource {
  uri: string;
  name: string;
  title?: string;
  description?: string;
  mimeType?: string;
  /** The contents: text, or blob (base64). */
  text?: string;
  blob?: string;
}

export interface FixtureTemplate {
  uriTemplate: string;
  name: string;
  title?: string;
  description?: string;
  mimeType?: string;
  /** The text of a read of a matching URI; {{variable}} is replaced by the variable's value. */
  text?: string;
  /** Completion values offered per variable (completion/complete with a ref/resource). */
  complete?: Record<string, string[]>;
}

export interface FixturePrompt {
  name: string;
  title?: string;
  description?: string;
  arguments?: { name: string; description?: string; required?: boolean; values?: string[] }[];
  /** The messages of prompts/get; {{argument}} in a text is replaced by the argument's value. */
  messages: { role: 'user' | 'assistant'; text?: string; content?: Record<string, unknown> }[];
}

export interface Fixture {
  server: { name: string; version: string; title?: string };
  resources?: FixtureResource[];
  resourceTemplates?: FixtureTemplate[];
  prompts?: FixturePrompt[];
  instructions?: string;
  protocolVersions?: string[];
  capabilities?: Record<string, unknown>;
  pageSize?: number;
  tools?: FixtureTool[];
}

export const DEFAULT_FIXTURE_VERSIONS = ['2025-11-25', '2025-06-18', '2025-03-26', '2024-11-05'];

function schemaPath(): string {
  const here = fileURLToPath(import.meta.url);
  // Bundled (dist/cli/), from the sources (core/formats/) and built by tsc alone (dist/core/formats/).
  const candidates = ['../../fixtures/mocks/fixture.schema.json', '../../../fixtures/mocks/fixture.schema.json'].map(
    (p) => fileURLToPath(new URL(p, import.meta.url)),
  );
  return candidates.find((c) => existsSync(c)) ?? `${here}/../fixture.schema.json`;
}

let fixtureValidator: ReturnType<Ajv['compile']> | undefined;

/** Reads and checks a fixture (YAML or JSON); problems name the file and line. */
export function parseFixture(text: string, file = '<fixture>'): Fixture {
  const lc = new LineCounter();
  const doc = parseDocument(text, { lineCounter: lc, prettyErrors: false });
  if (doc.errors.length) {
    const e = doc.errors[0]!;
    const pos = e.linePos?.[0] ?? lc.linePos(e.pos[0]);
    throw new MockInputError(
      `${file}:${pos.line}: ${extname(file) === '.json' ? 'not valid JSON' : 'not valid YAML'}: ${e.message.split('\n')[0]}`,
    );
  }
  const value = doc.toJS() as unknown;
  fixtureValidator ??= new Ajv({ allErrors: true, strict: false, verbose: true }).compile(
    JSON.parse(readFileSync(schemaPath(), 'utf8')),
  );
  if (!fixtureValidator(value)) {
    // An unknown key first (a typo explains the rest: `tols:` leaves the tools out), in words (core/schema-words.ts).
    const errors = [...fixtureValidator.errors!].sort(
      (a, b) => Number(b.keyword === 'additionalProperties') - Number(a.keyword === 'additionalProperties'),
    );
    const err = errors[0]!;
    const key =
      err.keyword === 'additionalProperties'
        ? [String((err.params as { additionalProperty?: string }).additionalProperty)]
        : [];
    const path = [
      ...err.instancePath
        .split('/')
        .slice(1)
        .map((p) => (/^\d+$/.test(p) ? Number(p) : p.replace(/~1/g, '/').replace(/~0/g, '~'))),
      ...key,
    ];
    const node = (doc.getIn(path, true) ?? doc.getIn(path.slice(0, -1), true)) as
      | { range?: [number, number, number] }
      | undefined;
    const line = node?.range ? lc.linePos(node.range[0]).line : 1;
    throw new MockInputError(`${file}:${line}: ${schemaErrorLines(errors, 3).join('\n  ')}`);
  }
  const f = value as Fixture;
  const names = new Set<string>();
  for (const t of f.tools ?? []) {
    if (names.has(t.name)) throw new MockInputError(`${file}: tool "${t.name}" is defined twice`);
    names.add(t.name);
  }
  return f;
}

export function readFixture(file: string): Fixture {
  let text: string;
  try {
    text = readFileSync(file, 'utf8');
  } catch (e) {
    throw new MockInputError(`${file}: cannot read: ${(e as NodeJS.ErrnoException).code ?? (e as Error).message}`);
  }
  return parseFixture(text, file);
}
