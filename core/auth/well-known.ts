/**
 * The well-known URLs of OAuth metadata as MCP uses them: a protected resource's (RFC 9728 §3.1) and an
 * authorization server's (RFC 8414 §3.1 and OpenID Connect Discovery, in the order the spec tells clients to try).
 * https://modelcontextprotocol.io/specification/2025-11-25/basic/authorization#authorization-server-metadata-discovery
 */

/** RFC 9728 §3.1: the well-known suffix goes between the host and the path. Path-suffixed first, then the root. */
export function resourceMetadataUrls(resource: string): { pathSuffixed?: string; root: string } {
  const u = new URL(resource);
  const path = u.pathname === '/' ? '' : u.pathname.replace(/\/$/, '');
  const root = `${u.origin}/.well-known/oauth-protected-resource`;
  return path ? { pathSuffixed: root + path, root } : { root };
}

/**
 * Where a client looks for an authorization server's metadata, in the order the spec gives (2025-11-25 on: RFC 8414
 * with path insertion, then OpenID discovery inserted, then appended; without a path, RFC 8414 then OpenID).
 */
export function authorizationServerMetadataUrls(issuer: string): string[] {
  const u = new URL(issuer);
  const path = u.pathname === '/' ? '' : u.pathname.replace(/\/$/, '');
  if (!path) return [`${u.origin}/.well-known/oauth-authorization-server`, `${u.origin}/.well-known/openid-configuration`];
  return [`${u.origin}/.well-known/oauth-authorization-server${path}`, `${u.origin}/.well-known/openid-configuration${path}`, `${u.origin}${path}/.well-known/openid-configuration`];
}
