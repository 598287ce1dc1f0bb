/** The console of `mcp-conform load`: the progress line while it runs, and the summary at the end. */
import type { Report } from '../core/results.js';
import type { LoadSummary } from '../core/load/summary.js';

export interface LoadProgressView {
  elapsedS: number;
  requests: number;
  rps: number;
  p95: number;
  errors: number;
  crossed: number;
  sessions: number;
}

export function progressLine(p: LoadProgressView): string {
  return `load ${p.elapsedS} s · ${p.sessions} sessions · ${p.requests} requests · ${p.rps} req/s · p95 ${p.p95} ms · ${p.errors} errors · ${p.crossed} crossed`;
}

const MARK: Record<string, string> = { pass: '✓ pass', fail: '✗ fail', warn: '! warn', skip: '- skip', info: 'i info' };

export function renderLoadConsole(r: Report, written: string[]): string {
  const l = r.load as unknown as LoadSummary | undefined;
  const out: string[] = [];
  const name = r.server.name
    ? `${r.server.name}${r.server.version ? ` ${r.server.version}` : ''}`
    : (r.target.url ?? r.target.command ?? 'the server');
  out.push(
    `mcp-conform ${r.tool.version} load · ${name} over ${r.target.transport}${r.server.protocolVersion ? ` · protocol ${r.server.protocolVersion}` : ''}`,
  );
  if (r.aborted) out.push(`Stopped: ${r.aborted}`);
  if (l) {
    out.push('');
    out.push(
      `${l.requests} requests in ${l.durationS} s (${l.mode}, ended by ${l.endedBy}${l.unfinished ? `, ${l.unfinished} unfinished` : ''}): ${l.throughput} answered/s`,
    );
    out.push(
      `latency ms: p50 ${l.latencyMs.p50} · p90 ${l.latencyMs.p90} · p95 ${l.latencyMs.p95} · p99 ${l.latencyMs.p99} · max ${l.latencyMs.max}`,
    );
    out.push(
      `sessions: ${l.sessions.opened} opened of ${l.sessions.requested}, ${l.sessions.failed} failed, ${l.sessions.endedCleanly} ended cleanly`,
    );
    const errs = Object.entries(l.errors);
    out.push(
      `errors: ${errs.length ? errs.map(([k, n]) => `${k} ${n}`).join(', ') : 'none'} (${Math.round(l.errorRate * 10000) / 100} %)`,
    );
    out.push(`crossed: ${l.crossed}${l.crossed ? ' — answers reached the wrong client (GHSA-345p-7cg4-v4c7)' : ''}`);
    if (l.memory)
      out.push(
        `server memory: ${l.memory.startMb} MB → ${l.memory.endMb} MB (peak ${l.memory.peakMb} MB)${l.memory.steady ? `, growing steadily: about ${l.memory.growthMbPer1000Requests} MB per 1,000 requests` : ''}`,
      );
    const methods = Object.entries(l.byMethod)
      .sort((a, b) => b[1].requests - a[1].requests)
      .slice(0, 8);
    for (const [k, m] of methods)
      out.push(
        `  ${k.padEnd(36)} ${String(m.requests).padStart(7)} req · p95 ${m.latencyMs.p95} ms${m.errors ? ` · ${m.errors} errors` : ''}`,
      );
  }
  out.push('');
  for (const c of r.suites.flatMap((s) => s.cases))
    out.push(`  ${MARK[c.verdict] ?? c.verdict}  ${c.id} — ${c.message}`);
  if (written.length) out.push('', `Reports: ${written.join(', ')}`);
  out.push(
    r.exitCode === 0
      ? 'Result: no failures'
      : r.exitCode >= 130
        ? 'Result: interrupted (partial report written)'
        : 'Result: load checks failed',
  );
  return `${out.join('\n')}\n`;
}
