/** Synthetic reports for reporter tests: a small, valid Report with the cases asked for. */
import type { LoggedMessage } from '../../core/log.js';
import { summarize, type CaseResult, type Report, type Verdict } from '../../core/results.js';

export function message(seq: number, json: unknown, o: Partial<LoggedMessage> = {}): LoggedMessage {
  return {
    seq,
    direction: 'from-server',
    t: seq * 1.5,
    raw: JSON.stringify(json),
    json,
    kind: 'response',
    schema: { checked: true, valid: true, violations: [] },
    ...o,
  };
}

export function kase(id: string, verdict: Verdict, o: Partial<CaseResult> = {}): CaseResult {
  return {
    id,
    title: `title of ${id}`,
    verdict,
    level: 'MUST',
    spec: 'https://modelcontextprotocol.io/specification/2025-11-25/basic',
    message: `${verdict} message of ${id}`,
    durationMs: 1.5,
    messageIds: [],
    requirement: `requirement of ${id}`,
    ...o,
  };
}

export function makeReport(
  cases: CaseResult[],
  o: { server?: Partial<Report['server']>; messages?: LoggedMessage[]; name?: string; strict?: boolean } = {},
): Report {
  const bySuite = new Map<string, CaseResult[]>();
  for (const c of cases) {
    const s = c.id.split('/')[0];
    bySuite.set(s, [...(bySuite.get(s) ?? []), c]);
  }
  const suites = [...bySuite].map(([id, cs]) => ({ id, title: `Suite ${id}`, durationMs: 3, cases: cs }));
  const messages = o.messages ?? [];
  const summary = summarize(suites, messages);
  return {
    tool: { name: 'mcp-conform', version: '0.1.0' },
    reportVersion: 1,
    startedAt: '2026-11-25T22:00:00.000Z',
    durationMs: 812,
    exitCode: summary.fail > 0 ? 1 : 0,
    summary,
    server: { name: 'demo', version: '1.0.0', protocolVersion: '2025-11-25', ...o.server },
    target: {
      transport: 'stdio',
      command: 'python3 server.py',
      argv: ['python3', 'server.py'],
      ...(o.name ? { name: o.name } : {}),
    },
    process: { pid: 1, exitCode: 0, signal: null, shutdown: 'exited', stderr: ['a stderr line'] },
    options: { strict: !!o.strict, callTools: 'safe', suites: [...bySuite.keys()], cases: [] },
    skippedTools: [],
    suites,
    messages,
  };
}
