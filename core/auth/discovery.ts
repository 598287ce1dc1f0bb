/**
 * --oauth's discovery, as the spec tells a client to for the version in force
 * (https://modelcontextprotocol.io/specification/2025-11-25/basic/authorization#authorization-server-discovery):
 * an unauthenticated request to the MCP URL; its 401's Bearer challenge; the protected-resource metadata (RFC 9728:
 * the challenge's `resource_metadata`, else the path-suffixed well-known URL, else the root one), whose `resource`
 * must be the MCP URL (§3.3); the authorization-server metadata (RFC 8414 with path insertion, then OpenID Connect
 * discovery with insertion, then appended), whose `issuer` must be the one named (RFC 8414 §3.3). 2025-03-26 (and a
 * server with no protected-resource metadata): the MCP URL's origin is the authorization server, its metadata at the
 * origin's well-known URL, else the default endpoints /authorize, /token, /register.
 */
import type { ProtocolVersion } from '../schema/versions.js';
import { bearerChallenge } from './challenge.js';
import { shownUrl, type Wire } from './wire.js';

export class OAuthError extends Error {}

export interface Discovered {
  /** The canonical MCP URL: the resource indicator sent (RFC 8707). */
  resource: string;
  challenge?: { status: number; header?: string; scope?: string; resourceMetadata?: string };
  resourceMetadataUrl?: string;
  resourceMetadata?: Record<string, unknown>;
  issuer: string;
  authorizationServerMetadataUrl?: string;
  /** As served; absent when the 2025-03-26 default endpoints are used. */
  authorizationServerMetadata?: Record<string, unknown>;
  /** The endpoints to use: from the metadata, else the 2025-03-26 defaults. */
  endpoints: { authorization?: string; token?: string; registration?: string };
  /** No protected-resource metadata: the 2025-03-26 way (origin as authorization server). */
  legacy: boolean;
  /** The server answered the unauthenticated request without asking for authorization. */
  open?: boolean;
}

/**
 * The canonical form of the MCP URL (the resource indicator sent, and the form both sides are compared in): scheme and
 * host lowercased, no fragment, and no trailing slash on a bare origin — the form the spec prefers
 * (https://modelcontextprotocol.io/specification/2025-11-25/basic/authorization#canonical-server-uri).
 */
export function canonicalUri(u: string): string {
  const url = new URL(u);
  url.hash = '';
  return url.pathname === '/' && !url.search ? url.href.slice(0, -1) : url.href;
}

/**
 * Whether two resource identifiers name the same resource: the one rule of the project (server checks, client grading,
 * the protected mock). They are compared in canonical form (https://modelcontextprotocol.io/specification/2025-11-25/basic/authorization#canonical-server-uri,
 * RFC 8707 §2): scheme and host in lower case, default port and fragment dropped, a bare origin the same with or
 * without its slash; a path keeps its trailing slash (`/mcp/` is not `/mcp`). Anything that is not a URL names nothing.
 */
export function sameResource(a: unknown, b: string): boolean {
  if (typeof a !== 'string') return false;
  try {
    return canonicalUri(a) === canonicalUri(b);
  } catch {
    return false;
  }
}

/** The well-known URL for a resource or issuer: inserted after the host, before the path (RFC 9728 §3.1, RFC 8414 §3.1). */
export function wellKnown(id: string, suffix: string, how: 'insert' | 'append' | 'root' = 'insert'): URL {
  const u = new URL(id);
  const path = u.pathname === '/' ? '' : u.pathname.replace(/\/$/, '');
  if (how === 'root' || !path) return new URL(`/.well-known/${suffix}`, u.origin);
  return new URL(how === 'insert' ? `/.well-known/${suffix}${path}` : `${path}/.well-known/${suffix}`, u.origin);
}

/** Whether the version in force finds authorization servers through protected-resource metadata (2025-06-18 on). */
export const usesResourceMetadata = (v: ProtocolVersion) => v >= '2025-06-18';

