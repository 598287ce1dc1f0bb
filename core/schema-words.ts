/**
 * ajv's error objects in a few words a person can act on, for the user's own files (config, mock fixtures,
 * expectation files): an unknown key is named with its path and the nearest known key ("targets[0].command: unknown
 * key; did you mean stdio?"); the errors a oneOf makes of each branch it tried ("must have required property …" per
 * branch, "must match exactly one schema in oneOf") become one line naming the keys it takes one of, and only when no
 * unknown key at that place already explains it. The validator must be compiled with `verbose: true` (the
 * suggestions read each error's parentSchema).
 */
import type { ErrorObject } from 'ajv';
import { nearest } from './suggest.js';

/** "/targets/0/command" → "targets[0].command" ("(top level)" for ""). */
export function pathWords(pointer: string, key?: string): string {
  const parts = pointer
    .split('/')
    .slice(1)
    .map((p) => p.replace(/~1/g, '/').replace(/~0/g, '~'));
  if (key !== undefined) parts.push(key);
  if (!parts.length) return '(top level)';
  return parts.map((p, i) => (/^\d+$/.test(p) ? `[${p}]` : i ? `.${p}` : p)).join('');
}

/** Keys people write for one the format calls otherwise (the nearest by spelling would miss them). */
const SYNONYMS: Record<string, string[]> = {
  command: ['stdio', 'start', 'call'],
  cmd: ['stdio', 'start'],
  exec: ['stdio'],
  endpoint: ['http', 'url'],
  uri: ['url', 'read'],
  address: ['url', 'http'],
  tool: ['call', 'tools'],
  method: ['request'],
  args: ['arguments'],
  argv: ['arguments'],
  input: ['arguments'],
  expected: ['expect'],
  result: ['expect', 'result'],
};

/** The keys a oneOf's branches require (from the schema of a verbose oneOf error). */
function branchKeys(e: ErrorObject): string[] {
  const branches = Array.isArray(e.schema) ? (e.schema as { required?: string[] }[]) : [];
  return [...new Set(branches.flatMap((b) => b?.required ?? []))];
}

/** The problems of a value, one line each, at most `max` lines (the last one says how many more there are). */
export function schemaErrorLines(errors: readonly ErrorObject[], max = 4): string[] {
  const unknownAt = new Set<string>();
  const lines: string[] = [];
  const add = (l: string) => {
    if (!lines.includes(l)) lines.push(l);
  };
  for (const e of errors) {
    if (e.keyword !== 'additionalProperties') continue;
    const key = String((e.params as { additionalProperty?: string }).additionalProperty);
    const known = Object.keys(
      (e.parentSchema as { properties?: Record<string, unknown> } | undefined)?.properties ?? {},
    );
    const near = nearest(key, known) ?? SYNONYMS[key.toLowerCase()]?.find((k) => known.includes(k));
    unknownAt.add(e.instancePath);
    add(
      `${pathWords(e.instancePath, key)}: unknown key${near ? `; did you mean ${near}?` : known.length && known.length <= 12 ? ` (known: ${known.join(', ')})` : ''}`,
    );
  }
  // A oneOf's branches: the keys each one requires, said once.
  const oneOfRequired = new Map<string, string[]>();
  for (const e of errors) {
    if (e.keyword === 'required' && /\/(?:oneOf|anyOf)\/\d+\//.test(e.schemaPath)) {
      const list = oneOfRequired.get(e.instancePath) ?? [];
      list.push(String((e.params as { missingProperty?: string }).missingProperty));
      oneOfRequired.set(e.instancePath, list);
    }
  }
  for (const e of errors) {
    if (e.keyword === 'additionalProperties') continue;
    if (
      e.keyword === 'oneOf' ||
      e.keyword === 'anyOf' ||
      (e.keyword === 'required' && /\/(?:oneOf|anyOf)\/\d+\//.test(e.schemaPath))
    ) {
      if (unknownAt.has(e.instancePath)) continue;
      const keys =
        e.keyword === 'required'
          ? (oneOfRequired.get(e.instancePath) ?? [])
          : [...branchKeys(e), ...(oneOfRequired.get(e.instancePath) ?? [])];
      const passing = (e.params as { passingSchemas?: number[] | null }).passingSchemas;
      if (keys.length)
        add(
          `${pathWords(e.instancePath)}: ${passing && passing.length > 1 ? 'takes only one of' : 'needs one of'} ${[...new Set(keys)].join(', ')}`,
        );
      else if (e.keyword !== 'required') add(`${pathWords(e.instancePath)}: does not fit any of the forms it may take`);
      continue;
    }
    const p = e.params as Record<string, unknown>;
    switch (e.keyword) {
      case 'required':
        add(`${pathWords(e.instancePath, String(p.missingProperty))}: missing (it is required)`);
        break;
      case 'enum':
        add(
          `${pathWords(e.instancePath)}: must be one of ${((p.allowedValues as unknown[]) ?? []).map((v) => JSON.stringify(v)).join(', ')}`,
        );
        break;
      case 'const':
        add(`${pathWords(e.instancePath)}: must be ${JSON.stringify(p.allowedValue)}`);
        break;
      case 'type':
        add(`${pathWords(e.instancePath)}: must be ${Array.isArray(p.type) ? p.type.join(' or ') : String(p.type)}`);
        break;
      default:
        add(`${pathWords(e.instancePath)}: ${e.message ?? e.keyword}`);
    }
  }
  if (lines.length <= max) return lines;
  return [
    ...lines.slice(0, max - 1),
    `… and ${lines.length - max + 1} more problem${lines.length - max + 1 === 1 ? '' : 's'}`,
  ];
}
