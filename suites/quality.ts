/**
 * Tool-definition quality and context cost: descriptions, parameters the model cannot fill, required names that do
 * not exist, empty enums, colliding names, mixed conventions (warn or info, never fail), and the tokens the tool list
 * adds to every model request and the size of the tool results seen in the run (info; --max-tool-tokens and
 * --max-result-tokens make an excess fail).
 */
import type { OptionDef } from '../core/options.js';
import type { Service } from '../core/services.js';
import type { ItemOutcome, Suite, ToolCallRecord } from '../core/suite.js';
import { listQuality, toolQuality, type Finding } from './compat/check.js';
import {
  TOKENIZER,
  countTokensOf,
  prepareTokenizer,
  preloadTokenizer,
  releaseTokenizer,
  resultText,
  toolCosts,
  type ToolCost,
} from './compat/cost.js';
import { listedTools } from './helpers.js';
import { toolCallsOf, tools } from '../core/tools.js';

/** The tokens of the run's tool list, counted once per run (a run service: quality/token-cost reads it). */
const listCost: Service<{ perTool: ToolCost[]; total: number }> = {
  id: 'quality-token-cost',
  produce: async (ctx) => toolCosts((await ctx.service(tools)).tools),
};

/**
 * Why the calls the run made left no tool result to measure: none was made (the call policy), or every one was
 * answered with a JSON-RPC error or not at all (a server whose tools fail offline, say) — then the calling cases say
 * more, and "no tool was called" would be false.
 */
function noResultWhy(made: ToolCallRecord[]): string {
  if (!made.length) return 'no tool was called: see --call-tools / --call-tool';
  const errors = made.filter((c) => c.reply?.error).length;
  const silent = made.length - errors;
  const how = [errors ? `${errors} answered with a JSON-RPC error` : '', silent ? `${silent} not answered` : '']
    .filter(Boolean)
    .join(', ');
  const toolCount = new Set(made.map((c) => c.tool)).size;
  return `the ${plural(made.length, 'call')} of ${plural(toolCount, 'tool')} the run made got no result: ${how}; see calling/tool/<tool>`;
}

const worst = (fs: Finding[]) => (fs.some((f) => f.severity === 'warn') ? ('warn' as const) : ('info' as const));
const plural = (n: number, w: string) => `${n} ${w}${n === 1 ? '' : 's'}`;

/** A bound in tokens (--max-tool-tokens, --max-result-tokens): the suite's own options, reported in report.options.suiteOptions. */
function tokenBound(flag: string, key: string, help: string): OptionDef<number | undefined> {
  return {
    flag,
    key,
    type: 'integer',
    inReport: 'when-set',
    reportIn: 'suiteOptions',
    help,
    validate: (v, name) =>
      typeof v === 'number' && Number.isInteger(v) && v >= 1
        ? undefined
        : `${name} must be a whole number of tokens, at least 1`,
  };
}
export const maxToolTokens = tokenBound(
  'max-tool-tokens',
  'maxToolTokens',
  'quality/token-cost fails when the tool list costs more than N tokens (estimate)',
);
export const maxResultTokens = tokenBound(
  'max-result-tokens',
  'maxResultTokens',
  'quality/result-size fails when a tool result is longer than N tokens (estimate)',
);

