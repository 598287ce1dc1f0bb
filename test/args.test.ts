import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { fileURLToPath } from 'node:url';
import { Ajv, type ErrorObject } from 'ajv';
import { Ajv2020 } from 'ajv/dist/2020.js';
import addFormatsModule from 'ajv-formats';
import { Client } from '@modelcontextprotocol/sdk/client/index.js';
import { StdioClientTransport } from '@modelcontextprotocol/sdk/client/stdio.js';
import {
  ARGUMENT_LIMITS,
  generateArguments,
  missingRequiredArguments,
  wrongTypeArguments,
  type GeneratedArguments,
} from '../core/args/index.js';

// ajv-formats is CommonJS: under NodeNext the default import is `module.exports`, which also has `.default`.
const addFormats = ((addFormatsModule as unknown as { default?: unknown }).default ?? addFormatsModule) as (ajv: Ajv | Ajv2020) => unknown;

type Schema = Record<string, unknown>;

function makeAjv(schema: unknown, dialect?: '2020-12' | 'draft-07'): Ajv | Ajv2020 {
  const declared = typeof schema === 'object' && schema !== null ? (schema as Schema).$schema : undefined;
  const is2020 = dialect === '2020-12' || (dialect === undefined && typeof declared === 'string' && declared.includes('2020-12'));
  const ajv = is2020 ? new Ajv2020({ strict: false, allErrors: true, logger: false }) : new Ajv({ strict: false, allErrors: true, logger: false });
  addFormats(ajv);
  return ajv;
}

/** ajv errors of `value` against `schema` ([] when valid). */
function errorsOf(schema: unknown, value: unknown, dialect?: '2020-12' | 'draft-07'): ErrorObject[] {
  const validate = makeAjv(schema, dialect).compile(schema as Schema);
  return validate(value) ? [] : [...(validate.errors ?? [])];
}

function expectValid(schema: unknown, value: unknown, dialect?: '2020-12' | 'draft-07'): void {
  expect(errorsOf(schema, value, dialect), `${JSON.stringify(value)} should be valid`).toEqual([]);
}

/** Generated arguments must validate, and (unless told otherwise) be confident with no notes. */
function gen(schema: unknown, opts: { dialect?: '2020-12' | 'draft-07'; confident?: boolean } = {}): GeneratedArguments {
  const r = generateArguments(schema);
  expectValid(schema, r.value, opts.dialect);
  if (opts.confident !== false) {
    expect(r.notes).toEqual([]);
    expect(r.confident).toBe(true);
  }
  expect(generateArguments(schema)).toEqual(r); // deterministic
  return r;
}

function pointerOf(property: string): string {
  return `/${property.replace(/~/g, '~0').replace(/\//g, '~1')}`;
}

/** `value` is invalid, every error concerns `property`, and without `property` it would be valid. */
function expectFailsOnlyOn(schema: Schema, value: Record<string, unknown>, property: string, dialect?: '2020-12' | 'draft-07'): void {
  const errors = errorsOf(schema, value, dialect);
  expect(errors.length, 'should be invalid').toBeGreaterThan(0);
  const ptr = pointerOf(property);
  for (const e of errors) {
    const about =
      e.instancePath === ptr ||
      e.instancePath.startsWith(`${ptr}/`) ||
      (e.keyword === 'required' && (e.params as { missingProperty?: string }).missingProperty === property);
    expect(about, `error not about ${property}: ${JSON.stringify(e)}`).toBe(true);
  }
  const without = Object.fromEntries(Object.entries(value).filter(([k]) => k !== property));
  const relaxed = { ...schema, required: Array.isArray(schema.required) ? schema.required.filter((r) => r !== property) : undefined };
  expect(errorsOf(relaxed, without, dialect)).toEqual([]);
}

const obj = (properties: Record<string, unknown>, required?: string[], extra: Schema = {}): Schema => ({
  type: 'object',
  properties,
  ...(required ? { required } : {}),
  ...extra,
});

/** Rewrites draft-04 boolean exclusiveMinimum/exclusiveMaximum into the draft-07 numeric form (for ajv). */
function draft04ToDraft07(schema: unknown): unknown {
  if (Array.isArray(schema)) return schema.map(draft04ToDraft07);
  if (typeof schema !== 'object' || schema === null) return schema;
  const out: Schema = {};
  for (const [k, v] of Object.entries(schema)) out[k] = draft04ToDraft07(v);
  for (const [bool, bound] of [
    ['exclusiveMinimum', 'minimum'],
    ['exclusiveMaximum', 'maximum'],
  ] as const) {
    if (typeof out[bool] !== 'boolean') continue;
    if (out[bool] === true && typeof out[bound] === 'number') {
      out[bool] = out[bound];
      delete out[bound];
    } else delete out[bool];
  }
  return out;
}

