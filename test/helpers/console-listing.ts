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
  const shown: string[] = [];
  const more: Accounting['more'] = [];
  for (const line of text.split('\n')) {
    const c = /^\s+[✗!i~-] (?:fail|warn|info|skip|pass)\s+(\S+) — /.exec(line);
    if (c) shown.push(c[1]!);
    const m = /^\s+… and (\d+) more (\S+)\/… with the same (\w+): /.exec(line);
    if (m) more.push({ stem: m[2]!, verdict: m[3]!, n: Number(m[1]) });
    const o = /^\s+… \d+ other findings? of (\S+) \((\w+), (\d+) items?\): in report\.html and report\.json$/.exec(line);
    if (o) more.push({ stem: o[1]!, verdict: o[2]!, n: Number(o[3]) });
  }
  const all = report.suites.flatMap((s) => s.cases).filter((c) => c.verdict !== 'pass' && !(c.verdict === 'skip' && c.notApplicable));
  const budget = new Map(more.map((m) => [`${m.stem} ${m.verdict}`, 0]));
  for (const m of more) budget.set(`${m.stem} ${m.verdict}`, budget.get(`${m.stem} ${m.verdict}`)! + m.n);
  const missing: string[] = [];
  const left = new Set(shown);
  for (const c of all) {
    if (left.has(c.id)) { left.delete(c.id); continue; }
    const stem = c.item !== undefined ? c.id.slice(0, -(c.item.length + 1)) : c.id;
    const k = `${stem} ${c.verdict}`;
    if ((budget.get(k) ?? 0) > 0) { budget.set(k, budget.get(k)! - 1); continue; }
    missing.push(c.id);
  }
  return { shown, more, missing };
}
