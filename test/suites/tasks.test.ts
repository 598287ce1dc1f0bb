/**
 * The tasks suite's 2026-07-28 half: the io.modelcontextprotocol/tasks extension
 * (https://modelcontextprotocol.github.io/ext-tasks/specification/2026-07-28/tasks.html), against
 * fixtures/servers/tasks-ext.py (conformant; TASKS=never / TASKS=input change its choices) and one broken fixture
 * per MUST graded (fixtures/servers/broken/task-*.py). The 2025-11-25 half is test/tasks.test.ts and
 * test/progress-tasks.test.ts.
 */
import { describe, expect, it } from 'vitest';
import { join } from 'node:path';
import { extensionPollInterval, taskShapeProblems, TASKS_EXTENSION } from '../../core/tasks.js';
import type { Report } from '../../core/results.js';
import { cli, FIXTURES, run, runArgs } from '../helpers/cli.js';
import { startServer } from '../http-helpers.js';
// The extension's own zod schemas (devDependency @modelcontextprotocol/ext-tasks): what the harness sends and what the
// conformant fixture answers must match them, and the hand-written shape checks must agree with them.
import {
  CancelTaskRequestV2Schema,
  CancelTaskResultV2Schema,
  CreateTaskResultV2Schema,
  GetTaskRequestV2Schema,
  GetTaskResultV2Schema,
} from '@modelcontextprotocol/ext-tasks/core/v2';

const GOOD = `python3 ${join(FIXTURES, 'tasks-ext.py')}`;
const EXT_CASES = [
  'tasks/extension/lifecycle',
  'tasks/extension/cancel',
  'tasks/extension/unknown-task',
  'tasks/extension/capability-required',
  'tasks/extension/not-undeclared',
  'tasks/extension/legacy-removed',
];

type Msg = Report['messages'][number];
const params = (m: Msg) => (m.json as { params?: Record<string, unknown> }).params ?? {};
const declares = (m: Msg) => {
  const caps = (params(m)._meta as Record<string, { extensions?: Record<string, unknown> }> | undefined)?.[
    'io.modelcontextprotocol/clientCapabilities'
  ];
  return caps?.extensions?.[TASKS_EXTENSION] !== undefined;
};
const sent = (r: { report: Report }, method: string) =>
  r.report.messages.filter((m) => m.direction === 'to-server' && m.kind === 'request' && m.method === method);
const answerTo = (r: { report: Report }, m: Msg) =>
  r.report.messages.find((x) => x.direction === 'from-server' && x.inReplyTo === m.seq)!;

