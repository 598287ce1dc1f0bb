/**
 * Accuracy of the HTTP verdicts: one probe's leftovers never decide another's
 * verdict, an HTTP refusal is an answer, a server that accepts a batch is not at fault, and messages name the request
 * actually sent. Stdlib fixtures here; the Python SDK peers where they can be installed.
 */
import { join } from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { FIXTURES, runArgs, runBroken, startServer, type Run, type Started } from './http-helpers.js';
import { pythonPeers } from './helpers/python-peers.js';
import { py as pyFixture, run as runStdio } from './helpers/cli.js';

describe('HTTP probes do not depend on each other (item 12)', () => {
  it('a server that refuses by the headers before reading the body: every verdict is about its own probe', async () => {
    // Mode early answers 403 / 404 / 400 without reading the body, on a kept-alive connection. Reused, that
    // connection would carry the unread body into the next request, which Python's http.server answers with 501.
    const r = await runBroken('early', 'lifecycle,listing,robustness,http');
    expect(r.code).toBe(0);
    expect(r.report.server?.name ?? JSON.stringify(r.report.server)).toContain('broken-http-early');
    expect(r.verdicts('http/')).toMatchObject({
      'http/session-id/required': 'pass',
      'http/session-id/unknown': 'pass',
      'http/delete': 'pass',
      'http/protocol-version-header': 'pass',
      'http/origin': 'pass',
      'http/host': 'info',
      'http/accept': 'info',
      'http/invalid-json': 'pass',
      'http/batch': 'pass',
    });
    // The probe after the refused Origin probe is the Host probe: served, not a garbled 501.
    expect(r.c('http/host').message).toContain('HTTP 200');
    const statuses = ((r.report.http?.exchanges ?? []) as { status?: number }[]).map((x) => x.status);
    expect(statuses).not.toContain(501);
    expect(Object.values(r.verdicts('robustness/')).filter((v) => v === 'fail')).toEqual([]);
  }, 60_000);
});

describe('a kept-alive connection the server closed as it was reused', () => {
  it('the request is sent again on a new connection, not failed (seen on the Python SDK under uvicorn: "the server reset the connection")', async () => {
    const r = await runBroken('idle-close', 'lifecycle,listing,calling,http');
    expect(r.code).toBe(0);
    const all = r.report.suites.flatMap((s) => s.cases);
    expect(
      all
        .filter((c) => c.verdict === 'fail' || /reset the connection/.test(c.message))
        .map((c) => `${c.id}: ${c.message}`),
    ).toEqual([]);
    expect(r.c('lifecycle/initialize').verdict).toBe('pass');
  }, 60_000);
});

describe('request-before-initialize over HTTP (item 11)', () => {
  it('a request refused with HTTP 400 and a JSON-RPC error (id null) is reported as that refusal, not as "no answer"', async () => {
    const r = await runBroken('good', 'lifecycle,robustness', [
      '--case',
      'lifecycle',
      '--case',
      'robustness/request-before-initialize',
    ]);
    expect(r.c('robustness/request-before-initialize')).toMatchObject({
      verdict: 'info',
      message: expect.stringMatching(
        /^tools\/list sent before initialize on a second connection was refused with error code -32000 "Missing Mcp-Session-Id" in an HTTP 400 Bad Request answer$/,
      ),
    });
  }, 60_000);
});

describe('http/batch (item 7)', () => {
  it('a server that accepts a batch outside 2025-03-26 is reported, not warned', async () => {
    const r = await runBroken('sloppy', 'lifecycle,http', ['--case', 'http/batch', '--case', 'lifecycle']);
    expect(r.c('http/batch').verdict).toBe('info');
    expect(r.c('http/batch').message).toMatch(/^a batch of two ping requests was accepted/);
  }, 60_000);
});

