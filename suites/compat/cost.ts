/**
 * Context cost: how many tokens the tool list adds to every model request, and how big each tool result is.
 *
 * Tokenizer: gpt-tokenizer (npm, MIT, pure JavaScript, no native code, encodings bundled in the package so it works
 * offline) with the o200k_base encoding of OpenAI's current models. The count is an estimate for every provider:
 * each one wraps tool definitions in its own prompt format and Anthropic, Google and Amazon use other tokenizers, so
 * numbers are labelled "≈ tokens (o200k_base estimate)". The encoder is loaded on first use (or the quality suite's
 * warm-up), on a thread of its own.
 */
import { Worker } from 'node:worker_threads';
import type { Tool } from '../../core/tools.js';

export const TOKENIZER = 'o200k_base (gpt-tokenizer)';

const ENCODING = 'gpt-tokenizer/encoding/o200k_base';

/** Counts the tokens of each text, in order. */
type Counter = (texts: string[]) => Promise<number[]>;
let loading: Promise<Counter> | undefined;
/** Ends the counting thread (and frees its memory) once no count is awaited; undefined when there is none. */
let release: (() => void) | undefined;

/**
 * The counting thread: it loads the encoder (about 140 ms of compiling 2.4 MB of ranks and building a map of 200,000
 * entries) on its own thread, so a run's main thread goes on with the server meanwhile, and answers { id, texts }
 * with { id, counts } (or { id, error }). The same module and function as in the main thread: the same counts.
 */
const THREAD_SOURCE = `import { parentPort, workerData } from 'node:worker_threads';
const m = await import(workerData.url);
parentPort.on('message', ({ id, texts }) => {
  try { parentPort.postMessage({ id, counts: texts.map((t) => m.countTokens(t)) }); }
  catch (e) { parentPort.postMessage({ id, error: String((e && e.message) || e) }); }
});
parentPort.postMessage({ ready: true });`;

function inThisThread(): Promise<Counter> {
  return import(ENCODING).then((m: { countTokens: (t: string) => number }) => async (texts: string[]) => texts.map((t) => m.countTokens(t)));
}

/** Starts the counting thread; rejects when it cannot start or load the encoder (then the main thread counts). */
function onItsOwnThread(): Promise<Counter> {
  return new Promise((resolve, reject) => {
    const w = new Worker(new URL(`data:text/javascript,${encodeURIComponent(THREAD_SOURCE)}`), { workerData: { url: import.meta.resolve(ENCODING) }, resourceLimits: { maxYoungGenerationSizeMb: 4 } });
    w.unref(); // never what keeps a run alive; referenced only while a count is awaited
    const pending = new Map<number, { res: (n: number[]) => void; rej: (e: Error) => void }>();
    let next = 0;
    let ready = false;
    let ending = false;
    release = () => {
      ending = true;
      if (!pending.size) void w.terminate();
    };
    const failAll = (e: Error) => {
      if (!ready) reject(e);
      for (const p of pending.values()) p.rej(e);
      pending.clear();
    };
    w.on('message', (m: { ready?: true; id?: number; counts?: number[]; error?: string }) => {
      if (m.ready) {
        ready = true;
        resolve((texts) => new Promise<number[]>((res, rej) => {
          const id = next++;
          pending.set(id, { res, rej });
          w.ref();
          w.postMessage({ id, texts });
        }));
        return;
      }
      const p = pending.get(m.id!);
      if (!p) return;
      pending.delete(m.id!);
      if (!pending.size) {
        w.unref();
        if (ending) void w.terminate();
      }
      if (m.error !== undefined) p.rej(new Error(`counting tokens: ${m.error}`));
      else p.res(m.counts!);
    });
    w.on('error', (e) => failAll(e));
    w.on('exit', (code) => {
      if (ready) { loading = undefined; release = undefined; } // a later count starts a new thread
      failAll(new Error(`the token-counting thread ended (exit code ${code})`));
    });
  });
}

function load(): Promise<Counter> {
  return (loading ??= onItsOwnThread().catch(() => inThisThread()));
}

/**
 * The run has counted what it counts: the counting thread ends (its ~40 MB are freed before the report is written).
 * A count asked for later starts it again.
 */
export function releaseTokenizer(): void {
  release?.();
}

/**
 * Starts loading the encoder now, without waiting: the quality suite's warm-up, as the run starts. A failure shows
 * where it is used.
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
  const texts = tools.map(toolText);
  const counts = await (await load())(texts);
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
      if (b && typeof b === 'object' && (b as { type?: unknown }).type === 'text' && typeof (b as { text?: unknown }).text === 'string') parts.push((b as { text: string }).text);
      else parts.push(JSON.stringify(b));
    }
  }
  if (!parts.length && r.structuredContent !== undefined) parts.push(JSON.stringify(r.structuredContent));
  return parts.join('\n');
}

/** The token counts of many texts, in order (one message to the counting thread). */
export async function countTokensOf(texts: string[]): Promise<number[]> {
  return texts.length ? (await load())(texts) : [];
}
