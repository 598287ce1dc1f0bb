/**
 * Issue 11, items 3, 4, 5, 9 and 10: verdicts that must not be false passes or false warns — on real peers where they
 * show the behaviour, on the broken fixtures otherwise (their full verdicts are in run-broken.test.ts), and on the
 * answer readers themselves with the shapes real servers produce.
 */
import { describe, expect, it } from 'vitest';
import { mkdtempSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { BIN, FIXTURES, py, run } from './helpers/cli.js';
import { carriesStructured, failureReportedAsSuccess, singlesOut } from '../suites/tool-answers.js';

const text = (...t: string[]) => t.map((x) => ({ type: 'text', text: x }));

/** The tools/call requests the harness sent, as [tool name, arguments]. */
function calls(r: Awaited<ReturnType<typeof run>>): [string, unknown][] {
  return r.report.messages
    .filter((m) => m.direction === 'to-server' && (m.json as { method?: string } | undefined)?.method === 'tools/call')
    .map((m) => { const p = (m.json as { params: { name: string; arguments?: unknown } }).params; return [p.name, p.arguments]; });
}

describe('an error answer to an invalid call proves validation only when the valid call did not fail the same way (item 3)', () => {
  it('with the calling suite left out, invalid-params makes the valid call itself and stays inconclusive on a tool that always fails', async () => {
    const r = await run(py('broken/env-failure.py'), ['--suite', 'invalid-params', '--timeout', '3000']);
    const nav = r.c('invalid-params/missing-required/browser_navigate');
    expect(nav.verdict).toBe('skip');
    expect(nav.message).toMatch(/^inconclusive: .*Chromium distribution 'chrome' is not found.*the call with valid arguments got .*Chromium distribution 'chrome' is not found/);
    // An environment failure is never described as the server refusing the argument.
    for (const c of r.report.suites.flatMap((s) => s.cases)) expect(c.message).not.toMatch(/refus/i);
    expect((nav.details as { validCall?: { answer?: string } }).validCall?.answer).toMatch(/Chromium distribution/);
    // The valid call went out once per tool that needed it (with the generated url), not once per case.
    const valid = calls(r).filter(([name, args]) => name === 'browser_navigate' && typeof (args as { url?: unknown }).url === 'string');
    expect(valid.length).toBe(1);
    // A tool that checks its arguments before failing still passes: its answer names the argument.
    expect(r.c('invalid-params/wrong-type/browser_type').verdict).toBe('pass');
  });

  it("server-everything: a tool that refuses every plain call (task augmentation required) is never credited with validation", async () => {
    const tool = 'simulate-research-query';
    const r = await run(`${join(BIN, 'mcp-server-everything')} stdio`, [
      '--suite', 'calling,invalid-params', '--call-tools', 'all',
      '--case', `calling/tool/${tool}`, '--case', `invalid-params/missing-required/${tool}`, '--case', `invalid-params/wrong-type/${tool}`,
    ], { timeoutMs: 60_000 });
    // A task-required tool is never called plainly (issue 11 item 2), so invalid-params has nothing to judge on it:
    // no item for the tool, no pass at case level, and no plain tools/call of it with bad arguments.
    for (const k of ['missing-required', 'wrong-type']) {
      expect(Object.keys(r.verdicts(`invalid-params/${k}/`))).not.toContain(`invalid-params/${k}/${tool}`);
      expect(r.c(`invalid-params/${k}`).verdict).not.toBe('pass');
    }
    // Its calls are task-augmented ones (calling), and at most the one plain probe of calling/task-required-plain.
    const plain = r.report.messages.filter((m) => m.direction === 'to-server' && (m.json as { method?: string } | undefined)?.method === 'tools/call'
      && (m.json as { params: { name: string; task?: unknown } }).params.name === tool && !(m.json as { params: { task?: unknown } }).params.task);
    expect(plain.length).toBeLessThanOrEqual(1);
  }, 60_000);
});

describe('lenient validation is not "no validation" (item 5)', () => {
  it('a wrong type accepted warns when the missing-required call was refused, even when that case was not selected', async () => {
    const r = await run(py('broken/lenient-types.py'), ['--suite', 'invalid-params', '--case', 'invalid-params/wrong-type']);
    expect(r.c('invalid-params/wrong-type/set_port').verdict).toBe('warn');
    expect(r.c('invalid-params/wrong-type/set_port').message).toMatch(/accepts a value its inputSchema does not allow.*"port" left out/);
    expect(calls(r).some(([name, args]) => name === 'set_port' && !('port' in (args as object)))).toBe(true);
    expect(r.code).toBe(0);
  });

  it('a server that accepts both fails, also when only wrong-type was selected', async () => {
    const r = await run(py('broken/accepts-bad-args.py'), ['--suite', 'invalid-params', '--case', 'invalid-params/wrong-type']);
    expect(r.c('invalid-params/wrong-type/add').verdict).toBe('fail');
    expect(r.c('invalid-params/wrong-type/add').message).toMatch(/was accepted too.*does not validate tool input/);
    expect(r.code).toBe(1);
  });
});

describe('failure text in a result without isError (item 4)', () => {
  const tool = { name: 'fetch_page' };
  it('warns on a text that begins with an error marker, or JSON with "success": false or an "error" member', () => {
    for (const t of ['Error: could not resolve host', 'error: no such file', 'ERROR - timeout', 'Failed to fetch https://x', '[error] boom', 'MCP error -32603: internal', 'Error executing tool fetch_page: boom']) {
      expect(failureReportedAsSuccess({ content: text(t) }, tool, {}), t).toBeDefined();
    }
    expect(failureReportedAsSuccess({ content: text('{"success": false, "message": "quota"}') }, tool, {})?.how).toBe('is JSON with "success": false');
    expect(failureReportedAsSuccess({ content: text('{"error": {"code": 5}}') }, tool, {})?.how).toBe('is JSON with a top-level "error" member');
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
      [{ content: text('{"success": false}') }, { name: 'ping_host', outputSchema: { type: 'object', properties: { success: { type: 'boolean' } } } }, {}],
      [{ content: [{ type: 'image', data: 'AA==', mimeType: 'image/png' }] }, tool, {}],
    ];
    for (const [result, t, args] of quiet) expect(failureReportedAsSuccess(result, t, args), JSON.stringify(result)).toBeUndefined();
  });
});

