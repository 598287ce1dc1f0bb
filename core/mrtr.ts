/**
 * Multi round-trip requests (2026-07-28, "MRTR"): a server may answer tools/call, prompts/get or resources/read with
 * an InputRequiredResult (resultType "input_required") carrying `inputRequests` (a map of elicitation/create,
 * sampling/createMessage or roots/list requests, keyed by the server) and/or an opaque `requestState`. The client
 * gathers the inputs and sends the request again — a new JSON-RPC id — with `inputResponses` under the same keys and
 * `requestState` echoed exactly (and none when none was given).
 * https://modelcontextprotocol.io/specification/2026-07-28/basic/patterns/mrtr
 *
 * The one place the harness answers them: with the canned answers it gives server-to-client requests
 * (core/client-capabilities.ts: a fixed assistant text, an elicitation decline, the --root list), only for the
 * capabilities the user declared with --client-capabilities. A request it cannot answer (a capability not declared,
 * an elicitation mode or sampling with tools it did not declare, a kind it does not know) is not answered and the
 * exchange is reported as not exercisable. Bounded: at most MAX_INPUT_ROUNDS retries, each with the request timeout;
 * a server that keeps asking is reported, not looped. Every message goes through the session (logged, schema-checked).
 *
 * The canned answers themselves (answerInputRequests) are in core/input-answers.ts, which tasks/update of the tasks
 * extension uses too.
 */
import { CLIENT_CAPABILITY_NAMES } from './client-capabilities.js';
import { CLIENT_CAPABILITIES_FLAG, answerInputRequests, type MrtrExchange } from './input-answers.js';
export {
  answerInputRequests,
  isDeclared,
  neededCapability,
  type CannedInputs,
  type InputProblem,
  type MrtrExchange,
} from './input-answers.js';
import { isObject as isObj } from './objects.js';
import { ERROR_CODE } from './wire.js';
import type { Reply, RequestOptions, Session } from './session.js';
import type { Service } from './services.js';
import type { CaseContext, ExchangeRecord } from './suite.js';

/** The client requests a server may answer with input_required; on any other it MUST NOT. */
export const MRTR_METHODS: readonly string[] = ['tools/call', 'prompts/get', 'resources/read'];

/** How many times the harness answers and sends a request again before it stops (the server keeps asking). */
export const MAX_INPUT_ROUNDS = 3;

export function isInputRequired(result: unknown): result is Record<string, unknown> {
  return isObj(result) && result.resultType === 'input_required';
}

/**
 * The exchanges of the run that met input_required (a run service, filled as requests go): the surface-2026 cases
 * read it.
 */
export const mrtrExchanges: Service<MrtrExchange[]> = {
  id: 'mrtr-exchanges',
  produce: async () => [],
};

export interface InputRoundsOptions {
  timeoutMs?: number;
  /** Called before each retry (the call policy checks a tools/call again): a throw stops the rounds. */
  beforeRetry?: () => Promise<void> | void;
  /** RequestOptions.timeoutFrom of every round (a call pipelined behind another). */
  timeoutFrom?: Promise<unknown>;
  /** The exchange is recorded here once it met input_required. */
  record?: (x: MrtrExchange) => void;
  caseId?: string;
}

/** The RequestOptions of each round: the timeout, and the call it is pipelined behind, where given. */
function requestOptions(opts: Pick<InputRoundsOptions, 'timeoutMs' | 'timeoutFrom'>): RequestOptions {
  return {
    ...(opts.timeoutMs !== undefined ? { timeoutMs: opts.timeoutMs } : {}),
    ...(opts.timeoutFrom ? { timeoutFrom: opts.timeoutFrom } : {}),
  };
}

function targetOf(method: string, params: Record<string, unknown> | undefined): string | undefined {
  const v = method === 'resources/read' ? params?.uri : params?.name;
  return typeof v === 'string' ? v : undefined;
}

/**
 * Send a request; when it is one that may meet input_required (MRTR_METHODS) and the answer is input_required,
 * answer the input requests with the canned results and send it again (new id, the original params with
 * `inputResponses` and the echoed `requestState`), at most MAX_INPUT_ROUNDS times. Returns the final reply (which is
 * still input_required when the harness could not answer or the server kept asking) and the exchange when there was
 * one. A request that gets no answer rejects as session.request does (after the exchange is recorded).
 */
