/**
 * The server's surface besides tools: resources, resource templates and prompts, each listed once per session
 * (every page, see core/listing.ts) and shared by the suites that read them (resources, prompts, completion,
 * capabilities). Plain functions, session in, data out; memoized per session so that the engine can turn them into
 * run services.
 */
import type { Session } from './session.js';
import { hasStringMember, listAll, type Listing } from './listing.js';
import type { ProtocolVersion } from './schema/versions.js';

export interface Resource { uri: string; name?: string; mimeType?: string; [k: string]: unknown }
export interface ResourceTemplate { uriTemplate: string; name?: string; mimeType?: string; [k: string]: unknown }
export interface PromptArgument { name: string; required?: boolean; description?: string; [k: string]: unknown }
export interface Prompt { name: string; arguments?: PromptArgument[]; [k: string]: unknown }

const memo = new WeakMap<Session, Map<string, Promise<Listing<unknown>>>>();
function once<T>(session: Session, key: string, make: () => Promise<Listing<T>>): Promise<Listing<T>> {
  let m = memo.get(session);
  if (!m) memo.set(session, (m = new Map()));
  let p = m.get(key) as Promise<Listing<T>> | undefined;
  if (!p) m.set(key, (p = make()) as Promise<Listing<unknown>>);
  return p;
}

export function listResources(session: Session): Promise<Listing<Resource>> {
  return once(session, 'resources', () => listAll<Resource>(session, 'resources/list', 'resources', hasStringMember('uri')));
}
export function listResourceTemplates(session: Session): Promise<Listing<ResourceTemplate>> {
  return once(session, 'templates', () => listAll<ResourceTemplate>(session, 'resources/templates/list', 'resourceTemplates', hasStringMember('uriTemplate')));
}
export function listPrompts(session: Session): Promise<Listing<Prompt>> {
  return once(session, 'prompts', () => listAll<Prompt>(session, 'prompts/list', 'prompts', hasStringMember('name')));
}

/**
 * What each protocol version has of the surface (one table; cases consult it instead of comparing version strings).
 * Sources: the official schema of each version (methods present) and the spec pages linked by the cases.
 */
export interface SurfaceFacts {
  /** JSON-RPC code the spec names for a resources/read of an unknown URI. */
  resourceNotFoundCode: number;
  /** How strongly: a SHOULD up to 2025-11-25, a MUST (and no empty contents) from 2026-07-28 (SEP-2164). */
  resourceNotFoundStrength: 'SHOULD' | 'MUST';
  /** resources/subscribe and resources/unsubscribe exist (2026-07-28 replaced them by subscriptions/listen). */
  resourceSubscribe: boolean;
  /** logging/setLevel exists (removed in 2026-07-28). */
  setLevel: boolean;
  /** The `completions` server capability exists (2025-03-26 on; 2024-11-05 had completion/complete without it). */
  completionsCapability: boolean;
  /** completion/complete takes `context.arguments` (2025-06-18 on). */
  completionContext: boolean;
  /** tasks/get, tasks/result, tasks/list, tasks/cancel (2025-11-25, experimental; an extension in 2026-07-28). */
  tasks: boolean;
  /** Cacheable results carry ttlMs and cacheScope, results carry resultType (2026-07-28). */
  cacheHints: boolean;
  /**
   * Server-to-client requests go through input_required results (multi round-trip requests, 2026-07-28): a server
   * MUST NOT send sampling/createMessage, elicitation/create or roots/list as requests of its own.
   */
  mrtr: boolean;
}

