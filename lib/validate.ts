/**
 * Offline schema checks: `mcp-conform validate FILE` (every message of a recorded log — a report.json or a cassette —
 * against one protocol version, the same violations the schema suite reports) and `--schema FILE` (a schema
 * document of the user's instead of the built-in one, compiled up front so that a broken file is a usage error).
 */
import { readFileSync } from 'node:fs';
import { classify, type Direction, type LoggedMessage, type SchemaVerdict } from '../core/log.js';
import { newAjv } from '../core/schema/ajv.js';
import { MessageValidator } from '../core/schema/validator.js';
import { isObject as isObj } from '../core/objects.js';
import { schemaDocumentFor } from '../core/schema/index.js';
import { PROTOCOL_VERSIONS, isProtocolVersion, type ProtocolVersion } from '../core/schema/versions.js';
import { requestDeclaresTasks } from '../core/wire.js';
import { OptionsError, unknownKeysMessage } from './option-keys.js';

/** A file that cannot be read, parsed or compiled: a usage error (exit 2). */
export class InputError extends Error {
  override name = 'InputError';
}

export interface UserSchema {
  file: string;
  document: Record<string, unknown>;
  dialect: 'draft-07' | '2020-12';
}

/** The definitions the harness looks messages up by: a schema without them cannot check anything. */
const ENVELOPES: [string, string?][] = [
  ['JSONRPCMessage'],
  ['JSONRPCRequest'],
  ['JSONRPCNotification'],
  ['JSONRPCResultResponse', 'JSONRPCResponse'],
  ['JSONRPCErrorResponse', 'JSONRPCError'],
];

/**
 * Read and compile a schema document (--schema FILE). The dialect comes from its `$schema` (draft-07 or 2020-12;
 * none: 2020-12). Every definition is compiled, so an unresolvable $ref or a keyword with a bad value is found now.
 */
export function loadSchemaFile(file: string): UserSchema {
  let text: string;
  try {
    text = readFileSync(file, 'utf8');
  } catch (e) {
    throw new InputError(`--schema: cannot read ${file}: ${(e as NodeJS.ErrnoException).code ?? (e as Error).message}`);
  }
  let doc: unknown;
  try {
    doc = JSON.parse(text);
  } catch (e) {
    throw new InputError(`--schema: ${file} is not JSON: ${(e as Error).message}`);
  }
  if (doc === null || typeof doc !== 'object' || Array.isArray(doc))
    throw new InputError(`--schema: ${file} is not a JSON Schema document (not an object)`);
  const document = doc as Record<string, unknown>;
  const declared = typeof document.$schema === 'string' ? document.$schema : undefined;
  let dialect: UserSchema['dialect'];
  if (declared === undefined || declared.includes('2020-12')) dialect = '2020-12';
  else if (declared.includes('draft-07')) dialect = 'draft-07';
  else
    throw new InputError(
      `--schema: ${file}: $schema ${JSON.stringify(declared)} is not a dialect mcp-conform reads (draft-07 or 2020-12)`,
    );
  const defsKey = document.$defs ? '$defs' : 'definitions';
  const defs = document[defsKey];
  if (defs === null || typeof defs !== 'object' || Array.isArray(defs))
    throw new InputError(
      `--schema: ${file} has no $defs or definitions: the harness checks messages against named definitions (JSONRPCRequest, CallToolResult, …)`,
    );
  const missing = ENVELOPES.filter(([a, b]) => !(a in defs) && !(b && b in defs)).map(([a, b]) =>
    b ? `${a} (or ${b})` : a,
  );
  if (missing.length)
    throw new InputError(
      `--schema: ${file} lacks the definition${missing.length > 1 ? 's' : ''} ${missing.join(', ')} that every message is checked against`,
    );
  const opts = { strict: false, allErrors: true };
  const ajv = newAjv(dialect, opts);
  const id = typeof document.$id === 'string' ? document.$id : 'urn:mcp-conform:user-schema';
  try {
    ajv.addSchema({ ...document, $id: id });
    for (const name of Object.keys(defs))
      ajv.compile({ $ref: `${id}#/${defsKey}/${name.replace(/~/g, '~0').replace(/\//g, '~1')}` });
  } catch (e) {
    throw new InputError(`--schema: ${file} does not compile (${dialect}): ${(e as Error).message}`);
  }
  return { file, document, dialect };
}

