/**
 * What the `auth` suite learns once per run and its cases share (run services): the answer to a request without
 * credentials and its challenge; the protected-resource metadata (from the challenge, the path-suffixed and the root
 * well-known URL); the authorization server's metadata, looked for in the spec's order; and how the server answers
 * a request carrying a given token.
 */
import type { CaseContext, Outcome } from '../../core/suite.js';
import type { Service } from '../../core/services.js';
import { credentialsInput, type TokenVariant } from '../../core/auth/credentials.js';
import { requestMetaFor } from '../../core/negotiate.js';
import { CLIENT_INFO } from '../../core/run.js';
import { isObject } from '../helpers.js';
import { httpRequest, SseParser } from '../../core/transport/http.js';
import { redactHeaders, redactUrl } from '../../core/secrets.js';
import {
  authorizationServerMetadataUrls,
  bearerOf,
  resourceMetadataUrls,
  send,
  type AuthProbe,
  type Challenge,
  type ProbeAnswer,
} from './probe.js';

/** The MCP URL the run uses (the one a token's audience and the metadata's `resource` must name). */
export function mcpUrlOf(ctx: CaseContext): string | undefined {
  const u = (ctx.http ?? ctx.sse)?.url ?? (ctx.transport as { url?: URL }).url;
  return u?.href;
}

const isSse = (ctx: CaseContext) => ctx.transport.kind === 'sse';

let ids = 0;
/**
 * The request that reaches the MCP endpoint without a session: over Streamable HTTP a POST of the handshake's first
 * request (initialize, or server/discover in 2026-07-28), over HTTP+SSE the GET that opens the stream.
 */
export function mcpRequest(ctx: CaseContext): { method: string; headers: Record<string, string>; body?: string } {
  if (isSse(ctx)) return { method: 'GET', headers: { Accept: 'text/event-stream' } };
  const id = `mcp-conform-auth-${++ids}`;
  if (ctx.features.initialize) {
    return {
      method: 'POST',
      headers: { 'Content-Type': 'application/json', Accept: 'application/json, text/event-stream' },
      body: JSON.stringify({
        jsonrpc: '2.0',
        id,
        method: 'initialize',
        params: { protocolVersion: ctx.version, capabilities: {}, clientInfo: CLIENT_INFO },
      }),
    };
  }
  return {
    method: 'POST',
    headers: {
      'Content-Type': 'application/json',
      Accept: 'application/json, text/event-stream',
      'MCP-Protocol-Version': ctx.version,
      'Mcp-Method': 'server/discover',
    },
    body: JSON.stringify({
      jsonrpc: '2.0',
      id,
      method: 'server/discover',
      params: { _meta: requestMetaFor(ctx.version, CLIENT_INFO) },
    }),
  };
}

/**
 * Send the MCP request with these extra headers (and URL); a session the server opened for an accepted initialize is
 * ended again (DELETE with the same headers), so the probes leave nothing behind.
 */
export async function mcpProbe(
  ctx: CaseContext,
  purpose: string,
  extra: Record<string, string>,
  url = mcpUrlOf(ctx)!,
): Promise<ProbeAnswer> {
  const r = mcpRequest(ctx);
  const a = await send(purpose, url, r.method, { ...r.headers, ...extra }, r.body, ctx.timeoutMs);
  const sid = a.headers['mcp-session-id'];
  if (sid && a.status !== undefined && a.status < 300)
    void send("end the probe's session", url, 'DELETE', { ...extra, 'Mcp-Session-Id': sid }, undefined, 5000);
  return a;
}

export interface Unauthenticated {
  url: string;
  answer: ProbeAnswer;
  /** The WWW-Authenticate value, if any. */
  www?: string;
  bearer?: Challenge;
  /** The server answered 401: it requires authorization (the other cases apply). */
  protected: boolean;
}

export const unauthenticated: Service<Unauthenticated | undefined> = {
  id: 'auth/unauthenticated',
  async produce(ctx) {
    const url = mcpUrlOf(ctx);
    if (!url) return undefined;
    const answer = await mcpProbe(ctx, 'the MCP request without credentials', {});
    const www = answer.headers['www-authenticate'];
    return { url, answer, www, bearer: bearerOf(www), protected: answer.status === 401 };
  },
};

/**
 * The skip of every case but the first when the server did not ask for authorization (or could not be asked): the
 * first case (auth/unauthenticated/post) says what came.
 */
