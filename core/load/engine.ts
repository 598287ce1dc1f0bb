/**
 * The load generator: clients (core/concurrency/clients.ts) send the mix (core/load/mix.ts), in a closed loop (each
 * client sends its next request once the last is answered) or an open loop (--rate: requests per second over all
 * clients, whatever is in flight), until the duration or the request count is reached or the run is stopped. Every
 * answer is timed (core/load/stats.ts), checked against the schema (the session does it), and judged for crossing
 * with its canary (core/concurrency/canary.ts). Bounded: in-flight requests get `graceMs` after the end, then are
 * abandoned (counted as unfinished, not as errors).
 */
import { performance } from 'node:perf_hooks';
import type { Session } from '../session.js';
import { classifyAnswer, type MarkedRequest } from '../concurrency/canary.js';
import { SendFailure, sessionFailureKind, type Sender } from './senders.js';
import type { LoadStats } from './stats.js';
import type { MixEntry } from './mix.js';

export interface LoadClient {
  index: number;
  /** How it sends (a Session over stdio; lean POSTs over Streamable HTTP: core/load/senders.ts). */
  sender: Sender;
  /**
   * The JSON-RPC ids of this client's session. Each request takes the lowest id not in flight on it, so that the
   * clients of a closed loop all send the same id (what mixes answers up on a server that shares state by id:
   * GHSA-345p-7cg4-v4c7); workers sharing one session (stdio) share its pool.
   */
  ids: IdPool;
}

/** The lowest free id, from `first`; an id whose request timed out is never used again (a late answer to it is not a new request's). */
export class IdPool {
  private readonly busy = new Set<number>();
  private readonly burnt = new Set<number>();
  constructor(private readonly first = 1) {}
  take(): number {
    let id = this.first;
    while (this.busy.has(id) || this.burnt.has(id)) id++;
    this.busy.add(id);
    return id;
  }
  release(id: number, burn = false): void {
    this.busy.delete(id);
    if (burn) this.burnt.add(id);
  }
}

export interface LoadRunOptions {
  durationMs: number;
  /** Stop after this many requests were sent. */
  requests?: number;
  /** Open loop: requests per second over all clients. */
  rate?: number;
  timeoutMs: number;
  /** How long in-flight requests may still finish after the end (ms). */
  graceMs: number;
  /** The run's canary namespace. */
  run: string;
  signal?: AbortSignal;
  /** Called about once a second while the load runs. */
  onTick?: () => void;
}

export interface LoadRunResult {
  endedBy: 'duration' | 'requests' | 'stopped' | 'no-clients';
  /** Requests still in flight when the grace ran out. */
  unfinished: number;
  /** ms from the first request to the end of the load (grace excluded). */
  loadMs: number;
}

/**
 * A load run checks each message as it comes and keeps no log: every second the sessions' message logs and the HTTP
 * transports' exchange lists are cut to their last entries, so that the harness's memory stays flat over a long run.
 * (Nothing in a load run reads an entry by its position: ids here are the JSON-RPC ids, not positions.)
 */
export function trimRecords(sessions: Iterable<Session>, keep = 200): void {
  for (const s of new Set(sessions)) {
    if (s.log.length > keep * 2) s.log.splice(0, s.log.length - keep);
    const x = (s.transport as { exchanges?: unknown[] }).exchanges;
    if (Array.isArray(x) && x.length > keep * 2) x.splice(0, x.length - keep);
  }
}

/** The error kind of a request that got no answer. */
export function failureKind(e: unknown): string {
  return e instanceof SendFailure ? e.kind : sessionFailureKind(e);
}

/** A client, or one still being opened (a ramp): undefined when it could not be opened. */
export type PendingClient = LoadClient | Promise<LoadClient | undefined>;

