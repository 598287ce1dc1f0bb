/**
 * Pipelined tool calls (core/tools.ts pipelined) against a server that handles one request at a time: the calls
 * sent together wait in its queue, and that wait must not count against their timeouts — each call's timeout (and
 * its duration) starts once the call ahead of it has ended, as if they had been sent one by one. A call that is
 * never answered still fails within its timeout from its turn. Here in-process; the same against a real process
 * through the CLI (fixtures/servers/zoo/one-at-a-time.py): test/zoo-pipelined.test.ts.
 */
import { describe, expect, it } from 'vitest';
import { Session, type SessionError, type Reply } from '../core/session.js';
import { pipelined } from '../core/tools.js';
import type { IncomingFrame, Transport, TransportClosed } from '../core/transport/types.js';

/** A scripted server that answers one request at a time, each after `serviceMs`; `drop` ids get no answer, from `hangAt` on nothing does. */
class OneAtATime implements Transport {
  readonly kind = 'stdio' as const;
  onFrame?: (frame: IncomingFrame) => void;
  onClose?: (info: TransportClosed) => void;
  closed = false;
  closeInfo?: TransportClosed;
  private readonly queue: Record<string, unknown>[] = [];
  private busy = false;
  private readonly timers = new Set<NodeJS.Timeout>();

  constructor(
    readonly serviceMs: number,
    readonly opts: { drop?: number[]; hangAt?: number } = {},
  ) {}
  async start(): Promise<void> {}
  send(raw: string): void {
    this.queue.push(JSON.parse(raw) as Record<string, unknown>);
    this.next();
  }
  private next(): void {
    if (this.busy || this.closed) return;
    const msg = this.queue.shift();
    if (!msg) return;
    if (this.opts.hangAt !== undefined && msg.id === this.opts.hangAt) return void (this.busy = true); // stuck for good
    if (this.opts.drop?.includes(msg.id as number)) return this.next();
    this.busy = true;
    const t = setTimeout(() => {
      this.timers.delete(t);
      this.busy = false;
      this.onFrame?.({ raw: JSON.stringify({ jsonrpc: '2.0', id: msg.id, result: { content: [] } }) });
      this.next();
    }, this.serviceMs);
    this.timers.add(t);
  }
  die(): void {
    for (const t of this.timers) clearTimeout(t);
    this.closed = true;
    this.closeInfo = { reason: 'the server exited with code 1', stderrTail: [] };
    this.onClose?.(this.closeInfo);
  }
  async close(): Promise<void> {
    this.die();
  }
  processInfo() {
    return undefined;
  }
}

type Outcome = { reply?: Reply; failure?: SessionError; at: number };

async function callAll(session: Session, n: number): Promise<Outcome[]> {
  const t0 = Date.now();
  return pipelined(
    Array.from({ length: n }, (_, i) => i),
    (i, _index, after) =>
      session.request('tools/call', { name: `t${i}`, arguments: {} }, { timeoutFrom: after }).then(
        (reply): Outcome => ({ reply, at: Date.now() - t0 }),
        (e: SessionError): Outcome => ({ failure: e, at: Date.now() - t0 }),
      ),
    { isBad: (o) => !!o.failure, isStalled: () => session.isStalled },
  );
}

const duration = (r: Reply) => r.response.t - r.timedFrom!;

