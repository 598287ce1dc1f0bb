/**
 * Declarative fixtures served: the fixture format (core/formats/fixture.ts) played as a mock MCP server. Its own loop
 * (not the SDK's McpServer), so that it answers the probes of `mcp-conform run` the way the protocol notes grade best
 * (-32601 for unknown methods, -32700 for bad JSON, -32602 for unknown tools and malformed calls, isError for
 * arguments that break the inputSchema from 2025-11-25 on).
 */
import { SchemaWorkbench } from '../core/jsonschema.js';
import { basename } from 'node:path';
import { DEFAULT_FIXTURE_VERSIONS, readFixture, type Fixture, type FixtureTool } from '../core/formats/fixture.js';
import {
  canonicalJson,
  errorResponse,
  parseJson,
  sleep,
  type MockSession,
  type MockSource,
  type Outgoing,
} from './engine.js';
import { isObject as isObj } from '../core/objects.js';

function matches(pattern: unknown, value: unknown): boolean {
  if (isObj(pattern) && typeof pattern.$regex === 'string')
    return typeof value === 'string' && new RegExp(pattern.$regex).test(value);
  if (isObj(pattern) && pattern.$any === true) return value !== undefined;
  return canonicalJson(pattern) === canonicalJson(value);
}

/** The variables of a URI that matches an RFC 6570 template (simple expressions only), else undefined. */
function templateMatch(template: string, uri: string): Record<string, string> | undefined {
  const names: string[] = [];
  const re = template
    .split(/(\{[^}]*\})/)
    .map((part) => {
      const m = /^\{([+#./;?&]?)([^}]*)\}$/.exec(part);
      if (!m) return part.replace(/[.*+?^${}()|[\]\\]/g, '\\$&');
      names.push(m[2]!.split(',')[0]!.replace(/(:\d+|\*)$/, ''));
      return m[1] === '+' || m[1] === '#' ? '(.+?)' : '([^/?#]+?)';
    })
    .join('');
  const hit = new RegExp(`^${re}$`).exec(uri);
  if (!hit) return undefined;
  return Object.fromEntries(names.map((n, i) => [n, decodeURIComponent(hit[i + 1]!)]));
}

function interpolate(text: string, args: Record<string, unknown>): string {
  return text.replace(/\{\{\s*([A-Za-z0-9_.-]+)\s*\}\}/g, (_, k: string) => {
    const v = args[k];
    return v === undefined ? '' : typeof v === 'string' ? v : JSON.stringify(v);
  });
}

export class FixtureSource implements MockSource {
  readonly label: string;
  readonly protocolVersions: string[];
  /** @internal */ readonly workbenches = new Map<string, SchemaWorkbench>();

  constructor(
    readonly fixture: Fixture,
    file?: string,
  ) {
    this.label = `fixture ${file ? basename(file) : '(in memory)'}`;
    this.protocolVersions = fixture.protocolVersions ?? DEFAULT_FIXTURE_VERSIONS;
  }

  static fromFile(file: string): FixtureSource {
    return new FixtureSource(readFixture(file), file);
  }

  newSession(): MockSession {
    return new FixtureSession(this);
  }

  capabilities(): Record<string, unknown> {
    const f = this.fixture;
    const logs = (f.tools ?? []).some((t) => (t.answers ?? []).some((a) => a.log?.length));
    const resources = !!(f.resources?.length || f.resourceTemplates?.length);
    const completes =
      (f.prompts ?? []).some((p) => (p.arguments ?? []).some((a) => a.values)) ||
      (f.resourceTemplates ?? []).some((t) => t.complete);
    return {
      tools: { listChanged: false },
      ...(logs ? { logging: {} } : {}),
      ...(resources ? { resources: {} } : {}),
      ...(f.prompts?.length ? { prompts: {} } : {}),
      ...(completes ? { completions: {} } : {}),
      ...(f.capabilities ?? {}),
    };
  }

  /** @internal */
  workbench(version: string): SchemaWorkbench {
    const d = version >= '2025-11-25' ? '2020-12' : 'draft-07';
    let w = this.workbenches.get(d);
    if (!w) {
      w = new SchemaWorkbench(d);
      this.workbenches.set(d, w);
    }
    return w;
  }
}

class FixtureSession implements MockSession {
  private version: string;
  private readonly cancelled = new Set<unknown>();

  constructor(private readonly src: FixtureSource) {
    this.version = src.protocolVersions[0]!;
  }

  async receive(raw: string, emit: (m: Outgoing) => void): Promise<void> {
    const p = parseJson(raw);
    if (!p.ok) {
      emit(errorResponse(null, -32700, 'Parse error: the line is not JSON'));
      return;
    }
    const m = p.value;
    if (!isObj(m)) {
      emit(
        errorResponse(
          null,
          -32600,
          `Invalid Request: ${Array.isArray(m) ? 'batches are not accepted' : 'not a JSON-RPC message object'}`,
        ),
      );
      return;
    }
    const idOk = typeof m.id === 'string' || typeof m.id === 'number';
    if (m.jsonrpc !== '2.0') {
      if ('method' in m || !('result' in m || 'error' in m))
        emit(errorResponse(idOk ? m.id : null, -32600, 'Invalid Request: "jsonrpc" must be "2.0"'));
      return;
    }
    if (typeof m.method !== 'string') {
      if ('result' in m || 'error' in m) return; // a response to a server request: nothing to do
      emit(errorResponse(idOk ? m.id : null, -32600, 'Invalid Request: no method'));
      return;
    }
    if (!('id' in m)) {
      this.notification(m.method, m.params);
      return;
    }
    if (!idOk) {
      emit(errorResponse(null, -32600, 'Invalid Request: the id must be a string or a number'));
      return;
    }
    const id = m.id;
    const reply = (result: unknown) => {
      if (!this.cancelled.has(id)) emit({ jsonrpc: '2.0', id, result });
    };
    const fail = (code: number, message: string, data?: unknown) => {
      if (!this.cancelled.has(id)) emit(errorResponse(id, code, message, data));
    };
    const params = m.params;
    if (params !== undefined && !isObj(params)) {
      fail(-32602, 'Invalid params: params must be an object');
      return;
    }
    switch (m.method) {
      case 'initialize':
        return this.initialize(params ?? {}, reply, fail);
      case 'ping':
        return reply({});
      case 'tools/list':
        return this.listTools(params ?? {}, reply, fail);
      case 'tools/call':
        return this.callTool(id, params, reply, fail, emit);
      case 'resources/list':
      case 'resources/templates/list':
      case 'resources/read':
      case 'prompts/list':
      case 'prompts/get':
      case 'completion/complete': {
        const cap = m.method.startsWith('resources/')
          ? 'resources'
          : m.method.startsWith('prompts/')
            ? 'prompts'
            : 'completions';
        if (!this.src.capabilities()[cap])
          return fail(-32601, `Method not found: ${m.method} (the fixture declares no ${cap} capability)`);
        return this.surface(m.method, params ?? {}, reply, fail);
      }
      case 'logging/setLevel':
        if (!this.src.capabilities().logging)
          return fail(-32601, 'Method not found: logging/setLevel (the fixture declares no logging capability)');
        return reply({});
      default:
        return fail(-32601, `Method not found: ${m.method}`);
    }
  }

  private notification(method: string, params: unknown): void {
    if (method === 'notifications/cancelled' && isObj(params) && params.requestId !== undefined)
      this.cancelled.add(params.requestId);
  }

  private initialize(
    params: Record<string, unknown>,
    reply: (r: unknown) => void,
    fail: (c: number, m: string) => void,
  ): void {
    const asked = params.protocolVersion;
    if (typeof asked !== 'string') return fail(-32602, 'Invalid params: initialize needs a protocolVersion string');
    this.version = this.src.protocolVersions.includes(asked) ? asked : this.src.protocolVersions[0]!;
    const f = this.src.fixture;
    const info: Record<string, unknown> = { name: f.server.name, version: f.server.version };
    if (f.server.title && this.version >= '2025-06-18') info.title = f.server.title;
    reply({
      protocolVersion: this.version,
      capabilities: this.src.capabilities(),
      serverInfo: info,
      ...(f.instructions ? { instructions: f.instructions } : {}),
    });
  }

  private toolView(t: FixtureTool): Record<string, unknown> {
    const newer = this.version >= '2025-06-18';
    return {
      name: t.name,
      ...(t.title && newer ? { title: t.title } : {}),
      ...(t.description ? { description: t.description } : {}),
      inputSchema: t.inputSchema ?? { type: 'object' },
      ...(t.outputSchema && newer ? { outputSchema: t.outputSchema } : {}),
      ...(t.annotations && this.version >= '2025-03-26' ? { annotations: t.annotations } : {}),
    };
  }

  private listTools(
    params: Record<string, unknown>,
    reply: (r: unknown) => void,
    fail: (c: number, m: string) => void,
  ): void {
    const tools = this.src.fixture.tools ?? [];
    const size = this.src.fixture.pageSize || tools.length || 1;
    let start = 0;
    if (params.cursor !== undefined) {
      const c = typeof params.cursor === 'string' && /^page-(\d+)$/.exec(params.cursor);
      if (!c || Number(c[1]) > tools.length)
        return fail(-32602, `Invalid params: unknown cursor ${JSON.stringify(params.cursor)}`);
      start = Number(c[1]);
    }
    const page = tools.slice(start, start + size).map((t) => this.toolView(t));
    reply({ tools: page, ...(start + size < tools.length ? { nextCursor: `page-${start + size}` } : {}) });
  }

  /** Resources, templates, prompts and completion, as the fixture declares them. */
  private surface(
    method: string,
    params: Record<string, unknown>,
    reply: (r: unknown) => void,
    fail: (c: number, m: string, d?: unknown) => void,
  ): void {
    const f = this.src.fixture;
    const pick = <T extends object>(o: T, keys: string[]) =>
      Object.fromEntries(Object.entries(o).filter(([k]) => keys.includes(k)));
    switch (method) {
      case 'resources/list':
        return reply({
          resources: (f.resources ?? []).map((r) => pick(r, ['uri', 'name', 'title', 'description', 'mimeType'])),
        });
      case 'resources/templates/list':
        return reply({
          resourceTemplates: (f.resourceTemplates ?? []).map((t) =>
            pick(t, ['uriTemplate', 'name', 'title', 'description', 'mimeType']),
          ),
        });
      case 'resources/read': {
        const uri = params.uri;
        if (typeof uri !== 'string') return fail(-32602, 'Invalid params: resources/read needs a uri');
        const r = (f.resources ?? []).find((x) => x.uri === uri);
        if (r)
          return reply({
            contents: [
              {
                uri,
                ...(r.mimeType ? { mimeType: r.mimeType } : {}),
                ...(r.blob !== undefined ? { blob: r.blob } : { text: r.text ?? '' }),
              },
            ],
          });
        for (const t of f.resourceTemplates ?? []) {
          const vars = templateMatch(t.uriTemplate, uri);
          if (vars)
            return reply({
              contents: [
                { uri, ...(t.mimeType ? { mimeType: t.mimeType } : {}), text: interpolate(t.text ?? '', vars) },
              ],
            });
        }
        return fail(-32002, `Resource not found: ${uri}`, { uri });
      }
      case 'prompts/list':
        return reply({
          prompts: (f.prompts ?? []).map((p) => ({
            ...pick(p, ['name', 'title', 'description']),
            ...(p.arguments ? { arguments: p.arguments.map((a) => pick(a, ['name', 'description', 'required'])) } : {}),
          })),
        });
      case 'prompts/get': {
        const p = (f.prompts ?? []).find((x) => x.name === params.name);
        if (!p) return fail(-32602, `Invalid params: unknown prompt ${JSON.stringify(params.name)}`);
        const args = isObj(params.arguments) ? params.arguments : {};
        const missing = (p.arguments ?? []).filter((a) => a.required && typeof args[a.name] !== 'string');
        if (missing.length)
          return fail(
            -32602,
            `Invalid params: prompt ${p.name} needs argument ${missing.map((a) => a.name).join(', ')}`,
          );
        return reply({
          ...(p.description ? { description: p.description } : {}),
          messages: p.messages.map((m) => ({
            role: m.role,
            content: m.content ?? { type: 'text', text: interpolate(m.text ?? '', args) },
          })),
        });
      }
      default: {
        // completion/complete
        const ref = isObj(params.ref) ? params.ref : {};
        const arg = isObj(params.argument) ? params.argument : {};
        const prefix = typeof arg.value === 'string' ? arg.value.toLowerCase() : '';
        let pool: string[] | undefined;
        if (ref.type === 'ref/prompt') {
          const p = (f.prompts ?? []).find((x) => x.name === ref.name);
          if (!p) return fail(-32602, `Invalid params: unknown prompt ${JSON.stringify(ref.name)}`);
          pool = p.arguments?.find((a) => a.name === arg.name)?.values;
        } else if (ref.type === 'ref/resource') {
          const t = (f.resourceTemplates ?? []).find((x) => x.uriTemplate === ref.uri);
          if (!t && !(f.resources ?? []).some((x) => x.uri === ref.uri))
            return fail(-32602, `Invalid params: unknown resource ${JSON.stringify(ref.uri)}`);
          pool = typeof arg.name === 'string' ? t?.complete?.[arg.name] : undefined;
        } else return fail(-32602, 'Invalid params: ref.type must be ref/prompt or ref/resource');
        const all = (pool ?? []).filter((v) => v.toLowerCase().startsWith(prefix));
        return reply({ completion: { values: all.slice(0, 100), total: all.length, hasMore: all.length > 100 } });
      }
    }
  }

  private async callTool(
    id: unknown,
    params: Record<string, unknown> | undefined,
    reply: (r: unknown) => void,
    fail: (c: number, m: string, d?: unknown) => void,
    emit: (m: Outgoing) => void,
  ): Promise<void> {
    if (!params || typeof params.name !== 'string')
      return fail(-32602, 'Invalid params: tools/call needs a tool name (params.name)');
    if (params.arguments !== undefined && !isObj(params.arguments))
      return fail(-32602, 'Invalid params: tools/call arguments must be an object');
    const tool = (this.src.fixture.tools ?? []).find((t) => t.name === params.name);
    if (!tool) return fail(-32602, `Unknown tool: ${params.name}`);
    const args = (params.arguments ?? {}) as Record<string, unknown>;
    const prepared = this.src.workbench(this.version).prepare(tool.inputSchema ?? { type: 'object' });
    const violations = prepared.validate ? prepared.validate(args) : [];
    if (violations.length) {
      const text = `Invalid arguments for tool ${tool.name}: ${violations
        .slice(0, 3)
        .map((v) => `${v.pointer || '(root)'} ${v.message}`)
        .join('; ')}`;
      if (this.version >= '2025-11-25') return reply({ content: [{ type: 'text', text }], isError: true });
      return fail(-32602, text);
    }
    const answer = (tool.answers ?? []).find(
      (a) => !a.when || Object.entries(a.when).every(([k, v]) => matches(v, args[k])),
    );
    if (!answer)
      return reply({
        content: [
          {
            type: 'text',
            text: `no canned answer of the fixture matches these arguments of ${tool.name}: ${JSON.stringify(args)}`,
          },
        ],
        isError: true,
      });
    const meta = isObj(params._meta) ? params._meta : undefined;
    const token = meta?.progressToken;
    const steps = answer.progress ?? [];
    for (const l of answer.log ?? [])
      emit({
        jsonrpc: '2.0',
        method: 'notifications/message',
        params: { level: l.level, ...(l.logger ? { logger: l.logger } : {}), data: l.data ?? null },
      });
    for (let i = 0; i < steps.length; i++) {
      if (answer.delayMs) await sleep(answer.delayMs / (steps.length + 1));
      if (this.cancelled.has(id)) return;
      if (token !== undefined)
        emit({ jsonrpc: '2.0', method: 'notifications/progress', params: { progressToken: token, ...steps[i] } });
    }
    if (answer.delayMs) await sleep(steps.length ? answer.delayMs / (steps.length + 1) : answer.delayMs);
    if (answer.error) return fail(answer.error.code, answer.error.message, answer.error.data);
    if (answer.result) return reply(answer.result);
    const content =
      answer.content ??
      (answer.text !== undefined
        ? [{ type: 'text', text: interpolate(answer.text, args) }]
        : answer.structuredContent
          ? [{ type: 'text', text: JSON.stringify(answer.structuredContent) }]
          : []);
    reply({
      content,
      ...(answer.structuredContent ? { structuredContent: answer.structuredContent } : {}),
      ...(answer.isError ? { isError: true } : {}),
    });
  }
}

/**
 * What the fixture serves, as an exchange (`mcp-conform validate FILE` checks it offline against the protocol
 * schema): initialize, every list (tools, resources, templates, prompts), a read of every resource, prompts/get of
 * every prompt (arguments from its completion values, else "example") and completion/complete of every argument or
 * variable that offers values. Tools are not called (their answers are free-form and may wait).
 */
export async function fixtureExchange(
  src: FixtureSource,
): Promise<{ direction: 'to-server' | 'from-server'; json: Record<string, unknown> }[]> {
  const f = src.fixture;
  const session = src.newSession();
  const out: { direction: 'to-server' | 'from-server'; json: Record<string, unknown> }[] = [];
  let id = 0;
  const send = async (method: string, params?: Record<string, unknown>) => {
    const msg = { jsonrpc: '2.0', id: ++id, method, ...(params ? { params } : {}) };
    out.push({ direction: 'to-server', json: msg });
    await session.receive(JSON.stringify(msg), (m) => out.push({ direction: 'from-server', json: m }));
  };
  await send('initialize', {
    protocolVersion: src.protocolVersions[0],
    capabilities: {},
    clientInfo: { name: 'mcp-conform-validate', version: '0' },
  });
  out.push({ direction: 'to-server', json: { jsonrpc: '2.0', method: 'notifications/initialized' } });
  await send('tools/list');
  const caps = src.capabilities();
  if (caps.resources) {
    await send('resources/list');
    await send('resources/templates/list');
    for (const r of f.resources ?? []) await send('resources/read', { uri: r.uri });
    for (const t of f.resourceTemplates ?? []) {
      for (const v of Object.keys(t.complete ?? {}))
        await send('completion/complete', {
          ref: { type: 'ref/resource', uri: t.uriTemplate },
          argument: { name: v, value: '' },
        });
    }
  }
  if (caps.prompts) {
    await send('prompts/list');
    for (const p of f.prompts ?? []) {
      const args = Object.fromEntries((p.arguments ?? []).map((a) => [a.name, a.values?.[0] ?? 'example']));
      await send('prompts/get', { name: p.name, arguments: args });
      for (const a of p.arguments ?? [])
        if (a.values)
          await send('completion/complete', {
            ref: { type: 'ref/prompt', name: p.name },
            argument: { name: a.name, value: '' },
          });
    }
  }
  return out;
}
