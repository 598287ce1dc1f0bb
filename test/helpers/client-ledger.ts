/**
 * The Clients section of the verdict ledger (docs/real-servers.md) as data, so a test on a real client can hold it:
 * every non-pass, non-skip verdict the client got must stand in a row naming that client, that case and that verdict.
 */
import { readFileSync } from 'node:fs';
import { join } from 'node:path';
import { ROOT } from './cli.js';
import type { ClientResult } from './client-run.js';

export interface ClientLedgerRow {
  client: string;
  cases: string[];
  verdict: string;
}

export function clientLedgerRows(): ClientLedgerRow[] {
  const md = readFileSync(join(ROOT, 'docs', 'real-servers.md'), 'utf8');
  const section = md.slice(md.indexOf('## Clients'));
  const rows: ClientLedgerRow[] = [];
  for (const line of section.split('\n')) {
    const cells = line.split(' | ');
    if (!line.startsWith('| ') || cells.length < 4 || line.startsWith('| client |')) continue;
    const cases = [...cells[1]!.matchAll(/`([a-z0-9-]+\/[a-z0-9/-]+)`/g)].map((m) => m[1]!);
    rows.push({ client: cells[0]!.slice(2), cases, verdict: cells[2]!.trim() });
  }
  return rows;
}

/** The verdicts of a run (scenario: id verdict: message) that no ledger row naming `client` explains. */
export function unledgered(client: string, r: ClientResult): string[] {
  const rows = clientLedgerRows().filter((row) => row.client.includes(client));
  return r.reports.flatMap((rep) =>
    rep.suites
      .flatMap((s) => s.cases)
      .filter(
        (c) =>
          c.verdict !== 'pass' &&
          c.verdict !== 'skip' &&
          !rows.some((row) => row.verdict === c.verdict && row.cases.includes(c.id)),
      )
      .map((c) => `${rep.target.name}: ${c.id} ${c.verdict}: ${c.message}`),
  );
}
