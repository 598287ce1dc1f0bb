/**
 * Credentials plumbing: with credentials, every request of a run (Streamable HTTP's POST, GET stream and DELETE;
 * HTTP+SSE's stream and POSTs; --url's detection probes) carries `Authorization: Bearer <token>`; a 401 to a token
 * renews it once, a 403 insufficient_scope steps up once; a Bearer --header is the run's credentials. Against the
 * TypeScript SDK's own server transports behind a small token gate (in this process, loopback, port 0).
 */
import { createServer, type IncomingMessage, type Server, type ServerResponse } from 'node:http';
import { randomUUID } from 'node:crypto';
import type { AddressInfo } from 'node:net';
import { afterEach, describe, expect, it } from 'vitest';
import { McpServer } from '@modelcontextprotocol/sdk/server/mcp.js';
import { StreamableHTTPServerTransport } from '@modelcontextprotocol/sdk/server/streamableHttp.js';
import { SSEServerTransport } from '@modelcontextprotocol/sdk/server/sse.js';
import { runConformance } from '../lib/conformance.js';
import type { Credentials } from '../core/auth/credentials.js';
import type { HttpExchange } from '../core/transport/http.js';

const exchangesOf = (r: { http?: { exchanges: unknown[] } }) => (r.http?.exchanges ?? []) as HttpExchange[];

interface Seen {
  method: string;
  path: string;
  authorization?: string;
}

/** An SDK server (Streamable HTTP at /mcp, or HTTP+SSE at /sse + /message) that wants `Bearer <good>` on every request. */
async function gated(
  kind: 'streamable' | 'sse',
  gate: (auth: string | undefined) => { status: number; challenge?: string } | undefined,
): Promise<{ url: string; seen: Seen[]; close(): Promise<void> }> {
  const seen: Seen[] = [];
  const sessions = new Map<string, StreamableHTTPServerTransport | SSEServerTransport>();
  const mcp = () => new McpServer({ name: 'gated', version: '1.0.0' }, { capabilities: { tools: {} } });
  const server: Server = createServer((req: IncomingMessage, res: ServerResponse) => {
    void (async () => {
      const path = new URL(req.url ?? '/', 'http://x').pathname;
      seen.push({ method: req.method ?? '', path, authorization: req.headers.authorization });
      const refused = gate(req.headers.authorization);
      if (refused) {
        res.writeHead(refused.status, refused.challenge ? { 'WWW-Authenticate': refused.challenge } : {}).end();
        return;
      }
      if (kind === 'sse') {
        if (req.method === 'GET' && path === '/sse') {
          const t = new SSEServerTransport('/message', res);
          sessions.set(t.sessionId, t);
          await mcp().connect(t);
          return;
        }
        const t = sessions.get(new URL(req.url ?? '/', 'http://x').searchParams.get('sessionId') ?? '') as
          | SSEServerTransport
          | undefined;
        if (!t) {
          res.writeHead(404).end();
          return;
        }
        await t.handlePostMessage(req, res);
        return;
      }
      const sid = req.headers['mcp-session-id'];
      let t = typeof sid === 'string' ? (sessions.get(sid) as StreamableHTTPServerTransport | undefined) : undefined;
      if (!t) {
        const nt: StreamableHTTPServerTransport = new StreamableHTTPServerTransport({
          sessionIdGenerator: () => randomUUID(),
          onsessioninitialized: (id) => {
            sessions.set(id, nt);
          },
        });
        await mcp().connect(nt);
        t = nt;
      }
      await t.handleRequest(req, res);
    })();
  });
  await new Promise<void>((r) => server.listen(0, '127.0.0.1', r));
  const port = (server.address() as AddressInfo).port;
  return {
    url: kind === 'sse' ? `http://127.0.0.1:${port}/sse` : `http://127.0.0.1:${port}/mcp`,
    seen,
    close: () =>
      new Promise<void>((r) => {
        server.closeAllConnections();
        server.close(() => r());
      }),
  };
}

let open: { close(): Promise<void> }[] = [];
afterEach(async () => {
  for (const s of open) await s.close();
  open = [];
});

const GOOD = 'tok-good-5f1c0a9e7d';
const wantGood = (a: string | undefined) =>
  a === `Bearer ${GOOD}` ? undefined : { status: 401, challenge: 'Bearer error="invalid_token"' };

