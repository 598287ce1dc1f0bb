/** The checks of a load report (load/crossed, load/error-rate, load/p95, load/memory), for `load` and `merge`. */
import type { CaseResult, Verdict } from '../results.js';
import type { LoadSummary } from './summary.js';

/** Where each check is explained: the advisory for crossed answers, docs/load.md for the others. */
const CHECK_SPEC: Record<string, string> = {
  'load/crossed': 'https://github.com/advisories/GHSA-345p-7cg4-v4c7',
};
const DOCS = 'docs/load.md#the-checks-and-the-exit-code';

export function check(
  id: string,
  title: string,
  verdict: Verdict,
  message: string,
  details?: Record<string, unknown>,
): CaseResult {
  return {
    id,
    title,
    verdict,
    level: id === 'load/crossed' ? 'MUST' : 'SHOULD',
    spec: CHECK_SPEC[id] ?? DOCS,
    message,
    durationMs: 0,
    messageIds: [],
    ...(details ? { details } : {}),
  };
}

/** The checks of a load run: crossed, error rate, p95, memory. */
export function verdicts(
  l: LoadSummary,
  maxErrorRate: number,
  maxP95Ms: number | undefined,
  started: boolean,
): CaseResult[] {
  const out: CaseResult[] = [];
  const ex = l.crossedExamples
    .slice(0, 3)
    .map(
      (c) =>
        `client ${c.client} (${c.method}) got ${c.what}${c.from.length ? ` (client ${c.from.join(' or ')})` : ''} at ${c.atS} s`,
    );
  out.push(
    l.crossed
      ? check(
          'load/crossed',
          'no answer reached the wrong client',
          'fail',
          `${l.crossed} answer${l.crossed === 1 ? '' : 's'} reached the wrong client (GHSA-345p-7cg4-v4c7): ${ex.join('; ')}`,
          { crossed: l.crossedExamples },
        )
      : check(
          'load/crossed',
          'no answer reached the wrong client',
          l.requests ? 'pass' : 'skip',
          l.requests
            ? `0 of ${l.requests} answers crossed (${l.canary.by === 'tool' ? `canaries echoed by ${l.canary.tool}` : 'told apart by the shape of each answer'})`
            : 'no request was answered',
        ),
  );
  const errs = Object.entries(l.errors)
    .filter(([k]) => k !== 'tool-error')
    .map(([k, n]) => `${k}: ${n}`)
    .join(', ');
  const pct = (x: number) => `${Math.round(x * 10000) / 100} %`;
  out.push(
    check(
      'load/error-rate',
      `errors at most ${pct(maxErrorRate)} of requests`,
      l.errorRate > maxErrorRate ? 'fail' : l.requests ? 'pass' : 'skip',
      `${pct(l.errorRate)} of ${l.requests} requests failed${errs ? ` (${errs})` : ''}; the bound is ${pct(maxErrorRate)} (--max-error-rate)${l.errors['tool-error'] ? `; ${l.errors['tool-error']} tool results with isError, counted apart` : ''}`,
    ),
  );
  out.push(
    maxP95Ms === undefined
      ? check('load/p95', 'p95 latency within --max-p95', 'info', `p95 ${l.latencyMs.p95} ms (no --max-p95 given)`)
      : check(
          'load/p95',
          `p95 latency within ${maxP95Ms} ms`,
          l.latencyMs.p95 > maxP95Ms ? 'fail' : 'pass',
          `p95 ${l.latencyMs.p95} ms; the bound is ${maxP95Ms} ms (--max-p95)`,
        ),
  );
  const m = l.memory;
  out.push(
    !started || !m
      ? check(
          'load/memory',
          "the server's memory does not grow steadily",
          'skip',
          started
            ? "the server's memory could not be read (/proc)"
            : 'the server was not started by load (--stdio or --start): its memory is not sampled',
        )
      : m.steady
        ? check(
            'load/memory',
            "the server's memory does not grow steadily",
            'warn',
            `the server's memory grew steadily from ${m.startMb} MB to ${m.endMb} MB (peak ${m.peakMb} MB): about ${m.growthMbPer1000Requests} MB per 1,000 requests`,
          )
        : check(
            'load/memory',
            "the server's memory does not grow steadily",
            'pass',
            `${m.startMb} MB at the start, ${m.peakMb} MB at the peak, ${m.endMb} MB at the end${m.growthMbPer1000Requests !== undefined ? ` (${m.growthMbPer1000Requests} MB per 1,000 requests, not steady)` : ''}`,
          ),
  );
  return out;
}