describe('generateArguments: types and properties', () => {
  it('generates each JSON type, preferring a non-null type', () => {
    const r = gen(
      obj(
        {
          s: { type: 'string' },
          n: { type: 'number' },
          i: { type: 'integer' },
          b: { type: 'boolean' },
          z: { type: 'null' },
          multi: { type: ['null', 'string'] },
          arr: { type: 'array', items: { type: 'string' } },
          o: { type: 'object' },
          any: {},
        },
        ['s', 'n', 'i', 'b', 'z', 'multi', 'arr', 'o', 'any'],
      ),
    );
    expect(r.value).toEqual({ s: 'example', n: 1, i: 1, b: false, z: null, multi: 'example', arr: ['example'], o: {}, any: 'example' });
  });

  it('uses friendly strings suggested by the property name', () => {
    const names = ['path', 'file_name', 'outputPath', 'url', 'imageUrl', 'email', 'name', 'entityName', 'hostname', 'security', 'profile', 'query'];
    const r = gen(obj(Object.fromEntries(names.map((n) => [n, { type: 'string' }]))));
    expect(r.value).toEqual({
      path: 'README.md',
      file_name: 'README.md',
      outputPath: 'README.md',
      url: 'https://example.com',
      imageUrl: 'https://example.com',
      email: 'user@example.com',
      name: 'mcp-conform',
      entityName: 'mcp-conform',
      hostname: 'example.com',
      security: 'example',
      profile: 'example',
      query: 'example',
    });
  });

  it('generates optional properties too, and treats a schema without type as an object', () => {
    const r = gen({ properties: { a: { type: 'string' }, b: { type: 'integer' } }, required: ['a'] });
    expect(r.value).toEqual({ a: 'example', b: 1 });
  });

  it('honours additionalProperties (false, and a schema for undeclared required properties)', () => {
    const closed = gen(obj({ a: { type: 'string' } }, ['a'], { additionalProperties: false }));
    expect(Object.keys(closed.value)).toEqual(['a']);
    const typed = gen(obj({}, ['count'], { additionalProperties: { type: 'integer', minimum: 3 } }));
    expect(typed.value).toEqual({ count: 3 });
  });

  it('adds properties for minProperties via additionalProperties or patternProperties', () => {
    const r = gen(obj({ a: { type: 'string' } }, [], { minProperties: 3, additionalProperties: { type: 'boolean' } }));
    expect(Object.keys(r.value).length).toBeGreaterThanOrEqual(3);
    const p = gen({ type: 'object', patternProperties: { '^x-[a-z]+$': { type: 'integer' } }, additionalProperties: false, minProperties: 1 });
    expect(Object.keys(p.value).length).toBe(1);
    expect(Object.keys(p.value)[0]).toMatch(/^x-[a-z]+$/);
  });

  it('leaves out optional readOnly / deprecated properties', () => {
    const r = gen(obj({ id: { type: 'string', readOnly: true }, old: { type: 'string', deprecated: true }, a: { type: 'string' } }));
    expect(r.value).toEqual({ a: 'example' });
  });

  it('respects maxProperties by leaving optional properties out', () => {
    const r = gen(obj({ a: { type: 'string' }, b: { type: 'string' }, c: { type: 'string' } }, ['c'], { maxProperties: 1 }));
    expect(r.value).toEqual({ c: 'example' });
  });

  it('handles dependentRequired / dependencies', () => {
    gen(obj({ a: { type: 'string' }, b: { type: 'string' } }, ['a'], { dependencies: { a: ['b'] } }));
    gen({ $schema: 'https://json-schema.org/draft/2020-12/schema', ...obj({ a: { type: 'string' }, b: { type: 'integer' } }, ['a'], { dependentRequired: { a: ['b'] } }) });
  });

  it('generates nested objects', () => {
    const r = gen(
      obj(
        {
          outer: obj({ inner: obj({ leaf: { type: 'integer', minimum: 7 } }, ['leaf']), list: { type: 'array', items: obj({ id: { type: 'string', format: 'uuid' } }, ['id']) } }, ['inner', 'list']),
        },
        ['outer'],
      ),
    );
    expect((r.value.outer as { inner: unknown }).inner).toEqual({ leaf: 7 });
  });
});

describe('generateArguments: const, default, examples, enum', () => {
  it('prefers const, then a valid default, then a valid examples[0], then enum[0]', () => {
    const r = gen(
      obj({
        c: { type: 'string', const: 'fixed', default: 'other' },
        d: { type: 'string', default: 'dflt', examples: ['ex'], enum: ['other', 'dflt'] },
        badDefault: { type: 'integer', default: 'oops', examples: [7] },
        badExample: { type: 'integer', default: 'x', examples: ['y', 3], enum: [4, 5] },
        e: { enum: ['red', 'green'] },
        enumFiltered: { type: 'string', enum: ['ab', 'abcdef'], minLength: 3 },
        objDefault: { type: 'object', default: { k: 1 } },
        arrDefault: { type: 'array', items: { type: 'string' }, default: [] },
      }),
    );
    expect(r.value).toEqual({ c: 'fixed', d: 'dflt', badDefault: 7, badExample: 4, e: 'red', enumFiltered: 'abcdef', objDefault: { k: 1 }, arrDefault: [] });
  });

  it('a default next to anyOf wins when valid (pydantic Optional[...] = None)', () => {
    const r = gen({
      type: 'object',
      properties: {
        limit: { anyOf: [{ type: 'integer', exclusiveMinimum: 0 }, { type: 'null' }], default: null },
        mode: { $ref: '#/$defs/Mode', default: 'slow' },
        bad: { anyOf: [{ type: 'integer' }, { type: 'null' }], default: 'x' },
      },
      $defs: { Mode: { type: 'string', enum: ['fast', 'slow'] } },
    });
    expect(r.value).toEqual({ limit: null, mode: 'slow', bad: 1 });
  });

  it('notes an enum no member of which fits', () => {
    const r = generateArguments(obj({ e: { type: 'string', enum: [1, 2] } }, ['e']));
    expect(r.confident).toBe(false);
    expect(r.notes.join('\n')).toMatch(/enum/);
  });
});

