/**
 * The harness's own authorization server (mocks/auth) as a client and a resource server see it: metadata as
 * configured, the JWK set that verifies its tokens (node:crypto, as a resource server would), the authorization code
 * flow with PKCE S256 (and what it refuses), refresh with rotation, client_credentials, dynamic registration,
 * introspection of opaque tokens, and each minted variant differing from a valid token in its one way. Then
 * `run --auth-server` from the command line: usage errors, {issuer} in --start, the token's scope.
 */
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { createHash, createPublicKey, randomBytes, verify } from 'node:crypto';
import { join } from 'node:path';
import { startAuthServer, jwtClaims, OTHER_AUDIENCE, UNDER_SCOPE, type AuthServer } from '../mocks/auth/index.js';
import { cli, FIXTURES } from './helpers/cli.js';
import { freePort, runArgs } from './http-helpers.js';

const RESOURCE = 'http://127.0.0.1:9/mcp';

async function json(
  url: string,
  init?: RequestInit,
): Promise<{ status: number; body: Record<string, unknown>; headers: Headers }> {
  const r = await fetch(url, init);
  const text = await r.text();
  return { status: r.status, body: text ? JSON.parse(text) : {}, headers: r.headers };
}

const form = (o: Record<string, string>, headers: Record<string, string> = {}): RequestInit => ({
  method: 'POST',
  headers: { 'content-type': 'application/x-www-form-urlencoded', ...headers },
  body: new URLSearchParams(o).toString(),
});

/** Verifies a JWT against the server's published JWK set, as a resource server would. */
async function verifies(as: AuthServer, token: string): Promise<boolean> {
  const { body } = await json(as.jwksUri);
  const [h, p, s] = token.split('.');
  const kid = JSON.parse(Buffer.from(h!, 'base64url').toString()).kid;
  const jwk = (body.keys as { kid: string }[]).find((k) => k.kid === kid);
  if (!jwk) return false;
  return verify(
    'sha256',
    Buffer.from(`${h}.${p}`),
    createPublicKey({ key: jwk as never, format: 'jwk' }),
    Buffer.from(s!, 'base64url'),
  );
}

/** A public client's authorization code flow up to the code (the authorize endpoint approves at once). */
async function authorize(as: AuthServer, clientId: string, redirect: string, extra: Record<string, string> = {}) {
  const verifier = randomBytes(32).toString('base64url');
  const challenge = createHash('sha256').update(verifier).digest('base64url');
  const q = new URLSearchParams({
    response_type: 'code',
    client_id: clientId,
    redirect_uri: redirect,
    state: 'st-123',
    code_challenge: challenge,
    code_challenge_method: 'S256',
    resource: RESOURCE,
    scope: 'mcp:tools',
    ...extra,
  });
  const r = await fetch(`${as.issuer}/authorize?${q}`, { redirect: 'manual' });
  const to = new URL(r.headers.get('location')!);
  return { status: r.status, to, verifier };
}

