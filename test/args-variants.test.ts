/**
 * Invalid variants (missingRequiredArguments, wrongTypeArguments), the schemas of real servers, and the memo of
 * generated arguments (core/args); split from args.test.ts.
 */
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { fileURLToPath } from 'node:url';
import { Client } from '@modelcontextprotocol/sdk/client/index.js';
import { StdioClientTransport } from '@modelcontextprotocol/sdk/client/stdio.js';
import { generateArguments, missingRequiredArguments, wrongTypeArguments } from '../core/args/index.js';
import { type Schema, errorsOf, expectFailsOnlyOn, obj } from './helpers/args.js';
import { FILESYSTEM_SERVER } from './helpers/cli.js';

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
    expect(r).toEqual({
      value: { b: 'example' },
      description: 'argument "a" left out (required)',
      property: 'a',
    });
    expectFailsOnlyOn(schema, r!.value, 'a');
  });

  it('finds required properties through allOf and $ref', () => {
    const schema = {
      type: 'object',
      $defs: { base: { required: ['id'], properties: { id: { type: 'string', format: 'uuid' } } } },
      allOf: [{ $ref: '#/$defs/base' }],
      properties: { x: { type: 'integer' } },
    };
    const r = missingRequiredArguments(schema);
    expect(r?.property).toBe('id');
    expect(r?.value).toEqual({});
    expect(errorsOf(schema, r!.value).length).toBeGreaterThan(0);
  });
});

describe('wrongTypeArguments', () => {
  const single = (schema: Schema) => obj({ p: schema, q: { type: 'string' } }, ['p', 'q']);
  const cases: [string, Schema, unknown, string][] = [
    [
      'number',
      { type: 'number' },
      'not-a-number',
      'argument "p" sent as string "not-a-number" where the schema wants number',
    ],
    [
      'integer',
      { type: 'integer', minimum: 0 },
      'not-a-number',
      'argument "p" sent as string "not-a-number" where the schema wants integer',
    ],
    ['string', { type: 'string' }, 42, 'argument "p" sent as number 42 where the schema wants string'],
    [
      'boolean',
      { type: 'boolean' },
      'not-a-boolean',
      'argument "p" sent as string "not-a-boolean" where the schema wants boolean',
    ],
    [
      'object',
      { type: 'object' },
      'not-an-object',
      'argument "p" sent as string "not-an-object" where the schema wants object',
    ],
    [
      'array',
      { type: 'array', items: { type: 'string' } },
      'not-an-array',
      'argument "p" sent as string "not-an-array" where the schema wants array',
    ],
    [
      'string or null',
      { type: ['string', 'null'] },
      42,
      'argument "p" sent as number 42 where the schema wants string or null',
    ],
    [
      'string or number',
      { type: ['string', 'number'] },
      true,
      'argument "p" sent as boolean true where the schema wants string or number',
    ],
    ['enum of strings', { enum: ['a', 'b'] }, 42, 'argument "p" sent as number 42 where the schema wants string'],
    [
      'const integer',
      { const: 3 },
      'not-a-number',
      'argument "p" sent as string "not-a-number" where the schema wants integer',
    ],
    [
      '$ref',
      { $ref: '#/$defs/n' },
      'not-a-number',
      'argument "p" sent as string "not-a-number" where the schema wants number',
    ],
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
    const schema = obj(
      {
        opt: { type: 'integer' },
        loose: { anyOf: [{ type: 'string' }, { type: 'integer' }] },
        req: { type: 'boolean' },
      },
      ['loose', 'req'],
    );
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
    expect(
      wrongTypeArguments(obj({ a: {}, b: { anyOf: [{ type: 'string' }, { type: 'number' }] } }, ['a'])),
    ).toBeUndefined();
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
  servers.filesystem = { command: process.execPath, args: [FILESYSTEM_SERVER, scratch] };
  servers.memory = {
    command: bin('mcp-server-memory'),
    args: [],
    env: { MEMORY_FILE_PATH: join(scratch, 'memory.jsonl') },
  };
  await Promise.all(
    Object.entries(servers).map(async ([name, s]) => {
      const env = Object.fromEntries(
        Object.entries({ ...process.env, ...s.env }).filter((e): e is [string, string] => typeof e[1] === 'string'),
      );
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
    const schema = () => ({
      type: 'object',
      properties: { q: { type: 'string', minLength: 3 }, n: { type: 'integer', minimum: 2 } },
      required: ['q', 'n'],
    });
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
    const withUndefined = generateArguments({
      type: 'object',
      properties: { a: { type: 'string', minLength: undefined } },
      required: ['a'],
    });
    const plain = generateArguments({ type: 'object', properties: { a: { type: 'string' } }, required: ['a'] });
    expect(withUndefined).toEqual(plain); // (undefined members are absent to the generator as well)
    const nan = generateArguments({
      type: 'object',
      properties: { a: { type: 'number', minimum: NaN } },
      required: ['a'],
    });
    const nul = generateArguments({
      type: 'object',
      properties: { a: { type: 'number', minimum: null } },
      required: ['a'],
    });
    expect(nan).toEqual(
      generateArguments({ type: 'object', properties: { a: { type: 'number', minimum: NaN } }, required: ['a'] }),
    );
    expect(nul).toEqual(
      generateArguments({ type: 'object', properties: { a: { type: 'number', minimum: null } }, required: ['a'] }),
    );
  });
});