describe('the task shape checks (core/tasks.ts)', () => {
  const task = {
    taskId: 't1',
    status: 'working',
    createdAt: '2026-01-01T00:00:00Z',
    lastUpdatedAt: '2026-01-01T00:00:00Z',
    ttlMs: null,
  };
  it('a full handle and a full tasks/get answer have no problem; each missing piece is named', () => {
    expect(taskShapeProblems({ ...task, resultType: 'task' }, 'task')).toEqual([]);
    expect(
      taskShapeProblems({ ...task, resultType: 'complete', status: 'completed', result: { content: [] } }, 'complete'),
    ).toEqual([]);
    expect(taskShapeProblems({ ...task, resultType: 'complete' }, 'task')).toEqual([
      'resultType is "complete", not "task"',
    ]);
    expect(taskShapeProblems({ ...task, resultType: 'task', ttlMs: undefined }, 'task').join()).toMatch(
      /ttlMs is undefined|ttlMs is missing|not an integer/,
    );
    expect(taskShapeProblems({ ...task, resultType: 'complete', status: 'completed' }, 'complete').join()).toMatch(
      /"completed" but its result field is missing/,
    );
    expect(
      taskShapeProblems(
        { ...task, resultType: 'complete', status: 'failed', error: { message: 'x' } },
        'complete',
      ).join(),
    ).toMatch(/"failed" but its error field/);
    expect(taskShapeProblems({ ...task, resultType: 'complete', status: 'done' }, 'complete').join()).toMatch(
      /status is "done"/,
    );
  });
  it("agree with the extension's official schemas on a valid task and on each field removed or mistyped", () => {
    const handle = { resultType: 'task', ...task, ttlMs: 60_000, pollIntervalMs: 100, statusMessage: 'on it' };
    const views: Record<string, Record<string, unknown>> = {
      working: { ...handle, resultType: 'complete' },
      completed: {
        ...handle,
        resultType: 'complete',
        status: 'completed',
        result: { content: [{ type: 'text', text: 'ok' }] },
      },
      failed: { ...handle, resultType: 'complete', status: 'failed', error: { code: -32603, message: 'boom' } },
      cancelled: { ...handle, resultType: 'complete', status: 'cancelled' },
      input_required: { ...handle, resultType: 'complete', status: 'input_required', inputRequests: {} },
    };
    // (no undefined: JSON has none; a missing member is the removal above)
    const bad: unknown[] = [null, 1.5, 'x', true, {}, []];
    const variants = (o: Record<string, unknown>) => [
      o,
      ...Object.keys(o).flatMap((k) => [
        Object.fromEntries(Object.entries(o).filter(([key]) => key !== k)),
        ...bad.map((v) => ({ ...o, [k]: v })),
      ]),
    ];
    const disagree: string[] = [];
    for (const v of variants(handle)) {
      const ours = taskShapeProblems(v, 'task').length === 0;
      if (ours !== CreateTaskResultV2Schema.safeParse(v).success)
        disagree.push(`handle ${JSON.stringify(v)}: ours ${ours}`);
    }
    for (const view of Object.values(views)) {
      for (const v of variants(view)) {
        const ours = taskShapeProblems(v, 'complete').length === 0;
        const official = GetTaskResultV2Schema.safeParse(v).success;
        // Stricter on purpose: a completed task of a tools/call carries a CallToolResult (its content array), where
        // the schema says only "an object".
        if (
          ours !== official &&
          !(
            official &&
            v.status === 'completed' &&
            !Array.isArray((v.result as { content?: unknown } | undefined)?.content)
          )
        ) {
          disagree.push(`tasks/get ${JSON.stringify(v)}: ours ${ours}, official ${official}`);
        }
      }
    }
    expect(disagree).toEqual([]);
  });

  it('pollIntervalMs is honoured within 50…2000 ms', () => {
    expect([
      extensionPollInterval({ pollIntervalMs: 10 }),
      extensionPollInterval({ pollIntervalMs: 700 }),
      extensionPollInterval({ pollIntervalMs: 60_000 }),
      extensionPollInterval({}),
    ]).toEqual([50, 700, 2000, 200]);
  });
});

