import type { CaseResult, Report } from '../core/results.js';
import { combine, runLabel, type ReportSet } from './types.js';
import {
  COLOR,
  type Paint,
  caseLine,
  countsText,
  fmtDuration,
  resultText,
  safeText,
  tally,
  updatedFileLines,
  whereListed,
} from './console-lines.js';

/** A skip that only says another scenario checks the case (clients/grade.ts). */
export const CHECKED_ELSEWHERE = /^not run: checked in (?:scenario |\d+ other scenarios)/;

/**
 * The console of `mcp-conform client`: one line per scenario (✓/✗, its counts, its time), under it every case of that
 * scenario that is not a pass or a skip; then, once, the cases no scenario judged (with the reason), the cases that
 * are checked in scenarios this command did not play, the scenarios not played, the client's last stderr lines of a
 * failing scenario (labelled as the client's), the summary and the result.
 */
export function clientConsole(set: ReportSet, written: string[], paint: Paint, bold: (s: string) => string): string {
  const runs = set.runs;
  const first = runs[0]!;
  const out: string[] = [];
  out.push(
    bold(
      safeText(
        `mcp-conform ${first.tool.version} · client ${first.target.command ?? ''} over ${first.target.transport} · ${runs.length} scenario${runs.length === 1 ? '' : 's'}`,
      ),
    ),
    '',
  );
  const name = (r: Report) => String(r.options.scenario ?? runLabel(r, 0));
  const width = Math.max(...runs.map((r) => name(r).length));
  const judged = new Set<string>();
  const skipped = new Map<string, string>();
  const elsewhere = new Map<string, string>();
  // A finding said in several scenarios (the same case, verdict and message) is listed under the first, with the others named.
  const key = (c: CaseResult) => `${c.id}\u0000${c.verdict}\u0000${c.message}`;
  const seenIn = new Map<string, string[]>();
  for (const r of runs)
    for (const c of r.suites.flatMap((s) => s.cases))
      if (c.verdict !== 'pass' && c.verdict !== 'skip') seenIn.set(key(c), [...(seenIn.get(key(c)) ?? []), name(r)]);
  // A client that never connected in any scenario (it sent nothing at all): one paragraph, not the same failures per scenario.
  const silent = (r: Report) => !r.messages.some((m) => m.direction === 'to-server');
  if (runs.length > 1 && runs.every(silent)) {
    const err = first.process.stderr.filter((l) => l.trim());
    const named =
      err.find((l) => /^\s*(?:Uncaught\s+)?[A-Za-z_.]*(?:Error|Exception)\b[^:]{0,40}:\s*\S/.test(l)) ?? err.at(-1);
    const exit = first.process.exitCode;
    out.push(
      `${paint(COLOR.fail, '✗')} ${bold('The client never connected')}: it sent the mock nothing in any of the ${runs.length} scenarios${exit !== undefined && exit !== null ? ` and exited with code ${exit}` : ''}${named ? `: ${paint(COLOR.fail, safeText(named.trim().slice(0, 200)))}` : ''}`,
    );
    out.push(`  command as run: ${safeText(first.target.command ?? '')}`);
    if (err.length) {
      out.push('  client stderr (last lines):');
      for (const l of err.slice(-5)) out.push(paint(90, `    | ${safeText(l.slice(0, 200))}`));
    }
    out.push(
      `  Try: run the client by hand; over stdio it gets the mock's command line as {server} (appended when the command has none), over HTTP the URL as {url}`,
    );
    out.push(
      paint(
        90,
        `  Each scenario fails ${[
          ...new Set(
            runs.flatMap((r) =>
              r.suites
                .flatMap((s) => s.cases)
                .filter((c) => c.verdict === 'fail')
                .map((c) => c.id),
            ),
          ),
        ].join(', ')} with it; report.json has every case.`,
      ),
    );
    if (written.length) out.push(`Reports: ${written.map(safeText).join(', ')}`);
    out.push(resultText(combine(set), 0, paint));
    return out.join('\n') + '\n';
  }
  for (const r of runs) {
    const cases = r.suites.flatMap((s) => s.cases);
    const mark = r.exitCode === 0 ? paint(COLOR.pass, '✓') : paint(COLOR.fail, '✗');
    out.push(
      `${mark} ${bold(safeText(name(r)).padEnd(width))}  ${
        tally(
          cases.filter((c) => !(c.verdict === 'skip' && (c.notApplicable || CHECKED_ELSEWHERE.test(c.message)))),
          paint,
        ).text
      }  ${paint(90, fmtDuration(r.durationMs))}`,
    );
    if (r.aborted) out.push(`    ${paint(COLOR.fail, safeText(r.aborted))}`);
    for (const c of cases) {
      if (c.verdict === 'skip') {
        if (CHECKED_ELSEWHERE.test(c.message)) {
          if (!elsewhere.has(c.id))
            elsewhere.set(c.id, c.message.replace(/^not run: /, '').replace(/ \(this run: [^)]*\)$/, ''));
        } else if (!c.notApplicable && !skipped.has(c.id)) skipped.set(c.id, c.message);
        continue;
      }
      judged.add(c.id);
      if (c.verdict === 'pass') continue;
      const where = seenIn.get(key(c)) ?? [];
      if (where[0] !== name(r)) continue; // listed under the first scenario that found it
      const also = where.length > 1 ? paint(90, ` (also in ${where.slice(1).map(safeText).join(', ')})`) : '';
      out.push(caseLine(c, paint, false, { indent: '    ' }) + also);
    }
  }
  const neverJudged = [...skipped].filter(([id]) => !judged.has(id));
  if (neverJudged.length) {
    out.push('', bold('Not judged in any scenario played') + paint(90, ` (${neverJudged.length})`));
    for (const [id, why] of neverJudged)
      out.push(`  ${paint(COLOR.skip, '-')} ${safeText(id)}${paint(90, ' — ')}${safeText(why)}`);
  }
  const notPlayed = [...elsewhere].filter(([id]) => !judged.has(id) && !skipped.has(id));
  if (notPlayed.length)
    out.push(
      '',
      paint(
        90,
        `Checked only in scenarios not played here: ${notPlayed.map(([id, w]) => `${safeText(id)} (${safeText(w)})`).join('; ')}; --scenario NAME plays one`,
      ),
    );
  const failing = runs.filter((r) => r.exitCode !== 0 && r.process.stderr.length);
  for (const r of failing.slice(0, 2)) {
    out.push('', bold(`client stderr, scenario ${safeText(name(r))} (last lines)`));
    // The line that names the error leads (the last lines of a Node crash are its stack and version).
    const lines = r.process.stderr.filter((l) => l.trim());
    const named = lines.find((l) => /^\s*(?:Uncaught\s+)?[A-Za-z_.]*(?:Error|Exception)\b[^:]{0,40}:\s*\S/.test(l));
    const tail = lines.slice(-5);
    for (const l of [...(named && !tail.includes(named) ? [named, '…'] : []), ...tail])
      out.push(paint(90, `  | ${safeText(l.length > 200 ? `${l.slice(0, 200)}…` : l)}`));
  }
  const c = combine(set);
  out.push(
    '',
    `${bold('Summary')}: ${countsText(c, paint)} · ${runs.length} scenario${runs.length === 1 ? '' : 's'} · ${(c.durationMs / 1000).toFixed(1)} s`,
  );
  out.push(...updatedFileLines(first, paint));
  out.push(paint(90, `--verbose lists every case of every scenario; ${whereListed(written, 'hold')}`));
  if (written.length) out.push(`Reports: ${written.map(safeText).join(', ')}`);
  const stale = new Set(runs.flatMap((r) => r.baseline?.stale.map((x) => x.entry) ?? [])).size;
  out.push(resultText(c, stale, paint));
  return out.join('\n') + '\n';
}
