/**
 * The headless OAuth drivers of real clients (fixtures/clients/peers/: the Python SDK's OAuthClientProvider, FastMCP's
 * OAuth, mcp-remote) against the harness's own authorization server (mocks/auth)
 * and a protected MCP endpoint that trusts it (fixtures/servers/auth/authkit.py good): each one, as docs/client-auth.md
 * has a client command started (`{url}`, pre-registered credentials in MCP_CONFORM_CLIENT_ID / _SECRET or none),
 * completes the authorization without a browser, gets a token, and makes an authorized MCP call. This holds the drivers
 * themselves; how each client is graded is `client --suite client-auth`'s business.
 */
import { spawn, type ChildProcess } from 'node:child_process';
import { join } from 'node:path';
import { afterEach, describe, expect, it } from 'vitest';
import { startAuthServer, type AuthServer } from '../mocks/auth/index.js';
import { runBounded } from './helpers/cached-install.js';
import { FIXTURES, ROOT } from './helpers/cli.js';
import { pythonPeers } from './helpers/python-peers.js';

const PEERS = join(ROOT, 'fixtures', 'clients', 'peers');
const SECRET = 'pre-registered-secret-4d1c9e';

/** authkit.py good on a port the system picks, trusting `issuer`; its MCP URL. */
function protectedServer(issuer: string): Promise<{ url: string; child: ChildProcess }> {
  const child = spawn('python3', [join(FIXTURES, 'auth', 'authkit.py'), 'good', '0'], {
    env: { ...process.env, MCP_CONFORM_AUTH_ISSUER: issuer },
    stdio: ['ignore', 'pipe', 'ignore'],
    detached: true,
  });
  return new Promise((resolve, reject) => {
    const timer = setTimeout(() => reject(new Error('authkit.py did not say it was listening within 20 s')), 20_000);
    let out = '';
    child.stdout!.on('data', (b: Buffer) => {
      out += String(b);
      const m = /listening (\d+)/.exec(out);
      if (m) {
        clearTimeout(timer);
        resolve({ url: `http://127.0.0.1:${m[1]}/mcp`, child });
      }
    });
    child.on('exit', (code) => {
      clearTimeout(timer);
      reject(new Error(`authkit.py exited (${code}) before listening`));
    });
  });
}

const started: { as?: AuthServer; child?: ChildProcess }[] = [];
afterEach(async () => {
  for (const s of started.splice(0)) {
    if (s.child?.pid)
      try {
        process.kill(-s.child.pid, 'SIGKILL');
      } catch {
        /* gone */
      }
    await s.as?.close();
  }
});

/** Run a driver against a fresh authorization server and protected endpoint; what both sides saw. */
async function drive(command: string[], registration: 'dynamic' | 'pre-registered') {
  const as = await startAuthServer(
    registration === 'pre-registered'
      ? { clients: [{ clientId: 'pre-client', clientSecret: SECRET }], registration: false }
      : {},
  );
  const slot: { as?: AuthServer; child?: ChildProcess } = { as };
  started.push(slot);
  const { url, child } = await protectedServer(as.issuer);
  slot.child = child;
  const env = {
    ...process.env,
    MCP_CONFORM_URL: url,
    FASTMCP_LOG_LEVEL: 'WARNING',
    ...(registration === 'pre-registered'
      ? { MCP_CONFORM_CLIENT_ID: 'pre-client', MCP_CONFORM_CLIENT_SECRET: SECRET }
      : {}),
  };
  const r = await runBounded(command[0]!, [...command.slice(1), url], 60_000, env, undefined, 64 * 1024);
  return { ...r, url, requests: as.requests };
}

const peers = await pythonPeers();
const py = peers.python;
const drivers: [name: string, command: string[] | undefined][] = [
  [
    "the Python SDK's OAuthClientProvider (mcp.Client, Streamable HTTP)",
    py ? [py, join(PEERS, 'py-oauth-client.py'), 'mcp', 'http'] : undefined,
  ],
  [
    "FastMCP's OAuth (fastmcp Client, Streamable HTTP)",
    py ? [py, join(PEERS, 'py-oauth-client.py'), 'fastmcp', 'http'] : undefined,
  ],
  [
    'mcp-remote (Streamable HTTP, driven over stdio by the TS SDK v1 Client)',
    [process.execPath, join(PEERS, 'mcp-remote-oauth.mjs'), 'http'],
  ],
];

describe('headless OAuth drivers of real clients, against the harness authorization server', () => {
  for (const [name, command] of drivers) {
    for (const registration of ['dynamic', 'pre-registered'] as const) {
      it.skipIf(!command)(
        `${name}, ${registration} registration: authorized with PKCE S256, state and resource; the MCP call works${command ? '' : ` (skipped: ${peers.reason})`}`,
        async () => {
          const r = await drive(command!, registration);
          expect(r.code, r.out).toBe(0);
          expect(r.out).toMatch(/echo: .*hello/);
          const authorize = r.requests.filter((q) => q.endpoint === 'authorize');
          expect(authorize.length, r.out).toBeGreaterThan(0);
          for (const q of authorize) {
            expect(q.status).toBe(302);
            expect(q.params).toMatchObject({
              response_type: 'code',
              code_challenge_method: 'S256',
              code_challenge: expect.stringMatching(/^[A-Za-z0-9_-]{43}$/),
              state: expect.any(String),
              resource: r.url,
            });
          }
          const token = r.requests.filter(
            (q) => q.endpoint === 'token' && q.params?.grant_type === 'authorization_code',
          );
          expect(token).toHaveLength(1);
          expect(token[0]).toMatchObject({ status: 200, params: { resource: r.url, code_verifier: '[redacted]' } });
          const registered = r.requests.filter((q) => q.endpoint === 'register');
          if (registration === 'dynamic') expect(registered.map((q) => q.status)).toEqual([201]);
          else {
            expect(registered).toEqual([]);
            expect(token[0]!.clientAuth).toMatch(/^client_secret_(basic|post)$/);
            expect(r.out).not.toContain(SECRET);
          }
        },
        120_000,
      );
    }
  }
});
