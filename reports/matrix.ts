/**
 * The console table of `--all-versions` (report.matrix): one row per protocol version, one column per suite; and what
 * the console says of the eras of a dual-era server's report (report.eras, rows of the same kind).
 */
import type { MatrixEntry } from '../core/negotiate.js';
import type { Report } from '../core/results.js';

/** A suite's cell in a version's row: its fails, else its warns, else pass or skip; '' when the suite did not run. */
export function matrixCell(m: MatrixEntry, id: string): string {
  if (!m.accepted || m.tested === false) return '—';
  const s = m.suites.find((x) => x.id === id);
  if (!s) return '';
  if (s.fail) return `${s.fail} fail`;
  if (s.warn) return `${s.warn} warn`;
  if (s.pass || s.info) return 'pass';
  return 'skip';
}

/** The eras a report judged and merged (report.eras, both accepted); empty for a report of one version. */
export function judgedEras(r: Pick<Report, 'eras'>): MatrixEntry[] {
  const eras = (r.eras ?? []).filter((e) => e.accepted);
  return eras.length > 1 ? eras : [];
}

/** What the console says of a report's eras, under its title: the two judged, or why the legacy one was not. */
export function eraLines(r: Pick<Report, 'eras'>): string[] {
  const eras = r.eras ?? [];
  const [first, second] = eras;
  if (!first || !second) return [];
  if (!second.accepted)
    return [
      `Judged in ${first.protocolVersion} only: a dual-era check offered ${second.protocolVersion} in initialize on a fresh connection, and it was not served (${second.reason ?? 'no handshake'})`,
    ];
  return [
    `A dual-era server: judged in ${first.protocolVersion} and in ${second.protocolVersion} (initialize, a fresh connection), the newest legacy version it serves; a case marked [version] was found in that era only, the others alike in both (--protocol-version V judges one)`,
  ];
}

/** Lines of at most `width` columns: words wrapped, continuation lines indented. */
function wrap(text: string, width = 100, indent = '    '): string[] {
  const out: string[] = [];
  let line = '';
  for (const word of text.split(' ')) {
    const next = line ? `${line} ${word}` : word;
    if (next.length > width && line.trim()) {
      out.push(line);
      line = `${indent}${word}`;
    } else line = next;
  }
  if (line) out.push(line);
  return out.flatMap((l) => (l.length > width ? [l.slice(0, width - 1) + '…'] : [l]));
}

/**
 * The console table of --all-versions: one column per version, one row per suite (fails/passes, or "—" for a version
 * not accepted), the first row whether the version was accepted; 5 versions fit in 100 columns. Why a version was
 * not accepted follows, wrapped at 100 columns.
 */
export function matrixTable(matrix: MatrixEntry[]): string {
  const suiteIds: string[] = [];
  for (const m of matrix) for (const s of m.suites) if (!suiteIds.includes(s.id)) suiteIds.push(s.id);
  const head = ['suite', ...matrix.map((m) => m.protocolVersion)];
  const rows = [
    ['accepted', ...matrix.map((m) => (m.tested === false ? 'not tested' : m.accepted ? 'yes' : 'no'))],
    ...suiteIds.map((id) => [id, ...matrix.map((m) => matrixCell(m, id))]),
  ];
  const widths = head.map((h, i) => Math.max(h.length, ...rows.map((r) => r[i]!.length)));
  const line = (r: string[]) =>
    r
      .map((c, i) => c.padEnd(widths[i]!))
      .join('  ')
      .trimEnd();
  const notes = matrix
    .filter((m) => !m.accepted && m.reason)
    .flatMap((m) => wrap(`  ${m.protocolVersion}: ${m.tested === false ? 'not tested' : 'not accepted'}: ${m.reason}`));
  return [
    'Version matrix (--all-versions):',
    line(head),
    line(widths.map((w) => '-'.repeat(w))),
    ...rows.map(line),
    ...notes,
    '',
  ].join('\n');
}
