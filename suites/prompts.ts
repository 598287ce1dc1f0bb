/**
 * Prompts: prompts/list with every page followed, prompts/get of every prompt with its required arguments filled
 * (values offered by completion where the server has it, else a plain string), well-formed messages, and the errors
 * for a missing required argument and an unknown prompt. https://modelcontextprotocol.io/specification/2025-11-25/server/prompts
 */
import { notExercisable, requestAnswering, roundIds } from '../core/mrtr.js';
import type { CaseContext, ItemOutcome, Outcome, Suite } from '../core/suite.js';
import { isBase64, promptListing, type Prompt } from '../core/surface.js';
import { brief, describeError, expectInvalidParams, isObject, listingProblem, unanswered } from './helpers.js';
import { callToolsOption } from '../core/call-policy.js';

/** Most prompts fetched with prompts/get (one result each). */
export const MAX_PROMPT_GETS = 50;
/** The value given to a required argument when completion offers none. */
export const ARGUMENT_VALUE = 'mcp-conform';
/** The value tried next when the server refuses ARGUMENT_VALUE. */
export const ARGUMENT_NUMBER = '1';
export const UNKNOWN_PROMPT = 'mcp-conform-no-such-prompt';

/** What is wrong with one message of a prompts/get result, in words (none: []). */
export function promptMessageProblems(m: unknown, i: number): string[] {
  const at = `messages[${i}]`;
  if (!isObject(m)) return [`${at} is ${brief(m, 60)}, not an object`];
  const out: string[] = [];
  if (m.role !== 'user' && m.role !== 'assistant')
    out.push(`${at}.role is ${brief(m.role, 40)}, not "user" or "assistant"`);
  const c = m.content;
  if (!isObject(c) || typeof c.type !== 'string')
    return [...out, `${at}.content is ${brief(c, 60)}, not a content block with a type`];
  switch (c.type) {
    case 'text':
      if (typeof c.text !== 'string') out.push(`${at}.content.text is not a string`);
      break;
    case 'image':
    case 'audio':
      if (typeof c.data !== 'string' || !isBase64(c.data)) out.push(`${at}.content.data is not base64`);
      if (typeof c.mimeType !== 'string') out.push(`${at}.content.mimeType is not a string`);
      break;
    case 'resource': {
      const r = c.resource;
      if (!isObject(r) || typeof r.uri !== 'string') out.push(`${at}.content.resource has no uri`);
      else if (typeof r.text !== 'string' && (typeof r.blob !== 'string' || !isBase64(r.blob)))
        out.push(`${at}.content.resource has neither a text string nor a base64 blob`);
      break;
    }
    case 'resource_link':
      if (typeof c.uri !== 'string' || typeof c.name !== 'string')
        out.push(`${at}.content (resource_link) needs a uri and a name`);
      break;
    default:
      out.push(`${at}.content.type ${JSON.stringify(c.type)} is not a content block type`);
  }
  return out;
}

/**
 * Made-up argument values are sent only with --call-tools all: a prompt may act on its arguments (the
 * @agent-infra/mcp-server-commands prompt run_command runs its argument as a shell command).
 */
export function mayMakeUpArguments(ctx: CaseContext): boolean {
  return ctx.option(callToolsOption) === 'all';
}

/** Values for the required arguments: the first completion the server offers, else ARGUMENT_VALUE. */
async function argumentsFor(
  ctx: CaseContext,
  p: Prompt,
  skip?: string,
): Promise<{ args: Record<string, string>; from: string[]; madeUp: string[] }> {
  const args: Record<string, string> = {};
  const from: string[] = [];
  const madeUp: string[] = [];
  for (const a of p.arguments ?? []) {
    if (!isObject(a) || typeof a.name !== 'string' || a.required !== true || a.name === skip) continue;
    let value = ARGUMENT_VALUE;
    if (ctx.capabilities.completions !== undefined) {
      try {
        const r = await ctx.session.request('completion/complete', {
          ref: { type: 'ref/prompt', name: p.name },
          argument: { name: a.name, value: '' },
        });
        const v = (r.result?.completion as { values?: unknown } | undefined)?.values;
        if (Array.isArray(v) && typeof v[0] === 'string') {
          value = v[0];
          from.push(a.name);
        }
      } catch {
        /* a plain value then */
      }
    }
    args[a.name] = value;
    if (!from.includes(a.name)) madeUp.push(a.name);
  }
  return { args, from, madeUp };
}