describe('the authorization server (mocks/auth)', () => {
  let as: AuthServer;
  beforeAll(async () => {
    as = await startAuthServer({ scopesSupported: ['mcp:tools'] });
  });
  afterAll(async () => {
    await as.close();
  });

  it('listens on 127.0.0.1 and serves RFC 8414 metadata and OpenID discovery naming itself, S256, iss and registration', async () => {
    expect(as.issuer).toMatch(/^http:\/\/127\.0\.0\.1:\d+$/);
    for (const path of ['/.well-known/oauth-authorization-server', '/.well-known/openid-configuration']) {
      const { status, body } = await json(as.issuer + path);
      expect(status).toBe(200);
      expect(body).toMatchObject({
        issuer: as.issuer,
        jwks_uri: as.jwksUri,
        code_challenge_methods_supported: ['S256'],
        authorization_response_iss_parameter_supported: true,
        registration_endpoint: `${as.issuer}/register`,
      });
    }
  });

  it('runs the authorization code flow with PKCE S256: code, state and iss in the redirect; the token is an RS256 JWT for the resource', async () => {
    const reg = await json(`${as.issuer}/register`, {
      method: 'POST',
      headers: { 'content-type': 'application/json' },
      body: JSON.stringify({ redirect_uris: ['http://127.0.0.1:1234/cb'], token_endpoint_auth_method: 'none' }),
    });
    expect(reg.status).toBe(201);
    const clientId = reg.body.client_id as string;
    expect(reg.body.client_secret).toBeUndefined();
    const a = await authorize(as, clientId, 'http://127.0.0.1:1234/cb');
    expect(a.status).toBe(302);
    expect(a.to.searchParams.get('state')).toBe('st-123');
    expect(a.to.searchParams.get('iss')).toBe(as.issuer);
    const code = a.to.searchParams.get('code')!;
    // A wrong verifier is refused, and the code is then spent.
    const wrong = await json(
      `${as.issuer}/token`,
      form({
        grant_type: 'authorization_code',
        code,
        client_id: clientId,
        redirect_uri: 'http://127.0.0.1:1234/cb',
        code_verifier: 'x'.repeat(43),
      }),
    );
    expect(wrong).toMatchObject({ status: 400, body: { error: 'invalid_grant' } });
    const b = await authorize(as, clientId, 'http://127.0.0.1:1234/cb');
    const tok = await json(
      `${as.issuer}/token`,
      form({
        grant_type: 'authorization_code',
        code: b.to.searchParams.get('code')!,
        client_id: clientId,
        redirect_uri: 'http://127.0.0.1:1234/cb',
        code_verifier: b.verifier,
      }),
    );
    expect(tok.status).toBe(200);
    const access = tok.body.access_token as string;
    expect(await verifies(as, access)).toBe(true);
    expect(jwtClaims(access)).toMatchObject({
      iss: as.issuer,
      aud: RESOURCE,
      scope: 'mcp:tools',
      client_id: clientId,
      sub: expect.any(String),
      iat: expect.any(Number),
      exp: expect.any(Number),
    });
    // Refresh: a new token, and the refresh token is rotated (the old one no longer works).
    const r1 = await json(
      `${as.issuer}/token`,
      form({ grant_type: 'refresh_token', refresh_token: tok.body.refresh_token as string, client_id: clientId }),
    );
    expect(r1.status).toBe(200);
    expect(r1.body.refresh_token).not.toBe(tok.body.refresh_token);
    const again = await json(
      `${as.issuer}/token`,
      form({ grant_type: 'refresh_token', refresh_token: tok.body.refresh_token as string, client_id: clientId }),
    );
    expect(again.status).toBe(400);
  });

  it('refuses an authorization request without PKCE or with the plain method, and a redirect URI not registered', async () => {
    const reg = await json(`${as.issuer}/register`, {
      method: 'POST',
      headers: { 'content-type': 'application/json' },
      body: JSON.stringify({ redirect_uris: ['http://127.0.0.1:1/cb'], token_endpoint_auth_method: 'none' }),
    });
    const id = reg.body.client_id as string;
    expect(
      (await authorize(as, id, 'http://127.0.0.1:1/cb', { code_challenge_method: 'plain' })).to.searchParams.get(
        'error',
      ),
    ).toBe('invalid_request');
    const q = new URLSearchParams({
      response_type: 'code',
      client_id: id,
      redirect_uri: 'http://127.0.0.1:1/cb',
      state: 's',
    });
    const none = await fetch(`${as.issuer}/authorize?${q}`, { redirect: 'manual' });
    expect(new URL(none.headers.get('location')!).searchParams.get('error')).toBe('invalid_request');
    const elsewhere = await fetch(
      `${as.issuer}/authorize?${new URLSearchParams({ ...Object.fromEntries(q), redirect_uri: 'https://evil.example/cb' })}`,
      { redirect: 'manual' },
    );
    expect(elsewhere.status).toBe(400);
  });

  it('client_credentials for a confidential client (client_secret_basic), the resource as audience', async () => {
    const reg = await json(`${as.issuer}/register`, {
      method: 'POST',
      headers: { 'content-type': 'application/json' },
      body: JSON.stringify({ grant_types: ['client_credentials'] }),
    });
    const basic = `Basic ${Buffer.from(`${reg.body.client_id as string}:${reg.body.client_secret as string}`).toString('base64')}`;
    const ok = await json(
      `${as.issuer}/token`,
      form({ grant_type: 'client_credentials', resource: RESOURCE, scope: 'mcp:tools' }, { authorization: basic }),
    );
    expect(ok.status).toBe(200);
    expect(jwtClaims(ok.body.access_token as string)).toMatchObject({ aud: RESOURCE, scope: 'mcp:tools' });
    const bad = await json(
      `${as.issuer}/token`,
      form(
        { grant_type: 'client_credentials' },
        { authorization: `Basic ${Buffer.from(`${reg.body.client_id as string}:nope`).toString('base64')}` },
      ),
    );
    expect(bad).toMatchObject({ status: 401, body: { error: 'invalid_client' } });
    // What the server was asked is logged without secrets.
    expect(JSON.stringify(as.requests)).not.toContain(reg.body.client_secret as string);
  });

  it('mints each variant differing from a valid token in its one way', async () => {
    const v = (x: Parameters<AuthServer['mint']>[0]) => as.mint(x, { resource: RESOURCE, scope: 'mcp:tools' });
    const now = Date.now() / 1000;
    const valid = jwtClaims(v('valid'))!;
    expect(await verifies(as, v('valid'))).toBe(true);
    expect(valid).toMatchObject({ iss: as.issuer, aud: RESOURCE, scope: 'mcp:tools' });
    expect(valid.exp as number).toBeGreaterThan(now);
    expect(jwtClaims(v('expired'))!.exp as number).toBeLessThan(now);
    expect(jwtClaims(v('wrong-audience'))!.aud).toBe(OTHER_AUDIENCE);
    expect(jwtClaims(v('wrong-issuer'))!.iss).not.toBe(as.issuer);
    expect(await verifies(as, v('wrong-issuer'))).toBe(true); // same key: only iss tells it apart
    const forged = v('bad-signature');
    expect(jwtClaims(forged)).toMatchObject({ iss: as.issuer, aud: RESOURCE });
    expect(await verifies(as, forged)).toBe(false);
    expect(jwtClaims(v('under-scoped'))!.scope).toBe(UNDER_SCOPE);
    expect(jwtClaims(v('expired-under-scoped'))).toMatchObject({ scope: UNDER_SCOPE, exp: expect.any(Number) });
    expect(jwtClaims(v('expired-under-scoped'))!.exp as number).toBeLessThan(now);
  });

  it('a second server of the same process has its own key id and refuses the first one’s tokens', async () => {
    const other = await startAuthServer({ scopesSupported: ['mcp:tools'] });
    try {
      const mine = as.mint('valid', { resource: RESOURCE, scope: 'mcp:tools' });
      const theirs = other.mint('valid', { resource: RESOURCE, scope: 'mcp:tools' });
      const kid = (t: string) => JSON.parse(Buffer.from(t.split('.')[0]!, 'base64url').toString()).kid;
      expect(kid(theirs)).not.toBe(kid(mine));
      expect(other.verify(mine)).toBeUndefined();
      expect(as.verify(theirs)).toBeUndefined();
      expect(other.verify(theirs)).toMatchObject({ iss: other.issuer });
      expect(await verifies(other, mine)).toBe(false); // its JWK set does not hold the first server's key id
      const forged = other.mint('bad-signature', { resource: RESOURCE, scope: 'mcp:tools' });
      expect(await verifies(other, forged)).toBe(false);
    } finally {
      await other.close();
    }
  });
});

