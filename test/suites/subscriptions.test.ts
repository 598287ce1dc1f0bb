/**
 * The subscriptions suite (2026-07-28 subscriptions/listen): a conformant stdlib server passes over stdio and over
 * Streamable HTTP, the subscription is ended as a client ends it (notifications/cancelled over stdio, closing the
 * response stream over HTTP — a stream the server keeps open does not keep the run alive), each one-defect fixture
 * gets the verdict a spec reader would give, and tmcp (a real peer) passes.
 */
import { join } from 'node:path';
import { describe, expect, it } from 'vitest';
import { py, run } from '../helpers/cli.js';
import { FIXTURES, runArgs, startServer, type Run } from '../http-helpers.js';

type V = 'pass' | 'warn' | 'fail' | 'skip' | 'info';
const SUITES = 'resources,subscriptions,prompts,completion,logging,capabilities,surface-2026,schema';
const LISTEN_HTTP = join(FIXTURES, 'http', 'listen_http.py');
const TMCP = join(FIXTURES, 'peers', 'tmcp-http26.mjs');

const flagged = (r: Run) =>
  r.report.suites.flatMap((s) => s.cases).filter((c) => c.verdict === 'fail' || c.verdict === 'warn');
const listens = (r: Run) =>
  r.report.messages.filter((m) => m.direction === 'to-server' && m.method === 'subscriptions/listen');
const sentMethods = (r: Run) => r.report.messages.filter((m) => m.direction === 'to-server').map((m) => m.method);

async function overHttp(argv: string[], suites = 'subscriptions,schema'): Promise<Run> {
  const s = await startServer(argv);
  try {
    return await runArgs(['--http', `http://127.0.0.1:${s.port}/mcp`, '--suite', suites, '--timeout', '3000'], {
      timeoutMs: 60_000,
    });
  } finally {
    await s.stop();
  }
}

