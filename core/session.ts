/**
 * JSON-RPC session over a transport: ids, request/response matching, per-request timeouts, notifications,
 * answers to requests the server sends, and the message log (every line, both directions, schema-checked).
 */
import { CAPABILITY_OF_REQUEST, cannedResult } from './client-capabilities.js';
import { performance } from 'node:perf_hooks';
import { classify, type Direction, type HttpInfo, type LoggedMessage } from './log.js';
import type { MessageValidator } from './schema/validator.js';
import type { IncomingFrame, Transport, TransportClosed } from './transport/types.js';
import { requestDeclaresTasks } from './wire.js';
import { leadingId, Probe, type ProbeOptions } from './probe.js';

export * from './session-types.js';
import {
  LIVENESS_WAIT_MS,
  SessionError,
  type CancelledRequest,
  type DroppedMessages,
  type IdAnomaly,
  type Pending,
  type Reply,
  type RequestOptions,
  type SessionOptions,
} from './session-types.js';

export class Session {
  readonly log: LoggedMessage[] = [];
  readonly idAnomalies: IdAnomaly[] = [];
  private readonly t0 = performance.now();
  private nextId = 1;
  private readonly pending = new Map<string, Pending>();
  /** seq of the requests the harness sent with params.task (see core/tasks.ts): their answers are CreateTaskResults. */
  private readonly taskAugmented = new Set<number>();
  private readonly answered = new Set<string>();
  private readonly timedOut = new Set<string>();
  /** Every request sent with an id, by id: late and second answers are linked to it. */
  private readonly requestsById = new Map<string, LoggedMessage>();
  private validator?: MessageValidator;
  private unchecked: LoggedMessage[] = [];
  private stalled = false;
  /**
   * Set when the server answers nothing: a request timed out, and the liveness probe sent then (the heartbeat) got no
   * answer either, with nothing at all from the server since. Cleared by any sign of life.
   */
  private gone?: string;
  /** The liveness probe in flight (its id key), and the promise that settles once its answer or its timeout is in. */
  private liveness?: { key: string; done: Promise<void> };
  /** Every notifications/cancelled sent for a request the session stopped waiting for (timed out, given up, abandoned). */
  readonly cancelled: CancelledRequest[] = [];
  /** When the last frame came from the server (ms since the session began). */
  private lastHeard = 0;
  private closedAtMs?: number;
  /** When the last answer to a pending request came (ms since the session began). */
  private lastAnswered = 0;
  private readonly listeners = new Set<(m: LoggedMessage) => void>();
  private readonly probesById = new Map<string, Probe>();
  private readonly catchAllProbes: Probe[] = [];
  /** Every probe sent (with an id or not): all are closed when the connection ends. */
  private readonly probes = new Set<Probe>();
  private logChars = 0;
  /** seq of the last message the harness sent of its own (requests, notifications, probes; not its answers). */
  private lastSentSeq = -1;
  /** Set by abandon(): no request is sent any more. */
  private abandoned?: string;
  /** Messages left out of the log once it reached its bounds. */
  readonly dropped: DroppedMessages = { messages: 0, chars: 0, byMethod: {} };
  /**
   * The request that shows the server still answers: `ping` before 2026-07-28; `server/discover` from it (ping was
   * removed). Set by the run once the version is known.
   */
  heartbeatMethod = 'ping';

  constructor(
    readonly transport: Transport,
    readonly opts: SessionOptions,
  ) {
    transport.onFrame = (f) => this.onFrame(f);
    transport.onClose = (info) => this.onClose(info);
    transport.onRequestFailed = (id, reason) => this.onRequestFailed(id, reason);
  }

  /** Milliseconds since the session began. */
  now(): number {
    return Math.round((performance.now() - this.t0) * 1000) / 1000;
  }

  get closed(): boolean {
    return this.transport.closed;
  }

  /** When the last frame came from the server (ms since the session began; 0: nothing yet). */
  get heardLast(): number {
    return this.lastHeard;
  }

