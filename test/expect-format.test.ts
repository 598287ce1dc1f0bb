/**
 * The expectation format's parts, offline: paths (JSON pointer and dotted), the members-given comparison, ${…}
 * references, the checks' words, the JSON Schema shipped for editors, and a session turned into expectations.
 */
import { readFileSync } from 'node:fs';
import { join } from 'node:path';
import { Ajv } from 'ajv';
import { parse } from 'yaml';
import { describe, expect, it } from 'vitest';
import { parsePath, subsetDiff, substitute, valueAt } from '../suites/expect/paths.js';
import { ExpectFileError, expectSchema, parseExpectText, slugOf } from '../suites/expect/format.js';
import { runChecks, toolListChecks } from '../suites/expect/checks.js';
import { expectationsFromSession } from '../lib/expect-from-session.js';
import { ROOT } from './helpers/cli.js';

describe('paths', () => {
  it('reads JSON pointers and dotted paths to the same places', () => {
    const v = { structuredContent: { items: [{ id: 7, 'a/b': 1, 'a.b': 2 }] } };
    expect(parsePath('/structuredContent/items/0/id')).toEqual(['structuredContent', 'items', 0, 'id']);
    expect(parsePath('structuredContent.items[0].id')).toEqual(['structuredContent', 'items', 0, 'id']);
    expect(valueAt(v, parsePath('/structuredContent/items/0/a~1b'))).toEqual({ found: true, value: 1 });
    expect(valueAt(v, parsePath('structuredContent.items[0]["a.b"]'))).toEqual({ found: true, value: 2 });
    expect(valueAt(v, parsePath('structuredContent.items[1]'))).toEqual({ found: false });
    expect(() => parsePath('a..b')).toThrow(/not a path/);
    expect(() => parsePath('.a')).toThrow(/not a path/);
  });

  it('compares by the members given: others ignored, arrays item by item, numbers as JSON numbers', () => {
    expect(subsetDiff({ quotient: 3.5 }, { quotient: 3.5, remainder: 1 })).toEqual([]);
    expect(subsetDiff({ a: { b: 1 } }, { a: { b: 1, c: 2 } })).toEqual([]);
    expect(subsetDiff({ q: 3.5, u: 'm' }, { q: 3 })).toEqual([
      { at: '/q', expected: 3.5, actual: 3 },
      { at: '/u', expected: 'm', missing: true },
    ]);
    expect(subsetDiff([{ id: 1 }], [{ id: 1, x: 0 }])).toEqual([]);
    expect(subsetDiff([1, 2], [1, 2, 3])).toEqual([{ at: '', expected: [1, 2], actual: [1, 2, 3] }]);
    expect(subsetDiff({ a: 1 }, [1])).toEqual([{ at: '', expected: { a: 1 }, actual: [1] }]);
  });

  it('puts saved answers in: a whole reference keeps its type, one inside text is text, $${ is a literal', () => {
    const saved = new Map<string, unknown>([['created', { structuredContent: { id: 42, tags: ['x'] } }]]);
    expect(
      substitute(
        {
          id: '${created.structuredContent.id}',
          note: 'id ${created.structuredContent.id}',
          tags: '${created.structuredContent.tags}',
          lit: '$${x}',
        },
        saved,
      ),
    ).toEqual({ id: 42, note: 'id 42', tags: ['x'], lit: '${x}' });
    expect(() => substitute('${created.nope}', saved)).toThrow(/the answer saved as "created" has nothing at \/nope/);
    expect(() => substitute('${other.id}', saved)).toThrow(/nothing was saved as "other"/);
  });
});

