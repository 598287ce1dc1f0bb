/**
 * `mcp-conform client --suite client-auth`: a correct standard-library OAuth client (fixtures/clients/auth/authkit.py)
 * passes every scenario; each deliberately broken one fails the case about its defect (where the correct one passes
 * it); a client that loops on 401s or floods the token endpoint is bounded by --timeout, reported, its group ended,
 * exit 1; no secret reaches a report or the console; the TypeScript SDK's client (a real one, driven headlessly by
 * fixtures/clients/sdk-auth-client.mjs) gets exactly the verdicts the ledger (docs/real-servers.md, Clients) explains.
 * Needs the build.
 */
import { readFileSync, mkdtempSync, existsSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { describe, expect, it } from 'vitest';
import { AUTH_SCENARIOS } from '../mocks/auth/scenarios.js';
import { cli, ROOT } from './helpers/cli.js';
import { client, nonPass } from './helpers/client-run.js';
import { remaining } from './helpers/proc.js';

const KIT = join(ROOT, 'fixtures/clients/auth');
const py = (defect: string, kind = 'http') =>
  `python3 ${join(KIT, defect === 'none' ? 'authkit.py none' : `${defect}.py`)} ${kind} {url}`;
const SDK = (kind: string) => `node ${join(ROOT, 'fixtures/clients/sdk-auth-client.mjs')} ${kind} {url}`;
const ALL = AUTH_SCENARIOS.map((s) => s.name);

describe('a correct OAuth client passes', () => {
  it('every client-auth scenario over Streamable HTTP, no warn or fail, and no secret in the report', async () => {
    const r = await client(['--suite', 'client-auth', '--http', py('none'), '--timeout', '20000'], 300_000);
    expect(r.reports.map((x) => x.target.name)).toEqual(ALL.map((s) => `scenario ${s}`));
    expect(nonPass(r)).toEqual([]);
    expect(r.code).toBe(0);
    // Each case passes somewhere: none is only ever skipped.
    const passed = new Set(
      r.reports
        .flatMap((x) => x.suites.flatMap((s) => s.cases))
        .filter((c) => c.verdict === 'pass')
        .map((c) => c.id),
    );
    const ids = r.reports[0]!.suites.flatMap((s) => s.cases).map((c) => c.id);
    expect(ids.filter((id) => !passed.has(id))).toEqual([]);
    expect(r.verdict('auth-prm-custom', 'client-auth/resource-metadata-discovery').message).toMatch(
      /the URL the challenge named/,
    );
    expect(r.verdict('auth-2025-03-26-defaults', 'client-auth/authorization-server-discovery').message).toMatch(
      /default endpoints: GET \/authorize/,
    );
    expect(r.verdict('auth-pre-registered', 'client-auth/registration').message).toMatch(
      /pre-registered client id mcp-conform-pre-registered/,
    );
    expect(r.verdict('auth-cimd', 'client-auth/registration').message).toMatch(/client_id https:\/\//);
    expect(r.verdict('auth-token-post', 'client-auth/token-endpoint-auth').message).toMatch(
      /client authentication client_secret_post/,
    );
    expect(r.verdict('auth-step-up', 'client-auth/step-up').verdict).toBe('pass');
    expect(r.verdict('auth-foreign-resource', 'client-auth/refuse-foreign-resource').verdict).toBe('pass');
    // Asked for none, registered with the one method offered (and a secret), and authenticated that way.
    expect(r.verdict('auth-token-basic', 'client-auth/registered-auth-method').message).toMatch(
      /asked to register with none, was registered with client_secret_basic.*used client_secret_basic/,
    );
    expect(r.verdict('auth-registration-refused', 'client-auth/registration-refused').message).toMatch(
      /registered again with a listed method/,
    );
    expect(r.verdict('auth-prm-root-origin', 'client-auth/resource-as-published').message).toMatch(
      /resource=http:\/\/127\.0\.0\.1:\d+, as the metadata publishes it/,
    );
    expect(r.verdict('auth-401-later', 'client-auth/reauthorize-after-401').message).toMatch(
      /after POST \/mcp \(tools\/call\) → 401 the client authorized/,
    );
    for (const c of r.reports[0]!.suites.flatMap((s) => s.cases))
      expect(c.spec).toMatch(/^https:\/\/modelcontextprotocol\.io\/specification\/2025-11-25\/basic\/authorization#/);
    // Codes, verifiers, client secrets and tokens: never written.
    const text = readFileSync(join(r.outDir, 'report.json'), 'utf8');
    expect(text).not.toMatch(
      /(code|code_verifier|client_secret|refresh_token|access_token)=(?!\[redacted)[A-Za-z0-9_-]{8,}/,
    );
    expect(text).not.toMatch(/eyJ[A-Za-z0-9_-]{10,}\.eyJ/); // no JWT
  }, 320_000);

  it('over HTTP+SSE', async () => {
    const r = await client(
      [
        '--suite',
        'client-auth',
        '--sse',
        py('none', 'sse'),
        '--scenario',
        'auth-basic,auth-prm-custom,auth-step-up,auth-2025-03-26-defaults,auth-no-s256,auth-401-later,auth-prm-root-origin,auth-state-mismatch',
        '--timeout',
        '20000',
      ],
      200_000,
    );
    expect(nonPass(r)).toEqual([]);
    expect(r.verdict('auth-basic', 'client-auth/bearer-every-request').message).toMatch(/GET/); // the stream's GET carried it too
  }, 220_000);
});

describe('each broken client fails the case about its defect', () => {
  const cases: [string, string, string][] = [
    ['no-pkce', 'auth-basic', 'client-auth/pkce-s256'],
    ['token-in-query', 'auth-basic', 'client-auth/no-token-in-query'],
    ['no-resource', 'auth-basic', 'client-auth/resource-authorization-request'],
    ['no-resource', 'auth-basic', 'client-auth/resource-token-request'],
    ['accepts-foreign-resource', 'auth-foreign-resource', 'client-auth/refuse-foreign-resource'],
    ['ignores-resource-metadata', 'auth-prm-custom', 'client-auth/resource-metadata-discovery'],
    ['no-s256-check', 'auth-no-s256', 'client-auth/refuse-no-s256'],
    ['authorizes-once', 'auth-401-later', 'client-auth/reauthorize-after-401'],
    ['rejects-origin-resource', 'auth-prm-root-origin', 'client-auth/root-metadata-origin'],
    ['own-url-resource', 'auth-prm-root-origin', 'client-auth/resource-as-published'],
    ['no-state-check', 'auth-state-mismatch', 'client-auth/state-checked'],
    ['ignores-registered-method', 'auth-token-basic', 'client-auth/registered-auth-method'],
  ];
  for (const [defect, scenario, id] of cases) {
    it(`${defect}: ${id} fails in ${scenario}`, async () => {
      const r = await client([
        '--suite',
        'client-auth',
        '--http',
        py(defect),
        '--scenario',
        scenario,
        '--timeout',
        '15000',
      ]);
      const c = r.verdict(scenario, id);
      expect(c.verdict, c.message).toBe('fail');
      expect(r.code).toBe(1);
    }, 60_000);
  }

  it('repeats-registration: a refused registration repeated unchanged is a warn, not a clean give-up', async () => {
    const r = await client([
      '--suite',
      'client-auth',
      '--http',
      py('repeats-registration'),
      '--scenario',
      'auth-registration-refused',
      '--timeout',
      '15000',
    ]);
    expect(r.verdict('auth-registration-refused', 'client-auth/registration-refused')).toMatchObject({
      verdict: 'warn',
      message: expect.stringMatching(/^10 refused registrations/),
    });
  }, 60_000);

  it('no-legacy-fallback: the 2025-03-26 fallbacks are info for a client that does not speak 2025-03-26, MUST for one that does', async () => {
    const two = ['--scenario', 'auth-2025-03-26-metadata,auth-2025-03-26-defaults', '--timeout', '15000'];
    const r = await client(['--suite', 'client-process,client-auth', '--http', py('no-legacy-fallback'), ...two]);
    expect(r.code, nonPass(r).join('\n')).toBe(0);
    const c = r.verdict('auth-2025-03-26-defaults', 'client-auth/authorized');
    expect(c).toMatchObject({
      verdict: 'info',
      message: expect.stringMatching(
        /a 2025-03-26 fallback binds a client that also talks to 2025-03-26 servers.*offered 2025-11-25/,
      ),
    });
    expect(r.verdict('auth-2025-03-26-defaults', 'client-process/exit').verdict).toBe('info');
    // Run with --protocol-version 2025-03-26, or offering it itself: a fail at MUST.
    const forced = await client([
      '--suite',
      'client-auth',
      '--http',
      py('no-legacy-fallback'),
      ...two,
      '--protocol-version',
      '2025-03-26',
    ]);
    expect(forced.verdict('auth-2025-03-26-defaults', 'client-auth/authorized')).toMatchObject({
      verdict: 'fail',
      level: 'MUST',
    });
    const offers = await client([
      '--suite',
      'client-auth',
      '--http',
      py('no-legacy-fallback'),
      ...two,
      '--env',
      'AUTHKIT_VERSION=2025-03-26',
    ]);
    expect(offers.verdict('auth-2025-03-26-metadata', 'client-auth/authorization-server-discovery').verdict).toBe(
      'fail',
    );
    expect(offers.code).toBe(1);
  }, 120_000);

  it('a client that gives up cleanly when its registration is refused is not failed', async () => {
    const r = await client([
      '--suite',
      'client-process,client-auth',
      '--http',
      py('none'),
      '--scenario',
      'auth-registration-refused',
      '--env',
      'AUTHKIT_GIVE_UP=1',
      '--timeout',
      '15000',
    ]);
    expect(r.code, nonPass(r).join('\n')).toBe(0);
    expect(r.verdict('auth-registration-refused', 'client-auth/registration-refused').message).toMatch(
      /gave up cleanly after 1 attempt/,
    );
    expect(r.verdict('auth-registration-refused', 'client-auth/authorized').verdict).toBe('skip');
    expect(r.verdict('auth-registration-refused', 'client-process/exit').verdict).toBe('info');
  }, 60_000);

  it('the evidence names what was sent, with the token redacted', async () => {
    const r = await client([
      '--suite',
      'client-auth',
      '--http',
      py('token-in-query'),
      '--scenario',
      'auth-basic',
      '--timeout',
      '15000',
    ]);
    expect(r.verdict('auth-basic', 'client-auth/no-token-in-query').message).toMatch(
      /POST \/mcp\?access_token=\[redacted\] \(initialize\)/,
    );
  }, 60_000);
});

describe('bad input: a client that loops is bounded, reported and ended', () => {
  for (const [defect, what] of [
    ['loop-401', /\d{2,} unauthorized answers \(401\)/],
    ['flood-token', /\d{2,} token requests/],
  ] as const) {
    it(`${defect}: ended at --timeout, client-auth/bounded fails with what it did, exit 1, nothing left running`, async () => {
      const r = await client([
        '--suite',
        'client-auth',
        '--http',
        py(defect),
        '--scenario',
        'auth-basic',
        '--timeout',
        '4000',
        '--shutdown-grace',
        '500',
      ]);
      expect(r.code).toBe(1);
      const rep = r.reports[0]!;
      expect(rep.aborted).toMatch(/had not finished within 4000 ms/);
      const c = r.verdict('auth-basic', 'client-auth/bounded');
      expect(c.verdict).toBe('fail');
      expect(c.message).toMatch(what);
      expect(remaining(rep.process!.pid, [rep.process!.pid!])).toEqual([]);
    }, 60_000);
  }

  it('a client that crashes is reported with its signal', async () => {
    const r = await client([
      '--suite',
      'client-auth',
      '--http',
      'sh -c "kill -SEGV $$" {url}',
      '--scenario',
      'auth-basic',
      '--timeout',
      '4000',
    ]);
    expect(r.code).toBe(1);
    expect(r.verdict('auth-basic', 'client-auth/authorized').message).toMatch(
      /never reached the MCP endpoint.*signal SIGSEGV/,
    );
  }, 30_000);
});

describe('the command', () => {
  it('--suite client-auth over stdio is a usage error', async () => {
    const r = await cli(['client', '--suite', 'client-auth', '--stdio', 'python3 x.py {server}']);
    expect(r.code).toBe(2);
    expect(r.stderr).toMatch(/client-auth grades authorization over HTTP/);
  });

  it('a client that prints its code, verifier and token: the report and console show them redacted', async () => {
    const out = mkdtempSync(join(tmpdir(), 'mcp-conform-leak-'));
    const r = await cli([
      'client',
      '--suite',
      'client-auth',
      '--http',
      py('none'),
      '--scenario',
      'auth-basic',
      '--env',
      'AUTHKIT_PRINT_SECRETS=1',
      '--timeout',
      '15000',
      '--out-dir',
      out,
      '--verbose',
    ]);
    expect(r.code).toBe(0);
    const report = readFileSync(join(out, 'report.json'), 'utf8');
    expect(report).toMatch(
      /authkit: code \[redacted: authorization code\], verifier \[redacted: code verifier\], token \[redacted: access token\]/,
    );
    for (const text of [report, r.stdout, r.stderr]) expect(text).not.toMatch(/eyJ[A-Za-z0-9_-]{10,}\.eyJ/);
  }, 60_000);

  it('an auth scenario named without --suite is graded by every suite; where the client rightly refused, the session suites skip', async () => {
    const r = await client(['--http', py('none'), '--scenario', 'auth-basic,auth-no-s256', '--timeout', '15000']);
    expect(r.code, nonPass(r).join('\n')).toBe(0);
    expect(r.reports[0]!.suites.map((s) => s.id)).toEqual([
      'client-process',
      'client-lifecycle',
      'client-requests',
      'client-http',
      'client-2026',
      'client-schemas',
      'client-auth',
    ]);
    expect(r.verdict('auth-basic', 'client-lifecycle/initialize-first').verdict).toBe('pass');
    expect(r.verdict('auth-no-s256', 'client-lifecycle/initialize-first')).toMatchObject({
      verdict: 'skip',
      message: expect.stringMatching(/no message of the client got past the protected mock/),
    });
    expect(r.verdict('auth-no-s256', 'client-process/exit').verdict).toBe('info');
    expect(r.verdict('auth-no-s256', 'client-auth/refuse-no-s256').verdict).toBe('pass');
  }, 60_000);

  it('pre-registered credentials reach the client ({client_id}, {client_secret}, environment), never the report or console', async () => {
    const dir = mkdtempSync(join(tmpdir(), 'mcp-conform-secret-'));
    const file = join(dir, 'got.json');
    const script = `import json,os,sys; json.dump({'argv': sys.argv[1:], 'id': os.environ.get('MCP_CONFORM_CLIENT_ID'), 'secret': os.environ.get('MCP_CONFORM_CLIENT_SECRET')}, open('${file}', 'w')); print('my secret is', os.environ.get('MCP_CONFORM_CLIENT_SECRET'), file=sys.stderr)`;
    const out = mkdtempSync(join(tmpdir(), 'mcp-conform-secret-out-'));
    const r = await cli([
      'client',
      '--suite',
      'client-auth',
      '--http',
      `python3 -c "${script}" {url} {client_id} {client_secret}`,
      '--scenario',
      'auth-pre-registered',
      '--timeout',
      '8000',
      '--out-dir',
      out,
      '--verbose',
    ]);
    expect(existsSync(file)).toBe(true);
    const got = JSON.parse(readFileSync(file, 'utf8')) as { argv: string[]; id: string; secret: string };
    expect(got.id).toBe('mcp-conform-pre-registered');
    expect(got.secret.length).toBeGreaterThan(20);
    expect(got.argv.slice(1)).toEqual([got.id, got.secret]);
    const report = readFileSync(join(out, 'report.json'), 'utf8');
    for (const text of [report, r.stdout, r.stderr]) expect(text.includes(got.secret)).toBe(false);
    expect(report).toMatch(/\[redacted: client secret\]/);
    // Elsewhere the placeholders are empty and the environment has no credentials.
    await cli([
      'client',
      '--suite',
      'client-auth',
      '--http',
      `python3 -c "${script}" {url} {client_id} {client_secret}`,
      '--scenario',
      'auth-basic',
      '--timeout',
      '8000',
      '--out-dir',
      out,
      '--quiet',
    ]);
    const none = JSON.parse(readFileSync(file, 'utf8')) as { argv: string[]; id: string | null; secret: string | null };
    expect(none).toMatchObject({ id: null, secret: null });
    expect(none.argv.slice(1)).toEqual(['', '']);
  }, 60_000);
});

/** The TS SDK's client's non-pass verdicts, as docs/real-servers.md (Clients) explains them, by scenario. */
const SDK_LEDGER: Record<string, Record<string, string>> = {
  'auth-2025-03-26-metadata': {
    'client-auth/resource-authorization-request': 'info',
    'client-auth/resource-token-request': 'info',
  },
  'auth-2025-03-26-defaults': {
    'client-auth/resource-authorization-request': 'info',
    'client-auth/resource-token-request': 'info',
  },
  'auth-step-up': { 'client-auth/step-up': 'warn' },
  'auth-no-s256': { 'client-auth/refuse-no-s256': 'fail' },
  'auth-iss-wrong': { 'client-auth/iss-validated': 'info' },
  'auth-iss-missing': { 'client-auth/iss-validated': 'info' },
};

/** The TS SDK v2 client's: step-up and iss are right; S256 is still not required; over SSE no step-up. */
const V2_LEDGER: Record<string, Record<string, string>> = {
  'auth-2025-03-26-metadata': SDK_LEDGER['auth-2025-03-26-metadata']!,
  'auth-2025-03-26-defaults': SDK_LEDGER['auth-2025-03-26-defaults']!,
  'auth-no-s256': { 'client-auth/refuse-no-s256': 'fail' },
};

/** scenario → case id → verdict, for every verdict neither pass nor skip. */
function nonPassMap(r: Awaited<ReturnType<typeof client>>): Record<string, Record<string, string>> {
  const got: Record<string, Record<string, string>> = {};
  for (const rep of r.reports)
    for (const c of rep.suites.flatMap((s) => s.cases))
      if (c.verdict !== 'pass' && c.verdict !== 'skip')
        (got[(rep.target.name ?? '').replace('scenario ', '')] ??= {})[c.id] = c.verdict;
  return got;
}

describe('a real client: the TypeScript SDK v2 (@modelcontextprotocol/client 2.4, headless)', () => {
  it("over Streamable HTTP and HTTP+SSE: the non-pass verdicts are the ledger's", async () => {
    // the two transports' runs side by side: each plays every scenario, one client process at a time
    const [h, s] = await Promise.all([
      client(['--suite', 'client-auth', '--http', `${SDK('http')} v2`, '--timeout', '20000'], 300_000),
      client(['--suite', 'client-auth', '--sse', `${SDK('sse')} v2`, '--timeout', '20000'], 300_000),
    ]);
    expect(nonPassMap(h), nonPass(h).join('\n')).toEqual(V2_LEDGER);
    expect(h.verdict('auth-iss-wrong', 'client-auth/iss-validated').verdict).toBe('pass');
    expect(h.verdict('auth-step-up', 'client-auth/step-up').verdict).toBe('pass');
    expect(nonPassMap(s), nonPass(s).join('\n')).toEqual({
      ...V2_LEDGER,
      'auth-step-up': { 'client-auth/step-up': 'warn' },
    });
    const ledger = readFileSync(join(ROOT, 'docs/real-servers.md'), 'utf8');
    for (const id of ['client-auth/refuse-no-s256', 'client-auth/step-up', 'client-auth/resource-token-request'])
      expect(ledger, id).toMatch(new RegExp(`TS SDK v2[^\\n]*\`${id}\``));
  }, 620_000);
});

// The two transports' runs are independent: side by side (it.concurrent), as the v2 client's are.
describe('a real client: the TypeScript SDK (auth() with an OAuthClientProvider, headless)', () => {
  it.concurrent('over HTTP+SSE: the same non-pass verdicts', async () => {
    const r = await client(['--suite', 'client-auth', '--sse', SDK('sse'), '--timeout', '20000'], 300_000);
    expect(nonPassMap(r), nonPass(r).join('\n')).toEqual(SDK_LEDGER);
  }, 320_000);

  it.concurrent("over Streamable HTTP: the non-pass verdicts are the ledger's", async () => {
    const r = await client(['--suite', 'client-auth', '--http', SDK('http'), '--timeout', '20000'], 300_000);
    expect(nonPassMap(r), nonPass(r).join('\n')).toEqual(SDK_LEDGER);
    const ledger = readFileSync(join(ROOT, 'docs/real-servers.md'), 'utf8');
    for (const id of new Set(Object.values(SDK_LEDGER).flatMap((x) => Object.keys(x))))
      expect(ledger, id).toMatch(new RegExp(`TS SDK \`auth\\(\\)\`[^\\n]*\`${id}\``));
    expect(r.verdict('auth-step-up', 'client-auth/step-up').message).toMatch(/never asked for authorization again/);
    // It refreshed instead (the ledger's reason): the refresh is among its token requests.
    expect(r.verdict('auth-step-up', 'client-auth/resource-token-request').message).toMatch(
      /grant_type authorization_code, refresh_token/,
    );
  }, 320_000);
});

/**
 * The OAuth flow a client goes through, by hand (fetch): the 401 challenge, the metadata it names, the authorization
 * server's metadata, registration, the authorization request (through the consent page when there is one), the code
 * exchange; then initialize with the token. Returns what a user would check.
 */
async function handFlow(
  mcpUrl: string,
  consent: boolean,
): Promise<{ challenge: string; page?: string; initStatus: number; init: Record<string, unknown>; unauth: number }> {
  const initBody = JSON.stringify({
    jsonrpc: '2.0',
    id: 1,
    method: 'initialize',
    params: { protocolVersion: '2025-11-25', capabilities: {}, clientInfo: { name: 'hand', version: '1' } },
  });
  const post = (h: Record<string, string> = {}) =>
    fetch(mcpUrl, {
      method: 'POST',
      headers: { 'content-type': 'application/json', accept: 'application/json, text/event-stream', ...h },
      body: initBody,
    });
  const first = await post();
  const challenge = first.headers.get('www-authenticate') ?? '';
  const prmUrl = /resource_metadata="([^"]+)"/.exec(challenge)![1]!;
  const prm = (await (await fetch(prmUrl)).json()) as { resource: string; authorization_servers: string[] };
  const asm = (await (
    await fetch(`${prm.authorization_servers[0]}/.well-known/oauth-authorization-server`)
  ).json()) as Record<string, string>;
  const redirect = 'http://127.0.0.1:1/cb';
  const reg = (await (
    await fetch(asm.registration_endpoint!, {
      method: 'POST',
      headers: { 'content-type': 'application/json' },
      body: JSON.stringify({ redirect_uris: [redirect], token_endpoint_auth_method: 'none' }),
    })
  ).json()) as { client_id: string };
  const verifier = 'v'.repeat(50);
  const { createHash } = await import('node:crypto');
  const q = new URLSearchParams({
    response_type: 'code',
    client_id: reg.client_id,
    redirect_uri: redirect,
    state: 'state-123456',
    code_challenge: createHash('sha256').update(verifier).digest('base64url'),
    code_challenge_method: 'S256',
    resource: prm.resource,
    scope: 'mcp:read mcp:write',
  });
  let r = await fetch(`${asm.authorization_endpoint}?${q}`, { redirect: 'manual' });
  let page: string | undefined;
  if (consent) {
    page = await r.text();
    expect(r.status).toBe(200);
    r = await fetch(`${asm.authorization_endpoint}?${q}`, {
      method: 'POST',
      redirect: 'manual',
      headers: { 'content-type': 'application/x-www-form-urlencoded' },
      body: new URLSearchParams({ ...Object.fromEntries(q), approve: '1' }).toString(),
    });
  }
  expect(r.status).toBe(302);
  const back = new URL(r.headers.get('location')!);
  expect(back.searchParams.get('state')).toBe('state-123456');
  const tok = (await (
    await fetch(asm.token_endpoint!, {
      method: 'POST',
      headers: { 'content-type': 'application/x-www-form-urlencoded' },
      body: new URLSearchParams({
        grant_type: 'authorization_code',
        code: back.searchParams.get('code')!,
        redirect_uri: redirect,
        code_verifier: verifier,
        client_id: reg.client_id,
        resource: prm.resource,
      }).toString(),
    })
  ).json()) as { access_token: string };
  const ok = await post({ authorization: `Bearer ${tok.access_token}` });
  const text = await ok.text();
  const init = (text.startsWith('{') ? JSON.parse(text) : JSON.parse(/data: (.*)/.exec(text)![1]!)) as Record<
    string,
    unknown
  >;
  return { challenge, page, initStatus: ok.status, init, unauth: first.status };
}

describe('serve --auth and the msw handlers: the same protected mock for client developers', () => {
  async function serve(args: string[]): Promise<{ url: string; line: string; stop: () => Promise<void> }> {
    const { spawn } = await import('node:child_process');
    const child = spawn(
      process.execPath,
      [
        join(ROOT, 'dist/bin/mcp-conform.js'),
        'serve',
        '--fixture',
        join(ROOT, 'fixtures/mocks/client-default.yaml'),
        ...args,
      ],
      { stdio: ['ignore', 'ignore', 'pipe'] },
    );
    let err = '';
    const line = await new Promise<string>((res, rej) => {
      const t = setTimeout(() => rej(new Error(`serve did not start: ${err}`)), 20_000);
      child.stderr!.on('data', (b) => {
        err += b;
        const m = /^mcp-conform serve: .*$/m.exec(err);
        if (m) {
          clearTimeout(t);
          res(m[0]);
        }
      });
    });
    return {
      url: /at (http:\/\/127\.0\.0\.1:\d+\/\w+)/.exec(line)![1]!,
      line,
      stop: () =>
        new Promise((res) => {
          child.once('close', () => res());
          child.kill('SIGTERM');
        }),
    };
  }

  it('serve --http 0 --auth: 401 with resource_metadata, then served with the token the flow gets (approving at once)', async () => {
    const s = await serve(['--http', '0', '--auth']);
    try {
      expect(s.line).toMatch(
        /protected: scenario auth-basic; authorization server http:\/\/127\.0\.0\.1:\d+, approving at once/,
      );
      const f = await handFlow(s.url, false);
      expect(f.unauth).toBe(401);
      expect(f.challenge).toMatch(
        /^Bearer .*resource_metadata="http:\/\/127\.0\.0\.1:\d+\/\.well-known\/oauth-protected-resource\/mcp"/,
      );
      expect(f.initStatus).toBe(200);
      expect(f.init).toMatchObject({ result: { serverInfo: expect.anything() } });
    } finally {
      await s.stop();
    }
  }, 60_000);

  it('serve --sse 0 --auth --auth-consent: a one-click consent page, then a correct client gets through', async () => {
    const s = await serve(['--sse', '0', '--auth', '--auth-consent']);
    try {
      expect(s.line).toMatch(/consent page/);
      // authkit fetches the authorization URL without following the redirect: the consent page is no redirect, so it stops there.
      const { spawnSync } = await import('node:child_process');
      const k = spawnSync('python3', [join(KIT, 'authkit.py'), 'none', 'sse', s.url], {
        encoding: 'utf8',
        timeout: 20_000,
      });
      expect(k.status).toBe(1);
      expect(k.stderr).toMatch(/the authorization request got 200/);
    } finally {
      await s.stop();
    }
    const h = await serve(['--http', '0', '--auth', '--auth-consent']);
    try {
      const f = await handFlow(h.url, true);
      expect(f.page).toMatch(/<form method="post"[\s\S]*name="approve"/);
      expect(f.page).toMatch(/scope <code>mcp:read mcp:write<\/code>/);
      expect(f.initStatus).toBe(200);
    } finally {
      await h.stop();
    }
  }, 60_000);

  it('usage errors: --auth over stdio, an unknown --auth-scenario, --auth-consent without --auth', async () => {
    const fx = join(ROOT, 'fixtures/mocks/client-default.yaml');
    const a = await cli(['serve', '--fixture', fx, '--auth']);
    expect(a.code).toBe(2);
    expect(a.stderr).toMatch(/--auth applies to HTTP .* stdio has no authorization/);
    const b = await cli(['serve', '--fixture', fx, '--http', '0', '--auth', '--auth-scenario', 'nope']);
    expect(b.code).toBe(2);
    expect(b.stderr).toMatch(/--auth-scenario: unknown scenario "nope"/);
    const c = await cli(['serve', '--fixture', fx, '--http', '0', '--auth-consent']);
    expect(c.code).toBe(2);
  }, 30_000);

  it('mcpHandlers(url, { auth }) protects the msw endpoint the same way', async () => {
    const { setupServer } = await import('msw/node');
    const { mcpHandlers } = await import('../mocks/msw.js');
    let seen: { protected: { requests: { status?: number; authorization: string }[] } } | undefined;
    const server = setupServer(
      ...mcpHandlers('http://mcp.test/mcp', {
        fixture: join(ROOT, 'fixtures/mocks/client-default.yaml'),
        auth: {
          consent: true,
          onAuth: (a) => {
            seen = a;
          },
        },
      }),
    );
    server.listen({ onUnhandledRequest: 'error' });
    try {
      const f = await handFlow('http://mcp.test/mcp', true);
      expect(f.unauth).toBe(401);
      expect(f.challenge).toMatch(
        /resource_metadata="http:\/\/mcp\.test\/\.well-known\/oauth-protected-resource\/mcp"/,
      );
      expect(f.initStatus).toBe(200);
      expect(seen!.protected.requests.filter((r) => r.authorization === 'bearer').length).toBe(1);
    } finally {
      server.close();
    }
  }, 30_000);
});
