import type { CaseResult, Report, Verdict } from '../core/results.js';
import { redactHeldSecrets } from '../core/secrets.js';

export const MARK: Record<Verdict, string> = { pass: '✓', warn: '!', fail: '✗', skip: '-', info: 'i' };

export const COLOR: Record<Verdict, number> = { pass: 32, warn: 33, fail: 31, skip: 90, info: 36 };

export const BASELINED = 35;

export type Paint = (code: number, s: string) => string;

export const UNSAFE = /[\x00-\x08\x0a-\x1f\x7f-\x9f\u202a-\u202e\u2066-\u2069]/g;

/**
 * A string from the server (or quoting it) made safe for a terminal: control characters become visible escapes
 * (ESC → \x1b, LF → \n), so a server cannot clear the screen, set the title or hide text. Line breaks are only
 * those the console itself writes.
 */
export function safeText(s: unknown): string {
  // Secret values the harness holds (--oauth's tokens, codes, client secret) are never shown, whoever echoes them.
  return redactHeldSecrets(String(s)).replace(UNSAFE, (c) => {
    if (c === '\n') return '\\n';
    if (c === '\r') return '\\r';
    const code = c.charCodeAt(0);
    return code > 0xff ? `\\u${code.toString(16).padStart(4, '0')}` : `\\x${code.toString(16).padStart(2, '0')}`;
  });
}

export function painter(color: boolean): { paint: Paint; bold: (s: string) => string } {
  return {
    paint: (code, s) => (color ? `\x1b[${code}m${s}\x1b[0m` : s),
    bold: (s) => (color ? `\x1b[1m${s}\x1b[0m` : s),
  };
}

export function fmtDuration(ms: number): string {
  if (ms < 0) return '';
  if (ms < 1000) return `${Math.round(ms)} ms`;
  return `${(ms / 1000).toFixed(1)} s`;
}

/** Counts per verdict of some cases, e.g. "5 pass, 1 fail" (fail, warn, pass, skip, info; only those there are). */
export function tally(
  cases: CaseResult[],
  paint: Paint,
  notApplicable = 0,
): { n: Partial<Record<Verdict, number>>; text: string } {
  const n: Partial<Record<Verdict, number>> = {};
  for (const c of cases) n[c.verdict] = (n[c.verdict] ?? 0) + 1;
  const parts = (['fail', 'warn', 'pass', 'skip', 'info'] as Verdict[])
    .filter((v) => n[v])
    .map((v) => {
      const na =
        v === 'skip' && notApplicable ? ` (${notApplicable === n.skip ? '' : `${notApplicable} `}not applicable)` : '';
      return paint(COLOR[v], `${n[v]} ${v}`) + (na ? paint(90, na) : '');
    });
  return { n, text: parts.length ? parts.join(', ') : paint(90, 'no cases') };
}

/**
 * A case on its line(s): mark, id, message (cut at 400 characters unless verbose; `sameAs`: the id of a case above
 * with this very message, named instead of repeating it), slow durations, the baseline entry that excuses it, and the
 * level and spec of a fail or warn (unless `spec` is false: the default listing says it once under several cases that
 * share it, and not under a failure of a shared cause, whose line below says the rest); `cause` marks the failure with
 * its shared cause.
 */
export function caseLine(
  c: CaseResult,
  paint: Paint,
  verbose: boolean,
  o: { indent?: string; cause?: number; sameAs?: string; spec?: boolean; era?: string } = {},
): string {
  const ind = o.indent ?? '  ';
  const known = c.verdict === 'fail' && c.baselined;
  const mark = known
    ? paint(BASELINED, `~ fail`)
    : paint(COLOR[c.verdict], `${MARK[c.verdict]} ${c.verdict.padEnd(4)}`);
  const msg =
    o.sameAs !== undefined
      ? paint(90, `the same message as ${safeText(o.sameAs)}`)
      : safeText(c.message.length > 400 && !verbose ? c.message.slice(0, 400) + '…' : c.message);
  const dur = verbose || c.durationMs >= 1000 ? paint(90, ` (${fmtDuration(c.durationMs)})`) : '';
  let tail = '';
  if (known)
    tail += `\n${ind}      ${paint(BASELINED, `known failure (baseline entry ${safeText(c.baselineEntry ?? c.id)}${c.baselineReason ? `: ${safeText(c.baselineReason)}` : ''})`)}`;
  if (o.spec !== false && specOf(c)) tail += `\n${ind}      ${paint(90, safeText(specOf(c)!))}`;
  return `${ind}${mark}  ${safeText(c.id)}${o.era ? paint(90, ` [${safeText(o.era)}]`) : ''}${paint(90, ' — ')}${o.cause ? `${paint(COLOR.fail, `[cause ${o.cause}]`)} ` : ''}${msg}${dur}${tail}`;
}

