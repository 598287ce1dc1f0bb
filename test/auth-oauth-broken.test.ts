/**
 * --oauth meets broken authorization (fixtures/servers/auth/broken_oauth.py, one defect per mode): each ends within
 * its bound with a clear message in report.authorization.failure and on the console, exit 1, and nothing secret (the
 * fixture's authorization code and token) printed or written. Also: the 2025-03-26 way, client_secret_post after
 * Basic is refused, and the WWW-Authenticate parser.
 */
import { mkdtempSync, readFileSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterAll, describe, expect, it } from 'vitest';
import { cli, runArgs } from './helpers/cli.js';
import { startServer, type Started } from './http-helpers.js';
import { parseChallenges, bearerChallenge } from '../core/auth/challenge.js';
import { canonicalUri, sameResource, wellKnown } from '../core/auth/discovery.js';

const FIXTURE = 'fixtures/servers/auth/broken_oauth.py';
const SECRETS = ['c0de-9b1f5e7a3d2c-secret', 'tok-broken-4e8a2f61c9d7-secret', 'post-only-secret-77c1'];
const started: Started[] = [];
afterAll(async () => {
  for (const s of started) await s.stop();
});

async function fixture(mode: string): Promise<string> {
  const s = await startServer(['python3', FIXTURE, mode]);
  started.push(s);
  return `http://127.0.0.1:${s.port}/mcp`;
}

async function oauthRun(mode: string, extra: string[] = []) {
  const url = await fixture(mode);
  const r = await runArgs(['--http', url, '--oauth', '--oauth-timeout', '1500', '--suite', 'lifecycle', ...extra], {
    timeoutMs: 60_000,
  });
  const written = readFileSync(join(r.outDir, 'report.json'), 'utf8');
  for (const s of SECRETS) {
    expect(written).not.toContain(s);
    expect(r.stdout + r.stderr).not.toContain(s);
  }
  return r;
}

