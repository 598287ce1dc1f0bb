/**
 * Real servers we did not write: no false fail. Every warn they get is one the grading policy names for a known
 * deviation of the official SDKs (listed here with the reason), so a new warn or any fail breaks this test.
 */
import { describe, expect, it } from 'vitest';
import { mkdtempSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { BIN, FIXTURES, run } from './helpers/cli.js';

/** Warns that real SDK-based servers get, and why they are warns and not fails. */
const KNOWN_WARNS: Record<string, string> = {
  // TS SDK 1.32 servers (these) answer an unknown tool with an isError result instead of a protocol error.
  'unknown-tool/call': 'isError result for an unknown tool',
  // The TypeScript SDK answers a tools/call without a name with -32603 (its zod error), not -32602.
  'invalid-params/malformed-call': '-32603 instead of -32602',
};

const SUITES = 'lifecycle,listing,calling,unknown-tool,invalid-params,is-error,stdio,schema';

function flagged(r: Awaited<ReturnType<typeof run>>, verdict: 'fail' | 'warn'): string[] {
  return r.report.suites.flatMap((s) => s.cases).filter((c) => c.verdict === verdict).map((c) => `${c.id}: ${c.message}`);
}

describe('real MCP servers over stdio', () => {
  it('@modelcontextprotocol/server-everything', async () => {
    const r = await run(`${join(BIN, 'mcp-server-everything')} stdio`, ['--suite', SUITES], { timeoutMs: 120_000 });
    expect(flagged(r, 'fail')).toEqual([]);
    expect(r.code).toBe(0);
    expect(r.report.server.name).toBe('mcp-servers/everything');
    expect(r.report.server.toolCount).toBeGreaterThan(10);
    // Its tools are all called and answer (an isError answer to generated arguments is a valid answer).
    const calls = r.report.suites.find((s) => s.id === 'calling')!.cases;
    expect(calls.length).toBe(r.report.server.toolCount);
    expect(calls.every((c) => c.verdict === 'pass')).toBe(true);
    // Node keeps running after stdin closes (timers of its simulated subscriptions): SIGTERM ends it.
    const warns = { ...KNOWN_WARNS, 'lifecycle/shutdown': 'needs SIGTERM' };
    for (const w of flagged(r, 'warn')) expect(Object.keys(warns)).toContain(w.split(':')[0]);
    expect(r.report.summary.messagesValidated).toBe(r.report.messages.length);
    // It sends notifications and requests of its own; the harness logs and answers them.
    expect(r.report.messages.some((m) => m.direction === 'from-server' && m.kind === 'notification')).toBe(true);
  }, 120_000);

  it('@modelcontextprotocol/server-filesystem (destructive tools left out)', async () => {
    const dir = mkdtempSync(join(tmpdir(), 'mcp-conform-fs-'));
    writeFileSync(join(dir, 'README.md'), '# hello\n');
    const r = await run(`${join(BIN, 'mcp-server-filesystem')} ${dir}`, ['--suite', SUITES]);
    expect(flagged(r, 'fail')).toEqual([]);
    expect(r.code).toBe(0);
    expect(r.report.skippedTools.map((t) => t.name).sort()).toEqual(['edit_file', 'move_file', 'write_file']);
    for (const w of flagged(r, 'warn')) {
      // Its structured results {"content": text} come with that text as a text block: carried (grading-accuracy.test.ts).
      if (w.startsWith('calling/tool/')) expect(w).toMatch(/no text block carries it/);
      else expect(Object.keys(KNOWN_WARNS)).toContain(w.split(':')[0]);
    }
  });

  it('@modelcontextprotocol/server-memory with --call-tools all', async () => {
    const dir = mkdtempSync(join(tmpdir(), 'mcp-conform-mem-'));
    const r = await run(join(BIN, 'mcp-server-memory'), ['--suite', SUITES, '--call-tools', 'all', '--env', `MEMORY_FILE_PATH=${join(dir, 'memory.jsonl')}`]);
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
    expect(flagged(r, 'warn').map((w) => w.split(':')[0]).sort()).toEqual(Object.keys(KNOWN_WARNS).sort());
    expect(r.c('calling/tool/stats').message).toMatch(/structuredContent that conforms/);
    expect(r.c('calling/tool/wipe').verdict).toBe('skip');
    expect(r.c('lifecycle/shutdown').verdict).toBe('pass');
  });
});
