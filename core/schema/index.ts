/** The schema documents the harness validates with, by protocol version. */
import { hasSchemaDocument, schemaDocument } from './documents/index.js';
import { PROTOCOL_VERSIONS, type ProtocolVersion } from './versions.js';

export { PROTOCOL_VERSIONS, type ProtocolVersion } from './versions.js';
export { MessageValidator } from './validator.js';

/**
 * The project's schema for a version; where that version has none yet, the nearest one that exists
 * (the returned `version` says which).
 */
export function schemaDocumentFor(v: ProtocolVersion): { version: ProtocolVersion; document: Record<string, unknown> } {
  if (hasSchemaDocument(v)) return { version: v, document: schemaDocument(v) };
  const i = PROTOCOL_VERSIONS.indexOf(v);
  const byDistance = [...PROTOCOL_VERSIONS]
    .filter(hasSchemaDocument)
    .sort((a, b) => Math.abs(PROTOCOL_VERSIONS.indexOf(a) - i) - Math.abs(PROTOCOL_VERSIONS.indexOf(b) - i));
  const near = byDistance[0];
  if (!near) throw new Error('no schema document is available');
  return { version: near, document: schemaDocument(near) };
}
