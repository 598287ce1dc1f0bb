/**
 * `merge` of load reports (`mcp-conform load` run on several machines against one server): one report whose counts
 * are the sums, whose percentiles come from the sum of the encoded HDR histograms (never an average of percentiles),
 * whose throughput is the sum (the machines loaded at the same time), and whose checks are judged again. Per second,
 * the requests and errors are summed by second index and the p95 is the highest of the machines' (an upper bound: the
 * per-second histograms are not kept). Memory is each machine's own server: a merged report has none; the plot buckets
 * are not rebuilt (the merged encoded histogram is there).
 */
import { summarize, type Report } from '../core/results.js';
import type { LoadSummary } from '../core/load/summary.js';
import { mergeEncoded, sumEncoded } from '../core/load/stats.js';
import { verdicts } from '../core/load/checks.js';

export function isLoadReport(r: Report): boolean {
  return !!r.load && typeof r.load === 'object' && 'histogram' in r.load;
}

export function mergeLoadReports(runs: readonly Report[]): Report {
  const ls = runs.map((r) => r.load as unknown as LoadSummary);
  const sum = (f: (l: LoadSummary) => number) => ls.reduce((a, l) => a + f(l), 0);
  const errors: Record<string, number> = {};
  for (const l of ls) for (const [k, n] of Object.entries(l.errors)) errors[k] = (errors[k] ?? 0) + n;
  const byMethod: LoadSummary['byMethod'] = {};
  const keys = new Set(ls.flatMap((l) => Object.keys(l.byMethod)));
  for (const k of keys) {
    const parts = ls.map((l) => l.byMethod[k]).filter((m) => m !== undefined);
    const hists = parts.map((m) => m.histogram).filter((h): h is string => typeof h === 'string');
    byMethod[k] = {
      requests: parts.reduce((a, m) => a + m.requests, 0),
      errors: parts.reduce((a, m) => a + m.errors, 0),
      latencyMs: hists.length === parts.length ? mergeEncoded(hists) : parts[0]!.latencyMs,
      ...(hists.length === parts.length ? { histogram: sumEncoded(hists) } : {}),
    };
  }
  const timeline: LoadSummary['timeline'] = [];
  for (const l of ls)
    l.timeline.forEach((t, i) => {
      const x = (timeline[i] ??= { s: t.s, requests: 0, errors: 0, p95: 0 });
      x.requests += t.requests;
      x.errors += t.errors;
      x.p95 = Math.max(x.p95, t.p95);
    });
  const requests = sum((l) => l.requests);
  const failed = Object.entries(errors)
    .filter(([k]) => k !== 'tool-error')
    .reduce((a, [, n]) => a + n, 0);
  const first = ls[0]!;
  const merged: LoadSummary = {
    ...first,
    requests,
    durationS: Math.max(...ls.map((l) => l.durationS)),
    throughput: Math.round(sum((l) => l.throughput) * 10) / 10,
    latencyMs: mergeEncoded(ls.map((l) => l.histogram.value)),
    byMethod,
    errors,
    errorRate: requests ? Math.round((failed / requests) * 1e6) / 1e6 : 0,
    crossed: sum((l) => l.crossed),
    crossedExamples: ls.flatMap((l) => l.crossedExamples).slice(0, 20),
    sessions: {
      requested: sum((l) => l.sessions.requested),
      opened: sum((l) => l.sessions.opened),
      failed: sum((l) => l.sessions.failed),
      endedCleanly: sum((l) => l.sessions.endedCleanly),
    },
    memory: undefined,
    timeline,
    histogram: {
      encoding: 'hdr-compressed-base64',
      unit: 'us',
      value: sumEncoded(ls.map((l) => l.histogram.value)),
      buckets: [],
    },
    unfinished: sum((l) => l.unfinished),
    merged: ls.length,
  };
  delete merged.memory;
  const opts = first.options as { maxErrorRate?: number; maxP95Ms?: number };
  const checks = verdicts(merged, opts.maxErrorRate ?? 0.01, opts.maxP95Ms, false);
  const base = runs[0]!;
  const suites = [{ id: 'load', title: 'Load', durationMs: Math.max(...runs.map((r) => r.durationMs)), cases: checks }];
  return {
    ...base,
    summary: summarize(suites, []),
    durationMs: Math.max(...runs.map((r) => r.durationMs)),
    suites,
    load: merged as unknown as Record<string, unknown>,
    options: { ...base.options, mergedReports: runs.length },
  };
}
