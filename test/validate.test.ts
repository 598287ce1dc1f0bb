/** `mcp-conform validate FILE` (report.json or cassette, offline) and `run --schema FILE`. */
import { describe, expect, it, beforeAll } from 'vitest';
import { mkdtempSync, readFileSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { cli, py, run } from './helpers/cli.js';
import { officialSchemasAvailable, SPEC_DIR } from './helpers/schema-official.js';
import type { Report } from '../core/results.js';

const dir = mkdtempSync(join(tmpdir(), 'mcp-conform-validate-'));
let reportFile: string;
let cassetteFile: string;

beforeAll(async () => {
  const r = await run(py('calc.py'), [
    '--suite',
    'lifecycle,listing,calling',
    '--record',
    join(dir, 'calc.cassette.jsonl'),
  ]);
  expect(r.code).toBe(0);
  reportFile = join(r.outDir, 'report.json');
  cassetteFile = join(dir, 'calc.cassette.jsonl');
}, 60_000);

/** A copy of the report with one tool of a tools/list answer broken (inputSchema not an object). */
function plantedReport(): string {
  const report = JSON.parse(readFileSync(reportFile, 'utf8')) as Report;
  const m = report.messages.find((x) => x.direction === 'from-server' && x.method === 'tools/list')!;
  const json = m.json as { result: { tools: Record<string, unknown>[] } };
  json.result.tools[0]!.inputSchema = 5;
  m.raw = JSON.stringify(json);
  const file = join(dir, 'planted-report.json');
  writeFileSync(file, JSON.stringify(report));
  return file;
}

describe('validate', () => {
  it('a good report.json: every message valid against the version it names, exit 0', async () => {
    const r = await cli(['validate', reportFile]);
    expect(r.code).toBe(0);
    expect(r.stdout).toMatch(/protocol 2025-11-25 \(named in the report\)/);
    expect(r.stdout).toMatch(/Result: all \d+ messages valid/);
  });

  it('a report.json with a planted violation: exit 1, the message and pointer named', async () => {
    const r = await cli(['validate', plantedReport()]);
    expect(r.code).toBe(1);
    expect(r.stdout).toMatch(
      /✗ message \d+ \(from-server, response tools\/list id \d+, JSONRPCResultResponse \+ ListToolsResult\): \/result\/tools\/0\/inputSchema/,
    );
    expect(r.stdout).toMatch(/Result: 1 of \d+ messages violate the schema/);
    const j = await cli(['validate', plantedReport(), '--format', 'json']);
    expect(JSON.parse(j.stdout)).toMatchObject({ format: 'report', protocolVersion: '2025-11-25', invalid: 1 });
  });

  it('a cassette: good (exit 0) and with a planted violation (exit 1)', async () => {
    const good = await cli(['validate', cassetteFile]);
    expect(good.code).toBe(0);
    expect(good.stdout).toMatch(/\(cassette\)/);
    const lines = readFileSync(cassetteFile, 'utf8')
      .trim()
      .split('\n')
      .map((l) => JSON.parse(l));
    const call = lines.find((l) => l.dir === 'from-server' && Array.isArray(l.message?.result?.content));
    call.message.result.content = [{ type: 'text' }]; // a text block without its text
    const bad = join(dir, 'planted.cassette.jsonl');
    writeFileSync(bad, lines.map((l) => JSON.stringify(l)).join('\n') + '\n');
    const r = await cli(['validate', bad]);
    expect(r.code).toBe(1);
    expect(r.stdout).toMatch(/tools\/call .*CallToolResult\): \/result\/content\/0 missing required property "text"/);
  });

  it('a cassette of a full run: the probes malformed on purpose are marked and do not count (exit 0)', async () => {
    const file = join(dir, 'full.cassette.jsonl');
    const r = await run(py('calc.py'), ['--record', file]);
    expect(r.code).toBe(0);
    const probes = readFileSync(file, 'utf8')
      .trim()
      .split('\n')
      .map((l) => JSON.parse(l))
      .filter((l) => l.probe);
    expect(probes.length).toBeGreaterThanOrEqual(3);
    const v = await cli(['validate', file]);
    expect(v.code, v.stdout).toBe(0);
    expect(v.stdout).toMatch(/malformed on purpose/);
  });

  it('icons that are not an array: a violation in 2025-11-25, not in 2025-06-18 (no icons there)', async () => {
    const lines = readFileSync(cassetteFile, 'utf8')
      .trim()
      .split('\n')
      .map((l) => JSON.parse(l));
    const list = lines.find((l) => l.dir === 'from-server' && Array.isArray(l.message?.result?.tools));
    list.message.result.tools[0].icons = 'not-an-array';
    const file = join(dir, 'icons.cassette.jsonl');
    writeFileSync(file, lines.map((l) => JSON.stringify(l)).join('\n') + '\n');
    const v25 = await cli(['validate', file, '--protocol-version', '2025-11-25']);
    expect(v25.code).toBe(1);
    expect(v25.stdout).toMatch(/icons/);
    const v06 = await cli(['validate', file, '--protocol-version', '2025-06-18']);
    expect(v06.code).toBe(0);
  });

  it('unreadable or unknown files are usage errors (exit 2)', async () => {
    expect((await cli(['validate', join(dir, 'missing.json')])).code).toBe(2);
    const junk = join(dir, 'junk.txt');
    writeFileSync(junk, 'not a log\n');
    const r = await cli(['validate', junk]);
    expect(r.code).toBe(2);
    expect(r.stderr).toMatch(/neither a report.json nor a cassette/);
  });
});

