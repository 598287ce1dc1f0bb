/**
 * The HTTP of the authorization itself (discovery, registration, the authorization URL, the token endpoint): one
 * bounded request each on node:http, recorded as an AuthExchange with its secrets redacted. Secret values met on the
 * way (tokens, client secrets, codes, verifiers) are noted with core/secrets.ts so that no report, cassette or console
 * line ever shows them, whichever way they travel.
 */
import { performance } from 'node:perf_hooks';
import { header, httpRequest, readBody } from '../transport/http.js';
import { noteSecretValue, redactUrl } from '../secrets.js';
import type { AuthExchange } from './credentials.js';

/** Members of a JSON body (and parameters of a URL or form) whose values are secrets of OAuth. */
const SECRET_MEMBERS =
  /^(access_token|refresh_token|id_token|client_secret|registration_access_token|code|code_verifier|assertion|password)$/i;

/** A URL as an AuthExchange shows it: redactUrl, and the OAuth secrets of its query (code, …) hidden. */
export function shownUrl(u: string | URL): string {
  const s = redactUrl(u);
  return s.replace(/([?&#])([^=&#]+)=([^&#]*)/g, (m, sep: string, k: string) =>
    SECRET_MEMBERS.test(decodeURIComponent(k)) ? `${sep}${k}=[redacted]` : m,
  );
}

/** A body as an AuthExchange shows it: JSON with secret members replaced, a form with secret fields replaced. */
export function shownBody(text: string, max = 4096): string {
  let out = text;
  try {
    const j = JSON.parse(text) as unknown;
    if (j && typeof j === 'object') {
      const walk = (v: unknown): unknown =>
        Array.isArray(v)
          ? v.map(walk)
          : v && typeof v === 'object'
            ? Object.fromEntries(
                Object.entries(v as Record<string, unknown>).map(([k, x]) => [
                  k,
                  SECRET_MEMBERS.test(k) && typeof x === 'string' ? '[redacted]' : walk(x),
                ]),
              )
            : v;
      out = JSON.stringify(walk(j));
    }
  } catch {
    if (/^[\w.%-]+=[^\s]*(&[\w.%-]+=[^\s]*)*$/.test(text.trim()))
      out = text
        .trim()
        .split('&')
        .map((p) => {
          const [k = ''] = p.split('=');
          return SECRET_MEMBERS.test(k) ? `${k}=[redacted]` : p;
        })
        .join('&');
    // Any other text (an HTML redirect page) may quote a URL: its secret parameters are hidden too.
    else
      out = text.replace(/([?&#;]|&amp;)([A-Za-z_]+)=([^&#"'\s<]*)/g, (m, sep: string, k: string) =>
        SECRET_MEMBERS.test(k) ? `${sep}${k}=[redacted]` : m,
      );
  }
  return out.length > max ? `${out.slice(0, max)}…` : out;
}

/** Note the secret values of a token or registration answer (they are then redacted wherever text is written). */
export function noteSecrets(j: Record<string, unknown>): void {
  for (const [k, v] of Object.entries(j))
    if (SECRET_MEMBERS.test(k) && typeof v === 'string') noteSecretValue(v, `oauth ${k}`);
}

export interface Answer {
  status: number;
  headers: Record<string, string>;
  text: string;
  /** The body as JSON, when it is. */
  json?: unknown;
}

const KEPT = [
  'www-authenticate',
  'content-type',
  'location',
  'set-cookie',
  'access-control-allow-origin',
  'access-control-expose-headers',
  'cache-control',
];

export class Wire {
  readonly exchanges: AuthExchange[] = [];
  constructor(
    private readonly t0: number,
    readonly timeoutMs: number,
    private readonly signal?: AbortSignal,
  ) {}

  /** ms since the authorization began (AuthExchange.t). */
  now(): number {
    return Math.round(performance.now() - this.t0);
  }

  /**
   * One request, bounded by timeoutMs (status line and body); resolves with the answer, or rejects with a plain
   * message (the exchange is recorded either way).
   */
  async send(
    purpose: string,
    method: string,
    url: URL,
    headers: Record<string, string> = {},
    body?: string,
  ): Promise<Answer> {
    const x: AuthExchange = { purpose, method, url: shownUrl(url), t: this.now() };
    this.exchanges.push(x);
    if (!/^https?:$/.test(url.protocol)) {
      x.error = `not an http(s) URL`;
      throw new Error(`${purpose}: ${shownUrl(url)} is not an http(s) URL`);
    }
    try {
      const res = await httpRequest(url, method, { 'User-Agent': 'mcp-conform', ...headers }, body, {
        timeoutMs: this.timeoutMs,
        agent: false,
        ...(this.signal ? { signal: this.signal } : {}),
      });
      const b = await readBody(res.body, 1024 * 1024, this.timeoutMs);
      x.status = res.status;
      const kept: Record<string, string> = {};
      for (const k of KEPT) {
        const v = header(res.headers, k);
        if (v !== undefined) kept[k] = k === 'set-cookie' ? '[redacted]' : k === 'location' ? shownUrl(v) : v;
      }
      x.headers = kept;
      let json: unknown;
      try {
        json = JSON.parse(b.text);
      } catch {
        /* not JSON */
      }
      if (json && typeof json === 'object') noteSecrets(json as Record<string, unknown>);
      if (b.text) x.body = shownBody(b.text);
      if (b.error) x.error = b.error;
      const all: Record<string, string> = {};
      for (const [k, v] of Object.entries(res.headers))
        if (v !== undefined) all[k] = Array.isArray(v) ? (k === 'set-cookie' ? v.join('\n') : v.join(', ')) : v;
      return { status: res.status, headers: all, text: b.text, ...(json !== undefined ? { json } : {}) };
    } catch (e) {
      x.error = (e as Error).message;
      throw new Error(`${purpose}: ${shownUrl(url)}: ${(e as Error).message}`);
    }
  }

  /** GET a JSON document: the object, or undefined with why (404, not JSON, …) noted on the exchange. */
  async getJson(purpose: string, url: URL): Promise<{ doc?: Record<string, unknown>; why?: string }> {
    let a: Answer;
    try {
      a = await this.send(purpose, 'GET', url, { Accept: 'application/json' });
    } catch (e) {
      return { why: (e as Error).message };
    }
    if (a.status !== 200) return { why: `${shownUrl(url)}: HTTP ${a.status}` };
    if (!a.json || typeof a.json !== 'object' || Array.isArray(a.json))
      return {
        why: `${shownUrl(url)}: HTTP 200 but the body is not a JSON object (${(a.headers['content-type'] ?? 'no Content-Type').split(';')[0]})`,
      };
    return { doc: a.json as Record<string, unknown> };
  }
}
