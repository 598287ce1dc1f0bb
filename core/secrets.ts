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
  return q
    .split('&')
    .map((part) => {
      const eq = part.indexOf('=');
      const raw = eq < 0 ? part : part.slice(0, eq);
      let name = raw;
      try {
        name = decodeURIComponent(raw.replace(/\+/g, ' '));
      } catch {
        /* keep it raw */
      }
      return eq >= 0 && isSecretName(name) ? `${raw}=[redacted]` : part;
    })
    .join('&');
}

/**
 * A URL as it may be written in reports, recordings and messages: the password of its userinfo (or a user name
 * alone, which is as often a token) replaced by [redacted], and so the values of query (and fragment) parameters
 * whose names look secret (api_key, access_token, password, …). The URL requested is not changed.
 */
export function redactUrl(u: string | URL): string {
  const s = typeof u === 'string' ? u : u.href;
  let url: URL;
  try {
    url = new URL(s);
  } catch {
    // Not a URL: still hide what looks like userinfo and secret parameters.
    return s
      .replace(/^([a-z][a-z0-9+.-]*:\/\/)[^/?#@]*@/i, '$1[redacted]@')
      .replace(/([?&#])([^=&#]*)=([^&#]*)/g, (m, sep: string, k: string) =>
        isSecretName(k) ? `${sep}${k}=[redacted]` : m,
      );
  }
  if (!url.username && !url.password && !url.search && !url.hash) return url.href;
  const user = url.password ? `${url.username}:[redacted]@` : url.username ? '[redacted]@' : '';
  const host = url.host ? `//${user}${url.host}` : url.href.startsWith(`${url.protocol}//`) ? '//' : '';
  const search = url.search ? `?${redactParams(url.search.slice(1))}` : '';
  const hash = url.hash ? `#${redactParams(url.hash.slice(1))}` : '';
  return `${url.protocol}${host}${url.pathname}${search}${hash}`;
}

/** Values shorter than this are left alone: they are too common to be secrets worth hiding (`1`, `true`, `dev`). */
const MIN_SECRET_VALUE = 8;
/**
 * Environment variables whose names look secret by the rule above but that hold no secret: the working directory
 * (PWD: "pwd" is also short for password), sockets and session addresses of the shell and the desktop, and the
 * issuer URL `run --auth-server` hands to the server it starts (MCP_CONFORM_AUTH_ISSUER: "auth" in the name). Their values
 * (paths, mostly) would otherwise be hidden wherever they appear — in every command line and file path of a report.
 */
const ENV_NOT_SECRET =
  /^(OLD)?PWD$|^MCP_CONFORM_AUTH_ISSUER$|_SOCK$|^XAUTHORITY$|^DBUS_SESSION_BUS_ADDRESS$|^XDG_SESSION_|^SESSION_MANAGER$|^DESKTOP_SESSION$|^TERM_SESSION_ID$|^KEYTIMEOUT$|^GNOME_KEYRING_CONTROL$/;
const envSecret = (name: string) => isSecretName(name) && !ENV_NOT_SECRET.test(name);
/** The environment given to servers the harness started (--env / env): their secret values are redacted too. */
const serverEnvs = new Map<string, Set<string>>();

/** Remembers the environment given to a server the harness starts, so that its secret values never get written. */
export function noteServerEnv(env: Record<string, string> | undefined): void {
  for (const [name, value] of Object.entries(env ?? {})) {
    if (!envSecret(name) || typeof value !== 'string' || value.length < MIN_SECRET_VALUE) continue;
    let s = serverEnvs.get(name);
    if (!s) serverEnvs.set(name, (s = new Set()));
    s.add(value);
  }
}

/** Secret values the harness itself came to hold (--oauth's tokens, client secret, code, verifier), with what each is. */
const heldSecrets = new Map<string, string>();

/**
 * Remembers a secret value the harness holds (an OAuth access token, refresh token, client secret, authorization
 * code, PKCE verifier): every text written through envSecretRedactor (report.json, report.html, JUnit, cassettes,
 * the console) then shows `[redacted: <what>]` in its place.
 */
export function noteSecretValue(value: string, what: string): void {
  if (typeof value === 'string' && value.length >= MIN_SECRET_VALUE) heldSecrets.set(value, what);
}

/** Hides the secret values the harness holds (noteSecretValue) in a text about to be shown. */
export function redactHeldSecrets(text: string): string {
  for (const [v, what] of heldSecrets) if (text.includes(v)) text = text.split(v).join(`[redacted: ${what}]`);
  return text;
}

const escapeRe = (s: string) => s.replace(/[.*+?^${}()|[\]\\]/g, '\\$&');
const escHtml = (s: string) =>
  s.replace(/&/g, '&amp;').replace(/</g, '&lt;').replace(/>/g, '&gt;').replace(/"/g, '&quot;').replace(/'/g, '&#39;');

/**
 * Hides environment secrets in text about to be written (report.json, report.html, a cassette): the value of every
 * environment variable whose name is secret (isSecretName; but PWD and the like, see ENV_NOT_SECRET) — the harness's own environment, which a server it starts
 * inherits, and the --env / env values given to such a server — at least 8 characters long, is replaced wherever it
 * appears by `[redacted: $NAME]`: as it is, and as JSON (once or twice escaped) or HTML writes it. A server that
 * prints its environment (server-everything's get-env tool) then leaves no secret of CI in a report.
 *
 * Returns the function that does it (built once per file written).
 */
export function envSecretRedactor(env: NodeJS.ProcessEnv = process.env): (text: string) => string {
  const byValue = new Map<string, string>();
  const addAs = (shown: string, value: string) => {
    const once = JSON.stringify(value).slice(1, -1);
    const twice = JSON.stringify(once).slice(1, -1);
    for (const v of [value, once, twice]) for (const w of [v, escHtml(v)]) if (!byValue.has(w)) byValue.set(w, shown);
  };
  const add = (name: string, value: string | undefined) => {
    if (!envSecret(name) || typeof value !== 'string' || value.length < MIN_SECRET_VALUE) return;
    addAs(`$${name}`, value);
  };
  for (const [value, what] of heldSecrets) addAs(what, value);
  for (const [name, value] of Object.entries(env)) add(name, value);
  for (const [name, values] of serverEnvs) for (const v of values) add(name, v);
  if (!byValue.size) return (text) => text;
  // Longest first, so that a secret containing another is replaced whole.
  const values = [...byValue.keys()].sort((a, b) => b.length - a.length);
  const re = new RegExp(values.map(escapeRe).join('|'), 'g');
  return (text) => text.replace(re, (m) => `[redacted: ${byValue.get(m)}]`);
}
