/**
 * A surface snapshot: what a server offers a client — server info, protocol version, capabilities, tools, prompts,
 * resources and resource templates — normalised so that two listings of the same server give the same bytes.
 *
 * Format (snapshotVersion 1, documented in docs/snapshots.md):
 *   { snapshotVersion: 1, protocolVersion, server, capabilities, tools?, prompts?, resources?, resourceTemplates? }
 * A list that is absent was not listed (a report.json whose run did not list it): `diff` does not compare it. A list
 * that is [] was listed, or the capability is not declared (the server offers none).
 *
 * Normalisation: entries sorted (tools and prompts by name, resources by uri, templates by uriTemplate), object keys
 * in code-point order at every depth, `required` and `type` arrays of JSON Schemas sorted. Left out as volatile or
 * not part of the definition: every `_meta` (implementation data; servers put trace ids, build stamps or timestamps
 * there), a resource's `size` (changes with the content, not the surface) and `annotations.lastModified` of resources
 * and templates (a timestamp), list-level fields (`nextCursor`, `ttlMs`, `cacheScope`), and fields of a definition
 * that the spec does not define (vendor extensions).
 */
import { isObject } from '../objects.js';
import type { Report } from '../results.js';
import type { RunInput } from '../inputs.js';
import { META } from '../wire.js';
import { SUBSCHEMA_LIST, SUBSCHEMA_MAP, SUBSCHEMA_ONE } from '../schema-keywords.js';

export const SNAPSHOT_VERSION = 1;

export interface SnapshotServer {
  name?: string;
  title?: string;
  version?: string;
  description?: string;
  websiteUrl?: string;
  icons?: unknown[];
  instructions?: string;
}

export interface Snapshot {
  snapshotVersion: 1;
  /** The protocol version the server agreed to (initialize) or the one spoken (2026-07-28, server/discover). */
  protocolVersion?: string;
  server: SnapshotServer;
  capabilities: Record<string, unknown>;
  tools?: Record<string, unknown>[];
  prompts?: Record<string, unknown>[];
  resources?: Record<string, unknown>[];
  resourceTemplates?: Record<string, unknown>[];
}

/** Raw material of a snapshot: the handshake result and the listed entries, as the server sent them. */
export interface SurfaceListing {
  protocolVersion?: string;
  /** serverInfo (initialize) or the server info of a server/discover answer. */
  serverInfo?: Record<string, unknown>;
  instructions?: unknown;
  capabilities?: Record<string, unknown>;
  tools?: unknown[];
  prompts?: unknown[];
  resources?: unknown[];
  resourceTemplates?: unknown[];
}

const TOOL_FIELDS = [
  'name',
  'title',
  'description',
  'inputSchema',
  'outputSchema',
  'annotations',
  'execution',
  'icons',
];
const PROMPT_FIELDS = ['name', 'title', 'description', 'arguments', 'icons'];
const ARGUMENT_FIELDS = ['name', 'title', 'description', 'required'];
const RESOURCE_FIELDS = ['uri', 'name', 'title', 'description', 'mimeType', 'annotations', 'icons'];
const TEMPLATE_FIELDS = ['uriTemplate', 'name', 'title', 'description', 'mimeType', 'annotations', 'icons'];
const SERVER_FIELDS = ['name', 'title', 'version', 'description', 'websiteUrl', 'icons'];

export { isObject };

/** Object keys in code-point order at every depth (arrays keep their order). */
export function sortKeys(v: unknown): unknown {
  if (Array.isArray(v)) return v.map(sortKeys);
  if (!isObject(v)) return v;
  const out: Record<string, unknown> = {};
  for (const k of Object.keys(v).sort(byCodePoint)) out[k] = sortKeys(v[k]);
  return out;
}

export function byCodePoint(a: string, b: string): number {
  return a < b ? -1 : a > b ? 1 : 0;
}

const SCHEMA_VALUED = new Set(SUBSCHEMA_ONE);
const SCHEMA_LISTS = new Set(SUBSCHEMA_LIST);
const SCHEMA_MAPS = new Set(SUBSCHEMA_MAP);

