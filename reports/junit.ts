/**
 * junit.xml, in the shape the test-report readers of GitHub (dorny/test-reporter, mikepenz/action-junit-report),
 * GitLab (artifacts:reports:junit) and Jenkins (junit step) accept: one <testsuites>, a <testsuite> per suite, a
 * <testcase> per case (classname `mcp-conform.<suite>`, name the case id, time in seconds).
 *
 * - fail → <failure message type> with the title, message and spec link as text;
 * - skip → <skipped message>;
 * - a baselined fail (a known failure) → <skipped message="known failure (baseline): …"> so that readers do not
 *   fail the build the exit code does not fail; the verdict stays in the properties;
 * - warn, info and pass are passing testcases; the verdict is a property and the message is in <system-out>
 *   (under --strict a warn is already a fail, so it is a <failure>).
 * Every testcase carries the properties verdict, level and spec (and baselined, baselineReason).
 * Several targets: each suite is a <testsuite> named `<target> · <suite>`, classname `mcp-conform.<target>.<suite>`.
 */
import { caseName } from './brief.js';
import { mkdir, writeFile } from 'node:fs/promises';
import { envSecretRedactor } from '../core/secrets.js';
import { join } from 'node:path';
import type { CaseResult, Report } from '../core/results.js';
import { runLabel, totalSummary, type Reporter, type ReportSet } from './types.js';

export function xmlEscape(s: string): string {
  // Characters XML 1.0 cannot hold at all are dropped; the five specials are escaped.
  return s
    .replace(/[^\u0009\u000A\u000D\u0020-\uD7FF\uE000-\uFFFD\u{10000}-\u{10FFFF}]/gu, '')
    .replace(/&/g, '&amp;')
    .replace(/</g, '&lt;')
    .replace(/>/g, '&gt;')
    .replace(/"/g, '&quot;')
    .replace(/'/g, '&apos;');
}

/** For attribute values: line breaks and tabs kept as character references (parsers turn raw ones into spaces). */
function attr(s: string): string {
  return xmlEscape(s).replace(/\n/g, '&#10;').replace(/\r/g, '&#13;').replace(/\t/g, '&#9;');
}

const secs = (ms: number) => (Math.max(0, ms) / 1000).toFixed(3);
const slug = (s: string) => s.replace(/[^A-Za-z0-9_-]+/g, '_').replace(/^_+|_+$/g, '') || 'target';

function testcase(c: CaseResult, classname: string): string[] {
  const lines: string[] = [];
  lines.push(`    <testcase classname="${attr(classname)}" name="${attr(caseName(c))}" time="${secs(c.durationMs)}">`);
  const props = [
    `<property name="verdict" value="${c.verdict}"/>`,
    `<property name="level" value="${c.level}"/>`,
    `<property name="spec" value="${attr(c.spec)}"/>`,
  ];
  if (c.strictFromWarn) props.push('<property name="strictFromWarn" value="true"/>');
  if (c.baselined)
    props.push(
      '<property name="baselined" value="true"/>',
      `<property name="baselineReason" value="${attr(c.baselineReason ?? '')}"/>`,
    );
  lines.push(`      <properties>${props.join('')}</properties>`);
  const text = `${c.title}\n${c.message}\nspec: ${c.spec}`;
  if (c.verdict === 'fail' && c.baselined) {
    lines.push(
      `      <skipped message="${attr(`known failure (baseline${c.baselineReason ? `: ${c.baselineReason}` : ''}): ${c.message}`.slice(0, 1000))}"/>`,
    );
    lines.push(
      `      <system-out>${xmlEscape(`fail (baselined${c.baselineReason ? `: ${c.baselineReason}` : ''}): ${c.message}`)}</system-out>`,
    );
  } else if (c.verdict === 'fail') {
    lines.push(
      `      <failure message="${attr(c.message.slice(0, 1000))}" type="${c.level}">${xmlEscape(c.strictFromWarn ? `[warn made a fail by --strict]\n${text}` : text)}</failure>`,
    );
  } else if (c.verdict === 'skip') {
    lines.push(`      <skipped message="${attr(c.message.slice(0, 1000))}"/>`);
  } else {
    lines.push(`      <system-out>${xmlEscape(`${c.verdict}: ${c.message}`)}</system-out>`);
  }
  lines.push('    </testcase>');
  return lines;
}

export function renderJunit(input: Report | ReportSet): string {
  const set: ReportSet = 'runs' in input ? input : { runs: [input] };
  const multi = set.runs.length > 1;
  const s = totalSummary(set.runs);
  const failures = s.fail - s.baselined;
  const skipped = s.skip + s.baselined;
  const ms = set.runs.reduce((a, r) => a + r.durationMs, 0);
  const lines: string[] = ['<?xml version="1.0" encoding="UTF-8"?>'];
  const name = multi
    ? `mcp-conform (${set.runs.length} targets)`
    : `mcp-conform ${set.runs[0].server.name ?? set.runs[0].target.command ?? ''}`.trim();
  lines.push(
    `<testsuites name="${attr(name)}" tests="${s.total}" failures="${failures}" errors="0" skipped="${skipped}" time="${secs(ms)}">`,
  );
  set.runs.forEach((report, i) => {
    const label = runLabel(report, i);
    for (const suite of report.suites) {
      const f = suite.cases.filter((c) => c.verdict === 'fail' && !c.baselined).length;
      const k = suite.cases.filter((c) => c.verdict === 'skip' || (c.verdict === 'fail' && c.baselined)).length;
      const suiteName = multi ? `${label} · ${suite.id}` : suite.id;
      const classname = multi ? `mcp-conform.${slug(label)}.${suite.id}` : `mcp-conform.${suite.id}`;
      lines.push(
        `  <testsuite name="${attr(suiteName)}" tests="${suite.cases.length}" failures="${f}" errors="0" skipped="${k}" time="${secs(suite.durationMs)}" timestamp="${report.startedAt.replace(/\.\d+Z$/, '')}">`,
      );
      for (const c of suite.cases) lines.push(...testcase(c, classname));
      lines.push('  </testsuite>');
    }
  });
  lines.push('</testsuites>', '');
  return lines.join('\n');
}

export const junitReporter: Reporter = {
  name: 'junit',
  writesFiles: true,
  async onFinished(set, { outDir }) {
    await mkdir(outDir, { recursive: true });
    const file = join(outDir, 'junit.xml');
    await writeFile(file, envSecretRedactor()(renderJunit(set)));
    return file;
  },
};