describe('the authorization server, configured per scenario', () => {
  it('opaque tokens answered by introspection (RFC 7662); expired and forged ones are inactive', async () => {
    const as = await startAuthServer({
      tokenFormat: 'opaque',
      clients: [{ clientId: 'rs', clientSecret: 'rs-secret-123456' }],
    });
    try {
      const meta = (await json(`${as.issuer}/.well-known/oauth-authorization-server`)).body;
      expect(meta.introspection_endpoint).toBe(`${as.issuer}/introspect`);
      const basic = { authorization: `Basic ${Buffer.from('rs:rs-secret-123456').toString('base64')}` };
      const ask = async (token: string) => (await json(`${as.issuer}/introspect`, form({ token }, basic))).body;
      const valid = as.mint('valid', { resource: RESOURCE, scope: 'mcp:tools' });
      expect(jwtClaims(valid)).toBeUndefined();
      expect(await ask(valid)).toMatchObject({ active: true, aud: RESOURCE, scope: 'mcp:tools', iss: as.issuer });
      expect(await ask(as.mint('expired', { resource: RESOURCE }))).toEqual({ active: false });
      expect(await ask(as.mint('bad-signature', { resource: RESOURCE }))).toEqual({ active: false });
      expect(await ask(as.mint('wrong-audience', { resource: RESOURCE }))).toMatchObject({
        active: true,
        aud: OTHER_AUDIENCE,
      });
    } finally {
      await as.close();
    }
  });

  it('an issuer with a path, only OpenID discovery, no S256, no iss, no registration, client_secret_post only', async () => {
    const as = await startAuthServer({
      issuerPath: 'tenant1',
      metadata: { oauth: false },
      s256: false,
      issInRedirect: false,
      registration: false,
      tokenEndpointAuthMethods: ['client_secret_post'],
      clients: [{ clientId: 'c1', clientSecret: 'c1-secret-abcdef', redirectUris: ['http://127.0.0.1:5/cb'] }],
    });
    try {
      const origin = new URL(as.issuer).origin;
      expect(as.issuer).toBe(`${origin}/tenant1`);
      expect((await fetch(`${origin}/.well-known/oauth-authorization-server/tenant1`)).status).toBe(404);
      for (const url of [
        `${origin}/.well-known/openid-configuration/tenant1`,
        `${as.issuer}/.well-known/openid-configuration`,
      ]) {
        const { status, body } = await json(url);
        expect(status).toBe(200);
        expect(body.issuer).toBe(as.issuer);
        expect(body.code_challenge_methods_supported).toBeUndefined();
        expect(body.authorization_response_iss_parameter_supported).toBeUndefined();
        expect(body.registration_endpoint).toBeUndefined();
        expect(body.token_endpoint_auth_methods_supported).toEqual(['client_secret_post']);
      }
      expect((await fetch(`${as.issuer}/register`, { method: 'POST', body: '{}' })).status).toBe(404);
      const a = await authorize(as, 'c1', 'http://127.0.0.1:5/cb');
      expect(a.to.searchParams.get('iss')).toBeNull();
      const code = a.to.searchParams.get('code')!;
      const basic = await json(
        `${as.issuer}/token`,
        form(
          { grant_type: 'authorization_code', code, code_verifier: a.verifier },
          { authorization: `Basic ${Buffer.from('c1:c1-secret-abcdef').toString('base64')}` },
        ),
      );
      expect(basic).toMatchObject({ status: 401, body: { error: 'invalid_client' } });
      const b = await authorize(as, 'c1', 'http://127.0.0.1:5/cb');
      const post = await json(
        `${as.issuer}/token`,
        form({
          grant_type: 'authorization_code',
          code: b.to.searchParams.get('code')!,
          code_verifier: b.verifier,
          client_id: 'c1',
          client_secret: 'c1-secret-abcdef',
        }),
      );
      expect(post.status).toBe(200);
      expect(as.requests.find((r) => r.endpoint === 'token' && r.status === 200)).toMatchObject({
        clientAuth: 'client_secret_post',
        params: { code: '[redacted]', client_secret: '[redacted]', code_verifier: '[redacted]' },
      });
    } finally {
      await as.close();
    }
  });
});

