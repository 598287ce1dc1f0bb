/** The README's set-up command: the bundled demo server is all green, and the report holds every message. */
import { describe, expect, it } from 'vitest';
import { existsSync, readFileSync } from 'node:fs';
import { join } from 'node:path';
import { cli, py, run } from './helpers/cli.js';

describe('run against the demo server (fixtures/servers/calc.py)', () => {
  it('all pass, exit 0, and a report that accounts for every message', async () => {
    const r = await run(py('calc.py'));
    expect(r.code).toBe(0);
    const { report } = r;
    expect(report.summary.fail).toBe(0);
    expect(report.summary.warn).toBe(0);
    expect(report.exitCode).toBe(0);
    // Only the destructive tool is skipped (the others are annotated readOnlyHint: true), and the report says why.
    expect(report.skippedTools.map((t) => t.name)).toEqual(['clear_history']);
    // The demo server declares only tools: the resources, prompts, completion and logging cases skip, saying so.
    const skips = report.suites.flatMap((s) => s.cases).filter((c) => c.verdict === 'skip');
    const undeclared = skips.filter((c) => /^the server did not declare the "(resources|prompts|completions|logging|tasks)" capability$/.test(c.message));
    expect(new Set(undeclared.map((c) => c.id.split('/')[0]))).toEqual(new Set(['resources', 'prompts', 'completion', 'logging', 'tasks', 'security']));
    // And cases that have nothing to look at on it: no server request, no long-running tool, not 2026-07-28 (surface-2026, tasks extension, subscriptions).
    // (security/path-escape and ssrf: no tool takes a path or a URL.)
    const nothing = skips.filter((c) => /^(server-requests|progress|surface-2026|protocol-2026|tasks\/extension|subscriptions)\/|^security\/(path-escape|ssrf)$/.test(c.id));
    for (const c of nothing) expect(c.message).toMatch(/was never sent|^no callable tool looks long-running|^does not apply: protocol 2025-11-25 (has no|\(the case applies from 2026-07-28 on\))|^no tool declares a parameter named or described as a (path|URL)/);
    const skipped = skips.filter((c) => !undeclared.includes(c) && !nothing.includes(c)).map((c) => c.id);
    // result-type: only from 2026-07-28; the security suite's HTTP cases: over stdio they do not apply.
    expect(skipped).toEqual(['lifecycle/result-type', 'calling/tool/clear_history', 'security/host-header', 'security/session-id', 'security/session-isolation']);
    // calc.py serves requests before initialize: the spec leaves that open (info).
    // quality: its arithmetic tools leave their parameters a and b undescribed; the token cost and result sizes are info.
    expect(report.suites.flatMap((s) => s.cases).filter((c) => c.verdict === 'info').map((c) => c.id)).toEqual([
      'calling/open-world', 'robustness/request-before-initialize', 'quality/tool/add', 'quality/tool/subtract', 'quality/tool/multiply', 'quality/tool/divide', 'quality/token-cost', 'quality/result-size',
    ]);
    expect(report.server).toMatchObject({ name: 'calc', version: '1.0.0', protocolVersion: '2025-11-25', toolCount: 10 });
    expect(report.target).toMatchObject({ transport: 'stdio', argv: ['python3', expect.stringMatching(/calc\.py$/)] });
    expect(report.process.shutdown).toBe('exited');
    // Every message exchanged is in the log with its schema verdict, and each was validated.
    expect(report.messages.length).toBeGreaterThan(40);
    expect(report.summary.messagesValidated).toBe(report.messages.length);
    report.messages.forEach((m, i) => {
      expect(m.seq).toBe(i);
      expect(m.schema.checked).toBe(true);
      if (m.json !== undefined) expect(JSON.parse(m.raw)).toEqual(m.json);
    });
    // The invalid messages are the harness's deliberate probes, each marked as such; the server sent none.
    const invalid = report.messages.filter((m) => !m.schema.valid);
    expect(invalid.map((m) => m.direction)).toEqual(['to-server', 'to-server', 'to-server', 'to-server']);
    expect(invalid.map((m) => m.schema.expectedInvalid)).toEqual([
      expect.stringMatching(/malformed-call/), expect.stringMatching(/invalid-json/), expect.stringMatching(/not-a-message/), expect.stringMatching(/wrong-jsonrpc/),
    ]);
    // Every answer names the request it answers (an error with id null answers the probe it refuses).
    for (const m of report.messages.filter((x) => x.kind === 'response' || x.kind === 'error')) {
      const req = report.messages[m.inReplyTo!]!;
      if (m.id === null) expect(req.schema.expectedInvalid).toMatch(/robustness/);
      else expect(req.id).toEqual(m.id);
    }
    // Cases carry the contract fields.
    const ping = r.c('lifecycle/ping');
    expect(ping).toMatchObject({ verdict: 'pass', level: 'MUST', spec: 'https://modelcontextprotocol.io/specification/2025-11-25/basic/utilities/ping' });
    expect(ping.messageIds.map((i) => report.messages[i]!.method)).toEqual(['ping', 'ping']);
    expect(r.c('calling/tool/stats').message).toMatch(/structuredContent that conforms/);
    expect(r.c('invalid-params/wrong-type/add').message).toMatch(/isError: true/);
    expect(r.c('unknown-tool/call').message).toMatch(/-32602/);
  });

  it('console output: a line per suite with its counts, passes counted not listed, summary line, no colour when piped', async () => {
    const r = await cli(['run', '--stdio', py('calc.py'), '--out-dir', join(process.env.TMPDIR ?? '/tmp', `mcp-conform-console-${process.pid}`)], { env: { NO_COLOR: '' } });
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
    expect(xml).toMatch(/<failure message="tools\/call of &quot;mcp_conform_no_such_tool&quot;, a tool the server did not list, was answered with a success result/);
  });

  it('--protocol-version 2025-06-18: judged by that version (a -32602 for bad arguments passes there)', async () => {
    const r = await run(py('calc.py'), ['--protocol-version', '2025-06-18']);
    expect(r.code).toBe(0);
    expect(r.report.server.protocolVersion).toBe('2025-06-18');
    expect(r.report.options.schemaVersion).toBe('2025-06-18');
    expect(r.c('invalid-params/wrong-type/add')).toMatchObject({ verdict: 'pass', message: expect.stringMatching(/-32602/) });
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
    const r = await run(py('calc.py'), ['--suite', 'lifecycle', '--suite', 'calling', '--case', 'lifecycle/ping', '--case', 'calling/tool/add', '--case', 'calling/tool/clear_history', '--call-tools', 'all']);
    expect(r.code).toBe(0);
    expect(r.report.suites.map((s) => s.id)).toEqual(['lifecycle', 'calling']);
    expect(r.report.suites.flatMap((s) => s.cases.map((c) => `${c.id}:${c.verdict}`))).toEqual(['lifecycle/ping:pass', 'calling/tool/add:pass', 'calling/tool/clear_history:pass']);
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
