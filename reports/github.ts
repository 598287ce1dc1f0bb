/**
 * GitHub Actions: `::error` / `::warning` / `::notice` workflow commands (annotations) for fail, warn and baselined
 * cases and stale baseline entries, printed on stdout; and a Markdown summary appended to $GITHUB_STEP_SUMMARY.
 * On by itself when GITHUB_ACTIONS=true; `--reporter github` turns it on anywhere (without $GITHUB_STEP_SUMMARY the
 * summary goes to <out-dir>/summary.md).
 */
import { caseName } from './brief.js';
import { appendFile, mkdir, writeFile } from 'node:fs/promises';
import { join } from 'node:path';
import type { CaseResult, Report, Summary } from '../core/results.js';
import type { SurfaceDiff } from '../core/surface/diff.js';
import { diffMarkdown } from '../core/surface/render.js';
import { combine, runLabel, totalSummary, type Reporter, type ReporterIO, type ReportSet } from './types.js';

/** GitHub shows at most 10 errors and 10 warnings per step; more are printed but counted here. */
export const MAX_ANNOTATIONS_PER_KIND = 50;

/** Escaping of a workflow command's message (the data after `::`). */
export function escapeData(s: string): string {
  return s.replace(/%/g, '%25').replace(/\r/g, '%0D').replace(/\n/g, '%0A');
}

/** Escaping of a workflow command's property value (title=…). */
export function escapeProperty(s: string): string {
  return escapeData(s).replace(/:/g, '%3A').replace(/,/g, '%2C');
}

function command(kind: 'error' | 'warning' | 'notice', title: string, message: string): string {
  return `::${kind} title=${escapeProperty(title)}::${escapeData(message)}`;
}

function bounded(s: string, n: number): string {
  return s.length > n ? `${s.slice(0, n)}…` : s;
}

/** The annotation lines for a set of runs. */
export function renderAnnotations(set: ReportSet): string[] {
  const out: string[] = [];
  const multi = set.runs.length > 1;
  const n = { error: 0, warning: 0, notice: 0 };
  const add = (kind: 'error' | 'warning' | 'notice', title: string, message: string) => {
    n[kind]++;
    if (n[kind] <= MAX_ANNOTATIONS_PER_KIND) out.push(command(kind, title, message));
  };
  set.runs.forEach((r, i) => {
    const pre = multi ? `${runLabel(r, i)}: ` : '';
    if (r.aborted) add('error', `mcp-conform: ${pre}run ended early`, r.aborted);
    for (const s of r.suites) {
      for (const c of s.cases) {
        const body = `${bounded(c.message, 4000)}\n${c.level} · ${c.spec}`;
        if (c.verdict === 'fail' && c.baselined)
          add(
            'notice',
            `mcp-conform: ${pre}${caseName(c)} (known failure, baselined)`,
            `${c.baselineReason ? `baseline: ${c.baselineReason}\n` : ''}${body}`,
          );
        else if (c.verdict === 'fail')
          add(
            'error',
            `mcp-conform: ${pre}${caseName(c)} (${c.level})`,
            `${c.strictFromWarn ? '[warn made a fail by --strict] ' : ''}${body}`,
          );
        else if (c.verdict === 'warn') add('warning', `mcp-conform: ${pre}${caseName(c)} (${c.level})`, body);
      }
    }
    for (const st of r.baseline?.stale ?? []) {
      add(
        r.options.strict === true ? 'error' : 'warning',
        `mcp-conform: ${pre}stale baseline entry ${st.entry}`,
        `${st.why}: remove it from ${r.baseline!.file}`,
      );
    }
  });
  for (const k of ['error', 'warning', 'notice'] as const) {
    if (n[k] > MAX_ANNOTATIONS_PER_KIND)
      out.push(
        command(
          'notice',
          'mcp-conform',
          `${n[k] - MAX_ANNOTATIONS_PER_KIND} more ${k} annotations left out: see the step summary and the report files`,
        ),
      );
  }
  return out;
}

