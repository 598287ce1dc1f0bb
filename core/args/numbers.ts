/** Generation of numbers and integers within bounds and multipleOf. */
import type { Ctx } from './context.js';
import { NUMBER_KEYWORDS, pickScalar, type Frame, type Gen } from './frame.js';
import { isNum, own, pathText, show } from './json.js';
import type { SchemaObject } from './types.js';
import { addBounds, inBounds, type NumberBounds } from './validate.js';

export function* numberCandidates(b: NumberBounds, integer: boolean): Generator<number> {
  const lo = b.lo;
  const hi = b.hi;
  const mid = Number.isFinite(lo) && Number.isFinite(hi) ? lo + (hi - lo) / 2 : NaN;
  const up = (x: number) => x + Math.max(1e-9, Math.abs(x) * 4 * Number.EPSILON);
  const down = (x: number) => x - Math.max(1e-9, Math.abs(x) * 4 * Number.EPSILON);
  const nearLo = Number.isFinite(lo)
    ? [lo, Math.ceil(lo), Math.floor(lo) + 1, lo + 1, Math.ceil(lo) + 1, up(lo), mid]
    : [];
  const nearHi = Number.isFinite(hi)
    ? [hi, Math.floor(hi), Math.ceil(hi) - 1, hi - 1, Math.floor(hi) - 1, down(hi), mid]
    : [];
  const multiplesNear = function* (anchor: number): Generator<number> {
    for (const m of b.multiples.slice(0, 4)) {
      if (!Number.isFinite(anchor / m)) continue;
      const k0 = Math.round(anchor / m);
      for (const d of [0, 1, -1, 2, -2, 3, -3, 4, 5, 10]) {
        yield (k0 + d) * m;
        yield Number(((k0 + d) * m).toPrecision(12));
      }
    }
  };
  yield 1;
  if (lo > 1) {
    yield* multiplesNear(lo);
    yield* nearLo;
  } else if (hi < 1) {
    yield* multiplesNear(hi);
    yield* nearHi;
  }
  yield* multiplesNear(1);
  yield* [2, 3, 0, 4, 5, 10, -1, 100];
  if (!integer) yield* [0.5, 1.5, 2.5, 0.25];
  yield* nearLo;
  yield* nearHi;
  yield* multiplesNear(0);
  if (Number.isFinite(mid)) yield* multiplesNear(mid);
  // Walk from the first allowed point for more distinct values (uniqueItems).
  const step = b.multiples[0] ?? 1;
  const start = Number.isFinite(lo)
    ? Math.ceil(lo / step) * step
    : Number.isFinite(hi)
      ? Math.floor(hi / step) * step
      : 1;
  const dir = Number.isFinite(lo) || !Number.isFinite(hi) ? 1 : -1;
  for (let i = 0; i < 2000; i++) yield start + dir * i * step;
}

export function synthNumber(
  integer: boolean,
  conj: SchemaObject[],
  ctx: Ctx,
  frame: Frame,
  variant: number,
  exclude: unknown[],
): Gen {
  const b: NumberBounds = { lo: -Infinity, loEx: false, hi: Infinity, hiEx: false, multiples: [] };
  const where = pathText(frame.path);
  const notes: string[] = [];
  for (const s of conj) {
    addBounds(b, s);
    for (const k of NUMBER_KEYWORDS) {
      const v = own(s, k);
      if (v !== undefined && !isNum(v) && typeof v !== 'boolean')
        notes.push(`${where}: ignored ${k} ${show(v, 20)} (not a number)`);
    }
    const mo = own(s, 'multipleOf');
    if (isNum(mo) && mo <= 0) notes.push(`${where}: ignored multipleOf ${mo} (not positive)`);
  }
  const what = integer ? 'integer' : 'number';
  const contradiction = b.lo > b.hi || (b.lo === b.hi && (b.loEx || b.hiEx));
  const describe = () =>
    contradiction
      ? `${where}: the numeric bounds contradict each other (minimum ${b.lo}, maximum ${b.hi})`
      : `${where}: no ${what} satisfies the numeric constraints`;
  const cands = (function* () {
    for (const x of numberCandidates(b, integer)) {
      if (!Number.isFinite(x) || (integer && !Number.isInteger(x)) || !inBounds(b, x)) continue;
      yield Object.is(x, -0) ? 0 : x;
    }
  })();
  let r = pickScalar(cands, conj, ctx, frame, variant, exclude, what, describe);
  if (!r.has) {
    // Nothing fits: send the nearest plain value, clamped into the bounds.
    let x = Math.min(Math.max(1, Number.isFinite(b.lo) ? b.lo : 1), Number.isFinite(b.hi) ? b.hi : 1);
    if (integer) x = Math.round(x);
    r = { has: true, value: x, notes: r.notes.length ? r.notes : [describe()] };
  }
  return notes.length ? { ...r, notes: [...notes, ...r.notes] } : r;
}
