/** "Did you mean": the edit distance, the nearest known word, and ajv's errors in words (core/suggest.ts, core/schema-words.ts). */
import { Ajv } from 'ajv';
import { describe, expect, it } from 'vitest';
import { editDistance, nearest } from '../core/suggest.js';
import { pathWords, schemaErrorLines } from '../core/schema-words.js';

describe('nearest', () => {
  it('counts a swapped pair of letters as one edit', () => {
    expect(editDistance('stdoi', 'stdio')).toBe(1);
    expect(editDistance('rnu', 'run')).toBe(1);
    expect(editDistance('pyhton3', 'python3')).toBe(1);
    expect(editDistance('', 'abc')).toBe(3);
  });

  it('suggests only what is near enough to be a typo', () => {
    expect(nearest('suits', ['suites', 'cases', 'timeout'])).toBe('suites');
    expect(nearest('reporters', ['reporter', 'verbose'])).toBe('reporter');
    expect(nearest('timout', ['timeout', 'strict'])).toBe('timeout');
    expect(nearest('frobnicate', ['run', 'list', 'lint'])).toBeUndefined();
    expect(nearest('x', ['quiet', 'verbose'])).toBeUndefined();
    // A prefix of exactly one word.
    expect(nearest('verb', ['verbose', 'version-x'])).toBe('verbose');
  });
});

describe('schemaErrorLines', () => {
  const schema = {
    type: 'object',
    additionalProperties: false,
    required: ['targets'],
    properties: {
      timeout: { type: 'number' },
      targets: {
        type: 'array',
        items: {
          type: 'object',
          additionalProperties: false,
          properties: { name: { type: 'string' }, stdio: { type: 'string' }, http: { type: 'string' } },
          oneOf: [{ required: ['stdio'] }, { required: ['http'] }],
        },
      },
    },
  };
  const check = (v: unknown) => {
    const validate = new Ajv({ allErrors: true, strict: false, verbose: true }).compile(schema);
    validate(v);
    return schemaErrorLines(validate.errors ?? [], 3);
  };

  it('names an unknown key with its path and the nearest known key; no oneOf dump', () => {
    expect(check({ timout: 5, targets: [{ name: 'a', command: 'x' }] })).toEqual([
      'timout: unknown key; did you mean timeout?',
      'targets[0].command: unknown key; did you mean stdio?',
    ]);
  });

  it('a oneOf none of whose branches fits is one line naming the keys', () => {
    expect(check({ targets: [{ name: 'a' }] })).toEqual(['targets[0]: needs one of stdio, http']);
    expect(check({ targets: [{ stdio: 'a', http: 'b' }] })).toEqual(['targets[0]: takes only one of stdio, http']);
  });

  it('at most the lines asked for, the last one counting the rest', () => {
    const lines = check({ a: 1, b: 2, c: 3, d: 4, targets: [] });
    expect(lines).toHaveLength(3);
    expect(lines[2]).toMatch(/^… and 2 more problems$/);
  });

  it('paths in words', () => {
    expect(pathWords('')).toBe('(top level)');
    expect(pathWords('/targets/0', 'command')).toBe('targets[0].command');
    expect(pathWords('/a~1b/2')).toBe('a/b[2]');
  });
});
