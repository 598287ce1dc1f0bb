/**
 * Failures that share a cause, found in the results themselves: failing cases whose exchanges hold the same schema
 * violation (the same property missing or wrong at the same place, array indices aside) in the server's answers. A
 * server that claims a version and answers in an older one's shapes fails many cases for one defect; the console and
 * report.html show those cases as one group, and say when the server's support of the newest version looks partial.
 */
import type { CaseResult, Report } from '../core/results.js';
import { PROTOCOL_VERSIONS } from '../core/schema/versions.js';

/** Failing cases that rest on answers with one schema violation. */
export interface SharedCause {
  /** The violation: its JSON pointer (array indices as *) and message. */
  pointer: string;
  message: string;
  cases: CaseResult[];
  /** seq of the server's messages, among those the cases are based on, that have the violation. */
  messages: number[];
  /** The methods those messages answer, in the order first seen. */
  methods: string[];
}

/** How many failing cases make a shared cause. */
export const MIN_SHARED = 3;

const NEWEST = PROTOCOL_VERSIONS[PROTOCOL_VERSIONS.length - 1];

/**
 * The shared causes of a run's failures, biggest first: the violation found behind the most failing cases (at least
 * `min`) makes a group of those cases; the rest are grouped again the same way. A case is in one group at most.
 */
export function sharedCauses(r: Report, min = MIN_SHARED): SharedCause[] {
  const bySeq = new Map(r.messages.map((m) => [m.seq, m]));
  // Per failing case: each violation it rests on, with the messages that show it.
  const found = new Map<CaseResult, Map<string, number[]>>();
  const order: string[] = [];
  for (const s of r.suites) {
    for (const c of s.cases) {
      if (c.verdict !== 'fail') continue;
      const sigs = new Map<string, number[]>();
      for (const seq of c.messageIds ?? []) {
        const m = bySeq.get(seq);
        if (m?.direction !== 'from-server' || !m.schema.checked || m.schema.valid || m.schema.expectedInvalid) continue;
        for (const v of m.schema.violations) {
          const sig = `${v.pointer.replace(/\/\d+(?=\/|$)/g, '/*')}\u0000${v.message}`;
          if (!order.includes(sig)) order.push(sig);
          const seqs = sigs.get(sig) ?? [];
          if (!seqs.includes(seq)) seqs.push(seq);
          sigs.set(sig, seqs);
        }
      }
      if (sigs.size) found.set(c, sigs);
    }
  }
  const out: SharedCause[] = [];
  for (;;) {
    let best: string | undefined;
    let bestN = 0;
    for (const sig of order) {
      let n = 0;
      for (const sigs of found.values()) if (sigs.has(sig)) n++;
      if (n > bestN) {
        best = sig;
        bestN = n;
      }
    }
    if (!best || bestN < min) break;
    const cases = [...found.keys()].filter((c) => found.get(c)!.has(best!));
    const messages = [...new Set(cases.flatMap((c) => found.get(c)!.get(best!)!))].sort((a, b) => a - b);
    const methods: string[] = [];
    for (const seq of messages) {
      const method = bySeq.get(seq)?.method;
      if (method && !methods.includes(method)) methods.push(method);
    }
    const [pointer, message] = best.split('\u0000') as [string, string];
    out.push({ pointer, message, cases, messages, methods });
    for (const c of cases) found.delete(c);
  }
  return out;
}

/**
 * When a run in the newest version has a shared cause that spans the answers to several methods (not one feature:
 * the shape of answers in general) and the server lists older versions too, its support of the newest version looks
 * partial: the older versions it lists (newest first), to suggest --all-versions. Undefined otherwise, and for an
 * --all-versions run (it judged them already).
 */
export function partialNewest(r: Report, causes: SharedCause[]): { version: string; older: string[] } | undefined {
  const version = r.negotiation?.version ?? r.server.protocolVersion;
  if (version !== NEWEST || r.matrix || !causes.some((c) => c.methods.length >= 2)) return undefined;
  const listed =
    r.negotiation?.steps
      .filter((s) => s.method === 'server/discover' && Array.isArray(s.answered))
      .flatMap((s) => s.answered as unknown[]) ?? [];
  // A report of two eras (a dual-era server) judged its newest legacy version already: only the others are suggested.
  const judged = (r.eras ?? []).filter((e) => e.accepted).map((e) => e.protocolVersion as string);
  const older = PROTOCOL_VERSIONS.filter((v) => v !== NEWEST && listed.includes(v) && !judged.includes(v)).reverse();
  return older.length ? { version, older } : undefined;
}

/** The advice for a partial newest version, in words (plain text; the console and the HTML escape it). */
export function partialNewestText(p: { version: string; older: string[] }, failures: number): string {
  return `The server's ${p.version} support looks partial (${failures} failing case${failures === 1 ? '' : 's'} share one cause across several methods), and it lists ${p.older.join(', ')} too: --all-versions judges every version it serves (or --protocol-version ${p.older[0]} that one).`;
}
