/**
 * The console report: a line per suite with its counts, under it every case that is not a pass (per-item findings
 * that say the same thing grouped: reports/brief.ts; skips of cases that do not apply only counted), failures that
 * share a cause grouped (reports/causes.ts), then a short summary: counts per verdict, what was not listed, the
 * report files and the result. Colour only on a TTY (NO_COLOR respected). `--verbose` lists every case, with the
 * exchange of each failing case and every duration. Progress (a line per suite as it runs) is written to stderr,
 * only on a TTY and not in CI: piped or in CI the output is the plain report alone. docs/console.md describes it.
 */
import type { LoggedMessage } from '../core/log.js';
import type { CaseResult, Report, SuiteResult } from '../core/results.js';
import { listSuite } from './brief.js';
import { partialNewest, partialNewestText, sharedCauses, type SharedCause } from './causes.js';
import { eraLines, judgedEras, matrixCell, matrixTable } from './matrix.js';
import { combine, runLabel, type Reporter, type ReporterIO, type ReportSet } from './types.js';
import {
  COLOR,
  type Paint,
  caseLine,
  countsText,
  fmtDuration,
  painter,
  resultText,
  safeText,
  specOf,
  tally,
  updatedFileLines,
  whereListed,
} from './console-lines.js';
import { clientConsole } from './console-client.js';
export { fmtDuration, MUST_WARN, safeText, updatedFileLines } from './console-lines.js';

export interface ConsoleOptions {
  color: boolean;
  /** Print the exchanges of failing cases and every duration. */
  verbose?: boolean;
}

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

// C0 controls but tab (ESC among them), DEL, C1 controls (0x9b is a one-byte CSI), and the bidi overrides and
// isolates that reorder what is shown.

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
  // A server reached over HTTP that the run did not start (no --start) was not started again: it got a new connection.
  const restarted = report.negotiation?.steps.find((st) => st.restartedAfter);
  if (restarted)
    out.push(
      paint(
        90,
        safeText(
          report.target.command !== undefined
            ? `The server was started twice: ${restarted.message}`
            : `The run connected to the server twice: ${restarted.message}`,
        ),
      ),
    );
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

/** How the run got past a protected server (--oauth), or why it could not. */
function authorizationLines(report: Report, paint: Paint): string[] {
  const a = report.authorization;
  if (a?.source !== 'oauth') return [];
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
