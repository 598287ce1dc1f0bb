/**
 * Real servers we did not write: no false fail. Every warn they get is one the grading policy names for a known
 * deviation of the official SDKs (listed here with the reason), so a new warn or any fail breaks this test.
 */
import { describe, expect, it } from 'vitest';
import { mkdtempSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { BIN, FILESYSTEM_SERVER, FIXTURES, run } from './helpers/cli.js';

/** Warns that real SDK-based servers get, and why they are warns and not fails. */
const KNOWN_WARNS: Record<string, string> = {
  // TS SDK 1.32 servers (these) answer an unknown tool with an isError result instead of a protocol error.
  'unknown-tool/call': 'isError result for an unknown tool',
  // The TypeScript SDK answers a tools/call without a name with -32603 (its zod error), not -32602.
  'invalid-params/malformed-call': '-32603 instead of -32602',
};

const SUITES = 'lifecycle,listing,calling,unknown-tool,invalid-params,is-error,stdio,schema';

function flagged(r: Awaited<ReturnType<typeof run>>, verdict: 'fail' | 'warn'): string[] {
  return r.report.suites
    .flatMap((s) => s.cases)
    .filter((c) => c.verdict === verdict)
    .map((c) => `${c.id}: ${c.message}`);
}

describe('real MCP servers over stdio', () => {
  it('@modelcontextprotocol/server-everything', async () => {
    const r = await run(`${join(BIN, 'mcp-server-everything')} stdio`, ['--suite', SUITES], { timeoutMs: 120_000 });
    expect(flagged(r, 'fail')).toEqual([]);
    expect(r.code).toBe(0);
    expect(r.report.server.name).toBe('mcp-servers/everything');
    expect(r.report.server.toolCount).toBeGreaterThan(10);
    // --call-tools safe: its tools annotated readOnlyHint: true are called and answer (an isError answer to generated
    // arguments is a valid answer); the four that are not (one of them also needs a task) are skipped, never called.
    const calls = r.report.suites
      .find((s) => s.id === 'calling')!
      .cases.filter((c) => c.id.startsWith('calling/tool/'));
    expect(calls.length).toBe(r.report.server.toolCount);
    const notReadOnly = [
      'gzip-file-as-resource',
      'simulate-research-query',
      'toggle-simulated-logging',
      'toggle-subscriber-updates',
    ];
    expect(r.report.skippedTools.map((t) => t.name).sort()).toEqual(notReadOnly);
    for (const c of calls)
      expect(c.verdict).toBe(notReadOnly.includes(c.id.slice('calling/tool/'.length)) ? 'skip' : 'pass');
    const called = r.report.messages
      .filter((m) => m.direction === 'to-server' && m.method === 'tools/call')
      .map((m) => (m.json as { params: { name?: string } }).params.name);
    expect(called.filter((n) => n !== undefined && notReadOnly.includes(n))).toEqual([]);
    for (const w of flagged(r, 'warn')) expect(Object.keys(KNOWN_WARNS)).toContain(w.split(':')[0]);
    expect(r.report.summary.messagesValidated).toBe(r.report.messages.length);
    // It sends notifications and requests of its own; the harness logs and answers them.
    expect(r.report.messages.some((m) => m.direction === 'from-server' && m.kind === 'notification')).toBe(true);
  }, 120_000);

  it('@modelcontextprotocol/server-filesystem (tools not annotated read-only left out)', async () => {
    const dir = mkdtempSync(join(tmpdir(), 'mcp-conform-fs-'));
    writeFileSync(join(dir, 'README.md'), '# hello\n');
    const r = await run(`${process.execPath} ${FILESYSTEM_SERVER} ${dir}`, ['--suite', SUITES]);
    expect(flagged(r, 'fail')).toEqual([]);
    expect(r.code).toBe(0);
    // Not annotated readOnlyHint: true (create_directory is readOnlyHint: false, destructiveHint: false).
    expect(r.report.skippedTools.map((t) => t.name).sort()).toEqual([
      'create_directory',
      'edit_file',
      'move_file',
      'write_file',
    ]);
    for (const w of flagged(r, 'warn')) {
      // Its structured results {"content": text} come with that text as a text block: carried (test/suites/calling.test.ts).
      if (w.startsWith('calling/tool/')) expect(w).toMatch(/no text block carries it/);
      else expect(Object.keys(KNOWN_WARNS)).toContain(w.split(':')[0]);
    }
  });

  it('@modelcontextprotocol/server-memory with --call-tools all', async () => {
    const dir = mkdtempSync(join(tmpdir(), 'mcp-conform-mem-'));
    const r = await run(join(BIN, 'mcp-server-memory'), [
      '--suite',
      SUITES,
      '--call-tools',
      'all',
      '--env',
      `MEMORY_FILE_PATH=${join(dir, 'memory.jsonl')}`,
    ]);
    expect(flagged(r, 'fail')).toEqual([]);
    expect(r.code).toBe(0);
    expect(r.report.skippedTools).toEqual([]);
    for (const w of flagged(r, 'warn')) {
      if (w.startsWith('calling/tool/')) expect(w).toMatch(/no text block carries it/);
      else expect(Object.keys(KNOWN_WARNS)).toContain(w.split(':')[0]);
    }
  });

  it("the SDK's McpServer over StdioServerTransport", async () => {
    const r = await run(`node ${join(FIXTURES, 'sdk-stdio.mjs')}`, ['--suite', SUITES]);
    expect(flagged(r, 'fail')).toEqual([]);
    expect(r.code).toBe(0);
    expect(
      flagged(r, 'warn')
        .map((w) => w.split(':')[0])
        .sort(),
    ).toEqual(Object.keys(KNOWN_WARNS).sort());
    expect(r.c('calling/tool/stats').message).toMatch(/structuredContent that conforms/);
    expect(r.c('calling/tool/wipe').verdict).toBe('skip');
    expect(r.c('lifecycle/shutdown').verdict).toBe('pass');
  });
});
