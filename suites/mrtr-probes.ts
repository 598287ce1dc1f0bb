/**
 * How a server takes a retry that is not what it asked for (2026-07-28 multi round-trip requests): a requestState
 * that was altered, inputResponses with a key it never asked for, answers that are no result objects. Each probe
 * replays, once, a request that met input_required earlier in the run and that the harness could answer to the end
 * (so a plain retry is known to work): the first round is sent again, and its canned retry is altered in one way.
 * Part of the surface-2026 suite (the ids say so); kept apart to keep that module small.
 * https://modelcontextprotocol.io/specification/2026-07-28/basic/patterns/mrtr
 */
import type { CaseContext, CaseDef, Outcome } from '../core/suite.js';
import { mrtrExchanges, retryAltered, type AlteredRetry, type MrtrExchange } from '../core/mrtr.js';
import { assertCallAllowed } from '../core/call-policy.js';
import { brief, describeError, isObject, unanswered } from './helpers.js';

/** The key the extra-input probe adds to inputResponses: one no server asked for. */
export const EXTRA_INPUT_KEY = 'mcp-conform-unrequested';
/** What the malformed-input probe puts in place of each answer: a string, where a result object belongs. */
const NOT_A_RESULT = 'mcp-conform: not a result object';

function what(x: MrtrExchange): string {
  return `${x.method}${x.target !== undefined ? ` ${JSON.stringify(x.target)}` : ''}`;
}

/** The params the exchange's first request carried, without the envelope `_meta` (the session adds its own). */
export function firstParams(x: MrtrExchange): Record<string, unknown> {
  const json = x.rounds[0]!.request.json;
  const params = isObject(json) && isObject(json.params) ? { ...json.params } : {};
  delete params._meta;
  delete params.inputResponses;
  delete params.requestState;
  return params;
}

/**
 * A string that differs from `s` in one character near its middle, same length, same alphabet where it can (so a
 * base64 or hex state still decodes, and only its integrity check can tell).
 */
export function tamper(s: string): string {
  if (!s.length) return 'x';
  const i = Math.floor(s.length / 2);
  const c = s[i]!;
  const swap = /[0-9]/.test(c)
    ? c === '7'
      ? '3'
      : '7'
    : /[a-z]/.test(c)
      ? c === 'q'
        ? 'k'
        : 'q'
      : /[A-Z]/.test(c)
        ? c === 'Q'
          ? 'K'
          : 'Q'
        : c === 'x'
          ? 'y'
          : 'x';
  return s.slice(0, i) + swap + s.slice(i + 1);
}

function ids(a: AlteredRetry): number[] {
  return [a.first.request.seq, a.first.response.seq, ...(a.retry ? [a.retry.request.seq, a.retry.response.seq] : [])];
}

/**
 * Replays one exchange of the run that `pick` accepts, with its retry altered; the Outcome when there is nothing to
 * probe (skip), the call policy says no, or the server did not answer.
 */
async function probe(
  ctx: CaseContext,
  pick: (x: MrtrExchange) => boolean,
  none: string,
  purpose: string,
  alter: Parameters<typeof retryAltered>[3],
  expectInvalid?: string,
): Promise<{ x: MrtrExchange; a: AlteredRetry } | Outcome> {
  const xs = (await ctx.service(mrtrExchanges)).filter(pick);
  const x = xs.find((e) => e.outcome === 'complete' && e.rounds.length > 1);
  if (!xs.length) return { verdict: 'skip', message: `${none} was never sent earlier in the run` };
  if (!x)
    return {
      verdict: 'skip',
      message: `not exercisable: no request answered with ${none} could be followed to a complete result earlier in the run (see surface-2026/input-required-rounds)`,
    };
  const params = firstParams(x);
  if (x.method === 'tools/call' && typeof params.name === 'string') {
    try {
      await assertCallAllowed(ctx, params.name, purpose);
    } catch (e) {
      return { verdict: 'skip', message: `not probed: ${(e as Error).message}` };
    }
  }
  try {
    const a = await retryAltered(ctx.session, x.method, params, alter, expectInvalid ? { expectInvalid } : {});
    if (!a.retry)
      return {
        verdict: 'skip',
        messageIds: ids(a),
        message: `not probed: ${what(x)} sent again from its first round: ${a.note}`,
      };
    return { x, a };
  } catch (e) {
    return unanswered(e as Error);
  }
}

/** The altered retry's answer in words. */
function answer(a: AlteredRetry): string {
  const r = a.retry!;
  if (r.error) return `error ${describeError(r.error)}`;
  if (r.result?.resultType === 'input_required') {
    const keys = isObject(r.result.inputRequests) ? Object.keys(r.result.inputRequests) : [];
    return `input_required again${keys.length ? ` (asking for ${keys.map((k) => `"${k}"`).join(', ')})` : ' (requestState only)'}`;
  }
  return `a ${String(r.result?.resultType ?? 'plain')} result (${brief(r.result, 100)})`;
}

