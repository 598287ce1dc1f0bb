/**
 * From a recorded session to an expectation file (`mcp-conform expect --from-cassette FILE` / `--from-report FILE`):
 * what the server answered, written as expectations a later run checks (suite expect, docs/expectations.md).
 *
 * Taken: the tool list (every page: `tools.exactly`, or `tools.includes` when the listing was not complete), each
 * tools/call (as `call`: isError, then structuredContent when there is one, else the text), resources/read (`read`:
 * the text) and prompts/get (`prompt`: the text), in the order sent; a request that was answered with a JSON-RPC error
 * expects that error's code. Left out: the handshake, ping, notifications, the server's own requests, messages the
 * harness malformed on purpose (a run's probes), calls of tools named mcp_conform_* (a run's made-up names), other
 * methods, and repeats of the same request with the same answer. A cassette of a real client's session (`record`)
 * gives the truest file; a run's own session holds the calls the harness made up.
 */
import { readFileSync } from 'node:fs';
import { readCassette } from '../core/formats/cassette.js';
import { inline } from '../suites/expect/update.js';
import { parseExpectText, slugOf } from '../suites/expect/format.js';
import { isObject as isObj } from '../core/objects.js';

/** One message of a recorded session, whatever it was recorded in. */
interface Recorded {
  dir: 'to-server' | 'from-server';
  json?: unknown;
  conn: number;
  /** The harness malformed it on purpose (a probe). */
  probe?: boolean;
}

export interface FromSession {
  /** The expectation file's text (YAML, or JSON when json is set). */
  text: string;
  /** How many expectations it holds, and what was left out (method → count), for the command's summary. */
  count: number;
  leftOut: Record<string, number>;
}

type Obj = Record<string, unknown>;

/** The messages of a cassette file. */
export function recordedFromCassette(file: string): Recorded[] {
  return readCassette(file).messages.map((m) => ({
    dir: m.dir,
    json: m.message,
    conn: m.conn ?? 0,
    probe: m.probe !== undefined,
  }));
}

/** The messages of a report.json (the run's own session). */
export function recordedFromReport(file: string): Recorded[] {
  let report: unknown;
  try {
    report = JSON.parse(readFileSync(file, 'utf8'));
  } catch (e) {
    throw new Error(`${file}: not a report.json: ${(e as Error).message}`);
  }
  const messages = isObj(report) && Array.isArray(report.messages) ? report.messages : undefined;
  if (!messages)
    throw new Error(`${file}: not a report.json (no "messages"): run with --reporter json and --report-bodies full`);
  if (messages.some((m) => isObj(m) && m.json === undefined && m.raw === undefined))
    throw new Error(
      `${file}: the report keeps no message bodies (--report-bodies none): run again with --report-bodies full`,
    );
  return messages.filter(isObj).map((m) => ({
    dir: m.direction as Recorded['dir'],
    json: m.json,
    conn: 0,
    probe: isObj(m.schema) && m.schema.expectedInvalid !== undefined,
  }));
}

function texts(content: unknown): string[] {
  return (Array.isArray(content) ? content : isObj(content) ? [content] : [])
    .filter((b) => isObj(b) && b.type === 'text' && typeof b.text === 'string')
    .map((b) => (b as { text: string }).text);
}

/** Arguments in a name: `a: 2, b: 3`, cut short. */
function argsText(a: unknown): string {
  if (!isObj(a) || !Object.keys(a).length) return '';
  const s = Object.entries(a)
    .map(([k, v]) => `${k}: ${typeof v === 'string' ? v : JSON.stringify(v)}`)
    .join(', ');
  return ` (${s.length > 60 ? `${s.slice(0, 60)}…` : s})`;
}