describe('--schema FILE', () => {
  // the official schemas live outside the repository (test/helpers/schema-official.ts: MCP_CONFORM_SPEC_DIR)
  it.skipIf(!officialSchemasAvailable())(
    'the official 2025-11-25 schema validates a run like the built-in one',
    async () => {
      const official = join(SPEC_DIR, '2025-11-25', 'schema.json');
      const r = await run(py('calc.py'), [
        '--suite',
        'lifecycle,listing,schema',
        '--schema',
        official,
        '--protocol-version',
        '2025-11-25',
      ]);
      expect(r.code).toBe(0);
      expect(r.report.options.schemaFile).toBe(official);
      expect(r.report.summary.messagesValidated).toBe(r.report.messages.length);
      const v = await cli(['validate', plantedReport(), '--schema', official]);
      expect(v.code).toBe(1);
    },
  );

  it('a schema that does not compile is a usage error with the ajv message', async () => {
    const bad = join(dir, 'bad-schema.json');
    writeFileSync(
      bad,
      JSON.stringify({
        $schema: 'https://json-schema.org/draft/2020-12/schema',
        $defs: {
          JSONRPCMessage: { type: 'nope' },
          JSONRPCRequest: {},
          JSONRPCNotification: {},
          JSONRPCResultResponse: {},
          JSONRPCErrorResponse: {},
        },
      }),
    );
    const r = await cli(['run', '--stdio', py('calc.py'), '--schema', bad, '--quiet']);
    expect(r.code).toBe(2);
    expect(r.stderr).toMatch(/does not compile.*schema is invalid/);
    const missing = join(dir, 'no-defs.json');
    writeFileSync(missing, JSON.stringify({ $defs: { Foo: {} } }));
    const m = await cli(['run', '--stdio', py('calc.py'), '--schema', missing, '--quiet']);
    expect(m.code).toBe(2);
    expect(m.stderr).toMatch(/lacks the definitions JSONRPCMessage/);
    const notJson = join(dir, 'not-json.json');
    writeFileSync(notJson, '{');
    expect((await cli(['run', '--stdio', py('calc.py'), '--schema', notJson, '--quiet'])).code).toBe(2);
  });
});
