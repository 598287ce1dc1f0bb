/** The state of one generation: the root schema, its dialect, the work budgets, cached regular expressions. */
import { isObj, own } from './json.js';
import { ARGUMENT_LIMITS } from './limits.js';
import type { Dialect } from './types.js';

export interface Ctx {
  root: unknown;
  dialect: Dialect;
  nodes: number;
  attempts: number;
  steps: number;
  regexes: Map<string, RegExp | null>;
  anchors: Map<string, unknown> | undefined;
  /** Schemas being validated against which values, to cut `$ref` loops that do not consume data. */
  active: Map<object, unknown[]>;
  /** First non-speculative validation failure (keyword), for notes. */
  failure: string | undefined;
  /** Current validator recursion depth. */
  depth: number;
}

export function dialectOf(schema: unknown): Dialect {
  const s = isObj(schema) ? own(schema, '$schema') : undefined;
  if (typeof s !== 'string') return 'unknown';
  if (s.includes('2020-12') || s.includes('2019-09')) return '2020-12';
  if (/draft-0[3-7]/.test(s)) return 'draft-07';
  return 'unknown';
}

export function makeCtx(root: unknown): Ctx {
  return {
    root,
    dialect: dialectOf(root),
    nodes: ARGUMENT_LIMITS.maxNodes,
    attempts: ARGUMENT_LIMITS.maxBranchAttempts,
    steps: ARGUMENT_LIMITS.maxValidationSteps,
    regexes: new Map(),
    anchors: undefined,
    active: new Map(),
    failure: undefined,
    depth: 0,
  };
}

/** `new RegExp(source, 'u')`, cached; null when the source is not a valid pattern. */
export function regex(ctx: Ctx, source: string): RegExp | null {
  let re = ctx.regexes.get(source);
  if (re === undefined) {
    try {
      re = new RegExp(source, 'u');
    } catch {
      re = null;
    }
    if (ctx.regexes.size < 10_000) ctx.regexes.set(source, re);
  }
  return re;
}
