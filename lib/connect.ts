/**
 * connect(): an MCP client for hand-written tests, in any test runner (mcp-conform/vitest re-exports it), on the
 * harness's own session: the same transports, the same version negotiation, and every message (both ways, the server's notifications and requests too) checked against
 * the schema of the version in force, as in a run. A call whose messages break the schema rejects with
 * McpSchemaError (or, with `schemaViolations: 'collect'`, carries them in `violations` for toSucceed to fail on).
 */
import { prepareRun, type ConformanceOptions, type ServerOptions } from './conformance.js';
import { makeContext, type RunContext } from '../core/context.js';
import { CLIENT_INFO } from '../core/run.js';
import { clientCapabilitiesObject } from '../core/client-capabilities.js';
import { isStateless, negotiate, requestMetaFor } from '../core/negotiate.js';
import { MessageValidator } from '../core/schema/validator.js';
import { schemaDocumentFor } from '../core/schema/index.js';
import { DEFAULT_OFFERED_VERSION, type ProtocolVersion } from '../core/schema/versions.js';
import { Session, type JsonRpcError, type Reply } from '../core/session.js';
import { listAllTools, type Tool } from '../core/tools.js';
import { createTransport } from '../core/transport/index.js';
import type { Transport } from '../core/transport/types.js';
import type { LoggedMessage, SchemaViolation } from '../core/log.js';
export type { LoggedMessage, SchemaViolation } from '../core/log.js';
export type { Tool } from '../core/tools.js';
export type { JsonRpcError } from '../core/session.js';
import { META } from '../core/wire.js';

/** What connect() takes: the server (as runConformance takes it) and how to talk to it. */
export type ConnectOptions = ServerOptions &
  Pick<
    ConformanceOptions,
    'timeout' | 'protocolVersion' | 'clientCapabilities' | 'roots' | 'shutdownGrace' | 'maxMessageBytes'
  > & {
    /** 'throw' (default): a call whose messages break the schema rejects; 'collect': they are in the call's violations. */
    schemaViolations?: 'throw' | 'collect';
  };

/** A schema violation of a message, with the message's place in the log. */
export interface MessageViolation extends SchemaViolation {
  seq: number;
  direction: LoggedMessage['direction'];
  method?: string;
  definition?: string;
}

/** What a tools/call got: the result (or the JSON-RPC error), its text and structured content, and its schema check. */
export interface ToolCall {
  tool: string;
  arguments: Record<string, unknown>;
  result?: Record<string, unknown>;
  error?: JsonRpcError;
  isError: boolean;
  /** The text blocks of the content, joined by newlines ('' when there are none). */
  text: string;
  structuredContent?: unknown;
  durationMs: number;
  /** Schema violations of the request and its answer (empty when both fit the schema). */
  violations: MessageViolation[];
}

/** A request answered with a JSON-RPC error (listTools, readResource, getPrompt, request). */
export class McpRequestError extends Error {
  constructor(
    readonly method: string,
    readonly code: number,
    message: string,
    readonly data?: unknown,
  ) {
    super(`${method}: JSON-RPC error ${code}: ${message}`);
    this.name = 'McpRequestError';
  }
}

/** Messages of a call that break the schema of the version in force. */
export class McpSchemaError extends Error {
  constructor(
    readonly method: string,
    readonly violations: MessageViolation[],
  ) {
    super(
      `${method}: the exchange breaks the MCP schema: ${violations
        .slice(0, 5)
        .map((v) => `${v.direction === 'to-server' ? 'request' : 'answer'} ${v.pointer || '(message)'} ${v.message}`)
        .join('; ')}`,
    );
    this.name = 'McpSchemaError';
  }
}

export interface McpTestClient {
  /** The protocol version in force. */
  readonly protocolVersion: ProtocolVersion;
  /** The server's capabilities and serverInfo, from the handshake. */
  readonly capabilities: Record<string, unknown>;
  readonly serverInfo: Record<string, unknown>;
  /** Every message so far, both ways, each with its schema verdict. */
  readonly messages: readonly LoggedMessage[];
  /** Every schema violation so far (the server's notifications and requests included). */
  readonly violations: MessageViolation[];
  callTool(name: string, args?: Record<string, unknown>): Promise<ToolCall>;
  /** Every page of tools/list. */
  listTools(): Promise<Tool[]>;
  readResource(uri: string): Promise<Record<string, unknown>>;
  getPrompt(name: string, args?: Record<string, string>): Promise<Record<string, unknown>>;
  /** Any request: the result, or McpRequestError. */
  request(method: string, params?: Record<string, unknown>): Promise<Record<string, unknown>>;
  /** Ends the session and the server (its whole process group for stdio). */
  close(): Promise<void>;
}

function violationsOf(ms: readonly (LoggedMessage | undefined)[]): MessageViolation[] {
  return ms.flatMap((m) =>
    m?.schema.checked && !m.schema.valid && !m.schema.expectedInvalid
      ? m.schema.violations.map((v) => ({
          ...v,
          seq: m.seq,
          direction: m.direction,
          ...(m.method ? { method: m.method } : {}),
          ...(m.schema.definition ? { definition: m.schema.definition } : {}),
        }))
      : [],
  );
}

const textOf = (content: unknown): string =>
  (Array.isArray(content) ? content : [])
    .filter(
      (b) =>
        b &&
        typeof b === 'object' &&
        (b as { type?: unknown }).type === 'text' &&
        typeof (b as { text?: unknown }).text === 'string',
    )
    .map((b) => (b as { text: string }).text)
    .join('\n');

