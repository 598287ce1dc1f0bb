/** The published MCP protocol versions, oldest first. */
export const PROTOCOL_VERSIONS = ['2024-11-05', '2025-03-26', '2025-06-18', '2025-11-25', '2026-07-28'] as const;
export type ProtocolVersion = (typeof PROTOCOL_VERSIONS)[number];

/** The version the harness offers in `initialize` unless told otherwise (newest with an initialize handshake). */
export const DEFAULT_OFFERED_VERSION: ProtocolVersion = '2025-11-25';

export function isProtocolVersion(v: unknown): v is ProtocolVersion {
  return typeof v === 'string' && (PROTOCOL_VERSIONS as readonly string[]).includes(v);
}

/** JSON Schema dialect each version's official schema is written in. */
export function dialectOf(v: ProtocolVersion): 'draft-07' | '2020-12' {
  return v < '2025-11-25' ? 'draft-07' : '2020-12';
}

/** Link to a section of the specification of a version, e.g. specUrl('2025-11-25', 'server/tools#calling-tools'). */
export function specUrl(v: ProtocolVersion, path: string): string {
  // An extension's specification lives elsewhere: its cases give the full address.
  if (path.startsWith('https://')) return path;
  return `https://modelcontextprotocol.io/specification/${v}/${specPath(v, path)}`;
}

/** 2026-07-28 sections of basic/authorization that moved to pages of their own. */
const AUTH_DISCOVERY_ANCHORS = [
  'authorization-server-location',
  'protected-resource-metadata-discovery-requirements',
  'authorization-server-metadata-discovery',
];
const AUTH_REGISTRATION_ANCHORS = [
  'client-registration-approaches',
  'client-id-metadata-documents',
  'dynamic-client-registration',
];

/**
 * A section path as it is in a version: pages moved between versions. 2026-07-28 split basic/transports into
 * basic/transports/stdio and basic/transports/streamable-http, replaced the initialize handshake by server/discover
 * (basic/lifecycle is the versioning page there) and removed ping; before it, streamable-http had no page of its own,
 * and security_best_practices arrived in 2025-06-18.
 */
export function specPath(v: ProtocolVersion, path: string): string {
  const [page, anchor] = path.split('#') as [string, string | undefined];
  const at = (p: string, a = anchor) => (a ? `${p}#${a}` : p);
  if (v >= '2026-07-28') {
    if (page === 'basic/transports')
      return anchor === 'stdio' ? 'basic/transports/stdio' : at('basic/transports/streamable-http');
    if (page === 'basic/lifecycle') return anchor === 'initialization' ? 'server/discover' : 'basic/lifecycle';
    if (page === 'basic/utilities/ping') return 'changelog';
    if (page === 'basic/utilities/cancellation') return at('basic/patterns/cancellation');
    // The authorization page became a folder: discovery and registration have pages of their own.
    if (page === 'basic/authorization' && anchor && AUTH_DISCOVERY_ANCHORS.includes(anchor))
      return at('basic/authorization/authorization-server-discovery');
    if (page === 'basic/authorization' && anchor && AUTH_REGISTRATION_ANCHORS.includes(anchor))
      return at('basic/authorization/client-registration');
    return path;
  }
  if (page === 'basic/transports/streamable-http')
    return v >= '2025-03-26' ? 'basic/transports#streamable-http' : 'basic/transports';
  if (page === 'basic/security_best_practices' && v < '2025-06-18') return 'basic/transports#security-warning';
  return path;
}
