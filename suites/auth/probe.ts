/**
 * The `auth` suite's own HTTP requests (outside the session: it decides exactly which credentials each one carries)
 * and what it reads from the answers: WWW-Authenticate challenges (RFC 9110 §11.6.1, RFC 6750 §3), the well-known
 * URLs of RFC 9728 and RFC 8414. Each request is kept as evidence with its secrets redacted.
 */
import { httpRequest, readBody } from '../../core/transport/http.js';
import { redactHeaders, redactUrl } from '../../core/secrets.js';
import { bearerChallenge, type Challenge } from '../../core/auth/challenge.js';
import { wellKnown } from '../../core/auth/discovery.js';
export { sameResource } from '../../core/auth/discovery.js';
export type { Challenge };

/** One request the suite made and what came back, as a case's evidence (report: details.exchanges). */
export interface AuthProbe {
  purpose: string;
  method: string;
  /** Redacted (an access_token query parameter shows as [redacted]). */
  url: string;
  /** As sent, secret ones redacted (Authorization: [redacted]). */
  requestHeaders: Record<string, string>;
  status?: number;
  /** The headers that matter to grading. */
  responseHeaders?: Record<string, string>;
  /** The body as text, cut at 2 kB (tokens never come back in the answers graded here). */
  body?: string;
  error?: string;
  ms?: number;
}

export interface ProbeAnswer {
  probe: AuthProbe;
  status?: number;
  headers: Record<string, string>;
  text: string;
  /** The body parsed as JSON, when it is JSON. */
  json?: unknown;
}

const KEPT = /^(www-authenticate|content-type|mcp-session-id|location|allow|access-control-.*)$/i;

/**
 * Send one request and read the answer (bounded: the status line by timeoutMs, a body by 5 s, an SSE stream only
 * briefly — its headers decide). Never throws: a failure is in probe.error.
 */
export async function send(
  purpose: string,
  url: string,
  method: string,
  headers: Record<string, string>,
  body: string | undefined,
  timeoutMs: number,
): Promise<ProbeAnswer> {
  const probe: AuthProbe = { purpose, method, url: redactUrl(url), requestHeaders: redactHeaders(headers)! };
  const out: ProbeAnswer = { probe, headers: {}, text: '' };
  const t = Date.now();
  try {
    const res = await httpRequest(new URL(url), method, headers, body, {
      timeoutMs: Math.min(timeoutMs, 15_000),
      agent: false,
    });
    probe.status = out.status = res.status;
    for (const [k, v] of Object.entries(res.headers)) {
      if (v === undefined) continue;
      out.headers[k.toLowerCase()] = Array.isArray(v) ? v.join(', ') : String(v);
    }
    probe.responseHeaders = Object.fromEntries(Object.entries(out.headers).filter(([k]) => KEPT.test(k)));
    const stream = (out.headers['content-type'] ?? '').toLowerCase().startsWith('text/event-stream');
    const b = await readBody(res.body, 256 * 1024, stream ? (method === 'GET' ? 300 : 3000) : 5000);
    if (stream && method === 'GET') res.body.destroy();
    out.text = b.text;
    probe.body = b.text.length > 2048 ? `${b.text.slice(0, 2048)}…` : b.text;
    if (b.text.trim() && !stream) {
      try {
        out.json = JSON.parse(b.text);
      } catch {
        /* not JSON */
      }
    }
  } catch (e) {
    probe.error = (e as Error).message;
  }
  probe.ms = Date.now() - t;
  return out;
}

/** The Bearer challenge of a WWW-Authenticate value, if there is one (core/auth/challenge.ts parses it). */
export const bearerOf = (value: string | undefined): Challenge | undefined => bearerChallenge(value);

/** RFC 9728 §3.1: the well-known suffix goes between the host and the path. Path-suffixed first, then the root. */
export function resourceMetadataUrls(resource: string): { pathSuffixed?: string; root: string } {
  const root = wellKnown(resource, 'oauth-protected-resource', 'root').href;
  const inserted = wellKnown(resource, 'oauth-protected-resource').href;
  return inserted === root ? { root } : { pathSuffixed: inserted, root };
}

/**
 * Where a client looks for an authorization server's metadata, in the order the spec gives (2025-11-25 on: RFC 8414
 * with path insertion, then OpenID discovery inserted, then appended; without a path, RFC 8414 then OpenID).
 */
export function authorizationServerMetadataUrls(issuer: string): string[] {
  const urls = [
    wellKnown(issuer, 'oauth-authorization-server'),
    wellKnown(issuer, 'openid-configuration'),
    wellKnown(issuer, 'openid-configuration', 'append'),
  ];
  return [...new Set(urls.map((u) => u.href))];
}

/** What is not canonical in a resource identifier (RFC 8707 §2, the spec's canonical server URI), or []. */
export function notCanonical(resource: string): string[] {
  let u: URL;
  try {
    u = new URL(resource);
  } catch {
    return ['it is not an absolute URL'];
  }
  const out: string[] = [];
  const m = /^([a-zA-Z][a-zA-Z0-9+.-]*):\/\/([^/?#]*)/.exec(resource);
  if (m && (m[1] !== m[1]!.toLowerCase() || m[2] !== m[2]!.toLowerCase()))
    out.push('its scheme or host is not lower-case');
  if (resource.includes('#')) out.push('it has a fragment');
  if (u.pathname !== '/' && u.pathname.endsWith('/')) out.push('it ends with a slash');
  return out;
}
