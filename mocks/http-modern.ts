/**
 * Streamable HTTP in 2026-07-28 (https://modelcontextprotocol.io/specification/2026-07-28/basic/transports/streamable-http):
 * no session; every POST carries the request-metadata headers — MCP-Protocol-Version equal to the `_meta` version,
 * Mcp-Method equal to the method, Mcp-Name equal to params.name / params.uri (tools/call, resources/read, prompts/get),
 * and Mcp-Param-{Name} for each argument of a tool whose inputSchema marks it with `x-mcp-header` — or gets 400 with
 * -32020 (HeaderMismatch). An unknown method is 404 with -32601; an unsupported version, a missing capability or
 * malformed `_meta` 400. `subscriptions/listen` is answered with an SSE stream that stays open.
 */
import { errorResponse, type MockSession, type Outgoing } from './engine.js';
import { HEADER_MISMATCH, META, type EraInfo } from './era.js';
import type { PlainRequest, PlainResponse } from './http-types.js';
import { argumentAt, headerParams, headerValue, sameParamValue } from '../core/param-headers.js';
import { isObject as isObj } from '../core/objects.js';

const NAMED: Record<string, 'name' | 'uri'> = { 'tools/call': 'name', 'prompts/get': 'name', 'resources/read': 'uri' };

function reject(status: number, id: unknown, code: number, message: string, data?: unknown): PlainResponse {
  return {
    status,
    headers: { 'content-type': 'application/json' },
    body: JSON.stringify(errorResponse(id ?? null, code, message, data)),
  };
}

/** What is wrong with the request-metadata headers of a modern POST, or undefined. */
export async function headerProblem(
  req: PlainRequest,
  m: Record<string, unknown>,
  era: EraInfo,
): Promise<string | undefined> {
  const params = isObj(m.params) ? m.params : {};
  const meta = isObj(params._meta) ? params._meta : {};
  const pv = req.header('mcp-protocol-version');
  if (pv === undefined) return 'the MCP-Protocol-Version header is missing';
  if (meta[META.protocolVersion] !== undefined && pv !== meta[META.protocolVersion])
    return `MCP-Protocol-Version ${pv} does not match _meta ${JSON.stringify(meta[META.protocolVersion])}`;
  if (!('id' in m)) return undefined; // header requirements for notification POSTs are not defined in 2026-07-28
  const method = req.header('mcp-method');
  if (method === undefined) return 'the Mcp-Method header is missing';
  if (method !== m.method) return `Mcp-Method ${method} does not match the method ${String(m.method)}`;
  const field = NAMED[String(m.method)];
  if (field) {
    const name = req.header('mcp-name');
    if (name === undefined)
      return `the Mcp-Name header is missing (${String(m.method)} names ${field} ${JSON.stringify(params[field])})`;
    if (headerValue(name) !== params[field])
      return `Mcp-Name ${name} does not match params.${field} ${JSON.stringify(params[field])}`;
  }
  if (m.method === 'tools/call') {
    const tool = (await era.tools()).find((t) => t.name === params.name);
    for (const h of headerParams(tool?.inputSchema)) {
      const value = argumentAt(params.arguments, h.path);
      const got = req.header(`mcp-param-${h.name.toLowerCase()}`);
      if (value === undefined) continue;
      if (got === undefined)
        return `the Mcp-Param-${h.name} header is missing (argument ${h.path.join('.')} is ${JSON.stringify(value)}; the tool's inputSchema marks it x-mcp-header)`;
      if (!sameParamValue(got, value))
        return `Mcp-Param-${h.name} ${got} does not match argument ${h.path.join('.')} ${JSON.stringify(value)}`;
    }
  }
  return undefined;
}

/** The HTTP status of a modern answer: 404 for an unknown method, 400 for the request errors of 2026-07-28. */
export function statusOf(answer: Outgoing | undefined): number {
  const code = isObj(answer?.error) ? answer.error.code : undefined;
  if (code === -32601) return 404;
  if (code === -32602 || code === -32020 || code === -32021 || code === -32022 || code === -32600 || code === -32700)
    return 400;
  return 200;
}

/** A modern POST: headers checked, answered by the endpoint's one session (JSON, or SSE when notifications come with it). */
export async function modernPost(
  req: PlainRequest,
  m: Record<string, unknown>,
  session: MockSession,
  era: EraInfo,
  exchange: (s: MockSession, raw: string) => Promise<Outgoing[]>,
): Promise<PlainResponse> {
  const problem = await headerProblem(req, m, era);
  if (problem) return reject(400, m.id, HEADER_MISMATCH, `Header mismatch: ${problem}`);
  if (!('id' in m)) {
    await exchange(session, req.body);
    return { status: 202, headers: {} };
  }
  if (m.method === 'subscriptions/listen') return listenStream(req, m, session);
  const out = await exchange(session, req.body);
  const answer = out.find((o) => o.id === m.id && ('result' in o || 'error' in o)) ?? out[out.length - 1];
  const status = statusOf(answer);
  if (out.length <= 1)
    return {
      status,
      headers: { 'content-type': 'application/json' },
      body: JSON.stringify(answer ?? errorResponse(m.id, -32603, 'no answer')),
    };
  return {
    status,
    headers: { 'content-type': 'text/event-stream', 'cache-control': 'no-cache', 'x-accel-buffering': 'no' },
    body: out.map((o) => `event: message\ndata: ${JSON.stringify(o)}\n\n`).join(''),
  };
}

/** subscriptions/listen: the acknowledgment, then what the session sends on the subscription, until the client goes away. */
async function listenStream(
  req: PlainRequest,
  m: Record<string, unknown>,
  session: MockSession,
): Promise<PlainResponse> {
  const early: string[] = [];
  let write: ((chunk: string) => void) | undefined;
  const event = (o: Outgoing) => `event: message\ndata: ${JSON.stringify(o)}\n\n`;
  const emit = (o: Outgoing) => {
    if (write) write(event(o));
    else early.push(event(o));
  };
  let first: Outgoing | undefined;
  await session.receive(
    req.body,
    (o) => {
      first ??= o;
      emit(o);
    },
    { http: req },
  );
  if (first && 'error' in first) {
    return { status: statusOf(first), headers: { 'content-type': 'application/json' }, body: JSON.stringify(first) };
  }
  return {
    status: 200,
    headers: { 'content-type': 'text/event-stream', 'cache-control': 'no-cache', 'x-accel-buffering': 'no' },
    body: early.splice(0).join(''),
    stream: (w) => {
      write = w;
      for (const e of early.splice(0)) w(e);
      return () => {
        write = () => undefined;
        (session as { closeListen?(id: unknown): void }).closeListen?.(m.id);
      };
    },
  };
}
