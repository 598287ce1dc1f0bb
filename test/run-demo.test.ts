/**
 * The README's set-up command against the demo server: its output and files. That a default run of it is all green,
 * with a report that holds every message, is checked in test/verdicts.test.ts on the guard's run.
 */
import { describe, expect, it } from 'vitest';
import { existsSync, readFileSync } from 'node:fs';
import { join } from 'node:path';
import { cli, py, run } from './helpers/cli.js';

describe('run against the demo server (fixtures/servers/calc.py)', () => {
  it('console output: a line per suite with its counts, passes counted not listed, summary line, no colour when piped', async () => {
    const r = await cli(
      [
        'run',
        '--stdio',
        py('calc.py'),
        '--out-dir',
        join(process.env.TMPDIR ?? '/tmp', `mcp-conform-console-${process.pid}`),
      ],
      { env: { NO_COLOR: '' } },
    );
    expect(r.code).toBe(0);
    expect(r.stdout).toMatch(/^mcp-conform \S+ · calc 1\.0\.0 over stdio · protocol 2025-11-25/);
    expect(r.stdout).toMatch(/\nlifecycle {2,}\d+ pass, 1 skip \(not applicable\) {2}\d+ ms\n/);
    expect(r.stdout).not.toContain('✓ pass');
    expect(r.stdout).toMatch(/\nNot listed: \d+ passes and \d+ skips of cases that do not apply to this run/);
    expect(r.stdout).toMatch(/Summary: \d+ pass, 0 warn, 0 fail, \d+ skip, \d+ info · \d+ messages validated/);
    expect(r.stdout).toContain('Result: no failures');
    expect(r.stdout).not.toContain('\x1b[');
  });

  it('json and junit reporters: one testcase per case, failures and skips marked', async () => {
    const r = await run(py('broken/unknown-tool-success.py'), ['--reporter', 'junit']);
    expect(r.code).toBe(1);
    const xml = readFileSync(join(r.outDir, 'junit.xml'), 'utf8');
    const cases = r.report.suites.flatMap((s) => s.cases);
    expect(xml.match(/<testcase /g)).toHaveLength(cases.length);
    expect(xml.match(/<testsuite /g)).toHaveLength(r.report.suites.length);
    expect(xml.match(/<failure /g)).toHaveLength(r.report.summary.fail);
    expect(xml.match(/<skipped /g)).toHaveLength(r.report.summary.skip);
    expect(xml).toContain('name="unknown-tool/call"');
    expect(xml).toMatch(
      /<failure message="tools\/call of &quot;mcp_conform_no_such_tool&quot;, a tool the server did not list, was answered with a success result/,
    );
  });

  it('--protocol-version 2025-06-18: judged by that version (a -32602 for bad arguments passes there)', async () => {
    const r = await run(py('calc.py'), ['--protocol-version', '2025-06-18']);
    expect(r.code).toBe(0);
    expect(r.report.server.protocolVersion).toBe('2025-06-18');
    expect(r.report.options.schemaVersion).toBe('2025-06-18');
    expect(r.c('invalid-params/wrong-type/add')).toMatchObject({
      verdict: 'pass',
      message: expect.stringMatching(/-32602/),
    });
    expect(r.c('lifecycle/ping').spec).toContain('/2025-06-18/');
    expect(r.report.summary.messagesValidated).toBe(r.report.messages.length);
  });

  it('--protocol-version 2024-11-05 validates with the draft-07 schema of that version', async () => {
    const r = await run(py('calc.py'), ['--protocol-version', '2024-11-05']);
    expect(r.code).toBe(0);
    expect(r.report.options.schemaVersion).toBe('2024-11-05');
    expect(r.report.messages[0]!.schema.definition).toBe('JSONRPCRequest + InitializeRequest');
  });

  it('--suite, --case and --call-tools choose what runs', async () => {
    const r = await run(py('calc.py'), [
      '--suite',
      'lifecycle',
      '--suite',
      'calling',
      '--case',
      'lifecycle/ping',
      '--case',
      'calling/tool/add',
      '--case',
      'calling/tool/clear_history',
      '--call-tools',
      'all',
    ]);
    expect(r.code).toBe(0);
    expect(r.report.suites.map((s) => s.id)).toEqual(['lifecycle', 'calling']);
    expect(r.report.suites.flatMap((s) => s.cases.map((c) => `${c.id}:${c.verdict}`))).toEqual([
      'lifecycle/ping:pass',
      'calling/tool/add:pass',
      'calling/tool/clear_history:pass',
    ]);
    const calls = r.report.messages.filter((m) => m.direction === 'to-server' && m.method === 'tools/call');
    expect(calls.map((m) => (m.json as { params: { name: string } }).params.name)).toEqual(['add', 'clear_history']);
  });

  it('--call-tools none calls no tool and lists them all as skipped', async () => {
    const r = await run(py('calc.py'), ['--suite', 'calling', '--call-tools', 'none']);
    expect(r.code).toBe(0);
    expect(r.report.skippedTools).toHaveLength(10);
    expect(r.report.messages.some((m) => m.method === 'tools/call')).toBe(false);
  });

  it('writes reports into --out-dir (created if missing)', async () => {
    const r = await run(py('calc.py'), ['--suite', 'lifecycle', '--reporter', 'junit']);
    expect(existsSync(join(r.outDir, 'junit.xml'))).toBe(true);
    expect(existsSync(join(r.outDir, 'report.json'))).toBe(true);
  });
});
