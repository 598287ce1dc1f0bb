/**
 * What the cases of the Streamable HTTP suite share to probe a server outside the session: the probe's body (with
 * the _meta of 2026-07-28 where the version wants it) and headers, and the words and codes of an answer.
 */
import type { CaseContext } from '../../core/suite.js';
import type { ProbeResult } from '../../core/transport/http.js';
import { requestMetaFor } from '../../core/negotiate.js';
import { runClientInfo } from '../../core/client-info.js';
import { brief, isObject } from '../helpers.js';

/** The ids of a run's probes, counted per run (by its HTTP transport): runs side by side in one process number theirs alike. */
const probeIds = new WeakMap<object, number>();
export function nextProbeId(ctx: CaseContext): string {
  const key = (ctx.http ?? ctx) as object;
  const n = (probeIds.get(key) ?? 0) + 1;
  probeIds.set(key, n);
  return `mcp-conform-probe-${n}`;
}

/** A tool name no server lists: header probes that carry a tools/call name it, so that nothing real is called. */
export const MISSING_TOOL = 'mcp-conform-no-such-tool';

/** A JSON-RPC request body for a probe; where the version wants it (2026-07-28), with the _meta every request carries. */
export function probeBody(ctx: CaseContext, method: string, params: Record<string, unknown> = {}): string {
  method = heartbeatIn(ctx, method);
  const p = ctx.features.requestMeta ? { ...params, _meta: requestMetaFor(ctx.version, runClientInfo(ctx)) } : params;
  return JSON.stringify({
    jsonrpc: '2.0',
    id: nextProbeId(ctx),
    method,
    ...(Object.keys(p).length ? { params: p } : {}),
  });
}

export function methodHeaders(ctx: CaseContext, method: string): Record<string, string> {
  return ctx.features.requestHeaders ? { 'Mcp-Method': heartbeatIn(ctx, method) } : {};
}

/** Where ping is gone (2026-07-28), the probes that send one send the version's heartbeat (server/discover) instead. */
export function heartbeatIn(ctx: CaseContext, method: string): string {
  return method === 'ping' ? ctx.features.heartbeat : method;
}

export function said(r: ProbeResult): string {
  if (r.error) return `the request failed: ${r.error}`;
  const body = r.body.trim() ? `: ${brief(r.body.trim(), 160)}` : ' (no body)';
  return (
    `HTTP ${r.status} ${r.exchange.statusText ?? ''}`.trimEnd() +
    `${r.contentType ? ` (${r.contentType.split(';')[0]})` : ''}${body}`
  );
}

/** The code of the JSON-RPC error the answer carried; NaN for an error without a numeric code; undefined for none. */
export function errorCode(r: ProbeResult): number | undefined {
  for (const m of r.messages)
    if (isObject(m) && isObject(m.error)) return typeof m.error.code === 'number' ? m.error.code : NaN;
  return undefined;
}

/** "no JSON-RPC error in the body" / "error -32020" / "a JSON-RPC error without a numeric code". */
export function codeWords(code: number | undefined): string {
  return code === undefined
    ? 'no JSON-RPC error in the body'
    : Number.isNaN(code)
      ? 'a JSON-RPC error without a numeric code'
      : `error ${code}`;
}

export const ok = (s?: number) => s !== undefined && s >= 200 && s < 300;
export const ex = (r: ProbeResult) => ({ exchange: r.exchange.n });
