/** The session's bounds and its answers to hostile input, over a scripted transport (no process). */
import { describe, expect, it } from 'vitest';
import { leadingId } from '../core/probe.js';
import { Session, SessionError } from '../core/session.js';
import type { IncomingFrame, Transport, TransportClosed } from '../core/transport/types.js';

class Wire implements Transport {
  readonly kind = 'stdio' as const;
  onFrame?: (frame: IncomingFrame) => void;
  onClose?: (info: TransportClosed) => void;
  closed = false;
  closeInfo?: TransportClosed;
  readonly sent: string[] = [];
  async start(): Promise<void> {}
  send(raw: string): void {
    this.sent.push(raw);
  }
  push(value: unknown, frame: Partial<IncomingFrame> = {}): void {
    this.onFrame?.({ raw: typeof value === 'string' ? value : JSON.stringify(value), ...frame });
  }
  async close(): Promise<void> {}
  processInfo() {
    return undefined;
  }
  lastSent(): Record<string, unknown> {
    return JSON.parse(this.sent[this.sent.length - 1]!) as Record<string, unknown>;
  }
}

function setup(opts: Partial<ConstructorParameters<typeof Session>[1]> = {}) {
  const wire = new Wire();
  const session = new Session(wire, { timeoutMs: 200, ...opts });
  return { wire, session };
}

describe('leadingId: the id of a message cut at the size bound', () => {
  it.each([
    ['{"jsonrpc":"2.0","id":5,"result":{"content":[{"type":"te', 5],
    ['{ "id" : "a-1" , "result": "xxxxx', 'a-1'],
    ['{"jsonrpc":"2.0","result":{"id":7,"nested":true},"id":8,"x":"', 8],
    ['{"result":{"id":7,"text":"aaaaaaaaaa', undefined],
    ['{"jsonrpc":"2.0","method":"x","params":{"a":"\\"id\\":3"},"id":12', undefined], // a number cut at the end may be longer
    ['{"jsonrpc":"2.0","method":"x","params":{"a":"\\"id\\":3"},"id":12,', 12],
    ['[{"id":1}', undefined],
    ['garbage', undefined],
    ['{"id":null,"error":{', undefined],
  ])('%s → %s', (raw, id) => {
    expect(leadingId(raw)).toBe(id);
  });
});

