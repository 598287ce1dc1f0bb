/** The console report: grouped by suite, colour only on a TTY (NO_COLOR respected), a closing summary. */
import type { CaseResult, Report, Verdict } from '../core/results.js';

export interface ConsoleOptions {
  color: boolean;
  write: (s: string) => void;
}

const MARK: Record<Verdict, string> = { pass: '✓', warn: '!', fail: '✗', skip: '-', info: 'i' };
const COLOR: Record<Verdict, number> = { pass: 32, warn: 33, fail: 31, skip: 90, info: 36 };

export function useColor(stream: NodeJS.WriteStream): boolean {
  if (process.env.NO_COLOR !== undefined && process.env.NO_COLOR !== '') return false;
  if (process.env.FORCE_COLOR && process.env.FORCE_COLOR !== '0') return true;
  return !!stream.isTTY;
}

export function renderConsole(report: Report, written: string[], color: boolean): string {
  const paint = (code: number, s: string) => (color ? `\x1b[${code}m${s}\x1b[0m` : s);
  const bold = (s: string) => (color ? `\x1b[1m${s}\x1b[0m` : s);
  const out: string[] = [];
  const srv = report.server;
  const who = srv.name ? `${srv.name}${srv.version ? ` ${srv.version}` : ''}` : report.target.command ?? report.target.url ?? 'server';
  out.push(bold(`mcp-conform ${report.tool.version} · ${who} over ${report.target.transport}${srv.protocolVersion ? ` · protocol ${srv.protocolVersion}` : ''}`));
  for (const suite of report.suites) {
    out.push('', bold(suite.id) + paint(90, `  ${suite.title}`));
    for (const c of suite.cases) out.push(line(c, paint));
  }
  const s = report.summary;
  if (s.fail > 0 && report.process.stderr.length) {
    out.push('', bold('server stderr (last lines)'));
    for (const l of report.process.stderr.slice(-10)) out.push(paint(90, `  | ${l}`));
  }
  out.push('');
  if (report.aborted) out.push(paint(COLOR.fail, `Run ended early: ${report.aborted}`));
  const counts = (['pass', 'warn', 'fail', 'skip', 'info'] as Verdict[]).map((v) => paint(s[v] ? COLOR[v] : 90, `${s[v]} ${v}`)).join(', ');
  out.push(`${bold('Summary')}: ${counts} · ${s.messagesValidated} messages validated${s.strayLines ? ` · ${s.strayLines} stray stdout lines` : ''} · ${(report.durationMs / 1000).toFixed(1)} s`);
  if (report.skippedTools.length) out.push(paint(90, `Not called (--call-tools ${String(report.options.callTools)}): ${report.skippedTools.map((t) => t.name).join(', ')}`));
  if (written.length) out.push(`Reports: ${written.join(', ')}`);
  out.push(report.exitCode === 0 ? paint(COLOR.pass, 'Result: no failures') : paint(COLOR.fail, `Result: ${s.fail} failing case${s.fail === 1 ? '' : 's'}`));
  return out.join('\n') + '\n';
}

function line(c: CaseResult, paint: (code: number, s: string) => string): string {
  const head = `  ${paint(COLOR[c.verdict], `${MARK[c.verdict]} ${c.verdict.padEnd(4)}`)}  ${c.id}`;
  const msg = c.message.length > 400 ? c.message.slice(0, 400) + '…' : c.message;
  const tail = c.verdict === 'fail' || c.verdict === 'warn' ? `\n        ${paint(90, `${c.level} · ${c.spec}`)}` : '';
  return `${head}${paint(90, ' — ')}${msg}${tail}`;
}
