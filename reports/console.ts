/**
 * The console report: a line per suite with its counts, under it every case that is not a pass (per-item findings
 * that say the same thing grouped: reports/brief.ts; skips of cases that do not apply only counted), failures that
 * share a cause grouped (reports/causes.ts), then a short summary: counts per verdict, what was not listed, the
 * report files and the result. Colour only on a TTY (NO_COLOR respected). `--verbose` lists every case, with the
 * exchange of each failing case and every duration. Progress (a line per suite as it runs) is written to stderr,
 * only on a TTY and not in CI: piped or in CI the output is the plain report alone. docs/console.md describes it.
 */
import type { LoggedMessage } from '../core/log.js';
import type { CaseResult, Report, SuiteResult, Verdict } from '../core/results.js';
import { listSuite } from './brief.js';
import { partialNewest, partialNewestText, sharedCauses, type SharedCause } from './causes.js';
import { eraLines, judgedEras, matrixCell, matrixTable } from './matrix.js';
import { combine, runLabel, type Reporter, type ReporterIO, type ReportSet } from './types.js';
import { redactHeldSecrets } from '../core/secrets.js';

export interface ConsoleOptions {
  color: boolean;
  /** Print the exchanges of failing cases and every duration. */
  verbose?: boolean;
}

const MARK: Record<Verdict, string> = { pass: '✓', warn: '!', fail: '✗', skip: '-', info: 'i' };
const COLOR: Record<Verdict, number> = { pass: 32, warn: 33, fail: 31, skip: 90, info: 36 };
const BASELINED = 35;

export function useColor(stream: NodeJS.WriteStream): boolean {
  if (process.env.NO_COLOR !== undefined && process.env.NO_COLOR !== '') return false;
  if (process.env.FORCE_COLOR && process.env.FORCE_COLOR !== '0') return true;
  return !!stream.isTTY;
}

/** Progress lines are for people watching a terminal: not when piped, not in CI. */
export function wantProgress(stream: NodeJS.WriteStream, env: NodeJS.ProcessEnv = process.env): boolean {
  const ci = env.CI !== undefined && env.CI !== '' && env.CI !== 'false' && env.CI !== '0';
  return !!stream.isTTY && !ci && env.GITHUB_ACTIONS !== 'true';
}

type Paint = (code: number, s: string) => string;

// C0 controls but tab (ESC among them), DEL, C1 controls (0x9b is a one-byte CSI), and the bidi overrides and
// isolates that reorder what is shown.
const UNSAFE = /[\x00-\x08\x0a-\x1f\x7f-\x9f\u202a-\u202e\u2066-\u2069]/g;

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