export const quality: Suite = {
  id: 'quality',
  title: 'Tool-definition quality and context cost',
  description: 'Descriptions, parameters a model can fill, naming, and the tokens the tools and their results cost',
  options: [maxToolTokens as OptionDef, maxResultTokens as OptionDef],
  // Without the build's token table, gpt-tokenizer's encoder takes ~150–250 ms to load: started as the run starts.
  warmUp: preloadTokenizer,
  cases: [
    {
      id: 'quality/tools',
      title: 'tool names are distinct and follow one convention',
      level: 'SHOULD',
      spec: 'server/tools#tool-names',
      requirement:
        'Tool names should not differ only by case or separator (a model, and clients that normalise names, confuse them) and should follow one naming convention (info).',
      requires: { capability: 'tools', needs: 'listed' },
      async run(ctx) {
        const t = await listedTools(ctx);
        if (!Array.isArray(t)) return t;
        const fs = listQuality(t);
        if (!fs.length)
          return { verdict: 'pass', message: `${plural(t.length, 'name')}, none colliding, one convention` };
        return { verdict: worst(fs), message: fs.map((f) => f.message).join('; '), details: { findings: fs } };
      },
    },
    {
      id: 'quality/tool',
      title: 'the tool definition gives a model what it needs',
      level: 'SHOULD',
      spec: 'server/tools#tool',
      requirement:
        'A tool has a description of more than one word; its parameters are described; required names exist in properties; no enum is empty; no parameter is a framework context object (ctx, context, run_context, or an opaque object described as a runtime wrapper) that a model would have to invent. One result per tool with a finding.',
      perItem: 'tool',
      requires: { capability: 'tools', needs: 'listed' },
      async run(ctx) {
        const t = await listedTools(ctx);
        if (!Array.isArray(t)) return [];
        const out: ItemOutcome[] = [];
        for (const tool of t) {
          const fs = toolQuality(tool);
          if (fs.length)
            out.push({
              item: tool.name,
              verdict: worst(fs),
              message: fs.map((f) => `${f.rule}: ${f.message}`).join('; '),
              details: { findings: fs },
            });
        }
        return out;
      },
    },
    {
      id: 'quality/token-cost',
      title: 'what the tool list costs in every model request',
      level: 'MAY',
      spec: 'server/tools#listing-tools',
      requirement: `The tool definitions are sent with every model request: their size in tokens, per tool and in total (an estimate with the ${TOKENIZER} tokenizer on the JSON of each OpenAI function definition). Info; fail when the total exceeds --max-tool-tokens.`,
      requires: { capability: 'tools', needs: 'listed' },
      // The build's token table is read (and its split pattern compiled, ~10 ms) as the session's cases begin, and
      // the tool list is counted as soon as the listing suite has it, while the run waits anyway (robustness/
      // unknown-notification's window), not at the case's turn near the run's end.
      start: (ctx) => {
        prepareTokenizer();
        ctx
          .whenProduced(tools)
          .then(() => ctx.service(listCost))
          .catch(() => undefined);
      },
      async run(ctx) {
        const t = await listedTools(ctx);
        if (!Array.isArray(t)) return t;
        const { perTool, total } = await ctx.service(listCost);
        const max = ctx.option(maxToolTokens);
        const top = [...perTool].sort((a, b) => b.tokens - a.tokens).slice(0, 5);
        const msg = `≈${total} tokens (${TOKENIZER} estimate) for ${plural(t.length, 'tool')}${top.length ? `; largest: ${top.map((x) => `"${x.tool}" ≈${x.tokens}`).join(', ')}` : ''}`;
        const details = {
          tokenizer: TOKENIZER,
          estimate: true,
          total,
          perTool,
          ...(max !== undefined ? { maxToolTokens: max } : {}),
        };
        if (max !== undefined && total > max)
          return {
            verdict: 'fail',
            message: `the tool list costs ${msg}, more than --max-tool-tokens ${max}`,
            details,
          };
        return {
          verdict: 'info',
          message: `the tool list costs ${msg}${max !== undefined ? ` (within --max-tool-tokens ${max})` : ''}`,
          details,
        };
      },
    },
    {
      id: 'quality/result-size',
      title: 'the size of the tool results seen in the run',
      level: 'MAY',
      spec: 'server/tools#tool-result',
      requirement: `Each tool result seen in the run goes into the model's context: its size in tokens (${TOKENIZER} estimate of the text of its content blocks). Info; fail when one exceeds --max-result-tokens.`,
      requires: { capability: 'tools', needs: 'listed' },
      async run(ctx) {
        const made = toolCallsOf(ctx).filter((c) => c.purpose === 'call');
        const calls = made.filter((c) => c.reply?.result);
        if (!calls.length) return { verdict: 'skip', message: `no tool result was seen (${noResultWhy(made)})` };
        const texts = calls.map((c) => resultText(c.reply!.result));
        const counts = await countTokensOf(texts);
        releaseTokenizer(); // the last count of the run (the cases run in order): what it loaded is freed before the report is written
        const sizes = calls.map((c, i) => ({ tool: c.tool, tokens: counts[i]!, chars: texts[i]!.length }));
        sizes.sort((a, b) => b.tokens - a.tokens);
        const max = ctx.option(maxResultTokens);
        const over = max === undefined ? [] : sizes.filter((s) => s.tokens > max);
        const messageIds = calls.flatMap((c) => (c.reply ? [c.reply.request.seq, c.reply.response.seq] : []));
        const details = {
          tokenizer: TOKENIZER,
          estimate: true,
          results: sizes,
          ...(max !== undefined ? { maxResultTokens: max } : {}),
        };
        const list = sizes
          .slice(0, 5)
          .map((s) => `"${s.tool}" ≈${s.tokens}`)
          .join(', ');
        if (over.length)
          return {
            verdict: 'fail',
            message: `${plural(over.length, 'result')} longer than --max-result-tokens ${max}: ${over
              .slice(0, 5)
              .map((s) => `"${s.tool}" ≈${s.tokens} tokens`)
              .join(', ')}`,
            details,
            messageIds,
          };
        return {
          verdict: 'info',
          message: `${plural(sizes.length, 'result')} seen, largest ≈${sizes[0]!.tokens} tokens (${TOKENIZER} estimate): ${list}`,
          details,
          messageIds,
        };
      },
    },
  ],
};
