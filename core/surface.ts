/**
 * The server's surface besides tools: resources, resource templates and prompts, each listed once per run
 * (every page, see core/listing.ts) and shared by the suites that read them (resources, prompts, completion,
 * capabilities) as run services (ctx.service(promptListing)…). What each version has of the surface is in the version
 * feature table (core/features.ts: resourceNotFoundCode, setLevel, mrtr…).
 */
import { hasStringMember, listAll, type Listing } from './listing.js';
import type { Service } from './services.js';

export interface Resource {
  uri: string;
  name?: string;
  mimeType?: string;
  [k: string]: unknown;
}
export interface ResourceTemplate {
  uriTemplate: string;
  name?: string;
  mimeType?: string;
  [k: string]: unknown;
}
export interface PromptArgument {
  name: string;
  required?: boolean;
  description?: string;
  [k: string]: unknown;
}
export interface Prompt {
  name: string;
  arguments?: PromptArgument[];
  [k: string]: unknown;
}

/** A listing as a run service: listed once per run, on first use, and shared by the suites that read it. */
function listingService<T>(
  id: string,
  method: string,
  key: string,
  valid: (x: unknown) => x is T,
): Service<Listing<T>> {
  return { id, produce: (ctx) => listAll<T>(ctx.session, method, key, valid) };
}

/** resources/list, every page (run service: ctx.service(resourceListing)). */
export const resourceListing = listingService<Resource>(
  'resources',
  'resources/list',
  'resources',
  hasStringMember('uri'),
);
/** resources/templates/list, every page (run service). */
export const resourceTemplateListing = listingService<ResourceTemplate>(
  'resource-templates',
  'resources/templates/list',
  'resourceTemplates',
  hasStringMember('uriTemplate'),
);
/** prompts/list, every page (run service). */
export const promptListing = listingService<Prompt>('prompts', 'prompts/list', 'prompts', hasStringMember('name'));

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
    if (c !== '{') {
      i++;
      continue;
    }
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
      if (m[2] !== undefined && (m[2].startsWith('0') || Number(m[2]) > 9999))
        return `prefix ":${m[2]}" at position ${i} is not 1–9999`;
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
  const re = t
    .split(/\{[^}]*\}/)
    .map((lit) => lit.replace(/[.*+?^${}()|[\]\\]/g, '\\$&'))
    .join('.*');
  return new RegExp(`^${re}$`, 's').test(uri);
}

/** Whether a string is valid base64 (RFC 4648, padding optional, whitespace not allowed). */
export function isBase64(s: string): boolean {
  if (s.length % 4 === 1) return false;
  return /^[A-Za-z0-9+/]*={0,2}$/.test(s) && (!s.includes('=') || s.length % 4 === 0);
}