/** Starts the server (or connects to it), negotiates the version, and resolves to a client; rejects when it cannot. */
export async function connect(options: ConnectOptions): Promise<McpTestClient> {
  const { schemaViolations = 'throw', ...server } = options;
  const p = await prepareRun(server);
  const run = p.run;
  const timeoutMs = run.timeoutMs ?? 30_000;
  const offered = run.protocolVersion ?? DEFAULT_OFFERED_VERSION;
  const transportOptions = {
    shutdownGraceMs: run.shutdownGraceMs,
    maxMessageBytes: run.maxMessageBytes,
    timeoutMs,
    protocolVersion: isStateless(offered) ? DEFAULT_OFFERED_VERSION : offered,
    clientInfo: CLIENT_INFO,
  };
  const clientCaps = clientCapabilitiesObject(run.clientCapabilities ?? []);
  const started: Transport[] = [];
  const open = async () => {
    const t = createTransport(run.target, transportOptions);
    started.push(t);
    const s = new Session(t, { timeoutMs, clientCapabilities: clientCaps, roots: run.roots });
    await t.start();
    return { session: s, transport: t };
  };
  const endAll = () => Promise.all(started.map((t) => t.close().catch(() => undefined)));
  let ctx: RunContext;
  try {
    const first = await open();
    const n = await negotiate({
      ...first,
      timeoutMs,
      forced: run.protocolVersion,
      clientInfo: CLIENT_INFO,
      clientCapabilities: clientCaps,
      restart: async () => {
        first.session.abandon('restarted after server/discover');
        await first.transport.close().catch(() => undefined);
        return open();
      },
    });
    if (n.aborted) throw new Error(`could not connect to the server: ${n.aborted}`);
    const doc = schemaDocumentFor(n.version);
    n.session.setValidator(new MessageValidator(doc.version, doc.document));
    const hs = n.handshake;
    const result = (hs.handshake === 'server/discover' ? hs.discover?.result : hs.reply?.result) ?? {};
    ctx = makeContext({
      session: n.session,
      transport: n.transport,
      init: hs,
      version: n.version,
      capabilities: (result.capabilities ?? {}) as Record<string, unknown>,
      timeoutMs,
      options: {},
    });
    if (ctx.features.requestMeta) ctx.session.setRequestMeta(requestMetaFor(n.version, CLIENT_INFO, clientCaps));
    const r = result as Record<string, unknown>;
    const info = (r.serverInfo ?? (r._meta as Record<string, unknown> | undefined)?.[META.serverInfo] ?? {}) as Record<
      string,
      unknown
    >;
    return client(ctx, info, schemaViolations, endAll);
  } catch (e) {
    await endAll();
    throw e;
  }
}

function client(
  ctx: RunContext,
  serverInfo: Record<string, unknown>,
  mode: 'throw' | 'collect',
  endAll: () => Promise<unknown>,
): McpTestClient {
  const session = ctx.session;
  /** A request through the harness's context (2026-07-28: input_required rounds answered), schema-checked. */
  const send = async (
    method: string,
    params: Record<string, unknown> | undefined,
  ): Promise<{ reply: Reply; violations: MessageViolation[] }> => {
    const rec = await ctx.request(method, params, { purpose: 'test' });
    if (rec.failure) throw rec.failure;
    const reply = rec.reply!;
    const violations = violationsOf([reply.request, reply.response]);
    if (violations.length && mode === 'throw') throw new McpSchemaError(method, violations);
    return { reply, violations };
  };
  const result = async (method: string, params: Record<string, unknown> | undefined) => {
    const { reply } = await send(method, params);
    if (reply.error) throw new McpRequestError(method, reply.error.code, reply.error.message, reply.error.data);
    return reply.result ?? {};
  };
  return {
    protocolVersion: ctx.version,
    capabilities: ctx.capabilities,
    serverInfo,
    get messages() {
      return session.log;
    },
    get violations() {
      return violationsOf(session.log);
    },
    async callTool(name, args = {}) {
      const { reply, violations } = await send('tools/call', { name, arguments: args });
      const r = reply.result;
      return {
        tool: name,
        arguments: args,
        ...(reply.error ? { error: reply.error } : { result: r }),
        isError: r?.isError === true,
        text: textOf(r?.content),
        ...(r && 'structuredContent' in r ? { structuredContent: r.structuredContent } : {}),
        durationMs: Math.round((reply.response.t - (reply.timedFrom ?? reply.request.t)) * 1000) / 1000,
        violations,
      };
    },
    async listTools() {
      const l = await listAllTools(session);
      const v = violationsOf(l.pages.flatMap((p) => [p.request, p.response]));
      if (v.length && mode === 'throw') throw new McpSchemaError('tools/list', v);
      const err = l.pages.find((p) => p.error)?.error;
      if (err) throw new McpRequestError('tools/list', err.code, err.message, err.data);
      if (l.problem) throw new Error(`tools/list: ${l.problem}`);
      return l.tools;
    },
    readResource: (uri) => result('resources/read', { uri }),
    getPrompt: (name, args) => result('prompts/get', { name, ...(args ? { arguments: args } : {}) }),
    request: (method, params) => result(method, params),
    async close() {
      session.abandon('the test closed the client');
      await endAll();
    },
  };
}
