/**
 * Invalid parameters: a required argument left out, an argument of the wrong type, and a tools/call without a name.
 * From 2025-11-25 input validation errors are tool errors (SEP-1303); before, either answer is allowed.
 * https://modelcontextprotocol.io/specification/2025-11-25/server/tools#error-handling
 */
import { notExercisable, roundIds } from '../core/mrtr.js';
import {
  generateArguments,
  missingRequiredArguments,
  wrongTypeArguments,
  type InvalidArguments,
} from '../core/args/index.js';
import type { CaseContext, ItemOutcome, Outcome, Suite, ToolCallRecord } from '../core/suite.js';
import { firstToolCall, maxInFlightOption, notJudgedAfterCrash, pipelined, tools, type Tool } from '../core/tools.js';
import { callTool } from '../core/call-policy.js';
import { callPlan } from '../core/call-policy.js';
import { unanswered, brief, describeError, ids, callDuration } from './helpers.js';
import { classifyAnswer, quote, type Answer } from './tool-answers.js';

type Kind = 'missing-required' | 'wrong-type';

/**
 * The answer to a call of the tool with valid arguments: the calling suite's call, or — when it made none (calling
 * not selected) — one made here with the same generated arguments, under the same --call-tools policy (purpose
 * 'reference'). An error answer to an invalid call shows validation only when this call did not fail the same way.
 * Only tools in the call plan get here: a tool the plan must not call plainly (taskSupport "required") must be kept
 * out of invalid-params too, or its task call recorded with purpose 'call'.
 */
async function validCall(ctx: CaseContext, tool: Tool): Promise<ToolCallRecord> {
  const prior = firstToolCall(ctx, tool.name, ['call', 'reference']);
  if (prior) return prior;
  return callTool(ctx, tool.name, generateArguments(tool.inputSchema).value, 'reference');
}

function describeAnswer(a: Answer): string {
  switch (a.kind) {
    case 'rpc-error':
      return `JSON-RPC error ${a.code} ${quote(a.text)}`;
    case 'is-error':
      return `a result with isError: true, ${quote(a.text)}`;
    case 'failure-text':
      return `a result without isError whose text ${a.failure!.how}: ${a.failure!.quoted}`;
    default:
      return `a success result, ${quote(a.text, 120)}`;
  }
}

/** The verdict for an error answer once it is known to be about the bad argument. */
function gradeRefusal(
  ctx: CaseContext,
  reply: NonNullable<ToolCallRecord['reply']>,
  answer: Answer,
  what: string,
  why: string,
  mids: number[],
): Outcome {
  const sep1303 = ctx.features.validationAsToolError;
  if (reply.error) {
    if (reply.error.code === -32602) {
      return sep1303
        ? {
            verdict: 'warn',
            level: 'SHOULD',
            message: `${what}: JSON-RPC error -32602${why}; from 2025-11-25 input validation errors should be results with isError: true, so the model can correct itself (SEP-1303)`,
            messageIds: mids,
          }
        : {
            verdict: 'pass',
            message: `${what}: JSON-RPC error -32602 "${reply.error.message}"${why}`,
            messageIds: mids,
          };
    }
    return {
      verdict: 'warn',
      message: `${what}: JSON-RPC error ${describeError(reply.error)}${why}; expected ${sep1303 ? 'a result with isError: true (or -32602)' : '-32602 or a result with isError: true'}`,
      messageIds: mids,
    };
  }
  if (answer.kind === 'failure-text') {
    return {
      verdict: 'warn',
      level: 'SHOULD',
      message: `${what}: answered with a result without isError: true whose text ${answer.failure!.how}: ${answer.failure!.quoted}${why}; an input validation error should be a result with isError: true`,
      messageIds: mids,
    };
  }
  return {
    verdict: 'pass',
    message: `${what}: result with isError: true: ${brief(reply.result!.content, 160)}${why}`,
    messageIds: mids,
  };
}