describe('subscriptions over stdio', () => {
  it('a conformant 2026-07-28 server: acknowledged with its id, watched, ended with notifications/cancelled', async () => {
    const r = await run(py('surface-ok.py'), ['--suite', SUITES, '--timeout', '3000']);
    expect(r.report.options.protocolVersionInForce).toBe('2026-07-28');
    expect(flagged(r).map((c) => `${c.id}: ${c.message}`)).toEqual([]);
    expect(r.c('subscriptions/listen')).toMatchObject({
      verdict: 'pass',
      message: expect.stringMatching(
        /^subscriptions\/listen \(id (\d+)\) with notifications \{"resourceSubscriptions":\["note:\/\/one"\]\} \(the types the server declares\) was acknowledged in \d+ ms with \{"resourceSubscriptions":\["note:\/\/one"\]\}; nothing else came in the 300 ms it was watched, then ended with notifications\/cancelled$/,
      ),
    });
    expect(r.c('subscriptions/unsupported-omitted')).toMatchObject({
      verdict: 'pass',
      message: expect.stringMatching(
        /\{"toolsListChanged":true,"promptsListChanged":true,"resourcesListChanged":true\} .*acknowledged in \d+ ms with \{\}: every unsupported type left out/,
      ),
    });
    // Each listen was ended by a notifications/cancelled naming its id, and got no answer.
    const sent = listens(r);
    expect(sent).toHaveLength(2);
    for (const l of sent) {
      const cancel = r.report.messages.find(
        (m) =>
          m.direction === 'to-server' &&
          m.method === 'notifications/cancelled' &&
          (m.json as { params?: { requestId?: unknown } }).params?.requestId === l.id,
      );
      expect(cancel, `notifications/cancelled for listen ${l.id}`).toBeDefined();
      expect(r.report.messages.some((m) => m.direction === 'from-server' && m.inReplyTo === l.seq)).toBe(false);
    }
    // The acknowledgements and the listen requests were checked against their own definitions of 2026-07-28.
    const acks = r.report.messages.filter((m) => m.method === 'notifications/subscriptions/acknowledged');
    expect(acks).toHaveLength(2);
    for (const m of [...acks, ...sent])
      expect(m.schema).toMatchObject({
        checked: true,
        valid: true,
        definition: expect.stringMatching(/Subscriptions(Acknowledged|Listen)/),
      });
    expect(r.c('schema/from-server/notifications/subscriptions/acknowledged').verdict).toBe('pass');
    expect(r.code).toBe(0);
  });

  it('a server that declares no list_changed or subscribe: the listen case does not apply, the unsupported types are left out', async () => {
    const r = await run(py('calc-all.py'), ['--suite', 'subscriptions', '--timeout', '3000']);
    expect(r.c('subscriptions/listen')).toMatchObject({
      verdict: 'skip',
      message: expect.stringMatching(
        /^the server did not declare tools\.listChanged, prompts\.listChanged, resources\.listChanged or resources\.subscribe/,
      ),
    });
    expect(r.c('subscriptions/unsupported-omitted')).toMatchObject({
      verdict: 'pass',
      message: expect.stringMatching(
        /"resourceSubscriptions":\["mcp-conform-missing:.*acknowledged in \d+ ms with \{\}/,
      ),
    });
  });

  it('before 2026-07-28 the suite does not apply (resources/subscribe is checked instead)', async () => {
    const r = await run(py('surface-ok.py'), [
      '--suite',
      'resources,subscriptions',
      '--timeout',
      '3000',
      '--protocol-version',
      '2025-11-25',
    ]);
    expect(r.c('subscriptions/listen').message).toMatch(
      /^does not apply: protocol 2025-11-25 has no subscriptions\/listen/,
    );
    expect(r.c('resources/subscribe').verdict).toBe('pass');
    expect(sentMethods(r)).not.toContain('subscriptions/listen');
  });
});

const BROKEN: Record<string, { exit: 0 | 1; verdicts: Record<string, V>; message: Record<string, RegExp> }> = {
  'listen-refused.py': {
    exit: 1,
    verdicts: { 'subscriptions/listen': 'fail', 'subscriptions/unsupported-omitted': 'warn' },
    message: {
      'subscriptions/listen':
        /was answered with error code -32601 .*: the server declares resources\.subscribe, whose notifications travel only on subscriptions\/listen in 2026-07-28$/,
    },
  },
  'listen-no-ack.py': {
    exit: 1,
    verdicts: { 'subscriptions/listen': 'fail', 'subscriptions/unsupported-omitted': 'warn' },
    message: {
      'subscriptions/listen':
        /: no notifications\/subscriptions\/acknowledged carrying subscriptionId \d+ within 3000 ms$/,
    },
  },
  'listen-update-before-ack.py': {
    exit: 1,
    verdicts: { 'subscriptions/listen': 'fail', 'subscriptions/unsupported-omitted': 'pass' },
    message: {
      'subscriptions/listen':
        /notifications\/resources\/updated \(message \d+, subscriptionId \d+\) came on the subscription before its acknowledgement/,
    },
  },
  'listen-unrequested.py': {
    exit: 1,
    // The same notification is a list_changed for a capability without listChanged: capabilities/list-changed says so too.
    verdicts: {
      'subscriptions/listen': 'fail',
      'subscriptions/unsupported-omitted': 'pass',
      'capabilities/list-changed': 'warn',
    },
    message: {
      'subscriptions/listen':
        /notifications\/tools\/list_changed \(message \d+, subscriptionId \d+\) is a notification the filter did not ask for/,
    },
  },
  'listen-ends-at-once.py': {
    exit: 0,
    verdicts: { 'subscriptions/listen': 'warn', 'subscriptions/unsupported-omitted': 'pass' },
    message: {
      'subscriptions/listen':
        /was acknowledged in \d+ ms with \{"resourceSubscriptions":\["note:\/\/one"\]\}, but it answered a result .* ms after acknowledging, ending the subscription before the client cancelled it: a subscription stays open until the client cancels it$/,
      'subscriptions/unsupported-omitted':
        /every unsupported type left out, then the server ended it \(it answered a result/,
    },
  },
};

describe('subscriptions: one defect each', () => {
  it('broken/listen-ends-at-once.py MODE=cancel: a subscription the server tears down at once with notifications/cancelled (warn)', async () => {
    const r = await run(py('broken/listen-ends-at-once.py'), [
      '--suite',
      'subscriptions',
      '--timeout',
      '3000',
      '--env',
      'MODE=cancel',
    ]);
    expect(r.c('subscriptions/listen')).toMatchObject({
      verdict: 'warn',
      message: expect.stringMatching(
        /but it sent notifications\/cancelled for it \(message \d+\) \d+ ms after acknowledging: a subscription stays open until the client cancels it$/,
      ),
    });
    // The harness sends no notifications/cancelled of its own for a subscription the server already ended.
    expect(
      r.report.messages.filter((m) => m.direction === 'to-server' && m.method === 'notifications/cancelled'),
    ).toEqual([]);
  });

  it.each(Object.entries(BROKEN))('broken/%s', async (file, want) => {
    const r = await run(py(`broken/${file}`), ['--suite', SUITES, '--timeout', '3000', '--shutdown-grace', '1000']);
    expect(r.report.options.protocolVersionInForce).toBe('2026-07-28');
    for (const [id, verdict] of Object.entries(want.verdicts))
      expect(r.c(id).verdict, `${id}: ${r.c(id).message}`).toBe(verdict);
    for (const [id, re] of Object.entries(want.message)) expect(r.c(id).message).toMatch(re);
    expect(
      flagged(r)
        .map((c) => c.id)
        .sort(),
    ).toEqual(
      Object.entries(want.verdicts)
        .filter(([, v]) => v === 'fail' || v === 'warn')
        .map(([id]) => id)
        .sort(),
    );
    expect(r.code).toBe(want.exit);
  });
});

describe('subscriptions over Streamable HTTP', () => {
  it('a server that keeps the listen stream open: acknowledged, ended by closing the stream, and the run ends', async () => {
    const r = await overHttp(['python3', LISTEN_HTTP, 'good']);
    expect(r.report.options.protocolVersionInForce).toBe('2026-07-28');
    expect(r.c('subscriptions/listen')).toMatchObject({
      verdict: 'pass',
      message: expect.stringMatching(
        /acknowledged in \d+ ms with \{"resourceSubscriptions":\["note:\/\/one"\]\}; nothing else came .* then ended by closing its response stream$/,
      ),
    });
    expect(r.c('subscriptions/unsupported-omitted').verdict).toBe('pass');
    // Over HTTP a subscription is cancelled by closing its stream: no notifications/cancelled is sent.
    expect(sentMethods(r)).not.toContain('notifications/cancelled');
    const exchanges = (r.report.http?.exchanges ?? []) as {
      requestBody?: string;
      error?: string;
      responseHeaders?: Record<string, string>;
    }[];
    const listenPosts = exchanges.filter((x) => x.requestBody?.includes('"subscriptions/listen"'));
    expect(listenPosts).toHaveLength(2);
    for (const x of listenPosts) expect(x.error).toMatch(/closed by the harness .*cancellation/);
    // The server never ends its streams: the harness did, and the run did not wait for the server.
    expect(r.ms).toBeLessThan(20_000);
    expect(r.code).toBe(0);
  }, 60_000);

  it('a notification on the listen stream without the subscriptionId: fail', async () => {
    const r = await overHttp(['python3', LISTEN_HTTP, 'no-sub-id']);
    expect(r.c('subscriptions/listen')).toMatchObject({
      verdict: 'fail',
      message: expect.stringMatching(
        /notifications\/resources\/updated \(message \d+, no subscriptionId\) came on the listen response stream without subscriptionId \d+$/,
      ),
    });
    expect(r.c('subscriptions/unsupported-omitted').verdict).toBe('pass');
    expect(r.code).toBe(1);
  }, 60_000);

  it('a listen refused with HTTP 400 and an error without id: fail as soon as the POST ends, saying what came', async () => {
    const r = await overHttp(['python3', LISTEN_HTTP, 'refuse-400']);
    expect(r.c('subscriptions/listen')).toMatchObject({
      verdict: 'fail',
      message: expect.stringMatching(
        /no notifications\/subscriptions\/acknowledged carrying subscriptionId \d+ came before the POST ended \(its POST was answered HTTP 400 Bad Request, application\/json: \{"jsonrpc": "2\.0", "error": \{"code": -32600, "message": "Bad Request: no listen streams here"\}\}, and has ended\)$/,
      ),
    });
    expect(r.c('subscriptions/unsupported-omitted').verdict).toBe('warn');
    // Not a wait for --timeout (3000 ms) per subscription: the end of the POST ends the wait.
    expect(r.report.suites.find((s) => s.id === 'subscriptions')!.cases.every((c) => (c.durationMs ?? 0) < 2500)).toBe(
      true,
    );
  }, 60_000);

  it('tmcp (a real peer, 2026-07-28): tools list changes acknowledged on the listen stream; unsupported types left out', async () => {
    const r = await overHttp(['node', TMCP]);
    expect(r.report.options.protocolVersionInForce).toBe('2026-07-28');
    expect(flagged(r).map((c) => `${c.id}: ${c.message}`)).toEqual([]);
    expect(r.c('subscriptions/listen')).toMatchObject({
      verdict: 'pass',
      message: expect.stringMatching(
        /\{"toolsListChanged":true\} .*acknowledged in \d+ ms with \{"toolsListChanged":true\}.*closing its response stream$/,
      ),
    });
    expect(r.c('subscriptions/unsupported-omitted')).toMatchObject({
      verdict: 'pass',
      message: expect.stringMatching(/acknowledged in \d+ ms with \{\}: every unsupported type left out/),
    });
  }, 60_000);
});