describe('generateArguments: numbers', () => {
  const cases: [string, Schema, unknown][] = [
    ['1 when allowed', { type: 'number' }, 1],
    ['minimum', { type: 'number', minimum: 5 }, 5],
    ['maximum', { type: 'integer', maximum: 0 }, 0],
    ['negative range', { type: 'integer', minimum: -10, maximum: -3 }, -3],
    ['exclusiveMinimum (integer)', { type: 'integer', exclusiveMinimum: 1 }, 2],
    ['exclusiveMaximum (number)', { type: 'number', exclusiveMaximum: 1 }, 0],
    ['multipleOf', { type: 'integer', minimum: 10, multipleOf: 7 }, 14],
    ['fractional multipleOf', { type: 'number', minimum: 1.1, multipleOf: 0.25 }, 1.25],
    ['integer vs number (integer)', { type: 'integer', minimum: 1.5 }, 2],
    ['integer vs number (number)', { type: 'number', minimum: 1.5 }, 1.5],
    ['large minimum', { type: 'integer', minimum: 1e12 }, 1e12],
  ];
  for (const [name, schema, expected] of cases) {
    it(name, () => {
      expect(gen(obj({ x: schema }, ['x'])).value.x).toBe(expected);
    });
  }

  it('narrow open interval', () => {
    const x = gen(obj({ x: { type: 'number', exclusiveMinimum: 0.5, exclusiveMaximum: 0.7 } }, ['x'])).value.x as number;
    expect(x > 0.5 && x < 0.7).toBe(true);
  });

  it('draft-04 boolean exclusiveMinimum/exclusiveMaximum', () => {
    const schema = obj(
      {
        a: { type: 'integer', minimum: 1, exclusiveMinimum: true },
        b: { type: 'number', maximum: 1, exclusiveMaximum: true },
        c: { type: 'number', minimum: 1, exclusiveMinimum: false },
        d: { type: 'integer', minimum: 0, maximum: 1, exclusiveMaximum: true },
      },
      ['a', 'b', 'c', 'd'],
    );
    const r = generateArguments(schema);
    expect(r.confident).toBe(true);
    expectValid(draft04ToDraft07(schema), r.value);
    expect(r.value).toEqual({ a: 2, b: 0, c: 1, d: 0 });
  });

  it('notes contradictory bounds without throwing', () => {
    const r = generateArguments(obj({ x: { type: 'integer', minimum: 5, maximum: 1 } }, ['x']));
    expect(r.confident).toBe(false);
    expect(r.notes.join('\n')).toMatch(/x: the numeric bounds contradict/);
    const none = generateArguments(obj({ x: { type: 'integer', minimum: 0.2, maximum: 0.8 } }, ['x']));
    expect(none.confident).toBe(false);
  });
});

describe('generateArguments: strings', () => {
  it('minLength / maxLength', () => {
    const r = gen(obj({ long: { type: 'string', minLength: 10 }, short: { type: 'string', maxLength: 3 }, exact: { type: 'string', minLength: 4, maxLength: 4 } }, ['long', 'short', 'exact']));
    expect((r.value.long as string).length).toBeGreaterThanOrEqual(10);
    expect(r.value.short).toBe('exa');
    expect(r.value.exact).toHaveLength(4);
  });

  const patterns: [string, string?, number?][] = [
    ['^[a-z]+$', 'example'],
    ['^\\d{3}-\\d{4}$', '123-5678'],
    ['^[A-Z]{2}-\\d+$'],
    ['^(foo|bar)_\\w{2,4}$'],
    ['abc'],
    ['^\\p{Lu}\\p{Ll}+$'],
    ['^[0-9a-f]{8}$'],
    ['^v\\d+\\.\\d+\\.\\d+$'],
    ['^[a-z]+$', '', 12],
    ['^(?:[A-Za-z0-9+/]{4})*$'],
    ['^[^\\s@]+@[^\\s@]+\\.[^\\s@]+$'],
    ['^\\+?[1-9]\\d{1,14}$'],
    ['^#[0-9A-Fa-f]{6}$'],
  ];
  for (const [pattern, expected, minLength] of patterns) {
    it(`pattern ${pattern}${minLength ? ` with minLength ${minLength}` : ''}`, () => {
      const schema = { type: 'string', pattern, ...(minLength ? { minLength } : {}) };
      const v = gen(obj({ s: schema }, ['s'])).value.s as string;
      expect(v).toMatch(new RegExp(pattern, 'u'));
      if (expected) expect(v).toBe(expected);
    });
  }

  it('notes a pattern it cannot satisfy, and an invalid pattern', () => {
    const r = generateArguments(obj({ s: { type: 'string', pattern: '^(\\w+)-\\1$' } }, ['s']));
    expect(r.confident).toBe(false);
    expect(r.notes.join('\n')).toMatch(/pattern/);
    expect(typeof r.value.s).toBe('string');
    const bad = generateArguments(obj({ s: { type: 'string', pattern: '[' } }, ['s']));
    expect(bad.confident).toBe(false);
    expect(bad.notes.join('\n')).toMatch(/not a valid regular expression/);
  });

  const formats = ['date-time', 'date', 'time', 'email', 'uri', 'uri-reference', 'url', 'uuid', 'ipv4', 'ipv6', 'hostname', 'byte', 'regex', 'duration', 'json-pointer', 'uri-template'];
  it(`formats: ${formats.join(', ')}`, () => {
    const props = Object.fromEntries(formats.map((f) => [`f_${f.replace(/-/g, '_')}`, { type: 'string', format: f }]));
    const r = gen(obj(props, Object.keys(props)));
    expect(r.value.f_date_time).toBe('2025-01-01T00:00:00Z');
    expect(r.value.f_uuid).toMatch(/^[0-9a-f-]{36}$/);
    expect(r.value.f_byte).toBe('ZXhhbXBsZQ==');
    expect(() => new RegExp(r.value.f_regex as string)).not.toThrow();
  });

  it('format together with length and pattern constraints', () => {
    gen(obj({ d: { type: 'string', format: 'date', pattern: '^2025' }, e: { type: 'string', format: 'email', maxLength: 20 } }, ['d', 'e']));
  });

  it('notes an unknown format', () => {
    const r = generateArguments(obj({ s: { type: 'string', format: 'klingon-date' } }, ['s']));
    expect(r.confident).toBe(false);
    expect(r.notes.join('\n')).toMatch(/klingon-date/);
    expectValid(obj({ s: { type: 'string', format: 'klingon-date' } }, ['s']), r.value);
  });
});

