/**
 * Declarative fixtures serve resources, resource templates, prompts and completion (so client developers can mock
 * them), and the surface suites pass against them; a fixture that gets the surface wrong is refused with its line.
 */
import { describe, expect, it } from 'vitest';
import { join } from 'node:path';
import { parseFixture } from '../core/formats/fixture.js';
import { mkdtempSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { cli, ROOT, run } from './helpers/cli.js';

const SURFACE = join(ROOT, 'fixtures', 'mocks', 'surface.yaml');

describe('fixture mocks with resources, prompts and completion', () => {
  it('mcp-conform run against serve --fixture surface.yaml: the surface suites pass', async () => {
    // Pinned to 2025-11-25 (the mock is dual-era by default; a resource not found is -32002 only before 2026-07-28).
    const r = await run(
      `${process.execPath} ${join(ROOT, 'dist', 'bin', 'mcp-conform.js')} serve --fixture ${SURFACE} --protocol-version 2025-11-25`,
      ['--suite', 'resources,prompts,completion,capabilities,schema', '--timeout', '5000'],
    );
    expect(r.report.server.capabilities).toEqual({
      tools: { listChanged: false },
      resources: {},
      prompts: {},
      completions: {},
    });
    const flagged = r.report.suites.flatMap((s) => s.cases).filter((c) => c.verdict === 'fail' || c.verdict === 'warn');
    expect(flagged.map((c) => `${c.id}: ${c.message}`)).toEqual([]);
    expect(r.c('resources/read/data://logo').message).toMatch(/\(blob\)/);
    expect(r.c('prompts/get/summarize').message).toMatch(
      /\{"text":"The quick brown fox\."\} \(from completion: text\)/,
    );
    expect(r.c('resources/unknown-uri').message).toMatch(/-32002/);
    const read = r.report.messages.find(
      (m) =>
        m.direction === 'to-server' &&
        m.method === 'completion/complete' &&
        JSON.stringify(m.json).includes('greeting://{name}'),
    );
    const answer = r.report.messages.find((m) => m.inReplyTo === read!.seq)!;
    expect((answer.json as { result: unknown }).result).toEqual({
      completion: { values: ['Ada', 'Grace', 'Linus'], total: 3, hasMore: false },
    });
  });

  it('a resource with both text and blob, or a blob that is not base64, or a prompt without messages is refused', () => {
    expect(() =>
      parseFixture(
        'server: {name: x, version: "1"}\nresources:\n  - {uri: a://b, name: b, text: t, blob: AA==}\n',
        'bad.yaml',
      ),
    ).toThrow(/bad\.yaml:3: resources\[0\]: /);
    expect(() =>
      parseFixture(
        'server: {name: x, version: "1"}\nresources:\n  - {uri: a://b, name: b, blob: "not base64!"}\n',
        'bad.yaml',
      ),
    ).toThrow(/resources\[0\]\.blob: must match pattern/);
    expect(() =>
      parseFixture('server: {name: x, version: "1"}\nprompts:\n  - {name: p, messages: []}\n', 'bad.yaml'),
    ).toThrow(/prompts\[0\]\.messages: must NOT have fewer than 1 items/);
  });

  it('validate checks what a fixture serves against the protocol schema, offline', async () => {
    for (const f of ['surface.yaml', 'calc.yaml', 'minimal.json']) {
      const ok = await cli(['validate', join(ROOT, 'fixtures', 'mocks', f)]);
      expect(ok.code, `${f}: ${ok.stdout}${ok.stderr}`).toBe(0);
      expect(ok.stdout).toMatch(/\(fixture\): \d+ messages checked .*\nResult: all \d+ messages valid/s);
    }
    const dir = mkdtempSync(join(tmpdir(), 'mcp-conform-fx-'));
    const bad = join(dir, 'bad.yaml');
    // A prompt whose message content is a text block without text: valid for the fixture schema, not for MCP.
    writeFileSync(
      bad,
      'server: {name: x, version: "1"}\nprompts:\n  - name: p\n    messages: [{ role: user, content: { type: text } }]\n',
    );
    const r = await cli(['validate', bad]);
    expect(r.code).toBe(1);
    expect(r.stdout).toMatch(/prompts\/get.*\/result\/messages\/0\/content/s);
  });
});