describe('--oauth against broken authorization', () => {
  const cases: [string, RegExp][] = [
    [
      'as-unreachable',
      /no authorization-server metadata for http:\/\/127\.0\.0\.1:1: .*connection refused at 127\.0\.0\.1:1/,
    ],
    [
      'prm-not-json',
      /no usable protected-resource metadata: .*oauth-protected-resource\/mcp: HTTP 200 but the body is not a JSON object \(text\/html\)/,
    ],
    [
      'resource-mismatch',
      /names resource "http:\/\/127\.0\.0\.1:\d+", not the MCP URL http:\/\/127\.0\.0\.1:\d+\/mcp: a client must not use metadata for another resource \(RFC 9728 §3\.3\)/,
    ],
    [
      'issuer-mismatch',
      /names issuer "http:\/\/127\.0\.0\.1:9\/elsewhere", not http:\/\/127\.0\.0\.1:\d+ .*\(RFC 8414 §3\.3\)/,
    ],
    ['no-s256', /does not list S256 in code_challenge_methods_supported \(\["plain"\]\): a client must refuse it/],
    [
      'token-500',
      /the token endpoint http:\/\/127\.0\.0\.1:\d+\/token did not give a token: HTTP 500, text\/plain, not JSON/,
    ],
    ['token-html', /did not give a token: HTTP 200, text\/html, not JSON/],
    ['wrong-state', /carried a state other than the one sent: refused/],
    [
      'iss-mismatch',
      /the authorization response names issuer "http:\/\/127\.0\.0\.1:9\/elsewhere", not http:\/\/127\.0\.0\.1:\d+: refused \(RFC 9207/,
    ],
    [
      'login',
      /no redirect came to the loopback listener within 1500 ms \(--oauth-timeout\): nobody completed the login/,
    ],
  ];
  for (const [mode, message] of cases) {
    it(`${mode}: a clear message, exit 1, nothing secret`, async () => {
      const r = await oauthRun(mode);
      expect(r.report.authorization?.failure).toMatch(message);
      expect(r.report.aborted).toMatch(
        /^the server requires authorization: HTTP 401 to POST .*--oauth could not get in: /,
      );
      expect(r.code).toBe(1);
    }, 90_000);
  }

  it('the fixture itself is fine when nothing is broken: dynamic registration, the token is used', async () => {
    const r = await oauthRun('ok');
    expect(r.report.authorization?.failure).toBeUndefined();
    expect(r.report.authorization!.discovered).toMatchObject({
      registration: 'dynamic',
      grant: 'authorization_code',
      scope: 'mcp',
    });
    expect(r.report.aborted ?? '').not.toMatch(/requires authorization/);
  }, 90_000);

  it("--protocol-version 2025-03-26: authorization-server metadata at the MCP URL's origin, no protected-resource metadata asked", async () => {
    const r = await oauthRun('ok', ['--protocol-version', '2025-03-26']);
    expect(r.report.authorization?.failure).toBeUndefined();
    expect(r.report.authorization!.discovered!.legacy).toBe(true);
    expect(r.report.authorization!.exchanges.some((x) => /oauth-protected-resource/.test(x.url))).toBe(false);
  }, 90_000);

  it('Client ID Metadata Document: where the server supports them and --client-metadata-url is given, that URL is the client_id', async () => {
    const r = await oauthRun('cimd', ['--client-metadata-url', 'https://mcp-conform.test/client.json']);
    expect(r.report.authorization?.failure).toBeUndefined();
    expect(r.report.authorization!.discovered).toMatchObject({
      registration: 'client-id-metadata-document',
      tokenEndpointAuthMethod: 'none',
    });
    // Without the URL there is no way to register: said so, with what to give.
    const without = await oauthRun('cimd');
    expect(without.report.authorization!.failure).toMatch(
      /offers no way for mcp-conform to register: no registration_endpoint \(it supports Client ID Metadata Documents: give --client-metadata-url\)/,
    );
  }, 90_000);

  it('a pre-registered client whose token endpoint refuses Basic: client_secret_post once more', async () => {
    const r = await oauthRun('post-only', [
      '--oauth-grant',
      'client_credentials',
      '--client-id',
      'pre-client',
      '--client-secret',
      'post-only-secret-77c1',
    ]);
    expect(r.report.authorization?.failure).toBeUndefined();
    expect(r.report.authorization!.discovered).toMatchObject({
      registration: 'pre-registered',
      tokenEndpointAuthMethod: 'client_secret_post',
    });
    expect(
      r.report.authorization!.exchanges.filter((x) => x.purpose.startsWith('token request')).map((x) => x.status),
    ).toEqual([401, 200]);
  }, 90_000);

  it('config keys: a target with oauth, oauthTimeout (and clientId) runs as the flags do', async () => {
    const url = await fixture('login');
    const dir = mkdtempSync(join(tmpdir(), 'mcp-conform-oauth-config-'));
    writeFileSync(
      join(dir, 'mcp-conform.config.json'),
      JSON.stringify({
        targets: [{ http: url, oauth: true, oauthTimeout: 1200, oauthScope: 'mcp', suites: ['lifecycle'] }],
      }),
    );
    const r = await cli(['run', '--out-dir', join(dir, 'out'), '--reporter', 'json', '--quiet'], {
      cwd: dir,
      timeoutMs: 60_000,
    });
    const report = JSON.parse(readFileSync(join(dir, 'out', 'report.json'), 'utf8'));
    expect(report.authorization.failure).toMatch(/within 1200 ms \(--oauth-timeout\)/);
    expect(r.code).toBe(1);
    writeFileSync(join(dir, 'mcp-conform.config.json'), JSON.stringify({ targets: [{ http: url, clientId: 'x' }] }));
    const bad = await cli(['run', '--quiet'], { cwd: dir, timeoutMs: 30_000 });
    expect(bad.stderr).toMatch(/--client-id goes with --oauth/);
    expect(bad.code).toBe(2);
  }, 90_000);

  it('`tools --http URL --oauth` gets in too (the command that prints the tool list)', async () => {
    const url = await fixture('ok');
    const r = await cli(['tools', '--http', url, '--oauth', '--format', 'openai'], { timeoutMs: 60_000 });
    // The fixture serves nothing behind the token: the tool list fails after getting in, not with a 401.
    expect(r.stderr).toMatch(/could not get the tool list/);
    expect(r.stderr).not.toMatch(/requires authorization/);
    for (const secret of SECRETS) expect(r.stdout + r.stderr).not.toContain(secret);
  }, 90_000);

  it("--url without credentials: the detection's 401 says the server requires authorization; no case fails for it", async () => {
    const url = await fixture('ok');
    const r = await runArgs(['--url', url, '--suite', 'lifecycle,http,schema'], { timeoutMs: 60_000 });
    expect(r.report.aborted).toMatch(
      /^the server requires authorization: HTTP 401 to POST \(WWW-Authenticate: Bearer resource_metadata=.*\); get in with --oauth/,
    );
    expect(r.report.suites.flatMap((x) => x.cases).filter((c) => c.verdict === 'fail')).toEqual([]);
    expect(r.code).toBe(1);
  }, 90_000);

  it('usage errors exit 2', async () => {
    const url = 'http://127.0.0.1:9/mcp';
    for (const [args, msg] of [
      [
        ['--oauth', '--oauth-grant', 'client_credentials'],
        /--oauth-grant client_credentials needs --client-id and --client-secret/,
      ],
      [['--client-id', 'x'], /--client-id goes with --oauth/],
      [['--oauth', '--header', 'Authorization: Bearer abcdefgh'], /--oauth gets the token itself/],
      [['--oauth', '--client-metadata-url', 'http://x/'], /--client-metadata-url must be an https URL with a path/],
    ] as [string[], RegExp][]) {
      const r = await runArgs(['--http', url, ...args]).catch((e: Error) => e);
      expect(String((r as Error).message ?? '')).toMatch(msg);
      expect(String((r as Error).message ?? '')).toMatch(/exit 2/);
    }
  });
});

describe('the resource indicator and well-known URLs', () => {
  it('the MCP URL in canonical form: lowercase host, no fragment, no slash after a bare origin (the Entra-style exact compare)', () => {
    expect(canonicalUri('https://MCP.Example.TEST')).toBe('https://mcp.example.test');
    expect(canonicalUri('https://mcp.example.test/')).toBe('https://mcp.example.test');
    expect(canonicalUri('https://mcp.example.test:443/mcp#x')).toBe('https://mcp.example.test/mcp');
    expect(canonicalUri('https://mcp.example.test/mcp/')).toBe('https://mcp.example.test/mcp/');
  });
  it('one rule says whether two resource identifiers are the same (server checks, client grading and the protected mock use it)', () => {
    expect(sameResource('https://MCP.example.test/mcp', 'https://mcp.example.test/mcp')).toBe(true);
    expect(sameResource('https://mcp.example.test:443/mcp#frag', 'https://mcp.example.test/mcp')).toBe(true);
    expect(sameResource('https://mcp.example.test/', 'https://mcp.example.test')).toBe(true);
    expect(sameResource('https://mcp.example.test/mcp/', 'https://mcp.example.test/mcp')).toBe(false);
    expect(sameResource('https://mcp.example.test/other', 'https://mcp.example.test/mcp')).toBe(false);
    expect(sameResource('http://mcp.example.test/mcp', 'https://mcp.example.test/mcp')).toBe(false);
    expect(sameResource('not a url', 'https://mcp.example.test/mcp')).toBe(false);
    expect(sameResource(undefined, 'https://mcp.example.test/mcp')).toBe(false);
  });
  it('well-known suffixes go after the host (RFC 9728 §3.1, RFC 8414 §3.1); OpenID may append', () => {
    expect(wellKnown('https://x.test/tenant/mcp', 'oauth-protected-resource').href).toBe(
      'https://x.test/.well-known/oauth-protected-resource/tenant/mcp',
    );
    expect(wellKnown('https://x.test', 'oauth-authorization-server').href).toBe(
      'https://x.test/.well-known/oauth-authorization-server',
    );
    expect(wellKnown('https://x.test/t1', 'openid-configuration', 'append').href).toBe(
      'https://x.test/t1/.well-known/openid-configuration',
    );
    expect(wellKnown('https://x.test/t1', 'oauth-protected-resource', 'root').href).toBe(
      'https://x.test/.well-known/oauth-protected-resource',
    );
  });
});

describe('WWW-Authenticate', () => {
  it('reads several challenges, quoted strings with commas and escapes, and token68', () => {
    const h =
      'Basic realm="a, b", Bearer resource_metadata="https://x.test/.well-known/oauth-protected-resource/mcp", scope="mcp:read mcp:tools", error="invalid_token", error_description="say \\"no\\"", Negotiate abc123==';
    const cs = parseChallenges(h);
    expect(cs.map((c) => c.scheme)).toEqual(['Basic', 'Bearer', 'Negotiate']);
    expect(cs[0]!.params).toEqual({ realm: 'a, b' });
    expect(cs[1]!.params).toEqual({
      resource_metadata: 'https://x.test/.well-known/oauth-protected-resource/mcp',
      scope: 'mcp:read mcp:tools',
      error: 'invalid_token',
      error_description: 'say "no"',
    });
    expect(cs[2]!.token68).toBe('abc123==');
    expect(bearerChallenge('bearer Scope=x')?.params).toEqual({ scope: 'x' });
    expect(bearerChallenge('Bearer')).toEqual({ scheme: 'Bearer', params: {} });
    expect(bearerChallenge('Basic realm=x')).toBeUndefined();
    expect(parseChallenges('')).toEqual([]);
    expect(parseChallenges(',,, =junk')).toEqual([{ scheme: 'junk', params: {} }]);
  });
});
