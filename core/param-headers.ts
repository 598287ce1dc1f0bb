/**
 * Request headers mirrored from the body in 2026-07-28 Streamable HTTP: the Base64 sentinel form of a value
 * (`=?base64?…?=`), and the custom headers a tool asks for by marking input properties with `x-mcp-header`
 * (each becomes `Mcp-Param-{Name}` carrying that argument). One home for the harness's client side (the transport
 * sends them), its server probes (suites/http-streams.ts), the mock server and the client grading.
 * https://modelcontextprotocol.io/specification/2026-07-28/basic/transports/streamable-http#custom-headers-from-tool-parameters
 * https://modelcontextprotocol.io/specification/2026-07-28/server/tools#x-mcp-header
 */
import { isObject as isObj } from './objects.js';

/** A header value as the client meant it: the Base64 sentinel form `=?base64?…?=` decoded. */
export function headerValue(v: string): string {
  const m = /^=\?base64\?([A-Za-z0-9+/=]*)\?=$/.exec(v);
  return m ? Buffer.from(m[1]!, 'base64').toString('utf8') : v;
}

/**
 * A value as a header carries it: plain when it is visible ASCII or inner spaces/tabs with no whitespace at either
 * end and does not look like the sentinel; else the UTF-8 bytes in the Base64 sentinel form.
 */
export function headerSafe(v: string): string {
  return /^[\x20-\x7e\t]*$/.test(v) && v.trim() === v && !/^=\?base64\?.*\?=$/.test(v)
    ? v
    : `=?base64?${Buffer.from(v, 'utf8').toString('base64')}?=`;
}

/** One x-mcp-header annotation: the header's name part and the chain of `properties` keys to the marked property. */
export interface HeaderParam {
  name: string;
  path: string[];
}

/** The x-mcp-header annotations of an inputSchema reachable through `properties` chains only. */
export function headerParams(schema: unknown, path: string[] = [], out: HeaderParam[] = []): HeaderParam[] {
  if (!isObj(schema) || !isObj(schema.properties)) return out;
  for (const [k, sub] of Object.entries(schema.properties)) {
    if (!isObj(sub)) continue;
    if (typeof sub['x-mcp-header'] === 'string') out.push({ name: sub['x-mcp-header'], path: [...path, k] });
    headerParams(sub, [...path, k], out);
  }
  return out;
}

/** The argument at a property path; undefined when absent or null (the header is then omitted). */
export function argumentAt(args: unknown, path: readonly string[]): unknown {
  let v = args;
  for (const k of path) {
    if (!isObj(v)) return undefined;
    v = v[k];
  }
  return v === null ? undefined : v;
}

/** A primitive argument as a header value (strings as they are, integers in decimal, booleans in lower case), encoded. */
export function paramHeaderValue(v: unknown): string | undefined {
  if (typeof v === 'string') return headerSafe(v);
  if (typeof v === 'number' || typeof v === 'boolean') return String(v);
  return undefined;
}

/** The Mcp-Param-{Name} headers a tools/call of a tool with this inputSchema carries for these arguments. */
export function paramHeaders(inputSchema: unknown, args: unknown): Record<string, string> {
  const out: Record<string, string> = {};
  for (const h of headerParams(inputSchema)) {
    const v = paramHeaderValue(argumentAt(args, h.path));
    if (v !== undefined) out[`Mcp-Param-${h.name}`] = v;
  }
  return out;
}

/** Whether a header value (decoded) stands for the body's value: numbers compared as numbers. */
export function sameParamValue(header: string, body: unknown): boolean {
  const v = headerValue(header);
  if (typeof body === 'number') return v.trim() !== '' && Number(v) === body;
  if (typeof body === 'boolean') return v === String(body);
  return v === body;
}

const TOKEN = /^[!#$%&'*+\-.^_`|~0-9A-Za-z]+$/;
/** Keywords holding one schema or a list of them, and keywords holding a map of schemas: a mark under them is unreachable. */
const COMBINATORS = [
  'items',
  'prefixItems',
  'additionalProperties',
  'oneOf',
  'anyOf',
  'allOf',
  'not',
  'if',
  'then',
  'else',
  'contains',
  'unevaluatedProperties',
  'unevaluatedItems',
  'propertyNames',
];
const MAPS = ['$defs', 'definitions', 'patternProperties', 'dependentSchemas'];

/**
 * What is wrong with a tool's x-mcp-header annotations (empty when nothing): a value that is no HTTP token, a name
 * used twice (case-insensitively), a mark on a property that is not a string, integer or boolean, or a mark that
 * is not reached through `properties` keys alone (under items, a combinator, a conditional, $defs).
 */
export function headerParamProblems(inputSchema: unknown): string[] {
  const problems: string[] = [];
  const seen = new Map<string, string>();
  const walk = (s: unknown, where: string, reachable: boolean): void => {
    if (Array.isArray(s)) {
      s.forEach((x, i) => walk(x, `${where}/${i}`, false));
      return;
    }
    if (!isObj(s)) return;
    const mark = s['x-mcp-header'];
    if (mark !== undefined && where !== '') {
      const at = where || '/';
      if (typeof mark !== 'string' || !TOKEN.test(mark))
        problems.push(`${at}: x-mcp-header ${JSON.stringify(mark)} is not an HTTP header-name token`);
      else {
        const key = mark.toLowerCase();
        if (seen.has(key))
          problems.push(
            `${at}: x-mcp-header ${JSON.stringify(mark)} repeats ${seen.get(key)} (names are compared case-insensitively)`,
          );
        else seen.set(key, at);
      }
      if (!reachable) problems.push(`${at}: x-mcp-header on a property not reached through properties keys alone`);
      const type = s.type;
      if (typeof type !== 'string' || !['string', 'integer', 'boolean'].includes(type))
        problems.push(
          `${at}: x-mcp-header on a property of type ${JSON.stringify(type ?? '(none)')} (only string, integer and boolean may be marked)`,
        );
    }
    for (const [k, v] of Object.entries(s)) {
      if (k === 'properties' && isObj(v)) {
        for (const [p, sub] of Object.entries(v)) walk(sub, `${where}/properties/${p}`, reachable);
        continue;
      }
      if (MAPS.includes(k) && isObj(v)) {
        for (const [p, sub] of Object.entries(v)) walk(sub, `${where}/${k}/${p}`, false);
        continue;
      }
      if (COMBINATORS.includes(k)) walk(v, `${where}/${k}`, false);
    }
  };
  walk(inputSchema, '', true);
  return problems;
}
