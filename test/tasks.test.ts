/**
 * Tools with execution.taskSupport "required" are called as tasks (2025-11-25: task-augmented tools/call, tasks/get
 * until a terminal status, tasks/result), or skipped with the reason — never called plainly, except the one probe of
 * the -32601 rule, and only for a tool the call policy allows.
 */
import { describe, expect, it } from 'vitest';
import { mkdtempSync, readdirSync, readFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { taskCallsUnsupported } from '../core/tasks.js';
import type { Report } from '../core/results.js';
import { BIN, cli, FIXTURES, run } from './helpers/cli.js';

const SERVER = join(FIXTURES, 'safety', 'task-required.py');
const TASKS = { tasks: { requests: { tools: { call: {} } } } };

/** The tools/call requests the harness sent for a tool: with params.task or without. */
function callsOf(report: Report, name: string): { task: boolean; seq: number }[] {
  return report.messages
    .filter(
      (m) =>
        m.direction === 'to-server' &&
        m.method === 'tools/call' &&
        (m.json as { params?: { name?: string } }).params?.name === name,
    )
    .map((m) => ({ task: (m.json as { params: { task?: unknown } }).params.task !== undefined, seq: m.seq }));
}

async function runServer(flags: string[], extra: string[]) {
  const dir = mkdtempSync(join(tmpdir(), 'mcp-conform-tasks-'));
  const r = await run(`python3 ${SERVER} ${flags.join(' ')}`.trim(), [
    '--suite',
    'calling,schema,is-error',
    '--env',
    `SIDE_EFFECTS_DIR=${dir}`,
    ...extra,
  ]);
  const marker = readdirSync(dir).includes('ledger_job.called')
    ? readFileSync(join(dir, 'ledger_job.called'), 'utf8')
        .trim()
        .split('\n')
        .map((l) => JSON.parse(l) as Record<string, unknown>)
    : [];
  return { r, marker };
}

describe('taskCallsUnsupported', () => {
  it('only 2025-11-25 with capabilities.tasks.requests.tools.call', () => {
    expect(taskCallsUnsupported('2025-11-25', TASKS)).toBeUndefined();
    expect(taskCallsUnsupported('2025-11-25', { tasks: { list: {} } })).toMatch(
      /does not declare capabilities\.tasks\.requests\.tools\.call/,
    );
    expect(taskCallsUnsupported('2025-06-18', TASKS)).toMatch(/has no tasks/);
    expect(taskCallsUnsupported('2026-07-28', TASKS)).toMatch(/io\.modelcontextprotocol\/tasks extension/);
  });
});

describe('task-required tools', () => {
  it('a default run calls the read-only one as a task, probes -32601 on it, and leaves the other alone', async () => {
    const { r, marker } = await runServer([], []);
    expect(r.code).toBe(0);
    expect(r.c('calling/tool/research')).toMatchObject({
      verdict: 'pass',
      message: expect.stringMatching(
        /^called as a task .*ended "completed" after \d+ tasks\/get polls?; tasks\/result answered with 1 content block/,
      ),
    });
    // One task-augmented call, then tasks/get until completed, then tasks/result; one plain call: the -32601 probe.
    expect(callsOf(r.report, 'research').map((c) => c.task)).toEqual([true, false]);
    const methods = r.report.messages
      .filter((m) => m.direction === 'to-server' && m.kind === 'request')
      .map((m) => m.method);
    expect(methods).toContain('tasks/get');
    expect(methods).toContain('tasks/result');
    expect(r.c('calling/task-required-plain/research')).toMatchObject({
      verdict: 'pass',
      message: expect.stringMatching(/without params\.task was refused with error -32601/),
    });
    // The CreateTaskResult was checked as one (not as a CallToolResult), and found valid.
    const created = r.report.messages.find(
      (m) => m.direction === 'from-server' && m.inReplyTo === callsOf(r.report, 'research')[0]!.seq,
    )!;
    expect(created.schema).toMatchObject({ valid: true, definition: expect.stringContaining('CreateTaskResult') });
    expect(r.c('schema/from-server/tools/call').verdict).toBe('pass');
    // So does the offline check of the saved log.
    const v = await cli(['validate', join(r.outDir, 'report.json')]);
    expect([v.code, v.stdout]).toEqual([0, expect.stringMatching(/Result: all \d+ messages valid/)]);
    // ledger_job (not read-only) was never called, neither as a task nor plainly.
    expect(marker).toEqual([]);
    expect(callsOf(r.report, 'ledger_job')).toEqual([]);
    expect(r.c('calling/tool/ledger_job').verdict).toBe('skip');
    expect(r.c('calling/task-required-plain/ledger_job')).toMatchObject({
      verdict: 'skip',
      message: expect.stringMatching(/^not probed: --call-tools safe/),
    });
  }, 60_000);

  it('--call-tool ledger_job: called as a task, and probed plainly once (refused: -32601)', async () => {
    const { r, marker } = await runServer([], ['--call-tool', 'ledger_job']);
    expect(r.c('calling/tool/ledger_job').verdict).toBe('pass');
    expect(marker.map((p) => p.task !== undefined)).toEqual([true, false]);
  }, 60_000);

  it('a server without the tasks capability: the tools are skipped with the reason, never called', async () => {
    const { r, marker } = await runServer(['--no-tasks'], ['--call-tools', 'all']);
    expect(r.c('calling/tool/research')).toMatchObject({
      verdict: 'skip',
      message: expect.stringMatching(
        /taskSupport is "required": a client must call it as a task, never plainly, and the server does not declare capabilities\.tasks\.requests\.tools\.call/,
      ),
    });
    expect(r.c('calling/task-required-plain/research').verdict).toBe('skip');
    expect(callsOf(r.report, 'research')).toEqual([]);
    expect(marker).toEqual([]);
    expect(r.report.skippedTools.map((t) => t.name).sort()).toEqual(['ledger_job', 'research']);
  }, 60_000);

  it('protocol 2025-06-18 (no tasks): skipped with the reason', async () => {
    const { r } = await runServer([], ['--protocol-version', '2025-06-18']);
    expect(r.c('calling/tool/research').message).toMatch(/protocol 2025-06-18 has no tasks/);
    expect(callsOf(r.report, 'research')).toEqual([]);
  }, 60_000);

  it('a server that runs a task-required tool called plainly fails calling/task-required-plain', async () => {
    const { r } = await runServer(['--runs-plain'], []);
    expect(r.c('calling/task-required-plain/research')).toMatchObject({
      verdict: 'fail',
      message: expect.stringMatching(/answered with a success result .*the tool ran without task augmentation/),
    });
    expect(r.code).toBe(1);
  }, 60_000);

  it('a task that never ends is not judged: bounded by --timeout, then cancelled', async () => {
    const { r } = await runServer(['--never-done'], ['--timeout', '1500']);
    expect(r.c('calling/tool/research')).toMatchObject({
      verdict: 'skip',
      message: expect.stringMatching(/still "working" when the bound of 1500 ms ran out; tasks\/cancel was sent/),
    });
    expect(r.report.messages.some((m) => m.direction === 'to-server' && m.method === 'tasks/cancel')).toBe(true);
    expect(r.c('calling/tool/research').durationMs).toBeLessThan(3000);
  }, 60_000);
});

describe('server-everything: simulate-research-query (taskSupport "required", readOnlyHint false)', () => {
  // (A full default run that never calls it: test/run-real-servers.test.ts.)
  it('a default run does not call it; --call-tool calls it as a task; its plain-call refusal is an isError result (warn)', async () => {
    const cmd = `${join(BIN, 'mcp-server-everything')} stdio`;
    const cases = ['--case', 'calling/tool/simulate-research-query', '--case', 'calling/task-required-plain'];
    const d = await run(cmd, ['--suite', 'calling', ...cases]);
    expect(callsOf(d.report, 'simulate-research-query')).toEqual([]);
    expect(d.c('calling/tool/simulate-research-query').message).toMatch(
      /^not called: --call-tools safe .*annotated readOnlyHint: false/,
    );
    const r = await run(cmd, ['--suite', 'calling', ...cases, '--call-tool', 'simulate-research-query'], {
      timeoutMs: 90_000,
    });
    expect(r.c('calling/tool/simulate-research-query')).toMatchObject({
      verdict: 'pass',
      message: expect.stringMatching(/^called as a task .*ended "completed"/),
    });
    expect(callsOf(r.report, 'simulate-research-query').map((c) => c.task)).toEqual([true, false]);
    expect(r.c('calling/task-required-plain/simulate-research-query')).toMatchObject({
      verdict: 'warn',
      message: expect.stringMatching(
        /refused with a result with isError: true .*-32601.* instead of JSON-RPC error -32601/,
      ),
    });
  }, 120_000);
});
