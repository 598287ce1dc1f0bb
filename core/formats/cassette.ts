/**
 * Cassettes: recorded MCP sessions as JSON Lines (format `mcp-conform-cassette`, version 1).
 *
 * Line 1 is the header; every other line is one message as it crossed the wire. Readers skip line types they do not
 * know, so later versions can add lines (e.g. timing marks) without breaking older readers. See docs/mocks.md, "Cassette format".
 */
import { readFileSync, renameSync, unlinkSync, writeFileSync } from 'node:fs';
import { basename, dirname, join } from 'node:path';
import type { Direction, LoggedMessage } from '../log.js';
import type { Report } from '../results.js';
import { VERSION } from '../version.js';
import type { Redactor, RedactionNote } from '../redact.js';
import { envSecretRedactor } from '../secrets.js';

export const CASSETTE_FORMAT = 'mcp-conform-cassette';
export const CASSETTE_VERSION = 1;

export interface CassetteHeader {
  type: 'header';
  format: typeof CASSETTE_FORMAT;
  version: number;
  /** Who wrote it: the tool, and how (run = the harness's own session, record-stdio / record-http = a proxy). */
  recorder: { name: string; version: string; mode: string };
  /** When the recording started (ISO 8601). */
  recordedAt: string;
  transport: 'stdio' | 'streamable-http' | 'sse';
  /** The protocol version the recorded session agreed on. */
  protocolVersion?: string;
  server?: { serverInfo?: Record<string, unknown>; capabilities?: Record<string, unknown>; instructions?: string };
  /** What was redacted before writing (never the secret values themselves). */
  redactions: RedactionNote[];
}

export interface CassetteMessage {
  type: 'message';
  dir: Direction;
  /** Milliseconds since the recording started. */
  t: number;
  /** The message as sent (after redaction). Absent when the line was not JSON: then `raw` holds it. */
  message?: unknown;
  raw?: string;
  /** Which client connection (a proxy records several; 0 when there is one). */
  conn?: number;
  /** Over HTTP: the exchange that carried it and, for SSE streams, the event name and id (order is line order). */
  http?: { exchange?: number; method?: string; sseEvent?: string; sseId?: string; status?: number };
  /** Set on a message the harness sent malformed on purpose (a probe of `run --record`): why. `validate` does not count its violations. */
  probe?: string;
}

export interface Cassette {
  file?: string;
  header: CassetteHeader;
  messages: CassetteMessage[];
  /** Line numbers in the file of each message (parallel to messages), for messages that name a recording. */
  lines?: number[];
}

/** A cassette or fixture that cannot be read: a usage error (exit 2) naming the file and line. */
export class MockInputError extends Error {}

export function newHeader(mode: string, transport: CassetteHeader['transport'], redactor?: Redactor): CassetteHeader {
  return {
    type: 'header',
    format: CASSETTE_FORMAT,
    version: CASSETTE_VERSION,
    recorder: { name: 'mcp-conform', version: VERSION, mode },
    recordedAt: new Date().toISOString(),
    transport,
    redactions: redactor?.notes() ?? [],
  };
}

/** Parses cassette text. Unknown line types are skipped; anything unreadable names the line. */
export function parseCassette(text: string, file = '<cassette>'): Cassette {
  const lines = text.split('\n');
  let header: CassetteHeader | undefined;
  const messages: CassetteMessage[] = [];
  const lineNos: number[] = [];
  for (let i = 0; i < lines.length; i++) {
    const line = lines[i]!.replace(/\r$/, '');
    if (!line.trim()) continue;
    const where = `${file}:${i + 1}`;
    let v: unknown;
    try {
      v = JSON.parse(line);
    } catch (e) {
      const last = lines.slice(i + 1).every((l) => !l.trim());
      throw new MockInputError(
        `${where}: not JSON${last ? ' (the file looks truncated)' : ''}: ${(e as Error).message}`,
      );
    }
    if (!v || typeof v !== 'object' || Array.isArray(v))
      throw new MockInputError(`${where}: a cassette line must be a JSON object`);
    const o = v as Record<string, unknown>;
    if (!header) {
      if (o.type !== 'header' || o.format !== CASSETTE_FORMAT)
        throw new MockInputError(
          `${where}: the first line must be the cassette header ({"type":"header","format":"${CASSETTE_FORMAT}",…})`,
        );
      if (typeof o.version !== 'number' || o.version > CASSETTE_VERSION)
        throw new MockInputError(
          `${where}: cassette format version ${String(o.version)} is not supported (this mcp-conform reads version ${CASSETTE_VERSION})`,
        );
      header = { redactions: [], ...o } as unknown as CassetteHeader;
      continue;
    }
    if (o.type !== 'message') continue; // readers skip unknown line types
    if (o.dir !== 'to-server' && o.dir !== 'from-server')
      throw new MockInputError(`${where}: "dir" must be "to-server" or "from-server"`);
    if (!('message' in o) && typeof o.raw !== 'string')
      throw new MockInputError(`${where}: a message line needs "message" (or "raw")`);
    messages.push({ ...(o as unknown as CassetteMessage), t: typeof o.t === 'number' ? o.t : 0 });
    lineNos.push(i + 1);
  }
  if (!header) throw new MockInputError(`${file}: empty: no cassette header`);
  return { file, header, messages, lines: lineNos };
}