export async function whenProtected(ctx: CaseContext): Promise<Unauthenticated | Outcome> {
  const u = await ctx.service(unauthenticated);
  if (!u) return { verdict: 'skip', message: 'not over HTTP: there is no URL to ask' };
  if (u.answer.probe.error)
    return {
      verdict: 'skip',
      message: `the request without credentials failed (${u.answer.probe.error}): nothing to check`,
    };
  if (!u.protected)
    return {
      verdict: 'skip',
      message: `the server requires no authorization (a request without credentials got HTTP ${u.answer.status}): nothing to check`,
    };
  return u;
}

export interface MetadataFetch {
  url: string;
  answer: ProbeAnswer;
  /** The document, when the answer was a 200 with a JSON object. */
  doc?: Record<string, unknown>;
  /** Why it is not usable, in plain words. */
  problem?: string;
}

async function fetchMetadata(
  ctx: CaseContext,
  purpose: string,
  url: string,
  headers: Record<string, string> = {},
): Promise<MetadataFetch> {
  const answer = await send(purpose, url, 'GET', { Accept: 'application/json', ...headers }, undefined, ctx.timeoutMs);
  const f: MetadataFetch = { url, answer };
  if (answer.probe.error) f.problem = `the request failed: ${answer.probe.error}`;
  else if (answer.status !== 200)
    f.problem = `HTTP ${answer.status}${answer.status === 401 ? ' (the metadata is behind the authorization it describes)' : ''}`;
  else if (!isObject(answer.json))
    f.problem = `HTTP 200 but ${answer.json === undefined ? `not JSON (${answer.headers['content-type'] ?? 'no Content-Type'})` : 'not a JSON object'}`;
  else f.doc = answer.json;
  return f;
}

export interface ResourceMetadata {
  /** resource_metadata from the challenge, as given. */
  named?: string;
  fromChallenge?: MetadataFetch;
  pathSuffixed?: MetadataFetch;
  root?: MetadataFetch;
  /** The document a client would use: the challenge's, else the path-suffixed, else the root one. */
  used?: MetadataFetch & { doc: Record<string, unknown>; how: 'challenge' | 'path-suffixed' | 'root' };
}

export const resourceMetadata: Service<ResourceMetadata | undefined> = {
  id: 'auth/resource-metadata',
  async produce(ctx) {
    const u = await ctx.service(unauthenticated);
    if (!u?.protected) return undefined;
    const out: ResourceMetadata = {};
    const named = u.bearer?.params.resource_metadata;
    const w = resourceMetadataUrls(u.url);
    const tasks: Promise<void>[] = [];
    if (named !== undefined) {
      out.named = named;
      let abs: URL | undefined;
      try {
        abs = new URL(named);
      } catch {
        /* not absolute: auth/challenge/resource-metadata says so */
      }
      if (abs && /^https?:$/.test(abs.protocol))
        tasks.push(
          fetchMetadata(ctx, 'protected-resource metadata (the URL the challenge names)', abs.href).then((f) => {
            out.fromChallenge = f;
          }),
        );
    }
    if (w.pathSuffixed)
      tasks.push(
        fetchMetadata(ctx, 'protected-resource metadata (path-suffixed well-known URL)', w.pathSuffixed).then((f) => {
          out.pathSuffixed = f;
        }),
      );
    tasks.push(
      fetchMetadata(ctx, 'protected-resource metadata (root well-known URL)', w.root).then((f) => {
        out.root = f;
      }),
    );
    await Promise.all(tasks);
    for (const [how, f] of [
      ['challenge', out.fromChallenge],
      ['path-suffixed', out.pathSuffixed],
      ['root', out.root],
    ] as const) {
      if (f?.doc) {
        out.used = { ...f, doc: f.doc, how };
        break;
      }
    }
    return out;
  },
};

export interface AuthorizationServerMetadata {
  /** The authorization server named (the first of authorization_servers; 2025-03-26: the MCP URL's origin). */
  issuer: string;
  how: 'protected-resource metadata' | 'the MCP origin (2025-03-26)';
  tried: MetadataFetch[];
  found?: MetadataFetch & { doc: Record<string, unknown> };
}

