/**
 * Faults on demand, for clients that need their connect, retry and timeout logic tested: one plan per served mock,
 * consulted by every transport (stdio, Streamable HTTP, HTTP+SSE, the msw handlers) for each client request, in the
 * order the requests arrive.
 *
 * - latency (+ jitter): each answer is held back that long (jitter: plus 0..jitter ms, drawn from the seeded sequence);
 * - drop: requests of these methods are never answered;
 * - failRate: that share of requests is failed: a JSON-RPC -32603 error over stdio, an HTTP 503 over HTTP;
 * - seed: the failures and the jitter follow a repeatable sequence (mulberry32); without it, a random seed;
 * - disconnectAfter: once N requests have been answered, the mock goes away (stdio: the process exits; HTTP: every
 *   connection and stream is closed, and every later request has its connection closed without an answer). The N
 *   slots are taken when the requests arrive, not when their answers go out: requests that arrive together past the
 *   N-th are never answered (they were once, while the first answers were still in the making);
 * - expireSessionAfter (HTTP): a session that has received N requests answers 404 to everything after (counted on
 *   arrival too).
 *
 * Only requests (a method and an id) are subject to faults; notifications and client responses pass untouched.
 */
import { errorResponse, parseJson, sleep, type MockSession, type MockSource, type Outgoing } from './engine.js';

export interface FaultOptions {
  /** Delay of each answer (ms). */
  latency?: number;
  /** Extra delay of each answer: 0..jitter ms, from the seeded sequence. */
  jitter?: number;
  /** Methods whose requests are never answered. */
  drop?: string[];
  /** Share of requests (0..1) failed with -32603 (stdio) or HTTP 503 (HTTP). */
  failRate?: number;
  /** Seed of the sequence that picks failed requests and jitter (default: random). */
  seed?: number;
  /** After answering this many requests, disconnect. */
  disconnectAfter?: number;
  /** HTTP: after this many requests in a session, answer 404 for it. */
  expireSessionAfter?: number;
}

/** What to do with one client request. */
export type FaultDecision =
  | { action: 'answer'; delayMs: number }
  | { action: 'drop' }
  | { action: 'fail'; delayMs: number };

export const FAIL_MESSAGE = 'Internal error: injected by the mock (serve --fail-rate)';

/** mulberry32: a small seeded generator, the same sequence on every platform. */
export function seededRandom(seed: number): () => number {
  let a = seed >>> 0;
  return () => {
    a = (a + 0x6d2b79f5) >>> 0;
    let t = a;
    t = Math.imul(t ^ (t >>> 15), t | 1);
    t ^= t + Math.imul(t ^ (t >>> 7), t | 61);
    return ((t ^ (t >>> 14)) >>> 0) / 4294967296;
  };
}

/** Checks the options (a message for the CLI's usage error, or undefined). */
export function faultProblem(o: FaultOptions): string | undefined {
  const nonNeg = (v: number | undefined) => v === undefined || (Number.isFinite(v) && v >= 0);
  const count = (v: number | undefined) => v === undefined || (Number.isInteger(v) && v >= 0);
  if (!nonNeg(o.latency)) return '--latency: a number of milliseconds (0 or more)';
  if (!nonNeg(o.jitter)) return '--jitter: a number of milliseconds (0 or more)';
  if (o.failRate !== undefined && !(Number.isFinite(o.failRate) && o.failRate >= 0 && o.failRate <= 1))
    return '--fail-rate: a share between 0 and 1 (0.25 = a quarter of the requests)';
  if (o.seed !== undefined && !Number.isInteger(o.seed)) return '--seed: an integer';
  if (!count(o.disconnectAfter)) return '--disconnect-after: a whole number of requests';
  if (!count(o.expireSessionAfter)) return '--expire-session-after: a whole number of requests';
  return undefined;
}

export function hasFaults(o: FaultOptions): boolean {
  return !!(
    o.latency ||
    o.jitter ||
    o.drop?.length ||
    o.failRate ||
    o.disconnectAfter !== undefined ||
    o.expireSessionAfter !== undefined
  );
}

/** One plan per served mock: its counters span every session and connection. */
export class FaultPlan {
  private readonly failDraw: () => number;
  private readonly jitterDraw: () => number;
  private readonly drop: Set<string>;
  /** Requests answered (or failed) so far. */
  answered = 0;
  /** Requests taken to be answered (or failed) so far: the slots of disconnectAfter, counted on arrival. */
  taken = 0;
  /** Set once disconnectAfter has been reached. */
  disconnected = false;
  private readonly onDisconnect = new Set<() => void>();
  private readonly perSession = new Map<string, number>();

