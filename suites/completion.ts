/**
 * Completion: completion/complete for prompt arguments and resource-template variables (at most 100 values, total
 * and hasMore consistent), and an error for a prompt the server does not have.
 * https://modelcontextprotocol.io/specification/2025-11-25/server/utilities/completion
 */
import type { CaseContext, Outcome, Suite } from '../core/suite.js';
import { promptListing, resourceTemplateListing, templateVariables } from '../core/surface.js';
import { brief, describeError, expectInvalidParams, isObject, unanswered } from './helpers.js';
import { UNKNOWN_PROMPT } from './prompts.js';

/** Most completion requests per case. */
export const MAX_COMPLETIONS = 20;

interface Ask {
  ref: Record<string, unknown>;
  argument: string;
  label: string;
}

/** What is wrong with a completion/complete result, in words (none: []); a SHOULD-level problem is marked soft. */
export function completionProblems(result: unknown): { hard: string[]; soft: string[]; count: number } {
  const hard: string[] = [],
    soft: string[] = [];
  const c = isObject(result) ? result.completion : undefined;
  if (!isObject(c)) return { hard: [`the result has no completion object (got ${brief(result, 80)})`], soft, count: 0 };
  const v = c.values;
  if (!Array.isArray(v)) return { hard: [`completion.values is ${brief(v, 60)}, not an array`], soft, count: 0 };
  if (v.some((x) => typeof x !== 'string')) hard.push('completion.values holds a value that is not a string');
  if (v.length > 100) hard.push(`completion.values has ${v.length} values; at most 100 are allowed`);
  if (c.total !== undefined && (!Number.isInteger(c.total) || (c.total as number) < 0))
    hard.push(`completion.total is ${brief(c.total, 40)}, not a non-negative integer`);
  else if (typeof c.total === 'number' && c.total < v.length)
    soft.push(`completion.total ${c.total} is less than the ${v.length} values sent`);
  if (c.hasMore !== undefined && typeof c.hasMore !== 'boolean')
    hard.push(`completion.hasMore is ${brief(c.hasMore, 40)}, not a boolean`);
  else if (c.hasMore === false && typeof c.total === 'number' && c.total > v.length)
    soft.push(`hasMore is false but total ${c.total} is more than the ${v.length} values sent`);
  return { hard, soft, count: v.length };
}

async function ask(ctx: CaseContext, asks: Ask[], none: string): Promise<Outcome> {
  if (!asks.length) return { verdict: 'skip', message: none };
  const ids: number[] = [];
  const hard: string[] = [],
    soft: string[] = [],
    refused: string[] = [];
  let values = 0;
  for (const a of asks.slice(0, MAX_COMPLETIONS)) {
    let reply;
    try {
      reply = await ctx.session.request('completion/complete', {
        ref: a.ref,
        argument: { name: a.argument, value: '' },
      });
    } catch (e) {
      return { ...unanswered(e as Error), messageIds: [...ids, ...(unanswered(e as Error).messageIds ?? [])] };
    }
    ids.push(reply.request.seq, reply.response.seq);
    if (reply.error) {
      if (reply.error.code === -32601)
        return {
          verdict: 'fail',
          messageIds: ids,
          message: `completion/complete for ${a.label} answered -32601 (method not found) although the server declared completions`,
        };
      refused.push(`${a.label}: ${describeError(reply.error)}`);
      continue;
    }
    const p = completionProblems(reply.result);
    hard.push(...p.hard.map((x) => `${a.label}: ${x}`));
    soft.push(...p.soft.map((x) => `${a.label}: ${x}`));
    values += p.count;
  }
  const n = Math.min(asks.length, MAX_COMPLETIONS);
  const asked = `${n} completion/complete request${n === 1 ? '' : 's'} (empty value)${asks.length > n ? `, ${asks.length - n} more not sent (at most ${MAX_COMPLETIONS})` : ''}`;
  if (hard.length) return { verdict: 'fail', messageIds: ids, message: `${asked}: ${hard.slice(0, 4).join('; ')}` };
  if (soft.length)
    return { verdict: 'warn', level: 'SHOULD', messageIds: ids, message: `${asked}: ${soft.slice(0, 4).join('; ')}` };
  if (refused.length === n)
    return {
      verdict: 'info',
      messageIds: ids,
      message: `${asked}: every one answered with an error (${refused.slice(0, 2).join('; ')}); what a server completes is up to it`,
    };
  return {
    verdict: 'pass',
    messageIds: ids,
    message: `${asked}: well-formed results, ${values} value${values === 1 ? '' : 's'} in all${refused.length ? `; ${refused.length} answered with an error (${refused[0]})` : ''}`,
  };
}

export const completion: Suite = {
  id: 'completion',
  title: 'Completion',
  description: 'completion/complete for prompt arguments and template variables',
  cases: [
    {
      id: 'completion/prompt-argument',
      title: 'completion of prompt arguments answers well-formed values',
      level: 'MUST',
      spec: 'server/utilities/completion#requesting-completions',
      requirement:
        'completion/complete with a ref/prompt and one of its arguments answers completion.values, an array of at most 100 strings, with total (an integer, not less than the values sent) and hasMore (a boolean) when given and consistent.',
      requires: { capability: 'completions' },
      async run(ctx) {
        const ps = (await ctx.service(promptListing)).items;
        const asks: Ask[] = ps.flatMap((p) =>
          (p.arguments ?? [])
            .filter((a) => isObject(a) && typeof a.name === 'string')
            .map((a) => ({
              ref: { type: 'ref/prompt', name: p.name },
              argument: a.name,
              label: `prompt "${p.name}" argument "${a.name}"`,
            })),
        );
        return ask(ctx, asks, 'no listed prompt has arguments to complete');
      },
    },
    {
      id: 'completion/template-variable',
      title: 'completion of resource-template variables answers well-formed values',
      level: 'MUST',
      spec: 'server/utilities/completion#requesting-completions',
      requirement:
        'completion/complete with a ref/resource (a listed uriTemplate) and one of its variables answers completion.values as for prompt arguments.',
      requires: { capability: 'completions' },
      async run(ctx) {
        const ts = (await ctx.service(resourceTemplateListing)).items;
        const asks: Ask[] = ts.flatMap((t) =>
          templateVariables(t.uriTemplate).map((v) => ({
            ref: { type: 'ref/resource', uri: t.uriTemplate },
            argument: v,
            label: `template ${t.uriTemplate} variable "${v}"`,
          })),
        );
        return ask(ctx, asks, 'no listed resource template has variables to complete');
      },
    },
    {
      id: 'completion/unknown-prompt',
      title: 'completion for a prompt the server does not have is an error',
      level: 'SHOULD',
      spec: 'server/utilities/completion#error-handling',
      requirement:
        'completion/complete with a ref/prompt naming no listed prompt should be answered with error -32602 (invalid params).',
      requires: { capability: 'completions' },
      async run(ctx) {
        let reply;
        try {
          reply = await ctx.session.request('completion/complete', {
            ref: { type: 'ref/prompt', name: UNKNOWN_PROMPT },
            argument: { name: 'x', value: '' },
          });
        } catch (e) {
          return unanswered(e as Error);
        }
        return expectInvalidParams(`completion/complete for the unlisted prompt "${UNKNOWN_PROMPT}"`, reply);
      },
    },
  ],
};