describe('generateArguments: arrays', () => {
  it('one item by default, minItems items otherwise, uniqueItems distinct', () => {
    const r = gen(
      obj(
        {
          one: { type: 'array', items: { type: 'string' } },
          three: { type: 'array', items: { type: 'integer' }, minItems: 3, uniqueItems: true },
          strings: { type: 'array', items: { type: 'string' }, minItems: 3, uniqueItems: true },
          enums: { type: 'array', items: { enum: ['a', 'b'] }, minItems: 2, uniqueItems: true },
          objects: { type: 'array', items: obj({ id: { type: 'integer' } }, ['id']), minItems: 2, uniqueItems: true },
          none: { type: 'array', items: { type: 'string' }, maxItems: 0 },
        },
        ['one', 'three', 'strings', 'enums', 'objects', 'none'],
      ),
    );
    expect(r.value.one).toEqual(['example']);
    expect(r.value.three).toEqual([1, 2, 3]);
    expect(new Set(r.value.strings as string[]).size).toBe(3);
    expect(r.value.enums).toEqual(['a', 'b']);
    expect(r.value.none).toEqual([]);
  });

  it('distinct format values for uniqueItems', () => {
    const formats = ['email', 'date', 'date-time', 'uuid', 'uri', 'ipv4', 'hostname', 'byte'];
    const props = Object.fromEntries(formats.map((f) => [f, { type: 'array', items: { type: 'string', format: f }, minItems: 4, uniqueItems: true }]));
    const r = gen(obj(props, formats));
    for (const f of formats) expect(new Set(r.value[f] as string[]).size, f).toBe(4);
  });

  it('notes uniqueItems that cannot be met', () => {
    const r = generateArguments(obj({ flags: { type: 'array', items: { type: 'boolean' }, minItems: 3, uniqueItems: true } }, ['flags']));
    expect(r.confident).toBe(false);
    expect(r.notes.join('\n')).toMatch(/uniqueItems/);
  });

  it('prefixItems (2020-12)', () => {
    const schema = {
      $schema: 'https://json-schema.org/draft/2020-12/schema',
      ...obj({ pair: { type: 'array', prefixItems: [{ type: 'string' }, { type: 'integer' }], items: false } }, ['pair']),
    };
    expect(gen(schema).value.pair).toEqual(['example', 1]);
    const rest = { $schema: 'https://json-schema.org/draft/2020-12/schema', ...obj({ t: { type: 'array', prefixItems: [{ type: 'boolean' }], items: { type: 'integer' }, minItems: 3 } }, ['t']) };
    expect(gen(rest).value.t).toEqual([false, 1, 1]);
  });

  it('tuple form items: [...] with additionalItems (draft-07)', () => {
    const schema = {
      $schema: 'http://json-schema.org/draft-07/schema#',
      ...obj({ t: { type: 'array', items: [{ type: 'string' }, { type: 'boolean' }], additionalItems: false, minItems: 2 } }, ['t']),
    };
    expect(gen(schema).value.t).toEqual(['example', false]);
  });

  it('contains', () => {
    const r = gen(obj({ c: { type: 'array', items: { type: 'integer' }, contains: { minimum: 5 } } }, ['c']));
    expect((r.value.c as number[]).some((x) => x >= 5)).toBe(true);
  });
});

