/**
 * The fixed names of the wire format, in one place: the `_meta` keys of the 2026-07-28 revision, the HTTP header
 * names of the Streamable HTTP transport, and the JSON-RPC error codes MCP uses. Model layer: imports only core/objects.ts.
 *
 * Sources: the `_meta` keys and the 2026-07-28 codes are in that revision's schema and its basic section
 * (https://modelcontextprotocol.io/specification/2026-07-28/basic/index); the header names in the transports section
 * of each revision (https://modelcontextprotocol.io/specification/2025-11-25/basic/transports); the standard codes
 * in JSON-RPC 2.0 (https://www.jsonrpc.org/specification#error_object).
 */
import { asObject as obj } from './objects.js';

/** The reverse-DNS prefix of every key MCP itself defines in `_meta`. */
export const MCP_META_PREFIX = 'io.modelcontextprotocol/';

/** `_meta` keys (2026-07-28): what a request or result carries about its sender, and subscription routing. */
export const META = {
  protocolVersion: 'io.modelcontextprotocol/protocolVersion',
  clientCapabilities: 'io.modelcontextprotocol/clientCapabilities',
  clientInfo: 'io.modelcontextprotocol/clientInfo',
  serverInfo: 'io.modelcontextprotocol/serverInfo',
  logLevel: 'io.modelcontextprotocol/logLevel',
  subscriptionId: 'io.modelcontextprotocol/subscriptionId',
} as const;

/** The tasks extension's identifier (2026-07-28), as named in capabilities.extensions. */
export const TASKS_EXTENSION = 'io.modelcontextprotocol/tasks';

/** HTTP header names of the Streamable HTTP transport, as the spec spells them (HTTP compares them case-insensitively). */
export const HEADER = {
  sessionId: 'Mcp-Session-Id',
  protocolVersion: 'MCP-Protocol-Version',
  lastEventId: 'Last-Event-ID',
  /** 2026-07-28: the request's method and name, mirrored into headers for routing. */
  method: 'Mcp-Method',
  name: 'Mcp-Name',
} as const;

/** JSON-RPC error codes: the standard ones, and those MCP revisions define. */
export const ERROR_CODE = {
  parseError: -32700,
  invalidRequest: -32600,
  methodNotFound: -32601,
  invalidParams: -32602,
  internalError: -32603,
  /** A resource that does not exist (the resources section of 2025-06-18 and later). */
  resourceNotFound: -32002,
  /** 2025-11-25: URL-mode elicitation is required first. */
  urlElicitationRequired: -32042,
  /** 2026-07-28: a request-metadata header disagrees with the body. */
  headerMismatch: -32020,
  /** 2026-07-28: the request needs a client capability it did not declare. */
  missingClientCapability: -32021,
  /** 2026-07-28: the protocol version is not supported. */
  unsupportedVersion: -32022,
} as const;

/** Whether a request declares the tasks extension in its own client capabilities (params._meta). */
export function requestDeclaresTasks(json: unknown): boolean {
  const params = obj(obj(json)?.params);
  return obj(obj(obj(obj(params?._meta)?.[META.clientCapabilities])?.extensions)?.[TASKS_EXTENSION]) !== undefined;
}
