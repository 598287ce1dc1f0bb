/**
 * Context cost: how many tokens the tool list adds to every model request, and how big each tool result is.
 *
 * Tokenizer: gpt-tokenizer (npm, MIT, pure JavaScript, no native code, encodings bundled in the package so it works
 * offline) with the o200k_base encoding of OpenAI's current models. The count is an estimate for every provider:
 * each one wraps tool definitions in its own prompt format and Anthropic, Google and Amazon use other tokenizers, so
 * numbers are labelled "≈ tokens (o200k_base estimate)". The encoder is loaded on first use only.
 */
import type { Tool } from '../../core/tools.js';

export const TOKENIZER = 'o200k_base (gpt-tokenizer)';

type Counter = (text: string) => number;
let loading: Promise<Counter> | undefined;

function load(): Promise<Counter> {
  return (loading ??= import('gpt-tokenizer/encoding/o200k_base').then((m: { countTokens: (t: string) => number }) => (t: string) => m.countTokens(t)));
}

/**
 * Starts loading the encoder now, without waiting (about 140 ms of the main thread: 2.4 MB of ranks to compile and a
 * map of 200,000 entries): the quality suite's warm-up, while the server starts. A failure shows where it is used.
 */
export function preloadTokenizer(): void {
  load().catch(() => undefined);
}

/** The text a tool costs: its definition as an OpenAI function tool (name, description, parameters) in JSON. */
export function toolText(tool: Tool): string {
  return JSON.stringify({ type: 'function', function: { name: tool.name, ...(tool.description !== undefined ? { description: tool.description } : {}), parameters: tool.inputSchema ?? {} } });
}

export interface ToolCost { tool: string; tokens: number; chars: number }

export async function toolCosts(tools: Tool[]): Promise<{ perTool: ToolCost[]; total: number }> {
  const count = await load();
  const perTool = tools.map((t) => {
    const text = toolText(t);
    return { tool: t.name, tokens: count(text), chars: text.length };
  });
  return { perTool, total: perTool.reduce((a, c) => a + c.tokens, 0) };
}

/** What a model sees of a tool result: the text of its content blocks (JSON for non-text blocks) and structuredContent. */
export function resultText(result: unknown): string {
  if (!result || typeof result !== 'object') return JSON.stringify(result ?? null);
  const r = result as { content?: unknown; structuredContent?: unknown };
  const parts: string[] = [];
  if (Array.isArray(r.content)) {
    for (const b of r.content) {
      if (b && typeof b === 'object' && (b as { type?: unknown }).type === 'text' && typeof (b as { text?: unknown }).text === 'string') parts.push((b as { text: string }).text);
      else parts.push(JSON.stringify(b));
    }
  }
  if (!parts.length && r.structuredContent !== undefined) parts.push(JSON.stringify(r.structuredContent));
  return parts.join('\n');
}

export async function countTokens(text: string): Promise<number> {
  return (await load())(text);
}