describe('generateArguments: combinators and $ref', () => {
  it('anyOf picks the first branch that works', () => {
    const r = gen(
      obj(
        {
          a: { anyOf: [{ type: 'string', minLength: 5, maxLength: 2 }, { type: 'integer', minimum: 3 }] },
          nullable: { anyOf: [{ type: 'string' }, { type: 'null' }] },
        },
        ['a', 'nullable'],
      ),
    );
    expect(r.value).toEqual({ a: 3, nullable: 'example' });
  });

  it('oneOf makes sure only one branch matches', () => {
    const r = gen(
      obj(
        {
          n: { oneOf: [{ type: 'number' }, { type: 'integer' }] },
          s: { oneOf: [{ type: 'string' }, { type: 'string', maxLength: 3 }] },
          kind: {
            oneOf: [obj({ kind: { const: 'a' }, x: { type: 'string' } }, ['kind']), obj({ kind: { const: 'b' }, y: { type: 'integer' } }, ['kind'])],
          },
        },
        ['n', 's', 'kind'],
      ),
    );
    expect(Number.isInteger(r.value.n)).toBe(false);
  });

  it('allOf merges constraints', () => {
    const r = gen({
      allOf: [obj({ a: { type: 'string' } }, ['a']), { properties: { a: { minLength: 10 }, b: { type: 'integer', maximum: -2 } }, required: ['b'] }],
    });
    expect((r.value.a as string).length).toBeGreaterThanOrEqual(10);
    expect(r.value.b).toBe(-2);
  });

  it('not: avoided when possible, noted when not', () => {
    const r = gen(obj({ s: { type: 'string', not: { const: 'example' } }, t: { not: { type: 'string' } } }, ['s', 't']));
    expect(r.value.s).not.toBe('example');
    expect(typeof r.value.t).not.toBe('string');
    const bad = generateArguments(obj({ s: { type: 'string', not: { type: 'string' } } }, ['s']));
    expect(bad.confident).toBe(false);
    expect(bad.notes.join('\n')).toMatch(/not/);
  });

  it('if/then/else', () => {
    const schema = obj({ kind: { enum: ['a', 'b'] }, n: { type: 'number' } }, ['kind'], {
      if: { properties: { kind: { const: 'a' } } },
      then: { required: ['n'], properties: { n: { minimum: 5 } } },
      else: { properties: { n: { maximum: -5 } } },
    });
    const r = gen(schema);
    expect(r.value).toEqual({ kind: 'a', n: 5 });
  });

  it('many if/then/else whose conditions flip with the value', () => {
    const schema = obj({ a: { type: 'integer' } }, ['a'], {
      allOf: Array.from({ length: 40 }, (_, i) => ({
        if: { properties: { a: { const: 1 } } },
        then: { properties: { a: { minimum: i } } },
        else: { properties: { a: { maximum: -i } } },
      })),
    });
    expect(gen(schema).value).toEqual({ a: -39 });
  });

  it('$ref to #/$defs and #/definitions (and escaped pointers)', () => {
    const r = gen({
      type: 'object',
      $defs: { port: { type: 'integer', minimum: 1024 }, 'a/b': { type: 'string', format: 'ipv4' } },
      definitions: { host: { type: 'string', format: 'hostname' } },
      properties: { port: { $ref: '#/$defs/port' }, ip: { $ref: '#/$defs/a~1b' }, host: { $ref: '#/definitions/host' } },
      required: ['port', 'ip', 'host'],
    });
    expect(r.value).toEqual({ port: 1024, ip: '127.0.0.1', host: 'example.com' });
  });

  it('recursive $ref: a tree with optional children', () => {
    const schema = {
      type: 'object',
      $defs: { node: obj({ label: { type: 'string' }, children: { type: 'array', items: { $ref: '#/$defs/node' } } }, ['label']) },
      properties: { root: { $ref: '#/$defs/node' } },
      required: ['root'],
    };
    const r = gen(schema);
    expect(JSON.stringify(r.value).length).toBeLessThan(10_000);
  });

  it('recursive $ref: a linked list ending in null, and $ref to the root', () => {
    gen({
      type: 'object',
      definitions: { list: obj({ v: { type: 'integer' }, next: { anyOf: [{ $ref: '#/definitions/list' }, { type: 'null' }] } }, ['v', 'next']) },
      properties: { head: { $ref: '#/definitions/list' } },
      required: ['head'],
    });
    gen(obj({ name: { type: 'string' }, parent: { $ref: '#' } }, ['name']));
  });

  it('cyclic $ref with no finite value: noted, no throw', () => {
    const schema = {
      type: 'object',
      $defs: { n: obj({ next: { $ref: '#/$defs/n' } }, ['next']) },
      properties: { a: { $ref: '#/$defs/n' } },
      required: ['a'],
    };
    const r = generateArguments(schema);
    expect(r.confident).toBe(false);
    expect(r.notes.join('\n')).toMatch(/recursive \$ref/);
    const loop = generateArguments({ type: 'object', $defs: { a: { $ref: '#/$defs/a' }, b: { $ref: '#/$defs/c' }, c: { $ref: '#/$defs/b' } }, properties: { x: { $ref: '#/$defs/a' }, y: { $ref: '#/$defs/b' } }, required: ['x', 'y'] });
    expect(Object.keys(loop.value)).toEqual(['x', 'y']);
  });

  it('unresolvable $ref: noted', () => {
    const r = generateArguments(obj({ x: { $ref: 'https://example.com/schema.json' }, y: { $ref: '#/$defs/missing' } }, ['x', 'y']));
    expect(r.confident).toBe(false);
    expect(r.notes.join('\n')).toMatch(/could not be resolved/);
  });
});

