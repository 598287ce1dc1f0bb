/**
 * `mcp-conform tools --format PROVIDER`: the MCP tool list as that provider's tool configuration (what client
 * developers write by hand), changed where the provider's rules demand it, with every change listed. What cannot be
 * changed without the server's help (a property name the provider refuses) is listed as unresolved; the result is
 * checked again with the provider's profile.
 */
import type { Tool } from '../../core/tools.js';
import {
  GEMINI_KEYWORDS,
  OPENAI_STRICT_FORMATS,
  OPENAI_STRICT_KEYWORDS,
  OPENAI_STRICT_UNLISTED,
  checkProfile,
  type Finding,
} from './check.js';
import { isObject as isObj } from '../../core/objects.js';

export type Format = 'openai' | 'anthropic' | 'bedrock' | 'gemini' | 'openai-strict' | 'gemini-json';

/** Every format `tools --format` prints. */
export const FORMATS: readonly Format[] = ['openai', 'openai-strict', 'anthropic', 'bedrock', 'gemini', 'gemini-json'];

export interface Change {
  tool: string;
  pointer: string;
  change: string;
}

export interface Converted {
  format: Format;
  /** The provider's tool configuration, ready to paste into a request. */
  config: unknown;
  changes: Change[];
  /** Rejections that remain after the changes (the provider would still refuse the request). */
  remaining: Finding[];
}

type Json = Record<string, unknown>;
const clone = <T>(v: T): T => (v === undefined ? v : (JSON.parse(JSON.stringify(v)) as T));

function fixName(name: string, format: Format, taken: Set<string>): string {
  const gemini = format === 'gemini' || format === 'gemini-json';
  let n = gemini ? name.replace(/[^a-zA-Z0-9_.-]/g, '_') : name.replace(/[^a-zA-Z0-9_-]/g, '_');
  if (gemini && !/^[a-zA-Z_]/.test(n)) n = `_${n}`;
  if (!n) n = 'tool';
  n = n.slice(0, 64);
  let out = n;
  for (let i = 2; taken.has(out); i++) out = `${n.slice(0, 64 - String(i).length - 1)}_${i}`;
  taken.add(out);
  return out;
}

function resolveRefs(schema: Json, root: Json, depth = 0): Json {
  const walk = (v: unknown, d: number): unknown => {
    if (Array.isArray(v)) return v.map((x) => walk(x, d));
    if (!isObj(v)) return v;
    if (typeof v.$ref === 'string' && v.$ref.startsWith('#/') && d < 10) {
      const target = v.$ref
        .slice(2)
        .split('/')
        .reduce<unknown>((o, k) => (isObj(o) ? o[k.replace(/~1/g, '/').replace(/~0/g, '~')] : undefined), root);
      if (isObj(target)) {
        const { $ref: _r, ...rest } = v;
        void _r;
        return walk({ ...target, ...rest }, d + 1);
      }
    }
    return Object.fromEntries(Object.entries(v).map(([k, x]) => [k, walk(x, d)]));
  };
  return walk(schema, depth) as Json;
}

/** Gemini's Schema subset of a JSON Schema node. */
function toGemini(s: unknown, ptr: string, note: (ptr: string, what: string) => void): Json {
  if (!isObj(s)) return { type: 'string' };
  const out: Json = {};
  let type = s.type;
  if (Array.isArray(type)) {
    const nonNull = type.filter((t) => t !== 'null');
    note(
      `${ptr}/type`,
      `type ${JSON.stringify(type)} became ${JSON.stringify(nonNull[0] ?? 'string')}${type.includes('null') ? ' with nullable: true' : ''}`,
    );
    if (type.includes('null')) out.nullable = true;
    type = nonNull[0] ?? 'string';
  }
  if (s.const !== undefined) {
    note(`${ptr}/const`, `const ${JSON.stringify(s.const)} became a one-value enum`);
    out.enum = [String(s.const)];
    type = 'string';
  }
  if (type !== undefined) out.type = type;
  for (const [k, v] of Object.entries(s)) {
    if (k === 'type' || k === 'const') continue;
    if (k === 'oneOf' && Array.isArray(v)) {
      note(`${ptr}/oneOf`, 'oneOf became anyOf');
      out.anyOf = v.map((x, i) => toGemini(x, `${ptr}/oneOf/${i}`, note));
      continue;
    }
    if (!GEMINI_KEYWORDS.has(k)) {
      note(`${ptr}/${k}`, `dropped "${k}" (not in Gemini's Schema)`);
      continue;
    }
    if (k === 'properties' && isObj(v)) {
      out.properties = Object.fromEntries(
        Object.entries(v).map(([p, x]) => [p, toGemini(x, `${ptr}/properties/${p}`, note)]),
      );
      continue;
    }
    if (k === 'items') {
      out.items = isObj(v) ? toGemini(v, `${ptr}/items`, note) : { type: 'string' };
      continue;
    }
    if (k === 'anyOf' && Array.isArray(v)) {
      out.anyOf = v.map((x, i) => toGemini(x, `${ptr}/anyOf/${i}`, note));
      continue;
    }
    if (k === 'format' && type === 'string' && v !== 'enum' && v !== 'date-time') {
      note(`${ptr}/format`, `dropped format "${String(v)}" (only enum and date-time)`);
      continue;
    }
    if (k === 'enum' && Array.isArray(v)) {
      if (v.some((x) => typeof x !== 'string') || out.type !== 'string') {
        note(`${ptr}/enum`, 'enum values became strings on a string schema');
        out.type = 'string';
      }
      out.enum = v.map((x) => (typeof x === 'string' ? x : JSON.stringify(x)));
      continue;
    }
    out[k] = v;
  }
  if (out.type === 'array' && out.items === undefined) {
    note(`${ptr}/items`, 'added items: {type: "string"} (the schema said nothing about the elements)');
    out.items = { type: 'string' };
  }
  return out;
}

