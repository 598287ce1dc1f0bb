/**
 * --oauth against real peers nobody here wrote: the `oidc-provider` authorization server (npm) in front of the
 * TypeScript SDK's McpServer protected by the SDK's requireBearerAuth + mcpAuthMetadataRouter
 * (fixtures/servers/peers/auth/oidc-sdk.mjs). The harness gets in unattended and every protocol suite runs behind the
 * token; the token is renewed when it expires, stepped up on 403 insufficient_scope; client_credentials for CI; a
 * login nobody completes ends within --oauth-timeout; and no token, code or secret reaches any output.
 */
import { existsSync, mkdtempSync, readFileSync, readdirSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterAll, describe, expect, it } from 'vitest';
import { cli, runArgs } from './helpers/cli.js';
import { startServer, type Started } from './http-helpers.js';
import type { Report } from '../core/results.js';
import type { HttpExchange } from '../core/transport/http.js';

const PEER = 'fixtures/servers/peers/auth/oidc-sdk.mjs';
const started: Started[] = [];
afterAll(async () => {
  for (const s of started) await s.stop();
});

async function peer(mode: string): Promise<{ url: string; secrets: () => string[] }> {
  const file = join(mkdtempSync(join(tmpdir(), 'oidc-sdk-')), 'secrets.txt');
  const s = await startServer(['node', PEER, mode], { env: { OIDC_SDK_SECRETS_FILE: file } });
  started.push(s);
  return {
    url: `http://127.0.0.1:${s.port}/mcp`,
    secrets: () =>
      existsSync(file)
        ? readFileSync(file, 'utf8')
            .split('\n')
            .filter((l) => l.length >= 8)
        : [],
  };
}

/** Every file under dir, as text. */
function filesOf(dir: string): Record<string, string> {
  const out: Record<string, string> = {};
  for (const f of readdirSync(dir, { recursive: true }) as string[]) {
    const p = join(dir, f);
    try {
      out[f] = readFileSync(p, 'utf8');
    } catch {
      /* a directory */
    }
  }
  return out;
}

/** Where any of the secrets (or a JWT at all) shows in the texts: [] when nowhere. */
function leaks(texts: Record<string, string>, secrets: string[]): string[] {
  const found: string[] = [];
  for (const [name, text] of Object.entries(texts)) {
    for (const s of secrets) if (text.includes(s)) found.push(`${name}: ${s.slice(0, 12)}…`);
    const jwt = /eyJ[\w-]{8,}\.eyJ[\w-]{8,}/.exec(text);
    if (jwt) found.push(`${name}: a JWT ${jwt[0].slice(0, 16)}…`);
  }
  return found;
}

const exchangesOf = (r: Report) => (r.http?.exchanges ?? []) as HttpExchange[];