describe('Session', () => {
  it('a reply cut at the size bound fails its request at once (the id is read from the start of the line)', async () => {
    const { wire, session } = setup({ timeoutMs: 60_000 });
    const p = session.request('tools/call', { name: 'big' });
    const t0 = Date.now();
    wire.push('{"jsonrpc":"2.0","id":1,"result":{"content":[{"type":"text","text":"xxxx', {
      truncated: true,
      problem: 'line longer than 1024 bytes: cut there, the rest dropped',
    });
    const e = await p.catch((x: unknown) => x);
    expect(Date.now() - t0).toBeLessThan(1000);
    expect(e).toBeInstanceOf(SessionError);
    expect((e as SessionError).kind).toBe('too-large');
    expect((e as SessionError).message).toMatch(
      /tools\/call \(id 1\) was answered with a message that cannot be read: .*longer than 1024 bytes.*--max-message-bytes/,
    );
    const cut = session.log.find((m) => m.direction === 'from-server')!;
    expect(cut).toMatchObject({ kind: 'invalid', inReplyTo: 0, method: 'tools/call' });
  });

  it('a request times out: a ping asks whether the server still answers; unanswered too, it stops sending until the server speaks', async () => {
    const { wire, session } = setup({ timeoutMs: 50 });
    await expect(session.request('tools/call', { name: 'x' })).rejects.toMatchObject({ kind: 'timeout' });
    // The liveness ping is out; nothing is refused yet.
    expect(session.unresponsive).toBeUndefined();
    await session.livenessKnown();
    expect(session.unresponsive).toMatch(
      /the server stopped answering: tools\/call \(id 1\) got no answer within 50 ms, nor did the ping sent then .*\(id 2, 50 ms\)/,
    );
    // Each request given up on was cancelled, with its id and why: the call, then the ping.
    const sent = wire.sent.map((r) => JSON.parse(r) as Record<string, unknown>);
    expect(sent.map((m) => m.method)).toEqual([
      'tools/call',
      'notifications/cancelled',
      'ping',
      'notifications/cancelled',
    ]);
    expect(sent[1]).toMatchObject({ params: { requestId: 1, reason: 'no answer within 50 ms' } });
    expect(sent[3]).toMatchObject({ params: { requestId: 2 } });
    expect(session.cancelled.map((c) => c.requestId)).toEqual([1, 2]);
    const sentBefore = wire.sent.length;
    const e = (await session.request('ping').catch((x: unknown) => x)) as SessionError;
    expect(e).toMatchObject({ kind: 'unresponsive', afterClose: true });
    expect(e.message).toMatch(/not sent: the server stopped answering/);
    expect(wire.sent.length).toBe(sentBefore);
    // A sign of life: requests go out again.
    wire.push({ jsonrpc: '2.0', method: 'notifications/message', params: { level: 'info', data: 'back' } });
    expect(session.unresponsive).toBeUndefined();
    const p = session.request('ping');
    wire.push({ jsonrpc: '2.0', id: JSON.parse(wire.sent[wire.sent.length - 1]!).id, result: {} });
    await expect(p).resolves.toMatchObject({ result: {} });
  });

  it('a slow server that answers the ping is alive: the timed-out call is its own verdict, the others get their full wait; late answers are no errors', async () => {
    const { wire, session } = setup({ timeoutMs: 150 });
    const slow = session.request('tools/call', { name: 'slow' }); // id 1: never answered in time
    const other = session.request('tools/call', { name: 'other' }); // id 2: answered at 250 ms, after id 1 timed out
    // Answer pings at once, like a server whose tools hang on a backend while it still reads its input.
    const answerPings = setInterval(() => {
      for (const raw of wire.sent.splice(0)) {
        const m = JSON.parse(raw) as Record<string, unknown>;
        if (m.method === 'ping') wire.push({ jsonrpc: '2.0', id: m.id, result: {} });
        else done.push(m);
      }
    }, 5);
    const done: Record<string, unknown>[] = [];
    setTimeout(() => wire.push({ jsonrpc: '2.0', id: 2, result: { content: [] } }), 100);
    await expect(slow).rejects.toMatchObject({ kind: 'timeout' });
    await expect(other).resolves.toMatchObject({ result: { content: [] } });
    await session.livenessKnown();
    clearInterval(answerPings);
    expect(session.unresponsive).toBeUndefined();
    expect(session.isStalled).toBe(false);
    // The call given up on was cancelled, once; its late answer is logged as late, not as an id error.
    expect(session.cancelled.map((c) => c.requestId)).toEqual([1]);
    wire.push({ jsonrpc: '2.0', id: 1, result: { content: [] } });
    expect(session.idAnomalies.map((a) => a.problem)).toEqual(['late-answer']);
    const next = session.request('ping');
    wire.push({ jsonrpc: '2.0', id: JSON.parse(wire.sent.at(-1)!).id, result: {} });
    await expect(next).resolves.toMatchObject({ result: {} });
  });

  it('the log is bounded: past maxLogMessages, notifications are counted, not logged; awaited answers still are', async () => {
    const { wire, session } = setup({ maxLogMessages: 100 });
    for (let i = 0; i < 1000; i++)
      wire.push({ jsonrpc: '2.0', method: 'notifications/message', params: { level: 'debug', data: i } });
    expect(session.log.length).toBe(100);
    expect(session.dropped).toMatchObject({ messages: 900, byMethod: { 'notifications/message': 900 } });
    const p = session.request('ping');
    wire.push({ jsonrpc: '2.0', id: 1, result: {} });
    await expect(p).resolves.toMatchObject({ result: {} });
    expect(session.log.slice(-2).map((m) => m.method)).toEqual(['ping', 'ping']);
    expect(session.log.every((m, i) => m.seq === i)).toBe(true);
    // A server request past the bound is still answered, only not logged.
    wire.push({ jsonrpc: '2.0', id: 'srv', method: 'ping' });
    expect(wire.lastSent()).toEqual({ jsonrpc: '2.0', id: 'srv', result: {} });
    expect(session.dropped.messages).toBe(901);
  });

  it('past the bound, an answer an open catch-all probe waits for (error, id null) is still logged and claimed', () => {
    const { wire, session } = setup({ maxLogMessages: 100 });
    for (let i = 0; i < 200; i++)
      wire.push({ jsonrpc: '2.0', method: 'notifications/message', params: { level: 'debug', data: i } });
    const probe = session.probe(['{not json'], { rawText: true, catchAll: true, expectInvalid: 'a probe' });
    wire.push({ jsonrpc: '2.0', id: null, error: { code: -32700, message: 'Parse error' } });
    expect(probe.answers.map((m) => m.kind)).toEqual(['error']);
    expect(session.log.at(-1)?.inReplyTo).toBe(probe.sent[0]!.seq);
    probe.close();
    // With no probe open, such an answer is dropped like any other unawaited message.
    wire.push({ jsonrpc: '2.0', id: null, error: { code: -32700, message: 'Parse error' } });
    expect(session.dropped.byMethod['(error)']).toBe(1);
  });

  it('the log is bounded in characters too', () => {
    const { wire, session } = setup({ maxLogChars: 10_000 });
    for (let i = 0; i < 100; i++)
      wire.push({
        jsonrpc: '2.0',
        method: 'notifications/message',
        params: { level: 'debug', data: 'x'.repeat(1000) },
      });
    expect(session.log.length).toBeLessThanOrEqual(10);
    expect(session.dropped.messages).toBeGreaterThanOrEqual(90);
  });

  it('a server request with an id that is no string or number is answered -32600 with id null', () => {
    const { wire } = setup();
    for (const id of [null, { a: 1 }, [1], true]) {
      wire.push({ jsonrpc: '2.0', id, method: 'roots/list' });
      expect(wire.lastSent()).toMatchObject({ jsonrpc: '2.0', id: null, error: { code: -32600 } });
    }
    wire.push({ jsonrpc: '2.0', id: 7, method: 'sampling/createMessage', params: {} });
    expect(wire.lastSent()).toMatchObject({
      id: 7,
      error: { code: -32601, message: expect.stringMatching(/sampling capability/) },
    });
  });

  it('answers after the run abandoned its requests are late, not unknown; second answers point at their request', async () => {
    const { wire, session } = setup({ timeoutMs: 60_000 });
    const p = session.request('tools/call', {});
    session.abandon('not finished: the run reached its time limit');
    await expect(p).rejects.toThrow(/time limit/);
    wire.push({ jsonrpc: '2.0', id: 1, result: { content: [] } });
    wire.push({ jsonrpc: '2.0', id: 1, result: { content: [] } });
    wire.push({ jsonrpc: '2.0', id: 99, result: {} });
    expect(session.idAnomalies.map((a) => a.problem)).toEqual(['late-answer', 'duplicate-answer', 'unknown-id']);
    const [late, second] = session.log.filter((m) => m.direction === 'from-server');
    expect(late).toMatchObject({ inReplyTo: 0, method: 'tools/call' });
    expect(second).toMatchObject({ inReplyTo: 0, method: 'tools/call' });
  });

  it('probes: answers with their id, or anything unmatched while open (catchAll), belong to them — not id anomalies', async () => {
    const { wire, session } = setup();
    const bad = session.probe(['{not json'], { rawText: true, catchAll: true, expectInvalid: 'on purpose' });
    expect(bad.sent[0]).toMatchObject({ kind: 'invalid', schema: { expectedInvalid: 'on purpose' } });
    wire.push({ jsonrpc: '2.0', id: null, error: { code: -32700, message: 'Parse error' } });
    await expect(bad.waitForAnswers(10)).resolves.toBe(true);
    expect(bad.answers[0]).toMatchObject({ inReplyTo: bad.sent[0]!.seq });
    bad.close();
    const id = session.newId();
    const dup = session.probe(
      [
        { jsonrpc: '2.0', id, method: 'ping' },
        { jsonrpc: '2.0', id, method: 'ping' },
      ],
      { id, expectAnswers: 2 },
    );
    for (let i = 0; i < 3; i++) wire.push({ jsonrpc: '2.0', id, result: {} });
    expect(dup.answers).toHaveLength(3);
    expect(dup.answers.map((a) => a.method)).toEqual(['ping', 'ping', 'ping']);
    expect(session.idAnomalies).toEqual([{ seq: dup.answers[2]!.seq, problem: 'duplicate-answer' }]);
    // Closed catch-all probes claim nothing: an unknown id is an anomaly again.
    wire.push({ jsonrpc: '2.0', id: 4242, result: {} });
    expect(session.idAnomalies.at(-1)).toMatchObject({ problem: 'unknown-id' });
  });

  it('waitForAnswers is bounded and ends when the connection does', async () => {
    const { wire, session } = setup();
    const p = session.probe([{ jsonrpc: '2.0', id: 5, method: 'ping' }], { id: 5 });
    const t0 = Date.now();
    await expect(p.waitForAnswers(50)).resolves.toBe(false);
    expect(Date.now() - t0).toBeLessThan(500);
    const waiting = p.waitForAnswers(60_000);
    wire.closed = true;
    wire.onClose?.({ reason: 'the server exited with code 1', stderrTail: [] });
    await expect(waiting).resolves.toBe(false);
  });
});
