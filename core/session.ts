/**
 * JSON-RPC session over a transport: ids, request/response matching, per-request timeouts, notifications,
 * answers to requests the server sends, and the message log (every line, both directions, schema-checked).
 */
import { performance } from 'node:perf_hooks';
import { classify, type Direction, type LoggedMessage } from './log.js';
import type { MessageValidator } from './schema/validator.js';
import type { IncomingFrame, Transport, TransportClosed } from './transport/types.js';

export interface JsonRpcError {
  code: number;
  message: string;
  data?: unknown;
}

export interface Reply {
  request: LoggedMessage;
  response: LoggedMessage;
  /** Present for a success answer. */
  result?: Record<string, unknown>;
  /** Present for an error answer. */
  error?: JsonRpcError;
}

export type SessionErrorKind = 'timeout' | 'closed' | 'unresponsive';

export class SessionError extends Error {
  constructor(
    readonly kind: SessionErrorKind,
    message: string,
    readonly request?: LoggedMessage,
    readonly closeInfo?: TransportClosed,
    /** The request was sent after the server was already gone (nothing to judge in it). */
    readonly afterClose = false,
  ) {
    super(message);
    this.name = 'SessionError';
  }
}

/** How long a request waits, once an earlier one timed out, for any sign of life before giving up. */
const STALLED_WAIT_MS = 2000;

export interface RequestOptions {
  timeoutMs?: number;
  /** The message is malformed on purpose (a probe): its schema violations are expected. Say why. */
  expectInvalid?: string;
}

interface Pending {
  request: LoggedMessage;
  resolve: (r: Reply) => void;
  reject: (e: Error) => void;
  timer: NodeJS.Timeout;
}

export interface SessionOptions {
  /** Default per-request timeout (ms). */
  timeoutMs: number;
  /** Client capabilities declared in initialize: server requests for undeclared ones get -32601. */
  clientCapabilities?: Record<string, unknown>;
}

export interface IdAnomaly {
  seq: number;
  /** late-answer: the answer to a request that had already timed out (not an id error). */
  problem: 'unknown-id' | 'duplicate-answer' | 'missing-id' | 'late-answer';
}

export class Session {
  readonly log: LoggedMessage[] = [];
  readonly idAnomalies: IdAnomaly[] = [];
  private readonly t0 = performance.now();
  private nextId = 1;
  private readonly pending = new Map<string, Pending>();
  private readonly answered = new Set<string>();
  private readonly timedOut = new Set<string>();
  private validator?: MessageValidator;
  private unchecked: LoggedMessage[] = [];
  private stalled = false;
  private readonly listeners = new Set<(m: LoggedMessage) => void>();

  constructor(readonly transport: Transport, readonly opts: SessionOptions) {
    transport.onFrame = (f) => this.onFrame(f);
    transport.onClose = (info) => this.onClose(info);
  }

  /** Milliseconds since the session began. */
  now(): number {
    return Math.round((performance.now() - this.t0) * 1000) / 1000;
  }

  get closed(): boolean {
    return this.transport.closed;
  }

  /** Schema-check every message logged so far and from now on against this validator. */
  setValidator(v: MessageValidator): void {
    this.validator = v;
    for (const m of this.unchecked) this.check(m);
    this.unchecked = [];
  }

  get protocolVersion(): string | undefined {
    return this.validator?.version;
  }

  /** Call fn for every message logged from now on (both directions); returns an unsubscribe function. */
  watch(fn: (m: LoggedMessage) => void): () => void {
    this.listeners.add(fn);
    return () => this.listeners.delete(fn);
  }

  request(method: string, params?: unknown, opts: RequestOptions = {}): Promise<Reply> {
    const msg: Record<string, unknown> = { jsonrpc: '2.0', id: this.nextId++, method };
    if (params !== undefined) msg.params = params;
    return this.sendRequest(msg, opts);
  }

