/**
 * progress/notifications (a long-running tool called with a progress token) and the tasks suite (2025-11-25: one
 * task end to end, tasks/list, tasks/cancel on a second task), on fixtures and on server-everything.
 */
import { describe, expect, it } from 'vitest';
import { join } from 'node:path';
import { BIN, FIXTURES, py, run } from './helpers/cli.js';

const TASK_SERVER = `python3 ${join(FIXTURES, 'safety', 'task-required.py')}`;

describe('progress', () => {
  it('server-everything: trigger-long-running-operation (read-only) reports increasing progress with the token', async () => {
    const r = await run(`${join(BIN, 'mcp-server-everything')} stdio`, ['--suite', 'progress'], { timeoutMs: 90_000 });
    const c = r.c('progress/notifications');
    expect(c.verdict, c.message).toBe('pass');
    expect(c.message).toMatch(
      /trigger-long-running-operation .*\d+ notifications\/progress with the token, increasing/,
    );
    const call = r.report.messages.find((m) => m.direction === 'to-server' && m.method === 'tools/call')!;
    expect((call.json as { params: { _meta: unknown } }).params._meta).toEqual({
      progressToken: 'mcp-conform-progress-1',
    });
  });

  it('progress that goes down, or comes after the result, is a fail; increasing progress passes', async () => {
    const bad = await run(py('broken/bad-progress.py'), ['--suite', 'progress', '--timeout', '3000']);
    expect(bad.c('progress/notifications').verdict).toBe('fail');
    expect(bad.c('progress/notifications').message).toMatch(
      /progress went from 2 to 1 .*it must increase; 1 notifications\/progress came after the result/,
    );
    const ok = await run(py('broken/bad-progress.py'), [
      '--suite',
      'progress',
      '--timeout',
      '3000',
      '--env',
      'MODE=ok',
    ]);
    expect(ok.c('progress/notifications').verdict).toBe('pass');
  });

  it('a tool the call policy does not allow is not called for progress', async () => {
    const r = await run(py('zoo/slow-tool.py'), ['--suite', 'progress', '--timeout', '5000', '--call-tools', 'none']);
    expect(r.c('progress/notifications').verdict).toBe('skip');
    expect(r.report.messages.some((m) => m.direction === 'to-server' && m.method === 'tools/call')).toBe(false);
  });
});

describe('tasks (2025-11-25)', () => {
  it('a task is followed to its result, listed, and a second one cancelled', async () => {
    const r = await run(TASK_SERVER, ['--suite', 'tasks', '--timeout', '5000']);
    expect(r.c('tasks/lifecycle').verdict, r.c('tasks/lifecycle').message).toBe('pass');
    expect(r.c('tasks/lifecycle').message).toMatch(
      /task task-1 was "completed" after \d+ tasks\/get; tasks\/result answered a result/,
    );
    expect(r.c('tasks/list').message).toMatch(/the followed task task-1 among them/);
    expect(r.c('tasks/cancel').verdict).toBe('pass');
    expect(r.c('tasks/cancel').message).toMatch(/status "cancelled"/);
    expect(r.code).toBe(0);
  });

  it('a task that never finishes fails tasks/lifecycle within the bound, and is cancelled', async () => {
    const r = await run(`${TASK_SERVER} --never-done`, ['--suite', 'tasks', '--timeout', '1500']);
    expect(r.c('tasks/lifecycle').verdict).toBe('fail');
    expect(r.c('tasks/lifecycle').message).toMatch(/still "working" when the bound of 1500 ms ran out/);
    expect(r.report.messages.some((m) => m.direction === 'to-server' && m.method === 'tasks/cancel')).toBe(true);
  });

  it('without the tasks capability the cases are skipped with why; forced to 2025-06-18 they do not apply', async () => {
    const none = await run(`${TASK_SERVER} --no-tasks`, ['--suite', 'tasks', '--timeout', '3000']);
    expect(none.c('tasks/lifecycle').message).toBe('the server did not declare the "tasks" capability');
    const old = await run(TASK_SERVER, ['--suite', 'tasks', '--timeout', '3000', '--protocol-version', '2025-06-18']);
    expect(old.c('tasks/lifecycle').message).toMatch(/^protocol 2025-06-18 has no tasks/);
  });
});
