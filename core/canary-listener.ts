/**
 * A loopback HTTP listener the harness runs for one probe only (security/ssrf): bound to 127.0.0.1 on a port the
 * system picks, never any other address. It answers every request with a short text holding a token and records
 * what arrived; a request there means the server under test fetched a loopback address it was handed.
 *
 * It never keeps the harness alive (unref) and is closed by the case that opened it; a process 'exit' closes nothing
 * (the socket goes with the process).
 */
import { randomBytes } from 'node:crypto';
import { createServer, type Server } from 'node:http';
import type { AddressInfo } from 'node:net';

/** The one address the listener binds to. */
export const CANARY_LISTENER_HOST = '127.0.0.1';

export interface CanaryHit {
  method: string;
  /** The request target (path and query) as received. */
  path: string;
  /** The peer address of the connection (a loopback address: nothing else can reach it). */
  remote: string;
  userAgent?: string;
  /** ms since the listener opened. */
  atMs: number;
}

export interface CanaryListener {
  /** The address bound (always 127.0.0.1) and the port. */
  host: string;
  port: number;
  /** A URL on the listener whose path holds a token of its own: which call's URL was fetched shows in the hits. */
  url(label: string): { url: string; token: string };
  /** Every request that arrived, in order. */
  readonly hits: CanaryHit[];
  /** Hits whose path holds the token. */
  hitsFor(token: string): CanaryHit[];
  /** Resolves once a hit for the token arrives, or after ms (false). */
  waitFor(token: string, ms: number): Promise<boolean>;
  close(): Promise<void>;
}

/** The text the listener answers with (tests look for the token in a tool's answer). */
export const canaryBody = (token: string) => `mcp-conform loopback canary ${token}\n`;

export async function startCanaryListener(): Promise<CanaryListener> {
  const hits: CanaryHit[] = [];
  const waiters: { token: string; resolve: (v: boolean) => void }[] = [];
  const t0 = performance.now();
  const server: Server = createServer((req, res) => {
    const path = req.url ?? '';
    const hit: CanaryHit = {
      method: req.method ?? '',
      path,
      remote: req.socket.remoteAddress ?? '',
      atMs: Math.round(performance.now() - t0),
      ...(typeof req.headers['user-agent'] === 'string' ? { userAgent: req.headers['user-agent'].slice(0, 200) } : {}),
    };
    hits.push(hit);
    const token = /\/mcp-conform-ssrf-[^/]*\/([0-9a-f]+)/.exec(path)?.[1] ?? '';
    for (const w of waiters.filter((x) => path.includes(x.token))) {
      waiters.splice(waiters.indexOf(w), 1);
      w.resolve(true);
    }
    req.resume();
    res.writeHead(200, { 'content-type': 'text/plain; charset=utf-8', connection: 'close' });
    res.end(canaryBody(token));
  });
  await new Promise<void>((resolve, reject) => {
    server.once('error', reject);
    server.listen({ host: CANARY_LISTENER_HOST, port: 0, exclusive: true }, () => {
      server.off('error', reject);
      resolve();
    });
  });
  server.unref();
  const port = (server.address() as AddressInfo).port;
  return {
    host: CANARY_LISTENER_HOST,
    port,
    hits,
    url(label) {
      const token = randomBytes(12).toString('hex');
      return {
        url: `http://${CANARY_LISTENER_HOST}:${port}/mcp-conform-ssrf-${label.replace(/[^A-Za-z0-9_-]/g, '_').slice(0, 40)}/${token}`,
        token,
      };
    },
    hitsFor: (token) => hits.filter((h) => h.path.includes(token)),
    waitFor(token, ms) {
      if (hits.some((h) => h.path.includes(token))) return Promise.resolve(true);
      return new Promise<boolean>((resolve) => {
        const w = {
          token,
          resolve: (v: boolean) => {
            clearTimeout(timer);
            resolve(v);
          },
        };
        const timer = setTimeout(() => {
          waiters.splice(waiters.indexOf(w), 1);
          resolve(false);
        }, ms);
        timer.unref();
        waiters.push(w);
      });
    },
    close() {
      for (const w of waiters.splice(0)) w.resolve(false);
      return new Promise<void>((resolve) => {
        server.close(() => resolve());
        server.closeAllConnections();
      });
    },
  };
}
