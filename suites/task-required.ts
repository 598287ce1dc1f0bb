/**
 * Tools with `execution.taskSupport: "required"`: a client MUST call them as tasks, and a server that declares
 * task-augmented tools/call MUST answer a plain call of such a tool with error -32601.
 * https://modelcontextprotocol.io/specification/2025-11-25/basic/utilities/tasks#tool-level-negotiation
 *
 * callAsTasks grades the calling suite's calls of those tools (through core/tasks.ts); taskRequiredPlain is the case
 * of the -32601 rule. Both see only tools the call policy allows (ctx.service(callPlan).tasks): a plain call is made only of
 * a tool the user let the run call, and only where the server declared it takes tools/call as a task.
 */
import { generateArguments } from '../core/args/index.js';
import type { CaseContext, CaseDef, ItemOutcome, ToolCallRecord } from '../core/suite.js';
import { callToolAsTask, type TaskCall } from '../core/tasks.js';
import { tools as toolsService, type Tool } from '../core/tools.js';
import { callTool } from '../core/call-policy.js';
import { callPlan } from '../core/call-policy.js';
import { brief, describeError, ids, isObject, unanswered } from './helpers.js';

/** How the calling suite grades a tool's answer (its gradeCall; passed in, so that this module does not import it). */
export type GradeCall = (
  ctx: CaseContext,
  tool: Tool,
  rec: ToolCallRecord,
  argsNote: string,
) => Omit<ItemOutcome, 'item'>;

/** The calling suite's results for task-required tools: each called as a task and followed to its result. */
export async function callAsTasks(
  ctx: CaseContext,
  tools: readonly Tool[],
  gradeCall: GradeCall,
): Promise<ItemOutcome[]> {
  const out: ItemOutcome[] = [];
  const cancel = isObject(ctx.capabilities.tasks) && ctx.capabilities.tasks.cancel !== undefined;
  for (const tool of tools) {
    if (!ctx.selected(`calling/tool/${tool.name}`)) continue;
    const gen = generateArguments(tool.inputSchema);
    const note = gen.confident ? '' : ` (the generated arguments may not fit: ${gen.notes.join('; ')})`;
    const task = await callToolAsTask(ctx.session, tool.name, gen.value, {
      timeoutMs: ctx.timeoutMs,
      cancelOnTimeout: cancel,
    });
    const rec: ToolCallRecord = {
      method: 'tools/call',
      tool: tool.name,
      purpose: 'task',
      caseId: 'calling/tool',
      ...(task.result ? { reply: task.result } : {}),
      ...(task.failure ? { failure: task.failure } : {}),
    };
    ctx.exchanges.push(rec);
    const details = {
      arguments: gen.value,
      task: { taskId: task.taskId, status: task.status, statusMessage: task.statusMessage, polls: task.polls.length },
      ...(gen.notes.length ? { notes: gen.notes } : {}),
    };
    out.push({
      item: tool.name,
      ...gradeTask(ctx, tool, task, rec, note, gradeCall),
      durationMs: task.durationMs,
      details,
    });
  }
  return out;
}

