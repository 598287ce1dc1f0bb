/**
 * diff: every row of the rule table has a fixture pair whose changes are classified as the table says; identical
 * snapshots give no change; normalisation makes key order and `required` order irrelevant; the rule table of
 * docs/snapshots.md is the table in core/surface/rules.ts. The CLI's exit codes and formats: test/surface-diff-cli.test.ts.
 */
import { readdirSync, readFileSync } from 'node:fs';
import { join } from 'node:path';
import { describe, expect, it } from 'vitest';
import { diffSnapshots } from '../core/surface/diff.js';
import { RULES, rulesMarkdown } from '../core/surface/rules.js';
import { compareSchemas } from '../core/surface/schema-diff.js';
import { parseSurfaceFile, SurfaceInputError, type Snapshot } from '../core/surface/snapshot.js';
import { ROOT } from './helpers/cli.js';

const DIR = join(ROOT, 'fixtures', 'surface');
const PAIRS = readdirSync(DIR);

function read(file: string): Snapshot {
  return parseSurfaceFile(readFileSync(file, 'utf8'), file).snapshot;
}

interface Expected {
  severity: string;
  rule: string;
  name: string;
  path: string;
}
const key = (c: Expected) => `${c.severity} ${c.rule} ${c.name} ${c.path}`;

describe('the rule table on fixture pairs', () => {
  for (const pair of PAIRS) {
    it(`${pair}: exactly the expected changes, each with the severity of its rule`, () => {
      const d = diffSnapshots(read(join(DIR, pair, 'old.json')), read(join(DIR, pair, 'new.json')));
      const expected = (JSON.parse(readFileSync(join(DIR, pair, 'expected.json'), 'utf8')) as { changes: Expected[] })
        .changes;
      expect(d.changes.map(key).sort()).toEqual(expected.map(key).sort());
      for (const c of d.changes) {
        expect(c.severity).toBe(RULES[c.rule].severity);
        expect(c.kind).toBe(RULES[c.rule].kind);
        expect(c.message.length).toBeGreaterThan(5);
      }
      expect(d.summary.breaking + d.summary.compatible + d.summary.cosmetic).toBe(d.changes.length);
    });
  }

  it('every rule of the table is exercised by a fixture pair', () => {
    const used = new Set(
      PAIRS.flatMap((p) =>
        (JSON.parse(readFileSync(join(DIR, p, 'expected.json'), 'utf8')) as { changes: Expected[] }).changes.map(
          (c) => c.rule,
        ),
      ),
    );
    expect(Object.keys(RULES).filter((r) => !used.has(r))).toEqual([]);
  });

  it('a snapshot diffed against itself has no change', () => {
    for (const pair of PAIRS)
      for (const side of ['old.json', 'new.json']) {
        const s = read(join(DIR, pair, side));
        const d = diffSnapshots(s, structuredClone(s));
        expect(d.changes, `${pair}/${side}`).toEqual([]);
      }
  });

  it('key order, the order of required and type lists, and dropped volatile fields do not count as changes', () => {
    const a = {
      snapshotVersion: 1,
      server: { name: 's', version: '1' },
      capabilities: { tools: {} },
      tools: [
        {
          name: 'b',
          inputSchema: {
            type: 'object',
            properties: { x: { type: ['string', 'null'] }, y: { type: 'number' } },
            required: ['x', 'y'],
          },
        },
        { name: 'a', inputSchema: { type: 'object' }, _meta: { at: 1 } },
      ],
      resources: [{ uri: 'r://1', name: 'one', size: 10, annotations: { lastModified: '2025-01-01T00:00:00Z' } }],
    };
    const b = {
      capabilities: { tools: {} },
      tools: [
        { inputSchema: { type: 'object' }, name: 'a', _meta: { at: 2 } },
        {
          inputSchema: {
            required: ['y', 'x'],
            properties: { y: { type: 'number' }, x: { type: ['null', 'string'] } },
            type: 'object',
          },
          name: 'b',
        },
      ],
      server: { version: '1', name: 's' },
      snapshotVersion: 1,
      resources: [{ name: 'one', uri: 'r://1', size: 99, annotations: { lastModified: '2026-01-01T00:00:00Z' } }],
    };
    const sa = parseSurfaceFile(JSON.stringify(a), 'a').snapshot;
    const sb = parseSurfaceFile(JSON.stringify(b), 'b').snapshot;
    expect(JSON.stringify(sa)).toBe(JSON.stringify(sb));
    expect(JSON.stringify(sa)).not.toContain('_meta');
    expect(JSON.stringify(sa)).not.toContain('lastModified');
    expect(sa.tools!.map((t) => t.name)).toEqual(['a', 'b']);
  });

  it('schema comparison: integer ⊂ number, type lists, unions on one side, a $ref that does not resolve', () => {
    const changes: string[] = [];
    const emit = (rule: string, path: string) => {
      changes.push(`${rule} ${path}`);
    };
    compareSchemas('input', { type: 'number' }, { type: 'integer' }, '', emit);
    compareSchemas('input', { type: 'integer' }, { type: 'number' }, '', emit);
    compareSchemas('input', { type: ['string', 'null'] }, { type: 'string' }, '', emit);
    compareSchemas('input', { type: 'string' }, { type: 'number' }, '', emit);
    compareSchemas(
      'input',
      { anyOf: [{ type: 'string' }, { type: 'null' }] },
      { type: 'string', maxLength: 5 },
      '',
      emit,
    );
    compareSchemas('input', { $ref: '#/$defs/A' }, { $ref: '#/$defs/B' }, '', emit);
    compareSchemas(
      'input',
      { type: 'object', properties: { a: { type: 'string' } } },
      { type: 'object', properties: { a: { type: 'string' } } },
      '',
      emit,
    );
    expect(changes).toEqual([
      'input.type-narrowed /type',
      'input.type-widened /type',
      'input.type-narrowed /type',
      'input.type-narrowed /type',
      'input.bound-stricter /anyOf/0/maxLength',
      'input.union-branch-removed /anyOf/1',
      'input.undecided ',
    ]);
  });
});

describe('unreadable input', () => {
  it('says what is wrong with the file', () => {
    expect(() => parseSurfaceFile('{', 'x.json')).toThrow(SurfaceInputError);
    expect(() => parseSurfaceFile('{"snapshotVersion": 2, "server": {}, "capabilities": {}}', 'x.json')).toThrow(
      /snapshotVersion 2; this mcp-conform reads version 1/,
    );
    expect(() =>
      parseSurfaceFile(
        '{"snapshotVersion": 1, "server": {}, "capabilities": {}, "tools": [{"title": "no name"}]}',
        'x.json',
      ),
    ).toThrow(/"tools"\[0\] has no string "name"/);
    expect(() => parseSurfaceFile('{"runs": [{}, {}]}', 'x.json')).toThrow(/report of 2 runs/);
    expect(() => parseSurfaceFile('{"hello": 1}', 'x.json')).toThrow(/neither a snapshot/);
  });
});

describe('docs/snapshots.md', () => {
  it('holds the rule table of core/surface/rules.ts', () => {
    const page = readFileSync(join(ROOT, 'docs', 'snapshots.md'), 'utf8');
    const m = /<!-- surface-rules:start[^>]*-->\n([\s\S]*?)<!-- surface-rules:end -->/.exec(page);
    expect(
      m,
      'docs/snapshots.md has no <!-- surface-rules:start --> … <!-- surface-rules:end --> markers',
    ).not.toBeNull();
    expect(m![1], 'the rule table of docs/snapshots.md is out of date: run npm run docs:generate').toBe(
      rulesMarkdown(),
    );
  });
});
