/**
 * Tasks (2025-11-25, experimental): one task followed end to end (task-augmented tools/call, tasks/get until
 * terminal, tasks/result), tasks/list, and tasks/cancel on a second task — only with a tool the call policy allows.
 * https://modelcontextprotocol.io/specification/2025-11-25/basic/utilities/tasks
 *
 * 2026-07-28: tasks are the io.modelcontextprotocol/tasks extension (the tasks/extension/* cases): a tools/call that
 * declares the extension may be answered with a task handle, followed with tasks/get until terminal; tasks/cancel on
 * a second one; tasks/get of an unknown task and without the extension; no task handle to a call without it.
 * https://modelcontextprotocol.github.io/ext-tasks/specification/2026-07-28/tasks.html
 */
import { generateArguments } from '../core/args/arguments.js';
import type { CaseContext, CaseDef, Outcome, Suite, ToolCallRecord } from '../core/suite.js';
import {
  callToolAsTask,
  followExtensionTask,
  isTaskHandle,
  requestDeclaresTasks,
  taskCallsUnsupported,
  taskShapeProblems,
  tasksExtensionMeta,
  TASKS_EXTENSION,
  TERMINAL_TASK_STATUSES,
  type ExtensionTask,
} from '../core/tasks.js';
import type { Tool } from '../core/tools.js';
import { randomUUID } from 'node:crypto';
import { callPlan, callTool } from '../core/call-policy.js';
import { asObject as obj } from '../core/objects.js';
import type { Service } from '../core/services.js';
import type { Reply } from '../core/session.js';
import { brief, contentSummary, describeError, isObject, unanswered } from './helpers.js';

/** A tool that may be called and takes task augmentation (required: plan.tasks; optional: a plain-callable tool). */
async function taskTool(ctx: CaseContext): Promise<Tool | string> {
  const why = taskCallsUnsupported(ctx.version, ctx.capabilities);
  if (why) return why.startsWith('protocol') ? why : `not run: ${why}`;
  const plan = await ctx.service(callPlan);
  const optional = plan.call.find((t) => isObject(t.execution) && t.execution.taskSupport === 'optional');
  const tool = plan.tasks[0] ?? optional;
  return (
    tool ??
    'no callable tool supports tasks (execution.taskSupport "required" or "optional" on a tool the call policy allows)'
  );
}

function tasksCap(ctx: CaseContext, key: 'list' | 'cancel'): boolean {
  const t = ctx.capabilities.tasks;
  return isObject(t) && t[key] !== undefined;
}

/** The first task the lifecycle case followed (tasks/list looks for it): a per-run value. */
const followedTask: Service<{ id?: string }> = { id: 'tasks-followed', produce: async () => ({}) };

/* 2026-07-28: the io.modelcontextprotocol/tasks extension. */

const EXT_SPEC = 'https://modelcontextprotocol.github.io/ext-tasks/specification/2026-07-28/tasks.html';
/** How many callable tools are tried (each called once, declaring the extension) before concluding no call gets a task. */
const MAX_TOOLS_TRIED = 3;

interface ExtensionProbe {
  /** Why nothing was tried (no callable tool). */
  none?: string;
  /** The calls made, declaring the extension, in order (up to the first answered with a task handle). */
  tried: { tool: Tool; args: unknown; rec: ToolCallRecord }[];
  /** The call answered with a task handle, and the task followed. */
  tool?: Tool;
  args?: unknown;
  handle?: Record<string, unknown>;
  followed?: ExtensionTask;
}

/**
 * One task of the extension, made once per run for the tasks/extension/* cases: callable tools (the call policy's
 * plan, read-only ones by default) are called in turn, each declaring the extension in its own client capabilities,
 * until one is answered with a task handle; that task is followed with tasks/get within --timeout.
 */
