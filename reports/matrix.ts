/** The console table of `--all-versions` (report.matrix): one row per protocol version, one column per suite. */
import type { MatrixEntry } from '../core/negotiate.js';

/** The console table of --all-versions: one row per version, one column per suite (fails/passes, or "—"). */
export function matrixTable(matrix: MatrixEntry[]): string {
  const suiteIds: string[] = [];
  for (const m of matrix) for (const s of m.suites) if (!suiteIds.includes(s.id)) suiteIds.push(s.id);
  const cell = (m: MatrixEntry, id: string): string => {
    if (!m.accepted || m.tested === false) return '—';
    const s = m.suites.find((x) => x.id === id);
    if (!s) return '';
    if (s.fail) return `${s.fail} fail`;
    if (s.warn) return `${s.warn} warn`;
    if (s.pass || s.info) return 'pass';
    return 'skip';
  };
  const head = ['version', 'accepted', ...suiteIds];
  const rows = matrix.map((m) => [m.protocolVersion, m.tested === false ? 'not tested' : m.accepted ? 'yes' : 'no', ...suiteIds.map((id) => cell(m, id))]);
  const widths = head.map((h, i) => Math.max(h.length, ...rows.map((r) => r[i]!.length)));
  const line = (r: string[]) => r.map((c, i) => c.padEnd(widths[i]!)).join('  ').trimEnd();
  const notes = matrix.filter((m) => !m.accepted && m.reason).map((m) => `  ${m.protocolVersion}: ${m.tested === false ? 'not tested' : 'not accepted'}: ${m.reason}`);
  return ['Version matrix (--all-versions):', line(head), line(widths.map((w) => '-'.repeat(w))), ...rows.map(line), ...notes, ''].join('\n');
}
