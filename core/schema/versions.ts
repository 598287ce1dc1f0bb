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
  return `https://modelcontextprotocol.io/specification/${v}/${path}`;
}