describe('generateArguments: hostile input', () => {
  it('non-object schemas', () => {
    for (const s of [null, undefined, 'object', 42, [], [{ type: 'object' }], true, false]) {
      const r = generateArguments(s);
      expect(r.value).toEqual({});
      expect(r.confident).toBe(false);
      expect(r.notes.length).toBeGreaterThan(0);
    }
  });

  it('a root schema that is not of type object', () => {
    const r = generateArguments({ type: 'string' });
    expect(r.value).toEqual({});
    expect(r.confident).toBe(false);
    expect(r.notes.join('\n')).toMatch(/not "object"/);
  });

  it('huge minItems / minLength / minProperties are capped and noted', () => {
    const r = generateArguments(obj({ a: { type: 'array', items: { type: 'string' }, minItems: 1e9 }, s: { type: 'string', minLength: 1e9 } }, ['a', 's'], { minProperties: 1e6 }));
    expect(r.confident).toBe(false);
    expect((r.value.a as unknown[]).length).toBe(ARGUMENT_LIMITS.maxItems);
    expect((r.value.s as string).length).toBe(ARGUMENT_LIMITS.maxStringLength);
    expect(r.notes.join('\n')).toMatch(/minItems 1000000000 capped/);
    expect(r.notes.join('\n')).toMatch(/minLength 1000000000 capped/);
  });

  it('multiplying sizes stay bounded', () => {
    let items: unknown = { type: 'string', minLength: 900 };
    for (let i = 0; i < 6; i++) items = { type: 'array', items, minItems: 40 };
    const started = Date.now();
    const r = generateArguments(obj({ deep: items }, ['deep']));
    expect(Date.now() - started).toBeLessThan(10_000);
    expect(r.confident).toBe(false);
    expect(JSON.stringify(r.value).length).toBeLessThan(10_000_000);
  });

  it('deeply nested schemas do not overflow', () => {
    let s: unknown = { type: 'string' };
    for (let i = 0; i < 5000; i++) s = { type: 'object', properties: { x: s }, required: ['x'] };
    const r = generateArguments(s);
    expect(r.confident).toBe(false);
    let depth = 0;
    for (let v: unknown = r.value; typeof v === 'object' && v !== null; v = (v as Record<string, unknown>).x) depth++;
    expect(depth).toBeLessThanOrEqual(ARGUMENT_LIMITS.maxDepth + 1);
    let a: unknown = { type: 'integer' };
    for (let i = 0; i < 5000; i++) a = { allOf: [a, { anyOf: [{ type: 'integer' }] }] };
    expect(() => generateArguments(obj({ a }, ['a']))).not.toThrow();
  });

  it('contradictory constraints: noted, not confident, no throw', () => {
    const contradictions: Schema[] = [
      obj({ x: { allOf: [{ type: 'string' }, { type: 'number' }] } }, ['x']),
      obj({ x: { type: 'string', minLength: 5, maxLength: 2 } }, ['x']),
      obj({ x: { const: 'a', enum: ['b'] } }, ['x']),
      obj({ a: { type: 'string' } }, ['a', 'b'], { additionalProperties: false }),
      obj({ x: { type: 'array', minItems: 3, maxItems: 1 } }, ['x']),
      obj({ x: { anyOf: [] } }, ['x']),
      obj({ x: false }, ['x']),
      obj({}, [], { minProperties: 2, maxProperties: 1 }),
    ];
    for (const s of contradictions) {
      const r = generateArguments(s);
      expect(r.confident, JSON.stringify(s)).toBe(false);
      expect(r.notes.length, JSON.stringify(s)).toBeGreaterThan(0);
    }
  });

  it('garbage keyword values', () => {
    const weird = {
      type: 'object',
      properties: { a: { type: 7, minimum: 'x', items: 'y', pattern: 5, enum: 'z' }, b: 12, c: { properties: 5, required: 'q' } },
      required: 'a',
      allOf: 'nope',
      anyOf: { x: 1 },
      $ref: 42,
    };
    const r = generateArguments(weird);
    expect(typeof r.value).toBe('object');
    expect(missingRequiredArguments(weird)).toBeUndefined();
    expect(() => wrongTypeArguments(weird)).not.toThrow();
  });

  it('in-memory cycles in the schema object', () => {
    const s: Schema = { type: 'object', properties: {}, required: ['self'] };
    (s.properties as Schema).self = s;
    const r = generateArguments(s);
    expect(r.confident).toBe(false);
    expect(() => JSON.stringify(r.value)).not.toThrow();
  });

  it('property names like __proto__ and constructor are plain data', () => {
    const schema = JSON.parse('{"type":"object","properties":{"__proto__":{"type":"string"},"constructor":{"type":"integer"}},"required":["__proto__","toString"]}') as Schema;
    const r = gen(schema);
    expect(Object.prototype.hasOwnProperty.call(r.value, '__proto__')).toBe(true);
    expect(Object.getPrototypeOf(r.value)).toBe(Object.prototype);
    expect(r.value.constructor).toBe(1);
    expect(({} as Record<string, unknown>).polluted).toBeUndefined();
    const missing = missingRequiredArguments(schema);
    expect(missing?.property).toBe('__proto__');
    expect(Object.getPrototypeOf(missing?.value)).toBe(Object.prototype);
  });

  it('a huge enum and many properties stay cheap', () => {
    const en = Array.from({ length: 100_000 }, (_, i) => `v${i}`);
    const props = Object.fromEntries(Array.from({ length: 5000 }, (_, i) => [`p${i}`, { type: 'string', pattern: '^[a-z]+\\d$' }]));
    const started = Date.now();
    const r = generateArguments(obj({ e: { enum: en }, ...props }, ['e']));
    expect(r.value.e).toBe('v0');
    expect(Date.now() - started).toBeLessThan(10_000);
  });
});