describe('pipelined calls to a server that handles one request at a time', () => {
  it('every call is answered within its timeout from its turn: none fails for the wait in the queue; durations leave it out', async () => {
    // 8 calls of 100 ms each take 800 ms in all, four times the 200 ms timeout: sent together, each is still in time.
    const session = new Session(new OneAtATime(100), { timeoutMs: 200 });
    const out = await callAll(session, 8);
    expect(out.map((o) => o.failure?.message)).toEqual(Array(8).fill(undefined));
    for (const [i, o] of out.entries()) {
      expect(o.reply!.request.id).toBe(i + 1); // in the order of the items
      expect(duration(o.reply!), `call ${i}`).toBeGreaterThanOrEqual(80);
      expect(duration(o.reply!), `call ${i}`).toBeLessThan(190); // not the time spent queued
    }
    // The last one waited about 700 ms in the queue: its timeout started when the one ahead of it was answered.
    expect(out[7]!.reply!.timedFrom).toBeGreaterThanOrEqual(out[6]!.reply!.response.t);
    expect(out[7]!.reply!.response.t - out[7]!.reply!.request.t).toBeGreaterThan(600);
    expect(session.isStalled).toBe(false);
  });

  it('a call never answered fails on its timeout, counted from the answer ahead of it; the others pass', async () => {
    const session = new Session(new OneAtATime(50, { drop: [4] }), { timeoutMs: 300 }); // id 4 is the call of t3
    const out = await callAll(session, 6);
    expect(out.map((o) => (o.failure ? o.failure.kind : 'ok'))).toEqual(['ok', 'ok', 'ok', 'timeout', 'ok', 'ok']);
    const failed = out[3]!;
    expect(failed.failure!.message).toMatch(/tools\/call \(id 4\) not answered within 300 ms/);
    expect(failed.failure!.waitedMs).toBe(300);
    // Its turn came when t2 was answered (at about 150 ms): it fails about 300 ms later, not 300 ms after it was sent.
    expect(failed.at).toBeGreaterThanOrEqual(out[2]!.at + 280);
    expect(failed.at).toBeLessThan(out[2]!.at + 600);
    // The calls behind it were answered meanwhile; measured from the answer ahead of each, not from when sent.
    expect(duration(out[4]!.reply!)).toBeLessThan(150);
  });

  it('a server that hangs: the call fails on its timeout from its turn; the ping that follows goes unanswered, so the calls behind it end at once, cancelled', async () => {
    const session = new Session(new OneAtATime(50, { hangAt: 3 }), { timeoutMs: 2100 }); // stuck at id 3, the call of t2
    const t0 = Date.now();
    const out = await callAll(session, 8);
    const ms = Date.now() - t0;
    expect(out.slice(0, 2).map((o) => o.failure)).toEqual([undefined, undefined]);
    expect(out[2]!.failure).toMatchObject({
      kind: 'timeout',
      message: expect.stringMatching(/id 3\) not answered within 2100 ms/),
    });
    // The liveness ping (queued behind the stuck call) gets no answer either: the server is gone.
    expect(out[3]!.failure).toMatchObject({
      kind: 'unresponsive',
      message: expect.stringMatching(
        /the server stopped answering: tools\/call \(id 3\) got no answer within 2100 ms, nor did the ping sent then/,
      ),
    });
    for (const o of out.slice(4)) expect(o.failure).toMatchObject({ kind: 'unresponsive', waitedMs: 0 });
    // Every request given up on was cancelled once: the stuck call (id 3), the calls already sent behind it (ids 4–8,
    // waiting for their turn) and the ping (id 9); none of those answered before.
    expect(new Set(session.cancelled.map((c) => c.requestId)).size).toBe(session.cancelled.length);
    expect(session.cancelled.map((c) => c.requestId).sort()).toEqual([3, 4, 5, 6, 7, 8, 9]);
    expect(session.log.filter((m) => m.method === 'ping').map((m) => m.id)).toEqual([9]);
    // 100 ms + 2.1 s + the ping's 2.1 s: bounded.
    expect(ms).toBeGreaterThanOrEqual(4200);
    expect(ms).toBeLessThan(6500);
  }, 15_000);

  it('the server dies while calls wait for their turn: all end at once', async () => {
    const wire = new OneAtATime(200);
    const session = new Session(wire, { timeoutMs: 60_000 });
    const t0 = Date.now();
    const all = callAll(session, 8);
    setTimeout(() => wire.die(), 300);
    const out = await all;
    expect(Date.now() - t0).toBeLessThan(1000);
    expect(out[0]!.reply).toBeDefined();
    for (const o of out.slice(1)) expect(o.failure).toMatchObject({ kind: 'closed' });
  });

  it('a request sent on its own starts its timeout when it is sent (unchanged)', async () => {
    const session = new Session(new OneAtATime(10_000), { timeoutMs: 150 });
    const t0 = Date.now();
    const e = await session.request('tools/call', { name: 't0' }).catch((x: SessionError) => x);
    expect(e).toMatchObject({ kind: 'timeout', waitedMs: 150 });
    expect(Date.now() - t0).toBeLessThan(1000);
  });
});

describe('Probe.waitForAnswers once the connection is gone', () => {
  it('returns false at once on a probe sent after the connection ended, or after the run was abandoned', async () => {
    const wire = new OneAtATime(10);
    const session = new Session(wire, { timeoutMs: 200 });
    wire.die();
    const t0 = Date.now();
    await expect(
      session.probe([{ jsonrpc: '2.0', id: 99, method: 'ping' }], { id: 99 }).waitForAnswers(60_000),
    ).resolves.toBe(false);
    const other = new Session(new OneAtATime(10_000), { timeoutMs: 200 });
    other.abandon('the run was stopped');
    await expect(other.probe([{ jsonrpc: '2.0', method: 'notifications/x' }]).waitForAnswers(60_000)).resolves.toBe(
      false,
    );
    expect(Date.now() - t0).toBeLessThan(1000);
  });

  it('a probe without an id (nothing claims answers for it) also ends when the connection does', async () => {
    const wire = new OneAtATime(10_000);
    const session = new Session(wire, { timeoutMs: 200 });
    const p = session.probe([{ jsonrpc: '2.0', method: 'notifications/x' }]);
    const t0 = Date.now();
    const waiting = p.waitForAnswers(60_000);
    setTimeout(() => wire.die(), 50);
    await expect(waiting).resolves.toBe(false);
    await expect(p.waitForAnswers(60_000)).resolves.toBe(false); // and again, at once
    expect(Date.now() - t0).toBeLessThan(1000);
  });
});
