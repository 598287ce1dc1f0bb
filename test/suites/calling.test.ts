/**
 * The calling suite: failure text in a result without isError and the structured-content mirror, on the answer
 * readers with the shapes real servers produce and on real servers.
 */
import { describe, expect, it } from 'vitest';
import { mkdtempSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { BIN, FILESYSTEM_SERVER, run } from '../helpers/cli.js';
import { carriesStructured, failureReportedAsSuccess } from '../../suites/tool-answers.js';

const text = (...t: string[]) => t.map((x) => ({ type: 'text', text: x }));

describe('failure text in a result without isError (item 4)', () => {
  const tool = { name: 'fetch_page' };
  it('warns on a text that begins with an error marker, or JSON with "success": false or an "error" member', () => {
    for (const t of [
      'Error: could not resolve host',
      'error: no such file',
      'ERROR - timeout',
      'Failed to fetch https://x',
      '[error] boom',
      'MCP error -32603: internal',
      'Error executing tool fetch_page: boom',
    ]) {
      expect(failureReportedAsSuccess({ content: text(t) }, tool, {}), t).toBeDefined();
    }
    expect(failureReportedAsSuccess({ content: text('{"success": false, "message": "quota"}') }, tool, {})?.how).toBe(
      'is JSON with "success": false',
    );
    expect(failureReportedAsSuccess({ content: text('{"error": {"code": 5}}') }, tool, {})?.how).toBe(
      'is JSON with a top-level "error" member',
    );
  });
  it('stays quiet when in doubt', () => {
    const quiet: [Record<string, unknown>, { name: string; title?: string; outputSchema?: unknown }, unknown][] = [
      [{ content: text('No error was found.') }, tool, {}],
      [{ content: text('Errors: 0, warnings: 2') }, tool, {}],
      [{ content: text('Error handling guide for beginners') }, tool, {}],
      [{ content: text('Failed: 0') }, tool, {}],
      [{ content: text('Failed jobs: 3 of 10') }, tool, {}],
      [{ content: text('Error: boom'), isError: true }, tool, {}],
      [{ content: text('Error: disk full') }, { name: 'get_last_error' }, {}],
      [{ content: text('Error: disk full') }, { name: 'x', title: 'Show server logs' }, {}],
      // the call asked for an error message (server-everything's get-annotated-message with messageType "error")
      [{ content: text('Error: Operation failed') }, { name: 'get-annotated-message' }, { messageType: 'error' }],
      [{ content: text('Error: as typed') }, tool, { text: 'Error: as typed' }],
      [{ content: text('{"value": 3, "error": null}') }, tool, {}],
      [{ content: text('{"success": true, "error": "none"}') }, tool, {}],
      [
        { content: text('{"success": false}') },
        { name: 'ping_host', outputSchema: { type: 'object', properties: { success: { type: 'boolean' } } } },
        {},
      ],
      [{ content: [{ type: 'image', data: 'AA==', mimeType: 'image/png' }] }, tool, {}],
    ];
    for (const [result, t, args] of quiet)
      expect(failureReportedAsSuccess(result, t, args), JSON.stringify(result)).toBeUndefined();
  });
  it('a bracketed error code at the start that the text confirms: "[NOT_FOUND] … does not exist" (second audit), and not a heading or an [INFO] line', () => {
    for (const t of [
      '[NOT_FOUND] Repository octo/nothing does not exist',
      '[PERMISSION_DENIED] access denied for /etc',
      '[INTERNAL_ERROR] the request failed',
      '[INVALID_ARGUMENT] invalid page size',
    ]) {
      expect(failureReportedAsSuccess({ content: text(t) }, tool, {})?.how, t).toMatch(
        /^begins with the error code "\[[A-Z_]+\]"$/,
      );
    }
    for (const t of [
      '[INFO] 3 pages found',
      '[OK] done',
      '[NOT_FOUND] handling in the API guide',
      '[not_found] page does not exist',
      '[NOTE] the error page lists the codes',
    ]) {
      expect(failureReportedAsSuccess({ content: text(t) }, tool, {}), t).toBeUndefined();
    }
    // an echo of the code the call sent is no failure
    expect(
      failureReportedAsSuccess({ content: text('[NOT_FOUND] does not exist') }, tool, { code: 'NOT_FOUND' }),
    ).toBeUndefined();
  });
});

describe('a text block carries structuredContent (item 10)', () => {
  it('as the Python SDK 2.3 and FastMCP 4 wrap values that are not objects (observed shapes)', () => {
    expect(carriesStructured(text('5'), { result: 5 })).toBeDefined();
    expect(carriesStructured(text('Hi Bo'), { result: 'Hi Bo' })).toBeDefined();
    expect(carriesStructured(text('2.0'), { result: 2 })).toBeDefined();
    expect(carriesStructured(text('true'), { result: true })).toBeDefined();
    expect(carriesStructured(text('0', '1'), { result: [0, 1] })).toBeDefined(); // Python SDK: one block per item
    expect(carriesStructured(text('a b', 'c'), { result: ['a b', 'c'] })).toBeDefined();
    expect(carriesStructured(text('{\n  "a": 1\n}', '{\n  "b": 2\n}'), { result: [{ a: 1 }, { b: 2 }] })).toBeDefined();
    expect(carriesStructured(text('[0,1]'), { result: [0, 1] })).toBeDefined(); // FastMCP: the list's JSON
    expect(carriesStructured([], { result: [] })).toBeDefined();
    expect(carriesStructured([], { result: null })).toBeDefined();
    expect(carriesStructured(text('{\n  "x": 1,\n  "y": 2\n}'), { x: 1, y: 2 })).toBeDefined();
  });
  it('not when no text block has the value', () => {
    expect(
      carriesStructured(text('Entities deleted successfully'), {
        success: true,
        message: 'Entities deleted successfully',
      }),
    ).toBeUndefined();
    expect(carriesStructured(text('6'), { result: 5 })).toBeUndefined();
    expect(carriesStructured(text('0'), { result: [0, 1] })).toBeUndefined();
    expect(carriesStructured([], { result: [1] })).toBeUndefined();
    expect(carriesStructured(text('2 items'), { count: 2, total: 3 })).toBeUndefined();
  });
});

describe('real servers: structuredContent mirrored in a text block, as the SDKs wrap it', () => {
  it('server-filesystem: {"content": text} with that text in a text block carries its value: no calling warn', async () => {
    const dir = mkdtempSync(join(tmpdir(), 'mcp-conform-fs-'));
    writeFileSync(join(dir, 'README.md'), '# hello\n');
    // Its own entry script: .bin/mcp-server-filesystem may link an older release installed as an npm alias.
    const r = await run(`${process.execPath} ${FILESYSTEM_SERVER} ${dir}`, [
      '--suite',
      'calling',
      '--call-tools',
      'all',
    ]);
    const warns = r.report.suites.flatMap((s) => s.cases).filter((c) => c.verdict === 'warn');
    expect(warns.map((c) => `${c.id}: ${c.message}`)).toEqual([]);
    expect(r.c('calling/tool/list_allowed_directories').message).toMatch(
      /a text block carries its one member "content"/,
    );
    // read_media_file's structuredContent {"content": [block]} is its content array itself
    expect(r.c('calling/tool/read_media_file').message).toMatch(/the content blocks are its one member "content"/);
  });

  it('server-memory: the JSON of the wrapped list passes; {"success", "message"} with only the message as text still warns', async () => {
    const dir = mkdtempSync(join(tmpdir(), 'mcp-conform-mem-'));
    const r = await run(join(BIN, 'mcp-server-memory'), [
      '--suite',
      'calling',
      '--call-tools',
      'all',
      '--env',
      `MEMORY_FILE_PATH=${join(dir, 'memory.jsonl')}`,
    ]);
    expect(r.c('calling/tool/create_entities').verdict).toBe('pass');
    expect(r.c('calling/tool/create_entities').message).toMatch(/a text block carries its one member "entities"/);
    const warns = r.report.suites.flatMap((s) => s.cases).filter((c) => c.verdict === 'warn');
    expect(warns.map((c) => c.id).sort()).toEqual([
      'calling/tool/delete_entities',
      'calling/tool/delete_observations',
      'calling/tool/delete_relations',
    ]);
    for (const w of warns) expect(w.message).toMatch(/no text block carries it .*"success":true,"message"/);
  });
});

describe('generated arguments: required ones only', () => {
  // A search tool shaped as firecrawl_search: includeDomains and excludeDomains are both optional and refused together.
  const server = (minProperties?: number) => {
    const dir = mkdtempSync(join(tmpdir(), 'mcp-conform-optionals-'));
    const file = join(dir, 'server.py');
    writeFileSync(
      file,
      `import sys
sys.dont_write_bytecode = True
sys.path.insert(0, ${JSON.stringify(join(import.meta.dirname, '..', '..', 'fixtures', 'servers'))})
import mcpkit

def search(args):
    if 'includeDomains' in args and 'excludeDomains' in args:
        raise mcpkit.RpcError(mcpkit.INVALID_PARAMS, 'includeDomains and excludeDomains cannot be used together')
    if 'includeDomains' in args:
        raise mcpkit.RpcError(mcpkit.INVALID_PARAMS, 'includeDomains: no such domain')
    return 'results for ' + args['query']

s = mcpkit.Server('optionals', '1.0.0')
schema = {'type': 'object', 'properties': {'query': {'type': 'string'}, 'includeDomains': {'type': 'array', 'items': {'type': 'string'}}, 'excludeDomains': {'type': 'array', 'items': {'type': 'string'}}}, 'required': ['query']}
${minProperties ? `schema['minProperties'] = ${minProperties}\n` : ''}s.add_tool('search', schema, search, annotations={'readOnlyHint': True})
sys.exit(s.run())
`,
    );
    return `python3 ${file}`;
  };

  it('a tool whose optional arguments contradict each other is called with its required ones only: served', async () => {
    const r = await run(server(), ['--suite', 'calling']);
    expect(r.c('calling/tool/search')).toMatchObject({ verdict: 'pass' });
    const calls = r.report.messages
      .filter((m) => m.direction === 'to-server' && m.method === 'tools/call')
      .map((m) => (m.json as { params: { arguments: unknown } }).params.arguments);
    expect(calls.length).toBeGreaterThan(0);
    expect(calls[0]).toEqual({ query: 'example' });
  }, 60_000);

  it('where the schema needs more (minProperties), a -32602 to a generated optional argument says so', async () => {
    const r = await run(server(2), ['--suite', 'calling']);
    expect(r.c('calling/tool/search')).toMatchObject({
      verdict: 'warn',
      message: expect.stringMatching(
        /-32602.*the arguments held an optional argument the schema does not require \("includeDomains", generated because the schema needs more than its required ones\): the -32602 may be about it/,
      ),
    });
  }, 60_000);
});