/** A JSON Schema with `required` (set semantics) and `type` arrays sorted, recursively, keys sorted. */
export function normalizeSchema(s: unknown): unknown {
  if (!isObject(s)) return s;
  const out: Record<string, unknown> = {};
  for (const k of Object.keys(s).sort(byCodePoint)) {
    const v = s[k];
    if (k === 'required' && Array.isArray(v) && v.every((x) => typeof x === 'string'))
      out[k] = [...new Set(v as string[])].sort(byCodePoint);
    else if (k === 'type' && Array.isArray(v) && v.every((x) => typeof x === 'string'))
      out[k] = [...new Set(v as string[])].sort(byCodePoint);
    else if (SCHEMA_VALUED.has(k)) out[k] = Array.isArray(v) ? v.map(normalizeSchema) : normalizeSchema(v);
    else if (SCHEMA_LISTS.has(k) && Array.isArray(v)) out[k] = v.map(normalizeSchema);
    else if (SCHEMA_MAPS.has(k) && isObject(v))
      out[k] = Object.fromEntries(
        Object.keys(v)
          .sort(byCodePoint)
          .map((p) => [p, normalizeSchema(v[p])]),
      );
    else out[k] = sortKeys(v);
  }
  return out;
}

function pick(v: Record<string, unknown>, fields: string[]): Record<string, unknown> {
  const out: Record<string, unknown> = {};
  for (const f of fields) if (v[f] !== undefined) out[f] = v[f];
  return out;
}

function normalizeTool(t: Record<string, unknown>): Record<string, unknown> {
  const o = pick(t, TOOL_FIELDS);
  if (o.inputSchema !== undefined) o.inputSchema = normalizeSchema(o.inputSchema);
  if (o.outputSchema !== undefined) o.outputSchema = normalizeSchema(o.outputSchema);
  return sortKeys(o) as Record<string, unknown>;
}

function normalizePrompt(p: Record<string, unknown>): Record<string, unknown> {
  const o = pick(p, PROMPT_FIELDS);
  // Arguments keep the server's order (clients show them in it); each keeps only the fields the spec defines.
  if (Array.isArray(o.arguments)) o.arguments = o.arguments.map((a) => (isObject(a) ? pick(a, ARGUMENT_FIELDS) : a));
  return sortKeys(o) as Record<string, unknown>;
}

function withoutLastModified(o: Record<string, unknown>): Record<string, unknown> {
  if (isObject(o.annotations) && 'lastModified' in o.annotations) {
    const { lastModified: _drop, ...rest } = o.annotations;
    if (Object.keys(rest).length) o.annotations = rest;
    else delete o.annotations;
  }
  return o;
}

function normalizeResource(r: Record<string, unknown>, fields: string[]): Record<string, unknown> {
  return sortKeys(withoutLastModified(pick(r, fields))) as Record<string, unknown>;
}

function sortedBy(list: Record<string, unknown>[], key: string): Record<string, unknown>[] {
  const keyed = list.map((x) => ({ k: typeof x[key] === 'string' ? (x[key] as string) : '', j: JSON.stringify(x), x }));
  keyed.sort((a, b) => byCodePoint(a.k, b.k) || byCodePoint(a.j, b.j));
  return keyed.map((e) => e.x);
}

function entries(
  list: unknown[] | undefined,
  key: string,
  norm: (x: Record<string, unknown>) => Record<string, unknown>,
): Record<string, unknown>[] | undefined {
  if (list === undefined) return undefined;
  return sortedBy(
    list.filter((x): x is Record<string, unknown> => isObject(x) && typeof x[key] === 'string').map(norm),
    key,
  );
}

/** The normalised snapshot of a listing. */
export function buildSnapshot(l: SurfaceListing): Snapshot {
  const server = pick(isObject(l.serverInfo) ? l.serverInfo : {}, SERVER_FIELDS) as SnapshotServer;
  if (typeof l.instructions === 'string') server.instructions = l.instructions;
  const snap: Snapshot = {
    snapshotVersion: 1,
    ...(l.protocolVersion !== undefined ? { protocolVersion: l.protocolVersion } : {}),
    server: sortKeys(server) as SnapshotServer,
    capabilities: sortKeys(isObject(l.capabilities) ? l.capabilities : {}) as Record<string, unknown>,
  };
  const tools = entries(l.tools, 'name', normalizeTool);
  const prompts = entries(l.prompts, 'name', normalizePrompt);
  const resources = entries(l.resources, 'uri', (r) => normalizeResource(r, RESOURCE_FIELDS));
  const templates = entries(l.resourceTemplates, 'uriTemplate', (r) => normalizeResource(r, TEMPLATE_FIELDS));
  if (tools) snap.tools = tools;
  if (prompts) snap.prompts = prompts;
  if (resources) snap.resources = resources;
  if (templates) snap.resourceTemplates = templates;
  return snap;
}