/**
 * OpenAI strict mode (strict: true): every object closed (additionalProperties: false) with every property required —
 * an optional one becomes required and nullable (the model sends null for "not given"; the client drops it before the
 * call) — and no keyword strict mode refuses (oneOf becomes anyOf; the rest is dropped, each change noted).
 */
function toOpenAiStrict(s: unknown, ptr: string, note: (ptr: string, what: string) => void): unknown {
  if (Array.isArray(s)) return s.map((x, i) => toOpenAiStrict(x, `${ptr}/${i}`, note));
  if (!isObj(s)) return s;
  const out: Json = {};
  for (const [k, v] of Object.entries(s)) {
    if (k === 'oneOf' && Array.isArray(v)) {
      note(`${ptr}/oneOf`, 'oneOf became anyOf');
      out.anyOf = toOpenAiStrict(v, `${ptr}/oneOf`, note);
      continue;
    }
    if (
      (OPENAI_STRICT_KEYWORDS as readonly string[]).includes(k) ||
      (OPENAI_STRICT_UNLISTED as readonly string[]).includes(k)
    ) {
      note(`${ptr}/${k}`, `dropped "${k}" (strict mode refuses it; the server still checks it)`);
      continue;
    }
    if (k === 'format' && typeof v === 'string' && !OPENAI_STRICT_FORMATS.has(v)) {
      note(`${ptr}/format`, `dropped format "${v}" (not one strict mode accepts)`);
      continue;
    }
    if (k === 'enum' || k === 'const' || k === 'default' || k === 'examples') {
      out[k] = v;
      continue;
    }
    if (k === 'properties' && isObj(v)) {
      out.properties = Object.fromEntries(
        Object.entries(v).map(([p, x]) => [p, toOpenAiStrict(x, `${ptr}/properties/${p}`, note)]),
      );
      continue;
    }
    out[k] = toOpenAiStrict(v, `${ptr}/${k}`, note);
  }
  const types = Array.isArray(out.type) ? out.type : [out.type];
  if (types.includes('object') || isObj(out.properties)) {
    if (out.additionalProperties !== false) {
      note(
        `${ptr}/additionalProperties`,
        `set additionalProperties: false (was ${JSON.stringify(out.additionalProperties) ?? 'absent'})`,
      );
      out.additionalProperties = false;
    }
    const props = isObj(out.properties) ? out.properties : ((out.properties = {}) as Json);
    const required = new Set(Array.isArray(out.required) ? out.required.map(String) : []);
    for (const [p, x] of Object.entries(props)) {
      if (required.has(p)) continue;
      required.add(p);
      if (isObj(x) && typeof x.type === 'string') x.type = [x.type, 'null'];
      else if (isObj(x) && Array.isArray(x.type)) {
        if (!x.type.includes('null')) x.type = [...x.type, 'null'];
      } else props[p] = { anyOf: [x, { type: 'null' }] };
      note(
        `${ptr}/properties/${p}`,
        `optional "${p}" became required and nullable (strict mode has every property required: the model sends null for "not given", which the client drops before calling)`,
      );
    }
    out.required = [...required];
  }
  return out;
}

