/**
 * Progress: a tool called with _meta.progressToken — every notifications/progress carries that token, progress
 * increases, and none arrives after the result. https://modelcontextprotocol.io/specification/2025-11-25/basic/utilities/progress
 */
import { generateArguments } from '../core/args/arguments.js';
import type { Suite, ToolCallRecord } from '../core/suite.js';
import { firstToolCall, type Tool } from '../core/tools.js';
import { callTool } from '../core/call-policy.js';
import { callPlan } from '../core/call-policy.js';
import { brief, unanswered } from './helpers.js';

/**
 * Tools that look long-running (the cancellation probe of robustness picks by the same words). "progress" as a word
 * (reports progress, progress_demo), not "progressive" or "progression" (a funnel chart's "progressive reduction").
 */
export const SLOW_TOOL = /long[-_\s]?running|\bslow|\bsleep|\bdelay|\bprogress(?!ive|ion)/i;
export const PROGRESS_TOKEN = 'mcp-conform-progress-1';
/** How long to watch for progress notifications after the result (ms). */
export const AFTER_RESULT_MS = 300;

/** The tool progress/notifications watches: the first tool the plan calls that looks long-running. */
export function progressTool(callable: readonly Tool[]): Tool | undefined {
  return callable.find((t) => SLOW_TOOL.test(`${t.name} ${t.title ?? ''} ${t.description ?? ''}`));
}

/** The params of a tools/call that asks for progress notifications with the harness's token. */
export function progressParams(name: string, args: unknown): Record<string, unknown> {
  return { name, arguments: args, _meta: { progressToken: PROGRESS_TOKEN } };
}

/** The progress token a tools/call carried, if any. */
function tokenOf(rec: ToolCallRecord): unknown {
  const m = rec.reply?.request ?? (rec.failure as { request?: { json?: unknown } } | undefined)?.request;
  return (m?.json as { params?: { _meta?: { progressToken?: unknown } } } | undefined)?.params?._meta?.progressToken;
}

export const progress: Suite = {
  id: 'progress',
  title: 'Progress',
  description: 'notifications/progress for a request that asked for it',
  cases: [
    {
      id: 'progress/notifications',
      title: 'progress notifications carry the token, increase, and stop with the result',
      level: 'MUST',
      spec: 'basic/utilities/progress',
      requirement: `A tool that looks long-running (by name or description: long-running, slow, sleep, delay, progress), and that the call policy allows, is called with _meta.progressToken — once: the call calling/tool makes of it carries the token and is judged here too (when calling/tool did not call it, this case does). Every notifications/progress the server sends for it carries that token, its progress increases from one to the next, and none comes after the result (watched for at least ${AFTER_RESULT_MS} ms). Sending none is allowed (info).`,
      requires: { capability: 'tools' },
      async run(ctx) {
        const plan = await ctx.service(callPlan);
        const tool = progressTool(plan.call);
        if (!tool)
          return {
            verdict: 'skip',
            message:
              'no callable tool looks long-running (by name or description: long-running, slow, sleep, delay, progress)',
          };
        // calling/tool called it with the token already (suites/calling.ts): that call is judged here too, not made twice.
        const made = firstToolCall(ctx, tool.name, ['call']);
        const shared = made && tokenOf(made) === PROGRESS_TOKEN ? made : undefined;
        const args = shared ? argsOf(shared) : generateArguments(tool.inputSchema).value;
        const rec =
          shared ?? (await callTool(ctx, tool.name, args, 'progress', { params: progressParams(tool.name, args) }));
        if (!rec.reply) return unanswered(rec.failure!);
        const req = rec.reply.request,
          res = rec.reply.response;
        // Watched for AFTER_RESULT_MS after the result (a shared call ended a while ago: only what is left of the window).
        const left = AFTER_RESULT_MS - (ctx.session.now() - res.t);
        if (left > 0) await new Promise((r) => setTimeout(r, left));
        const notes = ctx.session.log.filter(
          (m) => m.seq > req.seq && m.direction === 'from-server' && m.method === 'notifications/progress',
        );
        const params = (m: (typeof notes)[number]) => (m.json as { params?: Record<string, unknown> }).params ?? {};
        const mine = notes.filter((m) => params(m).progressToken === PROGRESS_TOKEN);
        const ids = [req.seq, res.seq, ...mine.slice(0, 20).map((m) => m.seq)];
        const sent = `tools/call ${tool.name} with _meta.progressToken "${PROGRESS_TOKEN}" (arguments ${brief(args, 80)}${shared ? '; the call calling/tool made' : ''})`;
        const problems: string[] = [];
        // The harness sends no other progress token: any other one refers to no request in flight.
        const strangers = notes.filter((m) => m.seq < res.seq && params(m).progressToken !== PROGRESS_TOKEN);
        if (strangers.length)
          problems.push(
            `${strangers.length} notifications/progress during the call carry another token (${brief(params(strangers[0]!).progressToken, 40)})`,
          );
        let last = -Infinity;
        for (const m of mine) {
          const p = params(m).progress;
          if (typeof p !== 'number') {
            problems.push(`a notification (message ${m.seq}) has progress ${brief(p, 30)}, not a number`);
            break;
          }
          if (p <= last) {
            problems.push(`progress went from ${last} to ${p} (message ${m.seq}): it must increase`);
            break;
          }
          last = p;
        }
        const late = mine.filter((m) => m.seq > res.seq);
        if (late.length)
          problems.push(`${late.length} notifications/progress came after the result (message ${late[0]!.seq})`);
        if (problems.length) return { verdict: 'fail', messageIds: ids, message: `${sent}: ${problems.join('; ')}` };
        if (!mine.length)
          return {
            verdict: 'info',
            messageIds: ids,
            message: `${sent}: answered without progress notifications (sending them is up to the server)`,
          };
        return {
          verdict: 'pass',
          messageIds: ids,
          message: `${sent}: ${mine.length} notifications/progress with the token, increasing (last ${last}), none after the result`,
        };
      },
    },
  ],
};

/** The arguments a tools/call carried. */
function argsOf(rec: ToolCallRecord): unknown {
  return (rec.reply?.request.json as { params?: { arguments?: unknown } } | undefined)?.params?.arguments;
}
