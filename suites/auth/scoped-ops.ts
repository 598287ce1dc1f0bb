/**
 * auth/token/under-scoped, per operation: a server may let any valid token through the handshake and the listings
 * and ask for a scope only where an operation acts (a tools/call, a resources/read). With the under-scoped token the
 * harness mints, the operations the run itself performs — a read-only tool the call policy lets it call, the first
 * listed resource — are tried in a session of their own, and each answer is judged by itself: 403 with
 * error="insufficient_scope" and the scope needed passes; 401 is a warn (it sends the client to authorize again for
 * the same scope); served is info (no scope needed there).
 * https://modelcontextprotocol.io/specification/2025-11-25/basic/authorization#runtime-insufficient-scope-errors
 */
import { generateArguments } from '../../core/args/index.js';
import { callPlan } from '../../core/call-policy.js';
import { requestMetaFor } from '../../core/negotiate.js';
import { CLIENT_INFO } from '../../core/run.js';
import type { CaseContext, Outcome } from '../../core/suite.js';
import { resourceListing } from '../../core/surface.js';
import { mcpUrlOf } from './facts.js';
import { bearerOf, send, type ProbeAnswer } from './probe.js';

export interface OperationAnswer {
  /** e.g. `tools/call add`, `resources/read file:///a`. */
  op: string;
  a: ProbeAnswer;
  outcome: Outcome;
}

const ok = (s?: number) => s !== undefined && s >= 200 && s < 300;
let ids = 0;

/** The operations the run performs that a scope may guard: one read-only tool call, one resource read (each where the server has one). */
async function operations(
  ctx: CaseContext,
): Promise<{ op: string; method: string; params: Record<string, unknown>; name: string }[]> {
  const out: { op: string; method: string; params: Record<string, unknown>; name: string }[] = [];
  if (ctx.capabilities.tools) {
    const plan = await ctx.service(callPlan).catch(() => undefined);
    const tool = plan?.call.find(
      (t) => (t.annotations as { readOnlyHint?: unknown } | undefined)?.readOnlyHint === true,
    );
    if (tool)
      out.push({
        op: `tools/call ${tool.name}`,
        method: 'tools/call',
        params: { name: tool.name, arguments: generateArguments(tool.inputSchema).value },
        name: tool.name,
      });
  }
  if (ctx.capabilities.resources) {
    const list = await ctx.service(resourceListing).catch(() => undefined);
    const r = list?.items[0];
    if (r) out.push({ op: `resources/read ${r.uri}`, method: 'resources/read', params: { uri: r.uri }, name: r.uri });
  }
  return out;
}

/** How one operation's answer to the under-scoped token is judged. */
export function judgeOperation(op: string, a: ProbeAnswer, hasMetadata: boolean): Outcome {
  const said = `HTTP ${a.status ?? 'none'}${a.headers['www-authenticate'] ? ` (WWW-Authenticate: ${a.headers['www-authenticate'].slice(0, 200)})` : ''}`;
  if (a.probe.error) return { verdict: 'info', message: `${op}: the request failed (${a.probe.error}); not judged` };
  if (ok(a.status)) {
    const err = (a.json as { error?: { code?: number; message?: string } } | undefined)?.error;
    if (err)
      return {
        verdict: 'info',
        message: `${op}: answered with JSON-RPC error ${err.code} (${err.message ?? ''}) — not an authorization answer; its scope is not judged`,
      };
    return { verdict: 'info', message: `${op}: served (${said}): the server requires no particular scope for it` };
  }
  const b = bearerOf(a.headers['www-authenticate']);
  if (a.status === 403) {
    const missing = [
      b?.params.error === 'insufficient_scope' ? '' : 'error="insufficient_scope"',
      b?.params.scope !== undefined ? '' : 'scope',
      !hasMetadata || b?.params.resource_metadata !== undefined ? '' : 'resource_metadata',
    ].filter(Boolean);
    if (!missing.length) return { verdict: 'pass', message: `${op}: ${said}` };
    return {
      verdict: 'warn',
      message: `${op}: HTTP 403, but its challenge lacks ${missing.join(', ')} (${said}): the client cannot tell which scope to step up to`,
    };
  }
  if (a.status === 401)
    return {
      verdict: 'warn',
      message: `${op}: ${said} — the token is valid and only its scope is too narrow: that is 403 insufficient_scope naming the scope needed; a 401 sends the client to authorize again for the same scope, and it never learns which one ${op.split(' ')[0]} needs`,
    };
  return { verdict: 'warn', message: `${op}: ${said}; expected 403 insufficient_scope` };
}

/**
 * With the under-scoped token: a session of its own (initialize and notifications/initialized; 2026-07-28: none), then
 * each operation; the session is ended. Over HTTP+SSE nothing is tried (undefined): its answers come on a stream.
 */
export async function underScopedOperations(
  ctx: CaseContext,
  token: string,
  hasMetadata: boolean,
): Promise<OperationAnswer[] | undefined> {
  const url = mcpUrlOf(ctx);
  if (!url || ctx.transport.kind === 'sse') return undefined;
  const ops = await operations(ctx);
  if (!ops.length) return [];
  const base: Record<string, string> = {
    'Content-Type': 'application/json',
    Accept: 'application/json, text/event-stream',
    Authorization: `Bearer ${token}`,
  };
  let sid: string | undefined;
  if (ctx.features.initialize) {
    const init = await send(
      'initialize with the under-scoped token (for its operations)',
      url,
      'POST',
      base,
      JSON.stringify({
        jsonrpc: '2.0',
        id: `mcp-conform-scope-${++ids}`,
        method: 'initialize',
        params: { protocolVersion: ctx.version, capabilities: {}, clientInfo: CLIENT_INFO },
      }),
      ctx.timeoutMs,
    );
    if (!ok(init.status)) return [];
    sid = init.headers['mcp-session-id'];
    const h = { ...base, 'MCP-Protocol-Version': ctx.version, ...(sid ? { 'Mcp-Session-Id': sid } : {}) };
    await send(
      'notifications/initialized with the under-scoped token',
      url,
      'POST',
      h,
      JSON.stringify({ jsonrpc: '2.0', method: 'notifications/initialized' }),
      ctx.timeoutMs,
    );
  }
  const out: OperationAnswer[] = [];
  for (const o of ops) {
    const h: Record<string, string> = {
      ...base,
      'MCP-Protocol-Version': ctx.version,
      ...(sid ? { 'Mcp-Session-Id': sid } : {}),
    };
    const params = ctx.features.initialize
      ? o.params
      : { ...o.params, _meta: requestMetaFor(ctx.version, CLIENT_INFO) };
    if (!ctx.features.initialize) {
      h['Mcp-Method'] = o.method;
      h['Mcp-Name'] = o.name;
    }
    const a = await send(
      `${o.op} with the under-scoped token`,
      url,
      'POST',
      h,
      JSON.stringify({ jsonrpc: '2.0', id: `mcp-conform-scope-${++ids}`, method: o.method, params }),
      ctx.timeoutMs,
    );
    out.push({ op: o.op, a, outcome: judgeOperation(o.op, a, hasMetadata) });
  }
  if (sid)
    void send(
      'end the under-scoped session',
      url,
      'DELETE',
      { Authorization: `Bearer ${token}`, 'Mcp-Session-Id': sid },
      undefined,
      5000,
    );
  return out;
}
