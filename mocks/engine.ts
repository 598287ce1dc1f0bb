/**
 * What every mock answers with, whatever carries it (stdio, Streamable HTTP, HTTP+SSE, msw): a source makes one
 * session per client connection; a session takes each message the client sends and emits what the server sends back.
 */
import { isObject as isObj } from '../core/objects.js';
import { brief as textBrief } from '../core/text.js';

export type Json = null | boolean | number | string | Json[] | { [k: string]: Json };
export type Outgoing = Record<string, unknown>;

export interface MockSession {
  /**
   * One message from the client (the text as received). `emit` is called for every message the server sends in
   * answer (notifications and server requests first, where they were recorded, then the response); the promise
   * resolves when the last has been emitted.
   */
  receive(raw: string, emit: (m: Outgoing) => void, ctx?: ReceiveContext): Promise<void>;
  /**
   * Optional: the client will send nothing more (over stdio, its stdin ended). A session that waits on something
   * outside (a proxy's upstream) starts ending it, so that the promises of receive settle soon.
   */
  end?(): void;
}

/** Where a message came from, for sessions that record or judge the carrier: the HTTP request that carried it. */
export interface ReceiveContext {
  http?: { method: string; url: URL; header(name: string): string | undefined; body: string; exchange?: number };
}

export interface MockSource {
  /** For messages and logs: 'cassette calc.jsonl', 'fixture calc.yaml'. */
  readonly label: string;
  newSession(): MockSession;
  /** The protocol version the mock speaks by default (HTTP transports check the MCP-Protocol-Version header). */
  readonly protocolVersions: string[];
}

/** JSON with object keys sorted: two values are equal when their canonical texts are. */
export function canonicalJson(v: unknown): string {
  if (v === undefined) return 'null';
  if (v === null || typeof v !== 'object') return JSON.stringify(v);
  if (Array.isArray(v)) return `[${v.map(canonicalJson).join(',')}]`;
  const o = v as Record<string, unknown>;
  return `{${Object.keys(o)
    .filter((k) => o[k] !== undefined)
    .sort()
    .map((k) => `${JSON.stringify(k)}:${canonicalJson(o[k])}`)
    .join(',')}}`;
}

/** Params as matched: without `_meta`, and `{}` the same as none. */
export function matchParams(params: unknown): unknown {
  if (params === undefined || params === null) return {};
  if (typeof params !== 'object' || Array.isArray(params)) return params;
  const { _meta, ...rest } = params as Record<string, unknown>;
  void _meta;
  return rest;
}

/** Where two values first differ, in words ('/arguments/b: recorded 2, got 3'). */
export function firstDifference(recorded: unknown, got: unknown, path = ''): string | undefined {
  if (canonicalJson(recorded) === canonicalJson(got)) return undefined;
  if (isObj(recorded) && isObj(got)) {
    for (const k of Object.keys(recorded).sort()) {
      if (!(k in got)) return `${path}/${k}: recorded ${brief(recorded[k])}, missing in the request`;
      const d = firstDifference(recorded[k], got[k], `${path}/${k}`);
      if (d) return d;
    }
    for (const k of Object.keys(got).sort())
      if (!(k in recorded)) return `${path}/${k}: not in the recording (got ${brief(got[k])})`;
  }
  if (Array.isArray(recorded) && Array.isArray(got)) {
    if (recorded.length !== got.length) return `${path || '/'}: recorded ${recorded.length} items, got ${got.length}`;
    for (let i = 0; i < recorded.length; i++) {
      const d = firstDifference(recorded[i], got[i], `${path}/${i}`);
      if (d) return d;
    }
  }
  return `${path || '(params)'}: recorded ${brief(recorded)}, got ${brief(got)}`;
}

/** A count of differing leaves, to rank recordings by nearness. */
export function distance(a: unknown, b: unknown): number {
  if (canonicalJson(a) === canonicalJson(b)) return 0;
  if (isObj(a) && isObj(b)) {
    let n = 0;
    for (const k of new Set([...Object.keys(a), ...Object.keys(b)])) n += k in a && k in b ? distance(a[k], b[k]) : 1;
    return n;
  }
  if (Array.isArray(a) && Array.isArray(b)) {
    let n = Math.abs(a.length - b.length);
    for (let i = 0; i < Math.min(a.length, b.length); i++) n += distance(a[i], b[i]);
    return n;
  }
  return 1;
}

/** A value as short JSON text, for replay-miss messages. */
export function brief(v: unknown, max = 60): string {
  return textBrief(v, max);
}

export function errorResponse(id: unknown, code: number, message: string, data?: unknown): Outgoing {
  return {
    jsonrpc: '2.0',
    id: id === undefined ? null : id,
    error: { code, message, ...(data !== undefined ? { data } : {}) },
  };
}

export function sleep(ms: number): Promise<void> {
  return new Promise((r) => setTimeout(r, ms));
}

/** Parses a client message; null when it is not JSON. */
export function parseJson(raw: string): { ok: true; value: unknown } | { ok: false } {
  try {
    return { ok: true, value: JSON.parse(raw) };
  } catch {
    return { ok: false };
  }
}