const extensionProbe: Service<ExtensionProbe> = {
  id: 'tasks-extension-probe',
  async produce(ctx) {
    const plan = await ctx.service(callPlan);
    if (!plan.call.length)
      return {
        none: 'no callable tool: the call policy allows none of the listed tools (--call-tools, --call-tool)',
        tried: [],
      };
    const out: ExtensionProbe = { tried: [] };
    for (const tool of plan.call.slice(0, MAX_TOOLS_TRIED)) {
      const args = generateArguments(tool.inputSchema).value;
      const rec = await callTool(ctx, tool.name, args, 'task-extension', {
        params: { name: tool.name, arguments: args, _meta: tasksExtensionMeta(ctx.session) },
      });
      out.tried.push({ tool, args, rec });
      if (rec.failure) break;
      const result = rec.reply?.result;
      if (result && isTaskHandle(result)) {
        Object.assign(out, { tool, args, handle: result });
        if (typeof result.taskId === 'string' && result.taskId !== '')
          out.followed = await followExtensionTask(ctx.session, result, {
            timeoutMs: ctx.timeoutMs,
            cancelOnTimeout: true,
          });
        break;
      }
    }
    return out;
  },
};

function callIds(p: ExtensionProbe): number[] {
  return p.tried.flatMap((t) => (t.rec.reply ? [t.rec.reply.request.seq, t.rec.reply.response.seq] : []));
}

function describeTried(p: ExtensionProbe): string {
  return p.tried
    .map((t) => {
      const r = t.rec.reply;
      if (!r) return `${t.tool.name}: no answer`;
      if (r.error) return `${t.tool.name}: error ${describeError(r.error)}`;
      return `${t.tool.name}: a plain result (resultType ${brief(r.result?.resultType, 30)}, ${contentSummary(r.result?.content)})`;
    })
    .join('; ');
}

