/**
 * The pure checkers of the compat and quality suites: (tools, profile) → findings. No I/O, no session: the same
 * functions serve `run`, `lint` and `tools --format`.
 */
import type { Tool } from '../../core/tools.js';
import { PROFILES, RULES, profileById, type ProviderId } from './rules.js';
import { isObject as isObj } from '../../core/objects.js';
import { SUBSCHEMA_LIST, SUBSCHEMA_MAP, SUBSCHEMA_ONE } from '../../core/schema-keywords.js';

export type Severity = 'fail' | 'warn' | 'info';

export interface Finding {
  /** Rule id, e.g. openai/name-pattern or quality/description-missing. */
  rule: string;
  provider?: ProviderId;
  /** The tool the finding is about; absent for a finding about the whole list. */
  tool?: string;
  /** JSON pointer into the tool definition ('' for the list, '/name', '/inputSchema/properties/x/items'…). */
  pointer: string;
  /** What is wrong, in plain words. */
  message: string;
  /** The provider's own error text for it, where known. */
  providerMessage?: string;
  severity: Severity;
  kind?: 'reject' | 'degrade';
}

type Json = Record<string, unknown>;
const NEEDS_ESC = /[~/]/;
const esc = (s: string) => (NEEDS_ESC.test(s) ? s.replace(/~/g, '~0').replace(/\//g, '~1') : s);
const unesc = (s: string) => s.replace(/~1/g, '/').replace(/~0/g, '~');

// `items` is walked both ways: a schema, or (before draft 2020-12) a list of schemas.
const SUB_ONE = SUBSCHEMA_ONE;
const SUB_LIST = [...SUBSCHEMA_LIST, 'items'];
const SUB_MAP = SUBSCHEMA_MAP;

/** Every keyword that may hold subschemas (SUB_ONE, SUB_LIST, SUB_MAP). */
const SUB_ANY = new Set([...SUB_ONE, ...SUB_LIST, ...SUB_MAP]);
/** Whether a schema object has a keyword that may hold subschemas (most nodes of a tool's schema are leaves). */
function mayHaveSubschemas(s: Json): boolean {
  for (const k in s) if (SUB_ANY.has(k)) return true;
  return false;
}

/** Every schema node of a schema, with its pointer (relative to the schema) and the number of nesting levels. */
export function schemaNodes(schema: unknown, base = ''): { node: Json; ptr: string; depth: number }[] {
  const out: { node: Json; ptr: string; depth: number }[] = [];
  const walk = (s: unknown, ptr: string, depth: number) => {
    if (!isObj(s)) return;
    out.push({ node: s, ptr, depth });
    // A leaf (no keyword that holds subschemas): nothing below it. The keywords are then visited in their fixed
    // order, so the nodes come in the same order whatever the schema's own key order.
    if (!mayHaveSubschemas(s)) return;
    for (const k of SUB_ONE) if (isObj(s[k])) walk(s[k], `${ptr}/${k}`, depth + (k === 'items' ? 1 : 0));
    for (const k of SUB_LIST)
      if (Array.isArray(s[k])) (s[k] as unknown[]).forEach((x, i) => walk(x, `${ptr}/${k}/${i}`, depth));
    for (const k of SUB_MAP)
      if (isObj(s[k]))
        for (const [name, x] of Object.entries(s[k] as Json))
          walk(x, `${ptr}/${k}/${esc(name)}`, depth + (k === 'properties' ? 1 : 0));
  };
  walk(schema, base, 0);
  return out;
}

const types = (n: Json): string[] =>
  Array.isArray(n.type) ? n.type.map(String) : typeof n.type === 'string' ? [n.type] : [];
const isArraySchema = (n: Json) => types(n).includes('array');
const isObjectSchema = (n: Json) => types(n).includes('object') || (n.type === undefined && isObj(n.properties));

/** OpenAI's context=('properties', 'x') notation of a pointer inside the schema. */
function openaiPath(ptr: string): string {
  const segs = ptr.split('/').slice(2).map(unesc); // drop '' and 'inputSchema'
  return segs.map((s) => `'${s}'`).join(', ');
}
/** Gemini's .properties[x].items notation of a pointer inside the schema. */
function geminiPath(ptr: string): string {
  const segs = ptr.split('/').slice(2).map(unesc);
  let out = '';
  for (let i = 0; i < segs.length; i++) {
    if (segs[i] === 'properties' && i + 1 < segs.length) {
      out += `.properties[${segs[++i]}]`;
      continue;
    }
    if (segs[i] === 'anyOf' && i + 1 < segs.length) {
      out += `.any_of[${segs[++i]}]`;
      continue;
    }
    out += `.${segs[i]}`;
  }
  return out;
}

function fill(template: string | undefined, v: Record<string, string | number>): string | undefined {
  return template?.replace(/\{(\w+)\}/g, (m, k: string) => (v[k] !== undefined ? String(v[k]) : m));
}

export const OPENAI_STRICT_FORMATS = new Set([
  'date-time',
  'time',
  'date',
  'duration',
  'email',
  'hostname',
  'ipv4',
  'ipv6',
  'uuid',
]);
export const OPENAI_STRICT_KEYWORDS = [
  'oneOf',
  'allOf',
  'not',
  'if',
  'then',
  'else',
  'dependentRequired',
  'dependentSchemas',
  'patternProperties',
];
/** pydantic-ai's _STRICT_INCOMPATIBLE_KEYS (patternProperties is in OPENAI_STRICT_KEYWORDS). */
export const OPENAI_STRICT_UNLISTED = [
  'minLength',
  'maxLength',
  'unevaluatedProperties',
  'propertyNames',
  'minProperties',
  'maxProperties',
  'unevaluatedItems',
  'contains',
  'minContains',
  'maxContains',
  'uniqueItems',
];
/** The fields of Gemini's Schema object (https://ai.google.dev/api/caching#Schema). */
export const GEMINI_KEYWORDS = new Set([
  'type',
  'format',
  'title',
  'description',
  'nullable',
  'enum',
  'maxItems',
  'minItems',
  'properties',
  'required',
  'minProperties',
  'maxProperties',
  'minLength',
  'maxLength',
  'pattern',
  'example',
  'anyOf',
  'propertyOrdering',
  'default',
  'items',
  'minimum',
  'maximum',
]);
const INT32_MAX = 2147483647;
const INT32_MIN = -2147483648;

interface Hit {
  pointer: string;
  message: string;
  vars?: Record<string, string | number>;
}

type Nodes = ReturnType<typeof schemaNodes>;

/**
 * schemaNodes(schema, '/inputSchema'), walked once per schema object and shared by every rule of every profile and by
 * toolQuality (a walk per rule per profile was most of the suites' time at 5,000 tools). Callers only read the list.
 * Keyed by the schema object (a tool list from the server is never changed after it is parsed), held weakly.
 */
const inputNodes = new WeakMap<object, Nodes>();
function inputSchemaNodes(schema: unknown): Nodes {
  if (!isObj(schema)) return [];
  let n = inputNodes.get(schema);
  if (!n) inputNodes.set(schema, (n = schemaNodes(schema, '/inputSchema')));
  return n;
}

/** The characters of s outside the character class re (global) matches. */
const bad = (re: RegExp, s: string) => s.replace(re, '');

/**
 * Checks one rule on one tool (index = its position in the list). List-level rules return [] here.
 */
function checkRule(ruleId: string, tool: Tool, index: number): Hit[] | undefined {
  void index;
  const name = tool.name;
  const schema = tool.inputSchema;
  const root = isObj(schema) ? schema : undefined;
  const hits: Hit[] = [];
  switch (ruleId) {
    case 'openai/name-pattern':
      if (!/^[a-zA-Z0-9_-]+$/.test(name))
        hits.push({
          pointer: '/name',
          message: `name "${name}" has characters outside a-z, A-Z, 0-9, _ and -: ${JSON.stringify([...new Set(bad(/[a-zA-Z0-9_-]/g, name))].join(''))}${name ? '' : ' (empty)'}`,
        });
      break;
    case 'openai/name-length':
      if (name.length > 64)
        hits.push({
          pointer: '/name',
          message: `name is ${name.length} characters (at most 64)`,
          vars: { count: name.length },
        });
      break;
    case 'openai/description-length':
      if (typeof tool.description === 'string' && tool.description.length > 1024)
        hits.push({
          pointer: '/description',
          message: `description is ${tool.description.length} characters (at most 1024)`,
          vars: { count: tool.description.length },
        });
      break;
    case 'openai/parameters-object':
    case 'anthropic/input-schema-object':
    case 'bedrock/input-schema-object':
    case 'gemini-json/root-object':
    case 'gemini/parameters-object':
      if (root?.type !== 'object')
        hits.push({
          pointer: '/inputSchema/type',
          message: `inputSchema.type is ${root ? (JSON.stringify(root.type) ?? 'missing') : 'not there (no inputSchema object)'}, not "object"`,
          vars: { value: root && typeof root.type === 'string' ? root.type : 'None' },
        });
      break;
    case 'openai/array-items':
    case 'gemini/array-items':
      for (const { node, ptr } of inputSchemaNodes(schema))
        if (isArraySchema(node) && node.items === undefined && node.prefixItems === undefined)
          hits.push({
            pointer: ptr,
            message: `array schema at ${ptr} has no items`,
            vars: { path: ruleId.startsWith('openai') ? openaiPath(ptr) : geminiPath(ptr) },
          });
      break;
    case 'openai-strict/additional-properties':
      for (const { node, ptr } of inputSchemaNodes(schema))
        if (isObjectSchema(node) && node.additionalProperties !== false)
          hits.push({
            pointer: ptr,
            message: `object schema at ${ptr || '/inputSchema'} does not set additionalProperties: false`,
            vars: { path: openaiPath(ptr) },
          });
      break;
    case 'openai-strict/all-required':
      for (const { node, ptr } of inputSchemaNodes(schema)) {
        if (!isObj(node.properties)) continue;
        const req = new Set(Array.isArray(node.required) ? node.required.map(String) : []);
        const missing = Object.keys(node.properties).filter((k) => !req.has(k));
        if (missing.length)
          hits.push({
            pointer: `${ptr}/required`,
            message: `properties not in required at ${ptr}: ${missing.join(', ')}`,
          });
      }
      break;
    case 'openai-strict/keyword':
      for (const { node, ptr } of inputSchemaNodes(schema))
        for (const k of OPENAI_STRICT_KEYWORDS)
          if (node[k] !== undefined)
            hits.push({
              pointer: `${ptr}/${k}`,
              message: `${k} at ${ptr} is not supported in strict mode`,
              vars: { key: k, path: openaiPath(ptr) },
            });
      break;
    case 'openai/top-level-combinator':
      for (const k of ['oneOf', 'anyOf', 'allOf', 'enum', 'not'])
        if (root && root[k] !== undefined)
          hits.push({ pointer: `/inputSchema/${k}`, message: `${k} at the top level of inputSchema` });
      break;
    case 'openai-strict/type-required':
    case 'gemini/type-required':
      for (const { node, ptr } of inputSchemaNodes(schema)) {
        const last = ptr.split('/').slice(-2);
        const isParam = last[0] === 'properties' || last[1] === 'items';
        if (
          isParam &&
          node.type === undefined &&
          node.anyOf === undefined &&
          node.$ref === undefined &&
          !(ruleId === 'gemini/type-required' && (node.oneOf !== undefined || node.allOf !== undefined))
        )
          hits.push({
            pointer: ptr,
            message: `schema at ${ptr} has no type`,
            vars: { path: ruleId.startsWith('gemini') ? geminiPath(ptr) : openaiPath(ptr) },
          });
      }
      break;
    case 'openai-strict/unlisted-keyword':
      for (const { node, ptr } of inputSchemaNodes(schema))
        for (const k of OPENAI_STRICT_UNLISTED)
          if (node[k] !== undefined)
            hits.push({
              pointer: `${ptr}/${k}`,
              message: `${k} at ${ptr} is not among the keywords strict mode lists`,
            });
      break;
    case 'openai-strict/format':
      for (const { node, ptr } of inputSchemaNodes(schema))
        if (typeof node.format === 'string' && !OPENAI_STRICT_FORMATS.has(node.format))
          hits.push({
            pointer: `${ptr}/format`,
            message: `format "${node.format}" at ${ptr} is not one strict mode accepts`,
            vars: { path: openaiPath(ptr), value: node.format },
          });
      break;
    case 'openai-strict/limits': {
      const all = inputSchemaNodes(schema);
      const depth = Math.max(0, ...all.map((n) => n.depth));
      const props = all.reduce((a, n) => a + (isObj(n.node.properties) ? Object.keys(n.node.properties).length : 0), 0);
      if (depth > 10) hits.push({ pointer: '/inputSchema', message: `schema nests ${depth} levels (at most 10)` });
      if (props > 5000)
        hits.push({ pointer: '/inputSchema', message: `schema has ${props} properties (at most 5000)` });
      break;
    }
    case 'anthropic/name-pattern':
      if (!/^[a-zA-Z0-9_-]{1,128}$/.test(name))
        hits.push({
          pointer: '/name',
          message:
            name.length > 128
              ? `name is ${name.length} characters (at most 128)`
              : `name "${name}" has characters outside a-z, A-Z, 0-9, _ and -: ${JSON.stringify([...new Set(bad(/[a-zA-Z0-9_-]/g, name))].join(''))}`,
        });
      break;
    case 'anthropic/name-length-64':
      if (/^[a-zA-Z0-9_-]{65,128}$/.test(name))
        hits.push({
          pointer: '/name',
          message: `name is ${name.length} characters: Claude Desktop / claude.ai connectors take at most 64`,
        });
      break;
    case 'anthropic/top-level-combinator':
      for (const k of ['oneOf', 'allOf', 'anyOf'])
        if (root && root[k] !== undefined)
          hits.push({ pointer: `/inputSchema/${k}`, message: `${k} at the top level of inputSchema` });
      break;
    case 'anthropic/property-key':
      if (root && isObj(root.properties))
        for (const k of Object.keys(root.properties))
          if (!/^[a-zA-Z0-9_.-]{1,64}$/.test(k))
            hits.push({
              pointer: `/inputSchema/properties/${esc(k)}`,
              message: `property name ${JSON.stringify(k)} is outside ^[a-zA-Z0-9_.-]{1,64}$`,
            });
      break;
    case 'bedrock/name-pattern':
      if (!/^[a-zA-Z0-9_-]{1,64}$/.test(name))
        hits.push({
          pointer: '/name',
          message:
            name.length > 64
              ? `name is ${name.length} characters (at most 64)`
              : `name "${name}" has characters outside a-z, A-Z, 0-9, _ and -: ${JSON.stringify([...new Set(bad(/[a-zA-Z0-9_-]/g, name))].join(''))}`,
          vars: { value: name },
        });
      break;
    case 'bedrock/description-empty':
      if (tool.description === '') hits.push({ pointer: '/description', message: 'description is the empty string' });
      break;
    case 'bedrock/description-missing':
      if (tool.description === undefined)
        hits.push({
          pointer: '/description',
          message: 'no description: clients that send description "" for it are rejected by Bedrock',
        });
      break;
    case 'bedrock/int-range': {
      // Only numbers and containers need a pointer: strings and booleans (most values) are passed over.
      const walk = (v: unknown, ptr: string) => {
        if (typeof v === 'number') {
          if (Number.isInteger(v) && (v > INT32_MAX || v < INT32_MIN))
            hits.push({ pointer: ptr, message: `integer ${v} at ${ptr} is outside the 32-bit range` });
        } else if (Array.isArray(v)) {
          for (let i = 0; i < v.length; i++)
            if (typeof v[i] === 'number' || (v[i] !== null && typeof v[i] === 'object')) walk(v[i], `${ptr}/${i}`);
        } else if (isObj(v)) {
          for (const k of Object.keys(v)) {
            const x = v[k];
            if (typeof x === 'number' || (x !== null && typeof x === 'object')) walk(x, `${ptr}/${esc(k)}`);
          }
        }
      };
      walk(schema, '/inputSchema');
      break;
    }
    case 'gemini/name-pattern':
      if (!/^[a-zA-Z_][a-zA-Z0-9_.:-]{0,63}$/.test(name)) {
        const why = !name
          ? 'is empty'
          : name.length > 64
            ? `is ${name.length} characters (at most 64)`
            : !/^[a-zA-Z_]/.test(name)
              ? `starts with ${JSON.stringify(name[0])} (a letter or _ is needed)`
              : `has characters outside a-z, A-Z, 0-9, _ . : -: ${JSON.stringify([...new Set(bad(/[a-zA-Z0-9_.:-]/g, name))].join(''))}`;
        hits.push({ pointer: '/name', message: `name "${name}" ${why}` });
      }
      break;
    case 'gemini/name-colon':
      if (/^[a-zA-Z_][a-zA-Z0-9_.:-]{0,63}$/.test(name) && name.includes(':'))
        hits.push({ pointer: '/name', message: `name "${name}" has a colon, which older Gemini API versions refuse` });
      break;
    case 'gemini/keyword': {
      const walk = (s: unknown, ptr: string) => {
        if (!isObj(s)) return;
        for (const [k, v] of Object.entries(s)) {
          if (!GEMINI_KEYWORDS.has(k)) {
            hits.push({
              pointer: `${ptr}/${esc(k)}`,
              message: `"${k}" at ${ptr} is not a field of Gemini's Schema`,
              vars: { key: k, path: geminiPath(ptr) },
            });
            continue;
          }
          if (k === 'properties' && isObj(v))
            for (const [p, x] of Object.entries(v)) walk(x, `${ptr}/properties/${esc(p)}`);
          if (k === 'items' && isObj(v)) walk(v, `${ptr}/items`);
          if (k === 'anyOf' && Array.isArray(v)) v.forEach((x, i) => walk(x, `${ptr}/anyOf/${i}`));
        }
      };
      walk(schema, '/inputSchema');
      break;
    }
    case 'gemini/type-array':
      for (const { node, ptr } of inputSchemaNodes(schema))
        if (Array.isArray(node.type))
          hits.push({
            pointer: `${ptr}/type`,
            message: `type at ${ptr} is a list ${JSON.stringify(node.type)}`,
            vars: { path: geminiPath(ptr) },
          });
      break;
    case 'gemini/format':
      for (const { node, ptr } of inputSchemaNodes(schema))
        if (
          typeof node.format === 'string' &&
          types(node).includes('string') &&
          node.format !== 'enum' &&
          node.format !== 'date-time'
        )
          hits.push({
            pointer: `${ptr}/format`,
            message: `string format "${node.format}" at ${ptr} (only enum and date-time)`,
            vars: { path: geminiPath(ptr) },
          });
      break;
    case 'gemini/enum-string':
      for (const { node, ptr } of inputSchemaNodes(schema)) {
        if (!Array.isArray(node.enum)) continue;
        const nonString = node.enum.filter((x) => typeof x !== 'string');
        if (nonString.length)
          hits.push({
            pointer: `${ptr}/enum`,
            message: `enum at ${ptr} has values that are not strings: ${JSON.stringify(nonString.slice(0, 3))}`,
          });
        else if (node.type !== 'string')
          hits.push({
            pointer: `${ptr}/enum`,
            message: `enum at ${ptr} is on a schema of type ${JSON.stringify(node.type) ?? '(none)'}, not "string"`,
          });
      }
      break;
    case 'gemini-json/schema-keyword':
      for (const { node, ptr } of inputSchemaNodes(schema))
        if (node.$schema !== undefined)
          hits.push({ pointer: `${ptr}/$schema`, message: `$schema at ${ptr || '/inputSchema'}` });
      break;
    case 'gemini-json/missing-types': {
      const typed = (s: unknown): boolean => {
        if (!isObj(s)) return true;
        if (s.type === undefined) {
          const subs = ['anyOf', 'oneOf', 'allOf'].flatMap((k) => (Array.isArray(s[k]) ? (s[k] as unknown[]) : []));
          if (!subs.length || !subs.every(typed)) return false;
        }
        if (isObj(s.properties) && !Object.values(s.properties).every(typed)) return false;
        if (isObj(s.items) && !typed(s.items)) return false;
        return true;
      };
      if (root && isObj(root.properties)) {
        for (const [k, v] of Object.entries(root.properties))
          if (!typed(v))
            hits.push({
              pointer: `/inputSchema/properties/${esc(k)}`,
              message: `parameter "${k}" (or a schema inside it) has no type`,
            });
      }
      break;
    }
    default:
      return undefined;
  }
  return hits;
}

const LIST_RULES: Record<string, number> = { 'openai/tool-count': 128, 'gemini/tool-count': 512 };

/**
 * The findings of one provider profile on a tool list. `enforce` (the profile was named in --providers) turns the
 * rejections into fail; otherwise every finding is a warn.
 */
export function checkProfile(tools: Tool[], providerId: ProviderId, opts: { enforce?: boolean } = {}): Finding[] {
  const profile = profileById(providerId);
  if (!profile) throw new Error(`unknown provider profile "${providerId}"`);
  const out: Finding[] = [];
  for (const ruleId of profile.rules) {
    const rule = RULES[ruleId]!;
    const severity: Severity = rule.kind === 'reject' && opts.enforce ? 'fail' : 'warn';
    const limit = LIST_RULES[ruleId];
    if (limit !== undefined) {
      if (tools.length > limit)
        out.push({
          rule: ruleId,
          provider: providerId,
          pointer: '',
          message: `${tools.length} tools (at most ${limit} in one request)`,
          providerMessage: fill(rule.wording, { count: tools.length }),
          severity,
          kind: rule.kind,
        });
      continue;
    }
    tools.forEach((tool, index) => {
      for (const h of checkRule(ruleId, tool, index) ?? []) {
        out.push({
          rule: ruleId,
          provider: providerId,
          tool: tool.name,
          pointer: h.pointer,
          message: h.message,
          providerMessage: fill(rule.wording, { index, tool: tool.name, value: tool.name, ...(h.vars ?? {}) }),
          severity,
          kind: rule.kind,
        });
      }
    });
  }
  return out;
}

/** Every rule id a checker implements (a test keeps this and the table in step). */
export function implementedRules(): string[] {
  const probe: Tool = { name: '', inputSchema: {} };
  return Object.keys(RULES).filter((id) => id in LIST_RULES || checkRule(id, probe, 0) !== undefined);
}

export { PROFILES };

// ---------------------------------------------------------------------------------------------------- quality
/** Parameter names that are framework context objects leaking into the schema. */
const CONTEXT_NAMES = new Set([
  'ctx',
  '_ctx',
  'context',
  'run_context',
  'runcontext',
  'tool_context',
  'toolcontext',
  'request_context',
  'mcp_context',
]);
const CONTEXT_WORDS = /\b(run[- ]?time|runtime|context|ctx|wrapper|injected|framework|dependency)\b/i;

export const QUALITY_RULES: Record<string, { severity: Severity; summary: string }> = {
  'quality/description-missing': {
    severity: 'warn',
    summary: 'the tool has no description: the model chooses tools by their description',
  },
  'quality/description-short': { severity: 'info', summary: 'the description is one word' },
  'quality/param-description': { severity: 'info', summary: 'a parameter has no description' },
  'quality/required-unknown': {
    severity: 'warn',
    summary: 'required names a property that properties does not define',
  },
  'quality/enum-empty': { severity: 'warn', summary: 'an enum with no values: no value can be valid' },
  'quality/context-param': {
    severity: 'warn',
    summary: 'a framework context object leaks into inputSchema: a parameter the model cannot fill',
  },
  'quality/name-collision': {
    severity: 'warn',
    summary: 'names that differ only by case or separator (-, _, ., /, space)',
  },
  'quality/naming-convention': {
    severity: 'info',
    summary: 'tool names mix naming conventions (snake_case, kebab-case, camelCase…)',
  },
};

const q = (rule: string, tool: string | undefined, pointer: string, message: string): Finding => ({
  rule,
  tool,
  pointer,
  message,
  severity: QUALITY_RULES[rule]!.severity,
});

/** The tool-definition quality findings of one tool. */
export function toolQuality(tool: Tool): Finding[] {
  const out: Finding[] = [];
  const d = typeof tool.description === 'string' ? tool.description.trim() : '';
  if (!d)
    out.push(
      q(
        'quality/description-missing',
        tool.name,
        '/description',
        tool.description === undefined ? 'no description' : 'the description is empty',
      ),
    );
  else if (!/\s/.test(d))
    out.push(
      q(
        'quality/description-short',
        tool.name,
        '/description',
        `the description is one word: ${JSON.stringify(d.slice(0, 60))}`,
      ),
    );
  const schema = tool.inputSchema;
  if (isObj(schema) && isObj(schema.properties)) {
    for (const [k, v] of Object.entries(schema.properties)) {
      const ptr = `/inputSchema/properties/${esc(k)}`;
      const p = isObj(v) ? v : {};
      const desc = typeof p.description === 'string' ? p.description : '';
      if (!desc.trim() && !(typeof p.title === 'string' && p.title.trim()))
        out.push(q('quality/param-description', tool.name, ptr, `parameter "${k}" has no description`));
      const opaque =
        (p.type === 'object' || p.type === undefined) &&
        !isObj(p.properties) &&
        !isObj(p.additionalProperties) &&
        p.$ref === undefined &&
        p.anyOf === undefined &&
        p.oneOf === undefined;
      if (CONTEXT_NAMES.has(k.toLowerCase()) && (p.type === 'object' || p.type === undefined || p.$ref !== undefined)) {
        out.push(
          q(
            'quality/context-param',
            tool.name,
            ptr,
            `parameter "${k}" looks like a framework context object (${p.type === undefined ? 'no type' : `type ${JSON.stringify(p.type)}`}${p.$ref ? `, $ref ${JSON.stringify(p.$ref)}` : ''}): a model cannot produce it; keep it out of inputSchema`,
          ),
        );
      } else if (opaque && p.type === 'object' && CONTEXT_WORDS.test(desc)) {
        out.push(
          q(
            'quality/context-param',
            tool.name,
            ptr,
            `parameter "${k}" is an object with no properties described as ${JSON.stringify(desc.slice(0, 80))}: a runtime wrapper the model cannot fill`,
          ),
        );
      }
    }
  }
  for (const { node, ptr } of inputSchemaNodes(schema)) {
    if (Array.isArray(node.required)) {
      const props = isObj(node.properties) ? node.properties : {};
      const unknown = node.required.filter((r) => typeof r !== 'string' || !(r in props));
      if (unknown.length)
        out.push(
          q(
            'quality/required-unknown',
            tool.name,
            `${ptr}/required`,
            `required lists ${unknown.map((u) => JSON.stringify(u)).join(', ')}, not defined in properties${ptr === '/inputSchema' ? '' : ` at ${ptr}`}: a caller can never satisfy it`,
          ),
        );
    }
    if (Array.isArray(node.enum) && node.enum.length === 0)
      out.push(q('quality/enum-empty', tool.name, `${ptr}/enum`, `enum at ${ptr} has no values`));
  }
  return out;
}

function convention(name: string): string | undefined {
  if (/^[a-z][a-z0-9]*$/.test(name)) return undefined; // one word: fits any convention
  if (/^[a-z][a-z0-9]*(_[a-z0-9]+)+$/.test(name)) return 'snake_case';
  if (/^[a-z][a-z0-9]*(-[a-z0-9]+)+$/.test(name)) return 'kebab-case';
  if (/^[a-z][a-z0-9]*([A-Z][a-z0-9]*)+$/.test(name)) return 'camelCase';
  if (/^[A-Z][a-z0-9]*([A-Z][a-z0-9]*)*$/.test(name)) return 'PascalCase';
  if (/^[A-Z][A-Z0-9]*(_[A-Z0-9]+)*$/.test(name)) return 'SCREAMING_CASE';
  if (/^[a-z][a-z0-9_-]*([./][a-z0-9_-]+)+$/i.test(name)) return 'namespaced (dots/slashes)';
  return 'mixed';
}

/** Findings about the list as a whole: names that collide once case and separators are ignored, mixed conventions. */
export function listQuality(tools: Tool[]): Finding[] {
  const out: Finding[] = [];
  const groups = new Map<string, string[]>();
  for (const t of tools) {
    const key = t.name.toLowerCase().replace(/[-_./ ]/g, '');
    const g = groups.get(key);
    if (g) g.push(t.name);
    else groups.set(key, [t.name]);
  }
  for (const names of groups.values()) {
    const distinct = [...new Set(names)];
    if (distinct.length > 1)
      out.push(
        q(
          'quality/name-collision',
          undefined,
          '',
          `${distinct.map((n) => JSON.stringify(n)).join(' and ')} differ only by case or separator: a model (and clients that normalise names) can confuse them`,
        ),
      );
  }
  const byConv = new Map<string, string[]>();
  for (const t of tools) {
    const c = convention(t.name);
    if (!c) continue;
    const g = byConv.get(c);
    if (g) g.push(t.name);
    else byConv.set(c, [t.name]);
  }
  if (byConv.size > 1) {
    out.push(
      q(
        'quality/naming-convention',
        undefined,
        '',
        `tool names mix ${byConv.size} conventions: ${[...byConv].map(([c, n]) => `${c} (${n.length}, e.g. "${n[0]}")`).join(', ')}`,
      ),
    );
  }
  return out;
}
