/**
 * The `auth` suite's own HTTP requests (outside the session: it decides exactly which credentials each one carries)
 * and what it reads from the answers: WWW-Authenticate challenges (RFC 9110 §11.6.1, RFC 6750 §3), the well-known
 * URLs of RFC 9728 and RFC 8414. Each request is kept as evidence with its secrets redacted.
 */
import { httpRequest, readBody } from '../../core/transport/http.js';
import { redactHeaders, redactUrl } from '../../core/secrets.js';
export { authorizationServerMetadataUrls, resourceMetadataUrls } from '../../core/auth/well-known.js';

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
export async function send(purpose: string, url: string, method: string, headers: Record<string, string>, body: string | undefined, timeoutMs: number): Promise<ProbeAnswer> {
  const probe: AuthProbe = { purpose, method, url: redactUrl(url), requestHeaders: redactHeaders(headers)! };
  const out: ProbeAnswer = { probe, headers: {}, text: '' };
  const t = Date.now();
  try {
    const res = await httpRequest(new URL(url), method, headers, body, { timeoutMs: Math.min(timeoutMs, 15_000), agent: false });
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
      try { out.json = JSON.parse(b.text); } catch { /* not JSON */ }
    }
  } catch (e) {
    probe.error = (e as Error).message;
  }
  probe.ms = Date.now() - t;
  return out;
}

/** One challenge of a WWW-Authenticate header: its scheme and parameters (names lower-cased). */
export interface Challenge {
  scheme: string;
  params: Record<string, string>;
  /** token68 form (no parameters), if any. */
  token68?: string;
}

/**
 * The challenges of a WWW-Authenticate value (several may share one header, comma-separated). Returns undefined
 * when the value cannot be parsed (a parameter without a value, an unterminated quote…).
 */
export function parseChallenges(value: string): Challenge[] | undefined {
  const out: Challenge[] = [];
  let i = 0;
  const s = value;
  const ws = () => { while (i < s.length && /[ \t]/.test(s[i]!)) i++; };
  const token = () => { const m = /^[!#$%&'*+.^_`|~0-9A-Za-z-]+/.exec(s.slice(i)); if (!m) return undefined; i += m[0].length; return m[0]; };
  while (i < s.length) {
    ws();
    while (s[i] === ',') { i++; ws(); }
    if (i >= s.length) break;
    const scheme = token();
    if (!scheme) return undefined;
    const c: Challenge = { scheme, params: {} };
    out.push(c);
    ws();
    // token68?
    const t68 = /^[A-Za-z0-9\-._~+/]+=*(?=\s*(,|$))/.exec(s.slice(i));
    if (t68 && !/^[!#$%&'*+.^_`|~0-9A-Za-z-]+\s*=[^=]/.test(s.slice(i))) { c.token68 = t68[0]; i += t68[0].length; continue; }
    for (;;) {
      ws();
      const save = i;
      const name = token();
      if (!name) break;
      ws();
      if (s[i] !== '=') { i = save; break; } // the next challenge's scheme
      i++;
      ws();
      let v: string;
      if (s[i] === '"') {
        i++;
        v = '';
        while (i < s.length && s[i] !== '"') { if (s[i] === '\\') i++; v += s[i] ?? ''; i++; }
        if (s[i] !== '"') return undefined;
        i++;
      } else {
        const t = token();
        if (t === undefined) return undefined;
        v = t;
      }
      c.params[name.toLowerCase()] = v;
      ws();
      if (s[i] === ',') { i++; continue; }
      if (i >= s.length) break;
      return undefined;
    }
  }
  return out.length ? out : undefined;
}

/** The Bearer challenge of a header value, if there is one. */
export function bearerOf(value: string | undefined): Challenge | undefined {
  if (!value) return undefined;
  return parseChallenges(value)?.find((c) => c.scheme.toLowerCase() === 'bearer');
}

/** The resource identifier a URL names, as RFC 8707/9728 compare them: the URL without fragment. */
export function sameResource(a: string, mcpUrl: string): boolean {
  if (a === mcpUrl) return true;
  // A bare origin: the URL parser adds the slash the user may not have typed; either spelling names it.
  const u = new URL(mcpUrl);
  return u.pathname === '/' && !u.search && (a === u.origin || a === `${u.origin}/`);
}

/** What is not canonical in a resource identifier (RFC 8707 §2, the spec's canonical server URI), or []. */
export function notCanonical(resource: string): string[] {
  let u: URL;
  try { u = new URL(resource); } catch { return ['it is not an absolute URL']; }
  const out: string[] = [];
  const m = /^([a-zA-Z][a-zA-Z0-9+.-]*):\/\/([^/?#]*)/.exec(resource);
  if (m && (m[1] !== m[1]!.toLowerCase() || m[2] !== m[2]!.toLowerCase())) out.push('its scheme or host is not lower-case');
  if (resource.includes('#')) out.push('it has a fragment');
  if (u.pathname !== '/' && u.pathname.endsWith('/')) out.push('it ends with a slash');
  return out;
}