export const inputProbeCases: CaseDef[] = [
  {
    id: 'surface-2026/input-state-tampered',
    title: "a retry whose requestState was altered is not served as if it were the server's own",
    level: 'MUST',
    spec: 'basic/patterns/mrtr#server-requirements-basic-workflow',
    requirement:
      'requestState comes back through the client, so a server treats it as attacker-controlled: where it influences authorization, resource access or business logic the server protects its integrity (an HMAC, AEAD) and refuses state that fails the check. Probed once: a request that met input_required with a requestState, and that the harness answered to the end earlier in the run, is sent again from its first round and its retry carries the canned answers with the requestState changed in one character. Refused (an error) or asked again (input_required): pass. Served as complete: warn, not fail — the spec lets a server skip integrity protection when tampering can do nothing worse than fail the request, and that cannot be seen from outside. A tools/call goes out only when the call policy allows the tool.',
    requires: { feature: 'mrtr' },
    async run(ctx) {
      let from = '',
        to = '';
      const p = await probe(
        ctx,
        (x) => x.rounds.slice(0, -1).some((r) => typeof r.result?.requestState === 'string'),
        'an input_required result with a requestState',
        'mrtr-tampered-state',
        (retry) => {
          if (typeof retry.requestState !== 'string') return 'this time the server gave no requestState to alter';
          from = retry.requestState;
          to = tamper(from);
          return { ...retry, requestState: to };
        },
      );
      if (!('a' in p)) return p;
      const { x, a } = p;
      const at = Math.floor(from.length / 2);
      const sent = `${what(x)} sent again with the canned answers and its requestState altered in one character (${JSON.stringify(from[at] ?? '')} → ${JSON.stringify(to[at])} at position ${at} of ${from.length})`;
      const r = a.retry!;
      if (r.error || r.result?.resultType === 'input_required')
        return {
          verdict: 'pass',
          messageIds: ids(a),
          message: `${sent}: ${answer(a)} — the altered state was not taken as the server's own`,
        };
      return {
        verdict: 'warn',
        messageIds: ids(a),
        message: `${sent}: ${answer(a)} — the server went on with state it did not issue; that is a fault where requestState influences authorization, resource access or business logic (then it must be integrity-protected and checked), which cannot be seen from outside`,
      };
    },
  },
  {
    id: 'surface-2026/input-extra-ignored',
    title: 'an input response the server did not ask for is ignored',
    level: 'SHOULD',
    spec: 'basic/patterns/mrtr#error-handling',
    requirement: `A server should ignore what it does not recognise or need in inputResponses. Probed once: a request that met input_required with inputRequests, and that the harness answered to the end earlier in the run, is sent again from its first round and its retry carries the canned answers plus one more key, "${EXTRA_INPUT_KEY}", that the server never asked for. The request ends as it did before (a complete result): pass; an error or a new input_required: warn. A tools/call goes out only when the call policy allows the tool.`,
    requires: { feature: 'mrtr' },
    async run(ctx) {
      const p = await probe(
        ctx,
        (x) => isObject(x.rounds[0]!.result?.inputRequests),
        'an input_required result with inputRequests',
        'mrtr-extra-input',
        (retry) => {
          if (!isObject(retry.inputResponses)) return 'this time the server asked for no input (requestState only)';
          return { ...retry, inputResponses: { ...retry.inputResponses, [EXTRA_INPUT_KEY]: { action: 'decline' } } };
        },
      );
      if (!('a' in p)) return p;
      const { x, a } = p;
      const sent = `${what(x)} sent again with the canned answers (${a.answered.join('; ')}) and an input response "${EXTRA_INPUT_KEY}" it never asked for`;
      const r = a.retry!;
      if (!r.error && r.result?.resultType !== 'input_required')
        return { verdict: 'pass', messageIds: ids(a), message: `${sent}: ${answer(a)}, as without the extra key` };
      return {
        verdict: 'warn',
        messageIds: ids(a),
        message: `${sent}: ${answer(a)}; without the extra key the same answers ended in a complete result — a server should ignore input it did not ask for`,
      };
    },
  },
  {
    id: 'surface-2026/input-responses-checked',
    title: 'input responses that are no result objects are not taken as answers',
    level: 'SHOULD',
    spec: 'basic/patterns/mrtr#error-handling',
    requirement:
      'A server should check that inputResponses is a valid InputResponses map whose answers it can parse, and answer a malformed one with a JSON-RPC error (or ask again for what it still lacks). Probed once: a request that met input_required with inputRequests, and that the harness answered to the end earlier in the run, is sent again from its first round and its retry carries a string in place of each answer (an ElicitResult, CreateMessageResult or ListRootsResult is an object), requestState echoed. An error or a new input_required: pass; a complete result: warn (the server took answers it could not have parsed). A tools/call goes out only when the call policy allows the tool.',
    requires: { feature: 'mrtr' },
    async run(ctx) {
      const p = await probe(
        ctx,
        (x) => isObject(x.rounds[0]!.result?.inputRequests),
        'an input_required result with inputRequests',
        'mrtr-malformed-input',
        (retry) => {
          if (!isObject(retry.inputResponses)) return 'this time the server asked for no input (requestState only)';
          return {
            ...retry,
            inputResponses: Object.fromEntries(Object.keys(retry.inputResponses).map((k) => [k, NOT_A_RESULT])),
          };
        },
        'surface-2026/input-responses-checked: strings in place of the answers, on purpose',
      );
      if (!('a' in p)) return p;
      const { x, a } = p;
      const keys = Object.keys((isObject(a.first.result?.inputRequests) ? a.first.result!.inputRequests : {}) as object)
        .map((k) => `"${k}"`)
        .join(', ');
      const sent = `${what(x)} sent again with the string ${JSON.stringify(NOT_A_RESULT)} as the answer to ${keys}`;
      const r = a.retry!;
      if (r.error || r.result?.resultType === 'input_required')
        return { verdict: 'pass', messageIds: ids(a), message: `${sent}: ${answer(a)}` };
      return {
        verdict: 'warn',
        messageIds: ids(a),
        message: `${sent}: ${answer(a)} — the server took answers that are no result objects; it should check inputResponses and refuse (or ask again)`,
      };
    },
  },
];
