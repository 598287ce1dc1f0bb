/** Arguments generated from an inputSchema (core/args): every type and keyword, checked by ajv. */
import { describe, expect, it } from 'vitest';
import {
  ARGUMENT_LIMITS,
  generateArguments,
  missingRequiredArguments,
  wrongTypeArguments,
} from '../core/args/index.js';
import { type Schema, expectValid, gen, obj, draft04ToDraft07 } from './helpers/args.js';

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
    expect(r.value).toEqual({
      s: 'example',
      n: 1,
      i: 1,
      b: false,
      z: null,
      multi: 'example',
      arr: ['example'],
      o: {},
      any: 'example',
    });
  });

  it('uses friendly strings suggested by the property name', () => {
    const names = [
      'path',
      'file_name',
      'outputPath',
      'url',
      'imageUrl',
      'email',
      'name',
      'entityName',
      'hostname',
      'security',
      'profile',
      'query',
    ];
    const r = gen(obj(Object.fromEntries(names.map((n) => [n, { type: 'string' }])), names));
    expect(r.value).toEqual({
      path: 'README.md',
      file_name: 'README.md',
      outputPath: 'README.md',
      url: 'http://127.0.0.1:65535/', // loopback, never a public host (a run points it at its own 404 listener)
      imageUrl: 'http://127.0.0.1:65535/',
      email: 'user@example.com',
      name: 'mcp-conform',
      entityName: 'mcp-conform',
      hostname: 'localhost',
      security: 'example',
      profile: 'example',
      query: 'example',
    });
  });

  it("generates the required properties only (an optional one is the tool's to default: two made-up optionals can contradict each other), and treats a schema without type as an object", () => {
    const r = gen({ properties: { a: { type: 'string' }, b: { type: 'integer' } }, required: ['a'] });
    expect(r.value).toEqual({ a: 'example' });
    // firecrawl_search's shape: includeDomains and excludeDomains, both optional, that the server refuses together.
    const f = gen(
      obj(
        {
          query: { type: 'string' },
          includeDomains: { type: 'array', items: { type: 'string' } },
          excludeDomains: { type: 'array', items: { type: 'string' } },
        },
        ['query'],
      ),
    );
    expect(f.value).toEqual({ query: 'example' });
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
    const p = gen({
      type: 'object',
      patternProperties: { '^x-[a-z]+$': { type: 'integer' } },
      additionalProperties: false,
      minProperties: 1,
    });
    expect(Object.keys(p.value).length).toBe(1);
    expect(Object.keys(p.value)[0]).toMatch(/^x-[a-z]+$/);
  });

  it('leaves out optional readOnly / deprecated properties', () => {
    const r = gen(
      obj(
        { id: { type: 'string', readOnly: true }, old: { type: 'string', deprecated: true }, a: { type: 'string' } },
        [],
        { minProperties: 1 },
      ),
    );
    expect(r.value).toEqual({ a: 'example' });
  });

  it('respects maxProperties by leaving optional properties out', () => {
    const r = gen(
      obj({ a: { type: 'string' }, b: { type: 'string' }, c: { type: 'string' } }, ['c'], { maxProperties: 1 }),
    );
    expect(r.value).toEqual({ c: 'example' });
  });

  it('handles dependentRequired / dependencies', () => {
    gen(obj({ a: { type: 'string' }, b: { type: 'string' } }, ['a'], { dependencies: { a: ['b'] } }));
    gen({
      $schema: 'https://json-schema.org/draft/2020-12/schema',
      ...obj({ a: { type: 'string' }, b: { type: 'integer' } }, ['a'], { dependentRequired: { a: ['b'] } }),
    });
  });

  it('generates nested objects', () => {
    const r = gen(
      obj(
        {
          outer: obj(
            {
              inner: obj({ leaf: { type: 'integer', minimum: 7 } }, ['leaf']),
              list: { type: 'array', items: obj({ id: { type: 'string', format: 'uuid' } }, ['id']) },
            },
            ['inner', 'list'],
          ),
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
      obj(
        {
          c: { type: 'string', const: 'fixed', default: 'other' },
          d: { type: 'string', default: 'dflt', examples: ['ex'], enum: ['other', 'dflt'] },
          badDefault: { type: 'integer', default: 'oops', examples: [7] },
          badExample: { type: 'integer', default: 'x', examples: ['y', 3], enum: [4, 5] },
          e: { enum: ['red', 'green'] },
          enumFiltered: { type: 'string', enum: ['ab', 'abcdef'], minLength: 3 },
          objDefault: { type: 'object', default: { k: 1 } },
          arrDefault: { type: 'array', items: { type: 'string' }, default: [] },
        },
        ['c', 'd', 'badDefault', 'badExample', 'e', 'enumFiltered', 'objDefault', 'arrDefault'],
      ),
    );
    expect(r.value).toEqual({
      c: 'fixed',
      d: 'dflt',
      badDefault: 7,
      badExample: 4,
      e: 'red',
      enumFiltered: 'abcdef',
      objDefault: { k: 1 },
      arrDefault: [],
    });
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
      required: ['limit', 'mode', 'bad'],
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
    const x = gen(obj({ x: { type: 'number', exclusiveMinimum: 0.5, exclusiveMaximum: 0.7 } }, ['x'])).value
      .x as number;
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
    const r = gen(
      obj(
        {
          long: { type: 'string', minLength: 10 },
          short: { type: 'string', maxLength: 3 },
          exact: { type: 'string', minLength: 4, maxLength: 4 },
        },
        ['long', 'short', 'exact'],
      ),
    );
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

  const formats = [
    'date-time',
    'date',
    'time',
    'email',
    'uri',
    'uri-reference',
    'url',
    'uuid',
    'ipv4',
    'ipv6',
    'hostname',
    'byte',
    'regex',
    'duration',
    'json-pointer',
    'uri-template',
  ];
  it(`formats: ${formats.join(', ')}`, () => {
    const props = Object.fromEntries(formats.map((f) => [`f_${f.replace(/-/g, '_')}`, { type: 'string', format: f }]));
    const r = gen(obj(props, Object.keys(props)));
    expect(r.value.f_date_time).toBe('2025-01-01T00:00:00Z');
    expect(r.value.f_uuid).toMatch(/^[0-9a-f-]{36}$/);
    expect(r.value.f_byte).toBe('ZXhhbXBsZQ==');
    expect(() => new RegExp(r.value.f_regex as string)).not.toThrow();
  });

  it('format together with length and pattern constraints', () => {
    gen(
      obj(
        {
          d: { type: 'string', format: 'date', pattern: '^2025' },
          e: { type: 'string', format: 'email', maxLength: 20 },
        },
        ['d', 'e'],
      ),
    );
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
    const props = Object.fromEntries(
      formats.map((f) => [f, { type: 'array', items: { type: 'string', format: f }, minItems: 4, uniqueItems: true }]),
    );
    const r = gen(obj(props, formats));
    for (const f of formats) expect(new Set(r.value[f] as string[]).size, f).toBe(4);
  });

  it('notes uniqueItems that cannot be met', () => {
    const r = generateArguments(
      obj({ flags: { type: 'array', items: { type: 'boolean' }, minItems: 3, uniqueItems: true } }, ['flags']),
    );
    expect(r.confident).toBe(false);
    expect(r.notes.join('\n')).toMatch(/uniqueItems/);
  });

  it('prefixItems (2020-12)', () => {
    const schema = {
      $schema: 'https://json-schema.org/draft/2020-12/schema',
      ...obj({ pair: { type: 'array', prefixItems: [{ type: 'string' }, { type: 'integer' }], items: false } }, [
        'pair',
      ]),
    };
    expect(gen(schema).value.pair).toEqual(['example', 1]);
    const rest = {
      $schema: 'https://json-schema.org/draft/2020-12/schema',
      ...obj({ t: { type: 'array', prefixItems: [{ type: 'boolean' }], items: { type: 'integer' }, minItems: 3 } }, [
        't',
      ]),
    };
    expect(gen(rest).value.t).toEqual([false, 1, 1]);
  });

  it('tuple form items: [...] with additionalItems (draft-07)', () => {
    const schema = {
      $schema: 'http://json-schema.org/draft-07/schema#',
      ...obj(
        { t: { type: 'array', items: [{ type: 'string' }, { type: 'boolean' }], additionalItems: false, minItems: 2 } },
        ['t'],
      ),
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
          a: {
            anyOf: [
              { type: 'string', minLength: 5, maxLength: 2 },
              { type: 'integer', minimum: 3 },
            ],
          },
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
            oneOf: [
              obj({ kind: { const: 'a' }, x: { type: 'string' } }, ['kind']),
              obj({ kind: { const: 'b' }, y: { type: 'integer' } }, ['kind']),
            ],
          },
        },
        ['n', 's', 'kind'],
      ),
    );
    expect(Number.isInteger(r.value.n)).toBe(false);
  });

  it('allOf merges constraints', () => {
    const r = gen({
      allOf: [
        obj({ a: { type: 'string' } }, ['a']),
        { properties: { a: { minLength: 10 }, b: { type: 'integer', maximum: -2 } }, required: ['b'] },
      ],
    });
    expect((r.value.a as string).length).toBeGreaterThanOrEqual(10);
    expect(r.value.b).toBe(-2);
  });

  it('not: avoided when possible, noted when not', () => {
    const r = gen(
      obj({ s: { type: 'string', not: { const: 'example' } }, t: { not: { type: 'string' } } }, ['s', 't']),
    );
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
      properties: {
        port: { $ref: '#/$defs/port' },
        ip: { $ref: '#/$defs/a~1b' },
        host: { $ref: '#/definitions/host' },
      },
      required: ['port', 'ip', 'host'],
    });
    expect(r.value).toEqual({ port: 1024, ip: '127.0.0.1', host: 'localhost' });
  });

  it('recursive $ref: a tree with optional children', () => {
    const schema = {
      type: 'object',
      $defs: {
        node: obj({ label: { type: 'string' }, children: { type: 'array', items: { $ref: '#/$defs/node' } } }, [
          'label',
        ]),
      },
      properties: { root: { $ref: '#/$defs/node' } },
      required: ['root'],
    };
    const r = gen(schema);
    expect(JSON.stringify(r.value).length).toBeLessThan(10_000);
  });

  it('recursive $ref: a linked list ending in null, and $ref to the root', () => {
    gen({
      type: 'object',
      definitions: {
        list: obj({ v: { type: 'integer' }, next: { anyOf: [{ $ref: '#/definitions/list' }, { type: 'null' }] } }, [
          'v',
          'next',
        ]),
      },
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
    const loop = generateArguments({
      type: 'object',
      $defs: { a: { $ref: '#/$defs/a' }, b: { $ref: '#/$defs/c' }, c: { $ref: '#/$defs/b' } },
      properties: { x: { $ref: '#/$defs/a' }, y: { $ref: '#/$defs/b' } },
      required: ['x', 'y'],
    });
    expect(Object.keys(loop.value)).toEqual(['x', 'y']);
  });

  it('unresolvable $ref: noted', () => {
    const r = generateArguments(
      obj({ x: { $ref: 'https://example.com/schema.json' }, y: { $ref: '#/$defs/missing' } }, ['x', 'y']),
    );
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
    const r = generateArguments(
      obj(
        { a: { type: 'array', items: { type: 'string' }, minItems: 1e9 }, s: { type: 'string', minLength: 1e9 } },
        ['a', 's'],
        { minProperties: 1e6 },
      ),
    );
    expect(r.confident).toBe(false);
    expect((r.value.a as unknown[]).length).toBe(ARGUMENT_LIMITS.maxItems);
    expect((r.value.s as string).length).toBe(ARGUMENT_LIMITS.maxStringLength);
    expect(r.notes.join('\n')).toMatch(/minItems 1000000000 capped/);
    expect(r.notes.join('\n')).toMatch(/minLength 1000000000 capped/);
  });

  it('multiplying sizes stay bounded', () => {
    let items: unknown = { type: 'string', minLength: 900 };
    for (let i = 0; i < 6; i++) items = { type: 'array', items, minItems: 40 };
    const started = process.cpuUsage(); // CPU time: the bound holds on a loaded machine too
    const r = generateArguments(obj({ deep: items }, ['deep']));
    const used = process.cpuUsage(started);
    expect((used.user + used.system) / 1000).toBeLessThan(10_000);
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
      properties: {
        a: { type: 7, minimum: 'x', items: 'y', pattern: 5, enum: 'z' },
        b: 12,
        c: { properties: 5, required: 'q' },
      },
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
    const schema = JSON.parse(
      '{"type":"object","properties":{"__proto__":{"type":"string"},"constructor":{"type":"integer"}},"required":["__proto__","toString","constructor"]}',
    ) as Schema;
    const r = gen(schema);
    expect(Object.hasOwn(r.value, '__proto__')).toBe(true);
    expect(Object.getPrototypeOf(r.value)).toBe(Object.prototype);
    expect(r.value.constructor).toBe(1);
    expect(({} as Record<string, unknown>).polluted).toBeUndefined();
    const missing = missingRequiredArguments(schema);
    expect(missing?.property).toBe('__proto__');
    expect(Object.getPrototypeOf(missing?.value)).toBe(Object.prototype);
  });

  it('a huge enum and many properties stay cheap', () => {
    const en = Array.from({ length: 100_000 }, (_, i) => `v${i}`);
    const props = Object.fromEntries(
      Array.from({ length: 5000 }, (_, i) => [`p${i}`, { type: 'string', pattern: '^[a-z]+\\d$' }]),
    );
    // the CPU time of this process (the call is synchronous): what "cheap" means, whatever else the machine runs
    const started = process.cpuUsage();
    const r = generateArguments(obj({ e: { enum: en }, ...props }, ['e']));
    expect(r.value.e).toBe('v0');
    const used = process.cpuUsage(started);
    expect((used.user + used.system) / 1000).toBeLessThan(10_000);
  });
});