export const authorizationServerMetadata: Service<AuthorizationServerMetadata | undefined> = {
  id: 'auth/authorization-server-metadata',
  async produce(ctx) {
    const u = await ctx.service(unauthenticated);
    if (!u?.protected) return undefined;
    let issuer: string | undefined;
    let how: AuthorizationServerMetadata['how'];
    if (ctx.features.originAuthorizationMetadata) {
      issuer = new URL(u.url).origin;
      how = 'the MCP origin (2025-03-26)';
    } else {
      const prm = await ctx.service(resourceMetadata);
      const list = prm?.used?.doc.authorization_servers;
      issuer = Array.isArray(list) && typeof list[0] === 'string' ? list[0] : undefined;
      how = 'protected-resource metadata';
    }
    if (!issuer) return undefined;
    let urls: string[];
    try {
      urls = ctx.features.originAuthorizationMetadata
        ? [`${issuer}/.well-known/oauth-authorization-server`]
        : authorizationServerMetadataUrls(issuer);
    } catch {
      return { issuer, how, tried: [] };
    }
    const out: AuthorizationServerMetadata = { issuer, how, tried: [] };
    for (const url of urls) {
      const f = await fetchMetadata(
        ctx,
        'authorization-server metadata',
        url,
        ctx.features.originAuthorizationMetadata ? { 'MCP-Protocol-Version': ctx.version } : {},
      );
      out.tried.push(f);
      if (f.doc) {
        out.found = { ...f, doc: f.doc };
        break;
      }
    }
    return out;
  },
};

/** How the server answers the MCP request carrying a token of each variant: one run service per variant. */
const tokenServices = new Map<TokenVariant, Service<ProbeAnswer>>();

/**
 * The MCP request with a token of this variant (the run's own token for 'valid'; mint() for the others), once per
 * run; undefined when the run holds no such token (no credentials; no mint without --auth-server).
 */
export function withToken(ctx: CaseContext, variant: TokenVariant): Promise<ProbeAnswer> | undefined {
  const c = ctx.input(credentialsInput);
  if (!c || (variant !== 'valid' && !c.mint)) return undefined;
  let s = tokenServices.get(variant);
  if (!s) {
    s = {
      id: `auth/token/${variant}`,
      async produce(ctx) {
        const cr = ctx.input(credentialsInput)!;
        const token = variant === 'valid' ? await cr.accessToken() : await cr.mint!(variant);
        const purpose = `the MCP request with ${variant === 'valid' ? "the run's token" : `a token: ${variant}`}`;
        if (!token)
          return {
            probe: {
              purpose,
              method: 'POST',
              url: mcpUrlOf(ctx) ?? '',
              requestHeaders: {},
              error: 'the run holds no token now',
            },
            headers: {},
            text: '',
          };
        return mcpProbe(ctx, purpose, { Authorization: `Bearer ${token}` });
      },
    };
    tokenServices.set(variant, s);
  }
  return ctx.service(s);
}

/** The evidence of a case: the requests it rests on, redacted. */
export function evidence(...answers: (ProbeAnswer | MetadataFetch | undefined)[]): { exchanges: AuthProbe[] } {
  return {
    exchanges: answers
      .filter((a): a is ProbeAnswer | MetadataFetch => a !== undefined)
      .map((a) => ('answer' in a ? a.answer.probe : a.probe)),
  };
}

/**
 * HTTP+SSE: open a stream of its own with the token and wait (bounded) for its endpoint event; resolves to the URL
 * its messages are POSTed to (the session it names), with the stream's request as evidence, and close() to end it.
 */
export async function sseSession(
  ctx: CaseContext,
  url: string,
  token: string,
): Promise<{ postUrl?: string; probe: AuthProbe; close(): void }> {
  const headers = { Accept: 'text/event-stream', Authorization: `Bearer ${token}` };
  const probe: AuthProbe = {
    purpose: "an HTTP+SSE stream of its own, with the run's token",
    method: 'GET',
    url: redactUrl(url),
    requestHeaders: redactHeaders(headers)!,
  };
  const ac = new AbortController();
  const close = () => ac.abort();
  try {
    const res = await httpRequest(new URL(url), 'GET', headers, undefined, {
      timeoutMs: Math.min(ctx.timeoutMs, 15_000),
      agent: false,
      signal: ac.signal,
    });
    probe.status = res.status;
    if (res.status !== 200) {
      res.body.destroy();
      return { probe, close };
    }
    const postUrl = await new Promise<string | undefined>((resolve) => {
      const timer = setTimeout(() => resolve(undefined), Math.min(ctx.timeoutMs, 10_000));
      const parser = new SseParser((e) => {
        if (e.event === 'endpoint') {
          clearTimeout(timer);
          resolve(new URL(e.data.trim(), url).href);
        }
      });
      res.body.on('data', (b: Buffer) => parser.feed(b));
      res.body.on('close', () => {
        clearTimeout(timer);
        resolve(undefined);
      });
      res.body.on('error', () => {
        clearTimeout(timer);
        resolve(undefined);
      });
    });
    if (!postUrl) probe.error = 'no endpoint event came';
    return { postUrl, probe, close };
  } catch (e) {
    probe.error = (e as Error).message;
    return { probe, close };
  }
}