/** The text of a snapshot file: two-space JSON, a newline at the end. */
export function stringifySnapshot(s: Snapshot): string {
  return JSON.stringify(s, null, 2) + '\n';
}

/** The server info and capabilities of a handshake result (initialize, or server/discover in 2026-07-28). */
export function handshakeInfo(
  result: Record<string, unknown> | undefined,
): Pick<SurfaceListing, 'serverInfo' | 'instructions' | 'capabilities'> {
  const r = result ?? {};
  const meta = isObject(r._meta) ? r._meta : {};
  const metaInfo = meta[META.serverInfo];
  const info = isObject(r.serverInfo) ? r.serverInfo : isObject(metaInfo) ? metaInfo : undefined;
  return {
    serverInfo: info,
    instructions: r.instructions,
    capabilities: isObject(r.capabilities) ? r.capabilities : {},
  };
}

/** A file `diff` can read was not readable: exit code 2. */
export class SurfaceInputError extends Error {}

/** What a list method returns under which key. */
export const LIST_METHODS = [
  { method: 'tools/list', key: 'tools', section: 'tools', capability: 'tools' },
  { method: 'prompts/list', key: 'prompts', section: 'prompts', capability: 'prompts' },
  { method: 'resources/list', key: 'resources', section: 'resources', capability: 'resources' },
  {
    method: 'resources/templates/list',
    key: 'resourceTemplates',
    section: 'resourceTemplates',
    capability: 'resources',
  },
] as const;

/**
 * A snapshot from a report.json: server info, protocol version and capabilities from the handshake answer in the
 * log (report.server where the log lacks it), and each list from the first complete chain of its pages in the log.
 * A list the run did not complete, or did not make, is left out (not compared) and said in `notes`.
 */
export function snapshotFromReport(report: Report): { snapshot: Snapshot; notes: string[] } {
  const notes: string[] = [];
  const msgs = Array.isArray(report.messages) ? report.messages : [];
  const bySeq = new Map(msgs.map((m) => [m.seq, m]));
  const discover = report.negotiation?.handshake === 'server/discover';
  const handshake = [...msgs]
    .reverse()
    .find(
      (m) =>
        m.kind === 'response' &&
        m.method === (discover ? 'server/discover' : 'initialize') &&
        isObject((m.json as Record<string, unknown> | undefined)?.result),
    );
  const hs = handshake
    ? handshakeInfo((handshake.json as Record<string, unknown>).result as Record<string, unknown>)
    : undefined;
  const server = report.server ?? {};
  const listing: SurfaceListing = {
    protocolVersion: server.protocolVersion,
    serverInfo: hs?.serverInfo ?? { name: server.name, title: server.title, version: server.version },
    instructions: hs?.instructions ?? server.instructions,
    capabilities: isObject(server.capabilities) ? server.capabilities : (hs?.capabilities ?? {}),
  };
  const caps = listing.capabilities!;
  if (report.droppedMessages?.messages)
    notes.push(
      `the report's log left out ${report.droppedMessages.messages} messages (it was full): lists may be incomplete`,
    );
  for (const lm of LIST_METHODS) {
    if (!caps[lm.capability]) {
      listing[lm.section] = [];
      continue;
    }
    const pages = msgs.filter((m) => m.kind === 'response' && m.method === lm.method);
    const cursorOf = (seq: number | undefined): unknown => {
      const req = seq === undefined ? undefined : bySeq.get(seq);
      const params = (req?.json as Record<string, unknown> | undefined)?.params;
      return isObject(params) ? params.cursor : undefined;
    };
    let items: unknown[] | undefined;
    let i = pages.findIndex(
      (p) =>
        cursorOf(p.inReplyTo) === undefined &&
        Array.isArray(((p.json as Record<string, unknown>).result as Record<string, unknown> | undefined)?.[lm.key]),
    );
    if (i >= 0) {
      items = [];
      const seen = new Set<string>();
      for (;;) {
        const result = (pages[i]!.json as Record<string, unknown>).result as Record<string, unknown>;
        items.push(...(result[lm.key] as unknown[]));
        const next = result.nextCursor;
        if (next === undefined || next === null) break;
        const j =
          typeof next === 'string' && !seen.has(next)
            ? pages.findIndex(
                (p, k) =>
                  k > i &&
                  cursorOf(p.inReplyTo) === next &&
                  Array.isArray(
                    ((p.json as Record<string, unknown>).result as Record<string, unknown> | undefined)?.[lm.key],
                  ),
              )
            : -1;
        if (j < 0) {
          items = undefined;
          break;
        }
        seen.add(next as string);
        i = j;
      }
    }
    if (items) listing[lm.section] = items;
    else
      notes.push(
        `${lm.section}: the run ${pages.length ? 'did not list every page' : `did not list them (no ${lm.method} in the log)`}: not compared`,
      );
  }
  return { snapshot: buildSnapshot(listing), notes };
}

