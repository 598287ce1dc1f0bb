/** A check of a report with two eras (report.eras): its message log is one log. */
import { expect } from 'vitest';
import type { Report } from '../../core/results.js';

/** The report's log is one log: seq numbers unique and rising, every reference (messageIds, inReplyTo, HTTP exchange) resolves. */
export function expectOneLog(r: Report): void {
  const seqs = r.messages.map((m) => m.seq);
  expect(seqs).toEqual([...seqs].sort((a, b) => a - b));
  expect(new Set(seqs).size).toBe(seqs.length);
  const bySeq = new Map(r.messages.map((m) => [m.seq, m]));
  for (const c of r.suites.flatMap((s) => s.cases))
    for (const id of c.messageIds) expect(bySeq.has(id), `${c.id} [${c.protocolVersion}] → #${id}`).toBe(true);
  for (const m of r.messages) {
    if (m.inReplyTo === undefined) continue;
    const req = bySeq.get(m.inReplyTo);
    expect(req?.direction, `#${m.seq} answers #${m.inReplyTo}`).toBe('to-server');
    if (m.id !== null && m.id !== undefined) expect(req?.id, `#${m.seq} answers #${m.inReplyTo}`).toEqual(m.id);
  }
  const exchanges = (r.http?.exchanges ?? []) as { n: number }[];
  exchanges.forEach((x, i) => expect(x.n).toBe(i));
  for (const m of r.messages) if (m.http) expect(exchanges[m.http.exchange]?.n).toBe(m.http.exchange);
  // Each era's messages are where report.eras says.
  const [a, b] = r.eras!;
  for (const m of r.messages) {
    const era = m.seq <= a!.messages!.to ? a! : b!;
    expect(m.seq >= era.messages!.from && m.seq <= era.messages!.to).toBe(true);
  }
}