/**
 * The valid call's answer, classified once: every invalid call of a tool (missing-required, wrong-type) is weighed
 * against the same valid call, and its answer is read twice by each (details and grading). classifyAnswer is a pure
 * function of the reply, the tool and the arguments; keyed by the reply (held weakly).
 */
const validAnswers = new WeakMap<object, Answer>();
function validAnswer(reply: NonNullable<ToolCallRecord['reply']>, tool: Tool, args: unknown): Answer {
  let a = validAnswers.get(reply);
  if (!a) validAnswers.set(reply, (a = classifyAnswer(reply, tool, args)));
  return a;
}

/**
 * An error answer (JSON-RPC error, isError, or a text that reports a failure) to an invalid call. It proves that the
 * server checked the argument when the call with valid arguments succeeded — or, when that one failed or got no
 * answer, when this one was refused with the JSON-RPC code for invalid params (-32602) and the valid call was not.
 * The answers are judged by their JSON-RPC code and isError, never by their wording (which is a runtime's, often an
 * incidental crash's): the texts are quoted, not parsed. Otherwise the verdict is inconclusive (skip) with both
 * answers: a tool that fails whatever it is sent (a missing browser, no network, no credential) says nothing about
 * validation.
 */
function gradeError(
  ctx: CaseContext,
  tool: Tool,
  rec: ToolCallRecord,
  answer: Answer,
  bad: InvalidArguments,
  ref: ToolCallRecord,
  mids: number[],
): Outcome {
  const reply = rec.reply!;
  const what = bad.description;
  const refArgs = argsOf(ref);
  const refAnswer = ref.reply ? validAnswer(ref.reply, tool, refArgs) : undefined;
  const details = { validCall: { arguments: refArgs, answer: refAnswer ? refAnswer.text : ref.failure?.message } };
  const refMids = ref.reply ? ids(ref.reply.request, ref.reply.response) : [];
  const invalidParams = reply.error?.code === -32602;
  if (ref.failure) {
    if (invalidParams)
      return {
        ...gradeRefusal(
          ctx,
          reply,
          answer,
          what,
          ' (the code for invalid params; the call with valid arguments got no answer)',
          mids,
        ),
        details,
      };
    return {
      verdict: 'skip',
      message: `inconclusive: ${what}: answered with ${describeAnswer(answer)}; the call with valid arguments got no answer (${ref.failure.message}), and this answer is no -32602 (invalid params), so it does not show that the server checked the argument`,
      messageIds: mids,
      details,
    };
  }
  if (!refAnswer) throw new Error('the call with valid arguments has neither an answer nor a failure');
  if (refAnswer.kind === 'success') return { ...gradeRefusal(ctx, reply, answer, what, '', mids), details };
  if (invalidParams && ref.reply?.error?.code !== -32602) {
    return {
      ...gradeRefusal(
        ctx,
        reply,
        answer,
        what,
        ` (the call with valid arguments failed too, with ${describeAnswer(refAnswer)}, but this one was refused with the code for invalid params)`,
        [...mids, ...refMids],
      ),
      details,
    };
  }
  return {
    verdict: 'skip',
    message: `inconclusive: ${what}: answered with ${describeAnswer(answer)}; the call with valid arguments got ${describeAnswer(refAnswer)} — the same kind of answer (judged by the JSON-RPC code and isError, not by the wording), so the answer does not show that the server checked the argument (the tool fails whatever it is sent; fix what makes it fail, or run where it works)`,
    messageIds: [...mids, ...refMids],
    details,
  };
}

/**
 * A wrong type accepted with a success result. Fail only when the server validates nothing: when it accepted the call
 * without a required argument too. When it refused that call, it validates — more leniently than its inputSchema
 * says (a union, a coercion): warn. A tool without a required argument gives no such evidence: warn (a fail needs
 * proof that nothing is validated).
 */
