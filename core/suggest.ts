/**
 * "Did you mean …?": the known word nearest to a typed one (Damerau–Levenshtein: a swapped pair of letters is one
 * edit), when it is near enough to be a typo. The CLI (unknown commands and flags), the config, fixture and
 * expectation files (unknown keys) and the library (unknown option keys) use it.
 */

/** Edit distance: insertions, deletions, substitutions and transpositions of adjacent characters count 1 each. */
export function editDistance(a: string, b: string): number {
  const m = a.length;
  const n = b.length;
  const d: number[][] = Array.from({ length: m + 1 }, (_, i) =>
    Array.from({ length: n + 1 }, (_, j) => (i === 0 ? j : j === 0 ? i : 0)),
  );
  for (let i = 1; i <= m; i++) {
    for (let j = 1; j <= n; j++) {
      const cost = a[i - 1] === b[j - 1] ? 0 : 1;
      d[i]![j] = Math.min(d[i - 1]![j]! + 1, d[i]![j - 1]! + 1, d[i - 1]![j - 1]! + cost);
      if (i > 1 && j > 1 && a[i - 1] === b[j - 2] && a[i - 2] === b[j - 1])
        d[i]![j] = Math.min(d[i]![j]!, d[i - 2]![j - 2]! + 1);
    }
  }
  return d[m]![n]!;
}

/**
 * The candidate nearest to `typed` (case-insensitive), if it is within a third of the longer word's length (at least
 * 1, at most 3 edits) — or the typed word is a prefix of exactly one candidate (at least 3 characters).
 */
export function nearest(typed: string, candidates: Iterable<string>): string | undefined {
  const t = typed.toLowerCase();
  let best: string | undefined;
  let bestD = Infinity;
  const all = [...new Set(candidates)];
  for (const c of all) {
    const d = editDistance(t, c.toLowerCase());
    const bound = Math.min(3, Math.max(1, Math.floor(Math.max(t.length, c.length) / 3)));
    if (d <= bound && d < bestD) {
      best = c;
      bestD = d;
    }
  }
  if (best === undefined && t.length >= 3) {
    const prefixed = all.filter((c) => c.toLowerCase().startsWith(t));
    if (prefixed.length === 1) best = prefixed[0];
  }
  return best;
}

/** "; did you mean X?" or "". */
export function didYouMean(
  typed: string,
  candidates: Iterable<string>,
  show: (s: string) => string = (s) => s,
): string {
  const n = nearest(typed, candidates);
  return n === undefined ? '' : `; did you mean ${show(n)}?`;
}