describe('--oauth against oidc-provider + the TypeScript SDK server', () => {
  it('gets in unattended, every protocol suite runs behind the token, and nothing secret reaches any output', async () => {
    const p = await peer('auto');
    const out = mkdtempSync(join(tmpdir(), 'mcp-conform-oauth-'));
    const cassette = join(out, 'session.jsonl');
    const r = await cli(
      [
        'run',
        '--http',
        p.url,
        '--oauth',
        '--out-dir',
        out,
        '--reporter',
        'json',
        '--reporter',
        'junit',
        '--reporter',
        'html',
        '--reporter',
        'console',
        '--record',
        cassette,
        '--verbose',
      ],
      { timeoutMs: 120_000 },
    );
    const report = JSON.parse(readFileSync(join(out, 'report.json'), 'utf8')) as Report;
    expect(report.aborted).toBeUndefined();
    const a = report.authorization!;
    expect(a.source).toBe('oauth');
    expect(a.failure).toBeUndefined();
    expect(a.discovered).toMatchObject({
      registration: 'dynamic',
      grant: 'authorization_code',
      tokenEndpointAuthMethod: 'none',
      interactive: false,
      scope: 'mcp:tools',
    });
    expect(a.discovered!.resourceMetadataUrl).toMatch(/\/\.well-known\/oauth-protected-resource\/mcp$/);
    expect(a.exchanges.map((x) => x.purpose)).toEqual(
      expect.arrayContaining([
        'unauthenticated request to the MCP URL',
        'protected-resource metadata (from the challenge)',
        'authorization-server metadata (RFC 8414)',
        'dynamic client registration (RFC 7591)',
        'token request (authorization code)',
      ]),
    );
    // The protocol suites ran: the handshake, the tool list and a call went through behind the token.
    const all = report.suites.flatMap((s) => s.cases);
    const verdict = (id: string) => all.find((c) => c.id === id)?.verdict;
    expect(verdict('lifecycle/initialize')).toBe('pass');
    expect(verdict('listing/tools-list')).toBe('pass');
    expect(all.filter((c) => c.id.startsWith('calling/') && c.verdict === 'pass').length).toBeGreaterThan(0);
    expect(all.filter((c) => /requires authorization/.test(c.message))).toEqual([]);
    // Every request of the session carried the token (redacted in the report).
    const mcp = exchangesOf(report).filter(
      (x) => x.purpose === 'message' || x.purpose === 'get-stream' || x.purpose === 'delete',
    );
    expect(mcp.length).toBeGreaterThan(5);
    for (const x of mcp) expect(x.requestHeaders.Authorization).toBe('[redacted]');
    expect(r.stdout).toMatch(
      /--oauth: got a token from http:\/\/127\.0\.0\.1:\d+ \(dynamic client, authorization_code/,
    );
    // Redaction: the codes, refresh tokens and access tokens the server issued appear nowhere.
    const secrets = p.secrets();
    expect(secrets.length).toBeGreaterThanOrEqual(3);
    const texts = { ...filesOf(out), stdout: r.stdout, stderr: r.stderr };
    expect(Object.keys(texts)).toEqual(
      expect.arrayContaining(['report.json', 'report.html', 'junit.xml', 'session.jsonl']),
    );
    expect(leaks(texts, secrets)).toEqual([]);
  }, 180_000);

  it('renews a token that expires mid-run with the refresh_token grant', async () => {
    const p = await peer('short');
    const r = await runArgs(['--http', p.url, '--oauth'], { timeoutMs: 120_000 });
    expect(r.report.authorization?.failure).toBeUndefined();
    // The peer's tool `pause` takes 1.5 s: the run outlives the first token whatever the machine's speed.
    expect(r.report.suites.flatMap((x) => x.cases).find((c) => c.id === 'calling/tool/pause')?.verdict).toBe('pass');
    const refreshes = r.report.authorization!.exchanges.filter((x) => x.purpose === 'token request (refresh_token)');
    expect(refreshes.length).toBeGreaterThan(0);
    expect(refreshes.every((x) => x.status === 200)).toBe(true);
    expect(r.c('lifecycle/initialize').verdict).toBe('pass');
    // No request of the session stayed refused for an expired token.
    expect(exchangesOf(r.report).filter((x) => x.status === 401 && !x.authRetry)).toEqual([]);
    expect(leaks({ 'report.json': readFileSync(join(r.outDir, 'report.json'), 'utf8') }, p.secrets())).toEqual([]);
  }, 180_000);

  it('steps up once on 403 insufficient_scope: the tool call is sent again with the wider token', async () => {
    const p = await peer('scoped');
    const r = await runArgs(['--http', p.url, '--oauth', '--suite', 'lifecycle,calling'], { timeoutMs: 120_000 });
    expect(r.report.authorization?.failure).toBeUndefined();
    // First the scope the 401 named, then (stepped up) that and the one the 403 named.
    const asked = r.report
      .authorization!.exchanges.filter((x) => x.purpose === 'authorization: step 1')
      .map((x) => new URL(x.url).searchParams.get('scope'));
    expect(asked).toEqual(['mcp:read', 'mcp:read mcp:tools']);
    expect(r.report.authorization!.discovered!.scope).toBe('mcp:read mcp:tools');
    const stepped = exchangesOf(r.report).filter((x) => x.authRetry?.firstStatus === 403);
    expect(stepped.length).toBeGreaterThan(0);
    expect(
      r.report.authorization!.exchanges.filter((x) => x.purpose === 'token request (authorization code)').length,
    ).toBe(2);
    const calls = r.report.suites.flatMap((s) => s.cases).filter((c) => c.id.startsWith('calling/tool/add'));
    expect(calls.length).toBeGreaterThan(0);
    expect(calls.every((c) => c.verdict !== 'fail')).toBe(true);
  }, 180_000);

  it('--oauth-grant client_credentials: a pre-registered client (secret from $MCP_CONFORM_CLIENT_SECRET), client_secret_basic', async () => {
    const p = await peer('auto');
    const secret = 'ci-secret-0f9d2c7e41';
    const out = mkdtempSync(join(tmpdir(), 'mcp-conform-cc-'));
    const r = await cli(
      [
        'run',
        '--http',
        p.url,
        '--oauth',
        '--oauth-grant',
        'client_credentials',
        '--client-id',
        'mcp-conform-ci',
        '--suite',
        'lifecycle,listing',
        '--out-dir',
        out,
        '--reporter',
        'json',
        '--reporter',
        'junit',
        '--reporter',
        'console',
      ],
      { timeoutMs: 120_000, env: { MCP_CONFORM_CLIENT_SECRET: secret } },
    );
    const report = JSON.parse(readFileSync(join(out, 'report.json'), 'utf8')) as Report;
    expect(report.authorization?.failure).toBeUndefined();
    expect(report.authorization!.discovered).toMatchObject({
      registration: 'pre-registered',
      grant: 'client_credentials',
      tokenEndpointAuthMethod: 'client_secret_basic',
    });
    expect(report.suites.flatMap((s) => s.cases).find((c) => c.id === 'listing/tools-list')?.verdict).toBe('pass');
    expect(r.code).toBe(0);
    expect(leaks({ ...filesOf(out), stdout: r.stdout, stderr: r.stderr }, [secret, ...p.secrets()])).toEqual([]);
  }, 180_000);

  it('a login nobody completes: the URL is printed on stderr, the wait ends at --oauth-timeout, exit 1', async () => {
    const p = await peer('login');
    const r = await runArgs(['--http', p.url, '--oauth', '--oauth-timeout', '1500', '--suite', 'lifecycle'], {
      timeoutMs: 60_000,
    });
    expect(r.stderr).toMatch(
      /Open this URL in a browser \(waiting up to 2 s\):\n {2}http:\/\/127\.0\.0\.1:\d+\/auth\?response_type=code&/,
    );
    expect(r.report.authorization!.failure).toMatch(
      /no redirect came to the loopback listener within 1500 ms \(--oauth-timeout\): nobody completed the login/,
    );
    expect(r.report.aborted).toMatch(/^the server requires authorization: HTTP 401/);
    expect(r.code).toBe(1);
  }, 120_000);

  it('without credentials: the run says the server requires authorization and how to get in; nothing is blamed on the server', async () => {
    const p = await peer('auto');
    const out = mkdtempSync(join(tmpdir(), 'mcp-conform-noauth-'));
    const r = await cli(['run', '--http', p.url, '--out-dir', out, '--reporter', 'json', '--reporter', 'console'], {
      timeoutMs: 60_000,
    });
    const report = JSON.parse(readFileSync(join(out, 'report.json'), 'utf8')) as Report;
    expect(report.aborted).toMatch(
      /^the server requires authorization: HTTP 401 to POST \(WWW-Authenticate: Bearer .*resource_metadata=.*\); get in with --oauth .*--header "Authorization: Bearer <token>"/,
    );
    const all = report.suites.flatMap((s) => s.cases);
    expect(all.find((c) => c.id === 'listing/tools-list')).toMatchObject({
      verdict: 'skip',
      message: expect.stringMatching(/^the server requires authorization: /),
    });
    expect(all.find((c) => c.id === 'lifecycle/initialize')?.verdict).toBe('skip');
    // The 401's OAuth error body is no JSON-RPC message: the schema suite has nothing to fail.
    expect(all.filter((c) => c.verdict === 'fail')).toEqual([]);
    expect(r.stdout).toMatch(/The server asks for authorization the run does not have: HTTP 401 to POST/);
    expect(r.stdout).toMatch(/Try: get in with --oauth/);
    expect(report.startFailure?.kind).toBe('auth-required');
    expect(r.code).toBe(1);
  }, 120_000);
});
