/**
 * The auth suite against protected servers: the conformant fixture passes every case (with --auth-server, which
 * also mints the tokens the negative cases need), each deliberately broken fixture (fixtures/servers/auth/authkit.py,
 * one bug class each) fails — or warns, for a SHOULD — the case about it, and the real TS SDK server behind
 * requireBearerAuth is graded as docs/real-servers.md says. Runs without credentials keep to what needs none.
 */
import { describe, expect, it } from 'vitest';
import { join } from 'node:path';
import { readFileSync } from 'node:fs';
import { FIXTURES, freePort, runArgs } from '../http-helpers.js';
import { startAuthServer } from '../../mocks/auth/index.js';

const AUTHKIT = join(FIXTURES, 'auth', 'authkit.py');

/**
 * --shutdown-grace for the started fixture: a stdlib HTTP server that does not read its stdin and ends at once on
 * SIGTERM, so the default 2 s after its stdin is closed would be waited out for nothing at the end of every run.
 */
const GRACE = ['--shutdown-grace', '300'];

/** `run --start "python3 authkit.py BUG PORT" --http …/mcp --suite auth` (+ extra flags). */
async function authkit(bug: string, extra: string[] = []) {
  const port = await freePort();
  return runArgs(
    [
      '--start',
      `python3 ${AUTHKIT} ${bug} ${port}`,
      '--http',
      `http://127.0.0.1:${port}/mcp`,
      '--suite',
      'auth',
      ...GRACE,
      ...extra,
    ],
    { timeoutMs: 90_000 },
  );
}

describe('auth suite: scopes per operation', () => {
  it('a server that needs a scope only for tools/call and answers 403 insufficient_scope there passes auth/token/under-scoped, saying so per operation', async () => {
    const r = await authkit('scope-per-op', ['--auth-server']);
    const c = r.c('auth/token/under-scoped');
    expect(c.verdict, c.message).toBe('pass');
    expect(c.message).toMatch(
      /accepted for the handshake.*per operation — pass: tools\/call (add|echo): HTTP 403 \(WWW-Authenticate: Bearer [^)]*insufficient_scope/,
    );
    expect(c.message).toMatch(/; pass: resources\/read note:\/\/one: HTTP 403/);
    // The evidence holds the operation's own exchange.
    expect(JSON.stringify(c.details)).toMatch(/tools\/call (add|echo) with the under-scoped token/);
  }, 120_000);
});

describe('auth suite: the conformant fixture', () => {
  it('passes every case with --auth-server, in every version that has authorization; nothing secret reaches the report', async () => {
    for (const v of ['2025-11-25', '2026-07-28']) {
      const r = await authkit('good', ['--auth-server', '--protocol-version', v]);
      const notPass = Object.entries(r.verdicts('auth/')).filter(([, x]) => x !== 'pass' && x !== 'skip');
      expect([v, notPass]).toEqual([v, []]);
      // Skips only where the version has no such thing (no sessions in 2026-07-28; the 2026 advice before it).
      for (const c of r.report.suites.flatMap((s) => s.cases).filter((c) => c.verdict === 'skip'))
        expect(c.message).toMatch(/^does not apply: /);
      expect(r.c('auth/token/expired').message).toMatch(/HTTP 401/);
      expect(r.c('auth/token/under-scoped').message).toMatch(/HTTP 403/);
      const text = readFileSync(join(r.outDir, 'report.json'), 'utf8');
      expect(text).not.toMatch(/eyJ[A-Za-z0-9_-]{10,}\.[A-Za-z0-9_-]{10,}/); // no JWT anywhere
      expect(text).toContain('access_token=[redacted]');
      expect(r.code).toBe(0);
    }
  }, 120_000);

  it('without credentials: the unauthenticated checks run, the token checks say what they need', async () => {
    const r = await authkit('good');
    expect(r.c('auth/unauthenticated/request').verdict).toBe('pass');
    expect(r.c('auth/resource-metadata/resource').verdict).toBe('pass');
    expect(r.c('auth/token/accepted')).toMatchObject({
      verdict: 'skip',
      message: expect.stringMatching(/--auth-server.*--oauth.*--header/),
    });
    expect(r.c('auth/token/expired')).toMatchObject({
      verdict: 'skip',
      message: expect.stringMatching(/--auth-server/),
    });
    // The run's own handshake got 401: the suite is in a default run then (no --suite), and says how to get in.
    const port = await freePort();
    const d = await runArgs(
      [
        '--start',
        `python3 ${AUTHKIT} good ${port}`,
        '--http',
        `http://127.0.0.1:${port}/mcp`,
        '--case',
        'auth/unauthenticated/',
        '--case',
        'lifecycle/initialize',
        ...GRACE,
      ],
      { timeoutMs: 60_000 },
    );
    expect(d.report.suites.map((x) => x.id)).toContain('auth');
    expect(d.c('auth/unauthenticated/request').verdict).toBe('pass');
  }, 90_000);
});