const TMCP = join(FIXTURES, 'peers', 'tmcp-http26.mjs');
const PY_PEER = join(FIXTURES, 'peers', 'py-sdk-http26.py');
const py = await pythonPeers();
const pyTitle = (t: string) => (py.python ? t : `${t} — skipped: ${py.reason}`);

/** What the harness sent: to-server messages by method. */
const sentMethods = (r: Run) =>
  r.report.messages
    .filter((m) => m.direction === 'to-server')
    .map((m) => (m.json as { method?: string } | undefined)?.method);

/** The robustness and http messages of a 2026-07-28 run name server/discover, never a ping that was not sent. */
function namesNoPing(r: Run) {
  const said = r.report.suites
    .filter((s) => s.id === 'robustness' || s.id === 'http')
    .flatMap((s) => s.cases)
    .filter((c) => c.verdict !== 'skip');
  expect(said.filter((c) => /\bping\b|\bpings\b/.test(c.message)).map((c) => `${c.id}: ${c.message}`)).toEqual([]);
  expect(sentMethods(r)).not.toContain('ping');
}

describe('2026-07-28 over Streamable HTTP on tmcp (item 6, 11)', () => {
  let s: Started;
  let r: Run;
  beforeAll(async () => {
    s = await startServer(['node', TMCP]);
    // 2026-07-28 alone: tmcp is dual-era, and a default run would judge its legacy era too (test/dual-era.test.ts).
    r = await runArgs(
      [
        '--http',
        `http://127.0.0.1:${s.port}/mcp`,
        '--protocol-version',
        '2026-07-28',
        '--suite',
        'lifecycle,listing,invalid-params,robustness,http',
      ],
      { timeoutMs: 90_000 },
    );
  }, 120_000);
  afterAll(async () => {
    await s?.stop();
  });

  it('speaks 2026-07-28', () => {
    expect(r.report.server?.protocolVersion ?? JSON.stringify(r.report.server)).toContain('2026-07-28');
  });

  it('a notification refused with HTTP 400 and -32020 is no failure of http/accepted-202 nor of robustness/unknown-notification', () => {
    expect(r.c('http/accepted-202')).toMatchObject({
      verdict: 'info',
      message: expect.stringMatching(/notifications\/mcp-conform\/unknown .*HTTP 400 \(error -32020/),
    });
    expect(r.c('robustness/unknown-notification')).toMatchObject({
      verdict: 'pass',
      message: expect.stringMatching(/refused with HTTP 400 Bad Request with error code -32020/),
    });
  });

  it('tools/call without a name refused with -32020 (no Mcp-Name to send) passes invalid-params/malformed-call', () => {
    expect(r.c('invalid-params/malformed-call')).toMatchObject({
      verdict: 'pass',
      message: expect.stringMatching(/-32020 .*Mcp-Name/),
    });
  });

  it('cancellation closes the response stream; no notifications/cancelled is sent over HTTP', () => {
    expect(r.c('robustness/cancel-in-flight')).toMatchObject({
      verdict: 'pass',
      message: expect.stringMatching(/tools\/call slow_sleep .* cancelled by closing its response stream/),
    });
    expect(sentMethods(r)).not.toContain('notifications/cancelled');
    expect(r.c('robustness/cancel-in-flight').spec).toContain('/2026-07-28/basic/patterns/cancellation');
  });

  it('messages name the request sent (server/discover), not ping', () => {
    namesNoPing(r);
    expect(r.c('robustness/duplicate-id').message).toMatch(/^two server\/discover requests with the same id/);
    expect(r.c('robustness/large-request').message).toMatch(/^a server\/discover request of 10\d{5} bytes/);
    expect(r.c('http/origin').message).toMatch(/server\/discover request/);
  });
});

describe('the Python SDK over HTTP (items 6, 9, 11)', () => {
  it.skipIf(!py.python)(
    pyTitle(
      'Streamable HTTP, 2026-07-28: refusals are answers, cancellation by closing the stream, messages name server/discover',
    ),
    async () => {
      const s = await startServer([py.python!, PY_PEER, 'http']);
      try {
        const r = await runArgs(
          [
            '--http',
            `http://127.0.0.1:${s.port}/mcp`,
            '--protocol-version',
            '2026-07-28',
            '--suite',
            'lifecycle,listing,invalid-params,robustness,http',
          ],
          { timeoutMs: 90_000 },
        );
        expect(Object.entries(r.verdicts('robustness/')).filter(([, v]) => v === 'fail' || v === 'warn')).toEqual([]);
        expect(r.c('robustness/invalid-json').message).toMatch(
          /^a POST body of invalid JSON was refused with HTTP 400 Bad Request with error code -32700/,
        );
        expect(r.c('robustness/cancel-in-flight').message).toMatch(/cancelled by closing its response stream/);
        expect(sentMethods(r)).not.toContain('notifications/cancelled');
        namesNoPing(r);
      } finally {
        await s.stop();
      }
    },
    120_000,
  );

  it.skipIf(!py.python)(
    pyTitle(
      'Streamable HTTP, 2025-11-25: request-before-initialize reports the HTTP 400 refusal it got, not "no answer"',
    ),
    async () => {
      const s = await startServer([py.python!, PY_PEER, 'http']);
      try {
        const r = await runArgs(
          [
            '--http',
            `http://127.0.0.1:${s.port}/mcp`,
            '--protocol-version',
            '2025-11-25',
            '--suite',
            'lifecycle,robustness',
            '--case',
            'lifecycle',
            '--case',
            'robustness/request-before-initialize',
          ],
          { timeoutMs: 90_000 },
        );
        expect(r.c('robustness/request-before-initialize')).toMatchObject({
          verdict: 'info',
          message: expect.stringMatching(/was refused with error code -32600 .*in an HTTP 400 Bad Request answer/),
        });
        expect(r.c('robustness/request-before-initialize').message).not.toMatch(/no answer/);
      } finally {
        await s.stop();
      }
    },
    120_000,
  );

  it.skipIf(!py.python)(
    pyTitle('HTTP+SSE: an HTTP 400 refusal of a malformed POST is an answer (was "no answer… the SDKs stay silent")'),
    async () => {
      const s = await startServer([py.python!, PY_PEER, 'sse']);
      try {
        const r = await runArgs(['--sse', `http://127.0.0.1:${s.port}/sse`, '--suite', 'lifecycle,robustness'], {
          timeoutMs: 90_000,
        });
        for (const id of ['robustness/invalid-json', 'robustness/not-a-message', 'robustness/wrong-jsonrpc']) {
          expect(r.c(id)).toMatchObject({
            verdict: 'pass',
            message: expect.stringMatching(
              /was refused with HTTP 400 Bad Request \(body "Could not parse message"; no JSON-RPC error\); the server still answers ping$/,
            ),
          });
        }
      } finally {
        await s.stop();
      }
    },
    120_000,
  );
});

describe('say what was sent, over stdio too (item 11)', () => {
  it('2026-07-28 over stdio: the robustness messages name server/discover; cancellation there is notifications/cancelled', async () => {
    const r = await runStdio(
      pyFixture('calc-all.py'),
      ['--protocol-version', '2026-07-28', '--suite', 'lifecycle,robustness'],
      { timeoutMs: 60_000 },
    );
    expect(r.report.server?.protocolVersion).toBe('2026-07-28');
    namesNoPing(r);
    expect(r.c('robustness/duplicate-id').message).toMatch(/^two server\/discover requests with the same id/);
    expect(r.c('robustness/large-request').message).toMatch(/^a server\/discover request of 10\d{5} bytes/);
    expect(r.c('robustness/cancel-in-flight').message).toMatch(/cancelled by notifications\/cancelled/);
    expect(sentMethods(r)).toContain('notifications/cancelled');
  }, 60_000);
});
