/**
 * The http suite's header-value and SSE-stream cases (suites/http/streams.ts): each proved on the deliberately broken
 * fixture fixtures/servers/http/streams_http.py (one fault per mode) and on real peers — the Python MCP SDK 2.x with
 * an event store (fixtures/servers/peers/py-sdk-streams.py: x-mcp-header, polling) and the TypeScript SDK 2.x
 * McpServer (fixtures/servers/peers/ts-sdk2.mjs http-headers) and the TS SDK 1.x StreamableHTTPServerTransport with an
 * event store (fixtures/servers/sdk-http.mjs polling).
 */
import { describe, expect, it } from 'vitest';
import { join } from 'node:path';
import { FIXTURES, runArgs, startServer, type Run } from './http-helpers.js';
import { pythonPeers } from './helpers/python-peers.js';
import type { HttpExchange } from '../core/transport/http.js';
import { headerParamProblems, paramHeaders, sameParamValue } from '../core/param-headers.js';

const FIXTURE = join(FIXTURES, 'http', 'streams_http.py');

describe('core/param-headers.ts', () => {
  const schema = {
    type: 'object',
    properties: {
      region: { type: 'string', 'x-mcp-header': 'Region' },
      n: { type: 'integer', 'x-mcp-header': 'N' },
      on: { type: 'boolean', 'x-mcp-header': 'On' },
      opts: { type: 'object', properties: { tenant: { type: 'string', 'x-mcp-header': 'Tenant' } } },
    },
  };
  it('mirrors marked arguments as the spec encodes them (decimal, lower-case booleans, Base64 for what is no plain header value), omitting absent and null ones', () => {
    expect(paramHeaders(schema, { region: 'us-west1', n: 42, on: false, opts: { tenant: 'Hello, 世界' } })).toEqual({
      'Mcp-Param-Region': 'us-west1',
      'Mcp-Param-N': '42',
      'Mcp-Param-On': 'false',
      'Mcp-Param-Tenant': '=?base64?SGVsbG8sIOS4lueVjA==?=',
    });
    expect(paramHeaders(schema, { region: ' padded ', n: null })).toEqual({
      'Mcp-Param-Region': '=?base64?IHBhZGRlZCA=?=',
    });
    expect(paramHeaders(schema, { region: '=?base64?literal?=' })).toEqual({
      'Mcp-Param-Region': '=?base64?PT9iYXNlNjQ/bGl0ZXJhbD89?=',
    });
    expect(sameParamValue('=?base64?SGVsbG8sIOS4lueVjA==?=', 'Hello, 世界')).toBe(true);
    expect(sameParamValue('42.0', 42)).toBe(true);
    expect(sameParamValue('', 0)).toBe(false);
  });
  it('finds invalid marks: no token, repeated case-insensitively, on a number or object, or not reached through properties alone', () => {
    expect(headerParamProblems(schema)).toEqual([]);
    const bad = headerParamProblems({
      type: 'object',
      properties: {
        a: { type: 'string', 'x-mcp-header': 'Bad Name' },
        b: { type: 'string', 'x-mcp-header': 'Dup' },
        c: { type: 'string', 'x-mcp-header': 'dup' },
        d: { type: 'number', 'x-mcp-header': 'D' },
        e: { type: 'array', items: { type: 'string', 'x-mcp-header': 'E' } },
      },
      $defs: { f: { type: 'string', 'x-mcp-header': 'F' } },
      anyOf: [{ properties: { g: { type: 'string', 'x-mcp-header': 'G' } } }],
    });
    expect(bad.join('\n')).toMatch(/\/properties\/a: x-mcp-header "Bad Name" is not an HTTP header-name token/);
    expect(bad.join('\n')).toMatch(/\/properties\/c: x-mcp-header "dup" repeats \/properties\/b/);
    expect(bad.join('\n')).toMatch(/\/properties\/d: x-mcp-header on a property of type "number"/);
    expect(bad.filter((p) => /not reached through properties keys alone/.test(p)).map((p) => p.split(':')[0])).toEqual([
      '/properties/e/items',
      '/$defs/f',
      '/anyOf/0/properties/g',
    ]);
  });
});
const SUITES = 'lifecycle,listing,calling,http';

