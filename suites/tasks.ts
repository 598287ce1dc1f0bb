/**
 * Tasks (2025-11-25, experimental): one task followed end to end (task-augmented tools/call, tasks/get until
 * terminal, tasks/result), tasks/list, and tasks/cancel on a second task — only with a tool the call policy allows.
 * https://modelcontextprotocol.io/specification/2025-11-25/basic/utilities/tasks
 * In 2026-07-28 tasks are the io.modelcontextprotocol/tasks extension, which these cases do not speak (skipped).
 */
import { generateArguments } from '../core/args/arguments.js';
import type { CaseContext, Outcome, Suite } from '../core/suite.js';
import { callToolAsTask, taskCallsUnsupported, TERMINAL_TASK_STATUSES } from '../core/tasks.js';
import type { Tool } from '../core/tools.js';
import { callPlan } from '../core/call-policy.js';
import type { Service } from '../core/services.js';
import { brief, describeError, isObject, unanswered } from './helpers.js';

/** A tool that may be called and takes task augmentation (required: plan.tasks; optional: a plain-callable tool). */
async function taskTool(ctx: CaseContext): Promise<Tool | string> {
  const why = taskCallsUnsupported(ctx.version, ctx.capabilities);
  if (why) return why.startsWith('protocol') ? why : `not run: ${why}`;
  const plan = await ctx.service(callPlan);
  const optional = plan.call.find((t) => isObject(t.execution) && t.execution.taskSupport === 'optional');
  const tool = plan.tasks[0] ?? optional;
  return tool ?? 'no callable tool supports tasks (execution.taskSupport "required" or "optional" on a tool the call policy allows)';
}

function tasksCap(ctx: CaseContext, key: 'list' | 'cancel'): boolean {
  const t = ctx.capabilities.tasks;
  return isObject(t) && t[key] !== undefined;
}

/** The first task the lifecycle case followed (tasks/list looks for it): a per-run value. */
const followedTask: Service<{ id?: string }> = { id: 'tasks-followed', produce: async () => ({}) };