function painter(color: boolean): { paint: Paint; bold: (s: string) => string } {
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

/**
 * A progress printer for one run (the console reporter's onSuiteDone; it fits RunOptions.onSuite too). Prints e.g.
 * `  lifecycle        5 pass, 1 fail   120 ms`.
 */
export function progressPrinter(
  write: (s: string) => void,
  color: boolean,
  label?: string,
  startedAt?: number,
): (suite: SuiteResult, phase: 'session' | 'after-shutdown', added: CaseResult[], at?: number) => void {
  const { paint } = painter(color);
  let first = true;
  // Times are those of the calls, or those given (a target run side by side is printed once it is done).
  let t = startedAt ?? performance.now();
  return (suite, phase, added, at) => {
    const now = at ?? performance.now();
    const ms = now - t;
    t = now;
    if (first) {
      first = false;
      if (label) write(paint(90, `Testing ${safeText(label)}\n`));
    }
    if (!added.length) return;
    const { n, text } = tally(added, paint);
    const name = safeText(phase === 'after-shutdown' ? `${suite.id} (log)` : suite.id);
    write(
      `  ${paint(n.fail ? COLOR.fail : n.warn ? COLOR.warn : COLOR.pass, '▸')} ${name.padEnd(22)} ${text}  ${paint(90, fmtDuration(ms))}\n`,
    );
  };
}

/** Counts per verdict of some cases, e.g. "5 pass, 1 fail" (fail, warn, pass, skip, info; only those there are). */
function tally(
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
function caseLine(
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
const specOf = (c: CaseResult): string | undefined =>
  c.verdict === 'fail' || c.verdict === 'warn'
    ? `${c.level} · ${c.spec}${c.verdict === 'warn' && c.level === 'MUST' ? ` · ${MUST_WARN}` : ''}`
    : undefined;

/** Why a case of level MUST is only a warn, on its level line. */
export const MUST_WARN =
  'warn, not fail: a deviation the grading policy tolerates (common to the official SDKs, or within the letter; docs/suites.md#verdicts)';

/** Every case of every suite, a blank line between suites (--verbose): with the exchange of each failing case. */
function everyCase(
  report: Report,
  paint: Paint,
  bold: (s: string) => string,
  causeOf: Map<CaseResult, number>,
): string[] {
  const out: string[] = [];
  const bySeq = new Map(report.messages.map((m) => [m.seq, m]));
  for (const suite of report.suites) {
    out.push('', bold(safeText(suite.id)) + paint(90, `  ${safeText(suite.title)}  ${fmtDuration(suite.durationMs)}`));
    for (const c of suite.cases) {
      out.push(caseLine(c, paint, true, { cause: causeOf.get(c), era: report.eras && c.protocolVersion }));
      if (c.verdict === 'fail') out.push(...exchangeLines(c, bySeq, paint));
    }
  }
  return out;
}

/** Names of the items of a group after its first, as many as fit a line, then how many more. */
function itemNames(cases: CaseResult[], room = 100, eraOf?: Map<CaseResult, string>): string {
  const names: string[] = [];
  let used = 0;
  for (const c of cases) {
    const era = eraOf?.get(c);
    const n = safeText(c.item ?? c.id) + (era ? ` [${safeText(era)}]` : '');
    if (names.length && used + n.length > room) break;
    names.push(n);
    used += n.length + 2;
  }
  const more = cases.length - names.length;
  return names.join(', ') + (more ? ` and ${more} more` : '');
}

/**
 * A line per suite with its counts, and under it the cases that are not a pass (reports/brief.ts). Fails and warns
 * in a row that share level and spec have that line once, under the last of them.
 */
function suiteLines(
  report: Report,
  paint: Paint,
  bold: (s: string) => string,
  causeOf: Map<CaseResult, number>,
  written: string[] = [],
): string[] {
  const out: string[] = [''];
  const width = Math.min(24, Math.max(0, ...report.suites.map((s) => s.id.length)));
  const said = new Map<string, string>(); // a long message printed already → the case that said it
  const eras = judgedEras(report);
  let eraOf = new Map<CaseResult, string>();
  const show = (c: CaseResult) => {
    const first = c.message.length > 120 ? said.get(c.message) : undefined;
    if (!first && c.message.length > 120) said.set(c.message, c.id);
    return caseLine(c, paint, false, { cause: causeOf.get(c), sameAs: first, spec: false, era: eraOf.get(c) });
  };
  // Suites none of whose cases apply to this run (protocol version, transport, capability): with two or more, one
  // line names them all, where the first would be, instead of a line each.
  const naOnly = report.suites.filter(
    (x) => x.cases.length && x.cases.every((c) => c.verdict === 'skip' && c.notApplicable),
  );
  const foldNa = naOnly.length >= 2;
  for (const suite of report.suites) {
    if (foldNa && naOnly.includes(suite)) {
      if (suite === naOnly[0])
        out.push(
          `${bold('not applicable'.padEnd(width))}  ${paint(90, naOnly.map((x) => `${safeText(x.id)} (${x.cases.length})`).join(', '))}`,
        );
      continue;
    }
    const list = listSuite(suite, undefined, eras.length);
    eraOf = list.eraOf;
    // A report of two eras: each era's cell of the version matrix (reports/matrix.ts) after the counts, where they differ.
    const cells = eras.map((e) => matrixCell(e, suite.id) || 'not run');
    const perEra = cells.some((c) => c !== cells[0])
      ? paint(90, `  (${eras.map((e, i) => `${e.protocolVersion}: ${cells[i]}`).join(' · ')})`)
      : '';
    out.push(
      `${bold(safeText(suite.id).padEnd(width))}  ${tally(suite.cases, paint, list.notApplicable).text}  ${paint(90, fmtDuration(suite.durationMs))}${perEra}`,
    );
    // Entries: a case shown, or the first of a group of three or more with the names of the others.
    const entries: { lines: string[]; spec?: string }[] = [];
    for (const g of list.groups) {
      const spec = (c: CaseResult) => (causeOf.has(c) ? undefined : specOf(c));
      if (g.cases.length <= 2) {
        for (const c of g.cases) entries.push({ lines: [show(c)], spec: spec(c) });
        continue;
      }
      const [first, ...rest] = g.cases as [CaseResult, ...CaseResult[]];
      entries.push({
        lines: [
          show(first),
          paint(
            90,
            `        … and ${rest.length} more ${safeText(g.stem)}/… with the same ${g.verdict}: ${itemNames(rest, undefined, eraOf)}`,
          ),
        ],
        spec: spec(first),
      });
    }
    entries.forEach((e, i) => {
      out.push(...e.lines);
      if (e.spec && e.spec !== entries[i + 1]?.spec) out.push(`        ${paint(90, safeText(e.spec))}`);
    });
    for (const o of list.omitted) {
      out.push(
        paint(
          90,
          `    … ${o.groups} other finding${o.groups === 1 ? '' : 's'} of ${safeText(o.stem)} (${o.verdict}, ${o.cases} item${o.cases === 1 ? '' : 's'}): ${whereListed(written, 'in')}`,
        ),
      );
    }
  }
  return out;
}

/** The shared causes of the failures (reports/causes.ts), and the advice when the newest version looks partial. */
function causeLines(report: Report, causes: SharedCause[], paint: Paint, bold: (s: string) => string): string[] {
  if (!causes.length) return [];
  const out: string[] = [''];
  causes.forEach((k, i) => {
    const methods = k.methods.length > 4 ? `${k.methods.slice(0, 4).join(', ')}, …` : k.methods.join(', ');
    const levels = [...new Set(k.cases.map((c) => c.level))].join('/');
    out.push(
      `${bold(`Shared cause ${i + 1}`)}: ${k.cases.length} failing cases (${levels}, marked [cause ${i + 1}]) rest on answers with one schema violation: ${paint(COLOR.fail, safeText(`${k.pointer || '(message)'} ${k.message}`))} ${paint(90, safeText(`in ${k.messages.length} message${k.messages.length === 1 ? '' : 's'}${methods ? ` (${methods})` : ''}`))}`,
    );
  });
  const p = partialNewest(report, causes);
  if (p)
    out.push(
      paint(
        COLOR.warn,
        safeText(
          partialNewestText(
            p,
            causes.filter((k) => k.methods.length >= 2).reduce((n, k) => n + k.cases.length, 0),
          ),
        ),
      ),
    );
  return out;
}

/** The exchange of a case, one line a message, violations under each. */
export function exchangeLines(c: CaseResult, bySeq: Map<number, LoggedMessage>, paint: Paint, max = 20): string[] {
  const out: string[] = [];
  const ids = c.messageIds ?? [];
  for (const id of ids.slice(0, max)) {
    const m = bySeq.get(id);
    if (!m) continue;
    const arrow = m.direction === 'to-server' ? '→' : '←';
    const raw = m.raw.length > 300 ? `${m.raw.slice(0, 300)}… (${m.raw.length} chars)` : m.raw;
    out.push(`        ${paint(90, `${arrow} #${m.seq}`)} ${safeText(raw)}`);
    if (m.problem) out.push(`          ${paint(COLOR.fail, safeText(m.problem))}`);
    if (!m.schema.valid && m.schema.checked) {
      const tag = m.schema.expectedInvalid ? paint(90, '(malformed on purpose)') : '';
      for (const v of m.schema.violations.slice(0, 10))
        out.push(
          `          ${paint(m.schema.expectedInvalid ? 90 : COLOR.fail, safeText(`✗ ${v.pointer || '(message)'} ${v.message}`))} ${tag}`.trimEnd(),
        );
    }
  }
  if (ids.length > max) out.push(paint(90, `        … ${ids.length - max} more messages in report.json`));
  return out;
}

/**
 * A target that never came up (report.startFailure): the cause, the command as run, the server's last stderr lines,
 * what to try and what became of the cases, in a paragraph instead of a line per case.
 */
function startFailureLines(
  report: Report,
  f: NonNullable<Report['startFailure']>,
  paint: Paint,
  bold: (s: string) => string,
): string[] {
  const out: string[] = [''];
  const head =
    f.kind === 'auth-required' ? 'The server asks for authorization the run does not have' : 'The server never came up';
  out.push(`${paint(COLOR.fail, '✗')} ${bold(head)}: ${paint(COLOR.fail, safeText(f.cause))}`);
  const exit =
    f.exitCode !== undefined
      ? ` · ${f.exitCode === null ? `ended by ${f.signal ?? 'a signal'}` : `exited with code ${f.exitCode}`}`
      : '';
  if (f.command)
    out.push(`  command as run: ${safeText(f.command)}${f.cwd ? paint(90, ` (in ${safeText(f.cwd)})`) : ''}${exit}`);
  if (f.url) out.push(`  URL: ${safeText(f.url)}${f.status ? ` · HTTP ${f.status}` : ''}`);
  if (f.stderr.length) {
    out.push('  its last stderr lines:');
    for (const l of f.stderr) out.push(paint(90, `    | ${safeText(l.length > 200 ? `${l.slice(0, 200)}…` : l)}`));
  }
  out.push(`  Try: ${safeText(f.hint)}`);
  const cases = report.suites.reduce((n, s) => n + s.cases.length, 0);
  const failing = report.suites.flatMap((s) => s.cases).find((c) => c.verdict === 'fail');
  out.push(
    paint(
      90,
      `  Nothing was judged: ${failing ? `${safeText(failing.id)} fails with this cause and the other ${cases - 1}` : `all ${cases}`} cases are skipped with it (report.json: startFailure).`,
    ),
  );
  return out;
}

function renderRun(report: Report, color: boolean, verbose: boolean, label?: string, written: string[] = []): string[] {
  const { paint, bold } = painter(color);
  const out: string[] = [];
  const srv = report.server;
  const who = srv.name
    ? `${srv.name}${srv.version ? ` ${srv.version}` : ''}`
    : (report.target.command ?? report.target.url ?? 'server');
  if (report.startFailure && !verbose) {
    out.push(
      bold(
        safeText(
          `mcp-conform ${report.tool.version} · ${label ? `${label}: ` : ''}${who} over ${report.target.transport}`,
        ),
      ),
    );
    out.push(...startFailureLines(report, report.startFailure, paint, bold));
    out.push(...updatedFileLines(report, paint));
    return out;
  }
  out.push(
    bold(
      safeText(
        `mcp-conform ${report.tool.version} · ${label ? `${label}: ` : ''}${who} ${report.options.lint ? '(lint: a saved tool list, no server)' : `over ${report.target.transport}`}${
          srv.protocolVersion
            ? ` · protocol ${
                judgedEras(report).length > 1
                  ? judgedEras(report)
                      .map((e) => e.protocolVersion)
                      .join(' + ')
                  : srv.protocolVersion
              }`
            : ''
        }`,
      ),
    ),
  );
  out.push(...eraLines(report).map((l) => paint(90, safeText(l))));
  // A server started a second time (negotiation restarts it once when server/discover killed or hung it) is said, with
  // why: its start-up work (an API check, say) ran twice.
  const restarted = report.negotiation?.steps.find((st) => st.restartedAfter);
  if (restarted) out.push(paint(90, safeText(`The server was started twice: ${restarted.message}`)));
  // Text on stdout that is not JSON-RPC (a banner, a log line): quoted at the top, where a newcomer looks first.
  const stray =
    report.target.transport === 'stdio'
      ? report.messages.filter((m) => m.direction === 'from-server' && m.kind === 'invalid' && m.raw.trim())
      : [];
  if (stray.length) {
    const t = stray[0]!.raw;
    out.push(
      paint(
        COLOR.fail,
        `The server wrote text that is not JSON-RPC on stdout: '${safeText(t.length > 100 ? `${t.slice(0, 100)}…` : t)}'${stray.length > 1 ? ` (and ${stray.length - 1} more line${stray.length === 2 ? '' : 's'})` : ''} — stdout is for protocol messages; log to stderr (stdio/stdout-only-messages)`,
      ),
    );
  }
  const causes = sharedCauses(report);
  const causeOf = new Map(causes.flatMap((k, i) => k.cases.map((c) => [c, i + 1] as const)));
  // A run stopped (Ctrl-C, SIGTERM, --max-duration): one line says so, then only what ran is listed.
  const cut = stoppedView(report);
  if (cut && !verbose)
    out.push(
      '',
      paint(
        COLOR.warn,
        `${cut.signal ? `Interrupted (${cut.signal}) after ${(report.durationMs / 1000).toFixed(1)} s` : `Stopped after ${(report.durationMs / 1000).toFixed(1)} s (${safeText(report.aborted!)})`}: ${cut.notRun} case${cut.notRun === 1 ? '' : 's'} not run. What ran:`,
      ),
    );
  out.push(
    ...(verbose
      ? everyCase(report, paint, bold, causeOf)
      : suiteLines(cut?.view ?? report, paint, bold, causeOf, written)),
  );
  out.push(...causeLines(report, causes, paint, bold));
  const s = report.summary;
  const unexcused = s.fail - (s.baselined ?? 0);
  if ((unexcused > 0 || verbose) && report.process.stderr.length) {
    out.push('', bold(`${report.options.mode === 'client' ? 'client' : 'server'} stderr (last lines)`));
    for (const l of report.process.stderr.slice(verbose ? -40 : -10)) out.push(paint(90, `  | ${safeText(l)}`));
  }
  const b = report.baseline;
  if (b) {
    out.push(
      '',
      `${bold('Baseline')} ${safeText(b.file)}: ${b.used.length} of ${b.entries} entr${b.entries === 1 ? 'y' : 'ies'} excused ${s.baselined ?? 0} failing case${s.baselined === 1 ? '' : 's'}${b.unchecked.length ? paint(90, ` · ${b.unchecked.length} not checked in this run`) : ''}`,
    );
    for (const st of b.stale)
      out.push(
        `  ${paint(COLOR.warn, '! stale')}  ${safeText(st.entry)}${paint(90, ' — ')}${safeText(st.why)}: remove it from the baseline`,
      );
  }
  out.push('');
  out.push(...updatedFileLines(report, paint));
  out.push(...authorizationLines(report, paint));
  if (report.aborted && !(cut && !verbose)) out.push(paint(COLOR.fail, `Run ended early: ${safeText(report.aborted)}`));
  if (report.repeated)
    out.push(
      paint(
        COLOR.warn,
        `Run repeated without the early unknown notification (first attempt ${(report.repeated.firstAttemptMs / 1000).toFixed(1)} s set aside): ${safeText(report.repeated.reason)}`,
      ),
    );
  out.push(
    `${bold('Summary')}: ${countsText(report, paint)} · ${s.messagesValidated} messages validated${s.strayLines ? ` · ${s.strayLines} stray stdout lines` : ''} · ${(report.durationMs / 1000).toFixed(1)} s`,
  );
  if (!verbose) out.push(...notListedLines(report, paint, written));
  out.push(...notCalledLines(report, paint));
  return out;
}

/**
 * A run that was stopped (a signal, --max-duration): the report with only the cases that ran (not those skipped or cut
 * short because of the stop), how many did not run, and the signal when there was one. Undefined for a run not stopped.
 */
function stoppedView(report: Report): { view: Report; notRun: number; signal?: string } | undefined {
  const why = report.aborted;
  if (
    !why ||
    report.startFailure ||
    !(report.exitCode > 1 || /^the run (?:was interrupted|reached its time limit)/.test(why))
  )
    return undefined;
  const stopped = (c: CaseResult) =>
    c.verdict === 'skip' && (c.message === `not run: ${why}` || c.message === `not finished: ${why}`);
  let notRun = 0;
  const suites = report.suites
    .map((s) => {
      const cases = s.cases.filter((c) => !stopped(c));
      notRun += s.cases.length - cases.length;
      return { ...s, cases };
    })
    .filter((s) => s.cases.some((c) => !(c.verdict === 'skip' && c.notApplicable)));
  const signal =
    /\((SIG[A-Z]+)\)/.exec(why)?.[1] ??
    (report.exitCode === 130 ? 'SIGINT' : report.exitCode === 143 ? 'SIGTERM' : undefined);
  return { view: { ...report, suites }, notRun, ...(signal ? { signal } : {}) };
}

/** What the default report did not list: passes, skips of cases that do not apply. */
function notListedLines(report: Report, paint: Paint, written: string[] = []): string[] {
  const na = report.suites.reduce(
    (n, suite) => n + suite.cases.filter((c) => c.verdict === 'skip' && c.notApplicable).length,
    0,
  );
  const pass = report.summary.pass;
  if (!pass && !na) return [];
  const what = [
    pass ? `${pass} pass${pass === 1 ? '' : 'es'}` : '',
    na
      ? `${na} skip${na === 1 ? '' : 's'} of cases that do not apply to this run (protocol version, transport, undeclared capability)`
      : '',
  ]
    .filter(Boolean)
    .join(' and ');
  return [paint(90, `Not listed: ${what}; --verbose lists every case, ${whereListed(written, 'hold')}`)];
}

/**
 * Where every case can be read, naming only the report files this invocation wrote: "report.json holds them all",
 * "report.html and report.json hold them all", or, when it wrote neither, the flag that writes one.
 */
function whereListed(written: string[], how: 'hold' | 'in'): string {
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

/** How the run got past a protected server (--oauth), or why it could not. */
function authorizationLines(report: Report, paint: Paint): string[] {
  const a = report.authorization;
  if (!a || a.source !== 'oauth') return [];
  if (a.failure) return [paint(COLOR.fail, `--oauth could not get in: ${safeText(a.failure)}`)];
  const d = a.discovered ?? {};
  if (d.registration === 'none' && !d.grant)
    return [paint(90, '--oauth: the server answered without asking for authorization; no token was needed')];
  const how = [
    d.registration && `${d.registration} client`,
    d.grant,
    d.tokenEndpointAuthMethod && `token endpoint auth ${d.tokenEndpointAuthMethod}`,
    d.scope && `scope "${d.scope}"`,
    d.interactive ? 'a person logged in' : 'approved at once',
    d.legacy && '2025-03-26 discovery (no protected-resource metadata)',
  ]
    .filter(Boolean)
    .join(', ');
  return [
    paint(
      90,
      `--oauth: got a token from ${safeText(d.issuer ?? 'the authorization server')} (${safeText(how)})${a.ms !== undefined ? ` in ${(a.ms / 1000).toFixed(2)} s` : ''}`,
    ),
  ];
}

/** The tools the run did not call and how to include them; --call-tool names that match no tool. */
function notCalledLines(report: Report, paint: Paint): string[] {
  const out: string[] = [];
  const n = report.skippedTools.length;
  if (n) {
    const names =
      report.skippedTools
        .slice(0, 10)
        .map((t) => safeText(t.name))
        .join(', ') + (n > 10 ? ` and ${n - 10} more` : '');
    out.push(
      paint(
        90,
        `${n} tool${n === 1 ? '' : 's'} not called (--call-tools ${safeText(String(report.options.callTools))}): ${names} · to include them: --call-tools all (in a sandbox: they may have side effects), or --call-tool NAME for one tool; report.json skippedTools says why`,
      ),
    );
  }
  for (const name of report.unknownCallTools ?? [])
    out.push(
      paint(COLOR.warn, `--call-tool ${safeText(name)}: the server lists no tool of that name (nothing called for it)`),
    );
  return out;
}

function countsText(r: { summary: Report['summary'] }, paint: Paint): string {
  const s = r.summary;
  return (['pass', 'warn', 'fail', 'skip', 'info'] as Verdict[])
    .map((v) => {
      const extra = v === 'fail' && s.baselined ? ` (${s.baselined} baselined)` : '';
      return paint(s[v] ? COLOR[v] : 90, `${s[v]} ${v}${extra}`);
    })
    .join(', ');
}

function resultText(
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

/** The whole console report of an invocation (one or several targets). */
export function renderConsole(input: Report | ReportSet, written: string[], opts: ConsoleOptions | boolean): string {
  const o: ConsoleOptions = typeof opts === 'boolean' ? { color: opts } : opts;
  const set: ReportSet = 'runs' in input ? input : { runs: [input] };
  const { paint, bold } = painter(o.color);
  const multi = set.runs.length > 1;
  // `mcp-conform client`: a line per scenario and its findings, not a whole report per scenario.
  if (!o.verbose && set.runs.length && set.runs.every((r) => r.options.mode === 'client'))
    return clientConsole(set, written, paint, bold);
  const out: string[] = [];
  set.runs.forEach((r, i) => {
    if (i) out.push('', paint(90, '─'.repeat(60)), '');
    out.push(...renderRun(r, o.color, !!o.verbose, multi ? runLabel(r, i) : undefined, written));
  });
  // An entry without a target is stale in every run: count it once.
  const stale = new Set(set.runs.flatMap((r) => r.baseline?.stale.map((x) => x.entry) ?? [])).size;
  if (multi) {
    const c = combine(set);
    out.push(
      '',
      `${bold('All targets')}: ${countsText(c, paint)} · ${set.runs.length} targets · ${(c.durationMs / 1000).toFixed(1)} s`,
    );
    for (const [i, r] of set.runs.entries())
      out.push(`  ${r.exitCode === 0 ? paint(COLOR.pass, '✓') : paint(COLOR.fail, '✗')} ${safeText(runLabel(r, i))}`);
    if (written.length) out.push(`Reports: ${written.map(safeText).join(', ')}`);
    out.push(resultText(c, stale, paint));
  } else {
    if (written.length) out.push(`Reports: ${written.map(safeText).join(', ')}`);
    out.push(resultText(set.runs[0], stale, paint));
  }
  return out.join('\n') + '\n';
}

/** A skip that only says another scenario checks the case (clients/grade.ts). */
const CHECKED_ELSEWHERE = /^not run: checked in (?:scenario |\d+ other scenarios)/;

/**
 * The console of `mcp-conform client`: one line per scenario (✓/✗, its counts, its time), under it every case of that
 * scenario that is not a pass or a skip; then, once, the cases no scenario judged (with the reason), the cases that
 * are checked in scenarios this command did not play, the scenarios not played, the client's last stderr lines of a
 * failing scenario (labelled as the client's), the summary and the result.
 */
function clientConsole(set: ReportSet, written: string[], paint: Paint, bold: (s: string) => string): string {
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

/**
 * The console reporter: progress lines on stderr while a run goes (when io.progress), then the console report of
 * every run and, for --all-versions, the version matrix on stdout.
 */
export function consoleReporter(io: ReporterIO): Reporter {
  let progress: ReturnType<typeof progressPrinter> | undefined;
  return {
    name: 'console',
    onRunStart({ label, at }) {
      progress = io.progress ? progressPrinter((s) => void io.stderr(s), io.progress.color, label, at) : undefined;
    },
    onSuiteDone(suite, phase, added, at) {
      progress?.(suite, phase, added, at);
    },
    async onFinished(set, ctx) {
      await io.stdout(renderConsole(set, ctx.written, { color: io.color, verbose: io.verbose }));
      const runs = set.runs;
      // (not for a target that never came up in any version: the paragraph above says why)
      for (const r of runs)
        if (r.matrix && !(r.startFailure && !r.matrix.some((m) => m.accepted)))
          await io.stdout(
            `\n${runs.length > 1 ? `${r.target.name ?? r.target.command ?? r.target.url ?? ''}\n` : ''}${matrixTable(r.matrix)}`,
          );
      return undefined;
    },
  };
}