export function validatorFor(version: ProtocolVersion, schema?: UserSchema): MessageValidator {
  if (schema) return new MessageValidator(version, schema.document, schema.dialect);
  const { version: v, document } = schemaDocumentFor(version);
  return new MessageValidator(v, document);
}

/** One message of a recorded log, checked. */
export interface CheckedMessage {
  /** Position in the file's message list (from 0). */
  index: number;
  direction: Direction;
  kind: LoggedMessage['kind'];
  method?: string;
  id?: string | number | null;
  /** Set on probes the harness sent malformed on purpose (from a report): their violations do not count. */
  expectedInvalid?: string;
  schema: SchemaVerdict;
}

export interface LogValidation {
  file: string;
  /** fixture: a declarative mock fixture, checked by what it serves (see fixtureExchange in mocks/fixture.ts). */
  format: 'report' | 'cassette' | 'fixture';
  /** The version checked against, and where it came from. */
  protocolVersion: ProtocolVersion;
  versionFrom: 'option' | 'file' | 'default';
  /** A report of a dual-era server: each era's messages were checked against its own version (these, in order). */
  eras?: ProtocolVersion[];
  schemaFile?: string;
  messages: CheckedMessage[];
  /** Lines that are not JSON at all (not messages; not checked). */
  notJson: number;
  /** Messages of a report written with --report-bodies truncated whose body was cut (not checked); absent when none. */
  truncated?: number;
  /** Messages with violations that count (not malformed on purpose). */
  invalid: number;
}

interface RawMessage {
  direction: Direction;
  json?: unknown;
  raw?: string;
  /** The version of the era the message belongs to (a report of a dual-era server: report.eras). */
  era?: ProtocolVersion;
  expectedInvalid?: string;
  /** Its body was cut by --report-bodies truncated: it cannot be checked. */
  truncated?: boolean;
}

/** Read a report.json (its messages) or a cassette: the messages in order, and the version the file names. */
async function readLog(
  file: string,
): Promise<{ format: 'report' | 'cassette' | 'fixture'; version?: string; messages: RawMessage[] }> {
  let text: string;
  try {
    text = readFileSync(file, 'utf8');
  } catch (e) {
    throw new InputError(`validate: cannot read ${file}: ${(e as NodeJS.ErrnoException).code ?? (e as Error).message}`);
  }
  let whole: unknown;
  let isJson = true;
  try {
    whole = JSON.parse(text);
  } catch {
    isJson = false;
  }
  if (isJson && isObj(whole) && Array.isArray(whole.messages)) {
    const r = whole as {
      messages: Record<string, unknown>[];
      options?: Record<string, unknown>;
      server?: Record<string, unknown>;
      runs?: unknown;
      eras?: unknown;
    };
    // A dual-era report: each era's messages (a range of seq numbers) are checked against that era's version.
    const eras = (Array.isArray(r.eras) ? r.eras : []).filter(isObj).flatMap((e) => {
      const range = e.messages;
      return isProtocolVersion(e.protocolVersion) &&
        isObj(range) &&
        typeof range.from === 'number' &&
        typeof range.to === 'number'
        ? [{ version: e.protocolVersion, from: range.from, to: range.to }]
        : [];
    });
    const eraOf = (m: Record<string, unknown>) =>
      typeof m.seq === 'number'
        ? eras.find((e) => (m.seq as number) >= e.from && (m.seq as number) <= e.to)?.version
        : undefined;
    const version = (r.options?.protocolVersionInForce ?? r.server?.protocolVersion) as string | undefined;
    if (r.options?.reportBodies === 'none')
      throw new InputError(
        `validate: ${file} was written with --report-bodies none: its messages carry no bodies to check (run again with --report-bodies full, the default, or truncated)`,
      );
    const messages = r.messages.map(
      (m): RawMessage => ({
        direction: m.direction === 'from-server' ? 'from-server' : 'to-server',
        ...('json' in m ? { json: m.json } : {}),
        raw: typeof m.raw === 'string' ? m.raw : undefined,
        era: eraOf(m),
        expectedInvalid:
          isObj(m.schema) && typeof m.schema.expectedInvalid === 'string' ? m.schema.expectedInvalid : undefined,
        ...(typeof m.rawChars === 'number' && !('json' in m) ? { truncated: true } : {}),
      }),
    );
    return { format: 'report', version, messages };
  }
  // A declarative mock fixture (YAML, or JSON with a `server` and no `messages`): what it serves is checked.
  if (
    /\.ya?ml$/i.test(file) ||
    (isJson && isObj(whole) && isObj(whole.server) && !('messages' in whole) && !('runs' in whole))
  ) {
    const { parseFixture } = await import('../core/formats/fixture.js');
    const { FixtureSource, fixtureExchange } = await import('../mocks/fixture.js');
    const { MockInputError } = await import('../core/formats/cassette.js');
    try {
      const src = new FixtureSource(parseFixture(text, file), file);
      const exchange = await fixtureExchange(src);
      return {
        format: 'fixture',
        version: src.protocolVersions[0],
        messages: exchange.map((m) => ({ direction: m.direction, json: m.json, raw: JSON.stringify(m.json) })),
      };
    } catch (e) {
      if (e instanceof MockInputError) throw new InputError(`validate: ${e.message}`);
      throw e;
    }
  }
  if (isJson && isObj(whole) && Array.isArray(whole.runs))
    throw new InputError(`validate: ${file} is a report of several targets: validate the report of one run`);
  const { parseCassette, MockInputError } = await import('../core/formats/cassette.js');
  try {
    const c = parseCassette(text, file);
    return {
      format: 'cassette',
      version: c.header.protocolVersion,
      messages: c.messages.map((m) => ({
        direction: m.dir,
        ...('message' in m ? { json: m.message } : {}),
        raw: m.raw,
        ...(m.probe ? { expectedInvalid: m.probe } : {}),
      })),
    };
  } catch (e) {
    if (e instanceof MockInputError)
      throw new InputError(`validate: ${file} is neither a report.json nor a cassette: ${e.message}`);
    throw e;
  }
}

