/**
 * Reads a default console report back as a user would: which non-pass cases it shows by id, and how many more it
 * names in "… and N more <case>/… with the same <verdict>" lines; with the report, what it left out.
 */
import type { Report } from '../../core/results.js';

export interface Accounting {
  /** Case ids shown on a line of their own. */
  shown: string[];
  /** Per "… and N more" line (and "… K other findings of <case> (<verdict>, N items)" line): the case stem, verdict and N. */
  more: { stem: string; verdict: string; n: number }[];
  /** Non-pass cases of the report that are neither shown nor in a "more" line nor a not-applicable skip. */
  missing: string[];
}

export function accountFor(text: string, report: Report): Accounting {
  // A report of two eras (report.eras): a line marked [version] shows that era's result, an unmarked one the result of
  // every era (found alike in both); a "… and N more" line may stand for N results in each era.
  const eras = (report.eras ?? []).filter((e) => e.accepted).map((e) => e.protocolVersion);
  const perShown = Math.max(1, eras.length);
  const shown: string[] = [];
  const tagged: string[] = [];
  const more: Accounting['more'] = [];
  for (const line of text.split('\n')) {
    const c = /^\s+[✗!i~-] (?:fail|warn|info|skip|pass)\s+(\S+)(?: \[([\d-]+)\])? — /.exec(line);
    if (c) {
      shown.push(c[1]!);
      if (c[2]) tagged.push(`${c[1]} ${c[2]}`);
    }
    const m = /^\s+… and (\d+) more (\S+)\/… with the same (\w+): /.exec(line);
    if (m) more.push({ stem: m[2]!, verdict: m[3]!, n: Number(m[1]) * perShown });
    const o =
      /^\s+… \d+ other findings? of (\S+) \((\w+), (\d+) items?\): (?:in report\.|written with --reporter)/.exec(line);
    if (o) more.push({ stem: o[1]!, verdict: o[2]!, n: Number(o[3]) });
  }
  const all = report.suites
    .flatMap((s) => s.cases)
    .filter((c) => c.verdict !== 'pass' && !(c.verdict === 'skip' && c.notApplicable));
  const budget = new Map(more.map((m) => [`${m.stem} ${m.verdict}`, 0]));
  for (const m of more) budget.set(`${m.stem} ${m.verdict}`, budget.get(`${m.stem} ${m.verdict}`)! + m.n);
  const missing: string[] = [];
  // An unmarked line accounts for its case once per era; a marked one for its era's.
  const left = new Map<string, number>();
  for (const id of shown) left.set(id, (left.get(id) ?? 0) + perShown);
  const leftTagged = new Set(tagged);
  for (const c of all) {
    if (c.protocolVersion && leftTagged.has(`${c.id} ${c.protocolVersion}`)) {
      leftTagged.delete(`${c.id} ${c.protocolVersion}`);
      left.set(c.id, left.get(c.id)! - perShown);
      continue;
    }
    if ((left.get(c.id) ?? 0) > 0) {
      left.set(c.id, left.get(c.id)! - 1);
      continue;
    }
    const stem = c.item !== undefined ? c.id.slice(0, -(c.item.length + 1)) : c.id;
    const k = `${stem} ${c.verdict}`;
    if ((budget.get(k) ?? 0) > 0) {
      budget.set(k, budget.get(k)! - 1);
      continue;
    }
    missing.push(c.protocolVersion ? `${c.id} [${c.protocolVersion}]` : c.id);
  }
  return { shown, more, missing };
}