describe('auth suite: the conformant fixture with a token from elsewhere', () => {
  // The fixture trusts an authorization server this test runs (the harness's own, mocks/auth): --header carries a token
  // it minted, --oauth gets one through its metadata, registration and authorize endpoint as a client would.
  it('--header "Authorization: Bearer …" and --oauth: every case that needs no minted token passes, the others say they need --auth-server', async () => {
    const as = await startAuthServer();
    try {
      for (const how of ['header', 'oauth'] as const) {
        const port = await freePort();
        const url = `http://127.0.0.1:${port}/mcp`;
        const token = as.mint('valid', { resource: url, scope: 'mcp:tools' });
        const r = await runArgs(
          [
            '--start',
            `env MCP_CONFORM_AUTH_ISSUER=${as.issuer} python3 ${AUTHKIT} good ${port}`,
            '--http',
            url,
            '--suite',
            'auth',
            '--protocol-version',
            '2025-11-25',
            ...(how === 'header' ? ['--header', `Authorization: Bearer ${token}`] : ['--oauth']),
            ...GRACE,
          ],
          { timeoutMs: 90_000 },
        );
        const v = r.verdicts('auth/');
        expect([how, Object.entries(v).filter(([, x]) => x !== 'pass' && x !== 'skip')]).toEqual([how, []]);
        for (const id of [
          'auth/token/accepted',
          'auth/token/query-string',
          'auth/token/every-request',
          'auth/unauthenticated/delete',
        ])
          expect([how, id, v[id]]).toEqual([how, id, 'pass']);
        for (const id of ['auth/token/expired', 'auth/token/wrong-audience', 'auth/token/under-scoped'])
          expect(r.c(id).message).toMatch(/needs tokens the harness makes itself/);
        expect((r.report as unknown as { authorization: { source: string } }).authorization.source).toBe(how);
        expect(readFileSync(join(r.outDir, 'report.json'), 'utf8')).not.toContain(token);
      }
    } finally {
      await as.close();
    }
  }, 200_000);
});

