/** Small helpers shared by the suites. */
import { isObject } from '../core/objects.js';
import type { LoggedMessage } from '../core/log.js';
import { SessionError, type JsonRpcError } from '../core/session.js';
import type { CaseContext, Outcome } from '../core/suite.js';
import { tools, type Tool } from '../core/tools.js';
import { brief as textBrief } from '../core/text.js';
export { unanswered } from '../core/suite.js';
export { isObject };

/** The tools the server listed, or a skip saying why there are none to look at (for the suites that read the list). */
export async function listedTools(ctx: Pick<CaseContext, 'service'>): Promise<Outcome | Tool[]> {
  const l = await ctx.service(tools);
  if (l.problem && !l.tools.length)
    return { verdict: 'skip', message: `no tools to look at: ${l.problem}`, messageIds: l.messageIds };
  return l.tools;
}

export { environmentTrouble } from '../core/environment.js';
import { environmentTrouble } from '../core/environment.js';

/**
 * The verdict of a listing (tools/list, resources/list, prompts/list…) that did not complete: a fail, but
 * inconclusive (skip) when its first page was refused with an internal error that blames the environment.
 */
export function listingProblem(
  l: { problem?: string; messageIds: number[]; pages: { error?: { code: number; message: string; data?: unknown } }[] },
  method: string,
): Outcome {
  const first = l.pages.length === 1 ? l.pages[0]!.error : undefined;
  const env = environmentTrouble(first);
  if (env)
    return {
      verdict: 'skip',
      message: `inconclusive: ${method} was answered with error ${describeError(first!)}, an internal error that speaks of the server's environment (${JSON.stringify(env)}), not of the protocol: the server could not list here; fix what makes it fail, or run where it works`,
      messageIds: l.messageIds,
    };
  return { verdict: 'fail', message: l.problem ?? `${method} did not complete`, messageIds: l.messageIds };
}

/**
 * No empty passes: a case whose evidence is what the server sent (its lines, its messages, a notification it must not
 * send) has nothing to judge when nothing at all came from it; this is that skip, or undefined when something came.
 */
export function nothingHeard(
  ctx: Pick<CaseContext, 'session'>,
  what = 'nothing came from the server',
): Outcome | undefined {
  return ctx.session.log.some((m) => m.direction === 'from-server')
    ? undefined
    : { verdict: 'skip', message: `nothing to judge: ${what}` };
}

/** seq numbers of the given messages, skipping absent ones. */
export function ids(...ms: (LoggedMessage | undefined)[]): number[] {
  return ms.filter((m): m is LoggedMessage => m !== undefined).map((m) => m.seq);
}

export function describeError(e: JsonRpcError): string {
  const msg = e.message.replace(/\s+/g, ' ').trim();
  return `code ${Number.isNaN(e.code) ? '(none)' : e.code} "${msg.length > 200 ? msg.slice(0, 200) + '…' : msg}"`;
}

/** Time between a request and its answer, in ms. */
export function roundTrip(
  reply: { request: LoggedMessage; response: LoggedMessage; timedFrom?: number } | undefined,
): number | undefined {
  return reply ? Math.round((reply.response.t - (reply.timedFrom ?? reply.request.t)) * 1000) / 1000 : undefined;
}

/**
 * How long a tool call took: its round trip, counted from its turn when it waited behind other calls in a pipeline;
 * for a call that got no answer, how long it waited.
 */
export function callDuration(rec: {
  reply?: { request: LoggedMessage; response: LoggedMessage; timedFrom?: number };
  failure?: Error;
}): number | undefined {
  if (rec.reply) return roundTrip(rec.reply);
  return rec.failure instanceof SessionError ? rec.failure.waitedMs : undefined;
}

/** Cut a JSON rendering of a value to a readable length (core/text.ts brief, 160 characters unless told). */
export function brief(v: unknown, max = 160): string {
  return textBrief(v, max);
}

/** Names of content block types in a CallToolResult, e.g. "text, image". */
export function contentSummary(content: unknown): string {
  if (!Array.isArray(content)) return 'no content array';
  if (!content.length) return 'empty content';
  const types = content.map((c) => (isObject(c) && typeof c.type === 'string' ? c.type : '?'));
  return `${content.length} content block${content.length === 1 ? '' : 's'} (${[...new Set(types)].join(', ')})`;
}

/** A request that should be refused with -32602 (invalid params): pass for that code; another error or a result warns. */
export function expectInvalidParams(
  sent: string,
  reply: {
    error?: { code: number; message: string; data?: unknown };
    result?: unknown;
    request: { seq: number };
    response: { seq: number };
  },
): Outcome {
  const messageIds = [reply.request.seq, reply.response.seq];
  if (reply.error?.code === -32602)
    return { verdict: 'pass', messageIds, message: `${sent} answered with error ${describeError(reply.error)}` };
  if (reply.error)
    return {
      verdict: 'warn',
      messageIds,
      message: `${sent} answered with error ${describeError(reply.error)}; the spec names -32602 (invalid params)`,
    };
  return {
    verdict: 'warn',
    messageIds,
    message: `${sent} answered a result (${brief(reply.result, 120)}) instead of error -32602`,
  };
}

/** The verdict on a published file (server.json, manifest.json) checked against its schema before the run. */
export function publishedSchemaOutcome(
  f: import('../core/published/types.js').PublishedFile | undefined,
  flag: string,
): import('../core/suite.js').Outcome {
  if (!f) return { verdict: 'skip', message: `no ${flag} given` };
  const notes = f.notes?.length ? ` (${f.notes.join('; ')})` : '';
  if (f.schemaUnavailable)
    return { verdict: 'skip', message: `${f.file} could not be checked: ${f.schemaUnavailable}${notes}` };
  if (f.problems.length) {
    return {
      verdict: 'fail',
      message: `${f.file} does not fit ${f.schema}: ${f.problems.slice(0, 8).join('; ')}${f.problems.length > 8 ? `; and ${f.problems.length - 8} more` : ''}${notes}`,
      details: { file: f.file, schema: f.schema, problems: f.problems },
    };
  }
  return { verdict: 'pass', message: `${f.file} fits ${f.schema}${notes}` };
}