describe('tasks/extension/* on a conformant server', () => {
  it('one task followed to its result, a second cancelled, the two error cases, no handle without the extension', async () => {
    const r = await run(GOOD, ['--suite', 'tasks,schema', '--timeout', '5000']);
    expect(r.report.server?.protocolVersion).toBe('2026-07-28');
    for (const id of EXT_CASES) expect(r.c(id).verdict, `${id}: ${r.c(id).message}`).toBe('pass');
    expect(r.c('tasks/extension/lifecycle').message).toMatch(
      /^tools\/call add declaring the extension .*answered with task \S+ \("working", pollIntervalMs 100\); \d+ tasks\/get \(waits (100(, )?)+ ms\) until "completed" with the tool's result \(1 content block/,
    );
    expect(r.c('tasks/extension/cancel').message).toMatch(
      /acknowledged \(resultType "complete"\); tasks\/get then said "cancelled"/,
    );
    // What went over the wire: the calls that may get a task declare the extension in their own capabilities; the
    // plain call (not-undeclared) and the one with a 2025-11-25 task parameter (legacy-removed) do not. Every tasks/*
    // request declares it but the three capability probes; tasks/update only as those probes (the task asked for no
    // input), tasks/result only as the legacy-removed probe; no tasks/list.
    const calls = sent(r, 'tools/call');
    expect(calls.map(declares)).toEqual([true, true, false, false]);
    expect(params(calls[3]!).task).toEqual({ ttl: 60_000 });
    const gets = sent(r, 'tasks/get');
    expect(gets.filter((m) => !declares(m))).toHaveLength(1);
    expect(sent(r, 'tasks/cancel').filter((m) => !declares(m))).toHaveLength(1);
    expect(sent(r, 'tasks/update').map((m) => [declares(m), params(m).inputResponses])).toEqual([
      [true, {}],
      [false, {}],
    ]);
    expect(sent(r, 'tasks/result')).toHaveLength(1);
    expect(sent(r, 'tasks/list')).toEqual([]);
    // Both sides match the extension's own schemas: the requests the harness sent, the answers of the fixture.
    for (const m of gets) expect(GetTaskRequestV2Schema.safeParse(m.json).error).toBeUndefined();
    for (const m of sent(r, 'tasks/cancel').filter(
      (x) => declares(x) && !String(params(x).taskId).startsWith('mcp-conform-unknown-'),
    )) {
      expect(CancelTaskRequestV2Schema.safeParse(m.json).error).toBeUndefined();
      expect(
        CancelTaskResultV2Schema.safeParse((answerTo(r, m).json as { result: unknown }).result).error,
      ).toBeUndefined();
    }
    for (const m of calls.filter(declares))
      expect(
        CreateTaskResultV2Schema.safeParse((answerTo(r, m).json as { result: unknown }).result).error,
      ).toBeUndefined();
    const answered = gets
      .filter(declares)
      .map((m) => (answerTo(r, m).json as { result?: unknown }).result)
      .filter((x) => x !== undefined);
    expect(answered.length).toBeGreaterThan(1);
    for (const x of answered) expect(GetTaskResultV2Schema.safeParse(x).error).toBeUndefined();
    // The task handle is checked as a Result of the extension (valid), not as a CallToolResult it cannot be.
    const handle = answerTo(r, calls[0]!);
    expect((handle.json as { result: { resultType: string } }).result.resultType).toBe('task');
    expect(handle.schema).toMatchObject({
      valid: true,
      definition: expect.stringContaining('task handle of the io.modelcontextprotocol/tasks extension'),
    });
    expect(r.c('schema/from-server/tools/call').verdict).toBe('pass');
    expect(r.code).toBe(0);
    const v = await cli(['validate', join(r.outDir, 'report.json')]);
    expect([v.code, v.stdout]).toEqual([0, expect.stringMatching(/Result: all \d+ messages valid/)]);
  }, 60_000);

  it('over Streamable HTTP: the same, with Mcp-Name set to the taskId on every tasks/* POST (the fixture refuses it otherwise)', async () => {
    const srv = await startServer(['python3', join(FIXTURES, 'tasks-ext.py'), '--http']);
    try {
      const r = await runArgs([
        '--http',
        `http://127.0.0.1:${srv.port}/mcp`,
        '--suite',
        'tasks,schema',
        '--timeout',
        '5000',
      ]);
      for (const id of EXT_CASES) expect(r.c(id).verdict, `${id}: ${r.c(id).message}`).toBe('pass');
      expect(sent(r, 'tasks/get').length).toBeGreaterThan(1);
      expect(r.c('schema/from-server/tools/call').verdict).toBe('pass');
    } finally {
      await srv.stop();
    }
  }, 60_000);

  it('a server that answers plain results (its choice): info, and the cases that need a task skip with the reason', async () => {
    const r = await run(GOOD, ['--suite', 'tasks', '--env', 'TASKS=never']);
    expect(r.c('tasks/extension/lifecycle')).toMatchObject({
      verdict: 'info',
      message: expect.stringMatching(
        /^3 tools\/call declaring the extension, none answered with a task handle .*the server decides per request/,
      ),
    });
    expect(r.c('tasks/extension/cancel')).toMatchObject({
      verdict: 'skip',
      message: expect.stringMatching(/no tools\/call was answered with a task handle/),
    });
    expect(r.c('tasks/extension/capability-required').verdict).toBe('skip');
    expect(r.c('tasks/extension/unknown-task').verdict).toBe('pass');
    expect(r.code).toBe(0);
  }, 60_000);

  it('a task that asks for input the harness may not give (elicitation not declared): not exercisable (info), no tasks/update sent', async () => {
    const r = await run(GOOD, ['--suite', 'tasks', '--env', 'TASKS=input']);
    expect(r.c('tasks/extension/lifecycle')).toMatchObject({
      verdict: 'info',
      message: expect.stringMatching(
        /status "input_required", inputRequests confirm\) the harness cannot give: .*elicitation.*which the client did not declare/,
      ),
    });
    // No tasks/update answering the task (the probes of unknown-task and capability-required carry an empty map).
    expect(sent(r, 'tasks/update').filter((m) => Object.keys(params(m).inputResponses as object).length)).toEqual([]);
    expect(r.c('tasks/extension/cancel').verdict).toBe('pass');
  }, 60_000);

  it('with --client-capabilities elicitation: the input is given with tasks/update (the canned decline) and the task is followed to its result', async () => {
    const r = await run(GOOD, ['--suite', 'tasks', '--env', 'TASKS=input', '--client-capabilities', 'elicitation']);
    expect(r.c('tasks/extension/lifecycle')).toMatchObject({
      verdict: 'pass',
      message: expect.stringMatching(/tasks\/update.*until "completed"/),
    });
    const updates = sent(r, 'tasks/update').filter((m) => Object.keys(params(m).inputResponses as object).length);
    expect(updates).toHaveLength(1);
    const p = params(updates[0]!) as { taskId: string; inputResponses: Record<string, { action?: string }> };
    expect(Object.keys(p.inputResponses)).toEqual(['confirm']);
    expect(p.inputResponses.confirm!.action).toBe('decline');
    expect(declares(updates[0]!)).toBe(true);
    // Polled again after the update, never updated twice for one request.
    const after = sent(r, 'tasks/get').filter((m) => m.seq > updates[0]!.seq && params(m).taskId === p.taskId);
    expect(after.length).toBeGreaterThan(0);
  }, 60_000);

  it('a task still working when --timeout runs out: not judged, cancelled, and no tasks/get after the bound', async () => {
    const r = await run(GOOD, ['--suite', 'tasks', '--env', 'DELAY_MS=60000', '--timeout', '1500']);
    expect(r.c('tasks/extension/lifecycle')).toMatchObject({
      verdict: 'skip',
      message: expect.stringMatching(
        /^not judged: .*was still "working" when the bound of 1500 ms ran out .*; tasks\/cancel was sent \(acknowledged\)/,
      ),
    });
    const gets = sent(r, 'tasks/get').filter(declares);
    const first = sent(r, 'tools/call')[0]!;
    // Polls of the followed task, all within the bound (plus one poll interval) of its creation.
    const followed = gets.filter(
      (m) => params(m).taskId === (answerTo(r, first).json as { result: { taskId: string } }).result.taskId,
    );
    expect(followed.length).toBeGreaterThan(3);
    expect(Math.max(...followed.map((m) => m.t)) - answerTo(r, first).t).toBeLessThan(1500 + 300);
    expect(sent(r, 'tasks/cancel').map((m) => params(m).taskId)).toContain(params(followed[0]!).taskId);
  }, 60_000);

  it('the call policy holds: with --call-tools none no tool is called, the cases say why', async () => {
    const r = await run(GOOD, ['--suite', 'tasks', '--call-tools', 'none']);
    expect(r.c('tasks/extension/lifecycle')).toMatchObject({
      verdict: 'skip',
      message: expect.stringMatching(/^no callable tool/),
    });
    expect(sent(r, 'tools/call')).toEqual([]);
    expect(r.c('tasks/extension/unknown-task').verdict).toBe('pass');
  }, 60_000);

  it('in 2025-11-25 the extension cases do not apply; a 2026 server without the extension: skipped with the reason', async () => {
    const old = await run(GOOD, ['--suite', 'tasks', '--protocol-version', '2025-11-25']);
    for (const id of EXT_CASES) expect(old.c(id).message, id).toMatch(/^does not apply: protocol 2025-11-25/);
    const plain = await run(`python3 ${join(FIXTURES, 'calc-all.py')}`, ['--suite', 'tasks']);
    for (const id of EXT_CASES)
      expect(plain.c(id)).toMatchObject({
        verdict: 'skip',
        message: `the server did not declare the ${TASKS_EXTENSION} extension (capabilities.extensions)`,
      });
    expect(sent(plain, 'tasks/get')).toEqual([]);
  }, 60_000);
});