/** Builds the expectation file of a recorded session. */
export function expectationsFromSession(
  recorded: readonly Recorded[],
  o: { json?: boolean; source: string },
): FromSession {
  const answers = new Map<string, Obj>();
  for (const m of recorded) {
    if (m.dir === 'from-server' && isObj(m.json) && !('method' in m.json) && 'id' in m.json)
      answers.set(`${m.conn}:${JSON.stringify(m.json.id)}`, m.json);
  }
  const entries: Obj[] = [];
  const leftOut: Record<string, number> = {};
  const skip = (why: string) => {
    leftOut[why] = (leftOut[why] ?? 0) + 1;
  };
  const seen = new Set<string>();
  const slugs = new Set<string>();
  let toolNames: string[] | undefined;
  let toolsEntry: Obj | undefined;
  let listingComplete = false;
  const named = (base: string): string => {
    let name = base;
    for (let i = 2; slugs.has(slugOf(name)); i++) name = `${base} #${i}`;
    slugs.add(slugOf(name));
    return name;
  };
  for (const m of recorded) {
    if (m.dir !== 'to-server' || !isObj(m.json) || typeof m.json.method !== 'string' || !('id' in m.json)) continue;
    const method = m.json.method;
    const params = isObj(m.json.params) ? m.json.params : {};
    if (m.probe) {
      skip(`${method} (malformed on purpose)`);
      continue;
    }
    const answer = answers.get(`${m.conn}:${JSON.stringify(m.json.id)}`);
    if (!answer) {
      skip(`${method} (no answer recorded)`);
      continue;
    }
    const error = isObj(answer.error) ? answer.error : undefined;
    const result = isObj(answer.result) ? answer.result : undefined;
    const key = JSON.stringify([
      method,
      params.name,
      params.uri,
      params.arguments,
      params.cursor,
      answer.error ?? answer.result,
    ]);
    if (seen.has(key)) {
      skip(`${method} (repeated)`);
      continue;
    }
    seen.add(key);
    const errorCheck = error && typeof error.code === 'number' ? { error: { code: error.code } } : undefined;
    if (method === 'tools/list') {
      if (!result || !Array.isArray(result.tools)) {
        skip('tools/list (an error)');
        continue;
      }
      toolNames = [
        ...(params.cursor === undefined ? [] : (toolNames ?? [])),
        ...result.tools.filter(isObj).map((t) => String(t.name)),
      ];
      listingComplete = typeof result.nextCursor !== 'string';
      if (!toolsEntry) entries.push((toolsEntry = { name: named('lists its tools') }));
      continue;
    }
    if (method === 'tools/call') {
      const tool = String(params.name);
      if (tool.startsWith('mcp_conform_')) {
        skip('tools/call of a name the harness made up');
        continue;
      }
      const args = isObj(params.arguments) ? params.arguments : {};
      const expect: Obj = errorCheck ?? { isError: result?.isError === true };
      if (result && !errorCheck) {
        if ('structuredContent' in result) expect.structuredContent = result.structuredContent;
        else if (texts(result.content).length) expect.text = texts(result.content).join('\n');
      }
      entries.push({ name: named(`${tool}${argsText(args)}`), call: tool, arguments: args, expect });
      continue;
    }
    if (method === 'resources/read' || method === 'prompts/get') {
      const form = method === 'resources/read' ? 'read' : 'prompt';
      const text =
        result &&
        (form === 'read'
          ? (Array.isArray(result.contents) ? result.contents : [])
              .filter((c) => isObj(c) && typeof c.text === 'string')
              .map((c) => (c as { text: string }).text)
          : (Array.isArray(result.messages) ? result.messages : []).flatMap((x) => (isObj(x) ? texts(x.content) : [])));
      const expect: Obj | undefined = errorCheck ?? (text?.length ? { text: text.join('\n') } : undefined);
      const target = String(form === 'read' ? params.uri : params.name);
      entries.push({
        name: named(
          `${form === 'read' ? 'reads' : 'prompt'} ${target}${form === 'prompt' ? argsText(params.arguments) : ''}`,
        ),
        [form]: target,
        ...(form === 'prompt' && isObj(params.arguments) ? { arguments: params.arguments } : {}),
        ...(expect ? { expect } : {}),
      });
      continue;
    }
    skip(method);
  }
  if (toolsEntry && toolNames) toolsEntry.tools = listingComplete ? { exactly: toolNames } : { includes: toolNames };
  else if (toolsEntry) entries.splice(entries.indexOf(toolsEntry), 1);
  const text = o.json
    ? `${JSON.stringify({ version: 1, expectations: entries }, null, 2)}\n`
    : yamlText(entries, o.source);
  parseExpectText(text, o.json ? 'generated.json' : 'generated.yaml'); // what is written must read back
  return { text, count: entries.length, leftOut };
}

/** The YAML of the entries: one key a line, values inline (long ones as YAML blocks). */
function yamlText(entries: Obj[], source: string): string {
  const out = [
    '# yaml-language-server: $schema=./node_modules/mcp-conform/expect.schema.json',
    `# What the server answered in ${source}, as expectations (mcp-conform expect). Check each value before you rely on it.`,
    'version: 1',
    'expectations:',
  ];
  for (const e of entries) {
    let first = true;
    for (const [k, v] of Object.entries(e)) {
      const lead = first ? '  - ' : '    ';
      first = false;
      out.push(`${lead}${k}: ${inline(v, false)}`);
    }
  }
  return `${out.join('\n')}\n`;
}