async function gradeAcceptedWrongType(
  ctx: CaseContext,
  tool: Tool,
  rec: ToolCallRecord,
  bad: InvalidArguments,
  mids: number[],
): Promise<Outcome> {
  const accepted = `${bad.description}: accepted with a success result (${brief(rec.reply!.result, 120)})`;
  const lenient = 'it accepts a value its inputSchema does not allow';
  const missing = missingRequiredArguments(tool.inputSchema);
  if (!missing) {
    return {
      verdict: 'warn',
      message: `${accepted}: ${lenient}; the tool has no required argument, so whether the server checks its input at all could not be told (a call without a required argument is the other probe)`,
      messageIds: mids,
    };
  }
  // The missing-required case's call of the tool, or one made here when that case did not run (--case).
  const m =
    firstToolCall(ctx, tool.name, ['missing-required']) ??
    (await callTool(ctx, tool.name, missing.value, 'missing-required'));
  if (!m.reply)
    return {
      verdict: 'warn',
      message: `${accepted}: ${lenient} (the call with ${missing.description} got no answer, so whether the server checks its input at all could not be told)`,
      messageIds: mids,
    };
  const mAnswer = classifyAnswer(m.reply, tool, missing.value);
  const both = [...mids, ...ids(m.reply.request, m.reply.response)];
  if (mAnswer.kind === 'success') {
    return {
      verdict: 'fail',
      message: `${accepted}, and the call with ${missing.description} was accepted too (${quote(mAnswer.text, 100)}): the server does not validate tool input, which it must`,
      messageIds: both,
    };
  }
  return {
    verdict: 'warn',
    message: `${accepted}: ${lenient}. It does check its input — the call with ${missing.description} got ${describeAnswer(mAnswer)} — but more leniently than its inputSchema says`,
    messageIds: both,
  };
}

/** The arguments a tools/call carried. */
function argsOf(rec: ToolCallRecord): unknown {
  const m = rec.reply?.request ?? (rec.failure as { request?: { json?: unknown } } | undefined)?.request;
  return (m?.json as { params?: { arguments?: unknown } } | undefined)?.params?.arguments;
}

async function gradeInvalid(
  ctx: CaseContext,
  kind: Kind,
  tool: Tool,
  rec: ToolCallRecord,
  bad: InvalidArguments,
): Promise<Outcome> {
  if (rec.failure) return unanswered(rec.failure);
  // 2026-07-28: input the harness could not give (input_required not answered, -32021): not exercisable, no verdict on validation.
  const blocked = notExercisable(ctx.features, rec.reply, rec.mrtr);
  if (blocked) return blocked;
  const mids = roundIds(rec);
  const answer = classifyAnswer(rec.reply!, tool, bad.value);
  if (answer.kind !== 'success') return gradeError(ctx, tool, rec, answer, bad, await validCall(ctx, tool), mids);
  if (kind === 'wrong-type') return gradeAcceptedWrongType(ctx, tool, rec, bad, mids);
  return {
    verdict: 'fail',
    message: `${bad.description}: accepted with a success result (${brief(rec.reply!.result, 120)}); servers must validate tool input`,
    messageIds: mids,
  };
}

function perTool(kind: Kind, make: (schema: unknown) => InvalidArguments | undefined) {
  return async (ctx: CaseContext): Promise<Outcome | ItemOutcome[]> => {
    const l = await ctx.service(tools);
    if (!l.tools.length)
      return { verdict: 'skip', message: l.problem ? `no tools: ${l.problem}` : 'the server lists no tools' };
    const plan = await ctx.service(callPlan);
    const out: ItemOutcome[] = [];
    const todo: { tool: Tool; bad: InvalidArguments }[] = [];
    for (const tool of plan.call) {
      const bad = make(tool.inputSchema);
      if (bad && ctx.selected(`invalid-params/${kind}/${tool.name}`)) todo.push({ tool, bad });
    }
    // The calls do not depend on each other: several in flight, up to --max-in-flight (results stay in order; see pipelined).
    const recs = await pipelined(
      todo,
      ({ tool, bad }, _i, after) => callTool(ctx, tool.name, bad.value, kind, { timeoutFrom: after }),
      { window: ctx.option(maxInFlightOption), isBad: (rec) => !!rec.failure, isStalled: () => ctx.session.isStalled },
    );
    notJudgedAfterCrash(recs);
    // Judged one after another: a verdict may need another call (the valid call, the missing-required call).
    for (const [i, { tool, bad }] of todo.entries()) {
      const rec = recs[i]!;
      const o = await gradeInvalid(ctx, kind, tool, rec, bad);
      out.push({
        item: tool.name,
        ...o,
        durationMs: callDuration(rec),
        details: { arguments: bad.value, ...o.details },
      });
    }
    if (!out.length) {
      const why =
        kind === 'missing-required'
          ? 'no callable tool has a required argument'
          : 'no callable tool has an argument of a definite type';
      return {
        verdict: 'skip',
        message: `${why}${plan.skipped.length ? ` (${plan.skipped.length} tools not called: see skippedTools)` : ''}`,
      };
    }
    return out;
  };
}