/** One defect each: the case that catches it fails, and nothing else of these suites is flagged. */
const BROKEN: Record<string, { flagged: Record<string, 'fail' | 'warn'>; message: RegExp; args?: string[] }> = {
  'task-handle-incomplete.py': {
    flagged: { 'tasks/extension/lifecycle': 'fail' },
    message: /malformed task handle: createdAt is missing.*ttlMs is missing/,
  },
  'task-completed-no-result.py': {
    flagged: { 'tasks/extension/lifecycle': 'fail' },
    message: /answered a malformed task: the task is "completed" but its result field is missing/,
  },
  'task-cancel-refused.py': {
    flagged: { 'tasks/extension/cancel': 'fail' },
    message: /tasks\/cancel of task \S+ \(add, created "working"\) was answered with error code -32603/,
  },
  'task-unknown-id.py': {
    flagged: { 'tasks/extension/unknown-task': 'fail' },
    message: /answered with error code -32603 .*requires -32602/,
  },
  'task-capability-unchecked.py': {
    flagged: { 'tasks/extension/capability-required': 'fail' },
    message:
      /without the extension in the request's client capabilities: tasks\/get was served .*requires error -32021/,
  },
  'task-key-reused.py': {
    flagged: { 'tasks/extension/lifecycle': 'fail' },
    message: /\(poll 2\) names a different request under input request key\(s\) "confirm" than an earlier poll did/,
    args: ['--client-capabilities', 'elicitation'],
  },
  'task-legacy.py': {
    flagged: { 'tasks/extension/legacy-removed': 'warn', 'schema/from-server/tools/call': 'fail' },
    message:
      /tasks\/result answered error code -32602 .*not -32601.*declares the legacy capabilities\.tasks .*with the 2025-11-25 task parameter and without the extension was answered with a task .*\(SEP-2663 removes these/,
  },
  'task-update-refused.py': {
    flagged: { 'tasks/extension/lifecycle': 'fail' },
    message:
      /tasks\/update of task \S+ with the input it asked for \(confirm: elicitation\/create .*\) was answered with error -32603/,
    args: ['--client-capabilities', 'elicitation'],
  },
  'task-undeclared.py': {
    flagged: {
      'tasks/extension/not-undeclared': 'fail',
      'calling/tool/report': 'fail',
      'schema/from-server/tools/call': 'fail',
    },
    message: /1 of \d+ tools\/call without the extension .* answered with a task handle \(report\)/,
  },
};

describe('the tasks extension, more of its wire', () => {
  it('tasks/update and tasks/cancel: an unknown taskId acknowledged warns (a SHOULD), served without the extension fails (a MUST)', async () => {
    const [unknown, unchecked] = await Promise.all([
      run(`python3 ${join(FIXTURES, 'broken', 'task-unknown-id.py')}`, [
        '--suite',
        'tasks',
        '--timeout',
        '5000',
        '--env',
        'ONLY=update-cancel',
      ]),
      run(`python3 ${join(FIXTURES, 'broken', 'task-capability-unchecked.py')}`, [
        '--suite',
        'tasks',
        '--timeout',
        '5000',
        '--env',
        'METHODS=update+cancel',
      ]),
    ]);
    expect(unknown.c('tasks/extension/unknown-task')).toMatchObject({
      verdict: 'warn',
      message: expect.stringMatching(
        /tasks\/get of the unknown taskId .* answered with error code -32602 .*but tasks\/update of it answered a result .*tasks\/cancel of it answered a result/,
      ),
    });
    expect(unchecked.c('tasks/extension/capability-required')).toMatchObject({
      verdict: 'fail',
      message: expect.stringMatching(/tasks\/update was served .*tasks\/cancel was served/),
    });
    expect(unchecked.c('tasks/extension/capability-required').message).not.toMatch(/tasks\/get was served/);
    // What went out: each of the three without the extension, on the followed task.
    const plain = (['tasks/get', 'tasks/update', 'tasks/cancel'] as const).map(
      (m) => sent(unchecked, m).filter((x) => !declares(x)).length,
    );
    expect(plain).toEqual([1, 1, 1]);
  }, 60_000);

  it('input asked by a multi round-trip request before the task is made: answered, then the task followed (the two compose)', async () => {
    const r = await run(GOOD, [
      '--suite',
      'tasks',
      '--timeout',
      '5000',
      '--env',
      'TASKS=mrtr-first',
      '--client-capabilities',
      'elicitation',
    ]);
    expect(r.c('tasks/extension/lifecycle')).toMatchObject({
      verdict: 'pass',
      message: expect.stringMatching(
        /after 1 input_required round\(s\) answered \(proceed: elicitation\/create → action "decline"\), was answered with task .*until "completed"/,
      ),
    });
    // The retry kept the extension in its own client capabilities, with the answer and the echoed requestState.
    const retry = sent(r, 'tools/call').find((m) => params(m).inputResponses !== undefined)!;
    expect(declares(retry)).toBe(true);
    expect(params(retry).requestState).toBe('before-task');
  }, 60_000);
});

describe('broken task servers (fixtures/servers/broken/task-*.py)', () => {
  it.each(Object.entries(BROKEN))(
    '%s',
    async (file, want) => {
      const r = await run(`python3 ${join(FIXTURES, 'broken', file)}`, [
        '--suite',
        'calling,tasks,schema',
        '--timeout',
        '5000',
        ...(want.args ?? []),
      ]);
      const [caseId] = Object.keys(want.flagged).filter((id) => id.startsWith('tasks/'));
      expect(r.c(caseId!).message).toMatch(want.message);
      const flagged = Object.fromEntries(
        r.report.suites
          .flatMap((s) => s.cases)
          .filter((c) => c.verdict === 'fail' || c.verdict === 'warn')
          .map((c) => [c.id, c.verdict]),
      );
      expect(flagged).toEqual(want.flagged);
      expect(r.code).toBe(1);
      // Where the defect is in a message's shape, the extension's own schema rejects that message too.
      const results = (method: string) =>
        sent(r, method)
          .filter(declares)
          .map((m) => (answerTo(r, m).json as { result?: unknown }).result)
          .filter((x) => x !== undefined);
      if (file === 'task-handle-incomplete.py')
        expect(results('tools/call').map((x) => CreateTaskResultV2Schema.safeParse(x).success)).toContain(false);
      if (file === 'task-completed-no-result.py')
        expect(results('tasks/get').map((x) => GetTaskResultV2Schema.safeParse(x).success)).toContain(false);
    },
    60_000,
  );
});