describe('missingRequiredArguments', () => {
  it('undefined without required properties', () => {
    expect(missingRequiredArguments(obj({ a: { type: 'string' } }))).toBeUndefined();
    expect(missingRequiredArguments({ type: 'object' })).toBeUndefined();
    expect(missingRequiredArguments(null)).toBeUndefined();
    expect(missingRequiredArguments(true)).toBeUndefined();
  });

  it('leaves out one required property, and only that is wrong', () => {
    const schema = obj({ a: { type: 'integer' }, b: { type: 'string' }, c: { type: 'boolean' } }, ['a', 'b']);
    const r = missingRequiredArguments(schema);
    expect(r).toEqual({ value: { b: 'example', c: false }, description: 'argument "a" left out (required)', property: 'a' });
    expectFailsOnlyOn(schema, r!.value, 'a');
  });

  it('finds required properties through allOf and $ref', () => {
    const schema = { type: 'object', $defs: { base: { required: ['id'], properties: { id: { type: 'string', format: 'uuid' } } } }, allOf: [{ $ref: '#/$defs/base' }], properties: { x: { type: 'integer' } } };
    const r = missingRequiredArguments(schema);
    expect(r?.property).toBe('id');
    expect(r?.value).toEqual({ x: 1 });
    expect(errorsOf(schema, r!.value).length).toBeGreaterThan(0);
  });
});

describe('wrongTypeArguments', () => {
  const single = (schema: Schema) => obj({ p: schema, q: { type: 'string' } }, ['p', 'q']);
  const cases: [string, Schema, unknown, string][] = [
    ['number', { type: 'number' }, 'not-a-number', 'argument "p" sent as string "not-a-number" where the schema wants number'],
    ['integer', { type: 'integer', minimum: 0 }, 'not-a-number', 'argument "p" sent as string "not-a-number" where the schema wants integer'],
    ['string', { type: 'string' }, 42, 'argument "p" sent as number 42 where the schema wants string'],
    ['boolean', { type: 'boolean' }, 'not-a-boolean', 'argument "p" sent as string "not-a-boolean" where the schema wants boolean'],
    ['object', { type: 'object' }, 'not-an-object', 'argument "p" sent as string "not-an-object" where the schema wants object'],
    ['array', { type: 'array', items: { type: 'string' } }, 'not-an-array', 'argument "p" sent as string "not-an-array" where the schema wants array'],
    ['string or null', { type: ['string', 'null'] }, 42, 'argument "p" sent as number 42 where the schema wants string or null'],
    ['string or number', { type: ['string', 'number'] }, true, 'argument "p" sent as boolean true where the schema wants string or number'],
    ['enum of strings', { enum: ['a', 'b'] }, 42, 'argument "p" sent as number 42 where the schema wants string'],
    ['const integer', { const: 3 }, 'not-a-number', 'argument "p" sent as string "not-a-number" where the schema wants integer'],
    ['$ref', { $ref: '#/$defs/n' }, 'not-a-number', 'argument "p" sent as string "not-a-number" where the schema wants number'],
  ];
  for (const [name, propSchema, wrong, description] of cases) {
    it(name, () => {
      const schema = { ...single(propSchema), $defs: { n: { type: 'number', minimum: 2 } } };
      const r = wrongTypeArguments(schema);
      expect(r?.property).toBe('p');
      expect(r?.value.p).toEqual(wrong);
      expect(r?.description).toBe(description);
      expectFailsOnlyOn(schema, r!.value, 'p');
    });
  }

  it('prefers a required property, and skips properties without a definite type', () => {
    const schema = obj({ opt: { type: 'integer' }, loose: { anyOf: [{ type: 'string' }, { type: 'integer' }] }, req: { type: 'boolean' } }, ['loose', 'req']);
    const r = wrongTypeArguments(schema);
    expect(r?.property).toBe('req');
    expectFailsOnlyOn(schema, r!.value, 'req');
  });

  it('falls back to an optional property', () => {
    const schema = obj({ opt: { type: 'integer' } });
    const r = wrongTypeArguments(schema);
    expect(r?.property).toBe('opt');
    expectFailsOnlyOn(schema, r!.value, 'opt');
  });

  it('undefined without a definitely typed property', () => {
    expect(wrongTypeArguments(obj({ a: {}, b: { anyOf: [{ type: 'string' }, { type: 'number' }] } }, ['a']))).toBeUndefined();
    expect(wrongTypeArguments({ type: 'object' })).toBeUndefined();
    expect(wrongTypeArguments('nope')).toBeUndefined();
  });
});

// ---------------------------------------------------------------------------------------------
// Real servers
// ---------------------------------------------------------------------------------------------

interface Tool {
  name: string;
  inputSchema: Schema;
}

