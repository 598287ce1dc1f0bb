/**
 * Canaries: what lets the harness tell, when many clients talk to one server at once, whether each answer reached the
 * client that asked. Each request carries a mark of its own:
 * - a read-only tool called with a canary string as an argument it echoes (`mcc<run>x<client>x<seq>`): an answer
 *   carrying another request's canary crossed;
 * - otherwise its method: ping, tools/list, prompts/list, resources/list … each have an answer of their own shape
 *   (a `tools` list, a `prompts` list, an empty result), so an answer of another method's shape crossed.
 * Used by security/session-isolation (suites/security/isolation.ts) and by `mcp-conform load` (core/load/).
 * The advisory it stands for: GHSA-345p-7cg4-v4c7 (TypeScript SDK 1.10.0–1.25.3 sent one client's answers to another
 * when a server reused one transport).
 */
import { randomBytes } from 'node:crypto';
import { generateArguments } from '../args/index.js';
import { ajvCheck } from '../args/ajv-check.js';
import type { Tool } from '../tools.js';

/** What an answer looks like: the member its result is known by (`empty` for ping's `{}`). */
export type AnswerShape =
  | 'empty'
  | 'discover'
  | 'tools'
  | 'prompts'
  | 'resources'
  | 'resourceTemplates'
  | 'content'
  | 'contents'
  | 'messages'
  | 'completion'
  | 'other';

const SHAPE_OF_METHOD: Record<string, AnswerShape> = {
  ping: 'empty',
  'server/discover': 'discover',
  'tools/list': 'tools',
  'prompts/list': 'prompts',
  'resources/list': 'resources',
  'resources/templates/list': 'resourceTemplates',
  'tools/call': 'content',
  'resources/read': 'contents',
  'prompts/get': 'messages',
  'completion/complete': 'completion',
};

/** The shape the answer to a method has (`other` for methods whose answers are not told apart). */
export function expectedShape(method: string): AnswerShape {
  return SHAPE_OF_METHOD[method] ?? 'other';
}

/** The shape of a result: the first known member it has, `empty` when it has none but `_meta`. */
export function shapeOf(result: unknown): AnswerShape {
  if (result === null || typeof result !== 'object' || Array.isArray(result)) return 'other';
  const r = result as Record<string, unknown>;
  for (const s of ['tools', 'prompts', 'resourceTemplates', 'resources', 'contents', 'messages', 'completion'] as const)
    if (Array.isArray(r[s]) || (s === 'completion' && r[s] && typeof r[s] === 'object')) return s;
  if (Array.isArray(r.content) || r.structuredContent !== undefined) return 'content';
  if (Array.isArray(r.supportedVersions)) return 'discover';
  return Object.keys(r).every((k) => k === '_meta') ? 'empty' : 'other';
}

/** A run's canary namespace: a random token, so that nothing a server says by chance reads as a canary. */
export function canaryRun(): string {
  return randomBytes(4).toString('hex');
}

/** The canary of one request: run token, client, sequence number. */
export function canary(run: string, client: number, seq: number): string {
  return `mcc${run}x${client}x${seq}`;
}

/** Every canary of this run found in a text: which client and request each names. */
export function canariesIn(text: string, run: string): { client: number; seq: number; text: string }[] {
  const out: { client: number; seq: number; text: string }[] = [];
  const re = new RegExp(`mcc${run}x(\\d+)x(\\d+)`, 'g');
  for (let m = re.exec(text); m; m = re.exec(text)) out.push({ client: Number(m[1]), seq: Number(m[2]), text: m[0] });
  return out;
}

/** One request of a client, with what its answer must carry. */
export interface MarkedRequest {
  client: number;
  seq: number;
  method: string;
  params?: Record<string, unknown>;
  /** The canary its answer echoes (tool calls with an echoing argument); absent: judged by shape. */
  canary?: string;
  /** Tools: the tool called. */
  tool?: string;
}

export type AnswerClass =
  | { kind: 'own' }
  /** The answer belongs to another request: `from` names the clients it may be from (by canary: exactly one). */
  | { kind: 'crossed'; from: number[]; what: string }
  | { kind: 'error'; what: string };

/**
 * Judge one answer to a marked request. `result`/`error`: the JSON-RPC answer. `others`: the requests of the other
 * clients in flight at the same time (to name where a crossed answer came from by its shape).
 */