describe('checks', () => {
  it('say what was expected and what came, one check each', () => {
    const result = { content: [{ type: 'text', text: 'division by zero' }], isError: true };
    const out = runChecks(
      'call',
      { isError: false, textContains: ['zero', 'nil'], textMatches: '/^DIV/i', maxMs: 10 },
      { result, durationMs: 12.4 },
    );
    expect(out.map((c) => [c.check, c.ok])).toEqual([
      ['isError', false],
      ['textContains', true],
      ['textContains', false],
      ['textMatches', true],
      ['maxMs', false],
    ]);
    expect(out[0]!.say).toBe('isError: expected false, got true (text "division by zero")');
    expect(out[4]!.say).toBe('maxMs: answered in 12 ms, more than 10');
    const err = runChecks('call', { text: '5' }, { error: { code: -32602, message: 'bad' } });
    expect(err).toEqual([
      {
        check: 'error',
        ok: false,
        expected: 'a result',
        actual: { code: -32602, message: 'bad' },
        say: 'expected a result, got JSON-RPC error -32602: "bad"',
      },
    ]);
    expect(
      runChecks(
        'request',
        { error: { code: -32601, messageContains: 'found' } },
        { error: { code: -32601, message: 'Method not found' } },
      ).every((c) => c.ok),
    ).toBe(true);
    expect(runChecks('read', { text: 'one' }, { result: { contents: [{ uri: 'x', text: 'one' }] } })[0]!.ok).toBe(true);
    expect(
      runChecks(
        'prompt',
        { text: 'hi' },
        { result: { messages: [{ role: 'user', content: { type: 'text', text: 'hi' } }] } },
      )[0]!.ok,
    ).toBe(true);
    const paths = runChecks(
      'call',
      {
        paths: {
          '/structuredContent/n': { $type: 'integer' },
          'content[0].text': { $matches: '^\\d+$' },
          'structuredContent.gone': { $exists: false },
        },
      },
      { result: { content: [{ type: 'text', text: '12' }], structuredContent: { n: 1.5 } } },
    );
    expect(paths.map((c) => [c.check, c.ok, c.say])).toEqual([
      [
        'paths./structuredContent/n',
        false,
        '/structuredContent/n: expected {"$type":"integer"}, but it is a number: 1.5',
      ],
      ['paths.content[0].text', true, 'content[0].text {"$matches":"^\\\\d+$"}'],
      ['paths.structuredContent.gone', true, 'structuredContent.gone {"$exists":false}'],
    ]);
  });

  it('the tool list: includes, excludes, exactly (any order)', () => {
    expect(
      toolListChecks({ includes: ['a'], excludes: ['z'], exactly: ['b', 'a'] }, ['a', 'b']).every((c) => c.ok),
    ).toBe(true);
    const bad = toolListChecks({ exactly: ['a', 'c'] }, ['a', 'b']);
    expect(bad[0]!.say).toBe('tools.exactly: not listed: c; listed but not expected: b');
  });
});

describe('the format', () => {
  it('slugs are lower case words joined by "-"', () => {
    expect(slugOf('Adds two integers!')).toBe('adds-two-integers');
    expect(slugOf('Ünïcödé  name')).toBe('unicode-name');
    expect(slugOf('???')).toBe('expectation');
  });

  it('expect.schema.json accepts the example files and every example in docs/expectations.md, and refuses what the loader refuses', () => {
    const validate = new Ajv({ strict: false }).compile(expectSchema());
    for (const f of ['notes-calc.expect.yaml', 'server-memory.expect.yaml']) {
      const v = parse(readFileSync(join(ROOT, 'fixtures', 'expect', f), 'utf8'));
      expect(validate(v), `${f}: ${JSON.stringify(validate.errors)}`).toBe(true);
    }
    const doc = readFileSync(join(ROOT, 'docs', 'expectations.md'), 'utf8');
    const blocks = [...doc.matchAll(/```yaml\n([\s\S]*?)```/g)]
      .map((m) => m[1]!)
      .filter((b) => /^expectations:/m.test(b));
    expect(blocks.length).toBeGreaterThanOrEqual(2);
    for (const b of blocks) {
      expect(validate(parse(b)), `${b}\n${JSON.stringify(validate.errors)}`).toBe(true);
      expect(() => parseExpectText(b, 'doc.yaml')).not.toThrow();
    }
    for (const bad of [
      'expectations: [{name: x}]',
      'expectations: [{name: x, call: a, read: b}]',
      'expectations: [{name: x, tools: {}, save: y}]',
      'expectations: [{name: x, call: a, expect: {error: {code: 1.5}}}]',
    ]) {
      expect(validate(parse(bad)), bad).toBe(false);
      expect(() => parseExpectText(bad, 'bad.yaml'), bad).toThrow(ExpectFileError);
    }
  });
});