/** Markdown text from the server: no HTML, no table breaks, no links or emphasis it did not mean. */
export function md(s: string, max = 300): string {
  const one = bounded(s.replace(/\s+/g, ' ').trim(), max);
  return one
    .replace(/&/g, '&amp;')
    .replace(/</g, '&lt;')
    .replace(/>/g, '&gt;')
    .replace(/([\\`*_[\]|#!~])/g, '\\$1');
}

function countsLine(s: Summary): string {
  const fail = s.fail - (s.baselined ?? 0);
  return `| ${fail} | ${s.warn} | ${s.pass} | ${s.skip} | ${s.info} | ${s.baselined ?? 0} | ${s.total} |`;
}

/** A code span in a table cell. */
const code = (s: string) => `\`${s.replace(/`/g, "'").replace(/\|/g, '\\|')}\``;

function caseRow(c: CaseResult): string {
  const v = c.verdict === 'fail' && c.baselined ? 'baselined' : c.verdict;
  const icon = v === 'fail' ? '❌' : v === 'warn' ? '⚠️' : v === 'baselined' ? '🟣' : '';
  const spec = /^https?:\/\//.test(c.spec) ? ` ([spec](${c.spec}))` : '';
  return `| ${icon} ${v} | ${code(c.id)} | ${c.level} | ${md(c.message)}${c.baselined && c.baselineReason ? `<br>baseline: ${md(c.baselineReason, 160)}` : ''}${spec} |`;
}

/** The diff of case surface/compatible (run --baseline-snapshot), as Markdown; undefined when there is none. */
export function surfaceDiffMarkdown(cases: CaseResult[]): string | undefined {
  const c = cases.find((x) => x.id === 'surface/compatible');
  const d = c?.details?.diff as SurfaceDiff | undefined;
  if (!d || !Array.isArray(d.changes)) return undefined;
  return diffMarkdown(d, { old: String(c!.details!.baselineSnapshot ?? 'baseline snapshot'), new: 'this run' }, 3);
}

/** The step summary (GitHub-flavoured Markdown). */
export function renderStepSummary(set: ReportSet, files: string[] = []): string {
  const runs = set.runs;
  const multi = runs.length > 1;
  const sum = multi ? totalSummary(runs) : runs[0].summary;
  const exit = multi ? combine(set).exitCode : runs[0].exitCode;
  const fail = sum.fail - (sum.baselined ?? 0);
  const out: string[] = [];
  const name = multi ? `${runs.length} targets` : md(runLabel(runs[0]), 120);
  out.push(
    `## ${exit === 0 ? '✅' : '❌'} mcp-conform: ${name} — ${exit === 0 ? 'no failures' : fail ? `${fail} failing case${fail === 1 ? '' : 's'}` : 'failed'}`,
    '',
  );
  out.push(
    '| fail | warn | pass | skip | info | baselined | total |',
    '|---:|---:|---:|---:|---:|---:|---:|',
    countsLine(sum),
    '',
  );
  runs.forEach((r, i) => {
    if (multi)
      out.push(
        `### ${r.exitCode === 0 ? '✅' : '❌'} ${md(runLabel(r, i), 120)}`,
        '',
        '| fail | warn | pass | skip | info | baselined | total |',
        '|---:|---:|---:|---:|---:|---:|---:|',
        countsLine(r.summary),
        '',
      );
    const s = r.server;
    out.push(
      `Server: **${md(s.name ?? '(no serverInfo)', 120)}${s.version ? ` ${md(s.version, 60)}` : ''}** over ${r.target.transport}${s.protocolVersion ? `, protocol ${md(s.protocolVersion, 40)}` : ''}, ${(r.durationMs / 1000).toFixed(1)} s.`,
      '',
    );
    if (r.aborted) out.push(`> **Run ended early:** ${md(r.aborted, 600)}`, '');
    const cases = r.suites.flatMap((x) => x.cases);
    const shown = [
      ...cases.filter((c) => c.verdict === 'fail' && !c.baselined),
      ...cases.filter((c) => c.verdict === 'warn'),
      ...cases.filter((c) => c.verdict === 'fail' && c.baselined),
    ];
    if (shown.length) {
      out.push('| verdict | case | level | message |', '|---|---|---|---|');
      for (const c of shown.slice(0, 200)) out.push(caseRow(c));
      if (shown.length > 200) out.push(`| | … ${shown.length - 200} more | | |`);
      out.push('');
    }
    const surface = surfaceDiffMarkdown(cases);
    if (surface) out.push(surface);
    const stale = r.baseline?.stale ?? [];
    if (stale.length) {
      out.push(
        `**Stale baseline entries** (no failure matches them any more; remove them from ${code(r.baseline!.file)}):`,
        '',
      );
      for (const st of stale) out.push(`- ${code(st.entry)}: ${md(st.why)}`);
      out.push('');
    }
  });
  if (files.length) out.push(`Reports: ${files.map(code).join(', ')}`, '');
  return out.join('\n') + '\n';
}

export interface GithubOptions {
  env?: NodeJS.ProcessEnv;
  /** Where annotations are printed (stdout: that is where the runner reads workflow commands). */
  write?: (s: string) => Promise<void> | void;
  /** The other report files, named in the summary. */
  files?: string[];
}

/** Prints the annotations and writes the summary; returns the file the summary went to. */
export async function reportToGithub(set: ReportSet, outDir: string, o: GithubOptions = {}): Promise<string> {
  const env = o.env ?? process.env;
  const lines = renderAnnotations(set);
  const write = o.write ?? ((s: string) => new Promise<void>((res) => process.stdout.write(s, () => res())));
  if (lines.length) await write(lines.join('\n') + '\n');
  const summary = renderStepSummary(set, o.files);
  const target = env.GITHUB_STEP_SUMMARY;
  if (target) {
    await appendFile(target, summary);
    return target;
  }
  await mkdir(outDir, { recursive: true });
  const file = join(outDir, 'summary.md');
  await writeFile(file, summary);
  return file;
}

/** The github reporter: annotations on stdout, the step summary (listing the files the reporters before it wrote). */
export function githubReporter(io: Pick<ReporterIO, 'env' | 'stdout'>): Reporter {
  return {
    name: 'github',
    optional: true,
    what: 'the GitHub step summary',
    async onFinished(set, ctx) {
      const summary = await reportToGithub(set, ctx.outDir, { env: io.env, write: io.stdout, files: ctx.written });
      return summary !== io.env.GITHUB_STEP_SUMMARY ? summary : undefined;
    },
  };
}

export const isGithubActions = (env: NodeJS.ProcessEnv = process.env) => env.GITHUB_ACTIONS === 'true';

export type { Report };
