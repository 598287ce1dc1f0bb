/**
 * Concurrent clients of one server: N sessions (or stateless connections) opened side by side, each its own
 * transport and Session, handshaken with the version of the run; and rounds in which every client sends a request
 * with the SAME JSON-RPC id at the same moment, each carrying its own canary (core/concurrency/canary.ts), whose
 * answers are then judged: own, crossed (naming both clients and what crossed), or no answer (error, time-out).
 * Shared by security/session-isolation and `mcp-conform load`.
 */
import { SessionError, type Reply, type Session } from '../session.js';
import type { Transport } from '../transport/types.js';
import { classifyAnswer, type MarkedRequest } from './canary.js';

export interface ConcurrentClient {
  index: number;
  session: Session;
  transport: Transport;
  close(): Promise<void>;
}

/** How one client is made: a transport and a session, started (not yet handshaken). */
export type ClientOpener = () => Promise<{ session: Session; transport: Transport; close(): Promise<void> }>;

export interface Handshake {
  /** The version of the run. */
  version: string;
  /** Stateless (2026-07-28): every request carries _meta, no initialize (the opener sets the session's request meta). */
  stateless: boolean;
  clientInfo: { name: string; version: string };
  capabilities?: Record<string, unknown>;
  timeoutMs: number;
}

/** initialize + notifications/initialized on a fresh session (nothing for a stateless version). Rejects with why. */
export async function handshake(session: Session, h: Handshake): Promise<void> {
  if (h.stateless) {
    // 2026-07-28 over Streamable HTTP: the version (and the method headers that go with it) on every POST.
    if (session.transport.kind === 'streamable-http' && 'protocolVersion' in session.transport)
      (session.transport as { protocolVersion?: string }).protocolVersion = h.version;
    return;
  }
  const r = await session.request(
    'initialize',
    { protocolVersion: h.version, capabilities: h.capabilities ?? {}, clientInfo: h.clientInfo },
    { timeoutMs: h.timeoutMs },
  );
  if (r.error) throw new Error(`initialize was answered with error ${r.error.code}: ${r.error.message}`);
  session.notify('notifications/initialized');
}

export interface OpenedClients {
  clients: ConcurrentClient[];
  /** Clients that could not be opened or handshaken: which, and why. */
  failed: { index: number; reason: string }[];
}

/**
 * Open `n` clients at once (bounded by each opener's and handshake's own timeouts). A client that fails is closed and
 * listed in `failed`; the others are returned handshaken. `startAt(i)`: ms to wait before opening client i (a ramp).
 */
export async function openClients(
  n: number,
  open: ClientOpener,
  h: Handshake,
  o: { startAt?: (i: number) => number; stopped?: () => boolean } = {},
): Promise<OpenedClients> {
  const clients: ConcurrentClient[] = [];
  const failed: OpenedClients['failed'] = [];
  // The handshakes go one after another: each client's initialize has the same id, and a server that mixes answers
  // up would lose clients before the probe begins.
  let turn: Promise<unknown> = Promise.resolve();
  await Promise.all(
    Array.from({ length: n }, async (_, index) => {
      const wait = o.startAt?.(index) ?? 0;
      if (wait > 0) await new Promise((r) => setTimeout(r, wait));
      if (o.stopped?.()) {
        failed.push({ index, reason: 'the run stopped before it was opened' });
        return;
      }
      let c: Awaited<ReturnType<ClientOpener>> | undefined;
      try {
        c = await open();
        const opened = c;
        const mine = turn.then(() => handshake(opened.session, h));
        turn = mine.catch(() => undefined);
        await mine;
        clients.push({ index, ...c });
      } catch (e) {
        failed.push({ index, reason: (e as Error).message });
        await c?.close().catch(() => undefined);
      }
    }),
  );
  clients.sort((a, b) => a.index - b.index);
  return { clients, failed };
}

/** One client's part of a round: what it sent and what became of it. */
export interface RoundOutcome {
  request: MarkedRequest;
  /** own: its own answer; crossed: another's; error: a JSON-RPC error answer; no-answer: time-out, HTTP error, connection lost. */
  kind: 'own' | 'crossed' | 'error' | 'no-answer';
  /** crossed: the clients the answer may be from; what crossed (a canary, a shape). */
  from?: number[];
  what?: string;
  reply?: Reply;
  ms: number;
}

/**
 * One round: every client sends its request with JSON-RPC id `id` in the same turn of the event loop, then the
 * answers are awaited (each bounded by timeoutMs) and judged.
 */
export async function sameIdRound(
  clients: readonly ConcurrentClient[],
  requests: readonly MarkedRequest[],
  id: number | string,
  run: string,
  timeoutMs: number,
): Promise<RoundOutcome[]> {
  const started = performance.now();
  const sends = clients.map((c) => {
    const req = requests.find((r) => r.client === c.index)!;
    const msg: Record<string, unknown> = { jsonrpc: '2.0', id, method: req.method };
    if (req.params !== undefined) msg.params = req.params;
    return c.session.sendRequest(msg, { timeoutMs }).then(
      (reply) => ({ req, reply, ms: performance.now() - started }),
      (e: unknown) => ({ req, failure: e as Error, ms: performance.now() - started }),
    );
  });
  const done = await Promise.all(sends);
  return done.map((d): RoundOutcome => {
    const ms = Math.round(d.ms);
    if ('failure' in d) {
      const e = d.failure;
      return {
        request: d.req,
        kind: 'no-answer',
        what: e instanceof SessionError ? `${e.kind}: ${e.message}` : e.message,
        ms,
      };
    }
    const c = classifyAnswer(d.req, { result: d.reply.result, error: d.reply.error }, run, requests);
    if (c.kind === 'crossed')
      return { request: d.req, kind: 'crossed', from: c.from, what: c.what, reply: d.reply, ms };
    if (c.kind === 'error') return { request: d.req, kind: 'error', what: c.what, reply: d.reply, ms };
    return { request: d.req, kind: 'own', reply: d.reply, ms };
  });
}

/** A crossed outcome in words: "client 3 (tools/call echo) got client 0's canary mcc…x0x1". */
export function crossedText(o: RoundOutcome): string {
  const who = o.from?.length ? `client${o.from.length > 1 ? 's' : ''} ${o.from.join(' or ')}` : 'another request';
  return `client ${o.request.client} (${o.request.method}${o.request.tool ? ` ${o.request.tool}` : ''}) got ${o.what ?? 'a wrong answer'}: an answer meant for ${who}`;
}
