/**
 * Calling tools: each tool that --call-tools allows is called with arguments generated from its inputSchema, and
 * the answer is checked (content, structuredContent against outputSchema).
 * https://modelcontextprotocol.io/specification/2025-11-25/server/tools#calling-tools
 */
import { generateArguments } from '../core/args/index.js';
import type { ItemOutcome, Suite, ToolCallRecord } from '../core/suite.js';
import { maxInFlightOption, notJudgedAfterCrash, pipelined, tools, type Tool } from '../core/tools.js';
import { callTool } from '../core/call-policy.js';
import { callPlan } from '../core/call-policy.js';
import type { CaseContext } from '../core/suite.js';
import { unanswered, brief, contentSummary, describeError, isObject, callDuration } from './helpers.js';
import { carriesStructured, failureReportedAsSuccess } from './tool-answers.js';
import { callAsTasks, taskRequiredPlain } from './task-required.js';
import { notExercisable, roundIds } from '../core/mrtr.js';
import { PROGRESS_TOKEN, progressParams, progressTool } from './progress.js';

export function gradeCall(
  ctx: CaseContext,
  tool: Tool,
  rec: ToolCallRecord,
  argsNote: string,
): Omit<ItemOutcome, 'item'> {
  if (rec.failure) return unanswered(rec.failure);
  const mids = roundIds(rec);
  const reply = rec.reply!;
  // 2026-07-28: the server needs input the harness could not give (input_required not answered, or -32021 for a
  // capability it did not declare): not exercisable, never a server fault (surface-2026 grades the rounds).
  const blocked = notExercisable(ctx.features, reply, rec.mrtr);
  if (blocked) return blocked;
  const o = gradeAnswer(ctx, tool, rec, reply, mids, argsNote);
  // Answered after input_required rounds: say what the harness gave the server.
  if (rec.mrtr && rec.mrtr.rounds.length > 1)
    o.message = `${o.message} (final answer after ${rec.mrtr.rounds.length - 1} input_required round(s) answered with canned input: ${rec.mrtr.answered.flat().join('; ')})`;
  return o;
}

function gradeAnswer(
  ctx: CaseContext,
  tool: Tool,
  rec: ToolCallRecord,
  reply: NonNullable<ToolCallRecord['reply']>,
  mids: number[],
  argsNote: string,
): Omit<ItemOutcome, 'item'> {
  if (reply.error) {
    const optionals = reply.error.code === -32602 ? generatedOptionals(tool, argsOf(rec)) : [];
    return {
      verdict: 'warn',
      level: 'SHOULD',
      message: `answered with a JSON-RPC error ${describeError(reply.error)} to arguments generated from its inputSchema${argsNote}; a tool that fails should answer with a result with isError: true${optionals.length ? ` — the arguments held ${optionals.length === 1 ? 'an optional argument' : 'optional arguments'} the schema does not require (${optionals.map((n) => JSON.stringify(n)).join(', ')}, generated because the schema needs more than its required ones): the -32602 may be about ${optionals.length === 1 ? 'it' : 'them'}` : ''}`,
      messageIds: mids,
    };
  }
  const r = reply.result!;
  if (!Array.isArray(r.content))
    return {
      verdict: 'fail',
      message: `the result has no content array (got ${brief(r.content, 60)})`,
      messageIds: mids,
    };
  if (r.isError === true) {
    return {
      verdict: 'pass',
      message: `answered with isError: true, a valid answer to generated arguments${argsNote}: ${brief(firstText(r.content) ?? contentSummary(r.content), 200)}`,
      messageIds: mids,
    };
  }
  // A success result whose text says the call failed: the client and the model are told it worked (SHOULD isError).
  const failed = failureReportedAsSuccess(r, tool, argsOf(rec));
  const failedWarn = failed && {
    verdict: 'warn' as const,
    level: 'SHOULD' as const,
    message: `answered with a result without isError: true whose text ${failed.how}: ${failed.quoted}; a tool that fails should say so with isError: true, so the client and the model know the call failed`,
    messageIds: mids,
  };
  if (tool.outputSchema !== undefined && ctx.features.structuredContent) {
    if (!('structuredContent' in r)) {
      // The call failed (in words): had it said so with isError, no structuredContent would be due. The SHOULD is the fault.
      if (failedWarn)
        return {
          ...failedWarn,
          message: `${failedWarn.message} (it has no structuredContent either, which a success result of a tool with an outputSchema must have)`,
        };
      return {
        verdict: 'fail',
        message: 'the tool declares an outputSchema but its result has no structuredContent',
        messageIds: mids,
      };
    }
    const prepared = ctx.workbench.prepare(tool.outputSchema);
    if (prepared.validate) {
      const v = prepared.validate(r.structuredContent);
      if (v.length) {
        return {
          verdict: 'fail',
          message: `structuredContent does not conform to the outputSchema: ${v
            .slice(0, 5)
            .map((x) => `${x.pointer || '(root)'} ${x.message}`)
            .join('; ')}`,
          messageIds: mids,
        };
      }
    }
    if (failedWarn) return failedWarn;
    const carried = carriesStructured(r.content, r.structuredContent);
    if (!carried) {
      return {
        verdict: 'warn',
        level: 'SHOULD',
        message: `structuredContent conforms to the outputSchema, but no text block carries it (${contentSummary(r.content)}: ${brief(firstText(r.content) ?? r.content, 80)}; structuredContent ${brief(r.structuredContent, 80)}); a client that reads only content does not get the value (should: its JSON in a text block)`,
        messageIds: mids,
      };
    }
    return {
      verdict: 'pass',
      message: `answered with ${contentSummary(r.content)} and structuredContent that conforms to the outputSchema (${carried})`,
      messageIds: mids,
    };
  }
  if (failedWarn) return failedWarn;
  return {
    verdict: 'pass',
    message: `answered with ${contentSummary(r.content)}${'structuredContent' in r ? ' and structuredContent' : ''}`,
    messageIds: mids,
  };
}