describe('a session as expectations', () => {
  it('takes calls, reads, prompts and the tool list in order; leaves out probes, the handshake, made-up names and repeats', () => {
    const m = (dir: 'to-server' | 'from-server', json: unknown, probe = false) => ({ dir, json, conn: 0, probe });
    const { text, count, leftOut } = expectationsFromSession(
      [
        m('to-server', { jsonrpc: '2.0', id: 1, method: 'initialize', params: {} }),
        m('from-server', { jsonrpc: '2.0', id: 1, result: {} }),
        m('to-server', { jsonrpc: '2.0', id: 2, method: 'tools/list' }),
        m('from-server', { jsonrpc: '2.0', id: 2, result: { tools: [{ name: 'add' }], nextCursor: 'p2' } }),
        m('to-server', { jsonrpc: '2.0', id: 3, method: 'tools/list', params: { cursor: 'p2' } }),
        m('from-server', { jsonrpc: '2.0', id: 3, result: { tools: [{ name: 'echo' }] } }),
        m('to-server', {
          jsonrpc: '2.0',
          id: 4,
          method: 'tools/call',
          params: { name: 'add', arguments: { a: 1, b: 2 } },
        }),
        m('from-server', { jsonrpc: '2.0', id: 4, result: { content: [{ type: 'text', text: '3' }] } }),
        m('to-server', {
          jsonrpc: '2.0',
          id: 5,
          method: 'tools/call',
          params: { name: 'add', arguments: { a: 1, b: 2 } },
        }),
        m('from-server', { jsonrpc: '2.0', id: 5, result: { content: [{ type: 'text', text: '3' }] } }),
        m('to-server', { jsonrpc: '2.0', id: 6, method: 'tools/call', params: { name: 'mcp_conform_no_such_tool' } }),
        m('from-server', { jsonrpc: '2.0', id: 6, error: { code: -32602, message: 'x' } }),
        m('to-server', { jsonrpc: '2.0', id: 7, method: 'tools/call', params: {} }, true),
        m('from-server', { jsonrpc: '2.0', id: 7, error: { code: -32602, message: 'x' } }),
        m('to-server', { jsonrpc: '2.0', id: 8, method: 'resources/read', params: { uri: 'note://gone' } }),
        m('from-server', { jsonrpc: '2.0', id: 8, error: { code: -32002, message: 'not found' } }),
        m('to-server', { jsonrpc: '2.0', method: 'notifications/initialized' }),
      ],
      { source: 'test' },
    );
    expect(count).toBe(3);
    expect(leftOut).toEqual({
      initialize: 1,
      'tools/call (repeated)': 1,
      'tools/call of a name the harness made up': 1,
      'tools/call (malformed on purpose)': 1,
    });
    expect(text.split('\n').slice(3)).toEqual([
      'expectations:',
      '  - name: lists its tools',
      '    tools: {exactly: [add, echo]}',
      '  - name: "add (a: 1, b: 2)"',
      '    call: add',
      '    arguments: {a: 1, b: 2}',
      '    expect: {isError: false, text: "3"}',
      '  - name: reads note://gone',
      '    read: note://gone',
      '    expect: {error: {code: -32002}}',
      '',
    ]);
  });
});
