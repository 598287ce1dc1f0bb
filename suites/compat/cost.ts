/**
 * Context cost: how many tokens the tool list adds to every model request, and how big each tool result is.
 *
 * Tokenizer: gpt-tokenizer (npm, MIT, pure JavaScript, no native code, encodings bundled in the package so it works
 * offline) with the o200k_base encoding of OpenAI's current models. The count is an estimate for every provider:
 * each one wraps tool definitions in its own prompt format and Anthropic, Google and Amazon use other tokenizers, so
 * numbers are labelled "≈ tokens (o200k_base estimate)". A built package counts from the table the build makes of
 * gpt-tokenizer's data (./token-table.ts: read in a few ms, where loading the package's encoder costs ~150–250 ms of
 * CPU); without a table (running from source, a table of another gpt-tokenizer version, an unreadable file) the
 * package itself counts, loaded on first use or by the quality suite's warm-up. The same counts either way.
 */
import { existsSync, readFileSync } from 'node:fs';
import { createRequire } from 'node:module';
import { dirname, join } from 'node:path';
import { fileURLToPath } from 'node:url';
import type { Tool } from '../../core/tools.js';
import { TokenTable } from './token-table.js';

export const TOKENIZER = 'o200k_base (gpt-tokenizer)';

const ENCODING = 'gpt-tokenizer/encoding/o200k_base';

/**
 * The build's token table (scripts/precompile-tokenizer.mjs). dist/suites/compat/cost.js finds it beside itself, the
 * bundled CLI (dist/cli/cli.cjs) through ../suites/compat; from source neither exists (the build writes only dist/).
 */
export const TABLE_FILE = join('tokenizer', 'o200k_base.table');

const here = dirname(fileURLToPath(import.meta.url));

/** What a table must have been made from: the installed gpt-tokenizer's version and the encoding. */
export function tableFingerprint(): string {
  const { version } = createRequire(import.meta.url)('gpt-tokenizer/package.json') as { version: string };
  return `gpt-tokenizer ${version} o200k_base`;
}

function tablePath(): string | undefined {
  return [join(here, TABLE_FILE), join(here, '..', 'suites', 'compat', TABLE_FILE)].find((p) => existsSync(p));
}

/** The build's table, when there is one made from the installed gpt-tokenizer; undefined otherwise. */
function readTable(): TokenTable | undefined {
  try {
    const path = tablePath();
    if (!path) return undefined;
    const table = new TokenTable(readFileSync(path));
    return table.header.fingerprint === tableFingerprint() ? table : undefined;
  } catch {
    return undefined;
  }
}

/** Counts the tokens of one text; text that looks like a special token (`<|endoftext|>`…) counts as ordinary text. */
type Count = (text: string) => number;
let counting: Promise<Count> | undefined;

/** Where this process's counts came from, in order of loading (the tests read it; nothing else does). */
export const tokenizerUse: ('table' | 'package')[] = [];

function load(): Promise<Count> {
  if (!counting) {
    const table = readTable();
    if (table) {
      tokenizerUse.push('table');
      counting = Promise.resolve((t: string) => table.count(t));
    } else {
      counting = import(ENCODING).then(
        (m: { countTokens: (t: string, o: { disallowedSpecial: Set<string> }) => number }) => {
          tokenizerUse.push('package');
          const ordinary = { disallowedSpecial: new Set<string>() };
          return (t: string) => m.countTokens(t, ordinary);
        },
      );
    }
  }
  return counting;
}

async function countAll(texts: string[]): Promise<number[]> {
  const count = await load();
  try {
    return texts.map((t) => count(t));
  } catch (e) {
    throw new Error(`counting tokens: ${(e as Error).message}`);
  }
}

/** Holds on what counting loaded (holdTokenizer): while there is one, a run's release keeps it. */
let holds = 0;

/**
 * The run has counted what it counts: what was loaded to count is let go (freed before the report is written),
 * unless a hold keeps it for the invocation's other targets. A count asked for later loads it again.
 */
export function releaseTokenizer(): void {
  if (!holds) counting = undefined;
}

/**
 * A `run` of several targets keeps what counting loaded from one target to the next: without the hold each target
 * would read the table again (4 MB, ~25 ms and ~1,000 fresh pages each). Returns the end of the hold, which lets it
 * go once no hold is left (call it when the targets are done, before the report is written).
 */
export function holdTokenizer(): () => void {
  holds++;
  let held = true;
  return () => {
    if (!held) return;
    held = false;
    if (--holds === 0) counting = undefined;
  };
}

/**
 * The quality suite's warm-up, as the run starts: without a table, starts loading gpt-tokenizer's encoder now,
 * without waiting (a failure shows where it is used). A table is read when the first count needs it: a few ms.
 */
export function preloadTokenizer(): void {
  if (!tablePath()) load().catch(() => undefined);
}

const WARM_UP_TEXT =
  `${JSON.stringify({ type: 'function', function: { name: 'get_weather', description: 'Get the weather for a city. Returns °C, 12.5% humidity…', parameters: { type: 'object', properties: { city: { type: 'string' }, days: { type: 'number', minimum: 1 } }, required: ['city'] } } })}\n\tÉté 東京 Ünïcödé don't 1234567 — ok!\r\n`.repeat(
    3,
  );

/**
 * Makes counting ready now: reads the build's table and compiles its split pattern (a first count), or, without a
 * table, starts loading gpt-tokenizer's encoder. Never throws (a failure shows where counting is used).
 */
export function prepareTokenizer(): void {
  // A first count of text of each kind the pattern splits (words, numbers, punctuation, JSON, other scripts): the
  // pattern's native code is compiled now, not at the first real count.
  load().then(
    (count) => {
      try {
        count(WARM_UP_TEXT);
      } catch {
        /* shown by the first real count */
      }
    },
    () => undefined,
  );
}

/** The text a tool costs: its definition as an OpenAI function tool (name, description, parameters) in JSON. */
export function toolText(tool: Tool): string {
  return JSON.stringify({
    type: 'function',
    function: {
      name: tool.name,
      ...(tool.description !== undefined ? { description: tool.description } : {}),
      parameters: tool.inputSchema ?? {},
    },
  });
}

export interface ToolCost {
  tool: string;
  tokens: number;
  chars: number;
}

export async function toolCosts(tools: Tool[]): Promise<{ perTool: ToolCost[]; total: number }> {
  const texts = tools.map(toolText);
  const counts = await countAll(texts);
  const perTool = tools.map((t, i) => ({ tool: t.name, tokens: counts[i]!, chars: texts[i]!.length }));
  return { perTool, total: perTool.reduce((a, c) => a + c.tokens, 0) };
}

/** What a model sees of a tool result: the text of its content blocks (JSON for non-text blocks) and structuredContent. */
export function resultText(result: unknown): string {
  if (!result || typeof result !== 'object') return JSON.stringify(result ?? null);
  const r = result as { content?: unknown; structuredContent?: unknown };
  const parts: string[] = [];
  if (Array.isArray(r.content)) {
    for (const b of r.content) {
      if (
        b &&
        typeof b === 'object' &&
        (b as { type?: unknown }).type === 'text' &&
        typeof (b as { text?: unknown }).text === 'string'
      )
        parts.push((b as { text: string }).text);
      else parts.push(JSON.stringify(b));
    }
  }
  if (!parts.length && r.structuredContent !== undefined) parts.push(JSON.stringify(r.structuredContent));
  return parts.join('\n');
}

/** The token counts of many texts, in order. */
export async function countTokensOf(texts: string[]): Promise<number[]> {
  return texts.length ? countAll(texts) : [];
}