export function readCassette(file: string): Cassette {
  let text: string;
  try {
    text = readFileSync(file, 'utf8');
  } catch (e) {
    throw new MockInputError(`${file}: cannot read: ${(e as NodeJS.ErrnoException).code ?? (e as Error).message}`);
  }
  return parseCassette(text, file);
}

export function serializeCassette(c: Cassette): string {
  return [c.header, ...c.messages].map((l) => JSON.stringify(l)).join('\n') + '\n';
}

/** Writes atomically (a temporary file in the same folder, then rename): a reader never sees half a cassette. */
export function writeFileAtomic(file: string, text: string): void {
  const tmp = join(dirname(file), `.${basename(file)}.${process.pid}.${Math.random().toString(36).slice(2)}.tmp`);
  try {
    writeFileSync(tmp, text);
    renameSync(tmp, file);
  } catch (e) {
    try {
      unlinkSync(tmp);
    } catch {
      /* not there */
    }
    throw e;
  }
}

/** Writes a cassette; the values of secret environment variables are replaced wherever they appear (core/secrets.ts). */
export function writeCassette(file: string, c: Cassette): void {
  writeFileAtomic(file, envSecretRedactor()(serializeCassette(c)));
}

/** A cassette line for one message (redacted). `text` is the message as it crossed the wire. */
export function messageLine(
  dir: Direction,
  t: number,
  text: string,
  redactor?: Redactor,
  extra: Partial<CassetteMessage> = {},
): CassetteMessage {
  let message: unknown;
  let parsed = false;
  try {
    message = JSON.parse(text);
    parsed = true;
  } catch {
    /* kept raw */
  }
  const line: CassetteMessage = { type: 'message', dir, t: Math.round(t * 1000) / 1000, ...extra };
  if (parsed) line.message = redactor ? redactor.value(message) : message;
  else line.raw = redactor ? redactor.text(text) : text;
  return line;
}

/** The harness's own session (the report's message log) as a cassette: `run --record FILE`. */
export function cassetteFromReport(report: Report, redactor?: Redactor): Cassette {
  const transport = (
    report.target.transport === 'stdio' || report.target.transport === 'sse'
      ? report.target.transport
      : 'streamable-http'
  ) as CassetteHeader['transport'];
  const messages = (report.messages as LoggedMessage[]).map((m) => {
    const http = m.http
      ? {
          exchange: m.http.exchange,
          method: m.http.method,
          status: m.http.status,
          ...(m.http.sseEvent ? { sseEvent: m.http.sseEvent, sseId: m.http.sseId } : {}),
        }
      : undefined;
    return messageLine(m.direction, m.t, m.raw, redactor, {
      ...(http ? { http } : {}),
      ...(m.schema.expectedInvalid ? { probe: m.schema.expectedInvalid } : {}),
    });
  });
  const header = newHeader('run', transport, redactor);
  header.recordedAt = report.startedAt;
  header.protocolVersion = report.server.protocolVersion;
  const si = {
    name: report.server.name,
    version: report.server.version,
    ...(report.server.title ? { title: report.server.title } : {}),
  };
  header.server = redactor
    ? (redactor.value({
        serverInfo: si,
        capabilities: report.server.capabilities,
        instructions: report.server.instructions,
      }) as CassetteHeader['server'])
    : { serverInfo: si, capabilities: report.server.capabilities, instructions: report.server.instructions };
  return { header, messages };
}

/** Fills header.server / protocolVersion from the recorded initialize answer (recorders call this). */
export function describeFromMessages(c: Cassette): void {
  const init = c.messages.find(
    (m) => m.dir === 'to-server' && (m.message as { method?: string } | undefined)?.method === 'initialize',
  );
  if (!init) return;
  const id = (init.message as { id?: unknown }).id;
  const ans = c.messages.find(
    (m) =>
      m.dir === 'from-server' &&
      (m.message as { id?: unknown; result?: unknown } | undefined)?.id === id &&
      (m.message as { result?: unknown }).result,
  );
  const r = (ans?.message as { result?: Record<string, unknown> } | undefined)?.result;
  if (!r) return;
  c.header.protocolVersion = typeof r.protocolVersion === 'string' ? r.protocolVersion : undefined;
  c.header.server = {
    serverInfo: r.serverInfo as Record<string, unknown>,
    capabilities: r.capabilities as Record<string, unknown>,
    ...(typeof r.instructions === 'string' ? { instructions: r.instructions } : {}),
  };
}
