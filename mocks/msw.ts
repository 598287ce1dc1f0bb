/**
 * msw handlers that serve a cassette or a fixture at a Streamable HTTP URL inside a test process:
 *
 *   import { setupServer } from 'msw/node';
 *   import { mcpHandlers } from 'mcp-conform/msw';
 *   const server = setupServer(...mcpHandlers('http://mcp.test/mcp', { cassette: 'calc.jsonl' }));
 *
 * Notifications and client responses get 202 with no body at all: msw 2.x on Node 20 hangs when a mocked response
 * that has a body is cancelled, and MCP clients (the SDK's StreamableHTTPClientTransport) cancel the body of every
 * 202. GET answers 405 (no standalone server stream), DELETE ends the session.
 * The legacy HTTP+SSE transport: `mcpSseHandlers('http://mcp.test/sse', …)` (plain handlers with a streamed body; msw's
 * `sse()`, which needs a global EventSource that Node 20 lacks, is not used).
 */
import { http, HttpResponse, type HttpHandler } from 'msw';
import type { MockSource } from './engine.js';
import type { Fixture } from '../core/formats/fixture.js';
import { FixtureSource } from './fixture.js';
import { SseMock, StreamableHttpMock, type HttpMockOptions, type PlainResponse } from './http.js';
import { ReplaySource } from './replay.js';
import type { Cassette } from '../core/formats/cassette.js';
import { cassetteSpeaksModern, withEras } from './era.js';
import { FaultPlan, hasFaults, type FaultOptions } from './faults.js';
import { authGuardFor, authScenario, type AuthScenarioDef } from './auth/scenarios.js';
import type { ProtectedResource } from './auth/protected.js';
import type { AuthServer } from './auth/server.js';

/**
 * The fault options are those of `serve` (latency, jitter, drop, failRate, seed, disconnectAfter, expireSessionAfter):
 * a failed request gets HTTP 503; after disconnectAfter answered requests every request gets a network error
 * (`HttpResponse.error()`); a dropped request's response never comes (the client's own timeout or abort ends it).
 */
export interface McpHandlerOptions extends HttpMockOptions, FaultOptions {
  /** A cassette file (JSON Lines) or a parsed cassette. */
  cassette?: string | Cassette;
  /** A fixture file (YAML or JSON) or a parsed fixture. */
  fixture?: string | Fixture;
  /** Any mock source (advanced; served as it is, without the era layer). */
  source?: MockSource;
  /**
   * One protocol version only (a legacy version: the mock answers initialize and nothing of 2026-07-28; '2026-07-28':
   * no initialize). Absent: dual-era, both initialize and 2026-07-28 requests (server/discover, _meta).
   */
  protocolVersion?: string;
  /**
   * Protect the endpoint with OAuth, as `serve --auth` does: a Bearer token is needed for every request; the
   * protected-resource metadata and an authorization server (approving at once, or with `consent: true` a one-click
   * page) are served on the same origin. true: the set-up of scenario auth-basic; or name another scenario
   * (docs/client-auth.md). `onAuth` gets the resource and authorization server (what they saw: `requests`).
   */
  auth?:
    | boolean
    | { scenario?: string; consent?: boolean; onAuth?: (a: { protected: ProtectedResource; as: AuthServer }) => void };
}

function authOf(
  o: McpHandlerOptions,
):
  | { def: AuthScenarioDef; consent: boolean; onAuth?: (a: { protected: ProtectedResource; as: AuthServer }) => void }
  | undefined {
  if (!o.auth) return undefined;
  const a = o.auth === true ? {} : o.auth;
  const def = authScenario(a.scenario ?? 'auth-basic');
  if (!def) throw new Error(`mcpHandlers: unknown auth scenario "${a.scenario}"`);
  return { def, consent: a.consent ?? false, onAuth: a.onAuth };
}

/** The protected layer as msw handlers: a catch-all on the origin that answers what the guard answers, else lets the next handler serve. */
function guardHandlers(url: string, o: McpHandlerOptions, paths?: string[]): HttpHandler[] {
  const a = authOf(o);
  if (!a) return [];
  const g = authGuardFor(url, a.def, a.consent, paths);
  a.onAuth?.({ protected: g.protected, as: g.as });
  const origin = new URL(url).origin;
  return [
    http.all(`${origin}/*`, async ({ request }) => {
      const body = request.method === 'POST' ? await request.clone().text() : '';
      const r = await g.guard({
        method: request.method,
        url: new URL(request.url),
        header: (n) => request.headers.get(n) ?? undefined,
        headerNames: () => [...request.headers.keys()],
        body,
      });
      return r ? toResponse(r) : undefined;
    }),
  ];
}

function sourceOf(o: McpHandlerOptions): MockSource {
  const given = [o.cassette, o.fixture, o.source].filter((x) => x !== undefined).length;
  if (given !== 1) throw new Error('mcpHandlers: give exactly one of { cassette }, { fixture } or { source }');
  if (o.source) return o.source;
  if (o.cassette !== undefined) {
    const replay = typeof o.cassette === 'string' ? ReplaySource.fromFile(o.cassette) : new ReplaySource(o.cassette);
    return withEras(replay, o.protocolVersion, cassetteSpeaksModern(replay.cassette));
  }
  return withEras(
    typeof o.fixture === 'string' ? FixtureSource.fromFile(o.fixture) : new FixtureSource(o.fixture!),
    o.protocolVersion,
  );
}