/**
 * Check every message of a recorded log against one version (the option's, else the one the file names, else
 * 2025-11-25). Responses are checked as answers to the request with the same id sent before them in the other
 * direction, as in a live run.
 */
export async function validateLog(
  file: string,
  opts: { protocolVersion?: ProtocolVersion; schema?: UserSchema } = {},
): Promise<LogValidation> {
  const unknown = unknownKeysMessage(opts, ['protocolVersion', 'schema'], 'validateLog');
  if (unknown) throw new OptionsError(unknown);
  const log = await readLog(file);
  let protocolVersion: ProtocolVersion;
  let versionFrom: LogValidation['versionFrom'];
  if (opts.protocolVersion) {
    protocolVersion = opts.protocolVersion;
    versionFrom = 'option';
  } else if (isProtocolVersion(log.version)) {
    protocolVersion = log.version;
    versionFrom = 'file';
  } else if (log.version !== undefined)
    throw new InputError(
      `validate: ${file} names protocol version ${JSON.stringify(log.version)}, which is not a published one (${PROTOCOL_VERSIONS.join(', ')}): choose one with --protocol-version`,
    );
  else {
    protocolVersion = '2025-11-25';
    versionFrom = 'default';
  }
  // Each era of a dual-era report against its own version, unless --protocol-version names one for all.
  const validators = new Map<ProtocolVersion, MessageValidator>();
  const validatorOf = (v: ProtocolVersion) =>
    validators.get(v) ?? validators.set(v, validatorFor(v, opts.schema)).get(v)!;
  const versionOf = (m: RawMessage) => (opts.protocolVersion ? protocolVersion : (m.era ?? protocolVersion));
  let methodsById: Record<Direction, Map<string, string>> = { 'to-server': new Map(), 'from-server': new Map() };
  /** Ids of requests sent with params.task, by direction: their answers may be CreateTaskResults. */
  let taskIds: Record<Direction, Set<string>> = { 'to-server': new Set(), 'from-server': new Set() };
  let era: ProtocolVersion | undefined;
  const key = (id: unknown) => `${typeof id}:${String(id)}`;
  const out: CheckedMessage[] = [];
  let notJson = 0;
  let invalid = 0;
  let truncated = 0;
  log.messages.forEach((m, index) => {
    if (m.truncated) {
      truncated++;
      return;
    }
    // A new era is a new session: its request ids start again.
    if (m.era !== era) {
      era = m.era;
      methodsById = { 'to-server': new Map(), 'from-server': new Map() };
      taskIds = { 'to-server': new Set(), 'from-server': new Set() };
    }
    const validator = validatorOf(versionOf(m));
    let json = m.json;
    if (json === undefined) {
      if (m.raw === undefined) return;
      try {
        json = JSON.parse(m.raw);
      } catch {
        notJson++;
        return;
      }
    }
    const c = classify(json);
    let method = c.method;
    let taskAugmented = false;
    if (c.kind === 'request' && c.id !== undefined && c.id !== null && method) {
      methodsById[m.direction].set(key(c.id), method);
      const task = (json as { params?: { task?: unknown } }).params?.task;
      // 2025-11-25: params.task; 2026-07-28: the request declares the io.modelcontextprotocol/tasks extension (as the session marks them).
      if ((task !== null && typeof task === 'object' && !Array.isArray(task)) || requestDeclaresTasks(json))
        taskIds[m.direction].add(key(c.id));
    }
    if ((c.kind === 'response' || c.kind === 'error') && c.id !== undefined && c.id !== null) {
      const other = m.direction === 'to-server' ? 'from-server' : 'to-server';
      method = methodsById[other].get(key(c.id));
      taskAugmented = taskIds[other].has(key(c.id));
    }
    const schema = validator.check({
      direction: m.direction,
      kind: c.kind,
      method,
      json,
      ...(taskAugmented ? { taskAugmented } : {}),
    });
    if (!schema.valid && !m.expectedInvalid) invalid++;
    out.push({
      index,
      direction: m.direction,
      kind: c.kind,
      ...(method ? { method } : {}),
      ...(c.id !== undefined ? { id: c.id } : {}),
      ...(m.expectedInvalid ? { expectedInvalid: m.expectedInvalid } : {}),
      schema,
    });
  });
  const eraVersions = opts.protocolVersion ? [] : [...new Set(log.messages.flatMap((m) => (m.era ? [m.era] : [])))];
  return {
    file,
    format: log.format,
    protocolVersion,
    versionFrom,
    ...(eraVersions.length > 1 ? { eras: eraVersions } : {}),
    ...(opts.schema ? { schemaFile: opts.schema.file } : {}),
    messages: out,
    notJson,
    invalid,
    ...(truncated ? { truncated } : {}),
  };
}