/** The level and spec line of a fail or warn. */
export const specOf = (c: CaseResult): string | undefined =>
  c.verdict === 'fail' || c.verdict === 'warn'
    ? `${c.level} · ${c.spec}${c.verdict === 'warn' && c.level === 'MUST' ? ` · ${MUST_WARN}` : ''}`
    : undefined;

/** Why a case of level MUST is only a warn, on its level line. */
export const MUST_WARN =
  'warn, not fail: a deviation the grading policy tolerates (common to the official SDKs, or within the letter; docs/suites.md#verdicts)';

/**
 * Where every case can be read, naming only the report files this invocation wrote: "report.json holds them all",
 * "report.html and report.json hold them all", or, when it wrote neither, the flag that writes one.
 */
export function whereListed(written: string[], how: 'hold' | 'in'): string {
  const names = ['report.html', 'report.json'].filter((n) =>
    written.some((w) => w === n || w.endsWith(`/${n}`) || w.endsWith(`\\${n}`)),
  );
  if (!names.length)
    return how === 'hold'
      ? '--reporter html or --reporter json writes them all'
      : 'written with --reporter html or --reporter json';
  const list = names.join(' and ');
  if (how === 'in')
    return `in ${list}${names.length === 1 && names[0] === 'report.json' ? ' (--reporter html for a page)' : ''}`;
  return `${list} ${names.length === 1 ? 'holds' : 'hold'} them all${names[0] === 'report.json' ? ' (--reporter html for a page)' : ''}`;
}

/** "updated FILE: N expectations changed (…)" or "FILE unchanged", for every file of the user's the run rewrote. */
export function updatedFileLines(report: Pick<Report, 'updatedFiles'>, paint: Paint): string[] {
  return (report.updatedFiles ?? []).map((u) => {
    if (!u.written) return paint(90, `${safeText(u.file)} unchanged (--${safeText(u.by)})`);
    const what = u.details.length
      ? ` (${safeText(u.details.slice(0, 6).join(', '))}${u.details.length > 6 ? `, and ${u.details.length - 6} more` : ''})`
      : '';
    if (u.unit === 'new file')
      return paint(COLOR.warn, `wrote ${safeText(u.file)}: a new file${what} (--${safeText(u.by)})`);
    return paint(
      COLOR.warn,
      `updated ${safeText(u.file)}: ${u.changed} ${safeText(u.unit)} changed${what} (--${safeText(u.by)})`,
    );
  });
}

export function countsText(r: { summary: Report['summary'] }, paint: Paint): string {
  const s = r.summary;
  return (['pass', 'warn', 'fail', 'skip', 'info'] as Verdict[])
    .map((v) => {
      const extra = v === 'fail' && s.baselined ? ` (${s.baselined} baselined)` : '';
      return paint(s[v] ? COLOR[v] : 90, `${s[v]} ${v}${extra}`);
    })
    .join(', ');
}

export function resultText(
  r: {
    exitCode: number;
    summary: Report['summary'];
    matrix?: Report['matrix'];
    startFailure?: Report['startFailure'];
    aborted?: string;
  },
  stale: number,
  paint: Paint,
): string {
  const s = r.summary;
  const unexcused = s.fail - (s.baselined ?? 0);
  const notes: string[] = [];
  if (s.baselined) notes.push(`${s.baselined} known failure${s.baselined === 1 ? '' : 's'} in the baseline`);
  if (stale) notes.push(`${stale} stale baseline entr${stale === 1 ? 'y' : 'ies'}`);
  const tail = notes.length ? ` (${notes.join('; ')})` : '';
  if (r.exitCode === 0) return paint(COLOR.pass, `Result: no failures${tail}`);
  if (r.exitCode === 130 || r.exitCode === 143)
    return paint(
      COLOR.fail,
      `Result: interrupted (exit code ${r.exitCode})${unexcused > 0 ? `; ${unexcused} failing case${unexcused === 1 ? '' : 's'} among what ran` : ''}`,
    );
  if (r.startFailure)
    return paint(
      COLOR.fail,
      `Result: ${r.startFailure.kind === 'auth-required' ? 'not run: authorization required' : 'the server never came up'} (exit code ${r.exitCode})`,
    );
  if (unexcused > 0) return paint(COLOR.fail, `Result: ${unexcused} failing case${unexcused === 1 ? '' : 's'}${tail}`);
  // --all-versions: the cases above are the newest accepted version's; a failure of an older one is only counted in
  // the matrix, so say where it is and how to see it.
  const older = (r.matrix ?? []).filter((m) => m.accepted && m.summary.fail > 0);
  if (older.length) {
    const where = older.map((m) => `${m.summary.fail} in ${m.protocolVersion}`).join(', ');
    return paint(
      COLOR.fail,
      `Result: failing cases in another version (${where}): --protocol-version ${older[0]!.protocolVersion} lists them${tail}`,
    );
  }
  if (r.aborted)
    return paint(
      COLOR.fail,
      `Result: the run ended early, nothing failed among what ran (exit code ${r.exitCode})${tail}`,
    );
  return paint(COLOR.fail, `Result: failed${tail}`);
}