describe('auth suite: one broken fixture per bug class', () => {
  // Each fixture with the flags it runs with, and every non-pass verdict its run must give (exactly these: the bug
  // and what follows from it), with what the message about the bug must say. All run with --auth-server.
  const TOKEN_401_WITHOUT_CODE = [
    'malformed',
    'unknown',
    'expired',
    'wrong-audience',
    'wrong-issuer',
    'bad-signature',
  ].map((v) => [`auth/token/${v}`, 'warn'] as const);
  const table: [bug: string, extra: string[], expected: Record<string, string>, about: Record<string, RegExp>][] = [
    [
      'prm-appended',
      [],
      { 'auth/challenge/resource-metadata': 'fail' },
      { 'auth/challenge/resource-metadata': /appended after the path/ },
    ],
    [
      'resource-origin',
      [],
      { 'auth/resource-metadata/resource': 'fail' },
      { 'auth/resource-metadata/resource': /the origin alone/ },
    ],
    [
      'resource-slash',
      [],
      { 'auth/resource-metadata/resource': 'fail', 'auth/resource-metadata/canonical': 'warn' },
      { 'auth/resource-metadata/resource': /trailing slash/, 'auth/resource-metadata/canonical': /ends with a slash/ },
    ],
    [
      'prm-root-only',
      [],
      { 'auth/challenge/resource-metadata': 'fail', 'auth/resource-metadata/well-known': 'warn' },
      { 'auth/challenge/resource-metadata': /HTTP 404/, 'auth/resource-metadata/well-known': /only at the root/ },
    ],
    [
      'prm-path-only',
      [],
      { 'auth/challenge/resource-metadata': 'fail' },
      { 'auth/challenge/resource-metadata': /oauth-protected-resource does not serve the metadata \(HTTP 404\)/ },
    ],
    [
      'prm-behind-auth',
      [],
      {
        'auth/resource-metadata/served': 'fail',
        'auth/challenge/resource-metadata': 'fail',
        'auth/resource-metadata/well-known': 'fail',
      },
      { 'auth/resource-metadata/served': /behind the authorization it describes/ },
    ],
    [
      'no-www-authenticate',
      [],
      {
        'auth/challenge/bearer': 'fail',
        'auth/challenge/resource-metadata': 'warn',
        'auth/token/under-scoped': 'warn',
        ...Object.fromEntries(TOKEN_401_WITHOUT_CODE),
      },
      { 'auth/challenge/bearer': /no WWW-Authenticate/ },
    ],
    [
      'no-resource-metadata',
      ['--protocol-version', '2025-06-18'],
      { 'auth/challenge/resource-metadata': 'fail', 'auth/token/under-scoped': 'warn' },
      {
        'auth/challenge/resource-metadata': /no resource_metadata/,
        'auth/token/under-scoped': /lacks resource_metadata/,
      },
    ],
    [
      'no-resource-metadata',
      [],
      { 'auth/challenge/resource-metadata': 'warn', 'auth/token/under-scoped': 'warn' },
      { 'auth/challenge/resource-metadata': /clients that only follow the challenge/ },
    ],
    [
      'no-cors',
      [],
      { 'auth/cors/metadata': 'info', 'auth/cors/expose-www-authenticate': 'info' },
      {
        'auth/cors/metadata': /no Access-Control-Allow-Origin/,
        'auth/cors/expose-www-authenticate': /Access-Control-Expose-Headers/,
      },
    ],
    ['no-audience-check', [], { 'auth/token/wrong-audience': 'fail' }, { 'auth/token/wrong-audience': /was accepted/ }],
    [
      'expired-400',
      [],
      { 'auth/token/expired': 'fail', 'auth/token/expired-under-scoped': 'fail' },
      { 'auth/token/expired': /HTTP 400/ },
    ],
    [
      'expired-403',
      [],
      { 'auth/token/expired': 'fail', 'auth/token/expired-under-scoped': 'fail' },
      { 'auth/token/expired': /HTTP 403/, 'auth/token/expired-under-scoped': /scope was judged before the expiry/ },
    ],
    [
      'expired-200',
      [],
      { 'auth/token/expired': 'fail', 'auth/token/expired-under-scoped': 'fail' },
      { 'auth/token/expired': /was accepted/ },
    ],
    [
      'as-no-s256',
      ['--protocol-version', '2026-07-28'],
      { 'auth/as-metadata/s256': 'fail', 'auth/as-metadata/iss-parameter': 'warn' },
      { 'auth/as-metadata/s256': /code_challenge_methods_supported is missing: compliant clients refuse/ },
    ],
    ['as-no-s256', ['--protocol-version', '2025-06-18'], { 'auth/as-metadata/s256': 'warn' }, {}],
    // The handshake and listings take any valid token; tools/call needs the scope: judged per operation.
    [
      'scope-ops-401',
      [],
      { 'auth/token/under-scoped': 'warn' },
      {
        'auth/token/under-scoped':
          /accepted for the handshake.*warn: tools\/call (add|echo): HTTP 401 .*403 insufficient_scope naming the scope needed.*warn: resources\/read note:\/\/one: HTTP 401/,
      },
    ],
    [
      'scope-ops-401',
      ['--protocol-version', '2026-07-28'],
      { 'auth/token/under-scoped': 'warn' },
      { 'auth/token/under-scoped': /warn: tools\/call (add|echo): HTTP 401/ },
    ],
  ];
  for (const [bug, extra, expected, about] of table) {
    it.concurrent(`${bug}${extra.length ? ` (${extra.join(' ')})` : ''}: ${Object.entries(expected)
      .map(([k, v]) => `${k} ${v}`)
      .join(', ')}`, async () => {
      const r = await authkit(bug, ['--auth-server', ...extra]);
      // Skips other than "does not apply" count too: a case that could not run is part of what the bug did.
      const all = r.report.suites.flatMap((x) => x.cases).filter((c) => c.id.startsWith('auth/'));
      const nonPass = Object.fromEntries(
        all
          .filter(
            (c) =>
              c.verdict !== 'pass' &&
              !(c.verdict === 'skip' && (/^does not apply: /.test(c.message) || /\(auth\/[a-z/-]+\)$/.test(c.message))),
          )
          .map((c) => [c.id, c.verdict]),
      );
      expect(nonPass).toEqual(expected);
      for (const [id, re] of Object.entries(about)) expect(r.c(id).message).toMatch(re);
      expect(r.c('auth/token/accepted').verdict).toBe('pass');
    }, 120_000);
  }
});