async function fixture(mode: string, version: string): Promise<Run> {
  const s = await startServer(['python3', FIXTURE, mode]);
  try {
    return await runArgs(
      ['--http', `http://127.0.0.1:${s.port}/mcp`, '--suite', SUITES, '--protocol-version', version],
      { timeoutMs: 60_000 },
    );
  } finally {
    await s.stop();
  }
}

const OURS = [
  'http/2026/header-whitespace',
  'http/2026/legacy-headers',
  'http/2026/param-header-marks',
  'http/2026/param-headers',
  'http/2026/param-header-chars',
  'http/response-stream/related',
  'http/streams/no-broadcast',
  'http/sse-polling',
];
const ours = (r: Run) => Object.fromEntries(OURS.map((id) => [id, r.c(id).verdict]));

describe('streams_http.py, 2026-07-28 modes', () => {
  it("good: headers trimmed and checked (Mcp-Param-Region included), legacy headers ignored; the harness's own calls carry Mcp-Param-Region", async () => {
    const r = await fixture('good', '2026-07-28');
    expect(ours(r)).toMatchObject({
      'http/2026/header-whitespace': 'pass',
      'http/2026/legacy-headers': 'pass',
      'http/2026/param-header-marks': 'pass',
      'http/2026/param-headers': 'pass',
      'http/2026/param-header-chars': 'pass',
      'http/response-stream/related': 'skip',
    });
    expect(r.c('http/2026/param-header-chars').message).toMatch(
      /Mcp-Param-Region: =\?base64\?ZXhhbXBsZS3DqQ==\?= → served \(HTTP 200\); Mcp-Param-Region sent raw \(the é as byte 0xE9\) → HTTP 400 with error -32020/,
    );
    expect(r.c('http/2026/param-headers').message).toMatch(
      /Mcp-Param-Region: example-mcp-conform-other → HTTP 400 with error -32020; no Mcp-Param-Region → HTTP 400 with error -32020/,
    );
    // The calling suite's tools/call of regional went out with Mcp-Param-Region (else the server would refuse it: -32020).
    expect(r.c('calling/tool/regional').verdict, r.c('calling/tool/regional').message).toBe('pass');
    const sent = (r.report.http!.exchanges as HttpExchange[]).find(
      (x) => x.purpose === 'message' && /"name":"regional"/.test(x.requestBody ?? ''),
    );
    expect(sent?.requestHeaders['Mcp-Param-Region']).toBe('example');
  }, 60_000);

  it('raw-values: a value compared with its surrounding whitespace is a warn (HTTP leaves the whitespace out)', async () => {
    const r = await fixture('raw-values', '2026-07-28');
    expect(r.c('http/2026/header-whitespace')).toMatchObject({
      verdict: 'warn',
      message: expect.stringMatching(/tools\/list and the tools\/call refused/),
    });
  }, 60_000);

  it('no-param-check: a wrong, missing or raw non-ASCII Mcp-Param header served fails', async () => {
    const r = await fixture('no-param-check', '2026-07-28');
    expect(r.c('http/2026/param-header-chars')).toMatchObject({
      verdict: 'fail',
      message: expect.stringMatching(/sent raw \(the é as byte 0xE9\) → served \(HTTP 200\)/),
    });
    expect(r.c('http/2026/param-headers')).toMatchObject({
      verdict: 'fail',
      message: expect.stringMatching(
        /Mcp-Param-Region: example-mcp-conform-other → served \(HTTP 200\); expected 400 with -32020; no Mcp-Param-Region → served/,
      ),
    });
  }, 60_000);

  it('bad-marks: a mark under items and one on a number fail param-header-marks; the valid tool is still probed', async () => {
    const r = await fixture('bad-marks', '2026-07-28');
    expect(r.c('http/2026/param-header-marks')).toMatchObject({
      verdict: 'fail',
      message: expect.stringMatching(
        /bad_marks: \/properties\/tags\/items: .*not reached through properties keys alone; \/properties\/ratio: .*type "number"/,
      ),
    });
    expect(r.c('http/2026/param-headers').verdict).toBe('pass');
  }, 60_000);

  it('session-echo: minting a session id in 2026-07-28 is a warn', async () => {
    const r = await fixture('session-echo', '2026-07-28');
    expect(r.c('http/2026/legacy-headers')).toMatchObject({
      verdict: 'warn',
      message: expect.stringMatching(/neither mints nor echoes/),
    });
  }, 60_000);

  it('stream-request: a server request, and progress for a token the call never gave, on a response stream fail', async () => {
    const r = await fixture('stream-request', '2026-07-28');
    expect(r.c('http/response-stream/related')).toMatchObject({
      verdict: 'fail',
      message: expect.stringMatching(
        /request roots\/list on the stream of tools\/call .*progress for token "not-this-call" on the stream of tools\/call/,
      ),
    });
  }, 60_000);
});