  /** When the connection ended (ms since the session began), once it has. */
  get closedAt(): number | undefined {
    return this.closedAtMs;
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

  /**
   * true after a request timed out while nothing has come from the server since: the liveness probe is out (an answer
   * to it clears this: the server is slow, not gone), or went unanswered too (see unresponsive).
   */
  get isStalled(): boolean {
    return this.stalled;
  }

  /** The `_meta` members every request carries in 2026-07-28 (see SessionOptions.requestMeta); set once negotiated. */
  setRequestMeta(meta: Record<string, unknown> | undefined): void {
    this.opts.requestMeta = meta;
  }

  /** Send the heartbeat request (ping, or server/discover from 2026-07-28): any answer shows the server is alive. */
  heartbeat(opts: RequestOptions = {}): Promise<Reply> {
    return this.request(this.heartbeatMethod, undefined, opts);
  }

  /** A fresh request id (for probes that build their own messages). */
  newId(): number {
    return this.nextId++;
  }

  /**
   * Set when the server stopped answering altogether: a request timed out, and the liveness probe sent then (ping; a
   * cheap request from 2026-07-28) got no answer within its bound either, with nothing at all from the server since.
   * Requests are then refused at once (not sent) until the server shows a sign of life.
   */
  get unresponsive(): string | undefined {
    return this.stalled ? this.gone : undefined;
  }

  /** Resolves once no liveness probe is out (at once when none is): whether the server is gone is then known. */
  async livenessKnown(): Promise<void> {
    while (this.liveness) await this.liveness.done;
  }

  /**
   * Send one or more messages as a probe (see Probe): answers with opts.id, and with catchAll any answer that
   * matches nothing awaited while the probe is open, are collected on it instead of being id anomalies.
   */
  probe(values: unknown[], opts: ProbeOptions = {}): Probe {
    const p = new Probe(opts);
    if (this.abandoned) {
      p.close();
      return p;
    }
    if (opts.catchAll && lastOpen(this.catchAllProbes))
      throw new Error('a catch-all probe is already open on this session (wait for catchAllIdle())');
    if (opts.id !== undefined) this.probesById.set(idKey(opts.id), p);
    if (opts.catchAll) this.catchAllProbes.push(p);
    this.probes.add(p);
    for (const v of values) p.sent.push(this.emit(v, opts.expectInvalid, opts.rawText));
    p.lastOwnSeq = this.lastSentSeq;
    if (this.transport.closed) p.close();
    return p;
  }

  /** Resolves once no catch-all probe is open on the session (each one's wait is bounded by whoever opened it). */
  async catchAllIdle(): Promise<void> {
    for (let p = lastOpen(this.catchAllProbes); p; p = lastOpen(this.catchAllProbes)) await p.whenClosed();
  }

  /** The message the harness sent last (the heartbeat that bounds a probe, say) belongs to the probe (ProbeOptions.overlapped). */
  claimLastSent(probe: Probe): void {
    probe.lastOwnSeq = Math.max(probe.lastOwnSeq, this.lastSentSeq);
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
    const what = `${String(msg.method ?? 'request')} (id ${JSON.stringify(msg.id)})`;
    if (this.abandoned)
      return Promise.reject(
        new SessionError('closed', `${what} not sent: ${this.abandoned}`, undefined, undefined, true),
      );
    const gaveUp = this.unresponsive;
    if (gaveUp && !this.transport.closed)
      return Promise.reject(
        new SessionError('unresponsive', `${what} not sent: ${gaveUp}`, undefined, undefined, true),
      );
    const entry = this.emit(msg, opts.expectInvalid);
    if (this.transport.closed) {
      return Promise.reject(
        new SessionError(
          'closed',
          `${what} not sent: ${this.transport.closeInfo?.reason ?? 'the connection is closed'}`,
          entry,
          this.transport.closeInfo,
          true,
        ),
      );
    }
    const timeoutFrom = opts.timeoutFrom;
    return new Promise<Reply>((resolve, reject) => {
      const key = idKey(msg.id);
      const fail = (e: SessionError, waitedMs: number) => {
        e.waitedMs = waitedMs;
        reject(e);
      };
      // Its own full wait, however slow the requests around it: a timeout is this request's verdict. What it says
      // about the server is asked of the server itself (checkLiveness).
      const arm = (ms: number): NodeJS.Timeout =>
        setTimeout(() => {
          this.pending.delete(key);
          this.timedOut.add(key);
          this.stalled = true;
          this.cancelRequest(entry, `no answer within ${ms} ms`);
          fail(new SessionError('timeout', `${what} not answered within ${ms} ms${this.unreadHint()}`, entry), ms);
          // Not after the handshake request itself: nothing is known of the server yet, and nothing else waits.
          if (this.liveness?.key !== key && msg.method !== 'initialize' && msg.method !== this.heartbeatMethod)
            this.checkLiveness(what, ms);
        }, ms);
      const pending: Pending = { request: entry, resolve, reject };
      // The timeout starts now, or once the request ahead of it settled (it may have been answered, or failed, meanwhile).
      const start = () => {
        if (this.pending.get(key) !== pending) return;
        pending.timedFrom = timeoutFrom ? Math.max(entry.t, this.now()) : entry.t;
        const gaveUp = timeoutFrom ? this.unresponsive : undefined;
        if (gaveUp) {
          // Its turn came after the server stopped answering altogether: sent one at a time, it would not have been sent.
          this.pending.delete(key);
          this.timedOut.add(key);
          this.cancelRequest(entry, 'the server answers nothing');
          fail(new SessionError('unresponsive', `${what} not answered: ${gaveUp}`, entry), 0);
          return;
        }
        pending.timer = arm(timeoutMs);
      };
      this.pending.set(key, pending);
      this.requestsById.set(key, entry);
      if (timeoutFrom) timeoutFrom.then(start, start);
      else start();
    });
  }

  /**
   * A request timed out: is the server slow, or gone? Ask it once (the heartbeat, bounded by LIVENESS_WAIT_MS). Any
   * sign of life (its answer, or anything else) means slow: the timed-out request keeps its own verdict and nothing
   * else changes. No answer at all means gone: every request still waiting is given up on (cancelled) at once, and
   * later ones are refused without being sent until the server shows a sign of life.
   */
  private checkLiveness(timedOut: string, waited: number): void {
    if (this.liveness || this.gone || this.transport.closed || this.abandoned) return;
    const ms = Math.min(this.opts.timeoutMs, LIVENESS_WAIT_MS);
    const id = this.nextId;
    const probe = this.request(this.heartbeatMethod, undefined, { timeoutMs: ms });
    const key = idKey(id);
    const done = probe
      .then(
        () => undefined,
        (e: unknown) => {
          if (!(e instanceof SessionError) || e.kind !== 'timeout' || this.closed || !this.stalled) return;
          this.declareGone(
            `the server stopped answering: ${timedOut} got no answer within ${waited} ms, nor did the ${this.heartbeatMethod} sent then to see whether it still answers (id ${id}, ${ms} ms); nothing has come from it since ${Math.round(this.lastHeard)} ms into the run${this.unreadHint()}`,
          );
        },
      )
      .finally(() => {
        if (this.liveness?.key === key) this.liveness = undefined;
      });
    this.liveness = { key, done };
  }

  /** The server answers nothing (see checkLiveness): every request still waiting is given up on, and cancelled. */
  private declareGone(reason: string): void {
    this.gone = reason;
    for (const [k, p] of this.pending) {
      clearTimeout(p.timer);
      this.pending.delete(k);
      this.timedOut.add(k);
      this.cancelRequest(p.request, 'the server answers nothing');
      const e = new SessionError(
        'unresponsive',
        `${p.request.method} (id ${JSON.stringify(p.request.id)}) not answered: ${reason}`,
        p.request,
      );
      e.waitedMs = p.timedFrom === undefined ? 0 : Math.round(this.now() - p.timedFrom);
      p.reject(e);
    }
  }

  /**
   * Tell the server the harness stopped waiting for a request (notifications/cancelled with its id and why), as the
   * spec asks of a sender that gives up on a request; every version has the notification. Not for initialize (which
   * must not be cancelled), a task-augmented request (tasks/cancel is its way), or once the connection is gone.
   */
  private cancelRequest(req: LoggedMessage, reason: string): void {
    if (this.transport.closed || req.method === 'initialize' || this.taskAugmented.has(req.seq)) return;
    const id = (req.json as Record<string, unknown> | undefined)?.id;
    if (typeof id !== 'string' && typeof id !== 'number') return;
    const n = this.emit({ jsonrpc: '2.0', method: 'notifications/cancelled', params: { requestId: id, reason } });
    this.cancelled.push({ requestId: id, requestSeq: req.seq, seq: n.seq, reason });
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

  /** Reject everything still waiting, and refuse every request from now on (used when the run ends or is stopped). */
  abandon(reason: string): void {
    this.abandoned ??= reason;
    for (const [k, p] of this.pending) {
      clearTimeout(p.timer);
      this.cancelRequest(p.request, reason);
      p.reject(new SessionError('closed', reason, p.request));
      this.pending.delete(k);
      this.timedOut.add(k); // an answer that still comes is late, not unknown
    }
    for (const p of this.probes) p.close();
  }

  /** Over stdio: bytes written to the server's stdin that it has not read yet (it may have stopped reading). */
  private unreadHint(): string {
    const n = (this.transport as { unreadBytes?: number }).unreadBytes;
    return typeof n === 'number' && n > 0
      ? ` (${n} bytes written to the server's stdin are still waiting to be read: it may have stopped reading)`
      : '';
  }

  private emit(value: unknown, expectInvalid?: string, rawText = false): LoggedMessage {
    if (!rawText && this.opts.requestMeta) value = withRequestMeta(value, this.opts.requestMeta);
    const raw = rawText ? String(value) : JSON.stringify(value);
    let json: unknown;
    let parsed = true;
    if (rawText) {
      try {
        json = JSON.parse(raw);
      } catch {
        parsed = false;
      }
    } else json = value;
    const entry = this.record('to-server', raw, parsed ? json : undefined, parsed, undefined, expectInvalid);
    this.lastSentSeq = entry.seq;
    if (entry.kind === 'request' && isTaskAugmented(entry.json)) this.taskAugmented.add(entry.seq);
    this.settle(entry);
    const http = this.transport.send(raw);
    if (http) entry.http = http;
    return entry;
  }

  private record(
    direction: Direction,
    raw: string,
    json: unknown,
    parsed: boolean,
    problem?: string,
    expectInvalid?: string,
    http?: HttpInfo,
    logIt = true,
  ): LoggedMessage {
    const entry: LoggedMessage = {
      seq: -1,
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
    if (http) entry.http = http;
    if (expectInvalid) entry.schema.expectedInvalid = expectInvalid;
    if (logIt) this.append(entry);
    return entry;
  }

  private append(entry: LoggedMessage): void {
    entry.seq = this.log.length;
    this.log.push(entry);
    this.logChars += entry.raw.length;
  }

  private get logFull(): boolean {
    return (
      this.log.length >= (this.opts.maxLogMessages ?? 50_000) ||
      this.logChars >= (this.opts.maxLogChars ?? 256 * 1024 * 1024)
    );
  }

  /** Whether a message from the server answers something the harness waits for (kept in the log whatever its size). */
  private awaited(entry: LoggedMessage, frame: IncomingFrame): boolean {
    if (entry.kind === 'response' || entry.kind === 'error') {
      const m = entry.json as Record<string, unknown>;
      const hasId = 'id' in m && m.id !== null;
      if (hasId) {
        const k = idKey(m.id);
        if (this.pending.has(k) || this.probesById.has(k)) return true;
        if (this.timedOut.has(k) || this.answered.has(k)) return false;
      }
      // An answer that matches nothing awaited belongs to an open catch-all probe (see onAnswer): the probe waits for
      // it (an error with id null to a line the server could not read), however full the log is.
      return lastOpen(this.catchAllProbes) !== undefined;
    }
    if (frame.truncated && entry.json === undefined) {
      const id = leadingId(entry.raw);
      return id !== undefined && this.pending.has(idKey(id));
    }
    return false;
  }

  /** A message left out of the log (it reached its bounds): counted; a request is still answered. */
  private drop(entry: LoggedMessage): void {
    this.dropped.messages++;
    this.dropped.chars += entry.raw.length;
    const k = entry.method ?? (entry.kind === 'invalid' ? '(not a JSON-RPC message)' : `(${entry.kind})`);
    this.dropped.byMethod[k] = (this.dropped.byMethod[k] ?? 0) + 1;
    if (entry.kind === 'request') this.transport.send(JSON.stringify(this.answerFor(entry)));
  }

  /** An answer cut at the size bound cannot be read: fail the request it answers now (its id is read from the start). */
  private failCut(entry: LoggedMessage): void {
    const id = leadingId(entry.raw);
    if (id === undefined) return;
    const key = idKey(id);
    const p = this.pending.get(key);
    if (!p) return;
    clearTimeout(p.timer);
    this.pending.delete(key);
    this.answered.add(key);
    entry.inReplyTo = p.request.seq;
    entry.method = p.request.method;
    p.reject(
      new SessionError(
        'too-large',
        `${p.request.method} (id ${JSON.stringify(id)}) was answered with a message that cannot be read: ${entry.problem ?? 'cut at the size bound'} (--max-message-bytes raises the bound)`,
        p.request,
      ),
    );
  }

  /** Schema-check a message once its method is known (responses learn it from their request). */
  private settle(entry: LoggedMessage): void {
    if (entry.json === undefined && entry.kind === 'invalid' && entry.problem?.startsWith('not JSON')) {
      if (entry.direction === 'to-server') {
        // A probe of the harness that is not JSON on purpose: checked, and found to be no message at all.
        entry.schema = {
          ...entry.schema,
          checked: true,
          valid: false,
          definition: 'JSONRPCMessage',
          violations: [{ pointer: '', message: 'not JSON' }],
        };
      }
      // From the server it is a stray line, no message: the stdio suite reports it.
    } else if (this.validator) this.check(entry);
    else this.unchecked.push(entry);
    for (const fn of this.listeners) fn(entry);
  }

  private check(entry: LoggedMessage): void {
    const expected = entry.schema.expectedInvalid;
    // The answer to a task-augmented request (params.task) is a CreateTaskResult, not the request's usual result.
    const taskAugmented =
      entry.direction === 'from-server' && entry.inReplyTo !== undefined && this.taskAugmented.has(entry.inReplyTo);
    entry.schema = this.validator!.check({
      direction: entry.direction,
      kind: entry.kind,
      method: entry.method,
      json: entry.json,
      ...(taskAugmented ? { taskAugmented } : {}),
    });
    if (expected) entry.schema.expectedInvalid = expected;
  }

  private onFrame(frame: IncomingFrame): void {
    this.stalled = false;
    this.gone = undefined;
    this.lastHeard = this.now();
    let json: unknown;
    let parsed = true;
    try {
      json = JSON.parse(frame.raw);
    } catch {
      parsed = false;
    }
    const full = this.logFull;
    const entry = this.record(
      'from-server',
      frame.raw,
      json,
      parsed,
      parsed ? frame.problem : `not JSON${frame.problem ? ` (${frame.problem})` : ''}`,
      undefined,
      frame.http,
      !full,
    );
    if (full) {
      if (!this.awaited(entry, frame)) return this.drop(entry);
      this.append(entry);
    }
    if (frame.truncated && !parsed) this.failCut(entry);
    if (entry.kind === 'response' || entry.kind === 'error') this.onAnswer(entry);
    this.settle(entry);
    if (entry.kind === 'request') this.answerServerRequest(entry);
  }

  private onAnswer(entry: LoggedMessage): void {
    const m = entry.json as Record<string, unknown>;
    const hasId = 'id' in m && m.id !== null;
    if (!hasId || !this.pending.has(idKey(m.id))) {
      // A late or second answer to a request sent stays what it is; anything else unmatched may be a probe's.
      const known = hasId && (this.timedOut.has(idKey(m.id)) || this.answered.has(idKey(m.id)));
      const byId = hasId ? this.probesById.get(idKey(m.id)) : undefined;
      let probe = byId ?? (known ? undefined : lastOpen(this.catchAllProbes));
      if (probe && !byId && probe.opts.overlapped && this.lastSentSeq > probe.lastOwnSeq) {
        // Other messages went out since the probe's own: this answer may be theirs. Left as it would be without the probe.
        probe.unattributed.push(entry);
        probe = undefined;
      }
      if (probe) return this.claim(probe, entry, hasId ? idKey(m.id) : undefined);
    }
    if (!hasId) {
      // An error with id null answers a request the server could not read; the suite that sent one looks for it.
      if (entry.kind === 'response') this.idAnomalies.push({ seq: entry.seq, problem: 'missing-id' });
      return;
    }
    const key = idKey(m.id);
    const p = this.pending.get(key);
    if (!p) {
      const problem = this.answered.has(key)
        ? 'duplicate-answer'
        : this.timedOut.has(key)
          ? 'late-answer'
          : 'unknown-id';
      const req = problem === 'unknown-id' ? undefined : this.requestsById.get(key);
      if (req) {
        entry.inReplyTo = req.seq;
        entry.method = req.method;
      }
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
    // Answered before its turn came (its timeout not started): the answer ahead of it came just before (or it was
    // answered out of turn); measured from that answer, or from when it was sent.
    const reply: Reply = {
      request: p.request,
      response: entry,
      timedFrom: p.timedFrom ?? Math.max(p.request.t, this.lastAnswered),
    };
    this.lastAnswered = entry.t;
    if (entry.kind === 'response') {
      const r = m.result;
      reply.result =
        r !== null && typeof r === 'object' && !Array.isArray(r) ? (r as Record<string, unknown>) : { value: r };
    } else {
      const e = (m.error ?? {}) as Record<string, unknown>;
      reply.error = {
        code: typeof e.code === 'number' ? e.code : NaN,
        message: typeof e.message === 'string' ? e.message : '',
        data: e.data,
      };
    }
    p.resolve(reply);
  }

  /** An answer that belongs to a probe: linked to the probe's message, not an id anomaly (unless one too many). */
  private claim(probe: Probe, entry: LoggedMessage, key: string | undefined): void {
    const sent = probe.sent[0];
    const own = key !== undefined && probe.opts.id !== undefined && key === idKey(probe.opts.id);
    if (sent) {
      entry.inReplyTo = sent.seq;
      if (own && sent.method) entry.method = sent.method;
    }
    if (own) {
      const before = probe.answers.filter((a) => a.id !== undefined && a.id !== null && idKey(a.id) === key).length;
      if (before >= (probe.opts.expectAnswers ?? 1))
        this.idAnomalies.push({ seq: entry.seq, problem: 'duplicate-answer' });
    }
    probe.take(entry);
  }

  /** The answer the harness gives a request from the server: it is a client that answers ping and refuses what it did not declare. */
  private answerFor(req: LoggedMessage): Record<string, unknown> {
    const id = (req.json as Record<string, unknown>).id;
    // A request whose id is no string or integer (what MCP allows) cannot be answered by id: JSON-RPC's Invalid
    // Request, with id null.
    if (typeof id !== 'string' && !Number.isSafeInteger(id)) {
      const what =
        id === null
          ? 'null'
          : Array.isArray(id)
            ? 'an array'
            : typeof id === 'number'
              ? `the number ${JSON.stringify(id)}`
              : typeof id;
      return {
        jsonrpc: '2.0',
        id: null,
        error: {
          code: -32600,
          message: `Invalid Request: the id of a request must be a string or an integer, not ${what}`,
        },
      };
    }
    const caps = this.opts.clientCapabilities ?? {};
    if (req.method === 'ping') return { jsonrpc: '2.0', id, result: {} };
    const cap = req.method ? CAPABILITY_OF_REQUEST[req.method] : undefined;
    // A declared capability (--client-capabilities) gets its canned, documented answer.
    const canned = cap && caps[cap] !== undefined ? cannedResult(req.method!, this.opts.roots) : undefined;
    if (canned) return { jsonrpc: '2.0', id, result: canned };
    const why = cap
      ? `the client did not declare the ${cap} capability`
      : `the client does not implement ${req.method}`;
    return { jsonrpc: '2.0', id, error: { code: -32601, message: `Method not found: ${why}` } };
  }

  private answerServerRequest(req: LoggedMessage): void {
    const answer = this.answerFor(req);
    const entry = this.record('to-server', JSON.stringify(answer), answer, true);
    entry.method = req.method;
    entry.inReplyTo = req.seq;
    this.settle(entry);
    const http = this.transport.send(entry.raw);
    if (http) entry.http = http;
  }

  /** The transport knows this request will not be answered: fail it now (its reason says why). */
  private onRequestFailed(id: string | number, reason: string): void {
    const key = idKey(id);
    const p = this.pending.get(key);
    if (!p) return;
    clearTimeout(p.timer);
    this.pending.delete(key);
    this.timedOut.add(key); // an answer that still comes is late, not unknown
    p.reject(
      new SessionError(
        'transport',
        `${p.request.method} (id ${JSON.stringify(id)}) not answered: ${reason}`,
        p.request,
      ),
    );
  }

  private onClose(info: TransportClosed): void {
    this.closedAtMs ??= this.now();
    const tail = stderrTail(info);
    for (const [k, p] of this.pending) {
      clearTimeout(p.timer);
      const what = `${p.request.method} (id ${JSON.stringify(p.request.id)})`;
      p.reject(new SessionError('closed', `${what} not answered: ${info.reason}${tail}`, p.request, info));
      this.pending.delete(k);
    }
    for (const p of this.probes) {
      if (p.open) p.connectionLost = { t: this.now(), othersSent: this.lastSentSeq > p.lastOwnSeq };
      p.close();
    }
  }
}

/** A line that names an error ("Error: Cannot find module …", "TypeError: …", "ModuleNotFoundError: …"). */
const ERROR_LINE = /^\s*(?:Uncaught\s+)?[A-Za-z_.]*(?:Error|Exception)\b[^:]{0,40}:\s*\S/;

/** A stderr line that reports a fatal error: one naming an error (ERROR_LINE), a traceback, a panic, "fatal". */
export function fatalLine(line: string): boolean {
  return (
    ERROR_LINE.test(line) ||
    /^\s*Traceback \(most recent call last\)|\bpanic(?:ked)?\b|\bfatal\b|\bunhandled\b|\buncaught\b/i.test(line)
  );
}

/**
 * "; last stderr lines: a | b" (the last five lines the server wrote before the connection ended), or "". When the
 * line naming the error came earlier (Node prints the stack, the error's properties and its version after it), that
 * line leads, then "…": the five last lines of a Node crash alone never say what went wrong.
 */
export function stderrTail(info: TransportClosed | undefined): string {
  const tail = info?.stderrTail ?? [];
  if (!tail.length) return '';
  const last = tail.slice(-5);
  const named = last.some((l) => ERROR_LINE.test(l))
    ? undefined
    : tail
        .slice(0, -5)
        .reverse()
        .find((l) => ERROR_LINE.test(l));
  return `; last stderr lines: ${[...(named ? [named, '…'] : []), ...last].join(' | ')}`;
}

/** Why the connection ended, with the server's last stderr lines: "the server exited with code 5; last stderr lines: …". */
export function closedReason(info: TransportClosed | undefined): string {
  return `${info?.reason ?? 'the server is gone'}${stderrTail(info)}`;
}

/** A request (an object with a string method and an id) with the stateless `_meta` members added to its params. */
export function withRequestMeta(value: unknown, meta: Record<string, unknown>): unknown {
  if (value === null || typeof value !== 'object' || Array.isArray(value)) return value;
  const m = value as Record<string, unknown>;
  if (typeof m.method !== 'string' || !('id' in m)) return value;
  const params = m.params === undefined ? {} : m.params;
  if (params === null || typeof params !== 'object' || Array.isArray(params)) return value; // bent on purpose: leave it
  const p = params as Record<string, unknown>;
  const own =
    p._meta !== null && typeof p._meta === 'object' && !Array.isArray(p._meta)
      ? (p._meta as Record<string, unknown>)
      : {};
  return { ...m, params: { ...p, _meta: { ...meta, ...own } } };
}

function lastOpen(probes: Probe[]): Probe | undefined {
  for (let i = probes.length - 1; i >= 0; i--) if (probes[i]!.open) return probes[i];
  return undefined;
}

function idKey(id: unknown): string {
  return `${typeof id}:${String(id)}`;
}

/**
 * A request sent with params.task (a TaskMetadata object): task-augmented (2025-11-25 tasks); or one that declares
 * the io.modelcontextprotocol/tasks extension in its own client capabilities (2026-07-28: may be answered a task handle).
 */
function isTaskAugmented(json: unknown): boolean {
  const params = json !== null && typeof json === 'object' ? (json as Record<string, unknown>).params : undefined;
  const task = params !== null && typeof params === 'object' ? (params as Record<string, unknown>).task : undefined;
  return (task !== null && typeof task === 'object' && !Array.isArray(task)) || requestDeclaresTasks(json);
}