const TABLE: Record<ProtocolVersion, SurfaceFacts> = {
  '2024-11-05': { resourceNotFoundCode: -32002, resourceNotFoundStrength: 'SHOULD', resourceSubscribe: true, setLevel: true, completionsCapability: false, completionContext: false, tasks: false, cacheHints: false, mrtr: false },
  '2025-03-26': { resourceNotFoundCode: -32002, resourceNotFoundStrength: 'SHOULD', resourceSubscribe: true, setLevel: true, completionsCapability: true, completionContext: false, tasks: false, cacheHints: false, mrtr: false },
  '2025-06-18': { resourceNotFoundCode: -32002, resourceNotFoundStrength: 'SHOULD', resourceSubscribe: true, setLevel: true, completionsCapability: true, completionContext: true, tasks: false, cacheHints: false, mrtr: false },
  '2025-11-25': { resourceNotFoundCode: -32002, resourceNotFoundStrength: 'SHOULD', resourceSubscribe: true, setLevel: true, completionsCapability: true, completionContext: true, tasks: true, cacheHints: false, mrtr: false },
  '2026-07-28': { resourceNotFoundCode: -32602, resourceNotFoundStrength: 'MUST', resourceSubscribe: false, setLevel: false, completionsCapability: true, completionContext: true, tasks: false, cacheHints: true, mrtr: true },
};

export function surfaceFacts(v: ProtocolVersion): SurfaceFacts {
  return TABLE[v];
}

/**
 * RFC 6570 syntax check of a URI template (levels 1–4): balanced braces, an optional operator, variable names of
 * ALPHA / DIGIT / "_" / pct-encoded / ".", each with an optional ":prefix" (1–9999) or "*" explode.
 * Returns the problem in words, or undefined when the template is well-formed.
 */
export function uriTemplateProblem(t: string): string | undefined {
  const varname = /^(?:[A-Za-z0-9_]|%[0-9A-Fa-f]{2})(?:\.?(?:[A-Za-z0-9_]|%[0-9A-Fa-f]{2}))*$/;
  let i = 0;
  while (i < t.length) {
    const c = t[i]!;
    if (c === '}') return `"}" at position ${i} closes no expression`;
    if (c !== '{') { i++; continue; }
    const end = t.indexOf('}', i + 1);
    if (end < 0) return `"{" at position ${i} is never closed`;
    let body = t.slice(i + 1, end);
    if (body.includes('{')) return `"{" inside the expression at position ${i}`;
    if (/^[+#./;?&]/.test(body)) body = body.slice(1);
    else if (/^[=,!@|]/.test(body)) return `operator "${body[0]}" at position ${i} is reserved by RFC 6570`;
    if (!body) return `empty expression at position ${i}`;
    for (const spec of body.split(',')) {
      const m = /^(.*?)(?::([0-9]+)|\*)?$/.exec(spec)!;
      const name = m[1]!;
      if (!varname.test(name)) return `"${spec}" in the expression at position ${i} is not a valid variable name`;
      if (m[2] !== undefined && (m[2].startsWith('0') || Number(m[2]) > 9999)) return `prefix ":${m[2]}" at position ${i} is not 1–9999`;
    }
    i = end + 1;
  }
  return undefined;
}

/** The variable names of a URI template (after a syntax check). */
export function templateVariables(t: string): string[] {
  const out: string[] = [];
  for (const m of t.matchAll(/\{([^}]*)\}/g)) {
    const body = m[1]!.replace(/^[+#./;?&]/, '');
    for (const spec of body.split(',')) {
      const name = spec.replace(/(:[0-9]+|\*)$/, '');
      if (name && !out.includes(name)) out.push(name);
    }
  }
  return out;
}

/** Whether a URI could be an expansion of the template (a loose match: each expression matches anything). */
export function templateMatches(t: string, uri: string): boolean {
  const re = t.split(/\{[^}]*\}/).map((lit) => lit.replace(/[.*+?^${}()|[\]\\]/g, '\\$&')).join('.*');
  return new RegExp(`^${re}$`, 's').test(uri);
}

/** Whether a string is valid base64 (RFC 4648, padding optional, whitespace not allowed). */
export function isBase64(s: string): boolean {
  if (s.length % 4 === 1) return false;
  return /^[A-Za-z0-9+/]*={0,2}$/.test(s) && (!s.includes('=') || s.length % 4 === 0);
}
