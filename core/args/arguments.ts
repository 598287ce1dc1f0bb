/**
 * Valid arguments for `tools/call`, generated from a tool's inputSchema (the root of generation), and the public
 * `generateArguments`.
 */
import { ajvCheck } from './ajv-check.js';
import { makeCtx, type Ctx } from './context.js';
import { expand, generate, typeOrder, type Frame } from './generate.js';
import { isObj, show } from './json.js';
import { ARGUMENT_LIMITS, LimitError } from './limits.js';
import { copyGenerated, memoized } from './memo.js';
import type { GeneratedArguments, SchemaObject } from './types.js';
import { validAll } from './validate.js';

export interface RootResult {
  ctx: Ctx;
  schema: SchemaObject;
  value: Record<string, unknown>;
  notes: string[];
  valid: boolean;
}

export const OBJECT_SCHEMA: SchemaObject = { type: 'object' };
export const ROOT: Frame = { path: [], refs: [], minimal: false, depth: 0 };

export function describeNonSchema(x: unknown): string {
  if (x === null) return 'null';
  if (x === undefined) return 'missing';
  if (Array.isArray(x)) return 'an array';
  if (typeof x === 'boolean') return `\`${x}\``;
  return `a ${typeof x}`;
}

export function generateRoot(inputSchema: SchemaObject): RootResult {
  const ctx = makeCtx(inputSchema);
  const notes: string[] = [];
  let value: Record<string, unknown> = {};
  let valid = false;
  try {
    const { types, explicit } = typeOrder(expand([inputSchema], ctx, ROOT).conj);
    if (explicit && !types.includes('object'))
      notes.push(
        `inputSchema has type ${show(types.length ? types : inputSchema.type)}, not "object"; arguments are always an object`,
      );
    const r = generate([inputSchema, OBJECT_SCHEMA], ctx, ROOT, '', 0);
    if (r.has && isObj(r.value)) value = r.value;
    else if (r.has) notes.push(`arguments: generated ${show(r.value)}, which is not an object; sent {}`);
    notes.push(...r.notes);
    const verdict = ajvCheck(inputSchema, value);
    let failure: string | undefined;
    if (verdict) {
      valid = verdict.valid;
      failure = verdict.keyword;
    } else {
      ctx.steps = ARGUMENT_LIMITS.maxValidationSteps;
      valid = validAll([inputSchema], value, ctx);
      failure = ctx.failure;
    }
    if (!valid && notes.length === 0) notes.push(`arguments: the generated value fails "${failure ?? 'the schema'}"`);
  } catch (e) {
    notes.push(
      e instanceof LimitError
        ? `arguments: ${e.message}; gave up`
        : `arguments: internal error while generating (${e instanceof Error ? e.message : String(e)})`,
    );
    valid = false;
  }
  return { ctx, schema: inputSchema, value, notes: [...new Set(notes)], valid };
}

/** Generates arguments that satisfy `inputSchema` (as far as possible; see `notes`). Never throws. */
export function generateArguments(inputSchema: unknown): GeneratedArguments {
  return memoized('valid', inputSchema, () => generateArgumentsUncached(inputSchema), copyGenerated);
}

export function generateArgumentsUncached(inputSchema: unknown): GeneratedArguments {
  if (!isObj(inputSchema)) {
    return {
      value: {},
      notes: [`inputSchema is ${describeNonSchema(inputSchema)}, not a JSON Schema object; sent {}`],
      confident: false,
    };
  }
  const r = generateRoot(inputSchema);
  return { value: r.value, notes: r.notes, confident: r.valid && r.notes.length === 0 };
}

export function rootConj(r: RootResult): SchemaObject[] {
  return expand([r.schema], r.ctx, ROOT).conj;
}