function toResponse(r: PlainResponse): Response {
  if (r.hangUp || r.status === 0) return HttpResponse.error();
  // null body for 202 (and every other bodiless answer): see the note at the top.
  if (r.stream) {
    // A stream that stays open (subscriptions/listen): the body first, then whatever the session sends on it.
    let stop: (() => void) | undefined;
    const enc = new TextEncoder();
    const body = new ReadableStream<Uint8Array>({
      start(c) {
        if (r.body) c.enqueue(enc.encode(r.body));
        stop = r.stream!((chunk) => {
          try {
            c.enqueue(enc.encode(chunk));
          } catch {
            /* closed */
          }
        });
      },
      cancel() {
        stop?.();
      },
    });
    r.sent?.();
    return new HttpResponse(body, { status: r.status, headers: r.headers });
  }
  const res = new HttpResponse(r.body ?? null, { status: r.status, headers: r.headers });
  r.sent?.();
  return res;
}

function faultsOf(o: McpHandlerOptions): FaultPlan | undefined {
  if (o.faults) return o.faults instanceof FaultPlan ? o.faults : new FaultPlan(o.faults);
  const f: FaultOptions = {
    latency: o.latency,
    jitter: o.jitter,
    drop: o.drop,
    failRate: o.failRate,
    seed: o.seed,
    disconnectAfter: o.disconnectAfter,
    expireSessionAfter: o.expireSessionAfter,
  };
  return hasFaults(f) ? new FaultPlan(f) : undefined;
}

/**
 * Handlers for the legacy HTTP+SSE transport (protocol 2024-11-05): GET `url` opens the event stream (an `endpoint`
 * event first), POST `messageUrl` (default: /message on the same origin) carries client messages, answered 202 with
 * no body; answers come as `message` events. Plain `http` handlers with a streamed body: msw's `sse()` is not needed
 * (it wants a global EventSource, which Node 20 lacks), and clients that read SSE through fetch (the SDK's
 * SSEClientTransport, via the `eventsource` package) are served. Each call makes an independent mock server.
 */
export function mcpSseHandlers(url: string, options: McpHandlerOptions & { messageUrl?: string }): HttpHandler[] {
  const messageUrl = new URL(options.messageUrl ?? '/message', url);
  const mock = new SseMock(sourceOf(options), {
    ...options,
    faults: faultsOf(options),
    messagePath: messageUrl.pathname,
  });
  const encoder = new TextEncoder();
  const plain = (request: Request, body: string) => ({
    method: request.method,
    url: new URL(request.url),
    header: (n: string) => request.headers.get(n) ?? undefined,
    body,
  });
  const open = ({ request }: { request: Request }) => {
    let controller: ReadableStreamDefaultController<Uint8Array> | undefined;
    let closed = false;
    const early: string[] = [];
    let endLater: (() => void) | undefined;
    const r = mock.open(
      plain(request, ''),
      (chunk) => {
        if (closed) return;
        if (!controller) {
          early.push(chunk);
          return;
        }
        try {
          controller.enqueue(encoder.encode(chunk));
        } catch {
          closed = true;
        }
      },
      () => endLater?.(),
    );
    if (r.status === 0) return HttpResponse.error();
    if (r.status !== 200 || !r.sessionId) return new HttpResponse(null, { status: r.status, headers: r.headers });
    const id = r.sessionId;
    const end = () => {
      if (!closed) {
        closed = true;
        mock.closeStream(id);
        try {
          controller?.close();
        } catch {
          /* already closed */
        }
      }
    };
    endLater = end;
    request.signal?.addEventListener('abort', end, { once: true });
    const stream = new ReadableStream<Uint8Array>({
      start(c) {
        controller = c;
        for (const e of early.splice(0)) c.enqueue(encoder.encode(e));
      },
      cancel() {
        closed = true;
        mock.closeStream(id);
      },
    });
    return new HttpResponse(stream, { status: 200, headers: r.headers });
  };
  const post = async ({ request }: { request: Request }) =>
    toResponse(await mock.post(plain(request, await request.text())));
  return [
    ...guardHandlers(url, options, [new URL(url).pathname, messageUrl.pathname]),
    http.get(url, open),
    http.post(messageUrl.href, post),
  ];
}

/** Handlers for one MCP endpoint (POST, GET, DELETE at `url`). Each call makes an independent mock server. */
export function mcpHandlers(url: string, options: McpHandlerOptions): HttpHandler[] {
  const mock = new StreamableHttpMock(sourceOf(options), { ...options, faults: faultsOf(options) });
  const resolve = async ({ request }: { request: Request }) => {
    const body = request.method === 'POST' ? await request.text() : '';
    const r = await mock.handle({
      method: request.method,
      url: new URL(request.url),
      header: (n) => request.headers.get(n) ?? undefined,
      headerNames: () => [...request.headers.keys()],
      body,
    });
    return toResponse(r);
  };
  return [...guardHandlers(url, options), http.post(url, resolve), http.get(url, resolve), http.delete(url, resolve)];
}

export { ReplaySource } from './replay.js';
export { FixtureSource } from './fixture.js';