/** The console text of a validation: every message with violations, in the schema suite's words, and a total. */
export function validationText(v: LogValidation): string {
  const lines: string[] = [];
  const from =
    v.versionFrom === 'option'
      ? '--protocol-version'
      : v.versionFrom === 'file'
        ? `named in the ${v.format}`
        : 'none named: the default';
  lines.push(
    `${v.file} (${v.format}): ${v.messages.length} messages checked against ${v.schemaFile ? `${v.schemaFile} as ` : ''}${v.eras ? `protocols ${v.eras.join(' and ')} (each era's messages against its version, named in the report)` : `protocol ${v.protocolVersion} (${from})`}${v.notJson ? `; ${v.notJson} lines are not JSON (not messages)` : ''}${v.truncated ? `; ${v.truncated} messages cut by --report-bodies truncated are not checked` : ''}`,
  );
  for (const m of v.messages) {
    if (m.schema.valid) continue;
    const what = `message ${m.index} (${m.direction}, ${m.kind}${m.method ? ` ${m.method}` : ''}${m.id !== undefined ? ` id ${JSON.stringify(m.id)}` : ''}, ${m.schema.definition})`;
    const viol = m.schema.violations
      .slice(0, 5)
      .map((x) => `${x.pointer || '(root)'} ${x.message}`)
      .join(', ');
    lines.push(
      `  ${m.expectedInvalid ? '·' : '✗'} ${what}: ${viol}${m.expectedInvalid ? ` (malformed on purpose: ${m.expectedInvalid})` : ''}`,
    );
  }
  lines.push(
    v.invalid
      ? `Result: ${v.invalid} of ${v.messages.length} messages violate the schema`
      : `Result: all ${v.messages.length} messages valid`,
  );
  return lines.join('\n') + '\n';
}