export async function runLoad(
  pending: readonly PendingClient[],
  cycle: readonly MixEntry[],
  stats: LoadStats,
  o: LoadRunOptions,
): Promise<LoadRunResult> {
  if (!pending.length || !cycle.length) return { endedBy: 'no-clients', unfinished: 0, loadMs: 0 };
  const t0 = performance.now();
  const deadline = t0 + o.durationMs;
  // The clients opened so far (a ramp adds them as they come).
  const clients: LoadClient[] = [];
  // The end (the deadline, the run stopped, the request count reached): a closed loop never waits past it for an
  // answer. Waiters register one callback each, removed when their request settles (nothing piles up per request).
  const enders = new Set<() => void>();
  let finished = false;
  const finish = () => {
    if (finished) return;
    finished = true;
    for (const f of enders) f();
    enders.clear();
  };
  const endTimer: NodeJS.Timeout = setTimeout(finish, o.durationMs);
  o.signal?.addEventListener('abort', finish, { once: true });
  /** p, or the end if it comes first. */
  const untilEnd = <T>(p: Promise<T>): Promise<T | undefined> => {
    if (finished) return Promise.resolve(undefined);
    return new Promise<T | undefined>((resolve) => {
      const f = () => resolve(undefined);
      enders.add(f);
      p.then(
        (v) => {
          enders.delete(f);
          resolve(v);
        },
        () => {
          enders.delete(f);
          resolve(undefined);
        },
      );
    });
  };
  let endedBy: LoadRunResult['endedBy'] | undefined;
  let inFlight = 0;
  let seq = 0;
  const over = () => {
    if (endedBy) return true;
    if (o.signal?.aborted) endedBy = 'stopped';
    else if (performance.now() >= deadline) endedBy = 'duration';
    else if (o.requests !== undefined && stats.sent >= o.requests) endedBy = 'requests';
    return endedBy !== undefined;
  };
  let wake: (() => void) | undefined;
  const settled = () => {
    inFlight--;
    wake?.();
  };

  const sendOne = (c: LoadClient, entry: MixEntry, scheduledAt?: number): Promise<void> => {
    const n = ++seq;
    const req: MarkedRequest = {
      client: c.index,
      seq: n,
      method: entry.method,
      ...(entry.tool ? { tool: entry.tool } : {}),
    };
    const params = entry.params(o.run, c.index, n);
    if (entry.canary && params)
      req.canary = ((params.arguments as Record<string, unknown> | undefined) &&
        Object.values(params.arguments as Record<string, unknown>).find(
          (v) => typeof v === 'string' && v.startsWith(`mcc${o.run}`),
        )) as string | undefined;
    const id = c.ids.take();
    const msg: Record<string, unknown> = { jsonrpc: '2.0', id, method: entry.method };
    if (params !== undefined) msg.params = params;
    stats.sent++;
    inFlight++;
    const started = scheduledAt ?? performance.now();
    return c.sender
      .send(msg, o.timeoutMs)
      .then(
        (reply) => {
          c.ids.release(id);
          const at = performance.now();
          const ms = at - started;
          if (endedBy && at > deadline + o.graceMs) return; // came after the grace: not counted
          const cls =
            reply.otherId !== undefined
              ? {
                  kind: 'crossed' as const,
                  what: `the answer to id ${JSON.stringify(reply.otherId)} (it sent id ${id})`,
                  from: [] as number[],
                }
              : classifyAnswer(req, { result: reply.result, error: reply.error }, o.run, []);
          if (cls.kind === 'crossed')
            stats.cross({
              client: c.index,
              method: entry.key,
              what: cls.what,
              from: cls.from,
              atS: Math.round((at - t0) / 100) / 10,
            });
          let kind: string | undefined;
          if (cls.kind === 'crossed')
            kind = undefined; // another request's answer: counted as crossed, not as its error
          else if (reply.error) kind = `jsonrpc-${reply.error.code}`;
          else if (reply.invalid) kind = 'invalid-message';
          else if (reply.result?.isError === true) kind = 'tool-error';
          stats.answer(entry.key, ms, at, kind);
        },
        (e: unknown) => {
          c.ids.release(id, true);
          const at = performance.now();
          if (endedBy && failureKind(e) === 'connection-closed') return; // abandoned at the end: unfinished
          stats.error(entry.key, failureKind(e), at);
        },
      )
      .finally(settled);
  };

  const ticker = setInterval(() => {
    trimRecords(clients.flatMap((c) => (c.sender.session ? [c.sender.session] : [])));
    o.onTick?.();
  }, 1000);
  try {
    if (o.rate === undefined) {
      // Closed loop: one request in flight per client.
      await Promise.all(
        pending.map(async (p, ci) => {
          const c = await untilEnd(Promise.resolve(p));
          if (!c) return;
          clients.push(c);
          // Every client starts at the same place in the cycle: with the same id at the same moment they send the same
          // kind of request, the overlap that shows answers crossing (GHSA-345p-7cg4-v4c7).
          let k = 0;
          void ci;
          while (!over()) {
            await untilEnd(sendOne(c, cycle[k % cycle.length]!));
            if (o.requests !== undefined && stats.sent >= o.requests) finish();
            k++;
            if (c.sender.closed) break;
          }
        }),
      );
    } else {
      // Open loop: requests are due at the rate, whatever is in flight; latency counts from when each was due.
      const interval = 1000 / o.rate;
      let due = 0;
      let k = 0;
      for (const p of pending)
        void Promise.resolve(p).then((c) => {
          if (c) clients.push(c);
        });
      await new Promise<void>((resolve) => {
        const tick = () => {
          const now = performance.now();
          while (!over() && t0 + due * interval <= now) {
            const live = clients.filter((c) => !c.sender.closed);
            if (!live.length) break; // none open yet (a ramp): the request waits for one
            const c = live[k % live.length]!;
            void sendOne(c, cycle[k % cycle.length]!, t0 + due * interval);
            k++;
            due++;
          }
          if (over()) {
            clearInterval(timer);
            finish();
            resolve();
          }
        };
        const timer = setInterval(tick, Math.max(1, Math.min(10, interval)));
        tick();
      });
    }
    over();
    // Grace: what is in flight may still finish.
    const graceEnd = performance.now() + o.graceMs;
    while (inFlight > 0 && performance.now() < graceEnd) {
      await new Promise<void>((r) => {
        wake = r;
        setTimeout(r, Math.max(1, graceEnd - performance.now()));
      });
    }
    const unfinished = inFlight;
    // A run that ended by its duration lasted the duration; one that ended sooner, until its last answer (or the grace).
    const loadMs = endedBy === 'duration' || !endedBy ? o.durationMs : Math.min(performance.now(), deadline) - t0;
    return { endedBy: endedBy ?? 'duration', unfinished, loadMs };
  } finally {
    clearInterval(ticker);
    clearTimeout(endTimer);
    o.signal?.removeEventListener('abort', finish);
  }
}
