/**
 * The redirect target of --oauth's authorization-code flow: an HTTP listener on 127.0.0.1 (port 0: the system
 * picks a free one) for the run, closed as soon as the redirect has come or the wait is over (RFC 8252 §7.3, a
 * native app's loopback redirect). It takes the first request to its callback path that carries `code` or `error`;
 * a `state` other than the one sent is refused on the spot (and ends the wait: it is not this run's answer).
 */
import http from 'node:http';
import type { AddressInfo } from 'node:net';

export interface Redirect {
  code?: string;
  state?: string;
  iss?: string;
  error?: string;
  errorDescription?: string;
}

export interface Loopback {
  /** The redirect URI to register and send (http://127.0.0.1:<port>/callback). */
  readonly redirectUri: string;
  /** Resolves with the redirect's parameters, or rejects (wrong state, time out, closed). */
  wait(ms: number): Promise<Redirect>;
  close(): Promise<void>;
}

export async function openLoopback(state: string): Promise<Loopback> {
  let deliver: ((r: Redirect) => void) | undefined;
  let fail: ((e: Error) => void) | undefined;
  let got: Redirect | Error | undefined;
  const server = http.createServer((req, res) => {
    const u = new URL(req.url ?? '/', 'http://127.0.0.1');
    if (u.pathname !== '/callback' || (!u.searchParams.has('code') && !u.searchParams.has('error'))) {
      res.writeHead(404, { 'Content-Type': 'text/plain' }).end('not the mcp-conform callback');
      return;
    }
    const p = u.searchParams;
    const r: Redirect = {};
    for (const [k, name] of [
      ['code', 'code'],
      ['state', 'state'],
      ['iss', 'iss'],
      ['error', 'error'],
      ['errorDescription', 'error_description'],
    ] as const) {
      const v = p.get(name);
      if (v !== null) r[k] = v;
    }
    if (got) {
      res.writeHead(409, { 'Content-Type': 'text/plain' }).end('mcp-conform has already had its redirect');
      return;
    }
    if (r.state !== state) {
      got = new Error(
        r.state === undefined
          ? 'the redirect to the loopback listener carried no state: refused (it cannot be told from a forged one)'
          : 'the redirect to the loopback listener carried a state other than the one sent: refused (a forged or stale answer)',
      );
      res.writeHead(400, { 'Content-Type': 'text/plain' }).end('mcp-conform: state mismatch, refused');
      fail?.(got);
      return;
    }
    got = r;
    res
      .writeHead(200, { 'Content-Type': 'text/plain' })
      .end(
        r.error
          ? 'mcp-conform: the authorization was refused; you may close this page'
          : 'mcp-conform: authorized; you may close this page',
      );
    deliver?.(r);
  });
  await new Promise<void>((resolve, reject) => {
    server.once('error', reject);
    server.listen(0, '127.0.0.1', () => resolve());
  });
  const port = (server.address() as AddressInfo).port;
  let closed: Promise<void> | undefined;
  return {
    redirectUri: `http://127.0.0.1:${port}/callback`,
    wait(ms) {
      if (got) return got instanceof Error ? Promise.reject(got) : Promise.resolve(got);
      return new Promise<Redirect>((resolve, reject) => {
        const timer = setTimeout(
          () =>
            reject(
              new Error(
                `no redirect came to the loopback listener within ${ms} ms (--oauth-timeout): nobody completed the login`,
              ),
            ),
          ms,
        );
        deliver = (r) => {
          clearTimeout(timer);
          resolve(r);
        };
        fail = (e) => {
          clearTimeout(timer);
          reject(e);
        };
      });
    },
    close() {
      return (closed ??= new Promise<void>((r) => {
        server.closeAllConnections();
        server.close(() => r());
      }));
    },
  };
}