  constructor(readonly options: FaultOptions = {}) {
    const problem = faultProblem(options);
    if (problem) throw new Error(problem);
    const seed = options.seed ?? Math.floor(Math.random() * 2 ** 31);
    // Two sequences: the failed requests of a seed do not change when --jitter is added.
    this.failDraw = seededRandom(seed);
    this.jitterDraw = seededRandom(seed ^ 0x5bd1e995);
    this.drop = new Set(options.drop ?? []);
    // --disconnect-after 0: gone before the first request.
    if (options.disconnectAfter === 0) this.disconnected = true;
  }

  /** For each client request, in arrival order. */
  decide(method: string): FaultDecision {
    const fail = this.options.failRate ? this.failDraw() < this.options.failRate : false;
    if (this.drop.has(method)) return { action: 'drop' };
    // Past the N-th request taken, nothing is answered: the disconnect comes once the N answers have gone out.
    const n = this.options.disconnectAfter;
    if (this.disconnected || (n !== undefined && this.taken >= n)) return { action: 'drop' };
    this.taken++;
    const delayMs =
      (this.options.latency ?? 0) +
      (this.options.jitter ? Math.floor(this.jitterDraw() * (this.options.jitter + 1)) : 0);
    return fail ? { action: 'fail', delayMs } : { action: 'answer', delayMs };
  }

  /** Call once an answer (or an injected failure) has been sent; runs the disconnect hooks when the count is reached. */
  answeredOne(): void {
    this.answered++;
    const n = this.options.disconnectAfter;
    if (n !== undefined && this.answered >= n && !this.disconnected) {
      this.disconnected = true;
      for (const f of this.onDisconnect) f();
    }
  }

  /** What the transport does when the mock goes away. */
  whenDisconnected(f: () => void): () => void {
    this.onDisconnect.add(f);
    if (this.disconnected) f();
    return () => this.onDisconnect.delete(f);
  }

  private readonly onClose = new Set<() => void>();
  private closed = false;

  /** Runs when the mock is closed (dropped requests give up then). */
  whenClosed(f: () => void): void {
    if (this.closed) f();
    else this.onClose.add(f);
  }

  close(): void {
    this.closed = true;
    for (const f of this.onClose) f();
    this.onClose.clear();
  }

  /** Counts a request of a session; true when the session has expired (it had N requests before this one). */
  sessionExpired(sessionId: string): boolean {
    const n = this.options.expireSessionAfter;
    if (n === undefined) return false;
    const seen = this.perSession.get(sessionId) ?? 0;
    if (seen >= n) return true;
    this.perSession.set(sessionId, seen + 1);
    return false;
  }

  /** Whether this session has already expired (without counting). */
  isExpired(sessionId: string): boolean {
    const n = this.options.expireSessionAfter;
    return n !== undefined && (this.perSession.get(sessionId) ?? 0) >= n;
  }
}

/** The method of a request (a method and a string or number id), or undefined for anything else. */
export function requestMethod(raw: string): { method: string; id: string | number } | undefined {
  const p = parseJson(raw);
  if (!p.ok || !p.value || typeof p.value !== 'object' || Array.isArray(p.value)) return undefined;
  const m = p.value as Record<string, unknown>;
  if (typeof m.method !== 'string' || !(typeof m.id === 'string' || typeof m.id === 'number')) return undefined;
  return { method: m.method, id: m.id };
}

/**
 * A session with the JSON-RPC faults (stdio and HTTP+SSE, where an answer is a message): latency, drop, and a failed
 * request answered -32603. `httpFail`: failures are the transport's (HTTP 503), the session only answers normally.
 */
export class FaultySession implements MockSession {
  constructor(
    private readonly inner: MockSession,
    private readonly plan: FaultPlan,
  ) {}

  async receive(raw: string, emit: (m: Outgoing) => void): Promise<void> {
    const req = requestMethod(raw);
    if (!req) return this.inner.receive(raw, emit);
    if (this.plan.disconnected) return; // gone: nothing more is answered
    const d = this.plan.decide(req.method);
    await applyDecision(d, req.id, () => this.inner.receive(raw, emit), emit, this.plan);
  }

  end(): void {
    this.inner.end?.();
  }
}

/**
 * Carries out a decision for a JSON-RPC answer: waits the delay, then answers (or fails with -32603); a dropped request
 * is never answered (the inner session does not see it).
 */
export async function applyDecision(
  d: FaultDecision,
  id: string | number,
  answer: () => Promise<void>,
  emit: (m: Outgoing) => void,
  plan: FaultPlan,
): Promise<void> {
  if (d.action === 'drop') return;
  if (d.delayMs) await sleep(d.delayMs);
  if (plan.disconnected) return;
  if (d.action === 'fail') emit(errorResponse(id, -32603, FAIL_MESSAGE));
  else await answer();
  plan.answeredOne();
}

/** A source whose sessions carry the JSON-RPC faults of a plan. */
export function faultySource(source: MockSource, plan: FaultPlan): MockSource {
  return {
    label: source.label,
    protocolVersions: source.protocolVersions,
    newSession: () => new FaultySession(source.newSession(), plan),
  };
}
