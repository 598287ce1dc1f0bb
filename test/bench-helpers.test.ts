// The pieces behind the performance work: the streaming JSON writer gives exactly JSON.stringify's bytes, and
// pipelined calls keep their order and fall back to one at a time on trouble. (No timings here: see npm run bench.)
import { mkdtempSync, readFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { describe, expect, it } from 'vitest';
import { jsonPieces, prerenderMessages, writeJsonFile } from '../reports/json.js';
import { pipelined } from '../core/tools.js';

const samples: unknown[] = [
  {
    a: undefined,
    b: [undefined, () => 1, {}],
    c: [],
    d: {},
    e: new Date(0),
    f: { x: { y: { z: [1, { q: 'a\nb' }] } } },
    g: null,
    h: 'é\u2028',
  },
  [],
  {},
  1,
  'x',
  null,
  [[[[[1]]]]],
  {
    messages: Array.from({ length: 50 }, (_, i) => ({
      seq: i,
      raw: `{"id":${i}}`,
      json: { id: i, nested: { list: [i, 'two', { three: 3 }] } },
    })),
  },
  // Long arrays below the top (a suite's cases, deeper ones), holes, toJSON, boxed values, large strings.
  {
    suites: [
      {
        id: 's',
        cases: Array.from({ length: 40 }, (_, i) => ({
          id: `c${i}`,
          details: { list: Array.from({ length: 40 }, (_, j) => (j % 7 ? j : { j, d: new Date(j), u: undefined })) },
        })),
      },
      { id: 'e', cases: [] },
    ],
    deep: [[[[[[[[Array.from({ length: 40 }, (_, i) => [i, { i }])]]]]]]]],
    boxed: [Object(1), Object('s'), Object(false)],
    // biome-ignore lint/suspicious/noSparseArray: an array with a hole is what this value is for
    holes: [1, , 3],
    big: 'x'.repeat(70_000),
    messages: Array.from({ length: 300 }, (_, i) => ({ seq: i, raw: 'é'.repeat(i * 50), json: { id: i } })),
  },
  // Items written several to a piece: an item with toJSON (given its own index) or one that is walked into ends a
  // run of them; a long raw goes on its own; primitives, undefined and functions in between; nested arrays of them.
  {
    messages: Array.from({ length: 700 }, (_, i) =>
      i % 97 === 5
        ? { toJSON: (k: string) => `item ${k}` }
        : i % 89 === 7
          ? { seq: i, list: Array.from({ length: 40 }, (_, j) => j) }
          : i % 83 === 3
            ? { seq: i, raw: 'r'.repeat(70_000) }
            : i % 13 === 1
              ? i % 2
                ? undefined
                : () => i
              : i % 11 === 2
                ? i
                : { seq: i, raw: 'x'.repeat(i * 3), json: { id: i, at: new Date(i), nested: [[i], { s: 'é\n' }] } },
    ),
    suites: [
      {
        id: 's',
        cases: Array.from({ length: 600 }, (_, i) => ({
          id: `c${i}`,
          note: i % 50 === 0 ? new Date(i) : undefined,
          rows: i % 200 === 9 ? Array.from({ length: 33 }, (_, j) => ({ j })) : [i],
        })),
      },
    ],
  },
  [Array.from({ length: 600 }, (_, i) => ({ i, d: { e: [i] } }))],
];

describe('report.json written as a stream', () => {
  it('gives the bytes of JSON.stringify(doc, null, 2)', async () => {
    for (const s of samples) expect([...jsonPieces(s)].join('')).toBe(JSON.stringify(s, null, 2));
    const file = join(mkdtempSync(join(tmpdir(), 'mcp-conform-json-')), 'report.json');
    for (const s of samples) {
      await writeJsonFile(file, s);
      expect(readFileSync(file, 'utf8')).toBe(JSON.stringify(s, null, 2) + '\n');
    }
  });
});

describe('report.json: the log rendered while the server ends (prerenderMessages)', () => {
  const log = () =>
    Array.from({ length: 120 }, (_, i) => ({
      seq: i,
      direction: i % 2 ? 'from-server' : 'to-server',
      t: i / 3,
      raw: i === 60 ? `{"pad":"${'x'.repeat(1_100_000)}"}` : `{"id":${i},"s":"é\u2028\\"}`,
      kind: 'request',
      json: { id: i, list: [i, { deep: 'a"b' }] },
      schema: { checked: true, valid: true, violations: [] },
    }));
  const settle = () => new Promise((r) => setTimeout(r, 50)); // every step done
  const file = join(mkdtempSync(join(tmpdir(), 'mcp-conform-json-')), 'report.json');

  it('gives the bytes of JSON.stringify(doc, null, 2), for a one-target report and a deeper one', async () => {
    const messages = log();
    prerenderMessages(messages);
    await settle();
    const doc = { tool: { name: 'x' }, suites: [], messages, after: [1, 2] };
    await writeJsonFile(file, doc);
    expect(readFileSync(file, 'utf8')).toBe(JSON.stringify(doc, null, 2) + '\n');
    // The same messages at another depth (several targets): the texts made for one target are not used there.
    const set = { runs: [doc, { messages: messages.slice(3, 9) }] };
    await writeJsonFile(file, set);
    expect(readFileSync(file, 'utf8')).toBe(JSON.stringify(set, null, 2) + '\n');
  });

  it('a message changed after it was rendered is written as it is now', async () => {
    const messages = log();
    prerenderMessages(messages);
    await settle();
    messages[3]!.schema = { checked: true, valid: false, violations: [] };
    (messages[4] as Record<string, unknown>).inReplyTo = 3;
    messages.push({ ...messages[5]!, seq: 120 }); // a late line, after the session's end
    const doc = { messages };
    await writeJsonFile(file, doc);
    expect(readFileSync(file, 'utf8')).toBe(JSON.stringify(doc, null, 2) + '\n');
  });
});

describe('pipelined', () => {
  it('keeps results in order, with several in flight', async () => {
    let inFlight = 0;
    let most = 0;
    const out = await pipelined(
      [5, 1, 4, 2, 3, 0, 6, 7, 8, 9],
      async (n) => {
        inFlight++;
        most = Math.max(most, inFlight);
        await new Promise((r) => setTimeout(r, n));
        inFlight--;
        return n * 10;
      },
      { window: 4, slowMs: 10_000 },
    );
    expect(out).toEqual([50, 10, 40, 20, 30, 0, 60, 70, 80, 90]);
    expect(most).toBe(4);
  });

  it('goes one at a time for good after a bad result', async () => {
    let inFlight = 0;
    const seen: number[] = [];
    await pipelined(
      [0, 1, 2, 3, 4, 5, 6, 7],
      async (n) => {
        inFlight++;
        seen.push(inFlight);
        await new Promise((r) => setTimeout(r, 1));
        inFlight--;
        return n;
      },
      { window: 2, slowMs: 10_000, isBad: (n) => n === 1 },
    );
    // After item 1 comes back bad, nothing runs beside another item.
    expect(seen.slice(3).every((x) => x === 1)).toBe(true);
  });

  it('handles no items', async () => {
    expect(await pipelined([], async () => 1)).toEqual([]);
  });
});