  /** Send a request object as given (it must have an id); used by probes that bend the shape on purpose. */
  sendRequest(msg: Record<string, unknown>, opts: RequestOptions = {}): Promise<Reply> {
    if (msg.id === undefined) msg = { ...msg, id: this.nextId++ };
    const timeoutMs = opts.timeoutMs ?? this.opts.timeoutMs;
    const entry = this.emit(msg, opts.expectInvalid);
    const what = `${String(msg.method ?? 'request')} (id ${JSON.stringify(msg.id)})`;
    if (this.transport.closed) {
      return Promise.reject(new SessionError('closed', `${what} not sent: ${this.transport.closeInfo?.reason ?? 'the connection is closed'}`, entry, this.transport.closeInfo, true));
    }
    return new Promise<Reply>((resolve, reject) => {
      const key = idKey(msg.id);
      const started = Date.now();
      // Once a request has timed out, a silent server would cost a full timeout per request: wait only briefly
      // unless something arrives from the server meanwhile, then the full time.
      const arm = (ms: number, stalledCheck: boolean): NodeJS.Timeout => setTimeout(() => {
        if (stalledCheck && !this.stalled) {
          const p = this.pending.get(key);
          if (p) p.timer = arm(Math.max(0, timeoutMs - (Date.now() - started)), false);
          return;
        }
        this.pending.delete(key);
        this.timedOut.add(key);
        if (stalledCheck) {
          reject(new SessionError('unresponsive', `${what} not answered: the server stopped answering (an earlier request timed out, and nothing came from it in the ${ms} ms since this one was sent)`, entry));
        } else {
          this.stalled = true;
          reject(new SessionError('timeout', `${what} not answered within ${timeoutMs} ms`, entry));
        }
      }, ms);
      const timer = this.stalled && timeoutMs > STALLED_WAIT_MS ? arm(STALLED_WAIT_MS, true) : arm(timeoutMs, false);
      this.pending.set(key, { request: entry, resolve, reject, timer });
    });
  }

  notify(method: string, params?: unknown, opts: { expectInvalid?: string } = {}): LoggedMessage {
    const msg: Record<string, unknown> = { jsonrpc: '2.0', method };
    if (params !== undefined) msg.params = params;
    return this.emit(msg, opts.expectInvalid);
  }

  /** Send any JSON value or raw text (a probe); logged like every other message. */
  sendRaw(value: unknown, opts: { expectInvalid?: string; rawText?: boolean } = {}): LoggedMessage {
    return this.emit(value, opts.expectInvalid, opts.rawText);
  }

  /** Reject everything still waiting (used when the run ends). */
  abandon(reason: string): void {
    for (const [k, p] of this.pending) {
      clearTimeout(p.timer);
      p.reject(new SessionError('closed', reason, p.request));
      this.pending.delete(k);
    }
  }

  private emit(value: unknown, expectInvalid?: string, rawText = false): LoggedMessage {
    const raw = rawText ? String(value) : JSON.stringify(value);
    let json: unknown;
    let parsed = true;
    if (rawText) {
      try { json = JSON.parse(raw); } catch { parsed = false; }
    } else json = value;
    const entry = this.record('to-server', raw, parsed ? json : undefined, parsed, undefined, expectInvalid);
    this.settle(entry);
    this.transport.send(raw);
    return entry;
  }

  private record(direction: Direction, raw: string, json: unknown, parsed: boolean, problem?: string, expectInvalid?: string): LoggedMessage {
    const entry: LoggedMessage = {
      seq: this.log.length,
      direction,
      t: this.now(),
      raw,
      kind: 'invalid',
      schema: { checked: false, valid: false, violations: [] },
    };
    if (parsed) {
      entry.json = json;
      const c = classify(json);
      entry.kind = c.kind;
      if (c.method !== undefined) entry.method = c.method;
      if (c.id !== undefined) entry.id = c.id;
      if (c.problem) entry.problem = c.problem;
    } else {
      entry.problem = problem ?? 'not JSON';
    }
    if (problem && parsed) entry.problem = problem;
    if (expectInvalid) entry.schema.expectedInvalid = expectInvalid;
    this.log.push(entry);
    return entry;
  }

  /** Schema-check a message once its method is known (responses learn it from their request). */
  private settle(entry: LoggedMessage): void {
    if (entry.json === undefined && entry.kind === 'invalid' && entry.problem?.startsWith('not JSON')) {
      // Not a message at all: the stdio suite reports it; nothing to check against a schema.
    } else if (this.validator) this.check(entry);
    else this.unchecked.push(entry);
    for (const fn of this.listeners) fn(entry);
  }

