/**
 * Secrets given on the command line (a password in the URL, an API key in its query, credential headers) are sent
 * to the server but never written: not in report.json, report.html or the console report.
 */
import { mkdtempSync, readFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { isSecretName, redactHeaders, redactUrl } from '../core/secrets.js';
import { parseHeader, parseHeaders } from '../core/headers.js';
import { targetInfo } from '../core/transport/index.js';
import { FIXTURES, startServer, type Started } from './http-helpers.js';
import { BIN as BIN_DIR, ROOT as ROOT_DIR, cli } from './helpers/cli.js';

const SECRETS = [
  'pa55-USERPW',
  'QK-apikey-123',
  'AT-token-456',
  'xp-PASSWORD',
  'xa-AUTHVALUE',
  'bearer-TOKEN',
  'sess-COOKIE',
];

function expectNoSecrets(where: string, text: string): void {
  for (const s of SECRETS) expect(text.includes(s), `${s} in ${where}`).toBe(false);
}

describe('redactUrl', () => {
  it('hides the password of the user info and the values of secret-looking query and fragment parameters', () => {
    expect(
      redactUrl('https://alice:pa55-USERPW@h.example/mcp?api_key=QK-apikey-123&x=1&access_token=AT-token-456'),
    ).toBe('https://alice:[redacted]@h.example/mcp?api_key=[redacted]&x=1&access_token=[redacted]');
    expect(redactUrl(new URL('http://h/p?Password=a&apiKey=b&sig=c&limit=5#token=d'))).toBe(
      'http://h/p?Password=[redacted]&apiKey=[redacted]&sig=[redacted]&limit=5#token=[redacted]',
    );
    // A user name alone is as often a token.
    expect(redactUrl('https://ghp_TOKEN@h/')).toBe('https://[redacted]@h/');
  });

  it('leaves URLs without secrets as they are (the sessionId of an HTTP+SSE endpoint is protocol)', () => {
    expect(redactUrl('http://127.0.0.1:3000/mcp')).toBe('http://127.0.0.1:3000/mcp');
    expect(redactUrl('http://127.0.0.1:3000/message?sessionId=abc-1')).toBe(
      'http://127.0.0.1:3000/message?sessionId=abc-1',
    );
    expect(redactUrl('http://h/p?q=a%20b&x')).toBe('http://h/p?q=a%20b&x');
  });

  it('is idempotent, and hides what it can of a string that is no URL', () => {
    const once = redactUrl('http://u:pw@h/?token=t');
    expect(redactUrl(once)).toBe(once);
    expect(redactUrl('not a url?api_key=zzz')).toBe('not a url?api_key=[redacted]');
  });

  it('the report target shows the URL redacted', () => {
    const info = targetInfo({
      transport: 'streamable-http',
      url: 'http://u:pa55-USERPW@h/mcp?api_key=QK-apikey-123',
      headers: { 'X-Password': 'xp-PASSWORD' },
    });
    expectNoSecrets('target', JSON.stringify(info));
    expect(info.url).toBe('http://u:[redacted]@h/mcp?api_key=[redacted]');
  });
});

describe('secret headers', () => {
  it('credential-looking names are redacted; Mcp-Session-Id and ordinary headers are not', () => {
    for (const n of [
      'Authorization',
      'Proxy-Authorization',
      'Cookie',
      'Set-Cookie',
      'X-Password',
      'X-Auth',
      'X-Api-Key',
      'X-Session',
      'X-Credentials',
      'X-Access-Token',
      'Api-Secret',
      'X-API',
    ]) {
      expect([n, isSecretName(n)]).toEqual([n, true]);
    }
    for (const n of [
      'Mcp-Session-Id',
      'mcp-session-id',
      'Content-Type',
      'Accept',
      'X-Trace',
      'MCP-Protocol-Version',
      'Last-Event-ID',
    ]) {
      expect([n, isSecretName(n)]).toEqual([n, false]);
    }
    expect(redactHeaders({ 'X-Auth': 'a', 'Mcp-Session-Id': 's' })).toEqual({
      'X-Auth': '[redacted]',
      'Mcp-Session-Id': 's',
    });
  });

  it('one rule for the transports, the reports and the mocks: a name secret under either former rule stays secret', () => {
    // The two rules that existed before (the transport's, for reports; the mocks', for cassettes), kept here to pin the union.
    const transportRule = (n: string) =>
      /auth|pass|pwd|token|key|secret|session|credential|cookie|api|signature|^sig$/i.test(n) &&
      !/^(mcp-session-id|sessionid|session_id)$/i.test(n);
    const mocksRule = (n: string) =>
      /^(authorization|proxy-authorization|cookie|set-cookie|x-api-key)$|token|secret|key|password/i.test(n);
    const names = [
      'Authorization',
      'Proxy-Authorization',
      'Cookie',
      'Set-Cookie',
      'X-Api-Key',
      'api_key',
      'apiKey',
      'X-Auth-Token',
      'access_token',
      'X-Password',
      'passwd',
      'Pwd',
      'X-Session',
      'X-Session-Token',
      'Session-Key',
      'X-Signature',
      'sig',
      'SIG',
      'Api-Secret',
      'Private-Key',
      'X-Credentials',
      'X-API',
      'Mcp-Session-Id',
      'sessionId',
      'session_id',
      'Content-Type',
      'Accept',
      'User-Agent',
      'X-Trace',
      'Last-Event-ID',
      'MCP-Protocol-Version',
      'X-Request-Id',
      'Signal',
      'limit',
      'q',
    ];
    for (const n of names) expect([n, isSecretName(n)]).toEqual([n, transportRule(n) || mocksRule(n)]);
    // Names the mocks used to store in a cassette, now secret there too.
    for (const n of ['X-Session', 'X-Auth', 'X-Signature', 'sig', 'Pwd', 'X-Credentials', 'X-API'])
      expect([n, mocksRule(n), isSecretName(n)]).toEqual([n, false, true]);
    // Protocol names stay visible.
    for (const n of ['Mcp-Session-Id', 'sessionId', 'session_id']) expect([n, isSecretName(n)]).toEqual([n, false]);
  });

  it('one parser of "Name: value": trims, keeps colons in the value, the later of two equal names wins', () => {
    expect(parseHeader('  Authorization :  Bearer a:b  ')).toEqual(['Authorization', 'Bearer a:b']);
    expect(parseHeader('X-Empty:')).toEqual(['X-Empty', '']);
    expect(parseHeaders(['A: 1', 'B: 2', 'A: 3'])).toEqual({ A: '3', B: '2' });
    expect(() => parseHeader('X-Bad: a\r\nInjected: b')).toThrow(/line break/);
    expect(() => parseHeaders(['A: 1', 'not a header'])).toThrow(/Name: value/);
  });

  it('a malformed --header is refused without quoting it', () => {
    for (const h of ['Authorization Bearer bearer-TOKEN', 'Authorization Bearer bearer-TOKEN: x', ': bearer-TOKEN']) {
      let msg = '';
      try {
        parseHeader(h);
      } catch (e) {
        msg = (e as Error).message;
      }
      expect(msg).toMatch(/Name: value/);
      expectNoSecrets('error', msg);
    }
  });

  it('the CLI error for a malformed --header does not echo it', async () => {
    const r = await cli([
      'run',
      '--http',
      'http://127.0.0.1:9/mcp',
      '--header',
      'Authorization Bearer bearer-TOKEN',
      '--quiet',
    ]);
    expect(r.code).toBe(2);
    expect(r.stderr).toMatch(/--header/);
    expectNoSecrets('stderr', r.stdout + r.stderr);
  });

  it('record and serve refuse a malformed --header with the same parser, without echoing it', async () => {
    const out = join(mkdtempSync(join(tmpdir(), 'mcp-conform-secrets-')), 'c.jsonl');
    for (const args of [
      [
        'record',
        '--http',
        'http://127.0.0.1:9/mcp',
        '--listen-http',
        '0',
        '--out',
        out,
        '--header',
        'Authorization Bearer bearer-TOKEN',
      ],
      [
        'serve',
        '--mode',
        'passthrough',
        '--upstream',
        'http://127.0.0.1:9/mcp',
        '--header',
        'Authorization Bearer bearer-TOKEN',
      ],
    ]) {
      const r = await cli(args);
      expect([args[0], r.code]).toEqual([args[0], 2]);
      expect(r.stdout + r.stderr).toMatch(/--header: wants "Name: value"/);
      expectNoSecrets(`${args[0]} output`, r.stdout + r.stderr);
    }
  });
});

describe('a run with secrets in the URL and headers', () => {
  let http: Started;
  let sse: Started;
  beforeAll(async () => {
    [http, sse] = await Promise.all([
      startServer(['node', join(FIXTURES, 'sdk-http.mjs'), 'stateful']),
      startServer(['node', join(FIXTURES, 'sdk-http.mjs'), 'sse']),
    ]);
  }, 30_000);
  afterAll(async () => {
    await Promise.all([http?.stop(), sse?.stop()]);
  });

  const headers = [
    '--header',
    'X-Password: xp-PASSWORD',
    '--header',
    'X-Auth: xa-AUTHVALUE',
    '--header',
    'Authorization: Bearer bearer-TOKEN',
    '--header',
    'Cookie: sid=sess-COOKIE',
    '--header',
    'X-Trace: visible',
  ];

  async function run(args: string[]): Promise<{ json: string; html: string; console: string; code: number | null }> {
    const out = mkdtempSync(join(tmpdir(), 'mcp-conform-secrets-'));
    const r = await cli([
      'run',
      ...args,
      ...headers,
      '--out-dir',
      out,
      '--reporter',
      'console',
      '--reporter',
      'json',
      '--reporter',
      'html',
      '--verbose',
    ]);
    return {
      json: readFileSync(join(out, 'report.json'), 'utf8'),
      html: readFileSync(join(out, 'report.html'), 'utf8'),
      console: r.stdout + r.stderr,
      code: r.code,
    };
  }

  it('Streamable HTTP: the run works, no report shows the secrets', async () => {
    const url = `http://alice:pa55-USERPW@127.0.0.1:${http.port}/mcp?api_key=QK-apikey-123&access_token=AT-token-456&x=1`;
    const r = await run(['--http', url, '--suite', 'lifecycle,http']);
    const report = JSON.parse(r.json);
    expect(
      report.suites
        .find((s: { id: string }) => s.id === 'lifecycle')
        .cases.some((c: { verdict: string }) => c.verdict === 'pass'),
    ).toBe(true);
    expectNoSecrets('report.json', r.json);
    expectNoSecrets('report.html', r.html);
    expectNoSecrets('console', r.console);
    expect(report.target.url).toBe(
      `http://alice:[redacted]@127.0.0.1:${http.port}/mcp?api_key=[redacted]&access_token=[redacted]&x=1`,
    );
    expect(report.target.headers).toMatchObject({
      'X-Password': '[redacted]',
      'X-Auth': '[redacted]',
      Authorization: '[redacted]',
      Cookie: '[redacted]',
      'X-Trace': 'visible',
    });
    // The session id stays visible: it is protocol.
    const exchanges = report.http.exchanges as { url: string; requestHeaders: Record<string, string> }[];
    expect(exchanges.length).toBeGreaterThan(1);
    for (const x of exchanges) expect(x.url).toContain('[redacted]');
    expect(exchanges.some((x) => /^[0-9a-f-]{36}$/.test(x.requestHeaders['Mcp-Session-Id'] ?? ''))).toBe(true);
  }, 90_000);

  it('run --record: the cassette notes every secret header under the one rule and holds none of their values', async () => {
    const dir = mkdtempSync(join(tmpdir(), 'mcp-conform-secrets-'));
    const file = join(dir, 'c.jsonl');
    const r = await cli([
      'run',
      '--http',
      `http://127.0.0.1:${http.port}/mcp`,
      ...headers,
      '--header',
      'X-Session: sess-COOKIE',
      '--suite',
      'lifecycle',
      '--out-dir',
      dir,
      '--reporter',
      'json',
      '--record',
      file,
    ]);
    expect(r.code, r.stderr).toBe(0);
    const text = readFileSync(file, 'utf8');
    expectNoSecrets('cassette', text);
    const names = (JSON.parse(text.split('\n')[0]).redactions as { kind: string; name?: string }[])
      .filter((n) => n.kind === 'header')
      .map((n) => n.name);
    // X-Auth and X-Session were stored by the mocks' former rule.
    expect(names).toEqual(expect.arrayContaining(['x-password', 'x-auth', 'authorization', 'cookie', 'x-session']));
    expect(names).not.toContain('x-trace');
  }, 90_000);

  it('--url: detection, on a server that answers and on one that cannot be reached, shows no secret', async () => {
    const ok = await run([
      '--url',
      `http://alice:pa55-USERPW@127.0.0.1:${http.port}/mcp?api_key=QK-apikey-123`,
      '--suite',
      'lifecycle',
    ]);
    expect(JSON.parse(ok.json).target.transport).toBe('streamable-http');
    expectNoSecrets('report.json', ok.json);
    expectNoSecrets('report.html', ok.html);
    expectNoSecrets('console', ok.console);
    const refused = await run([
      '--url',
      'http://alice:pa55-USERPW@127.0.0.1:1/mcp?api_key=QK-apikey-123',
      '--suite',
      'lifecycle',
    ]);
    expect(refused.code).toBe(1);
    expect(JSON.parse(refused.json).aborted).toMatch(
      /--url http:\/\/alice:\[redacted\]@127\.0\.0\.1:1\/mcp\?api_key=\[redacted\]/,
    );
    expectNoSecrets('report.json', refused.json);
    expectNoSecrets('report.html', refused.html);
    expectNoSecrets('console', refused.console);
  }, 90_000);

  it('HTTP+SSE: neither the stream URL nor the endpoint resolved against it shows the secrets', async () => {
    const url = `http://alice:pa55-USERPW@127.0.0.1:${sse.port}/sse?token=AT-token-456`;
    const r = await run(['--sse', url, '--suite', 'lifecycle,sse']);
    const report = JSON.parse(r.json);
    expect(report.target.transport).toBe('sse');
    expect(
      report.messages.some(
        (m: { direction: string; method?: string }) => m.direction === 'from-server' && m.method === 'initialize',
      ),
    ).toBe(true);
    expectNoSecrets('report.json', r.json);
    expectNoSecrets('report.html', r.html);
    expectNoSecrets('console', r.console);
    // The POST endpoint (relative, so it inherits the user info) is shown redacted, its sessionId kept.
    const post = (report.http.exchanges as { method: string; url: string }[]).find((x) => x.method === 'POST')!;
    expect(post.url).toMatch(
      new RegExp(`^http://alice:\\[redacted\\]@127\\.0\\.0\\.1:${sse.port}/message\\?sessionId=[0-9a-f-]+$`),
    );
  }, 90_000);
});

describe('environment secrets a server prints (server-everything get-env)', () => {
  it('never reach report.json, report.html or the cassette of run --record: [redacted: $NAME] instead', async () => {
    const out = mkdtempSync(join(tmpdir(), 'mcp-conform-envsecret-'));
    const cassette = join(out, 'session.jsonl');
    // MY_API_TOKEN is in the harness's environment (a CI secret); SERVICE_PASSWORD is given to the server with --env.
    const r = await cli(
      [
        'run',
        '--stdio',
        `${join(BIN_DIR, 'mcp-server-everything')} stdio`,
        '--suite',
        'calling',
        '--case',
        'calling/tool/get-env',
        '--env',
        'SERVICE_PASSWORD=pw-9876543210-xyz',
        '--out-dir',
        out,
        '--reporter',
        'json',
        '--reporter',
        'html',
        '--record',
        cassette,
        '--quiet',
      ],
      {
        env: { MY_API_TOKEN: 'sk-test-1234567890', SHORT_TOKEN: 'abc', PWD: ROOT_DIR },
        cwd: ROOT_DIR,
        timeoutMs: 120_000,
      },
    );
    expect(r.code, r.stderr).not.toBe(3);
    const json = readFileSync(join(out, 'report.json'), 'utf8');
    const html = readFileSync(join(out, 'report.html'), 'utf8');
    const tape = readFileSync(cassette, 'utf8');
    // The tool was called and answered with the environment (else the test shows nothing).
    const report = JSON.parse(json) as { messages: { raw: string }[] };
    expect(report.messages.some((m) => m.raw.includes('"name":"get-env"'))).toBe(true);
    for (const [where, text] of [
      ['report.json', json],
      ['report.html', html],
      ['cassette', tape],
    ] as const) {
      expect(text.includes('sk-test-1234567890'), `the harness's MY_API_TOKEN in ${where}`).toBe(false);
      expect(text.includes('pw-9876543210-xyz'), `the --env SERVICE_PASSWORD in ${where}`).toBe(false);
      // report.html shows a JSON string of over 4,000 characters cut there (reports/html.ts): the variable, last in the
      // server's environment, is past the cut when the machine's environment is long (a CI checkout's deeper paths).
      // Where the page shows it, it shows the marker; report.json and the cassette hold the whole text.
      // So the page is asked for the marker only where it shows the variable's whole entry (the cut, '…', not within it).
      const at = text.indexOf('MY_API_TOKEN');
      const entryShown = at >= 0 && !text.slice(at, at + 100).includes('…'); // the entry, HTML-escaped, is < 100 characters
      if (where !== 'report.html' || entryShown) expect(text, where).toContain('[redacted: $MY_API_TOKEN]');
    }
    expect(json).toContain('[redacted: $SERVICE_PASSWORD]');
    // Shorter than 8 characters: too common a value to hide.
    expect(json).toContain('SHORT_TOKEN');
    // PWD ("pwd" as in password) is the working directory, no secret: the paths in the report stay readable.
    expect(json).not.toContain('[redacted: $PWD]');
    expect(json).toContain(BIN_DIR);
  }, 150_000);
});