const bin = (name: string) => fileURLToPath(new URL(`../node_modules/.bin/${name}`, import.meta.url));
const servers: Record<string, { command: string; args: string[]; env?: Record<string, string> }> = {};
const toolsOf: Record<string, Tool[]> = {};
let scratch = '';

beforeAll(async () => {
  scratch = mkdtempSync(join(tmpdir(), 'mcp-conform-args-'));
  servers.everything = { command: bin('mcp-server-everything'), args: ['stdio'] };
  servers.filesystem = { command: bin('mcp-server-filesystem'), args: [scratch] };
  servers.memory = { command: bin('mcp-server-memory'), args: [], env: { MEMORY_FILE_PATH: join(scratch, 'memory.jsonl') } };
  await Promise.all(
    Object.entries(servers).map(async ([name, s]) => {
      const env = Object.fromEntries(Object.entries({ ...process.env, ...s.env }).filter((e): e is [string, string] => typeof e[1] === 'string'));
      const transport = new StdioClientTransport({ command: s.command, args: s.args, env, stderr: 'ignore' });
      const client = new Client({ name: 'mcp-conform-args-test', version: '0.0.0' });
      await client.connect(transport);
      try {
        const { tools } = await client.listTools();
        toolsOf[name] = tools.map((t) => ({ name: t.name, inputSchema: t.inputSchema as Schema }));
      } finally {
        await client.close();
      }
    }),
  );
}, 60_000);

afterAll(() => {
  if (scratch) rmSync(scratch, { recursive: true, force: true });
});

describe.each(['everything', 'filesystem', 'memory'])('real server: %s', (server) => {
  it('lists tools', () => {
    expect(toolsOf[server]?.length).toBeGreaterThan(0);
  });

  it('valid, confident arguments for every tool', () => {
    for (const tool of toolsOf[server]) {
      const r = generateArguments(tool.inputSchema);
      expect(errorsOf(tool.inputSchema, r.value), `${tool.name}: ${JSON.stringify(r.value)}`).toEqual([]);
      expect(r.notes, tool.name).toEqual([]);
      expect(r.confident, tool.name).toBe(true);
    }
  });

  it('missing-required arguments fail only because of that property', () => {
    for (const tool of toolsOf[server]) {
      const required = tool.inputSchema.required;
      const r = missingRequiredArguments(tool.inputSchema);
      if (!Array.isArray(required) || required.length === 0) {
        expect(r, tool.name).toBeUndefined();
        continue;
      }
      expect(r, tool.name).toBeDefined();
      expect(r!.property).toBe(required[0]);
      expect(r!.description).toBe(`argument "${required[0]}" left out (required)`);
      expectFailsOnlyOn(tool.inputSchema, r!.value, r!.property);
    }
  });

  it('wrong-type arguments fail only because of that property', () => {
    for (const tool of toolsOf[server]) {
      const props = (tool.inputSchema.properties ?? {}) as Record<string, Schema>;
      const r = wrongTypeArguments(tool.inputSchema);
      if (Object.keys(props).length === 0) {
        expect(r, tool.name).toBeUndefined();
        continue;
      }
      expect(r, tool.name).toBeDefined();
      const required = Array.isArray(tool.inputSchema.required) ? tool.inputSchema.required : [];
      if (required.length) expect(required, tool.name).toContain(r!.property);
      expect(r!.description).toMatch(/^argument ".+" sent as \w+ .+ where the schema wants \w+/);
      expectFailsOnlyOn(tool.inputSchema, r!.value, r!.property);
    }
  });
});

describe('generated arguments are remembered by schema', () => {
  it('gives equal results for equal schemas, each caller its own copy', () => {
    const schema = () => ({ type: 'object', properties: { q: { type: 'string', minLength: 3 }, n: { type: 'integer', minimum: 2 } }, required: ['q', 'n'] });
    const a = generateArguments(schema());
    a.value.q = 'changed';
    a.notes.push('changed');
    const b = generateArguments(schema());
    expect(b).toEqual(generateArguments(JSON.parse(JSON.stringify(schema()))));
    expect(b.value.q).not.toBe('changed');
    expect(b.notes).not.toContain('changed');
    const m1 = missingRequiredArguments(schema())!;
    m1.value.extra = 1;
    expect(missingRequiredArguments(schema())!.value).not.toHaveProperty('extra');
    const w1 = wrongTypeArguments(schema())!;
    expect(wrongTypeArguments(schema())).toEqual(w1);
  });

  it('does not confuse schemas that only look alike as JSON text', () => {
    const withUndefined = generateArguments({ type: 'object', properties: { a: { type: 'string', minLength: undefined } }, required: ['a'] });
    const plain = generateArguments({ type: 'object', properties: { a: { type: 'string' } }, required: ['a'] });
    expect(withUndefined).toEqual(plain); // (undefined members are absent to the generator as well)
    const nan = generateArguments({ type: 'object', properties: { a: { type: 'number', minimum: NaN } }, required: ['a'] });
    const nul = generateArguments({ type: 'object', properties: { a: { type: 'number', minimum: null } }, required: ['a'] });
    expect(nan).toEqual(generateArguments({ type: 'object', properties: { a: { type: 'number', minimum: NaN } }, required: ['a'] }));
    expect(nul).toEqual(generateArguments({ type: 'object', properties: { a: { type: 'number', minimum: null } }, required: ['a'] }));
  });
});