async function getOne(ctx: CaseContext, p: Prompt): Promise<ItemOutcome> {
  const item = p.name;
  const { args, from, madeUp: invented } = await argumentsFor(ctx, p);
  if (invented.length && !mayMakeUpArguments(ctx)) {
    return {
      item,
      verdict: 'skip',
      message: `not fetched: required argument${invented.length === 1 ? '' : 's'} ${invented.map((a) => `"${a}"`).join(', ')} ${invented.length === 1 ? 'has' : 'have'} no value the server offers (completion), and made-up values are sent only with --call-tools all (a prompt may act on its arguments)`,
    };
  }
  let reply, mrtr;
  try {
    // 2026-07-28: an input_required answer is answered with canned input and sent again (core/mrtr.ts).
    ({ reply, mrtr } = await requestAnswering(ctx, 'prompts/get', {
      name: p.name,
      ...(Object.keys(args).length ? { arguments: args } : {}),
    }));
  } catch (e) {
    return { item, ...unanswered(e as Error) };
  }
  const blocked = notExercisable(ctx.features, reply, mrtr);
  if (blocked) return { item, ...blocked };
  // A made-up word refused: once more with a number in its place (arguments are strings; many are ids or counts).
  const madeUp = Object.keys(args).filter((k) => !from.includes(k));
  if (reply.error && reply.error.code !== -32601 && madeUp.length) {
    for (const k of madeUp) args[k] = ARGUMENT_NUMBER;
    try {
      const again = await ctx.session.request('prompts/get', { name: p.name, arguments: args });
      if (!again.error) reply = again;
    } catch (e) {
      return { item, ...unanswered(e as Error) };
    }
  }
  const messageIds =
    mrtr && reply === mrtr.rounds.at(-1) ? roundIds({ reply, mrtr }) : [reply.request.seq, reply.response.seq];
  const sent = `prompts/get ${JSON.stringify(p.name)} with ${Object.keys(args).length ? `arguments ${brief(args, 120)}${from.length ? ` (from completion: ${from.join(', ')})` : ''}` : 'no arguments'}`;
  if (reply.error) {
    // The values were made up: a refusal may be about them, not a fault of the server.
    if (Object.keys(args).length && reply.error.code !== -32601)
      return {
        item,
        verdict: 'info',
        messageIds,
        message: `${sent} answered with error ${describeError(reply.error)}: the argument values were made up, so this is not judged`,
      };
    // No argument was sent: the field was left out, as GetPromptRequest allows. A server that serves "arguments": {}
    // only mishandles the omitted field, which the message says (what to fix); a client that omits it still fails.
    const withEmpty = Object.keys(args).length
      ? undefined
      : await ctx.session.request('prompts/get', { name: p.name, arguments: {} }).catch(() => undefined);
    if (withEmpty && !withEmpty.error) {
      return {
        item,
        verdict: 'fail',
        messageIds: [...messageIds, withEmpty.request.seq, withEmpty.response.seq],
        message: `${sent} answered with error ${describeError(reply.error)}, though with "arguments": {} it is served: the server refuses a request that leaves out the optional arguments field (as a client with no argument to send writes it), so a listed prompt that needs no made-up value cannot be fetched`,
      };
    }
    return {
      item,
      verdict: 'fail',
      messageIds,
      message: `${sent} answered with error ${describeError(reply.error)}: a listed prompt that needs no made-up value cannot be fetched`,
    };
  }
  const msgs = reply.result?.messages;
  if (!Array.isArray(msgs))
    return {
      item,
      verdict: 'fail',
      messageIds,
      message: `${sent}: the result has no messages array (got ${brief(msgs, 80)})`,
    };
  const problems = msgs.flatMap((m, i) => promptMessageProblems(m, i));
  if (problems.length)
    return { item, verdict: 'fail', messageIds, message: `${sent}: ${problems.slice(0, 5).join('; ')}` };
  return {
    item,
    verdict: 'pass',
    messageIds,
    message: `${sent}: ${msgs.length} message${msgs.length === 1 ? '' : 's'} (${[...new Set(msgs.map((m) => (m as { role: string }).role))].join(', ') || 'none'})`,
  };
}

async function prompts(ctx: CaseContext): Promise<Outcome | Prompt[]> {
  const l = await ctx.service(promptListing);
  if (l.problem && !l.items.length)
    return { verdict: 'skip', message: `no prompts to look at: ${l.problem}`, messageIds: l.messageIds };
  return l.items;
}

