/**
 * A loopback HTTP listener the harness runs for one probe only (security/ssrf): bound to 127.0.0.1 on a port the
 * system picks and, where the machine has it, to [::1] on another, never any other address. It answers every request
 * with a short text holding a token and records what arrived; a request there means the server under test fetched a
 * loopback address it was handed ([::1] catches a server that refuses "127.0.0.1" by its spelling only).
 *
 * It never keeps the harness alive (unref) and is closed by the case that opened it; a process 'exit' closes nothing
 * (the socket goes with the process).
 */
import { randomBytes } from 'node:crypto';
import { createServer, type Server } from 'node:http';
import type { AddressInfo } from 'node:net';

/** The address the listener binds to (and, where the machine has it, CANARY_LISTENER_HOST6). */
export const CANARY_LISTENER_HOST = '127.0.0.1';
export const CANARY_LISTENER_HOST6 = '::1';

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
  /** The port on [::1], when the machine has IPv6 loopback. */
  port6?: number;
  /**
   * A URL on the listener whose path holds a token of its own (which call's URL was fetched shows in the hits):
   * on 127.0.0.1, or on [::1] (family 6, only when port6 is set).
   */
  url(label: string, family?: 4 | 6): { url: string; token: string };
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
  const handle = (req: import('node:http').IncomingMessage, res: import('node:http').ServerResponse) => {
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
  };
  const server = await listen(createServer(handle), CANARY_LISTENER_HOST);
  const port = (server.address() as AddressInfo).port;
  // [::1] where the machine has it; a machine without IPv6 loopback probes 127.0.0.1 alone.
  const server6 = await listen(createServer(handle), CANARY_LISTENER_HOST6).catch(() => undefined);
  const port6 = server6 ? (server6.address() as AddressInfo).port : undefined;
  return {
    host: CANARY_LISTENER_HOST,
    port,
    ...(port6 !== undefined ? { port6 } : {}),
    hits,
    url(label, family = 4) {
      const token = randomBytes(12).toString('hex');
      const where =
        family === 6 && port6 !== undefined ? `[${CANARY_LISTENER_HOST6}]:${port6}` : `${CANARY_LISTENER_HOST}:${port}`;
      return {
        url: `http://${where}/mcp-conform-ssrf-${label.replace(/[^A-Za-z0-9_-]/g, '_').slice(0, 40)}/${token}`,
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
    async close() {
      for (const w of waiters.splice(0)) w.resolve(false);
      await Promise.all(
        [server, ...(server6 ? [server6] : [])].map(
          (s) =>
            new Promise<void>((resolve) => {
              s.close(() => resolve());
              s.closeAllConnections();
            }),
        ),
      );
    },
  };
}

/** Listen on host (a loopback address), a port the system picks; never keeps the process alive. */
async function listen(server: Server, host: string): Promise<Server> {
  await new Promise<void>((resolve, reject) => {
    server.once('error', reject);
    server.listen({ host, port: 0, exclusive: true, ...(host.includes(':') ? { ipv6Only: true } : {}) }, () => {
      server.off('error', reject);
      resolve();
    });
  });
  server.unref();
  return server;
}