/** The extension's cases need the server's declaration and a task; undefined when they can go on. */
const extensionCases: CaseDef[] = [
  {
    id: 'tasks/extension/lifecycle',
    title: 'a tools/call that declares the tasks extension: a task handle is followed with tasks/get to its result',
    level: 'MUST',
    spec: `${EXT_SPEC}#task-creation`,
    requirement: `When the server declares the ${TASKS_EXTENSION} extension, a callable tool (read-only ones by default; up to ${MAX_TOOLS_TRIED} tried) is called declaring the extension in the request's own client capabilities. The server decides per request: a plain result is fine (reported as info). A task handle has resultType "task", a taskId, a status, createdAt, lastUpdatedAt and ttlMs; tasks/get (polled at the task's pollIntervalMs, kept within 50…2000 ms, until --timeout) answers it with resultType "complete" from the first poll on, until a terminal status: "completed" carries the tool's result, "failed" the JSON-RPC error. An "input_required" task is answered with tasks/update carrying the canned answers of --client-capabilities (acknowledged with an empty result, then polled on; up to 3 times); input the harness may not give leaves it not exercisable (info).`,
    requires: { from: '2026-07-28', capability: 'tools', extension: TASKS_EXTENSION },
    async run(ctx): Promise<Outcome> {
      const p = await ctx.service(extensionProbe);
      if (p.none) return { verdict: 'skip', message: p.none };
      const ids = callIds(p);
      const last = p.tried.at(-1)!;
      if (last.rec.failure)
        return {
          ...unanswered(last.rec.failure),
          messageIds: ids.length ? ids : unanswered(last.rec.failure).messageIds,
        };
      if (!p.handle) {
        const errors = p.tried.filter((t) => t.rec.reply?.error).length;
        if (errors === p.tried.length)
          return {
            verdict: 'skip',
            messageIds: ids,
            message: `not exercised: every tools/call declaring the extension was answered with an error (${describeTried(p)}), so no task was made`,
          };
        return {
          verdict: 'info',
          messageIds: ids,
          message: `${p.tried.length} tools/call declaring the extension, none answered with a task handle (${describeTried(p)}): the server decides per request whether to make a task, so no task could be followed`,
        };
      }
      const rounds = last.rec.mrtr ? last.rec.mrtr.rounds.length - 1 : 0;
      const sent = `tools/call ${p.tool!.name} declaring the extension (arguments ${brief(p.args, 80)})${rounds ? `, after ${rounds} input_required round(s) answered (${last.rec.mrtr!.answered.flat().join('; ')}),` : ''}`;
      const bad = taskShapeProblems(p.handle, 'task');
      if (bad.length)
        return {
          verdict: 'fail',
          messageIds: ids,
          message: `${sent} was answered with a malformed task handle: ${bad.join('; ')} (${brief(p.handle, 200)})`,
        };
      const f = p.followed!;
      const mids = [...ids, ...f.messageIds];
      if (f.failure) return { ...unanswered(f.failure), messageIds: mids };
      const created = `${sent} was answered with task ${f.taskId} ("${String(p.handle.status)}"${p.handle.pollIntervalMs !== undefined ? `, pollIntervalMs ${String(p.handle.pollIntervalMs)}` : ''})`;
      if (f.problems.length)
        return { verdict: 'fail', messageIds: mids, message: `${created}; ${f.problems.join('; ')}` };
      const polls = `${f.polls.length} tasks/get (waits ${f.waits.join(', ')} ms)${f.updates.length ? `, ${f.updates.length} tasks/update giving the input it asked for (${f.updates.flatMap((u) => u.answered).join('; ')})` : ''}`;
      if (f.unfinished) {
        if (f.status === 'input_required')
          return { verdict: 'info', messageIds: mids, message: `${created}; after ${polls}: ${f.unfinished}` };
        return {
          verdict: 'skip',
          messageIds: mids,
          message: `not judged: ${created}; ${f.unfinished}${f.cancel ? `; tasks/cancel was sent (${f.cancel.error ? `error ${describeError(f.cancel.error)}` : 'acknowledged'})` : ''} (--timeout raises the bound)`,
        };
      }
      const t = f.last;
      const outcome =
        f.status === 'completed'
          ? `"completed" with the tool's result (${contentSummary(obj(t.result)?.content)}${obj(t.result)?.isError === true ? ', isError: true' : ''})`
          : f.status === 'failed'
            ? `"failed" with error ${describeError(t.error as never)}`
            : `"${f.status}"`;
      return { verdict: 'pass', messageIds: mids, message: `${created}; ${polls} until ${outcome}` };
    },
  },
  {
    id: 'tasks/extension/cancel',
    title: 'tasks/cancel of a task in flight is acknowledged',
    level: 'MUST',
    spec: `${EXT_SPEC}#task-cancellation`,
    requirement:
      'The tool that was answered with a task is called again declaring the extension; when that too is answered with a task handle, tasks/cancel of it (sent at once) is acknowledged with an empty result of resultType "complete". Cancelling is cooperative: the task may still finish otherwise, which is reported, not judged. An error for a task already terminal when created warns; for a task in flight it fails.',
    requires: { from: '2026-07-28', capability: 'tools', extension: TASKS_EXTENSION },
    async run(ctx): Promise<Outcome> {
      const p = await ctx.service(extensionProbe);
      if (p.none) return { verdict: 'skip', message: p.none };
      if (!p.handle || !p.tool)
        return {
          verdict: 'skip',
          message:
            'no tools/call was answered with a task handle (see tasks/extension/lifecycle), so there is no task to cancel',
        };
      const meta = tasksExtensionMeta(ctx.session);
      const rec = await callTool(ctx, p.tool.name, p.args, 'task-extension', {
        params: { name: p.tool.name, arguments: p.args, _meta: meta },
      });
      if (rec.failure) return unanswered(rec.failure);
      const create = rec.reply!;
      const ids = [create.request.seq, create.response.seq];
      const task = create.result;
      if (!task || !isTaskHandle(task) || typeof task.taskId !== 'string') {
        return {
          verdict: 'skip',
          messageIds: ids,
          message: `not exercised: the second tools/call ${p.tool.name} declaring the extension was answered with ${create.error ? `error ${describeError(create.error)}` : `a plain result (${brief(task, 100)})`}, not a task (the server decides per request)`,
        };
      }
      const wasTerminal = (TERMINAL_TASK_STATUSES as readonly string[]).includes(String(task.status));
      let cancel, after;
      try {
        cancel = await ctx.session.request('tasks/cancel', { taskId: task.taskId, _meta: meta });
      } catch (e) {
        return { ...unanswered(e as Error), messageIds: ids };
      }
      ids.push(cancel.request.seq, cancel.response.seq);
      const sent = `tasks/cancel of task ${task.taskId} (${p.tool.name}, created "${String(task.status)}")`;
      if (cancel.error) {
        if (wasTerminal)
          return {
            verdict: 'warn',
            messageIds: ids,
            message: `${sent} was answered with error ${describeError(cancel.error)}; the task was already terminal, yet the spec asks for an acknowledgement (cancelling is cooperative)`,
          };
        return {
          verdict: 'fail',
          messageIds: ids,
          message: `${sent} was answered with error ${describeError(cancel.error)} instead of an empty acknowledgement (resultType "complete")`,
        };
      }
      if (cancel.result?.resultType !== 'complete')
        return {
          verdict: 'fail',
          messageIds: ids,
          message: `${sent} was acknowledged with ${brief(cancel.result, 120)}: the acknowledgement must have resultType "complete"`,
        };
      // What became of it (reported, not judged: cancelling is eventually consistent).
      try {
        after = await ctx.session.request('tasks/get', { taskId: task.taskId, _meta: meta });
        ids.push(after.request.seq, after.response.seq);
      } catch {
        /* reported below as unknown */
      }
      const then = after?.result
        ? `; tasks/get then said "${String(after.result.status)}"`
        : after?.error
          ? `; tasks/get then answered error ${describeError(after.error)}`
          : '';
      return { verdict: 'pass', messageIds: ids, message: `${sent} was acknowledged (resultType "complete")${then}` };
    },
  },
  {
    id: 'tasks/extension/unknown-task',
    title: 'tasks/get of an unknown taskId is refused with -32602 (tasks/update and tasks/cancel should be too)',
    level: 'MUST',
    spec: `${EXT_SPEC}#protocol-errors`,
    requirement:
      'tasks/get (declaring the extension) of a taskId the server never issued is answered with error -32602 (invalid params): a MUST. tasks/update and tasks/cancel of it should be refused the same way (a SHOULD: an acknowledgement or another code warns).',
    requires: { from: '2026-07-28', extension: TASKS_EXTENSION },
    async run(ctx): Promise<Outcome> {
      const taskId = `mcp-conform-unknown-${randomUUID()}`;
      const meta = tasksExtensionMeta(ctx.session);
      const messageIds: number[] = [];
      const got: Partial<Record<'tasks/get' | 'tasks/update' | 'tasks/cancel', Reply>> = {};
      for (const [method, extra] of [
        ['tasks/get', {}],
        ['tasks/update', { inputResponses: {} }],
        ['tasks/cancel', {}],
      ] as const) {
        try {
          got[method] = await ctx.session.request(method, { taskId, ...extra, _meta: meta });
        } catch (e) {
          return { ...unanswered(e as Error), messageIds };
        }
        messageIds.push(got[method]!.request.seq, got[method]!.response.seq);
      }
      const said = (r: Reply) =>
        r.error ? `with error ${describeError(r.error)}` : `a result (${brief(r.result, 80)})`;
      const get = got['tasks/get']!;
      const sent = `tasks/get of the unknown taskId "${taskId}"`;
      if (get.error?.code !== -32602)
        return {
          verdict: 'fail',
          messageIds,
          message: `${sent} answered ${said(get)}; the extension requires -32602 (invalid params) for a taskId it does not know`,
        };
      const soft = (['tasks/update', 'tasks/cancel'] as const).filter((m) => got[m]!.error?.code !== -32602);
      if (soft.length)
        return {
          verdict: 'warn',
          messageIds,
          message: `${sent} answered with error ${describeError(get.error)}, but ${soft.map((m) => `${m} of it answered ${said(got[m]!)}`).join('; ')}: the extension asks for -32602 there too (a SHOULD)`,
        };
      return {
        verdict: 'pass',
        messageIds,
        message: `tasks/get, tasks/update and tasks/cancel of the unknown taskId "${taskId}" each answered with error -32602 (${describeError(get.error)})`,
      };
    },
  },
  {
    id: 'tasks/extension/capability-required',
    title:
      'tasks/get, tasks/update and tasks/cancel from a request that does not declare the extension are refused with -32021',
    level: 'MUST',
    spec: `${EXT_SPEC}#protocol-errors`,
    requirement:
      "tasks/get, tasks/update (with an empty inputResponses) and tasks/cancel of the task followed by tasks/extension/lifecycle, each sent without the extension in the request's client capabilities, are answered with error -32021 (missing required client capability), whose data.requiredCapabilities names what is missing (when it does not name the extension: warn).",
    requires: { from: '2026-07-28', capability: 'tools', extension: TASKS_EXTENSION },
    async run(ctx): Promise<Outcome> {
      const p = await ctx.service(extensionProbe);
      const taskId = p.followed?.taskId;
      if (!taskId)
        return {
          verdict: 'skip',
          message:
            p.none ??
            'no tools/call was answered with a task handle (see tasks/extension/lifecycle), so there is no task to ask about',
        };
      const messageIds: number[] = [];
      const bad: string[] = [];
      const unnamed: string[] = [];
      for (const [method, extra] of [
        ['tasks/get', {}],
        ['tasks/update', { inputResponses: {} }],
        ['tasks/cancel', {}],
      ] as const) {
        let reply;
        try {
          reply = await ctx.session.request(method, { taskId, ...extra });
        } catch (e) {
          return { ...unanswered(e as Error), messageIds };
        }
        messageIds.push(reply.request.seq, reply.response.seq);
        if (reply.result) {
          bad.push(`${method} was served (${brief(reply.result, 80)})`);
          continue;
        }
        const e = reply.error!;
        if (e.code !== -32021) {
          bad.push(`${method} answered error ${describeError(e)}`);
          continue;
        }
        const required = obj(obj(e.data)?.requiredCapabilities);
        if (!required) {
          bad.push(`${method} answered error -32021 without data.requiredCapabilities (data: ${brief(e.data, 60)})`);
          continue;
        }
        if (!obj(obj(required.extensions)?.[TASKS_EXTENSION])) unnamed.push(`${method} (${brief(required, 60)})`);
      }
      const sent = `tasks/get, tasks/update and tasks/cancel of task ${taskId} without the extension in the request's client capabilities`;
      if (bad.length)
        return {
          verdict: 'fail',
          messageIds,
          message: `${sent}: ${bad.join('; ')}; the extension requires error -32021 (missing required client capability) with data.requiredCapabilities`,
        };
      if (unnamed.length)
        return {
          verdict: 'warn',
          level: 'SHOULD',
          messageIds,
          message: `${sent} answered error -32021, but data.requiredCapabilities does not name the ${TASKS_EXTENSION} extension: ${unnamed.join('; ')}`,
        };
      return {
        verdict: 'pass',
        messageIds,
        message: `${sent}: each answered with error -32021 naming the ${TASKS_EXTENSION} extension`,
      };
    },
  },
  {
    id: 'tasks/extension/not-undeclared',
    title: 'no task handle answers a tools/call that did not declare the extension',
    level: 'MUST',
    spec: `${EXT_SPEC}#capability-negotiation`,
    requirement:
      'A tools/call whose client capabilities do not list the extension is never answered with a task handle (resultType "task"): every such call of the run is looked at; when the tool that was answered with a task has no such call yet, it is called once without the extension.',
    requires: { from: '2026-07-28', capability: 'tools', extension: TASKS_EXTENSION },
    async run(ctx): Promise<Outcome> {
      const p = await ctx.service(extensionProbe);
      const plainCalls = () => {
        const bySeq = new Map(ctx.session.log.map((m) => [m.seq, m]));
        return ctx.session.log
          .filter(
            (m) =>
              m.direction === 'from-server' &&
              m.kind === 'response' &&
              m.method === 'tools/call' &&
              m.inReplyTo !== undefined,
          )
          .map((m) => ({ req: bySeq.get(m.inReplyTo!), res: m }))
          .filter((x) => x.req !== undefined && !requestDeclaresTasks(x.req.json)) as {
          req: (typeof ctx.session.log)[number];
          res: (typeof ctx.session.log)[number];
        }[];
      };
      const nameOf = (m: { json?: unknown }) => String(obj(obj(m.json)?.params)?.name ?? '(no name)');
      if (p.tool && !plainCalls().some((x) => nameOf(x.req) === p.tool!.name)) {
        const rec = await callTool(ctx, p.tool.name, p.args, 'task-extension-plain');
        if (rec.failure) return unanswered(rec.failure);
      }
      const calls = plainCalls();
      if (!calls.length)
        return { verdict: 'skip', message: 'no tools/call without the extension was answered in this run' };
      const handles = calls.filter((x) => isTaskHandle(obj(x.res.json)?.result));
      if (handles.length)
        return {
          verdict: 'fail',
          messageIds: handles.flatMap((x) => [x.req.seq, x.res.seq]),
          message: `${handles.length} of ${calls.length} tools/call without the extension in their client capabilities were answered with a task handle (${[...new Set(handles.map((x) => nameOf(x.req)))].slice(0, 5).join(', ')}): a server may answer a task only to a request that declares the extension`,
        };
      return {
        verdict: 'pass',
        message: `${calls.length} tools/call without the extension, none answered with a task handle${p.tool ? ` (${p.tool.name} among them, which answered a task when the extension was declared)` : ''}`,
      };
    },
  },
  {
    id: 'tasks/extension/legacy-removed',
    title: 'the 2025-11-25 tasks surface is gone: no tasks/result, no legacy capabilities, a task param is no opt-in',
    level: 'SHOULD',
    spec: `${EXT_SPEC}#supported-methods`,
    requirement: `Under the extension the 2025-11-25 experimental tasks are gone: tasks/result (sent declaring the extension) is answered with -32601 (method not found); server/discover declares no legacy capabilities.tasks (tasks.requests, tasks.cancel, tasks.list); and a tools/call carrying the 2025-11-25 \`task\` parameter but not the extension is not made a task by it (no resultType "task", no 2025-style \`task\` object) — one callable tool, the one that answered a task if any. These rules are MUSTs of SEP-2663's backward-compatibility table, not of the extension's specification page, so a breach warns.`,
    requires: { from: '2026-07-28', extension: TASKS_EXTENSION },
    async run(ctx): Promise<Outcome> {
      const messageIds: number[] = [];
      const bad: string[] = [];
      const good: string[] = [];
      let r: Reply;
      try {
        r = await ctx.session.request('tasks/result', {
          taskId: `mcp-conform-unknown-${randomUUID()}`,
          _meta: tasksExtensionMeta(ctx.session),
        });
      } catch (e) {
        return unanswered(e as Error);
      }
      messageIds.push(r.request.seq, r.response.seq);
      if (r.error?.code === -32601) good.push('tasks/result answered -32601');
      else
        bad.push(
          `tasks/result answered ${r.error ? `error ${describeError(r.error)}` : `a result (${brief(r.result, 80)})`}, not -32601 (method not found)`,
        );
      if (ctx.capabilities.tasks !== undefined)
        bad.push(`server/discover declares the legacy capabilities.tasks ${brief(ctx.capabilities.tasks, 80)}`);
      else good.push('no legacy capabilities.tasks');
      const p = await ctx.service(extensionProbe);
      const plan = await ctx.service(callPlan);
      const tool = p.tool ?? plan.call[0];
      if (tool) {
        const args = p.tool ? p.args : generateArguments(tool.inputSchema).value;
        const rec = await callTool(ctx, tool.name, args, 'task-extension-legacy-param', {
          params: { name: tool.name, arguments: args, task: { ttl: 60_000 } },
        });
        if (rec.failure) return { ...unanswered(rec.failure), messageIds };
        messageIds.push(...(rec.reply ? [rec.reply.request.seq, rec.reply.response.seq] : []));
        const res = rec.reply?.result;
        if (res && (isTaskHandle(res) || isObject(res.task)))
          bad.push(
            `tools/call ${tool.name} with the 2025-11-25 task parameter and without the extension was answered with a task (${brief(res, 100)})`,
          );
        else
          good.push(
            `tools/call ${tool.name} with a task parameter and without the extension answered ${rec.reply?.error ? `error ${describeError(rec.reply.error)}` : 'a plain result'}`,
          );
      }
      if (bad.length)
        return {
          verdict: 'warn',
          messageIds,
          message: `${bad.join('; ')} (SEP-2663 removes these from the extension)`,
        };
      return {
        verdict: 'pass',
        messageIds,
        message: `${good.join('; ')}${tool ? '' : ' (no callable tool to send a task parameter to)'}`,
      };
    },
  },
];