/** The verdict for a request the spec wants refused with -32602 (a SHOULD). */
export const promptsSuite: Suite = {
  id: 'prompts',
  title: 'Prompts',
  description: 'prompts/list, prompts/get, errors for bad prompt requests',
  cases: [
    {
      id: 'prompts/list',
      title: 'prompts/list is answered, and every page can be followed to the end',
      level: 'MUST',
      spec: 'server/prompts#listing-prompts',
      requirement:
        'A server that declares prompts answers prompts/list with a prompts array of objects with a name; pages are followed to the end (a cursor that comes back is a loop).',
      requires: { capability: 'prompts' },
      async run(ctx) {
        const l = await ctx.service(promptListing);
        if (l.problem) return listingProblem(l, 'prompts/list');
        if (l.malformed.length)
          return {
            verdict: 'fail',
            messageIds: l.messageIds,
            message: `${l.malformed.length} entries of prompts are not prompt objects with a string name, e.g. ${brief(l.malformed[0]!.value)}`,
          };
        const names = new Map<string, number>();
        for (const p of l.items) names.set(p.name, (names.get(p.name) ?? 0) + 1);
        const dup = [...names].filter(([, n]) => n > 1);
        if (dup.length)
          return {
            verdict: 'fail',
            messageIds: l.messageIds,
            message: `prompt names listed more than once: ${dup.map(([n, k]) => `"${n}" ×${k}`).join(', ')}`,
          };
        return {
          verdict: 'pass',
          messageIds: l.messageIds,
          message: `${l.items.length} prompt${l.items.length === 1 ? '' : 's'} in ${l.pages.length} page${l.pages.length === 1 ? '' : 's'}`,
        };
      },
    },
    {
      id: 'prompts/get',
      title: 'every listed prompt can be fetched, with well-formed messages',
      level: 'MUST',
      spec: 'server/prompts#getting-a-prompt',
      requirement: `prompts/get of a listed prompt, its required arguments filled (with a value completion offers; with --call-tools all, else "${ARGUMENT_VALUE}", and "${ARGUMENT_NUMBER}" when that is refused — by default a prompt that needs a made-up value is not fetched), answers a messages array; each message has role "user" or "assistant" and one content block (text, image, audio, embedded resource, resource link) that is well-formed. An error when made-up values were sent is info. At most ${MAX_PROMPT_GETS} prompts.`,
      perItem: 'prompt',
      requires: { capability: 'prompts' },
      async run(ctx) {
        const ps = await prompts(ctx);
        if (!Array.isArray(ps)) return ps;
        if (!ps.length) return { verdict: 'skip', message: 'the server lists no prompts' };
        const out: ItemOutcome[] = [];
        for (const p of ps.slice(0, MAX_PROMPT_GETS))
          if (ctx.selected(`prompts/get/${p.name}`)) out.push(await getOne(ctx, p));
        if (ps.length > MAX_PROMPT_GETS)
          out.push({
            item: 'beyond-bound',
            verdict: 'skip',
            message: `${ps.length - MAX_PROMPT_GETS} more prompts not fetched: at most ${MAX_PROMPT_GETS}`,
          });
        return out;
      },
    },
    {
      id: 'prompts/missing-argument',
      title: 'a prompts/get without a required argument is refused with -32602',
      level: 'SHOULD',
      spec: 'server/prompts#error-handling',
      requirement:
        'prompts/get that leaves out a required argument should be answered with error -32602 (invalid params).',
      requires: { capability: 'prompts' },
      async run(ctx) {
        const ps = await prompts(ctx);
        if (!Array.isArray(ps)) return ps;
        const p = ps.find(
          (x) =>
            Array.isArray(x.arguments) &&
            x.arguments.some((a) => isObject(a) && a.required === true && typeof a.name === 'string'),
        );
        if (!p) return { verdict: 'skip', message: 'no prompt declares a required argument' };
        const left = p.arguments!.find((a) => isObject(a) && a.required === true)!.name;
        const { args, madeUp } = await argumentsFor(ctx, p, left);
        if (madeUp.length && !mayMakeUpArguments(ctx))
          return {
            verdict: 'skip',
            message: `not probed: prompt "${p.name}" has other required arguments (${madeUp.join(', ')}) with no value the server offers, and made-up values are sent only with --call-tools all`,
          };
        let reply, mrtr;
        try {
          // 2026-07-28: a server may ask for input first (input_required): answered with canned input, then judged.
          ({ reply, mrtr } = await requestAnswering(ctx, 'prompts/get', { name: p.name, arguments: args }));
        } catch (e) {
          return unanswered(e as Error);
        }
        const blocked = notExercisable(ctx.features, reply, mrtr);
        if (blocked) return blocked;
        return expectInvalidParams(
          `prompts/get ${JSON.stringify(p.name)} without its required argument "${left}"`,
          reply,
        );
      },
    },
    {
      id: 'prompts/unknown-prompt',
      title: 'a prompts/get of an unknown prompt is refused with -32602',
      level: 'SHOULD',
      spec: 'server/prompts#error-handling',
      requirement:
        'prompts/get of a name the server does not list should be answered with error -32602 (invalid params).',
      requires: { capability: 'prompts' },
      async run(ctx) {
        let reply;
        try {
          reply = await ctx.session.request('prompts/get', { name: UNKNOWN_PROMPT });
        } catch (e) {
          return unanswered(e as Error);
        }
        return expectInvalidParams(`prompts/get of the unlisted name "${UNKNOWN_PROMPT}"`, reply);
      },
    },
  ],
};