export function convertTools(tools: Tool[], format: Format): Converted {
  const changes: Change[] = [];
  const taken = new Set<string>();
  const fixed: Tool[] = tools.map((t) => {
    const note = (pointer: string, change: string) => changes.push({ tool: t.name, pointer, change });
    const name = fixName(t.name, format, taken);
    if (name !== t.name)
      note('/name', `renamed "${t.name}" to "${name}" (the client must map calls of "${name}" back to "${t.name}")`);
    let description = t.description;
    if (
      (format === 'openai' || format === 'openai-strict') &&
      typeof description === 'string' &&
      description.length > 1024
    ) {
      note('/description', `description cut from ${description.length} to 1024 characters`);
      description = description.slice(0, 1024);
    }
    if (format === 'bedrock' && description === '') {
      note('/description', 'left out the empty description (Bedrock refuses an empty one)');
      description = undefined;
    }
    let schema: Json = isObj(t.inputSchema) ? clone(t.inputSchema) : {};
    if (schema.type === undefined && (isObj(schema.properties) || !Object.keys(schema).length)) {
      note('/inputSchema/type', 'added type: "object"');
      schema.type = 'object';
    }
    if (format === 'openai' || format === 'openai-strict') {
      const walk = (s: unknown, ptr: string) => {
        if (Array.isArray(s)) return s.forEach((x, i) => walk(x, `${ptr}/${i}`));
        if (!isObj(s)) return;
        const ty = Array.isArray(s.type) ? s.type : [s.type];
        if (ty.includes('array') && s.items === undefined && s.prefixItems === undefined) {
          s.items = {};
          note(`${ptr}/items`, 'added items: {} (OpenAI needs items on every array)');
        }
        for (const [k, v] of Object.entries(s))
          if (k !== 'enum' && k !== 'const' && k !== 'default' && k !== 'examples') walk(v, `${ptr}/${k}`);
      };
      walk(schema, '/inputSchema');
    }
    if (format === 'anthropic') {
      for (const k of ['oneOf', 'anyOf', 'allOf'])
        if (schema[k] !== undefined) {
          note(
            `/inputSchema/${k}`,
            `removed the top-level ${k} (the model no longer sees that constraint; the server still checks it)`,
          );
          delete schema[k];
        }
    }
    if (format === 'bedrock') {
      const walk = (v: unknown, ptr: string): unknown => {
        if (typeof v === 'number' && Number.isInteger(v) && (v > 2147483647 || v < -2147483648)) {
          const c = v > 0 ? 2147483647 : -2147483648;
          note(ptr, `integer ${v} clamped to ${c}`);
          return c;
        }
        if (Array.isArray(v)) return v.map((x, i) => walk(x, `${ptr}/${i}`));
        if (isObj(v)) return Object.fromEntries(Object.entries(v).map(([k, x]) => [k, walk(x, `${ptr}/${k}`)]));
        return v;
      };
      schema = walk(schema, '/inputSchema') as Json;
    }
    if (format === 'openai-strict') schema = toOpenAiStrict(schema, '/inputSchema', note) as Json;
    if (format === 'gemini-json') {
      // parametersJsonSchema takes JSON Schema itself: only $schema goes (Gemini refuses it).
      const drop = (v: unknown, ptr: string): unknown => {
        if (Array.isArray(v)) return v.map((x, i) => drop(x, `${ptr}/${i}`));
        if (!isObj(v)) return v;
        return Object.fromEntries(
          Object.entries(v)
            .filter(([k]) => {
              if (k === '$schema') note(`${ptr}/$schema`, 'dropped "$schema" (Gemini refuses it)');
              return k !== '$schema';
            })
            .map(([k, x]) => [k, k === 'enum' || k === 'const' || k === 'default' ? x : drop(x, `${ptr}/${k}`)]),
        );
      };
      schema = drop(schema, '/inputSchema') as Json;
    }
    if (format === 'gemini') {
      if (JSON.stringify(schema).includes('"$ref"')) {
        note('/inputSchema', 'inlined local $ref definitions');
        schema = resolveRefs(schema, schema);
      }
      schema = toGemini(schema, '/inputSchema', note);
    }
    return { ...t, name, description, inputSchema: schema };
  });
  const profile = format;
  const remaining = checkProfile(fixed, profile).filter((f) => f.kind === 'reject');
  const desc = (t: Tool) => (t.description !== undefined ? { description: t.description } : {});
  let config: unknown;
  if (format === 'openai')
    config = fixed.map((t) => ({
      type: 'function',
      function: { name: t.name, ...desc(t), parameters: t.inputSchema },
    }));
  else if (format === 'openai-strict')
    config = fixed.map((t) => ({
      type: 'function',
      function: { name: t.name, ...desc(t), parameters: t.inputSchema, strict: true },
    }));
  else if (format === 'gemini-json')
    config = [
      { functionDeclarations: fixed.map((t) => ({ name: t.name, ...desc(t), parametersJsonSchema: t.inputSchema })) },
    ];
  else if (format === 'anthropic')
    config = fixed.map((t) => ({ name: t.name, ...desc(t), input_schema: t.inputSchema }));
  else if (format === 'bedrock')
    config = {
      tools: fixed.map((t) => ({ toolSpec: { name: t.name, ...desc(t), inputSchema: { json: t.inputSchema } } })),
    };
  else config = [{ functionDeclarations: fixed.map((t) => ({ name: t.name, ...desc(t), parameters: t.inputSchema })) }];
  return { format, config, changes, remaining };
}
