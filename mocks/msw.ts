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
 * The legacy HTTP+SSE transport is not offered here: msw's `sse()` needs a global EventSource, which Node 20 lacks.
 */
import { http, HttpResponse, type HttpHandler } from 'msw';
import type { MockSource } from './engine.js';
import { FixtureSource, type Fixture } from './fixture.js';
import { StreamableHttpMock, type HttpMockOptions, type PlainResponse } from './http.js';
import { ReplaySource } from './replay.js';
import type { Cassette } from './cassette.js';

export interface McpHandlerOptions extends HttpMockOptions {
  /** A cassette file (JSON Lines) or a parsed cassette. */
  cassette?: string | Cassette;
  /** A fixture file (YAML or JSON) or a parsed fixture. */
  fixture?: string | Fixture;
  /** Any mock source (advanced). */
  source?: MockSource;
}

function sourceOf(o: McpHandlerOptions): MockSource {
  const given = [o.cassette, o.fixture, o.source].filter((x) => x !== undefined).length;
  if (given !== 1) throw new Error('mcpHandlers: give exactly one of { cassette }, { fixture } or { source }');
  if (o.source) return o.source;
  if (o.cassette !== undefined) return typeof o.cassette === 'string' ? ReplaySource.fromFile(o.cassette) : new ReplaySource(o.cassette);
  return typeof o.fixture === 'string' ? FixtureSource.fromFile(o.fixture) : new FixtureSource(o.fixture!);
}

function toResponse(r: PlainResponse): Response {
  // null body for 202 (and every other bodiless answer): see the note at the top.
  return new HttpResponse(r.body ?? null, { status: r.status, headers: r.headers });
}

/** Handlers for one MCP endpoint (POST, GET, DELETE at `url`). Each call makes an independent mock server. */
export function mcpHandlers(url: string, options: McpHandlerOptions): HttpHandler[] {
  const mock = new StreamableHttpMock(sourceOf(options), options);
  const resolve = async ({ request }: { request: Request }) => {
    const body = request.method === 'POST' ? await request.text() : '';
    const r = await mock.handle({ method: request.method, url: new URL(request.url), header: (n) => request.headers.get(n) ?? undefined, body });
    return toResponse(r);
  };
  return [http.post(url, resolve), http.get(url, resolve), http.delete(url, resolve)];
}

export { ReplaySource } from './replay.js';
export { FixtureSource } from './fixture.js';