export async function requestWithInput(
  session: Session,
  method: string,
  params: Record<string, unknown> | undefined,
  opts: InputRoundsOptions = {},
): Promise<{ reply: Reply; mrtr?: MrtrExchange }> {
  const ro = requestOptions(opts);
  let reply = await session.request(method, params, ro);
  if (!MRTR_METHODS.includes(method) || !isInputRequired(reply.result)) return { reply };
  const x: MrtrExchange = {
    method,
    ...(targetOf(method, params) !== undefined ? { target: targetOf(method, params) } : {}),
    ...(opts.caseId ? { caseId: opts.caseId } : {}),
    rounds: [reply],
    answered: [],
    outcome: 'not-exercisable',
    problems: [],
  };
  opts.record?.(x);
  const declared = session.opts.clientCapabilities ?? {};
  const base: Record<string, unknown> = { ...(params ?? {}) };
  delete base.inputResponses;
  delete base.requestState;
  for (let round = 1; ; round++) {
    const r = reply.result!;
    const hasRequests = r.inputRequests !== undefined;
    const hasState = typeof r.requestState === 'string';
    if (!hasRequests && !hasState) {
      x.note =
        'the input_required result carries neither inputRequests nor requestState: there is nothing to answer or echo';
      return { reply, mrtr: x };
    }
    if (hasRequests && !isObj(r.inputRequests)) {
      x.note = 'inputRequests is not an object (a map of input requests): the harness cannot answer it';
      return { reply, mrtr: x };
    }
    const canned = answerInputRequests(r.inputRequests, declared, session.opts.roots);
    if (canned.problems.length) {
      x.problems.push(...canned.problems);
      x.note = `not answered: ${canned.problems.map((p) => p.why).join('; ')}`;
      return { reply, mrtr: x };
    }
    if (round > MAX_INPUT_ROUNDS) {
      x.outcome = 'still-asking';
      x.note = `still input_required after ${MAX_INPUT_ROUNDS} answered round(s); the harness stops there (the server may keep asking when the canned answers do not give it what it needs)`;
      return { reply, mrtr: x };
    }
    try {
      await opts.beforeRetry?.();
    } catch (e) {
      x.note = `not sent again: ${(e as Error).message}`;
      return { reply, mrtr: x };
    }
    const retry: Record<string, unknown> = { ...base };
    if (hasRequests) retry.inputResponses = canned.responses;
    if (hasState) retry.requestState = r.requestState;
    x.answered.push(hasRequests ? canned.answered : ['(requestState only)']);
    try {
      reply = await session.request(method, retry, ro);
    } catch (e) {
      x.outcome = 'failure';
      throw e;
    }
    x.rounds.push(reply);
    if (reply.error) {
      x.outcome = 'error';
      return { reply, mrtr: x };
    }
    if (!isInputRequired(reply.result)) {
      x.outcome = 'complete';
      return { reply, mrtr: x };
    }
  }
}

/**
 * A request through the case context that answers input_required (requestWithInput), recorded in the run's
 * mrtrExchanges. Only from 2026-07-28; before it, a plain request.
 */
export async function requestAnswering(
  ctx: Pick<CaseContext, 'session' | 'features' | 'service'> & { currentCase?: string },
  method: string,
  params: Record<string, unknown> | undefined,
  opts: Omit<InputRoundsOptions, 'record'> & { onExchange?: (x: MrtrExchange) => void } = {},
): Promise<{ reply: Reply; mrtr?: MrtrExchange }> {
  if (!ctx.features.mrtr) return { reply: await ctx.session.request(method, params, requestOptions(opts)) };
  const list = await ctx.service(mrtrExchanges);
  const { onExchange, ...rest } = opts;
  return requestWithInput(ctx.session, method, params, {
    ...rest,
    ...(ctx.currentCase ? { caseId: ctx.currentCase } : {}),
    record: (x) => {
      list.push(x);
      onExchange?.(x);
    },
  });
}

/** The capabilities an error -32021 (MissingRequiredClientCapabilityError, 2026-07-28) names, in words. */
function requiredCapabilitiesOf(data: unknown): string {
  const req = isObj(data) && isObj(data.requiredCapabilities) ? data.requiredCapabilities : undefined;
  if (!req) return 'a client capability (the error names none)';
  const names = Object.entries(req).flatMap(([k, v]) =>
    isObj(v) && Object.keys(v).length ? Object.keys(v).map((s) => `${k}.${s}`) : [k],
  );
  return names.length ? names.join(', ') : 'a client capability (requiredCapabilities is empty)';
}

export const MISSING_CAPABILITY_CODE = ERROR_CODE.missingClientCapability;

/**
 * A request the harness could not exercise because of client input (2026-07-28): the final answer is still
 * input_required (not answered, or the server kept asking), or the server refused with -32021 because the harness did
 * not declare a capability it needs. Returns the skip a case gives (never a server fault), or undefined.
 */