describe('streams_http.py, 2025-11-25 modes', () => {
  it('poll: primed streams, a stream closed early with retry and resumed to its answer pass', async () => {
    const r = await fixture('poll', '2025-11-25');
    expect(r.c('http/sse-polling')).toMatchObject({
      verdict: 'pass',
      message: expect.stringMatching(
        /SSE answers with event ids, (\d+) primed; tools\/list \(exchange \d+\) closed early and resumed to its answer/,
      ),
    });
    expect(r.c('listing/tools-list').verdict).toBe('pass');
    expect(r.c('http/streams/no-broadcast').verdict).toBe('skip');
  }, 60_000);

  it('poll-no-retry, unprimed: the SHOULDs unmet warn', async () => {
    const a = await fixture('poll-no-retry', '2025-11-25');
    expect(a.c('http/sse-polling')).toMatchObject({
      verdict: 'warn',
      message: expect.stringMatching(/closed before its answer without a retry field/),
    });
    const b = await fixture('unprimed', '2025-11-25');
    expect(b.c('http/sse-polling')).toMatchObject({
      verdict: 'warn',
      message: expect.stringMatching(/did not open with a priming event/),
    });
  }, 90_000);

  it("poll-foreign: a resumption replaying another stream's answer fails (MUST NOT)", async () => {
    const r = await fixture('poll-foreign', '2025-11-25');
    expect(r.c('http/sse-polling')).toMatchObject({
      verdict: 'fail',
      level: 'MUST',
      message: expect.stringMatching(/replayed 1 answer to other requests/),
    });
  }, 60_000);

  it('broadcast: the same server request on the GET stream and a POST stream fails', async () => {
    const r = await fixture('broadcast', '2025-11-25');
    expect(r.c('http/streams/no-broadcast')).toMatchObject({
      verdict: 'fail',
      message: expect.stringMatching(
        /ping \(id "streams-http-ping-\d+"\) as message \d+ on exchange \d+ and message \d+ on exchange \d+/,
      ),
    });
    // a server request during a request is allowed up to 2025-11-25
    expect(r.c('http/response-stream/related').verdict).toBe('pass');
  }, 60_000);
});

/** A case's result in one era of a dual-era run (report.suites holds both, each result naming its version). */
function eraCase(r: Run, id: string, version: string) {
  const c = r.report.suites.flatMap((x) => x.cases).find((x) => x.id === id && x.protocolVersion === version);
  if (!c) throw new Error(`no ${id} in ${version}`);
  return c;
}

const py = await pythonPeers();
const pyTitle = (t: string) => (py.python ? t : `${t} — skipped: ${py.reason}`);

