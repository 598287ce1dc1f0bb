/**
 * What the default console report lists of a suite, and how: every case that is not a pass, except skips of cases
 * that do not apply to the run (CaseResult.notApplicable: counted, not listed); the results of a per-item case
 * (calling/tool/<name>, compat/gemini/<tool>…) that say the same thing of different items (the same verdict and the
 * same message once the item's name, quoted text and numbers are set aside) are one group, shown by its first case
 * and the names of the others. A group of its own is made for every different message: a finding about one item is
 * never folded into another's. Only the number of different groups of a per-item case that is not a failure is
 * bounded (the rest are counted, with where to read them); failures are all shown.
 */
import type { CaseResult, SuiteResult, Verdict } from '../core/results.js';

export interface CaseGroup {
  verdict: Verdict;
  /** The case's own id (a per-item case: without the item). */
  stem: string;
  /** In the suite's order; the first is shown in full. */
  cases: CaseResult[];
}

export interface SuiteListing {
  groups: CaseGroup[];
  /** Groups left out by the bound, per per-item case and verdict: how many groups and cases. */
  omitted: { stem: string; verdict: Verdict; groups: number; cases: number }[];
  /** Skips not listed because the case does not apply to the run. */
  notApplicable: number;
  /**
   * A report of two eras (report.eras): the version of each case listed that was found in one era only. A finding
   * found alike in both (the same case, verdict and message) is listed once, untagged.
   */
  eraOf: Map<CaseResult, string>;
}

/** Different findings of one per-item case shown before the rest are counted (failures are never bounded). */
export const GROUPS_PER_STEM = 8;

/** A result's name where it is listed alone (JUnit, annotations, report.html): its id, and in a two-era report its version. */
export function caseName(c: CaseResult): string {
  return c.protocolVersion ? `${c.id} [${c.protocolVersion}]` : c.id;
}

/** A result's case id: for a per-item result, its id without the item. */
export function stemOf(c: CaseResult): string {
  return c.item !== undefined && c.id.endsWith(`/${c.item}`) ? c.id.slice(0, -(c.item.length + 1)) : c.id;
}

const wordChar = (ch: string | undefined) => ch !== undefined && /[\w-]/.test(ch);

/** A message with what differs from item to item set aside: the item's name, quoted text, numbers. */
export function messageShape(c: CaseResult): string {
  let m = c.message;
  const name = c.item;
  if (name) {
    // The name where it stands as a name (not inside a longer word: item "a" in "schema").
    let out = '';
    let from = 0;
    for (let at = m.indexOf(name); at >= 0; at = m.indexOf(name, at + name.length)) {
      if (wordChar(m[at - 1]) || wordChar(m[at + name.length])) continue;
      out += `${m.slice(from, at)}\u0001`;
      from = at + name.length;
    }
    m = out + m.slice(from);
  }
  return m.replace(/"(?:[^"\\]|\\.)*"/g, '"…"').replace(/\d+(?:\.\d+)?/g, '#');
}

/**
 * The results of a suite of a two-era report with each finding found alike in every era (the same case, verdict,
 * message and baseline mark) kept once; the others mapped to the version they were found in.
 */
export function foldEras(cases: CaseResult[], eras: number): { cases: CaseResult[]; eraOf: Map<CaseResult, string> } {
  const eraOf = new Map<CaseResult, string>();
  if (eras < 2) return { cases, eraOf };
  const seen = new Map<string, { first: CaseResult; versions: Set<string> }>();
  const out: CaseResult[] = [];
  for (const c of cases) {
    const key = `${c.id}\u0000${c.verdict}\u0000${c.baselined ? 1 : 0}\u0000${c.message}`;
    const had = seen.get(key);
    if (had) {
      had.versions.add(c.protocolVersion ?? '');
      continue;
    }
    seen.set(key, { first: c, versions: new Set([c.protocolVersion ?? '']) });
    out.push(c);
  }
  for (const { first, versions } of seen.values())
    if (versions.size < eras && first.protocolVersion) eraOf.set(first, first.protocolVersion);
  return { cases: out, eraOf };
}

/** The cases of a suite the default console lists, grouped (`eras`: how many eras the report judged, report.eras). */
export function listSuite(suite: SuiteResult, perStem = GROUPS_PER_STEM, eras = 1): SuiteListing {
  const groups = new Map<string, CaseGroup>();
  // Counted over every result (the suite's line counts them all), listed once per finding.
  const notApplicable = suite.cases.filter((c) => c.verdict === 'skip' && c.notApplicable).length;
  const folded = foldEras(suite.cases, eras);
  for (const c of folded.cases) {
    if (c.verdict === 'pass' || (c.verdict === 'skip' && c.notApplicable)) continue;
    const stem = stemOf(c);
    // Results of a case with one result are never grouped; per-item results by verdict, baseline and message.
    const key =
      c.item === undefined
        ? `case\u0000${c.id}\u0000${groups.size}`
        : `item\u0000${stem}\u0000${c.verdict}\u0000${c.baselined ? 1 : 0}\u0000${messageShape(c)}`;
    const g = groups.get(key);
    if (g) g.cases.push(c);
    else groups.set(key, { verdict: c.verdict, stem, cases: [c] });
  }
  const shown: CaseGroup[] = [];
  const omitted = new Map<string, SuiteListing['omitted'][number]>();
  const perKind = new Map<string, number>();
  for (const g of groups.values()) {
    const item = g.cases[0]!.item !== undefined;
    const kind = `${g.stem}\u0000${g.verdict}`;
    const n = (perKind.get(kind) ?? 0) + 1;
    perKind.set(kind, n);
    if (!item || g.verdict === 'fail' || n <= perStem) {
      shown.push(g);
      continue;
    }
    const o = omitted.get(kind) ?? { stem: g.stem, verdict: g.verdict, groups: 0, cases: 0 };
    o.groups++;
    o.cases += g.cases.length;
    omitted.set(kind, o);
  }
  return { groups: shown, omitted: [...omitted.values()], notApplicable, eraOf: folded.eraOf };
}
