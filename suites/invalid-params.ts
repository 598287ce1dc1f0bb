/**
 * Invalid parameters: a required argument left out, an argument of the wrong type, and a tools/call without a name.
 * From 2025-11-25 input validation errors are tool errors (SEP-1303); before, either answer is allowed.
 * https://modelcontextprotocol.io/specification/2025-11-25/server/tools#error-handling
 */
import { missingRequiredArguments, wrongTypeArguments, type InvalidArguments } from '../core/args.js';
import type { CaseContext, ItemOutcome, Outcome, Suite, ToolCallRecord } from '../core/suite.js';
import { notJudgedAfterCrash, pipelined, type Tool } from '../core/tools.js';
import { unanswered, brief, describeError, ids, callDuration } from './helpers.js';

function gradeInvalid(ctx: CaseContext, rec: ToolCallRecord, what: string): Outcome {
  if (rec.failure) return unanswered(rec.failure);
  const mids = ids(rec.reply!.request, rec.reply!.response);
  const reply = rec.reply!;
  const sep1303 = ctx.version >= '2025-11-25';
  if (reply.error) {
    if (reply.error.code === -32602) {
      return sep1303
        ? { verdict: 'warn', level: 'SHOULD', message: `${what}: JSON-RPC error -32602; from 2025-11-25 input validation errors should be results with isError: true, so the model can correct itself (SEP-1303)`, messageIds: mids }
        : { verdict: 'pass', message: `${what}: JSON-RPC error -32602 "${reply.error.message}"`, messageIds: mids };
    }
    return { verdict: 'warn', message: `${what}: JSON-RPC error ${describeError(reply.error)}; expected ${sep1303 ? 'a result with isError: true (or -32602)' : '-32602 or a result with isError: true'}`, messageIds: mids };
  }
  if (reply.result?.isError === true) return { verdict: 'pass', message: `${what}: result with isError: true: ${brief(reply.result.content, 160)}`, messageIds: mids };
  return { verdict: 'fail', message: `${what}: accepted with a success result (${brief(reply.result, 120)}); servers must validate tool input`, messageIds: mids };
}

function perTool(kind: 'missing-required' | 'wrong-type', make: (schema: unknown) => InvalidArguments | undefined) {
  return async (ctx: CaseContext): Promise<Outcome | ItemOutcome[]> => {
    const l = await ctx.tools();
    if (!l.tools.length) return { verdict: 'skip', message: l.problem ? `no tools: ${l.problem}` : 'the server lists no tools' };
    const plan = await ctx.callPlan();
    const out: ItemOutcome[] = [];
    const todo: { tool: Tool; bad: InvalidArguments }[] = [];
    for (const tool of plan.call) {
      const bad = make(tool.inputSchema);
      if (bad && ctx.selected(`invalid-params/${kind}/${tool.name}`)) todo.push({ tool, bad });
    }
    // The calls do not depend on each other: several in flight (results stay in order; see pipelined).
    const recs = await pipelined(todo, ({ tool, bad }) => ctx.callTool(tool.name, bad.value, kind), { isBad: (rec) => !!rec.failure, isStalled: () => ctx.session.isStalled });
    notJudgedAfterCrash(recs);
    todo.forEach(({ tool, bad }, i) => {
      const rec = recs[i]!;
      out.push({ item: tool.name, ...gradeInvalid(ctx, rec, bad.description), durationMs: callDuration(rec), details: { arguments: bad.value } });
    });
    if (!out.length) {
      const why = kind === 'missing-required' ? 'no callable tool has a required argument' : 'no callable tool has an argument of a definite type';
      return { verdict: 'skip', message: `${why}${plan.skipped.length ? ` (${plan.skipped.length} tools not called: see skippedTools)` : ''}` };
    }
    return out;
  };
}

const requirement = 'Arguments that break the inputSchema are refused: from 2025-11-25 with a result with isError: true (-32602 is tolerated as warn), before that with either; a success result is wrong.';

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
      needsCapability: 'tools',
      run: perTool('missing-required', missingRequiredArguments),
    },
    {
      id: 'invalid-params/wrong-type',
      title: 'a call with an argument of the wrong type is refused',
      level: 'MUST',
      spec: 'server/tools#error-handling',
      requirement,
      perItem: 'tool',
      needsCapability: 'tools',
      run: perTool('wrong-type', wrongTypeArguments),
    },
    {
      id: 'invalid-params/malformed-call',
      title: 'tools/call without a tool name is a protocol error -32602',
      level: 'MUST',
      spec: 'server/tools#error-handling',
      requirement: 'A tools/call request whose params have no name is malformed: the answer is a JSON-RPC error -32602 (another error code: warn; a success result: fail).',
      needsCapability: 'tools',
      async run(ctx) {
        const rec = await ctx.callTool('', {}, 'malformed', { params: { arguments: {} }, expectInvalid: 'tools/call without params.name (invalid-params/malformed-call)' });
        if (rec.failure) throw rec.failure;
        const reply = rec.reply!;
        const mids = ids(reply.request, reply.response);
        if (reply.error) {
          // 2026-07-28 over HTTP: without a name there is no Mcp-Name header, which a server may refuse with -32020.
          const headerMismatch = reply.error.code === -32020 && ctx.version >= '2026-07-28' && reply.request.http !== undefined;
          return reply.error.code === -32602 || headerMismatch
            ? { verdict: 'pass', message: `JSON-RPC error ${reply.error.code} "${reply.error.message}"${headerMismatch ? ' (HeaderMismatch: a call without a name cannot carry the Mcp-Name header)' : ''}`, messageIds: mids }
            : { verdict: 'warn', message: `JSON-RPC error ${describeError(reply.error)}; expected -32602 (invalid params)`, messageIds: mids };
        }
        if (reply.result?.isError === true) return { verdict: 'warn', message: `answered with a result with isError: true instead of JSON-RPC error -32602: ${brief(reply.result.content, 120)}`, messageIds: mids };
        return { verdict: 'fail', message: `a tools/call without a name was answered with a success result: ${brief(reply.result, 160)}`, messageIds: mids };
      },
    },
  ],
};
