/**
 * Expectation files against a real server nobody here wrote (server-memory): a stateful sequence that reuses its own
 * answers passes, a wrong one fails with both sides. The format and the CLI on our fixtures: test/expect.test.ts.
 */
import { mkdtempSync, readFileSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { describe, expect, it } from 'vitest';
import { BIN, ROOT, run } from './helpers/cli.js';

const tmp = () => mkdtempSync(join(tmpdir(), 'mcp-conform-expect-'));

describe('run --expect on server-memory', () => {
  it('a real server nobody here wrote: server-memory passes a stateful sequence that reuses its own answers, and fails a wrong one', async () => {
    const dir = tmp();
    const file = join(ROOT, 'fixtures', 'expect', 'server-memory.expect.yaml');
    const r = await run(join(BIN, 'mcp-server-memory'), [
      '--env',
      `MEMORY_FILE_PATH=${join(dir, 'memory.jsonl')}`,
      '--expect',
      file,
    ]);
    expect(r.report.server.name).toBe('memory-server');
    expect(r.verdicts('expect/')).toEqual({
      'expect/memory-lists-its-graph-tools': 'pass',
      'expect/memory-creates-an-entity': 'pass',
      'expect/memory-adds-an-observation-to-the-entity-it-created': 'pass',
      'expect/memory-opens-the-entity-by-the-name-it-answered': 'pass',
      'expect/memory-finds-it-by-an-observation': 'pass',
      'expect/memory-refuses-an-unknown-method': 'pass',
    });
    // The built-in suites ran in the same run (their ledger verdicts are test/real-servers.test.ts's business).
    expect(r.report.suites.map((s) => s.id)).toEqual(
      expect.arrayContaining(['lifecycle', 'listing', 'expect', 'calling', 'schema']),
    );
    // The same steps against a fresh memory expecting a second observation that was never added: fail, with both sides.
    const wrongFile = join(dir, 'wrong.yaml');
    writeFileSync(
      wrongFile,
      readFileSync(file, 'utf8').replace(
        '[wrote the first program, worked with Babbage]',
        '[wrote the first program, worked with Menabrea]',
      ),
    );
    const w = await run(join(BIN, 'mcp-server-memory'), [
      '--env',
      `MEMORY_FILE_PATH=${join(dir, 'memory2.jsonl')}`,
      '--expect',
      wrongFile,
      '--suite',
      'expect',
    ]);
    expect(w.code).toBe(1);
    expect(w.c('expect/memory-opens-the-entity-by-the-name-it-answered').message).toMatch(
      /structuredContent differs: \/entities\/0\/observations\/1 expected "worked with Menabrea", got "worked with Babbage"/,
    );
  });
});
