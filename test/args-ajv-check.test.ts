/**
 * core/args/ajv-check.ts: the final check of generated arguments by ajv. A schema without `$schema` must pass in both
 * draft-07 and 2020-12 (a server may read it either way); a declared dialect is read alone; what ajv reads differently
 * (draft-04, `__proto__`) or cannot compile is left to the generator's own check (undefined).
 */
import { describe, expect, it } from 'vitest';
import { ajvCheck } from '../core/args/ajv-check.js';
import { generateArguments } from '../core/args/index.js';

const tuple = { type: 'object', properties: { a: { type: 'array', prefixItems: [{ type: 'integer' }] } } };

describe('ajvCheck', () => {
  it('a schema that declares no dialect must pass in draft-07 and in 2020-12', () => {
    // draft-07 knows no prefixItems (so ["x"] passes there); 2020-12 wants an integer first.
    expect(ajvCheck(tuple, { a: ['x'] })).toEqual({ valid: false, keyword: 'type' });
    expect(ajvCheck(tuple, { a: [1] })).toEqual({ valid: true });
    const closed = { type: 'object', properties: { a: { type: 'string' } }, unevaluatedProperties: false };
    expect(ajvCheck(closed, { a: 'x', b: 1 })?.valid).toBe(false);
  });

  it('a declared dialect is read alone', () => {
    expect(ajvCheck({ ...tuple, $schema: 'http://json-schema.org/draft-07/schema#' }, { a: ['x'] })).toEqual({
      valid: true,
    });
    expect(ajvCheck({ ...tuple, $schema: 'https://json-schema.org/draft/2020-12/schema' }, { a: ['x'] })?.valid).toBe(
      false,
    );
  });

  it('leaves to the generator what ajv reads differently or cannot compile', () => {
    const draft04 = {
      $schema: 'http://json-schema.org/draft-04/schema#',
      type: 'object',
      properties: { n: { type: 'number', minimum: 0, exclusiveMinimum: true } },
    };
    expect(ajvCheck(draft04, { n: 1 })).toBeUndefined();
    expect(ajvCheck(JSON.parse('{"type":"object","properties":{"__proto__":{"type":"string"}}}'), {})).toBeUndefined();
    expect(
      ajvCheck({ type: 'object', properties: { a: { $ref: '#/definitions/missing' } } }, { a: 1 }),
    ).toBeUndefined();
    expect(
      ajvCheck({ type: 'object', properties: { a: { type: 'string', pattern: '(' } } }, { a: 'x' }),
    ).toBeUndefined();
  });

  it('required means an own property (a name like "constructor" is not inherited)', () => {
    const s = { type: 'object', properties: { constructor: { type: 'integer' } }, required: ['constructor'] };
    expect(ajvCheck(s, {})).toEqual({ valid: false, keyword: 'required' });
  });

  it('generated arguments for a schema without $schema satisfy both readings', () => {
    const r = generateArguments({ ...tuple, required: ['a'] });
    expect(r.confident).toBe(true);
    expect(ajvCheck(tuple, r.value)).toEqual({ valid: true });
  });
});
