/**
 * --client-capabilities sampling,elicitation,roots: what the harness declares as a client, and the canned answers it
 * gives the server's requests for them (documented in docs/run.md). Whatever is declared, every server request is
 * logged and schema-checked; one for a capability not declared is answered -32601 and judged by the server-requests
 * suite.
 */
export const CLIENT_CAPABILITY_NAMES = ['sampling', 'elicitation', 'roots'] as const;
export type ClientCapabilityName = (typeof CLIENT_CAPABILITY_NAMES)[number];

export interface Root {
  uri: string;
  name?: string;
}

/** The roots answered to roots/list when roots is declared and no --root is given. */
export const DEFAULT_ROOTS: Root[] = [{ uri: 'file:///mcp-conform/root', name: 'mcp-conform' }];

/** The text of the canned sampling answer. */
export const CANNED_SAMPLING_TEXT =
  'This is a canned answer from mcp-conform, a conformance test client; no model was asked.';

/** The capabilities object the harness declares (initialize, or the 2026-07-28 request _meta). */
export function clientCapabilitiesObject(names: readonly string[]): Record<string, unknown> {
  const caps: Record<string, unknown> = {};
  if (names.includes('sampling')) caps.sampling = {};
  if (names.includes('elicitation')) caps.elicitation = {};
  if (names.includes('roots')) caps.roots = { listChanged: false };
  return caps;
}

/** Method of a server-to-client request → the client capability it needs. */
export const CAPABILITY_OF_REQUEST: Record<string, ClientCapabilityName> = {
  'sampling/createMessage': 'sampling',
  'elicitation/create': 'elicitation',
  'roots/list': 'roots',
};

/**
 * The canned result for a server request of a declared capability: sampling — a fixed assistant text; elicitation —
 * decline (nothing is made up for the user); roots — the configured list.
 */
export function cannedResult(
  method: string,
  roots: readonly Root[] = DEFAULT_ROOTS,
): Record<string, unknown> | undefined {
  switch (method) {
    case 'sampling/createMessage':
      return {
        role: 'assistant',
        content: { type: 'text', text: CANNED_SAMPLING_TEXT },
        model: 'mcp-conform-canned',
        stopReason: 'endTurn',
      };
    case 'elicitation/create':
      return { action: 'decline' };
    case 'roots/list':
      return { roots: roots.map((r) => ({ ...r })) };
    default:
      return undefined;
  }
}
