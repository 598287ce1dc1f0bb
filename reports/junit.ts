/**
 * junit.xml: a testsuite per suite, a testcase per case; fail → <failure>, skip → <skipped/>; warn and info are
 * passing testcases with the verdict in a property and the message in system-out.
 */
import { mkdir, writeFile } from 'node:fs/promises';
import { join } from 'node:path';
import type { Report } from '../core/results.js';
import type { Reporter } from './types.js';

export function xmlEscape(s: string): string {
  // Characters XML 1.0 cannot hold at all are dropped; the five specials are escaped.
  // eslint-disable-next-line no-control-regex
  return s.replace(/[^\u0009\u000A\u000D\u0020-\uD7FF\uE000-\uFFFD\u{10000}-\u{10FFFF}]/gu, '')
    .replace(/&/g, '&amp;').replace(/</g, '&lt;').replace(/>/g, '&gt;').replace(/"/g, '&quot;').replace(/'/g, '&apos;');
}

const secs = (ms: number) => (ms / 1000).toFixed(3);

export function renderJunit(report: Report): string {
  const s = report.summary;
  const lines: string[] = ['<?xml version="1.0" encoding="UTF-8"?>'];
  const name = `mcp-conform ${report.server.name ?? report.target.command ?? ''}`.trim();
  lines.push(`<testsuites name="${xmlEscape(name)}" tests="${s.total}" failures="${s.fail}" errors="0" skipped="${s.skip}" time="${secs(report.durationMs)}">`);
  for (const suite of report.suites) {
    const f = suite.cases.filter((c) => c.verdict === 'fail').length;
    const k = suite.cases.filter((c) => c.verdict === 'skip').length;
    lines.push(`  <testsuite name="${xmlEscape(suite.id)}" tests="${suite.cases.length}" failures="${f}" errors="0" skipped="${k}" time="${secs(suite.durationMs)}" timestamp="${report.startedAt.replace(/\.\d+Z$/, '')}">`);
    for (const c of suite.cases) {
      const open = `    <testcase classname="mcp-conform.${xmlEscape(suite.id)}" name="${xmlEscape(c.id)}" time="${secs(c.durationMs)}"`;
      const body: string[] = [];
      body.push(`      <properties><property name="verdict" value="${c.verdict}"/><property name="level" value="${c.level}"/><property name="spec" value="${xmlEscape(c.spec)}"/></properties>`);
      if (c.verdict === 'fail') body.push(`      <failure message="${xmlEscape(c.message.slice(0, 1000))}" type="${c.level}">${xmlEscape(`${c.title}\n${c.message}\nspec: ${c.spec}`)}</failure>`);
      if (c.verdict === 'skip') body.push(`      <skipped message="${xmlEscape(c.message.slice(0, 1000))}"/>`);
      if (c.verdict === 'warn' || c.verdict === 'info' || c.verdict === 'pass') body.push(`      <system-out>${xmlEscape(`${c.verdict}: ${c.message}`)}</system-out>`);
      lines.push(`${open}>`, ...body, '    </testcase>');
    }
    lines.push('  </testsuite>');
  }
  lines.push('</testsuites>', '');
  return lines.join('\n');
}

export const junitReporter: Reporter = {
  name: 'junit',
  async onFinished(report, outDir) {
    await mkdir(outDir, { recursive: true });
    const file = join(outDir, 'junit.xml');
    await writeFile(file, renderJunit(report));
    return file;
  },
};