describe('credentials on every request', () => {
  it('Streamable HTTP: POST, GET stream and DELETE carry the token; a 401 renews it once and the run goes on', async () => {
    const s = await gated('streamable', wantGood);
    open.push(s);
    let current = 'tok-stale-00000000';
    const renewals: (string | undefined)[] = [];
    const credentials: Credentials = {
      source: 'oauth',
      accessToken: async () => current,
      onUnauthorized: async (www) => {
        renewals.push(www);
        current = GOOD;
        return current;
      },
      exchanges: [],
    };
    const report = await runConformance({ http: s.url, credentials, suites: ['lifecycle'] });
    expect(report.summary.fail).toBe(0);
    expect(renewals.length).toBeGreaterThanOrEqual(1);
    expect(renewals[0]).toContain('invalid_token');
    // The first request went with the stale token; after the renewal every request carried the good one.
    expect(s.seen[0]!.authorization).toBe('Bearer tok-stale-00000000');
    const after = s.seen.slice(s.seen.findIndex((x) => x.authorization === `Bearer ${GOOD}`));
    expect(new Set(after.map((x) => x.method))).toEqual(new Set(['POST', 'GET', 'DELETE']));
    for (const x of after) expect(x.authorization).toBe(`Bearer ${GOOD}`);
    const text = JSON.stringify(report);
    expect(text).not.toContain(GOOD);
    expect(text).not.toContain('tok-stale');
    const retried = exchangesOf(report).filter((x) => x.authRetry);
    expect(retried[0]!.authRetry).toEqual({ firstStatus: 401, reason: 'token renewed after 401' });
  });

  it('HTTP+SSE: the stream and every POST carry the token', async () => {
    const s = await gated('sse', wantGood);
    open.push(s);
    const report = await runConformance({
      sse: s.url,
      credentials: { source: 'oauth', accessToken: async () => GOOD, exchanges: [] },
      suites: ['lifecycle'],
    });
    expect(report.summary.fail).toBe(0);
    expect(s.seen.some((x) => x.method === 'GET' && x.path === '/sse')).toBe(true);
    expect(s.seen.some((x) => x.method === 'POST' && x.path === '/message')).toBe(true);
    for (const x of s.seen) expect(x.authorization).toBe(`Bearer ${GOOD}`);
  });

  it('--url detection probes carry the token too', async () => {
    const s = await gated('streamable', wantGood);
    open.push(s);
    const report = await runConformance({
      url: s.url,
      credentials: { source: 'oauth', accessToken: async () => GOOD, exchanges: [] },
      suites: ['lifecycle'],
    });
    expect(report.target.transport).toBe('streamable-http');
    expect(report.summary.fail).toBe(0);
    for (const x of s.seen) expect(x.authorization).toBe(`Bearer ${GOOD}`);
  });

  it('403 insufficient_scope steps up once, then the request is sent again', async () => {
    const BIG = 'tok-wide-scope-77aa31';
    const s = await gated('streamable', (a) =>
      a === `Bearer ${BIG}`
        ? undefined
        : a === `Bearer ${GOOD}`
          ? { status: 403, challenge: 'Bearer error="insufficient_scope", scope="mcp:all"' }
          : { status: 401 },
    );
    open.push(s);
    let current = GOOD;
    const stepped: string[] = [];
    const credentials: Credentials = {
      source: 'oauth',
      accessToken: async () => current,
      onInsufficientScope: async (www) => {
        stepped.push(www);
        current = BIG;
        return current;
      },
      exchanges: [],
    };
    const report = await runConformance({ http: s.url, credentials, suites: ['lifecycle'] });
    expect(report.summary.fail).toBe(0);
    expect(stepped[0]).toContain('scope="mcp:all"');
    const retried = exchangesOf(report).find((x) => x.authRetry);
    expect(retried?.authRetry).toEqual({ firstStatus: 403, reason: 'stepped up after 403 insufficient_scope' });
  });

  it('a 401 with no other token stands: no loop, and the run says the server refused its token', async () => {
    const s = await gated('streamable', () => ({ status: 401, challenge: 'Bearer' }));
    open.push(s);
    let calls = 0;
    const report = await runConformance({
      http: s.url,
      credentials: {
        source: 'oauth',
        accessToken: async () => 'tok-never-good-1234',
        onUnauthorized: async () => {
          calls++;
          return undefined;
        },
        exchanges: [],
      },
      suites: ['lifecycle'],
      timeout: 5000,
    });
    expect(report.aborted).toMatch(
      /^the server requires authorization and refused the run's token \(oauth\): HTTP 401 to POST \(WWW-Authenticate: Bearer\)/,
    );
    expect(report.exitCode).toBe(1);
    // One call per request refused, never a second try of the same request.
    expect(calls).toBeLessThanOrEqual(s.seen.length);
    expect(s.seen.every((x) => x.authorization === 'Bearer tok-never-good-1234')).toBe(true);
  });

  it('--header "Authorization: Bearer X" becomes credentials (source header); the header stays redacted in the report', async () => {
    const s = await gated('streamable', wantGood);
    open.push(s);
    const report = await runConformance({
      http: s.url,
      headers: [`Authorization: Bearer ${GOOD}`],
      suites: ['lifecycle'],
    });
    expect(report.summary.fail).toBe(0);
    for (const x of s.seen) expect(x.authorization).toBe(`Bearer ${GOOD}`);
    expect(report.target.headers).toEqual({ Authorization: '[redacted]' });
    expect(JSON.stringify(report)).not.toContain(GOOD);
  });
});
