/** Generation of arrays: item counts, tuples (items/prefixItems), contains, uniqueItems. */
import type { Ctx } from './context.js';
import { child, ok, type Frame, type Gen, type GenerateFn } from './frame.js';
import { deepEqual, hasOwn, isNum, own, pathText } from './json.js';
import { ARGUMENT_LIMITS } from './limits.js';
import type { SchemaObject } from './types.js';
import { containsMinimum, itemSchemas } from './validate.js';

export function synthArray(
  conj: SchemaObject[],
  ctx: Ctx,
  frame: Frame,
  hint: string,
  variant: number,
  generate: GenerateFn,
): Gen {
  const where = pathText(frame.path);
  const notes: string[] = [];
  let minItems = 0;
  let maxItems = Infinity;
  let unique = false;
  let prefixLen = 0;
  const contains: unknown[] = [];
  let minContains = 0;
  for (const s of conj) {
    const a = own(s, 'minItems');
    const b = own(s, 'maxItems');
    if (isNum(a)) minItems = Math.max(minItems, Math.ceil(a));
    if (isNum(b)) maxItems = Math.min(maxItems, Math.floor(b));
    if (own(s, 'uniqueItems') === true) unique = true;
    const pi = own(s, 'prefixItems');
    const it = own(s, 'items');
    if (Array.isArray(pi)) prefixLen = Math.max(prefixLen, pi.length);
    if (Array.isArray(it)) prefixLen = Math.max(prefixLen, it.length);
    if (hasOwn(s, 'contains')) {
      contains.push(s.contains);
      minContains = Math.max(minContains, Math.ceil(containsMinimum(own(s, 'minContains'), ctx.dialect)));
    }
  }
  if (minItems > maxItems) notes.push(`${where}: minItems ${minItems} is greater than maxItems ${maxItems}`);
  let n = frame.minimal ? minItems : Math.max(minItems, prefixLen, 1);
  n = Math.max(Math.min(n, maxItems), minItems, contains.length ? minContains : 0);
  if (n > ARGUMENT_LIMITS.maxItems) {
    notes.push(
      `${where}: ${minItems > ARGUMENT_LIMITS.maxItems ? `minItems ${minItems}` : `${n} items`} capped at ${ARGUMENT_LIMITS.maxItems}`,
    );
    n = ARGUMENT_LIMITS.maxItems;
  }
  const items: unknown[] = [];
  let failedCost = -1;
  for (let i = 0; i < n; i++) {
    if (failedCost >= 0 && i >= prefixLen) {
      // An earlier item could not be generated well: repeat it rather than try again (and again).
      if (ctx.nodes - failedCost <= 0) {
        notes.push(`${where}: output size limit reached after ${i} items`);
        break;
      }
      ctx.nodes -= failedCost;
      items.push(items[i - 1]);
      continue;
    }
    if (ctx.nodes <= 0) {
      notes.push(`${where}: output size limit reached after ${i} items`);
      break;
    }
    const schemas = conj.flatMap((s) => itemSchemas(s, i, ctx.dialect));
    if (i < minContains) schemas.push(...contains);
    let v = unique ? variant + i : i === 0 ? variant : 0;
    const before = ctx.nodes;
    let r = generate(schemas, ctx, child(frame, i), hint, v);
    for (let tries = 0; unique && r.has && tries < 20 && items.some((x) => deepEqual(x, r.value)); tries++) {
      r = generate(schemas, ctx, child(frame, i), hint, ++v);
    }
    if (i >= minItems && !ok(r)) break; // an optional item: leave it out rather than send a doubtful one
    notes.push(...r.notes);
    if (!r.has) break;
    if (unique && items.some((x) => deepEqual(x, r.value)))
      notes.push(`${where}: could not generate distinct items for uniqueItems`);
    items.push(r.value);
    if (!ok(r) && r.value !== undefined) failedCost = Math.max(1, before - ctx.nodes);
  }
  ctx.nodes -= 1;
  return { has: true, value: items, notes };
}