export function notExercisable(
  features: { mrtr: boolean },
  reply: Reply | undefined,
  mrtr?: MrtrExchange,
): { verdict: 'skip'; message: string; messageIds: number[] } | undefined {
  if (!features.mrtr || !reply) return undefined;
  const messageIds = (mrtr?.rounds ?? [reply]).flatMap((r) => [r.request.seq, r.response.seq]);
  if (isInputRequired(reply.result)) {
    const why = mrtr?.note ?? 'the harness did not answer it';
    const rounds = mrtr && mrtr.rounds.length > 1 ? ` (after ${mrtr.rounds.length - 1} answered round(s))` : '';
    return {
      verdict: 'skip',
      messageIds,
      message: `not exercisable: the server answered input_required${rounds} — ${why}`,
    };
  }
  if (reply.error?.code === MISSING_CAPABILITY_CODE) {
    const caps = requiredCapabilitiesOf(reply.error.data);
    const top = [...new Set(caps.split(', ').map((c) => c.split('.')[0]!))].filter((c) =>
      (CLIENT_CAPABILITY_NAMES as readonly string[]).includes(c),
    );
    const how = top.length
      ? `${CLIENT_CAPABILITIES_FLAG} ${top.join(',')} declares ${top.length > 1 ? 'them' : 'it'} and the harness answers with canned results`
      : `the harness cannot declare it (${CLIENT_CAPABILITIES_FLAG} knows sampling, elicitation, roots)`;
    return {
      verdict: 'skip',
      messageIds,
      message: `not exercisable: the server refused with error -32021 (missing required client capability: ${caps}); ${how}`,
    };
  }
  return undefined;
}

/** The reply's request and answer of every round of an exchange record (for messageIds). */
export function roundIds(rec: Pick<ExchangeRecord, 'reply'> & { mrtr?: MrtrExchange }): number[] {
  if (rec.mrtr) return rec.mrtr.rounds.flatMap((r) => [r.request.seq, r.response.seq]);
  return rec.reply ? [rec.reply.request.seq, rec.reply.response.seq] : [];
}

/** What a probe sent in place of the harness's normal retry (surface-2026's input probes). */
export interface AlteredRetry {
  /** The first answer: input_required, as the exchange that is replayed had it. */
  first: Reply;
  /** The altered retry's answer. */
  retry?: Reply;
  /** Why no altered retry was sent (the server did not ask this time, or asked for what the harness cannot give). */
  note?: string;
  /** What was answered in the canned retry the alteration starts from. */
  answered: string[];
}

/**
 * Sends a request again from its first round and answers its input_required with the canned answers, altered by
 * `alter` (a tampered requestState, an extra key, malformed answers…), once. The harness's own exchanges are not
 * touched: nothing is recorded in mrtrExchanges. `expectInvalid` marks an altered retry that breaks the schema on
 * purpose (its violations are the probe's, not the harness's). Rejects as session.request does when a request gets no answer.
 */
export async function retryAltered(
  session: Session,
  method: string,
  params: Record<string, unknown>,
  alter: (retry: Record<string, unknown>, first: Record<string, unknown>) => Record<string, unknown> | string,
  opts: Pick<InputRoundsOptions, 'timeoutMs'> & { expectInvalid?: string } = {},
): Promise<AlteredRetry> {
  const ro = requestOptions(opts);
  const base: Record<string, unknown> = { ...params };
  delete base.inputResponses;
  delete base.requestState;
  const first = await session.request(method, base, ro);
  const out: AlteredRetry = { first, answered: [] };
  const r = first.result;
  if (!isInputRequired(r)) {
    out.note = `this time the first request was answered with ${first.error ? `error ${first.error.code}` : `a ${String((r as Record<string, unknown> | undefined)?.resultType ?? 'plain')} result`}, not input_required`;
    return out;
  }
  const canned = answerInputRequests(r.inputRequests, session.opts.clientCapabilities ?? {}, session.opts.roots);
  if (canned.problems.length) {
    out.note = `not answered: ${canned.problems.map((p) => p.why).join('; ')}`;
    return out;
  }
  const retry: Record<string, unknown> = { ...base };
  if (r.inputRequests !== undefined) retry.inputResponses = canned.responses;
  if (typeof r.requestState === 'string') retry.requestState = r.requestState;
  out.answered = canned.answered;
  const altered = alter(retry, r);
  if (typeof altered === 'string') {
    out.note = altered;
    return out;
  }
  out.retry = await session.request(method, altered, {
    ...ro,
    ...(opts.expectInvalid ? { expectInvalid: opts.expectInvalid } : {}),
  });
  return out;
}
