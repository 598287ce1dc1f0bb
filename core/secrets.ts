/**
 * Which names are secret, and the redaction of what the harness writes: one rule for the transports (request headers
 * and URLs in report.json, report.html and the console), the report's target (the --header values) and the mocks
 * (headers never stored in a cassette, their values replaced wherever they appear).
 */

// Names whose values are secrets: credentials, cookies, API keys, session tokens. Mcp-Session-Id is protocol (it
// is in every exchange of the report and the messages say which session they belong to), so it stays visible; so
// does the sessionId query parameter of an HTTP+SSE endpoint.
const SECRET_NAME = /auth|pass|pwd|token|key|secret|session|credential|cookie|api|signature|^sig$/i;
const PROTOCOL_NAMES = /^(mcp-session-id|sessionid|session_id)$/i;
// The names the mocks alone held secret before the two rules became one (headers never stored in a cassette). Each
// is also caught by SECRET_NAME, and none is a protocol name, so today the union equals SECRET_NAME without the
// protocol names; it is written out so that a name secret under either former rule stays secret whatever becomes of
// the other part (a new protocol exception cannot unmask `X-Session-Token`).
const ALWAYS_SECRET = /^(authorization|proxy-authorization|cookie|set-cookie|x-api-key)$|token|secret|key|password/i;

/** Whether the value of a header (or of a URL query parameter) of this name is a secret never to be written. */
export function isSecretName(name: string): boolean {
  return (SECRET_NAME.test(name) && !PROTOCOL_NAMES.test(name)) || ALWAYS_SECRET.test(name);
}

/** A copy with the values of secret headers replaced (for reports and recordings). */
export function redactHeaders(h: Record<string, string> | undefined): Record<string, string> | undefined {
  if (!h) return undefined;
  return Object.fromEntries(Object.entries(h).map(([k, v]) => [k, isSecretName(k) ? '[redacted]' : v]));
}

/** "a=1&api_key=x" with the values of secret-looking parameters replaced. */
function redactParams(q: string): string {
  return q.split('&').map((part) => {
    const eq = part.indexOf('=');
    const raw = eq < 0 ? part : part.slice(0, eq);
    let name = raw;
    try { name = decodeURIComponent(raw.replace(/\+/g, ' ')); } catch { /* keep it raw */ }
    return eq >= 0 && isSecretName(name) ? `${raw}=[redacted]` : part;
  }).join('&');
}

/**
 * A URL as it may be written in reports, recordings and messages: the password of its userinfo (or a user name
 * alone, which is as often a token) replaced by [redacted], and so the values of query (and fragment) parameters
 * whose names look secret (api_key, access_token, password, …). The URL requested is not changed.
 */
export function redactUrl(u: string | URL): string {
  const s = typeof u === 'string' ? u : u.href;
  let url: URL;
  try { url = new URL(s); } catch {
    // Not a URL: still hide what looks like userinfo and secret parameters.
    return s.replace(/^([a-z][a-z0-9+.-]*:\/\/)[^/?#@]*@/i, '$1[redacted]@').replace(/([?&#])([^=&#]*)=([^&#]*)/g, (m, sep: string, k: string) => (isSecretName(k) ? `${sep}${k}=[redacted]` : m));
  }
  if (!url.username && !url.password && !url.search && !url.hash) return url.href;
  const user = url.password ? `${url.username}:[redacted]@` : url.username ? '[redacted]@' : '';
  const host = url.host ? `//${user}${url.host}` : url.href.startsWith(`${url.protocol}//`) ? '//' : '';
  const search = url.search ? `?${redactParams(url.search.slice(1))}` : '';
  const hash = url.hash ? `#${redactParams(url.hash.slice(1))}` : '';
  return `${url.protocol}${host}${url.pathname}${search}${hash}`;
}
