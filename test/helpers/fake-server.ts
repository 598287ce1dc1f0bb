/**
 * An MCP server inside the test process, behind a Transport: fast, deterministic, and bendable one behaviour at a
 * time. `standard` answers like a conformant server (mcpkit's defaults); a test passes a handler that does
 * something else for the messages it cares about and hands the rest to `standard`.
 */
import type { CaseResult, ProcessInfo } from '../../core/results.js';
import { runSuites, type RunOptions } from '../../core/run.js';
import { ALL_SUITES } from '../../suites/index.js';
import type { IncomingFrame, Transport, TransportClosed } from '../../core/transport/types.js';

export interface FakeApi {
  /** Answer with a JSON value (one line). */
  send(value: unknown): void;
  /** Write any text as one line. */
  sendRaw(text: string): void;
  /** The server process exits. */
  die(code?: number, stderrLine?: string): void;
  /** From now on the server reads nothing and answers nothing (alive, silent). */
  hang(): void;
  /** Run fn after ms (cancelled when the server is gone). */
  later(ms: number, fn: () => void): void;
  /** Per-connection state (initialized, cancelled ids, …). */
  state: Record<string, unknown>;
  /** Every line the harness sent on this connection. */
  received: string[];
}

export type Handler = (raw: string, msg: Record<string, unknown> | undefined, api: FakeApi) => void;

export const TOOLS = [
  {
    name: 'add',
    inputSchema: { type: 'object', properties: { a: { type: 'number' }, b: { type: 'number' } }, required: ['a', 'b'] },
  },
  {
    name: 'sleep',
    title: 'Sleep',
    description: 'A long-running operation',
    inputSchema: { type: 'object', properties: { seconds: { type: 'number', default: 1 } } },
    annotations: { readOnlyHint: true },
  },
];

function isObj(v: unknown): v is Record<string, unknown> {
  return v !== null && typeof v === 'object' && !Array.isArray(v);
}

const err = (id: unknown, code: number, message: string) => ({ jsonrpc: '2.0', id, error: { code, message } });

/** A conformant server: -32700/-32600 with id null for what it cannot read, -32601 for unknown methods, a slow tool that honours cancellation. */
export const standard: Handler = (raw, msg, api) => {
  if (msg === undefined) {
    let parsed: unknown;
    try {
      parsed = JSON.parse(raw);
    } catch {
      return api.send(err(null, -32700, 'Parse error'));
    }
    return api.send(err(null, -32600, `Invalid Request: ${JSON.stringify(parsed).slice(0, 40)}`));
  }
  if (msg.jsonrpc !== '2.0')
    return api.send(
      err(
        typeof msg.id === 'number' || typeof msg.id === 'string' ? msg.id : null,
        -32600,
        'Invalid Request: jsonrpc must be "2.0"',
      ),
    );
  if (typeof msg.method !== 'string') return; // a response from the client, or garbage without a method: ignored
  const id = msg.id;
  const params = isObj(msg.params) ? msg.params : {};
  if (!('id' in msg)) {
    if (msg.method === 'notifications/cancelled') (api.state.cancelled as Set<unknown>).add(params.requestId);
    return;
  }
  const ok = (result: unknown) => api.send({ jsonrpc: '2.0', id, result });
  switch (msg.method) {
    case 'initialize':
      api.state.initialized = true;
      return ok({
        protocolVersion: params.protocolVersion ?? '2025-11-25',
        capabilities: { tools: {} },
        serverInfo: { name: 'fake', version: '1.0.0' },
      });
    case 'ping':
      return ok({});
    case 'tools/list':
      return ok({ tools: TOOLS });
    case 'tools/call': {
      const args = isObj(params.arguments) ? params.arguments : {};
      if (params.name === 'add')
        return ok({ content: [{ type: 'text', text: String(Number(args.a) + Number(args.b)) }] });
      if (params.name === 'sleep') {
        const ms = 1000 * (typeof args.seconds === 'number' ? args.seconds : 1);
        return api.later(ms, () => {
          if (!(api.state.cancelled as Set<unknown>).has(id) || api.state.answerAfterCancel)
            ok({ content: [{ type: 'text', text: 'slept' }] });
        });
      }
      return api.send(err(id, -32602, `Unknown tool: ${String(params.name)}`));
    }
    default:
      return api.send(err(id, -32601, `Method not found: ${msg.method}`));
  }
};