/** Reads OLD or NEW of `diff`: a snapshot file or a report.json (one run). Throws SurfaceInputError. */
export function parseSurfaceFile(
  text: string,
  file: string,
): { snapshot: Snapshot; notes: string[]; from: 'snapshot' | 'report' } {
  let doc: unknown;
  try {
    doc = JSON.parse(text);
  } catch (e) {
    throw new SurfaceInputError(`${file} is not JSON: ${(e as Error).message}`);
  }
  if (!isObject(doc)) throw new SurfaceInputError(`${file} is not a snapshot or a report.json (a JSON object)`);
  if ('snapshotVersion' in doc) {
    if (doc.snapshotVersion !== SNAPSHOT_VERSION)
      throw new SurfaceInputError(
        `${file} has snapshotVersion ${JSON.stringify(doc.snapshotVersion)}; this mcp-conform reads version ${SNAPSHOT_VERSION}`,
      );
    const problems: string[] = [];
    if (!isObject(doc.server)) problems.push('"server" is not an object');
    if (!isObject(doc.capabilities)) problems.push('"capabilities" is not an object');
    for (const k of ['tools', 'prompts', 'resources', 'resourceTemplates']) {
      const v = doc[k];
      if (v === undefined) continue;
      if (!Array.isArray(v)) problems.push(`"${k}" is not an array`);
      else {
        const key = k === 'resources' ? 'uri' : k === 'resourceTemplates' ? 'uriTemplate' : 'name';
        const bad = v.findIndex((x) => !isObject(x) || typeof x[key] !== 'string');
        if (bad >= 0) problems.push(`"${k}"[${bad}] has no string "${key}"`);
      }
    }
    if (problems.length) throw new SurfaceInputError(`${file} is not a valid snapshot: ${problems.join('; ')}`);
    // Normalised again: a hand-edited or older snapshot compares like a fresh one.
    const s = doc as unknown as Snapshot;
    const again = buildSnapshot({
      protocolVersion: s.protocolVersion,
      serverInfo: s.server as Record<string, unknown>,
      instructions: s.server.instructions,
      capabilities: s.capabilities,
      tools: s.tools,
      prompts: s.prompts,
      resources: s.resources,
      resourceTemplates: s.resourceTemplates,
    });
    return { snapshot: again, notes: [], from: 'snapshot' };
  }
  if (Array.isArray(doc.runs)) {
    throw new SurfaceInputError(
      `${file} is a report of ${doc.runs.length} runs (a config file with several targets): diff reads a report.json of one run, or a snapshot`,
    );
  }
  if (isObject(doc.tool) && doc.tool.name === 'mcp-conform' && isObject(doc.server) && Array.isArray(doc.messages)) {
    const { snapshot, notes } = snapshotFromReport(doc as unknown as Report);
    return { snapshot, notes, from: 'report' };
  }
  throw new SurfaceInputError(
    `${file} is neither a snapshot (no "snapshotVersion") nor an mcp-conform report.json (no "tool", "server" and "messages")`,
  );
}

/**
 * What a run does about the surface (RunOptions.surface, CaseContext.surface): the suite `surface` lists it when
 * either is set, hands the snapshot to onSnapshot (run --snapshot, the snapshot command) and compares it with the
 * baseline (run --baseline-snapshot).
 */
export interface SurfaceRunOptions {
  /** --baseline-snapshot: the committed snapshot (read before the run) and its file. */
  baseline?: { file: string; snapshot: Snapshot; notes?: string[] };
  /** Receives the snapshot of the run's own listing (or the problems that kept it from being complete). */
  onSnapshot?: (s: { snapshot?: Snapshot; problems: string[]; notes: string[] }) => void;
}

/**
 * The surface snapshot options as a run input (suite `surface` reads them): a run that writes or compares a snapshot
 * is judged in one era (a snapshot is one version's surface), and names its baseline file in report.options.
 */
export const surfaceInput: RunInput<SurfaceRunOptions> = {
  id: 'surface',
  oneEra: (v) => !!(v.onSnapshot || v.baseline),
  reportOptions: (v) => (v.baseline ? { baselineSnapshot: v.baseline.file } : {}),
};