describe('real peers', () => {
  it.skipIf(!py.python)(
    pyTitle(
      'Python MCP SDK 2.x with an event store: Mcp-Param-Region checked (2026-07-28); primed streams, polled and resumed (2025-11-25)',
    ),
    async () => {
      const s = await startServer([py.python!, join(FIXTURES, 'peers', 'py-sdk-streams.py')]);
      try {
        const r = await runArgs(['--http', `http://127.0.0.1:${s.port}/mcp`, '--suite', SUITES], {
          timeoutMs: 120_000,
        });
        const byEra = (id: string, v: string) => eraCase(r, id, v);
        for (const id of [
          'http/2026/header-whitespace',
          'http/2026/legacy-headers',
          'http/2026/param-header-marks',
          'http/2026/param-headers',
          'http/2026/param-header-chars',
        ])
          expect(byEra(id, '2026-07-28').verdict, `${id}: ${byEra(id, '2026-07-28').message}`).toBe('pass');
        expect(byEra('http/sse-polling', '2025-11-25')).toMatchObject({
          verdict: 'pass',
          message: expect.stringMatching(/primed; tools\/call \(exchange \d+\) closed early and resumed to its answer/),
        });
        expect(byEra('calling/tool/poll', '2025-11-25').verdict).toBe('pass');
      } finally {
        await s.stop();
      }
    },
    150_000,
  );

  it('TS SDK 1.x StreamableHTTPServerTransport with an event store and retryInterval: primed streams; a tool that closes its stream is polled and resumed to its answer', async () => {
    const s = await startServer(['node', join(FIXTURES, 'sdk-http.mjs'), 'polling']);
    try {
      const r = await runArgs(['--http', `http://127.0.0.1:${s.port}/mcp`, '--suite', SUITES], { timeoutMs: 120_000 });
      expect(r.c('http/sse-polling')).toMatchObject({
        verdict: 'pass',
        message: expect.stringMatching(
          /(\d+) SSE answers with event ids, \1 primed; tools\/call \(exchange \d+\) closed early and resumed to its answer/,
        ),
      });
      expect(r.c('calling/tool/poll')).toMatchObject({ verdict: 'pass', message: expect.stringMatching(/answered/) });
      const resumed = (r.report.http!.exchanges as HttpExchange[]).filter((x) => x.purpose === 'resume');
      expect(resumed.length).toBeGreaterThan(0);
      expect(resumed[0]!.requestHeaders['Last-Event-ID']).toBeDefined();
    } finally {
      await s.stop();
    }
  }, 150_000);

  it('TS SDK 2.x McpServer (createMcpHandler) with a tool marking x-mcp-header: Mcp-Param-Region checked; no polling (no event ids): skipped with why', async () => {
    const s = await startServer(['node', join(FIXTURES, 'peers', 'ts-sdk2.mjs'), 'http-headers']);
    try {
      const r = await runArgs(['--http', `http://127.0.0.1:${s.port}/mcp`, '--suite', SUITES], { timeoutMs: 120_000 });
      const byEra = (id: string, v: string) => eraCase(r, id, v);
      for (const id of [
        'http/2026/header-whitespace',
        'http/2026/legacy-headers',
        'http/2026/param-header-marks',
        'http/2026/param-headers',
        'http/2026/param-header-chars',
      ])
        expect(byEra(id, '2026-07-28').verdict, `${id}: ${byEra(id, '2026-07-28').message}`).toBe('pass');
      expect(byEra('http/sse-polling', '2025-11-25')).toMatchObject({
        verdict: 'skip',
        message: expect.stringMatching(/^nothing to judge: none of the \d+ SSE answers carried event ids/),
      });
      expect(byEra('calling/tool/regional', '2026-07-28').verdict).toBe('pass');
    } finally {
      await s.stop();
    }
  }, 150_000);
});
