/**
 * The robustness suite's grading, against in-process fake servers (test/helpers/fake-server.ts): one behaviour
 * bent at a time, every verdict of the policy table. The same behaviours as real processes live in the zoo tests
 * (test/zoo-*.test.ts; the early window against real processes: test/zoo-early-window.test.ts).
 */
import { describe, expect, it } from 'vitest';
import type { CaseResult, Report } from '../../core/results.js';
import type { RunOptions } from '../../core/run.js';
import { runFake, standard, TOOLS, type Handler } from '../helpers/fake-server.js';

/** The robustness suite (or the suites named) against a fake server; a string selects one robustness case. */
async function probe(handler: Handler, suites: string[] | string = ['robustness'], opts: Partial<RunOptions> = {}) {
  if (typeof suites === 'string') {
    opts = { caseFilter: [`robustness/${suites}`], ...opts };
    suites = ['robustness'];
  }
  const r = await runFake(handler, suites, opts);
  const verdicts = Object.fromEntries(
    r.all.filter((x) => x.id.startsWith('robustness/')).map((x) => [x.id.slice('robustness/'.length), x.verdict]),
  );
  return { ...r, verdicts };
}

const isProbe = (raw: string, needle: string) => raw.includes(needle);

describe('robustness suite: a conformant server', () => {
  it('passes every probe; request-before-initialize is info; schema and ids stay clean', async () => {
    const r = await probe(standard, ['lifecycle', 'robustness', 'schema']);
    expect(r.verdicts).toEqual({
      'invalid-json': 'pass',
      'not-a-message': 'pass',
      'wrong-jsonrpc': 'pass',
      'unknown-method': 'pass',
      'unknown-notification': 'pass',
      'duplicate-id': 'pass',
      'request-before-initialize': 'info',
      'cancel-in-flight': 'pass',
      'large-request': 'pass',
      'early-server-messages': 'pass',
    });
    expect(r.c('robustness/invalid-json').message).toMatch(/error -32700 .*id null/);
    expect(r.c('robustness/wrong-jsonrpc').message).toMatch(/error -32600 .*id \d+/);
    expect(r.c('robustness/cancel-in-flight').message).toMatch(
      /tools\/call sleep .* in flight .* cancelled with notifications\/cancelled: no answer/,
    );
    expect(r.c('robustness/large-request').message).toMatch(/a ping request of 10\d{5} bytes \(id \d+\) was answered/);
    expect(r.c('robustness/request-before-initialize').message).toMatch(
      /tools\/list sent before initialize on a second connection was served/,
    );
    expect(r.transports).toHaveLength(2); // the second connection, closed again
    expect(r.transports.every((t) => t.closed)).toBe(true);
    // Error answers with id null are no schema violations and no id anomalies; the malformed probes are marked.
    expect(r.report.summary.fail).toBe(0);
    expect(r.c('lifecycle/ids-matched').verdict).toBe('pass');
    const marked = r.report.messages.filter((m) => m.schema.expectedInvalid);
    expect(marked.map((m) => m.schema.expectedInvalid)).toEqual([
      expect.stringMatching(/invalid-json/),
      expect.stringMatching(/not-a-message/),
      expect.stringMatching(/wrong-jsonrpc/),
      expect.stringMatching(/duplicate-id/),
      expect.stringMatching(/duplicate-id/),
    ]);
    // Each probe's answer points at the probe.
    const parseError = r.report.messages.find(
      (m) => m.direction === 'from-server' && (m.json as { error?: { code?: number } })?.error?.code === -32700,
    )!;
    expect(r.report.messages[parseError.inReplyTo!]!.raw).toMatch(/^\{"jsonrpc": "2.0", "method": "tools\/list"/);
  });
});

describe('robustness suite: grading per the policy table', () => {
  it('silence on unreadable input (what the SDKs do) is a warn', async () => {
    const r = await probe((raw, msg, api) => {
      if (msg === undefined || msg.jsonrpc !== '2.0') return;
      standard(raw, msg, api);
    });
    expect(r.verdicts).toMatchObject({
      'invalid-json': 'warn',
      'not-a-message': 'warn',
      'wrong-jsonrpc': 'warn',
      'unknown-method': 'pass',
    });
    expect(r.c('robustness/invalid-json')).toMatchObject({
      level: 'SHOULD',
      message: expect.stringMatching(/a line of invalid JSON was not refused: no answer came .* still answers ping/),
    });
  });

  it('an error answer with a made-up id is a warn, and not an id anomaly', async () => {
    const r = await probe(
      (raw, msg, api) => {
        if (msg === undefined)
          return api.send({ jsonrpc: '2.0', id: 999, error: { code: -32700, message: 'Parse error' } });
        standard(raw, msg, api);
      },
      ['lifecycle', 'robustness'],
    );
    expect(r.c('robustness/invalid-json')).toMatchObject({
      verdict: 'warn',
      message: expect.stringMatching(/id 999, which it did not carry/),
    });
    expect(r.c('lifecycle/ids-matched').verdict).toBe('pass');
  });

  it('a ping with "jsonrpc": "1.0" served as a ping is a warn', async () => {
    const r = await probe((raw, msg, api) => standard(raw, msg && { ...msg, jsonrpc: '2.0' }, api), 'wrong-jsonrpc');
    expect(r.c('robustness/wrong-jsonrpc')).toMatchObject({
      verdict: 'warn',
      message: expect.stringMatching(/success result/),
    });
  });

  it.each([
    [
      'another error code',
      { jsonrpc: '2.0', error: { code: -32600, message: 'nope' } },
      'warn',
      /-32600.*expected -32601/,
    ],
    ['a success result', { jsonrpc: '2.0', result: {} }, 'fail', /success result/],
    ['silence', undefined, 'fail', /never answered/],
  ] as const)('unknown method answered with %s: %s', async (_, answer, verdict, message) => {
    const r = await probe((raw, msg, api) => {
      if (msg?.method === 'mcp-conform/no-such-method') return answer && api.send({ ...answer, id: msg.id });
      standard(raw, msg, api);
    }, 'unknown-method');
    expect(r.c('robustness/unknown-method')).toMatchObject({ verdict, message: expect.stringMatching(message) });
  });

  it('an answered notification fails', async () => {
    const r = await probe((raw, msg, api) => {
      if (msg?.method === 'notifications/mcp-conform/unknown')
        return api.send({ jsonrpc: '2.0', id: null, error: { code: -32601, message: 'Method not found' } });
      standard(raw, msg, api);
    }, 'unknown-notification');
    expect(r.c('robustness/unknown-notification')).toMatchObject({
      verdict: 'fail',
      message: expect.stringMatching(/notification was answered/),
    });
  });

  it('a server that dies of a probe fails it, with the exit code; the rest is skipped with why; exit code 1', async () => {
    const r = await probe((raw, msg, api) => {
      if (msg === undefined && isProbe(raw, '"cursor": ')) return api.die(4, 'fatal: cannot parse input');
      standard(raw, msg, api);
    });
    expect(r.c('robustness/invalid-json')).toMatchObject({
      verdict: 'fail',
      message: expect.stringMatching(/died .*exited with code 4.*fatal: cannot parse input/),
    });
    for (const id of ['not-a-message', 'wrong-jsonrpc', 'unknown-method', 'large-request']) {
      expect(r.c(`robustness/${id}`)).toMatchObject({
        verdict: 'skip',
        message: expect.stringMatching(/not run: the server exited with code 4/),
      });
    }
    expect(r.report.exitCode).toBe(1);
  });

  it('a server that hangs after a probe fails it ("stopped answering"); later probes are skipped, not blamed', async () => {
    const r = await probe((raw, msg, api) => {
      if (msg === undefined && isProbe(raw, '"cursor": ')) return api.hang();
      standard(raw, msg, api);
    });
    expect(r.c('robustness/invalid-json')).toMatchObject({
      verdict: 'fail',
      message: expect.stringMatching(/stopped answering .*not answered within 400 ms/),
    });
    expect(r.c('robustness/not-a-message')).toMatchObject({
      verdict: 'skip',
      message: expect.stringMatching(/already stopped answering/),
    });
    expect(r.c('robustness/large-request').verdict).toBe('skip');
  });

  it('a cancelled request that is answered anyway is a warn', async () => {
    const r = await probe(
      (raw, msg, api) => {
        api.state.answerAfterCancel = true;
        standard(raw, msg, api);
      },
      'cancel-in-flight',
      { timeoutMs: 2000 },
    );
    expect(r.c('robustness/cancel-in-flight')).toMatchObject({
      verdict: 'warn',
      message: expect.stringMatching(/answered \d+ ms after notifications\/cancelled/),
    });
  });

  it('without a slow tool a quick request is cancelled and only "still answers" is graded', async () => {
    const r = await probe((raw, msg, api) => {
      if (msg?.method === 'tools/list') return api.send({ jsonrpc: '2.0', id: msg.id, result: { tools: [TOOLS[0]] } });
      standard(raw, msg, api);
    }, 'cancel-in-flight');
    expect(r.c('robustness/cancel-in-flight')).toMatchObject({
      verdict: 'pass',
      message: expect.stringMatching(/no slow tool to cancel.*only that is graded/),
    });
  });

  it.each([
    [
      'refused with an error',
      (id: unknown) => ({ jsonrpc: '2.0', id, error: { code: -32600, message: 'message too large' } }),
      'info',
      /refused with error code -32600 .*a size limit of the server's own/,
    ],
    ['dropped silently', () => undefined, 'fail', /never answered, though the small ping request after it was/],
  ] as const)('a 1 MiB request %s: %s', async (_, answer, verdict, message) => {
    const r = await probe((raw, msg, api) => {
      if (raw.length > 1_000_000) {
        const a = answer(msg?.id);
        return a && api.send(a);
      }
      standard(raw, msg, api);
    }, 'large-request');
    expect(r.c('robustness/large-request')).toMatchObject({ verdict, message: expect.stringMatching(message) });
  });

  it('two requests with one id: whatever the server answers, it passes while it keeps answering', async () => {
    const r = await probe((raw, msg, api) => {
      const seen = (api.state.seen ??= new Set<string>()) as Set<string>;
      if (seen.has(raw)) return; // the same line again: not answered
      seen.add(raw);
      standard(raw, msg, api);
    }, 'duplicate-id');
    expect(r.c('robustness/duplicate-id')).toMatchObject({
      verdict: 'pass',
      message: expect.stringMatching(/answered once \(a result\)/),
    });
    const dying = await probe((raw, msg, api) => {
      const seen = (api.state.seen ??= new Set<string>()) as Set<string>;
      if (seen.has(raw)) return api.die(2);
      seen.add(raw);
      standard(raw, msg, api);
    }, 'duplicate-id');
    expect(dying.c('robustness/duplicate-id')).toMatchObject({
      verdict: 'fail',
      message: expect.stringMatching(/died .*code 2/),
    });
  });

  it('request before initialize: refused is info, a crash is a warn', async () => {
    const refusing = await probe((raw, msg, api) => {
      if (msg?.id !== undefined && msg.method !== 'initialize' && !api.state.initialized)
        return api.send({ jsonrpc: '2.0', id: msg.id, error: { code: -32002, message: 'not initialized' } });
      standard(raw, msg, api);
    }, 'request-before-initialize');
    expect(refusing.c('robustness/request-before-initialize')).toMatchObject({
      verdict: 'info',
      message: expect.stringMatching(/refused with error code -32002/),
    });
    expect(refusing.c('robustness/request-before-initialize').details?.secondConnection).toEqual([
      expect.stringMatching(/^→ .*tools\/list/),
      expect.stringMatching(/^→ .*initialize/),
      expect.stringMatching(/^← .*-32002/),
      expect.stringMatching(/^← .*protocolVersion/),
    ]);
    const crashing = await probe((raw, msg, api) => {
      if (msg?.id !== undefined && msg.method !== 'initialize' && !api.state.initialized)
        return api.die(1, 'panic: not initialized');
      standard(raw, msg, api);
    }, 'request-before-initialize');
    expect(crashing.c('robustness/request-before-initialize')).toMatchObject({
      verdict: 'warn',
      message: expect.stringMatching(/the server died/),
    });
  });

  it('over stdio the second connection is opened when the run starts, works while the other cases run, and is closed', async () => {
    const seen: { conn: number; what: string }[] = [];
    let conns = 0;
    const r = await probe(
      (raw, msg, api) => {
        const conn = (api.state.conn ??= ++conns) as number;
        seen.push({ conn, what: msg === undefined ? 'unreadable' : String(msg.method ?? 'answer') });
        standard(raw, msg, api);
      },
      ['listing', 'calling', 'robustness'],
      { timeoutMs: 3000 },
    ); // the fake's sleep tool (1 s) answers in time: no stall, no repeat
    expect(r.c('robustness/request-before-initialize')).toMatchObject({
      verdict: 'info',
      message: expect.stringMatching(/tools\/list sent before initialize on a second connection was served/),
    });
    // The second connection's request came before the main connection's first tool call (calling suite), not when
    // the robustness suite got to the case.
    const second = seen.findIndex((e) => e.conn === 2);
    const firstCall = seen.findIndex((e) => e.conn === 1 && e.what === 'tools/call');
    expect(second).toBeGreaterThanOrEqual(0);
    expect(firstCall).toBeGreaterThan(second);
    expect(seen.filter((e) => e.conn === 2).map((e) => e.what)).toEqual(['tools/list', 'initialize']);
    expect(r.transports).toHaveLength(2);
    expect(r.transports.every((t) => t.closed)).toBe(true);
    // A run whose --case leaves the probe out opens no second connection.
    const one = await probe(standard, 'invalid-json');
    expect(one.transports).toHaveLength(1);
  });

  it('a server that does not answer ping: the probes are skipped with the reason', async () => {
    const r = await probe((raw, msg, api) => {
      if (msg?.method !== 'ping') standard(raw, msg, api);
    });
    expect(r.c('robustness/invalid-json')).toMatchObject({
      verdict: 'skip',
      message: expect.stringMatching(/need a server that answers ping/),
    });
    expect(r.c('robustness/large-request').verdict).toBe('skip');
  });

  it('server requests before initialized are a warn; early notifications other than logging are info', async () => {
    const asking = await probe((raw, msg, api) => {
      if (msg?.method === 'initialize')
        api.send({
          jsonrpc: '2.0',
          id: 'srv-1',
          method: 'sampling/createMessage',
          params: { messages: [], maxTokens: 1 },
        });
      standard(raw, msg, api);
    }, 'early-server-messages');
    expect(asking.c('robustness/early-server-messages')).toMatchObject({
      verdict: 'warn',
      message: expect.stringMatching(/1 request before initialized: sampling\/createMessage/),
    });
    const answer = asking.report.messages.find((m) => m.direction === 'to-server' && m.id === 'srv-1')!;
    expect(answer.json).toMatchObject({ error: { code: -32601 } });
    const telling = await probe((raw, msg, api) => {
      if (msg?.method === 'initialize') api.send({ jsonrpc: '2.0', method: 'notifications/tools/list_changed' });
      standard(raw, msg, api);
    }, 'early-server-messages');
    expect(telling.c('robustness/early-server-messages').verdict).toBe('info');
  });
});

/*
 * robustness/unknown-notification's early window: the notification is sent when the session phase begins,
 * its 150 ms watch runs while the other suites work, and the case grades it at its turn — with the same verdicts as
 * when it watched alone. Here the in-process fake server; real processes (fixtures/servers/zoo) in
 * test/zoo-early-window.test.ts.
 */
const NOTE = 'notifications/mcp-conform/unknown';
type Msg = Report['messages'][number];

/** The unknown notifications in the log, in order. */
const notes = (r: { report: Report }): Msg[] =>
  r.report.messages.filter((m) => m.direction === 'to-server' && m.method === NOTE);
/** The first message of the log that matches. */
const firstMsg = (r: { report: Report }, f: (m: Msg) => boolean): Msg => r.report.messages.find(f)!;
const watchOf = (c: CaseResult) => c.details?.watch as { from: number; until: number };

describe("robustness/large-request early: sent inside the notification's window", () => {
  const big = (m: { raw: string }) => m.raw.length > 1_000_000;

  it("a conformant server: the 1 MiB request follows the notification before any other case's message; graded at its turn, in its place", async () => {
    const r = await runFake(standard, ['lifecycle', 'listing', 'robustness']);
    expect(r.report.repeated).toBeUndefined();
    const note = notes(r)[0]!;
    const large = firstMsg(r, (m) => m.direction === 'to-server' && big(m));
    const toolsList = firstMsg(r, (m) => m.direction === 'to-server' && m.method === 'tools/list');
    expect(large.seq).toBeGreaterThan(note.seq);
    expect(large.seq).toBeLessThan(toolsList.seq);
    const c = r.c('robustness/large-request');
    expect(c).toMatchObject({
      verdict: 'pass',
      message: expect.stringMatching(/^a ping request of 10\d{5} bytes \(id \d+\) was answered/),
    });
    expect(c.messageIds[0]).toBe(large.seq);
    const ids = r.report.suites.find((s) => s.id === 'robustness')!.cases.map((x) => x.id);
    expect(ids.indexOf('robustness/large-request')).toBe(ids.indexOf('robustness/cancel-in-flight') + 1);
  });

  it('a server that dies of the 1 MiB request: repeated without early work; the probes before it pass, it fails with the death', async () => {
    const r = await runFake(
      (raw, msg, api) => {
        if (raw.length > 1_000_000) return api.die(7, 'fatal: line too long');
        standard(raw, msg, api);
      },
      ['lifecycle', 'listing', 'robustness'],
    );
    // Inside the notification's window: that window accounts for the loss, as for any loss while it is open.
    expect(r.report.repeated?.reason).toMatch(/while the wait of robustness\/unknown-notification's early work/);
    expect(r.c('robustness/large-request')).toMatchObject({
      verdict: 'fail',
      message: expect.stringMatching(
        /^the server died after a request of 10\d{5} bytes: .*exited with code 7.*fatal: line too long/,
      ),
    });
    for (const id of [
      'lifecycle/ping',
      'listing/tools-list',
      'robustness/invalid-json',
      'robustness/unknown-notification',
      'robustness/duplicate-id',
      'robustness/cancel-in-flight',
    ])
      expect(r.c(id).verdict).toBe('pass');
    // In the repeat it went out at its turn, after the other probes.
    expect(firstMsg(r, (m) => m.direction === 'to-server' && big(m)).seq).toBeGreaterThan(
      firstMsg(r, (m) => m.direction === 'to-server' && m.method === 'tools/list').seq,
    );
  });

  it('a server that stops answering after the 1 MiB request: repeated; it fails ("stopped answering"), the cases before it pass', async () => {
    const r = await runFake(
      (raw, msg, api) => {
        if (raw.length > 1_000_000) return api.hang();
        standard(raw, msg, api);
      },
      ['lifecycle', 'robustness'],
    );
    expect(r.report.repeated?.reason).toMatch(/robustness\/large-request sent before the first case/);
    expect(r.c('robustness/large-request')).toMatchObject({
      verdict: 'fail',
      message: expect.stringMatching(/^the server stopped answering after a request of 10\d{5} bytes/),
    });
    for (const id of [
      'lifecycle/ping',
      'robustness/invalid-json',
      'robustness/unknown-notification',
      'robustness/cancel-in-flight',
    ])
      expect(r.c(id).verdict).toBe('pass');
  });
});

describe('robustness/unknown-notification early: attribution (fake server)', () => {
  it('a server that dies of the notification at once: repeated without early work; the cases before the notification pass, the case fails with the death', async () => {
    const r = await runFake(
      (raw, msg, api) => {
        if (msg?.method === NOTE) return api.die(6, 'fatal: unknown notification');
        standard(raw, msg, api);
      },
      ['lifecycle', 'listing', 'robustness'],
    );
    expect(r.report.repeated?.reason).toMatch(
      /^the server died or stopped answering right after what robustness\/unknown-notification sent before the first case/,
    );
    expect(r.c('robustness/unknown-notification')).toMatchObject({
      verdict: 'fail',
      message: expect.stringMatching(
        /^the server died after an unknown notification: ping \(id \d+\) not answered: the server exited with code 6.*fatal: unknown notification/,
      ),
    });
    expect(r.c('lifecycle/ping').verdict).toBe('pass');
    expect(r.c('listing/tools-list').verdict).toBe('pass');
    expect(r.c('robustness/invalid-json').verdict).toBe('pass');
    expect(r.c('robustness/duplicate-id')).toMatchObject({
      verdict: 'skip',
      message: expect.stringMatching(/^not run: the server exited with code 6/),
    });
    expect(r.report.exitCode).toBe(1);
  });

  it("a server that answers the unknown notification late, just before the lifecycle case's ping: lifecycle/initialized-notification, which looks only up to the heartbeat sent with notifications/initialized, does not take it for its own", async () => {
    // The answer to the early notification (error, id null) comes just before the answer to the first ping of the
    // cases (lifecycle/initialized-notification's): after other cases sent, so not the early probe's to take.
    let noted = false;
    let pings = 0;
    const r = await runFake(
      (raw, msg, api) => {
        if (msg?.method === NOTE) {
          noted = true;
          return;
        }
        if (msg?.method === 'ping' && noted && ++pings === 2)
          api.send({ jsonrpc: '2.0', id: null, error: { code: -32601, message: 'Method not found' } });
        standard(raw, msg, api);
      },
      ['lifecycle', 'robustness'],
    );
    expect(r.report.repeated).toBeUndefined();
    const late = firstMsg(
      r,
      (m) => m.direction === 'from-server' && m.kind === 'error' && (m.json as { id?: unknown }).id === null,
    );
    const initialized = firstMsg(r, (m) => m.method === 'notifications/initialized');
    expect(late.inReplyTo).toBeUndefined(); // after other cases sent: not the early probe's to take
    expect(late.seq).toBeGreaterThan(initialized.seq);
    // That answer came after the heartbeat that went out with notifications/initialized had been answered: it answers
    // the other notification, not this one (before, it was taken for a reply to notifications/initialized).
    expect(r.c('lifecycle/initialized-notification')).toMatchObject({
      verdict: 'pass',
      message: 'no reply to notifications/initialized; the server answered a ping sent after it',
    });
  });

  it('a server that stops answering after the notification: repeated without early work; the case fails ("stopped answering"), the cases before it pass', async () => {
    const r = await runFake(
      (raw, msg, api) => {
        if (msg?.method === NOTE) return api.hang();
        standard(raw, msg, api);
      },
      ['lifecycle', 'robustness'],
    );
    expect(r.report.repeated?.reason).toMatch(/robustness\/unknown-notification sent before the first case/);
    expect(r.c('robustness/unknown-notification')).toMatchObject({
      verdict: 'fail',
      message: expect.stringMatching(
        /^the server stopped answering after an unknown notification: ping \(id \d+\) not answered within 400 ms/,
      ),
    });
    for (const id of ['lifecycle/initialized-notification', 'lifecycle/ping', 'robustness/invalid-json'])
      expect(r.c(id).verdict).toBe('pass');
  });

  it('a server that goes silent 30 ms after the notification, while other cases send: repeated; the other cases are graded as without early work', async () => {
    // Silent 30 ms after the early work is answered — the notification's and the 1 MiB request's (its heartbeat is the
    // first ping after it) — so that the silence falls inside the notification's window whatever the machine's speed
    // (going silent 30 ms after the notification itself raced the 1 MiB request's answer: when that came late, the
    // silence was the large request's, rightly, and the test failed on a slow machine).
    let sawLarge = false;
    let silenced = false;
    const handler = (
      raw: string,
      msg: Record<string, unknown> | undefined,
      api: Parameters<Parameters<typeof runFake>[0]>[2],
    ) => {
      if (raw.length > 1_000_000) sawLarge = true;
      standard(raw, msg, api);
      if (sawLarge && !silenced && msg?.method === 'ping' && raw.length < 1_000) {
        silenced = true;
        api.later(30, () => api.hang());
      }
    };
    const r = await runFake(handler, ['lifecycle', 'listing', 'calling', 'robustness']);
    expect(r.report.repeated?.reason).toMatch(
      /^the server stopped answering .* while the wait of robustness\/unknown-notification's early work/,
    );
    // In the repeat the notification comes at its case's turn, after the other suites: what ran before it was graded
    // on a server that still answered.
    expect(notes(r)[0]!.seq).toBeGreaterThan(
      firstMsg(r, (m) => m.direction === 'to-server' && m.method === 'tools/call').seq,
    );
    for (const id of ['lifecycle/ping', 'lifecycle/initialized-notification', 'listing/tools-list'])
      expect(r.c(id).verdict).toBe('pass');
  });

  it("an answer with id null to another case's request during the window is not taken for an answer to the notification", async () => {
    const r = await runFake(
      (raw, msg, api) => {
        // An error with id null first (a server that could not tell which request it answers), then the list.
        if (msg?.method === 'tools/list') {
          api.send({ jsonrpc: '2.0', id: null, error: { code: -32603, message: 'cannot list' } });
          return api.later(1, () => standard(raw, msg, api));
        }
        standard(raw, msg, api);
      },
      ['lifecycle', 'listing', 'robustness'],
    );
    expect(r.c('robustness/unknown-notification')).toMatchObject({
      verdict: 'pass',
      details: { repeated: expect.stringMatching(/sent again, alone/) },
    });
    expect(notes(r)).toHaveLength(2);
    const answer = r.report.messages.find((m) => m.direction === 'from-server' && m.raw.includes('cannot list'))!;
    expect(answer.inReplyTo).toBeUndefined(); // left as it came, as without the window
  });

  it('an answer with an unknown id during the window stays an id anomaly (lifecycle/ids-matched fails, as without the window)', async () => {
    const r = await runFake(
      (raw, msg, api) => {
        if (msg?.method === 'tools/list') {
          api.send({ jsonrpc: '2.0', id: 999, result: { tools: [] } });
          return api.later(1, () => standard(raw, msg, api));
        }
        standard(raw, msg, api);
      },
      ['lifecycle', 'listing', 'robustness'],
    );
    expect(r.c('lifecycle/ids-matched')).toMatchObject({
      verdict: 'fail',
      message: expect.stringMatching(/answer for id never sent 999/),
    });
    expect(r.c('robustness/unknown-notification').verdict).toBe('pass');
  });

  it('--case robustness/unknown-notification alone: the window is waited at its turn', async () => {
    const r = await runFake(standard, ['robustness'], { caseFilter: ['robustness/unknown-notification'] });
    const c = r.c('robustness/unknown-notification');
    expect(c.verdict).toBe('pass');
    expect(watchOf(c).until - watchOf(c).from).toBeGreaterThanOrEqual(150);
    expect(r.all.map((x) => x.id)).toEqual(['robustness/unknown-notification']);
  });

  it('the run stopped while the window is open: the case is not run, nothing hangs', async () => {
    const r = await runFake(standard, ['lifecycle', 'robustness'], { maxDurationMs: 60 });
    expect(r.report.aborted).toMatch(/time limit of 60 ms/);
    expect(r.c('robustness/unknown-notification')).toMatchObject({
      verdict: 'skip',
      message: expect.stringMatching(/^not (run|finished): the run reached its time limit/),
    });
  });
});
