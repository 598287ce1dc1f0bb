/**
 * Secrets given on the command line (a password in the URL, an API key in its query, credential headers) are sent
 * to the server but never written: not in report.json, report.html or the console report.
 */
import { mkdtempSync, readFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { isSecretHeader, parseHeader, redactHeaders, redactUrl } from '../core/transport/http.js';
import { targetInfo } from '../core/transport/index.js';
import { FIXTURES, startServer, type Started } from './http-helpers.js';
import { cli } from './helpers/cli.js';

const SECRETS = ['pa55-USERPW', 'QK-apikey-123', 'AT-token-456', 'xp-PASSWORD', 'xa-AUTHVALUE', 'bearer-TOKEN', 'sess-COOKIE'];

function expectNoSecrets(where: string, text: string): void {
  for (const s of SECRETS) expect(text.includes(s), `${s} in ${where}`).toBe(false);
}

describe('redactUrl', () => {
  it('hides the password of the user info and the values of secret-looking query and fragment parameters', () => {
    expect(redactUrl('https://alice:pa55-USERPW@h.example/mcp?api_key=QK-apikey-123&x=1&access_token=AT-token-456'))
      .toBe('https://alice:[redacted]@h.example/mcp?api_key=[redacted]&x=1&access_token=[redacted]');
    expect(redactUrl(new URL('http://h/p?Password=a&apiKey=b&sig=c&limit=5#token=d'))).toBe('http://h/p?Password=[redacted]&apiKey=[redacted]&sig=[redacted]&limit=5#token=[redacted]');
    // A user name alone is as often a token.
    expect(redactUrl('https://ghp_TOKEN@h/')).toBe('https://[redacted]@h/');
  });

  it('leaves URLs without secrets as they are (the sessionId of an HTTP+SSE endpoint is protocol)', () => {
    expect(redactUrl('http://127.0.0.1:3000/mcp')).toBe('http://127.0.0.1:3000/mcp');
    expect(redactUrl('http://127.0.0.1:3000/message?sessionId=abc-1')).toBe('http://127.0.0.1:3000/message?sessionId=abc-1');
    expect(redactUrl('http://h/p?q=a%20b&x')).toBe('http://h/p?q=a%20b&x');
  });

  it('is idempotent, and hides what it can of a string that is no URL', () => {
    const once = redactUrl('http://u:pw@h/?token=t');
    expect(redactUrl(once)).toBe(once);
    expect(redactUrl('not a url?api_key=zzz')).toBe('not a url?api_key=[redacted]');
  });

  it('the report target shows the URL redacted', () => {
    const info = targetInfo({ transport: 'streamable-http', url: 'http://u:pa55-USERPW@h/mcp?api_key=QK-apikey-123', headers: { 'X-Password': 'xp-PASSWORD' } });
    expectNoSecrets('target', JSON.stringify(info));
    expect(info.url).toBe('http://u:[redacted]@h/mcp?api_key=[redacted]');
  });
});

describe('secret headers', () => {
  it('credential-looking names are redacted; Mcp-Session-Id and ordinary headers are not', () => {
    for (const n of ['Authorization', 'Proxy-Authorization', 'Cookie', 'Set-Cookie', 'X-Password', 'X-Auth', 'X-Api-Key', 'X-Session', 'X-Credentials', 'X-Access-Token', 'Api-Secret', 'X-API']) {
      expect([n, isSecretHeader(n)]).toEqual([n, true]);
    }
    for (const n of ['Mcp-Session-Id', 'mcp-session-id', 'Content-Type', 'Accept', 'X-Trace', 'MCP-Protocol-Version', 'Last-Event-ID']) {
      expect([n, isSecretHeader(n)]).toEqual([n, false]);
    }
    expect(redactHeaders({ 'X-Auth': 'a', 'Mcp-Session-Id': 's' })).toEqual({ 'X-Auth': '[redacted]', 'Mcp-Session-Id': 's' });
  });

  it('a malformed --header is refused without quoting it', () => {
    for (const h of ['Authorization Bearer bearer-TOKEN', 'Authorization Bearer bearer-TOKEN: x', ': bearer-TOKEN']) {
      let msg = '';
      try { parseHeader(h); } catch (e) { msg = (e as Error).message; }
      expect(msg).toMatch(/Name: value/);
      expectNoSecrets('error', msg);
    }
  });

  it('the CLI error for a malformed --header does not echo it', async () => {
    const r = await cli(['run', '--http', 'http://127.0.0.1:9/mcp', '--header', 'Authorization Bearer bearer-TOKEN', '--quiet']);
    expect(r.code).toBe(2);
    expect(r.stderr).toMatch(/--header/);
    expectNoSecrets('stderr', r.stdout + r.stderr);
  });
});

describe('a run with secrets in the URL and headers', () => {
  let http: Started;
  let sse: Started;
  beforeAll(async () => {
    [http, sse] = await Promise.all([startServer(['node', join(FIXTURES, 'sdk-http.mjs'), 'stateful']), startServer(['node', join(FIXTURES, 'sdk-http.mjs'), 'sse'])]);
  }, 30_000);
  afterAll(async () => { await Promise.all([http?.stop(), sse?.stop()]); });

  const headers = ['--header', 'X-Password: xp-PASSWORD', '--header', 'X-Auth: xa-AUTHVALUE', '--header', 'Authorization: Bearer bearer-TOKEN', '--header', 'Cookie: sid=sess-COOKIE', '--header', 'X-Trace: visible'];

  async function run(args: string[]): Promise<{ json: string; html: string; console: string; code: number | null }> {
    const out = mkdtempSync(join(tmpdir(), 'mcp-conform-secrets-'));
    const r = await cli(['run', ...args, ...headers, '--out-dir', out, '--reporter', 'console', '--reporter', 'json', '--reporter', 'html', '--verbose']);
    return { json: readFileSync(join(out, 'report.json'), 'utf8'), html: readFileSync(join(out, 'report.html'), 'utf8'), console: r.stdout + r.stderr, code: r.code };
  }

  it('Streamable HTTP: the run works, no report shows the secrets', async () => {
    const url = `http://alice:pa55-USERPW@127.0.0.1:${http.port}/mcp?api_key=QK-apikey-123&access_token=AT-token-456&x=1`;
    const r = await run(['--http', url, '--suite', 'lifecycle,http']);
    const report = JSON.parse(r.json);
    expect(report.suites.find((s: { id: string }) => s.id === 'lifecycle').cases.some((c: { verdict: string }) => c.verdict === 'pass')).toBe(true);
    expectNoSecrets('report.json', r.json);
    expectNoSecrets('report.html', r.html);
    expectNoSecrets('console', r.console);
    expect(report.target.url).toBe(`http://alice:[redacted]@127.0.0.1:${http.port}/mcp?api_key=[redacted]&access_token=[redacted]&x=1`);
    expect(report.target.headers).toMatchObject({ 'X-Password': '[redacted]', 'X-Auth': '[redacted]', Authorization: '[redacted]', Cookie: '[redacted]', 'X-Trace': 'visible' });
    // The session id stays visible: it is protocol.
    const exchanges = report.http.exchanges as { url: string; requestHeaders: Record<string, string> }[];
    expect(exchanges.length).toBeGreaterThan(1);
    for (const x of exchanges) expect(x.url).toContain('[redacted]');
    expect(exchanges.some((x) => /^[0-9a-f-]{36}$/.test(x.requestHeaders['Mcp-Session-Id'] ?? ''))).toBe(true);
  }, 90_000);

  it('--url: detection, on a server that answers and on one that cannot be reached, shows no secret', async () => {
    const ok = await run(['--url', `http://alice:pa55-USERPW@127.0.0.1:${http.port}/mcp?api_key=QK-apikey-123`, '--suite', 'lifecycle']);
    expect(JSON.parse(ok.json).target.transport).toBe('streamable-http');
    expectNoSecrets('report.json', ok.json);
    expectNoSecrets('report.html', ok.html);
    expectNoSecrets('console', ok.console);
    const refused = await run(['--url', 'http://alice:pa55-USERPW@127.0.0.1:1/mcp?api_key=QK-apikey-123', '--suite', 'lifecycle']);
    expect(refused.code).toBe(1);
    expect(JSON.parse(refused.json).aborted).toMatch(/--url http:\/\/alice:\[redacted\]@127\.0\.0\.1:1\/mcp\?api_key=\[redacted\]/);
    expectNoSecrets('report.json', refused.json);
    expectNoSecrets('report.html', refused.html);
    expectNoSecrets('console', refused.console);
  }, 90_000);

  it('HTTP+SSE: neither the stream URL nor the endpoint resolved against it shows the secrets', async () => {
    const url = `http://alice:pa55-USERPW@127.0.0.1:${sse.port}/sse?token=AT-token-456`;
    const r = await run(['--sse', url, '--suite', 'lifecycle,sse']);
    const report = JSON.parse(r.json);
    expect(report.target.transport).toBe('sse');
    expect(report.messages.some((m: { direction: string; method?: string }) => m.direction === 'from-server' && m.method === 'initialize')).toBe(true);
    expectNoSecrets('report.json', r.json);
    expectNoSecrets('report.html', r.html);
    expectNoSecrets('console', r.console);
    // The POST endpoint (relative, so it inherits the user info) is shown redacted, its sessionId kept.
    const post = (report.http.exchanges as { method: string; url: string }[]).find((x) => x.method === 'POST')!;
    expect(post.url).toMatch(new RegExp(`^http://alice:\\[redacted\\]@127\\.0\\.0\\.1:${sse.port}/message\\?sessionId=[0-9a-f-]+$`));
  }, 90_000);
});