function gradeTask(
  ctx: CaseContext,
  tool: Tool,
  task: TaskCall,
  rec: ToolCallRecord,
  note: string,
  gradeCall: GradeCall,
): Omit<ItemOutcome, 'item'> {
  const mids = task.messageIds;
  const as = `called as a task (execution.taskSupport is "required")`;
  if (task.failure)
    return { ...unanswered(task.failure), messageIds: mids.length ? mids : unanswered(task.failure).messageIds };
  const create = task.create!;
  if (create.error) {
    // As a plain call answered with an error is graded.
    const g = gradeCall(
      ctx,
      tool,
      { method: 'tools/call', tool: tool.name, purpose: 'task', caseId: rec.caseId, reply: create },
      note,
    );
    return { ...g, message: `${as}: ${g.message}`, messageIds: mids };
  }
  if (task.taskId === undefined) {
    const r = create.result ?? {};
    if (Array.isArray(r.content)) {
      return {
        verdict: 'warn',
        message: `${as}: the task-augmented tools/call was answered with a plain result (${brief(r, 120)}), not a CreateTaskResult, although the server declares capabilities.tasks.requests.tools.call`,
        messageIds: mids,
      };
    }
    return { verdict: 'fail', message: `${as}: ${task.problem}`, messageIds: mids };
  }
  if (!task.result) {
    if (task.polls.at(-1)?.error)
      return {
        verdict: 'fail',
        message: `${as}: ${task.problem} (task ${task.taskId}, which the server created)`,
        messageIds: mids,
      };
    // Still working when the bound ran out: nothing wrong is known; a task may take long.
    return {
      verdict: 'skip',
      message: `not judged: ${as}, ${task.problem}${task.cancel ? '; tasks/cancel was sent' : ''} (--timeout raises the bound)`,
      messageIds: mids,
    };
  }
  const g = gradeCall(ctx, tool, rec, note);
  const how = `${as}: task ${task.taskId} ended "${task.status}" after ${task.polls.length} tasks/get poll${task.polls.length === 1 ? '' : 's'}; tasks/result`;
  return { ...g, message: `${how} ${g.message}`, messageIds: mids };
}

export const taskRequiredPlain: CaseDef = {
  id: 'calling/task-required-plain',
  title: 'a plain call of a task-required tool is refused with -32601',
  level: 'MUST',
  spec: 'basic/utilities/tasks#tool-level-negotiation',
  requirement:
    'For each tool whose execution.taskSupport is "required" (no result when there is none): a server that declares task-augmented tools/call (capabilities.tasks.requests.tools.call) answers a tools/call without params.task of a tool whose execution.taskSupport is "required" with error -32601 (another error code, or a result with isError: true: warn; a success result — the tool ran — fail). Probed only for tools the call policy lets the run call (--call-tools, --call-tool).',
  perItem: 'tool',
  requires: { capability: 'tools' },
  async run(ctx) {
    const plan = await ctx.service(callPlan);
    const required = (await ctx.service(toolsService)).tools.filter(
      (t) => isObject(t.execution) && t.execution.taskSupport === 'required',
    );
    // One result per task-required tool, none when there is none (as schema/… gives one per method seen).
    if (!required.length) return [];
    const out: ItemOutcome[] = [];
    for (const tool of required) {
      if (!plan.tasks.includes(tool)) {
        const why = plan.skipped.find((s) => s.name === tool.name)?.reason ?? 'the call policy leaves it out';
        out.push({ item: tool.name, verdict: 'skip', message: `not probed: ${why}` });
        continue;
      }
      if (!ctx.selected(`calling/task-required-plain/${tool.name}`)) continue;
      const args = generateArguments(tool.inputSchema).value;
      const rec = await callTool(ctx, tool.name, args, 'task-required-plain');
      out.push({ item: tool.name, ...gradePlain(rec), details: { arguments: args } });
    }
    return out;
  },
};

function gradePlain(rec: ToolCallRecord): Omit<ItemOutcome, 'item'> {
  if (rec.failure) return unanswered(rec.failure);
  const reply = rec.reply!;
  const mids = ids(reply.request, reply.response);
  const sent = `tools/call ${rec.tool} without params.task`;
  if (reply.error) {
    return reply.error.code === -32601
      ? { verdict: 'pass', message: `${sent} was refused with error -32601 "${reply.error.message}"`, messageIds: mids }
      : {
          verdict: 'warn',
          message: `${sent} was refused with error ${describeError(reply.error)}; the spec asks for -32601 (method not found)`,
          messageIds: mids,
        };
  }
  if (reply.result?.isError === true) {
    // The TypeScript SDK (1.32) wraps its -32601 in a tool error result: refused, but not in the form the spec asks.
    return {
      verdict: 'warn',
      message: `${sent} was refused with a result with isError: true (${brief(reply.result.content, 160)}) instead of JSON-RPC error -32601`,
      messageIds: mids,
    };
  }
  return {
    verdict: 'fail',
    message: `${sent} was answered with a success result (${brief(reply.result, 160)}): the tool ran without task augmentation; a tool whose execution.taskSupport is "required" must be refused with -32601 when called plainly`,
    messageIds: mids,
  };
}