export class FakeTransport implements Transport {
  readonly kind = 'stdio' as const;
  onFrame?: (frame: IncomingFrame) => void;
  onClose?: (info: TransportClosed) => void;
  onRequestFailed?: (id: string | number, reason: string) => void;
  closed = false;
  closeInfo?: TransportClosed;
  private hung = false;
  private exitCode?: number;
  private readonly timers = new Set<NodeJS.Timeout>();
  private readonly stderr: string[] = [];
  readonly api: FakeApi;

  constructor(private readonly handler: Handler = standard) {
    this.api = {
      send: (v) => this.api.sendRaw(JSON.stringify(v)),
      sendRaw: (text) => {
        if (!this.closed)
          setImmediate(() => {
            if (!this.closed) this.onFrame?.({ raw: text });
          });
      },
      die: (code = 1, line) => {
        if (line) this.stderr.push(line);
        setImmediate(() => this.end(code));
      },
      hang: () => {
        this.hung = true;
      },
      later: (ms, fn) => {
        const t = setTimeout(() => {
          this.timers.delete(t);
          if (!this.closed) fn();
        }, ms);
        this.timers.add(t);
      },
      state: { cancelled: new Set<unknown>() },
      received: [],
    };
  }

  async start(): Promise<void> {}

  send(raw: string): void {
    if (this.closed) return;
    this.api.received.push(raw);
    if (this.hung) return;
    let msg: Record<string, unknown> | undefined;
    try {
      const v: unknown = JSON.parse(raw);
      if (isObj(v) && (typeof v.method === 'string' || 'result' in v || 'error' in v)) msg = v;
    } catch {
      /* not JSON: the handler gets undefined */
    }
    setImmediate(() => {
      if (!this.closed && !this.hung) this.handler(raw, msg, this.api);
    });
  }

  private end(code: number): void {
    if (this.closed) return;
    this.exitCode = code;
    for (const t of this.timers) clearTimeout(t);
    this.closed = true;
    this.closeInfo = {
      exitCode: code,
      signal: null,
      reason: `the server exited with code ${code}`,
      stderrTail: this.stderr.slice(-20),
    };
    this.onClose?.(this.closeInfo);
  }

  async close(): Promise<void> {
    this.end(0);
  }

  processInfo(): ProcessInfo {
    return { exitCode: this.exitCode, signal: null, shutdown: 'exited', stderr: this.stderr };
  }
}

/**
 * One method answered otherwise. `next()` hands the message to the server being extended (standard, unless another
 * base is given), so a test changes only what its case is about.
 */
export type MethodHandler = (msg: Record<string, unknown>, api: FakeApi, next: () => void) => void;

/**
 * The standard server with some methods answered otherwise, per test case: `extend({ 'tools/call': (m, api) => {} })`
 * (a call never answered). Keys are method names; '*unreadable*' handles what is no JSON-RPC message.
 */
export function extend(methods: Record<string, MethodHandler>, base: Handler = standard): Handler {
  return (raw, msg, api) => {
    const next = () => base(raw, msg, api);
    const own =
      msg === undefined ? methods['*unreadable*'] : typeof msg.method === 'string' ? methods[msg.method] : undefined;
    if (own && msg !== undefined) own(msg, api, next);
    else if (own) own({}, api, next);
    else next();
  };
}

/** Run suites of the engine against a fake server (runSuites with the fake transport): the report, cases by id, the transports. */
export async function runFake(handler: Handler, suites: string[], opts: Partial<RunOptions> = {}) {
  const transports: FakeTransport[] = [];
  const report = await runSuites({
    target: { transport: 'stdio', command: 'fake', argv: ['fake'] },
    suites: ALL_SUITES,
    suiteFilter: suites,
    timeoutMs: 400,
    transportFactory: () => {
      const t = new FakeTransport(handler);
      transports.push(t);
      return t;
    },
    ...opts,
  });
  const all = report.suites.flatMap((s) => s.cases);
  const c = (id: string): CaseResult => {
    const found = all.find((x) => x.id === id);
    if (!found) throw new Error(`no case ${id}: ${all.map((x) => x.id).join(', ')}`);
    return found;
  };
  return { report, c, all, transports };
}