/** The arguments a tools/call carried. */
/** The top-level arguments of a call that the tool's inputSchema does not require. */
function generatedOptionals(tool: Tool, args: unknown): string[] {
  if (!isObject(args)) return [];
  const schema = isObject(tool.inputSchema) ? tool.inputSchema : {};
  const required = new Set(Array.isArray(schema.required) ? schema.required.map(String) : []);
  return Object.keys(args).filter((k) => !required.has(k));
}

function argsOf(rec: ToolCallRecord): unknown {
  const params = (rec.reply?.request.json as { params?: { arguments?: unknown } } | undefined)?.params;
  return params?.arguments;
}

function firstText(content: unknown[]): string | undefined {
  for (const c of content) if (isObject(c) && c.type === 'text' && typeof c.text === 'string') return c.text;
  return undefined;
}

export const calling: Suite = {
  id: 'calling',
  title: 'Calling tools',
  description: 'each tool called with arguments generated from its inputSchema',
  services: [tools],
  cases: [
    {
      id: 'calling/tool',
      title: 'the tool answers a call with valid arguments',
      level: 'MUST',
      spec: 'server/tools#calling-tools',
      requirement:
        'A call with arguments that fit the inputSchema gets a result with a content array (isError: true is a valid answer); a tool with an outputSchema returns structuredContent that conforms to it, and should carry it in a text block too (its JSON, or the value an SDK wrapped as {"result": …}). A result whose text plainly reports a failure ("Error: …", JSON with "success": false) should have isError: true (warn).',
      perItem: 'tool',
      requires: { capability: 'tools' },
      async run(ctx) {
        const l = await ctx.service(tools);
        if (!l.tools.length)
          return {
            verdict: 'skip',
            message: l.problem ? `no tools to call: ${l.problem}` : 'the server lists no tools',
          };
        const plan = await ctx.service(callPlan);
        const out: ItemOutcome[] = [];
        const todo = plan.call.filter((tool) => ctx.selected(`calling/tool/${tool.name}`));
        // The tool progress/notifications watches is called once, for both cases: this call carries its progress token
        // (the progress case judges the notifications of this very call; a token asks for notifications, it does not
        // change what the tool is asked to do).
        const watched = progressTool(plan.call);
        // The calls do not depend on each other: several in flight, up to --max-in-flight (results stay in order; see pipelined).
        const recs = await pipelined(
          todo,
          (tool, _i, after) => {
            const gen = generateArguments(tool.inputSchema);
            const params = tool === watched ? progressParams(tool.name, gen.value) : undefined;
            return callTool(ctx, tool.name, gen.value, 'call', {
              timeoutFrom: after,
              ...(params ? { params } : {}),
            }).then((rec) => ({ rec, gen }));
          },
          {
            window: ctx.option(maxInFlightOption),
            isBad: ({ rec }) => !!rec.failure,
            isStalled: () => ctx.session.isStalled,
          },
        );
        notJudgedAfterCrash(recs.map((r) => r.rec));
        todo.forEach((tool, i) => {
          const { rec, gen } = recs[i]!;
          const note = gen.confident ? '' : ` (the generated arguments may not fit: ${gen.notes.join('; ')})`;
          out.push({
            item: tool.name,
            ...gradeCall(ctx, tool, rec, note),
            durationMs: callDuration(rec),
            details: {
              arguments: gen.value,
              ...(gen.notes.length ? { notes: gen.notes } : {}),
              ...(tool === watched ? { progressToken: PROGRESS_TOKEN } : {}),
            },
          });
        });
        out.push(...(await callAsTasks(ctx, plan.tasks, gradeCall))); // execution.taskSupport "required": as tasks
        for (const s of plan.skipped) out.push({ item: s.name, verdict: 'skip', message: `not called: ${s.reason}` });
        return out;
      },
    },
    taskRequiredPlain,
    {
      id: 'calling/open-world',
      title: 'read-only tools the run calls that may reach the outside world',
      level: 'MAY',
      spec: 'server/tools#tool-annotations',
      requirement:
        'A tool annotated readOnlyHint: true changes nothing, but unless it is also annotated openWorldHint: false (the hint defaults to true) it may reach the outside world: a web search, a paid API. Said (info) with their count, since a run with real keys in CI spends their quota; --call-tools safe-closed calls only read-only tools annotated openWorldHint: false. Not a judgement of the server.',
      requires: { capability: 'tools' },
      async run(ctx) {
        const plan = await ctx.service(callPlan);
        const called = plan.call.length + plan.tasks.length;
        if (!called) return { verdict: 'skip', message: 'no callable tool: none is called by the policy' };
        if (!plan.openWorld.length)
          return {
            verdict: 'pass',
            message: `none of the ${called} tool${called === 1 ? '' : 's'} the run calls may reach the outside world: each is annotated openWorldHint: false`,
          };
        const n = plan.openWorld.length;
        const shown = plan.openWorld.slice(0, 12).join(', ') + (n > 12 ? `, … (${n - 12} more)` : '');
        return {
          verdict: 'info',
          message: `${n} of the ${called} tool${called === 1 ? '' : 's'} the run calls may reach the outside world (openWorldHint is true or absent): ${shown}; with real keys they may spend paid quota — --call-tools safe-closed calls only read-only tools annotated openWorldHint: false`,
          details: { openWorld: plan.openWorld },
        };
      },
    },
  ],
};
