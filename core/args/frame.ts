/**
 * What the parts of the argument generator share: the frame of the value being made, a generation result, and the
 * pick of a scalar among candidates. Recursion goes the other way: core/args/generate.ts hands its generate function
 * to the array and object synthesizers (GenerateFn), so that no file of the generator imports one that imports it.
 */
import type { Ctx } from './context.js';
import { deepEqual, pathText, show } from './json.js';
import { ARGUMENT_LIMITS } from './limits.js';
import type { PathPart, SchemaObject } from './types.js';
import { validAll } from './validate.js';

/** generate() of core/args/generate.ts, as the synthesizers of arrays and objects receive it. */
export type GenerateFn = (schemas: readonly unknown[], ctx: Ctx, frame: Frame, hint: string, variant: number) => Gen;

export interface Frame {
  path: PathPart[];
  /** `$ref`s entered on the way here. */
  refs: string[];
  /** Only the minimal value is wanted (cycle or depth). */
  minimal: boolean;
  depth: number;
}

export interface Gen {
  has: boolean;
  value: unknown;
  notes: string[];
}

export const ok = (g: Gen): boolean => g.has && g.notes.length === 0;

export const none = (notes: string[]): Gen => ({ has: false, value: undefined, notes });

export function child(frame: Frame, part: PathPart): Frame {
  return {
    path: [...frame.path, part],
    refs: frame.refs,
    minimal: frame.minimal || frame.depth + 1 >= ARGUMENT_LIMITS.minimalDepth,
    depth: frame.depth + 1,
  };
}

export const NUMBER_KEYWORDS = ['minimum', 'maximum', 'exclusiveMinimum', 'exclusiveMaximum', 'multipleOf'];

export function pickScalar(
  cands: Iterable<unknown>,
  conj: SchemaObject[],
  ctx: Ctx,
  frame: Frame,
  variant: number,
  exclude: unknown[],
  what: string,
  fallbackNote?: () => string | undefined,
): Gen {
  const found: unknown[] = [];
  let first: { value: unknown; failure: string | undefined } | undefined;
  let tried = 0;
  for (const c of cands) {
    if (++tried > 5000) break;
    if (found.includes(c) || exclude.some((e) => deepEqual(e, c))) continue;
    if (!validAll(conj, c, ctx)) {
      first ??= { value: c, failure: ctx.failure };
      continue;
    }
    found.push(c);
    if (found.length > variant) {
      ctx.nodes -= 1 + (typeof c === 'string' ? Math.floor(c.length / 100) : 0);
      return { has: true, value: c, notes: [] };
    }
  }
  const where = pathText(frame.path);
  const failure = first?.failure;
  const note =
    fallbackNote?.() ??
    (failure === 'not'
      ? `${where}: "not" could not be honoured (no ${what} value avoids it)`
      : `${where}: no ${what} value satisfies the schema${first && failure ? ` (${show(first.value, 30)} fails "${failure}")` : ''}`);
  if (found.length > 0)
    return {
      has: true,
      value: found[found.length - 1],
      notes: [`${where}: not enough distinct ${what} values for uniqueItems`],
    };
  return first ? { has: true, value: first.value, notes: [note] } : none([note]);
}