  private check(entry: LoggedMessage): void {
    const expected = entry.schema.expectedInvalid;
    entry.schema = this.validator!.check({ direction: entry.direction, kind: entry.kind, method: entry.method, json: entry.json });
    if (expected) entry.schema.expectedInvalid = expected;
  }

  private onFrame(frame: IncomingFrame): void {
    this.stalled = false;
    let json: unknown;
    let parsed = true;
    try {
      json = JSON.parse(frame.raw);
    } catch (e) {
      parsed = false;
    }
    const entry = this.record('from-server', frame.raw, json, parsed, parsed ? frame.problem : `not JSON${frame.problem ? ` (${frame.problem})` : ''}`);
    if (entry.kind === 'response' || entry.kind === 'error') this.onAnswer(entry);
    this.settle(entry);
    if (entry.kind === 'request') this.answerServerRequest(entry);
  }

  private onAnswer(entry: LoggedMessage): void {
    const m = entry.json as Record<string, unknown>;
    if (!('id' in m) || m.id === null) {
      // An error with id null answers a request the server could not read; the suite that sent one looks for it.
      if (entry.kind === 'response') this.idAnomalies.push({ seq: entry.seq, problem: 'missing-id' });
      return;
    }
    const key = idKey(m.id);
    const p = this.pending.get(key);
    if (!p) {
      const problem = this.answered.has(key) ? 'duplicate-answer' : this.timedOut.has(key) ? 'late-answer' : 'unknown-id';
      if (problem === 'late-answer') this.timedOut.delete(key);
      this.idAnomalies.push({ seq: entry.seq, problem });
      if (problem !== 'duplicate-answer') this.answered.add(key);
      return;
    }
    this.pending.delete(key);
    this.answered.add(key);
    clearTimeout(p.timer);
    entry.method = p.request.method;
    entry.inReplyTo = p.request.seq;
    const reply: Reply = { request: p.request, response: entry };
    if (entry.kind === 'response') {
      const r = m.result;
      reply.result = r !== null && typeof r === 'object' && !Array.isArray(r) ? (r as Record<string, unknown>) : { value: r };
    } else {
      const e = (m.error ?? {}) as Record<string, unknown>;
      reply.error = { code: typeof e.code === 'number' ? e.code : NaN, message: typeof e.message === 'string' ? e.message : '', data: e.data };
    }
    p.resolve(reply);
  }

  /** The harness is a client: it answers ping, and refuses what it did not declare. */
  private answerServerRequest(req: LoggedMessage): void {
    const id = (req.json as Record<string, unknown>).id;
    let answer: Record<string, unknown>;
    const caps = this.opts.clientCapabilities ?? {};
    const needs: Record<string, string> = { 'sampling/createMessage': 'sampling', 'elicitation/create': 'elicitation', 'roots/list': 'roots' };
    if (req.method === 'ping') answer = { jsonrpc: '2.0', id, result: {} };
    else if (req.method === 'roots/list' && caps.roots) answer = { jsonrpc: '2.0', id, result: { roots: [] } };
    else {
      const cap = req.method ? needs[req.method] : undefined;
      const why = cap ? `the client did not declare the ${cap} capability` : `the client does not implement ${req.method}`;
      answer = { jsonrpc: '2.0', id, error: { code: -32601, message: `Method not found: ${why}` } };
    }
    const entry = this.record('to-server', JSON.stringify(answer), answer, true);
    entry.method = req.method;
    entry.inReplyTo = req.seq;
    this.settle(entry);
    this.transport.send(entry.raw);
  }

  private onClose(info: TransportClosed): void {
    const tail = info.stderrTail.length ? `; last stderr lines: ${info.stderrTail.slice(-5).join(' | ')}` : '';
    for (const [k, p] of this.pending) {
      clearTimeout(p.timer);
      const what = `${p.request.method} (id ${JSON.stringify(p.request.id)})`;
      p.reject(new SessionError('closed', `${what} not answered: ${info.reason}${tail}`, p.request, info));
      this.pending.delete(k);
    }
  }
}

function idKey(id: unknown): string {
  return `${typeof id}:${String(id)}`;
}