describe('an error answer singles out the bad argument (item 3)', () => {
  it('by naming it or speaking of validation where the valid call did not', () => {
    expect(singlesOut("Invalid arguments for tool t: missing required argument 'url'", 'Chromium is not found', 'url').yes).toBe(true);
    // pydantic (Python SDK / FastMCP): the field on a line of its own
    expect(singlesOut('1 validation error for call[add]\na\n  Missing required argument [type=missing_argument]', undefined, 'a').yes).toBe(true);
    expect(singlesOut('MCP error -32602: Input validation error: expected string, received number', 'Error: ENOENT', 'path').yes).toBe(true);
  });
  it('not by the same failure, nor by words the valid call had too', () => {
    expect(singlesOut("Chromium distribution 'chrome' is not found", "Chromium distribution 'chrome' is not found", 'url').yes).toBe(false);
    expect(singlesOut('request 1234 failed at 10:01: no network', 'request 1233 failed at 10:00: no network', 'url').yes).toBe(false);
    expect(singlesOut('Missing required credential GITHUB_TOKEN', 'Missing required credential GITHUB_TOKEN (retry 2)', 'owner').yes).toBe(false);
    // a one-letter argument is not found in ordinary words
    expect(singlesOut('a browser is not installed', 'the browser is not installed', 'a').yes).toBe(false);
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
    expect(carriesStructured(text('Entities deleted successfully'), { success: true, message: 'Entities deleted successfully' })).toBeUndefined();
    expect(carriesStructured(text('6'), { result: 5 })).toBeUndefined();
    expect(carriesStructured(text('0'), { result: [0, 1] })).toBeUndefined();
    expect(carriesStructured([], { result: [1] })).toBeUndefined();
    expect(carriesStructured(text('2 items'), { count: 2, total: 3 })).toBeUndefined();
  });
});

describe('real servers: the structured-content mirror (item 10) and the unknown-tool message (item 9)', () => {
  it('server-filesystem: {"content": text} with that text in a text block carries its value: no calling warn', async () => {
    const dir = mkdtempSync(join(tmpdir(), 'mcp-conform-fs-'));
    writeFileSync(join(dir, 'README.md'), '# hello\n');
    const r = await run(`${join(BIN, 'mcp-server-filesystem')} ${dir}`, ['--suite', 'calling', '--call-tools', 'all']);
    const warns = r.report.suites.flatMap((s) => s.cases).filter((c) => c.verdict === 'warn');
    expect(warns.map((c) => `${c.id}: ${c.message}`)).toEqual([]);
    expect(r.c('calling/tool/list_allowed_directories').message).toMatch(/a text block carries its one member "content"/);
    // read_media_file's structuredContent {"content": [block]} is its content array itself
    expect(r.c('calling/tool/read_media_file').message).toMatch(/the content blocks are its one member "content"/);
  });

  it('server-memory: the JSON of the wrapped list passes; {"success", "message"} with only the message as text still warns', async () => {
    const dir = mkdtempSync(join(tmpdir(), 'mcp-conform-mem-'));
    const r = await run(join(BIN, 'mcp-server-memory'), ['--suite', 'calling', '--call-tools', 'all', '--env', `MEMORY_FILE_PATH=${join(dir, 'memory.jsonl')}`]);
    expect(r.c('calling/tool/create_entities').verdict).toBe('pass');
    expect(r.c('calling/tool/create_entities').message).toMatch(/a text block carries its one member "entities"/);
    const warns = r.report.suites.flatMap((s) => s.cases).filter((c) => c.verdict === 'warn');
    expect(warns.map((c) => c.id).sort()).toEqual(['calling/tool/delete_entities', 'calling/tool/delete_observations', 'calling/tool/delete_relations']);
    for (const w of warns) expect(w.message).toMatch(/no text block carries it .*"success":true,"message"/);
  });

  it("the SDK's McpServer: the unknown-tool message says what was sent and seen, not what SDKs do", async () => {
    const r = await run(`node ${join(FIXTURES, 'sdk-stdio.mjs')}`, ['--suite', 'unknown-tool']);
    const m = r.c('unknown-tool/call').message;
    expect(r.c('unknown-tool/call').verdict).toBe('warn');
    expect(m).toMatch(/^tools\/call of "mcp_conform_no_such_tool", a tool the server did not list, was answered with a result with isError: true \(.*not found.*\) instead of a JSON-RPC error/);
    expect(m).not.toMatch(/SDK/);
  });
});
