/**
 * The tools the client scenarios tool-schemas and remote-ref add to the fixture, and the loopback listener that serves
 * the remote-ref tool's referenced schema (so that a client that dereferences it is seen, not sent to the internet).
 *
 * - tool-schemas: `plot`, whose inputSchema and outputSchema use JSON Schema 2020-12 keywords (no `$schema`: 2020-12
 *   is the default dialect from 2025-11-25) — `$defs` reached by a JSON-pointer `$ref` and by an `$anchor`,
 *   `prefixItems`, `dependentRequired`, `if`/`then`/`else`, `unevaluatedProperties`.
 * - remote-ref: `locate`, whose inputSchema and outputSchema `$ref` a schema at an http:// URL on 127.0.0.1, which
 *   2026-07-28 forbids a client to dereference unless the user opted in.
 *
 * The mock judges nothing: it serves these and records each request the listener gets.
 * https://modelcontextprotocol.io/specification/2026-07-28/basic/index#json-schema-usage
 */
import { createServer } from 'node:http';
import type { AddressInfo } from 'node:net';
import type { FixtureTool } from '../core/formats/fixture.js';

/** The tool of scenario tool-schemas. */
export const SCHEMA_TOOL = 'plot';
/** The tool of scenario remote-ref. */
export const REMOTE_REF_TOOL = 'locate';
/** Where the listener serves the referenced schema (the path of the URL in `locate`'s schemas). */
export const REF_PATH = '/mcp-conform/schemas/point.json';

const point2020 = {
  $defs: {
    coord: { $anchor: 'coord', type: 'number' },
    point: { type: 'array', prefixItems: [{ $ref: '#coord' }, { $ref: '#/$defs/coord' }], items: false, minItems: 2 },
  },
};

/** `plot`: 2020-12 keywords only a 2020-12 reader takes right (a draft-07 validator cannot resolve `#coord`). */
export function schemaTool(): FixtureTool {
  return {
    name: SCHEMA_TOOL,
    description:
      'Plots a point (its schemas use JSON Schema 2020-12 keywords: $defs, $anchor, prefixItems, dependentRequired, if/then/else, unevaluatedProperties).',
    inputSchema: {
      type: 'object',
      ...point2020,
      properties: { point: { $ref: '#/$defs/point' }, unit: { enum: ['px', 'mm'] }, scale: { type: 'number' } },
      required: ['point'],
      dependentRequired: { scale: ['unit'] },
      if: { properties: { unit: { const: 'mm' } }, required: ['unit'] },
      then: { properties: { scale: { maximum: 10 } } },
      else: { properties: { scale: { maximum: 1000 } } },
      unevaluatedProperties: false,
    },
    outputSchema: {
      type: 'object',
      ...point2020,
      properties: { plotted: { $ref: '#/$defs/point' }, unit: { enum: ['px', 'mm'] } },
      required: ['plotted'],
      unevaluatedProperties: false,
    },
    annotations: { readOnlyHint: true },
    answers: [{ structuredContent: { plotted: [1, 2], unit: 'mm' } }],
  };
}

/** `locate`: its schemas `$ref` `refUrl` (served by the listener). */
export function remoteRefTool(refUrl: string): FixtureTool {
  return {
    name: REMOTE_REF_TOOL,
    description:
      'Locates a point (its schemas $ref a schema at a network URL, which a client must not fetch by itself).',
    inputSchema: { type: 'object', properties: { where: { $ref: refUrl } }, required: ['where'] },
    outputSchema: { type: 'object', properties: { where: { $ref: refUrl } }, required: ['where'] },
    annotations: { readOnlyHint: true },
    answers: [{ structuredContent: { where: { x: 1, y: 2 } } }],
  };
}

/** The schema served at REF_PATH (what `locate` refers to). */
export const REFERENCED_SCHEMA = {
  $id: 'point.json',
  type: 'object',
  properties: { x: { type: 'number' }, y: { type: 'number' } },
  required: ['x', 'y'],
};

/** One request the listener got. */
export interface RefFetch {
  t: number;
  method: string;
  url: string;
  userAgent?: string;
}

export interface RunningRefHost {
  url: string;
  fetches: RefFetch[];
  close(): Promise<void>;
}

/** The listener of scenario remote-ref: 127.0.0.1, a free port; every request recorded, the schema served at REF_PATH. */
export async function startRefHost(): Promise<RunningRefHost> {
  const fetches: RefFetch[] = [];
  const server = createServer((req, res) => {
    fetches.push({
      t: Date.now(),
      method: req.method ?? 'GET',
      url: req.url ?? '/',
      ...(req.headers['user-agent'] ? { userAgent: String(req.headers['user-agent']) } : {}),
    });
    req.resume();
    const found = new URL(req.url ?? '/', 'http://127.0.0.1').pathname === REF_PATH;
    res.writeHead(found ? 200 : 404, { 'content-type': found ? 'application/schema+json' : 'text/plain' });
    res.end(found ? JSON.stringify(REFERENCED_SCHEMA) : 'not found');
  });
  server.on('clientError', (_e, socket) => socket.destroy());
  await new Promise<void>((resolve, reject) => {
    server.once('error', reject);
    server.listen(0, '127.0.0.1', () => {
      server.off('error', reject);
      resolve();
    });
  });
  const port = (server.address() as AddressInfo).port;
  return {
    url: `http://127.0.0.1:${port}${REF_PATH}`,
    fetches,
    close: () =>
      new Promise<void>((resolve) => {
        server.closeAllConnections();
        server.close(() => resolve());
      }),
  };
}