function endpointsOf(m: Record<string, unknown>): Discovered['endpoints'] {
  const str = (v: unknown) => (typeof v === 'string' ? v : undefined);
  return {
    authorization: str(m.authorization_endpoint),
    token: str(m.token_endpoint),
    registration: str(m.registration_endpoint),
  };
}

export async function discover(
  wire: Wire,
  mcpUrl: string,
  version: ProtocolVersion,
  headers: Record<string, string>,
): Promise<Discovered> {
  const resource = canonicalUri(mcpUrl);
  // The unauthenticated request a client makes first: an initialize POST, as the session would send it.
  const probeBody = JSON.stringify({
    jsonrpc: '2.0',
    id: 'mcp-conform-oauth',
    method: 'initialize',
    params: { protocolVersion: version, capabilities: {}, clientInfo: { name: 'mcp-conform', version: '0' } },
  });
  const probeHeaders: Record<string, string> = {
    'Content-Type': 'application/json',
    Accept: 'application/json, text/event-stream',
  };
  for (const [k, v] of Object.entries(headers)) if (k.toLowerCase() !== 'authorization') probeHeaders[k] = v;
  let challenge: Discovered['challenge'];
  try {
    const a = await wire.send(
      'unauthenticated request to the MCP URL',
      'POST',
      new URL(resource),
      probeHeaders,
      probeBody,
    );
    const www = a.headers['www-authenticate'];
    const bearer = bearerChallenge(www);
    challenge = {
      status: a.status,
      ...(www !== undefined ? { header: www } : {}),
      ...(bearer?.params.scope ? { scope: bearer.params.scope } : {}),
      ...(bearer?.params.resource_metadata ? { resourceMetadata: bearer.params.resource_metadata } : {}),
    };
    if (a.status >= 200 && a.status < 300) {
      const sid = a.headers['mcp-session-id'];
      if (sid)
        await wire
          .send('end the session the unauthenticated request opened', 'DELETE', new URL(resource), {
            'Mcp-Session-Id': sid,
          })
          .catch(() => undefined);
      return { resource, challenge, issuer: '', endpoints: {}, legacy: false, open: true };
    }
  } catch (e) {
    throw new OAuthError(`the MCP server could not be reached: ${(e as Error).message}`);
  }

  let prm: { url: URL; doc: Record<string, unknown> } | undefined;
  const tried: string[] = [];
  if (usesResourceMetadata(version)) {
    const candidates: [URL, string][] = [];
    if (challenge.resourceMetadata) {
      let u: URL | undefined;
      try {
        u = new URL(challenge.resourceMetadata);
      } catch {
        tried.push(
          `the challenge's resource_metadata ${JSON.stringify(challenge.resourceMetadata)} is not an absolute URL`,
        );
      }
      if (u) candidates.push([u, 'protected-resource metadata (from the challenge)']);
    }
    const suffixed = wellKnown(resource, 'oauth-protected-resource');
    const root = wellKnown(resource, 'oauth-protected-resource', 'root');
    if (suffixed.href !== root.href)
      candidates.push([suffixed, 'protected-resource metadata (path-suffixed well-known URL)']);
    candidates.push([root, 'protected-resource metadata (root well-known URL)']);
    const seen = new Set<string>();
    for (const [url, purpose] of candidates) {
      if (seen.has(url.href)) continue;
      seen.add(url.href);
      const r = await wire.getJson(purpose, url);
      if (r.doc) {
        prm = { url, doc: r.doc };
        break;
      }
      tried.push(r.why!);
    }
    // The 2025-03-26 way is for a server that has no protected-resource metadata at all: not for one whose challenge
    // names metadata that cannot be read, or whose metadata is there but broken.
    if (!prm && (challenge.resourceMetadata !== undefined || tried.some((w) => !/: HTTP 404$/.test(w)))) {
      throw new OAuthError(`no usable protected-resource metadata: ${tried.join('; ')}`);
    }
  }
  if (prm) {
    if (!sameResource(prm.doc.resource, resource)) {
      throw new OAuthError(
        `the protected-resource metadata at ${shownUrl(prm.url)} names resource ${JSON.stringify(prm.doc.resource)}, not the MCP URL ${resource}: a client must not use metadata for another resource (RFC 9728 §3.3), so --oauth stops here`,
      );
    }
    const servers = prm.doc.authorization_servers;
    if (!Array.isArray(servers) || !servers.length || typeof servers[0] !== 'string') {
      throw new OAuthError(
        `the protected-resource metadata at ${shownUrl(prm.url)} names no authorization server (authorization_servers ${JSON.stringify(servers)})`,
      );
    }
    const issuer = servers[0] as string;
    let issuerUrl: URL;
    try {
      issuerUrl = new URL(issuer);
    } catch {
      throw new OAuthError(
        `the protected-resource metadata's authorization server ${JSON.stringify(issuer)} is not a URL`,
      );
    }
    const hasPath = issuerUrl.pathname !== '/' && issuerUrl.pathname !== '';
    const order: [URL, string][] = hasPath
      ? [
          [wellKnown(issuer, 'oauth-authorization-server'), 'authorization-server metadata (RFC 8414, path inserted)'],
          [
            wellKnown(issuer, 'openid-configuration'),
            'authorization-server metadata (OpenID discovery, path inserted)',
          ],
          [
            wellKnown(issuer, 'openid-configuration', 'append'),
            'authorization-server metadata (OpenID discovery, path appended)',
          ],
        ]
      : [
          [wellKnown(issuer, 'oauth-authorization-server'), 'authorization-server metadata (RFC 8414)'],
          [wellKnown(issuer, 'openid-configuration'), 'authorization-server metadata (OpenID discovery)'],
        ];
    const whyNot: string[] = [];
    for (const [url, purpose] of order) {
      const r = await wire.getJson(purpose, url);
      if (!r.doc) {
        whyNot.push(r.why!);
        continue;
      }
      if (!sameResource(r.doc.issuer, issuer))
        throw new OAuthError(
          `the authorization-server metadata at ${shownUrl(url)} names issuer ${JSON.stringify(r.doc.issuer)}, not ${issuer} as the protected-resource metadata does: it must not be used (RFC 8414 §3.3)`,
        );
      return {
        resource,
        challenge,
        resourceMetadataUrl: prm.url.href,
        resourceMetadata: prm.doc,
        issuer,
        authorizationServerMetadataUrl: url.href,
        authorizationServerMetadata: r.doc,
        endpoints: endpointsOf(r.doc),
        legacy: false,
      };
    }
    throw new OAuthError(`no authorization-server metadata for ${issuer}: ${whyNot.join('; ')}`);
  }
  // 2025-03-26, or no protected-resource metadata anywhere: the MCP URL's origin is the authorization server.
  const origin = new URL(resource).origin;
  const url = wellKnown(origin, 'oauth-authorization-server', 'root');
  const r = await wire.getJson("authorization-server metadata (2025-03-26: the MCP URL's origin)", url);
  if (r.doc) {
    if (!sameResource(r.doc.issuer, origin))
      throw new OAuthError(
        `the authorization-server metadata at ${shownUrl(url)} names issuer ${JSON.stringify(r.doc.issuer)}, not ${origin}: it must not be used (RFC 8414 §3.3)`,
      );
    return {
      resource,
      challenge,
      issuer: origin,
      authorizationServerMetadataUrl: url.href,
      authorizationServerMetadata: r.doc,
      endpoints: endpointsOf(r.doc),
      legacy: true,
    };
  }
  if (usesResourceMetadata(version) && !/HTTP 404/.test(r.why ?? '')) {
    throw new OAuthError(
      `no protected-resource metadata (${tried.join('; ')}) and no authorization-server metadata at the origin (${r.why})`,
    );
  }
  // The default endpoints of 2025-03-26 (https://modelcontextprotocol.io/specification/2025-03-26/basic/authorization#fallbacks-for-servers-without-metadata-discovery).
  return {
    resource,
    challenge,
    issuer: origin,
    legacy: true,
    endpoints: { authorization: `${origin}/authorize`, token: `${origin}/token`, registration: `${origin}/register` },
  };
}