export const tasks: Suite = {
  id: 'tasks',
  title: 'Tasks',
  description:
    'a task-augmented tools/call followed to its result, tasks/list, tasks/cancel (2025-11-25); the io.modelcontextprotocol/tasks extension (2026-07-28)',
  cases: [
    {
      id: 'tasks/lifecycle',
      title: 'a task is created, reaches a terminal status, and tasks/result answers its outcome',
      level: 'MUST',
      spec: 'basic/utilities/tasks',
      requirement:
        "A task-augmented tools/call (params.task) is answered with a CreateTaskResult; tasks/get reports the status until it is terminal (completed, failed, cancelled) within --timeout; tasks/result then answers the tool's result (or its error).",
      requires: { capability: 'tasks', until: '2026-07-28' },
      async run(ctx) {
        const tool = await taskTool(ctx);
        if (typeof tool === 'string') return { verdict: 'skip', message: tool };
        const args = generateArguments(tool.inputSchema).value;
        const t = await callToolAsTask(ctx.session, tool.name, args, {
          timeoutMs: ctx.timeoutMs,
          cancelOnTimeout: tasksCap(ctx, 'cancel'),
        });
        const sent = `tools/call ${tool.name} as a task (arguments ${brief(args, 80)})`;
        if (t.failure) return { ...unanswered(t.failure), messageIds: t.messageIds };
        if (t.problem) return { verdict: 'fail', messageIds: t.messageIds, message: `${sent}: ${t.problem}` };
        if (t.taskId) (await ctx.service(followedTask)).id = t.taskId;
        const r = t.result!;
        const outcome = r.error ? `error ${describeError(r.error)}` : `a result (${brief(r.result, 100)})`;
        return {
          verdict: 'pass',
          messageIds: t.messageIds,
          message: `${sent}: task ${t.taskId} was "${t.status}" after ${t.polls.length} tasks/get; tasks/result answered ${outcome}`,
        };
      },
    },
    {
      id: 'tasks/list',
      title: 'tasks/list answers the tasks, when tasks.list is declared',
      level: 'MUST',
      spec: 'basic/utilities/tasks',
      requirement:
        'A server that declares tasks.list answers tasks/list with a tasks array (each with a taskId and a status).',
      requires: { capability: 'tasks', until: '2026-07-28' },
      async run(ctx) {
        const why = taskCallsUnsupported(ctx.version, ctx.capabilities);
        if (why?.startsWith('protocol')) return { verdict: 'skip', message: why };
        if (!tasksCap(ctx, 'list')) return { verdict: 'skip', message: 'the server did not declare tasks.list' };
        let reply;
        try {
          reply = await ctx.session.request('tasks/list');
        } catch (e) {
          return unanswered(e as Error);
        }
        const messageIds = [reply.request.seq, reply.response.seq];
        if (reply.error)
          return {
            verdict: 'fail',
            messageIds,
            message: `tasks/list answered with error ${describeError(reply.error)} although the server declared tasks.list`,
          };
        const list = reply.result?.tasks;
        if (!Array.isArray(list))
          return {
            verdict: 'fail',
            messageIds,
            message: `tasks/list result has no tasks array (got ${brief(list, 80)})`,
          };
        const bad = list.filter((x) => !isObject(x) || typeof x.taskId !== 'string' || typeof x.status !== 'string');
        if (bad.length)
          return {
            verdict: 'fail',
            messageIds,
            message: `${bad.length} entries of tasks lack a taskId or status, e.g. ${brief(bad[0])}`,
          };
        const mine = (await ctx.service(followedTask)).id;
        const has = mine !== undefined && list.some((x) => (x as { taskId: string }).taskId === mine);
        return {
          verdict: 'pass',
          messageIds,
          message: `tasks/list answered ${list.length} task${list.length === 1 ? '' : 's'}${mine ? (has ? `, the followed task ${mine} among them` : ` (the followed task ${mine} is not among them: it may have expired or the list may be paged)`) : ''}`,
        };
      },
    },
    {
      id: 'tasks/cancel',
      title: 'tasks/cancel cancels a task in flight, when tasks.cancel is declared',
      level: 'MUST',
      spec: 'basic/utilities/tasks',
      requirement:
        'A server that declares tasks.cancel answers tasks/cancel of a second task, sent right after it was created, with the task in status "cancelled" — or, when the task had already finished, with error -32602 (a terminal task cannot be cancelled).',
      requires: { capability: 'tasks', until: '2026-07-28' },
      async run(ctx): Promise<Outcome> {
        const tool = await taskTool(ctx);
        if (typeof tool === 'string') return { verdict: 'skip', message: tool };
        if (!tasksCap(ctx, 'cancel')) return { verdict: 'skip', message: 'the server did not declare tasks.cancel' };
        const args = generateArguments(tool.inputSchema).value;
        let create, cancel;
        try {
          create = await ctx.session.request('tools/call', {
            name: tool.name,
            arguments: args,
            task: { ttl: ctx.timeoutMs + 60_000 },
          });
        } catch (e) {
          return unanswered(e as Error);
        }
        const ids = [create.request.seq, create.response.seq];
        const task = isObject(create.result?.task) ? (create.result!.task as Record<string, unknown>) : undefined;
        if (create.error || typeof task?.taskId !== 'string')
          return {
            verdict: 'fail',
            messageIds: ids,
            message: `the task-augmented tools/call ${tool.name} was not answered with a task (${create.error ? describeError(create.error) : brief(create.result, 100)})`,
          };
        const wasTerminal = (TERMINAL_TASK_STATUSES as readonly string[]).includes(String(task.status));
        try {
          cancel = await ctx.session.request('tasks/cancel', { taskId: task.taskId });
        } catch (e) {
          return { ...unanswered(e as Error), messageIds: ids };
        }
        ids.push(cancel.request.seq, cancel.response.seq);
        const sent = `tasks/cancel of task ${task.taskId} (${tool.name}, created "${String(task.status)}")`;
        if (cancel.error) {
          if (cancel.error.code === -32602)
            return {
              verdict: 'pass',
              messageIds: ids,
              message: `${sent} answered ${describeError(cancel.error)}: the task had already finished${wasTerminal ? '' : ' (it was not terminal when created, so it finished in between)'}`,
            };
          return {
            verdict: 'fail',
            messageIds: ids,
            message: `${sent} answered with error ${describeError(cancel.error)}`,
          };
        }
        const status = cancel.result?.status;
        if (status === 'cancelled')
          return { verdict: 'pass', messageIds: ids, message: `${sent} answered the task with status "cancelled"` };
        return {
          verdict: 'fail',
          messageIds: ids,
          message: `${sent} answered status ${brief(status, 40)} instead of "cancelled" (or error -32602 for a task already finished)`,
        };
      },
    },
    ...extensionCases,
  ],
};