const requirement =
  'Arguments that break the inputSchema are refused: from 2025-11-25 with a result with isError: true (-32602 is tolerated as warn), before that with either; a success result is wrong. An error answer counts when the call with valid arguments succeeded, or was not refused with -32602 where this one was; answers are judged by their JSON-RPC code and isError, their texts quoted, never parsed (else: inconclusive, skip). A wrong type accepted by a server that refused a missing required argument is lenient validation (warn); accepting both is no validation (fail).';

export const invalidParams: Suite = {
  id: 'invalid-params',
  title: 'Invalid parameters',
  description: 'missing and wrongly typed arguments, malformed tools/call',
  cases: [
    {
      id: 'invalid-params/missing-required',
      title: 'a call without a required argument is refused',
      level: 'MUST',
      spec: 'server/tools#error-handling',
      requirement,
      perItem: 'tool',
      requires: { capability: 'tools' },
      run: perTool('missing-required', missingRequiredArguments),
    },
    {
      id: 'invalid-params/wrong-type',
      title: 'a call with an argument of the wrong type is refused',
      level: 'MUST',
      spec: 'server/tools#error-handling',
      requirement,
      perItem: 'tool',
      requires: { capability: 'tools' },
      run: perTool('wrong-type', wrongTypeArguments),
    },
    {
      id: 'invalid-params/malformed-call',
      title: 'tools/call without a tool name is a protocol error -32602',
      level: 'MUST',
      spec: 'server/tools#error-handling',
      requirement:
        'A tools/call request whose params have no name is malformed: the answer is a JSON-RPC error -32602 (another error code: warn; a success result: fail).',
      requires: { capability: 'tools' },
      async run(ctx) {
        const rec = await callTool(ctx, '', {}, 'malformed', {
          params: { arguments: {} },
          expectInvalid: 'tools/call without params.name (invalid-params/malformed-call)',
        });
        if (rec.failure) throw rec.failure;
        const reply = rec.reply!;
        const mids = ids(reply.request, reply.response);
        if (reply.error) {
          // 2026-07-28 over HTTP: without a name there is no Mcp-Name header, which a server may refuse with -32020.
          const headerMismatch =
            reply.error.code === ctx.features.headerMismatchCode && reply.request.http !== undefined;
          return reply.error.code === -32602 || headerMismatch
            ? {
                verdict: 'pass',
                message: `tools/call without params.name got JSON-RPC error ${reply.error.code} "${reply.error.message}"${headerMismatch ? ' (HeaderMismatch: a call without a name cannot carry the Mcp-Name header)' : ''}`,
                messageIds: mids,
              }
            : {
                verdict: 'warn',
                message: `tools/call without params.name got JSON-RPC error ${describeError(reply.error)}; expected -32602 (invalid params)`,
                messageIds: mids,
              };
        }
        if (reply.result?.isError === true)
          return {
            verdict: 'warn',
            message: `tools/call without params.name got a result with isError: true instead of JSON-RPC error -32602: ${brief(reply.result.content, 120)}`,
            messageIds: mids,
          };
        return {
          verdict: 'fail',
          message: `a tools/call without a name was answered with a success result: ${brief(reply.result, 160)}`,
          messageIds: mids,
        };
      },
    },
  ],
};