export function classifyAnswer(
  req: MarkedRequest,
  answer: { result?: unknown; error?: { code: number; message?: string } },
  run: string,
  others: readonly MarkedRequest[] = [],
): AnswerClass {
  if (answer.error)
    return {
      kind: 'error',
      what: `error ${answer.error.code}${answer.error.message ? ` ${JSON.stringify(String(answer.error.message).slice(0, 120))}` : ''}`,
    };
  let text = '';
  try {
    text = JSON.stringify(answer.result) ?? '';
  } catch {
    /* no text: shape only */
  }
  const found = canariesIn(text, run);
  const foreign = found.find((c) => c.client !== req.client || c.seq !== req.seq);
  if (foreign) {
    const own = found.some((c) => c.client === req.client && c.seq === req.seq);
    return {
      kind: 'crossed',
      from: foreign.client === req.client ? [] : [foreign.client],
      what: `canary ${foreign.text} of ${foreign.client === req.client ? `its own earlier request #${foreign.seq}` : `client ${foreign.client}'s request #${foreign.seq}`}${own ? ' (besides its own)' : ''}`,
    };
  }
  const want = expectedShape(req.method);
  const got = shapeOf(answer.result);
  if (want !== 'other' && got !== want && !(want === 'content' && got === 'other')) {
    const from = others.filter((o) => o.client !== req.client && expectedShape(o.method) === got).map((o) => o.client);
    return {
      kind: 'crossed',
      from: [...new Set(from)],
      what: `a ${got === 'empty' ? 'empty result (the shape of a ping answer)' : `result with \`${got}\` (the shape of a ${methodOfShape(got) ?? 'different'} answer)`} instead of a ${req.method} answer`,
    };
  }
  if (req.canary && got === 'content' && !found.length && (answer.result as Record<string, unknown>).isError !== true) {
    // The tool was shown to echo its canary: an answer without any is another call's answer of the same tool.
    return {
      kind: 'crossed',
      from: [],
      what: `a ${req.tool ?? 'tool'} answer without the canary ${req.canary} it echoes`,
    };
  }
  return { kind: 'own' };
}

function methodOfShape(s: AnswerShape): string | undefined {
  return Object.entries(SHAPE_OF_METHOD).find(([, v]) => v === s)?.[0];
}

/** A read-only tool and the argument a canary goes in: arguments generated for its schema, one string made the canary. */
export interface CanaryTool {
  tool: Tool;
  property: string;
  /** Valid arguments with the canary in `property`. */
  args(canary: string): Record<string, unknown>;
}

/** The longest a canary gets (`mcc` + 8 hex + two numbers). */
const CANARY_ROOM = 40;

/**
 * A tool among `callable` (the tools the call policy lets the run call) that takes a plain string argument a canary
 * fits in: no enum, const, pattern or format, room for it. Whether it echoes the canary is found by calling it.
 */
export function findCanaryTool(callable: readonly Tool[]): CanaryTool | undefined {
  for (const tool of callable) {
    const schema = tool.inputSchema;
    if (!schema || typeof schema !== 'object') continue;
    const props = (schema as Record<string, unknown>).properties;
    if (!props || typeof props !== 'object') continue;
    const gen = generateArguments(schema);
    if (!gen.confident) continue;
    const names = Object.keys(props);
    // Prefer a property named like text a tool repeats (message, text, query, name…).
    names.sort((a, b) => rank(a) - rank(b));
    for (const p of names) {
      const ps = (props as Record<string, unknown>)[p] as Record<string, unknown> | undefined;
      if (!ps || typeof ps !== 'object' || ps.type !== 'string') continue;
      if ('enum' in ps || 'const' in ps || 'pattern' in ps || 'format' in ps || 'contentEncoding' in ps) continue;
      if (typeof ps.maxLength === 'number' && ps.maxLength < CANARY_ROOM) continue;
      if (typeof ps.minLength === 'number' && ps.minLength > 12) continue;
      const args = (c: string) => ({ ...gen.value, [p]: c });
      const check = ajvCheck(schema as Record<string, unknown>, args('mcc00000000x0x0'));
      if (check && !check.valid) continue;
      return { tool, property: p, args };
    }
  }
  return undefined;
}

function rank(name: string): number {
  const i = ['message', 'text', 'input', 'query', 'value', 'name', 'q', 'prompt', 'content'].indexOf(
    name.toLowerCase(),
  );
  return i < 0 ? 100 : i;
}
