/**
 * mcp-conform/vitest's connect() and matchers, used here as a user's test file would (the packed package inside a
 * user's own vitest is test/library-pack.test.ts): every message is schema-checked as in a run, a call whose answer
 * breaks the schema rejects (or, collected, fails toSucceed), and the matchers say what came when they do not hold.
 */
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { connect, McpRequestError, McpSchemaError, type McpTestClient } from '../vitest/index.js';
import { py } from './helpers/cli.js';

describe('connect() against notes-calc.py', () => {
  let client: McpTestClient;
  beforeAll(async () => {
    client = await connect({ stdio: py('notes-calc.py'), timeout: 10_000 });
  });
  afterAll(() => client?.close());

  it('calls tools (whatever any call policy says: the test asks for them) and the matchers hold', async () => {
    expect(client.protocolVersion).toBe('2025-11-25');
    expect(client.serverInfo).toMatchObject({ name: 'notes-calc' });
    const add = await client.callTool('integer_addition', { a: 2, b: 3 });
    expect(add).toMatchObject({ isError: false, text: '5', violations: [] });
    expect(add).toSucceed();
    expect(add).toHaveText('5');
    expect(add).toHaveText(/^\d$/);
    const div = await client.callTool('integer_division', { a: 7, b: 2 });
    expect(div).toMatchStructured({ quotient: 3.5 });
    expect(div).not.toMatchStructured({ quotient: 3 });
    const zero = await client.callTool('integer_division', { a: 1, b: 0 });
    expect(zero).toFailWithToolError('zero');
    expect(zero).not.toSucceed();
    const created = await client.callTool('create_note', { text: 'milk' });
    const id = (created.structuredContent as { id: string }).id;
    expect(await client.callTool('get_note', { id })).toHaveText('milk');
  });

  it('a matcher that does not hold says what was expected and what came', async () => {
    const add = await client.callTool('integer_addition', { a: 2, b: 3 });
    expect(() => expect(add).toHaveText('6')).toThrow('expected the text of integer_addition to be "6", got "5"');
    expect(() => expect(add).toFailWithToolError()).toThrow(
      'expected integer_addition {"a":2,"b":3} to fail with a tool error (isError: true), but got a result with text "5"',
    );
    const div = await client.callTool('integer_division', { a: 7, b: 2 });
    expect(() => expect(div).toMatchStructured({ quotient: 3, unit: 'm' })).toThrow(
      'expected the structuredContent of integer_division to have {"quotient":3,"unit":"m"}, but /quotient: expected 3, got 3.5; /unit missing',
    );
    expect(() => expect(add).toMatchStructured({ a: 1 })).toThrow(/the result has no structuredContent/);
    expect(() => expect('5').toSucceed()).toThrow(/toSucceed expects what client\.callTool\(\) resolved to/);
  });

  it('lists every tool, reads, gets prompts; a JSON-RPC error is McpRequestError; every message so far fits the schema', async () => {
    expect((await client.listTools()).map((t) => t.name)).toEqual([
      'integer_addition',
      'integer_division',
      'create_note',
      'get_note',
    ]);
    expect(await client.readResource('note://one')).toMatchObject({ contents: [{ uri: 'note://one', text: 'one' }] });
    expect(await client.getPrompt('greet', { name: 'Ada' })).toEqual({
      messages: [{ role: 'user', content: { type: 'text', text: 'Say hello to Ada.' } }],
    });
    const e = await client.request('nothing/here').catch((x: unknown) => x);
    expect(e).toBeInstanceOf(McpRequestError);
    expect(e).toMatchObject({ method: 'nothing/here', code: -32601 });
    expect(client.violations).toEqual([]);
    expect(client.messages.every((m) => m.schema.checked)).toBe(true);
  });
});

describe('connect() against a server whose answers break the schema', () => {
  it('a call whose answer breaks the schema rejects with McpSchemaError naming the place', async () => {
    const client = await connect({ stdio: py('broken/schema-violation.py'), timeout: 10_000 });
    try {
      const e = await client.callTool('add', { a: 1, b: 2 }).catch((x: unknown) => x);
      expect(e).toBeInstanceOf(McpSchemaError);
      expect((e as Error).message).toMatch(
        /^tools\/call: the exchange breaks the MCP schema: answer \/result\/content\/0/,
      );
      expect((e as McpSchemaError).violations[0]).toMatchObject({ direction: 'from-server', method: 'tools/call' });
      await expect(client.listTools()).rejects.toThrow(McpSchemaError);
      expect(client.violations.length).toBeGreaterThan(1);
    } finally {
      await client.close();
    }
  });

  it("with schemaViolations: 'collect' the call resolves, carries them, and toSucceed fails on them", async () => {
    const client = await connect({
      stdio: py('broken/schema-violation.py'),
      timeout: 10_000,
      schemaViolations: 'collect',
    });
    try {
      const r = await client.callTool('add', { a: 1, b: 2 });
      expect(r.violations.length).toBeGreaterThan(0);
      expect(() => expect(r).toSucceed()).toThrow(
        /to succeed, but got its messages break the MCP schema: answer \/result\/content\/0/,
      );
    } finally {
      await client.close();
    }
  });

  it('a server that cannot be started is a rejection, and options are checked as runConformance checks them', async () => {
    await expect(connect({ stdio: 'python3 -c "import sys; sys.exit(3)"', timeout: 3000 })).rejects.toThrow(
      /could not connect to the server/,
    );
    await expect(connect({ timeout: 1000 })).rejects.toThrow(/needs a server/);
  });
});