export const tasks: Suite = {
  id: 'tasks',
  title: 'Tasks',
  description: 'a task-augmented tools/call followed to its result, tasks/list, tasks/cancel (2025-11-25)',
  cases: [
    {
      id: 'tasks/lifecycle',
      title: 'a task is created, reaches a terminal status, and tasks/result answers its outcome',
      level: 'MUST',
      spec: 'basic/utilities/tasks',
      requirement: 'A task-augmented tools/call (params.task) is answered with a CreateTaskResult; tasks/get reports the status until it is terminal (completed, failed, cancelled) within --timeout; tasks/result then answers the tool\'s result (or its error).',
      // applies: from 2025-11-25 until 2025-11-25, capability tasks.requests.tools.call
      requires: { capability: 'tasks' },
      async run(ctx) {
        const tool = await taskTool(ctx);
        if (typeof tool === 'string') return { verdict: 'skip', message: tool };
        const args = generateArguments(tool.inputSchema).value;
        const t = await callToolAsTask(ctx.session, tool.name, args, { timeoutMs: ctx.timeoutMs, cancelOnTimeout: tasksCap(ctx, 'cancel') });
        const sent = `tools/call ${tool.name} as a task (arguments ${brief(args, 80)})`;
        if (t.failure) return { ...unanswered(t.failure), messageIds: t.messageIds };
        if (t.problem) return { verdict: 'fail', messageIds: t.messageIds, message: `${sent}: ${t.problem}` };
        if (t.taskId) (await ctx.service(followedTask)).id = t.taskId;
        const r = t.result!;
        const outcome = r.error ? `error ${describeError(r.error)}` : `a result (${brief(r.result, 100)})`;
        return { verdict: 'pass', messageIds: t.messageIds, message: `${sent}: task ${t.taskId} was "${t.status}" after ${t.polls.length} tasks/get; tasks/result answered ${outcome}` };
      },
    },
    {
      id: 'tasks/list',
      title: 'tasks/list answers the tasks, when tasks.list is declared',
      level: 'MUST',
      spec: 'basic/utilities/tasks',
      requirement: 'A server that declares tasks.list answers tasks/list with a tasks array (each with a taskId and a status).',
      // applies: 2025-11-25, capability tasks.list
      requires: { capability: 'tasks' },
      async run(ctx) {
        const why = taskCallsUnsupported(ctx.version, ctx.capabilities);
        if (why?.startsWith('protocol')) return { verdict: 'skip', message: why };
        if (!tasksCap(ctx, 'list')) return { verdict: 'skip', message: 'the server did not declare tasks.list' };
        let reply;
        try { reply = await ctx.session.request('tasks/list'); } catch (e) { return unanswered(e as Error); }
        const messageIds = [reply.request.seq, reply.response.seq];
        if (reply.error) return { verdict: 'fail', messageIds, message: `tasks/list answered with error ${describeError(reply.error)} although the server declared tasks.list` };
        const list = reply.result?.tasks;
        if (!Array.isArray(list)) return { verdict: 'fail', messageIds, message: `tasks/list result has no tasks array (got ${brief(list, 80)})` };
        const bad = list.filter((x) => !isObject(x) || typeof x.taskId !== 'string' || typeof x.status !== 'string');
        if (bad.length) return { verdict: 'fail', messageIds, message: `${bad.length} entries of tasks lack a taskId or status, e.g. ${brief(bad[0])}` };
        const mine = (await ctx.service(followedTask)).id;
        const has = mine !== undefined && list.some((x) => (x as { taskId: string }).taskId === mine);
        return { verdict: 'pass', messageIds, message: `tasks/list answered ${list.length} task${list.length === 1 ? '' : 's'}${mine ? (has ? `, the followed task ${mine} among them` : ` (the followed task ${mine} is not among them: it may have expired or the list may be paged)`) : ''}` };
      },
    },
    {
      id: 'tasks/cancel',
      title: 'tasks/cancel cancels a task in flight, when tasks.cancel is declared',
      level: 'MUST',
      spec: 'basic/utilities/tasks',
      requirement: 'A server that declares tasks.cancel answers tasks/cancel of a second task, sent right after it was created, with the task in status "cancelled" — or, when the task had already finished, with error -32602 (a terminal task cannot be cancelled).',
      // applies: 2025-11-25, capability tasks.cancel
      requires: { capability: 'tasks' },
      async run(ctx): Promise<Outcome> {
        const tool = await taskTool(ctx);
        if (typeof tool === 'string') return { verdict: 'skip', message: tool };
        if (!tasksCap(ctx, 'cancel')) return { verdict: 'skip', message: 'the server did not declare tasks.cancel' };
        const args = generateArguments(tool.inputSchema).value;
        let create, cancel;
        try {
          create = await ctx.session.request('tools/call', { name: tool.name, arguments: args, task: { ttl: ctx.timeoutMs + 60_000 } });
        } catch (e) { return unanswered(e as Error); }
        const ids = [create.request.seq, create.response.seq];
        const task = isObject(create.result?.task) ? create.result!.task as Record<string, unknown> : undefined;
        if (create.error || typeof task?.taskId !== 'string') return { verdict: 'fail', messageIds: ids, message: `the task-augmented tools/call ${tool.name} was not answered with a task (${create.error ? describeError(create.error) : brief(create.result, 100)})` };
        const wasTerminal = (TERMINAL_TASK_STATUSES as readonly string[]).includes(String(task.status));
        try { cancel = await ctx.session.request('tasks/cancel', { taskId: task.taskId }); } catch (e) { return { ...unanswered(e as Error), messageIds: ids }; }
        ids.push(cancel.request.seq, cancel.response.seq);
        const sent = `tasks/cancel of task ${task.taskId} (${tool.name}, created "${String(task.status)}")`;
        if (cancel.error) {
          if (cancel.error.code === -32602) return { verdict: 'pass', messageIds: ids, message: `${sent} answered ${describeError(cancel.error)}: the task had already finished${wasTerminal ? '' : ' (it was not terminal when created, so it finished in between)'}` };
          return { verdict: 'fail', messageIds: ids, message: `${sent} answered with error ${describeError(cancel.error)}` };
        }
        const status = cancel.result?.status;
        if (status === 'cancelled') return { verdict: 'pass', messageIds: ids, message: `${sent} answered the task with status "cancelled"` };
        return { verdict: 'fail', messageIds: ids, message: `${sent} answered status ${brief(status, 40)} instead of "cancelled" (or error -32602 for a task already finished)` };
      },
    },
  ],
};