describe('run --auth-server', () => {
  it('usage errors: without --start, with an Authorization header, a scope without the flag', async () => {
    const a = await cli(['run', '--http', 'http://127.0.0.1:9/mcp', '--auth-server']);
    expect(a.code).toBe(2);
    expect(a.stderr).toMatch(/--auth-server needs --start/);
    const b = await cli([
      'run',
      '--http',
      'http://127.0.0.1:9/mcp',
      '--start',
      'true',
      '--auth-server',
      '--header',
      'Authorization: Bearer x',
    ]);
    expect(b.code).toBe(2);
    expect(b.stderr).toMatch(/leave out --header Authorization/);
    const c = await cli(['run', '--http', 'http://127.0.0.1:9/mcp', '--auth-server-scope', 'x']);
    expect(c.code).toBe(2);
    expect(c.stderr).toMatch(/--auth-server-scope goes with --auth-server/);
  });

  it('hands the issuer to the started server as {issuer} in --start; report.authorization names it, never a token', async () => {
    const port = await freePort();
    // authkit.py reads its issuer from the environment: here the environment is emptied for it and {issuer} is the only way in.
    const r = await runArgs([
      '--start',
      `env -u MCP_CONFORM_AUTH_ISSUER MCP_CONFORM_AUTH_ISSUER={issuer} python3 ${join(FIXTURES, 'auth', 'authkit.py')} good ${port}`,
      '--http',
      `http://127.0.0.1:${port}/mcp`,
      '--auth-server',
      '--suite',
      'auth',
      '--case',
      'auth/token/accepted',
    ]);
    expect(r.c('auth/token/accepted').verdict).toBe('pass');
    const auth = (
      r.report as unknown as { authorization: { source: string; discovered: { issuer: string; scope?: string } } }
    ).authorization;
    expect(auth.source).toBe('auth-server');
    expect(auth.discovered.issuer).toMatch(/^http:\/\/127\.0\.0\.1:\d+$/);
    // The scope of the run's token is the one the server's challenge names.
    expect(auth.discovered.scope).toBe('mcp:tools');
    expect(r.report.target.argv?.join(' ')).toContain(`MCP_CONFORM_AUTH_ISSUER=${auth.discovered.issuer}`);
  }, 60_000);
});
