import type { Session } from '../../core/session.js';
import type { CaseContext, Outcome } from '../../core/suite.js';
import { describeError } from '../helpers.js';
import { cut } from '../../core/text.js';
import {
  ANSWER_GRACE_MS,
  EARLY_BASELINE_MS,
  LARGE_BYTES,
  type ProbeRun,
  UNKNOWN_NOTIFICATION,
  earlyBaseline,
  errorOf,
  httpRefusal,
  jsonrpc,
  lostOutcome,
  mids,
  postsSettled,
  refusalText,
  runProbe,
  serverGone,
  stillAnswers,
  watchWindow,
} from './probe-run.js';

/**
 * Per run (by session): robustness/unknown-notification's probe, sent when the session phase begins (its early()):
 * its watch window closes while the other cases run; the case reads it at its turn.
 */
export interface EarlyWatch {
  run: ProbeRun;
  /** The run once the window has closed (bounded: the window, then the wait for the notification's POST). */
  done: Promise<ProbeRun>;
  /** Set once the window has closed. */
  closed?: boolean;
}
export const earlyWatches = new WeakMap<Session, EarlyWatch>();

/**
 * robustness/unknown-notification's early work: the heartbeat (as a probe: it has no timeout of its own, so a server
 * that never answers it is not marked as stalled before the other cases run; no answer within EARLY_BASELINE_MS:
 * nothing more is done early, the case does it all at its turn, as before), then the notification and a heartbeat,
 * awaited (a server that dies of the notification is caught before any other case runs), and over HTTP the end of the
 * notification's POST. The window of ANSWER_GRACE_MS from the heartbeat's answer then runs on its own.
 */
export async function earlyUnknownNotification(ctx: CaseContext): Promise<void> {
  // 2026-07-28: a server that takes a notification without version _meta for a legacy opening (the TypeScript SDK
  // 2.4's stdio server does) would serve every case after it in 2025 shapes — one defect judged many times over.
  // Sent at the case's turn instead, so the other suites judge the server as a 2026-07-28 client meets it.
  if (ctx.features.requestMeta) return;
  const s = ctx.session;
  const id = s.newId();
  const base = s.probe([jsonrpc(id, s.heartbeatMethod)], { id });
  if (!(await base.waitForAnswers(Math.min(ctx.timeoutMs, EARLY_BASELINE_MS)))) return;
  earlyBaseline.add(s);
  if (s.isStalled || s.closed) return;
  const probe = s.probe([{ jsonrpc: '2.0', method: UNKNOWN_NOTIFICATION, params: {} }], {
    catchAll: true,
    overlapped: true,
  });
  const run: ProbeRun = { probe };
  const watch: EarlyWatch = { run, done: Promise.resolve(run) };
  earlyWatches.set(s, watch);
  try {
    const hb = s.heartbeat();
    s.claimLastSent(probe); // answers that come before the next case sends are the notification's
    run.ping = await hb;
    await postsSettled(ctx.transport, probe.sent);
  } catch (e) {
    run.lost = e as Error;
    probe.close();
    watch.closed = true;
    return;
  }
  watch.done = (async () => {
    try {
      await watchWindow(ctx, run, 1);
      run.refusal = await httpRefusal(ctx.transport, probe.sent, probe.answers);
    } finally {
      probe.close();
      watch.closed = true;
    }
    return run;
  })();
}

/** Per run (by session): robustness/large-request's probe when it was sent early, and when that work ended. */
export const earlyLarge = new WeakMap<Session, { run: ProbeRun; until: number; lostAt?: number }>();

/** robustness/large-request's probe: the 1 MiB request, a heartbeat after it, and the wait for its answer. */
export function largeRequest(ctx: CaseContext): Promise<ProbeRun> {
  const id = ctx.session.newId();
  const params = { _meta: { 'mcp-conform/padding': 'x'.repeat(LARGE_BYTES) } };
  return runProbe(ctx, [jsonrpc(id, ctx.session.heartbeatMethod, params)], { id });
}

/**
 * robustness/large-request's early work: only behind the unknown notification's, on a server that answered its
 * heartbeat (else the case does it all at its turn). The probe is the one the case would send, awaited as the
 * notification's is (a server that dies of it or stops answering is caught before the other cases run).
 */
export async function earlyLargeRequest(ctx: CaseContext): Promise<void> {
  const s = ctx.session;
  const w = earlyWatches.get(s);
  if (!w || w.closed || w.run.lost || !earlyBaseline.has(s) || s.isStalled || s.closed) return;
  const run = await largeRequest(ctx);
  const lostAt = run.lost || run.diedAfterMs !== undefined ? (s.closedAt ?? s.now()) : undefined;
  earlyLarge.set(s, { run, until: s.now(), ...(lostAt !== undefined ? { lostAt } : {}) });
}

/**
 * Whether what happened to the server during robustness/large-request's early work falls inside the unknown
 * notification's watch window (sent before it, still open then): that window accounts for it (core/run-cases.ts
 * earlyTrouble names the notification, whose early work came first), so the large request claims neither a wait of
 * its own nor the loss.
 */
export function coveredByNotification(ctx: CaseContext, e: { until: number; lostAt?: number }): boolean {
  const w = earlyWatches.get(ctx.session);
  if (!w || w.run.lost) return false;
  const windowEnd = w.run.watched?.until ?? (w.closed ? -1 : Infinity);
  return (e.lostAt ?? e.until) <= windowEnd;
}

/** robustness/large-request's verdict from its probe's run. */
export function gradeLargeRequest(ctx: CaseContext, run: ProbeRun): Outcome {
  const size = run.probe.sent[0]?.raw.length ?? 0;
  const id = run.probe.opts.id;
  const lost = lostOutcome(run, `a request of ${size} bytes`);
  if (lost) return lost;
  const a = run.probe.answers[0];
  const hb = ctx.session.heartbeatMethod;
  const sent = `a ${hb} request of ${size} bytes (id ${id})`;
  const r = run.refusal;
  if (!a && r)
    return {
      verdict: 'info',
      message: `${sent} was refused with ${refusalText(r)}; the small ${hb} request after it was answered — the server (or its HTTP framework) limits a request's size; neither MCP nor JSON-RPC sets a limit, so clients that send large arguments or documents meet it`,
      messageIds: mids(run),
    };
  if (!a)
    return {
      verdict: 'fail',
      message: `${sent} was never answered, though the small ${hb} request after it was`,
      messageIds: mids(run),
    };
  const err = errorOf(a);
  // The small request after it refused with the same code: the refusal is about what the server serves now (an
  // earlier message changed its state, say), not about the size.
  const small = run.ping?.error;
  if (a.kind === 'error' && err && small && small.code === err.code) {
    return {
      verdict: 'skip',
      message: `inconclusive: ${sent} was refused with error ${describeError({ ...err })}, and so was the small ${hb} request after it (error ${describeError(small)}): the server refuses ${hb} whatever its size${ctx.features.requestMeta ? ' (in 2026-07-28, a sign that an earlier message changed how it serves requests: see robustness/unknown-notification)' : ''}, so this says nothing about large requests`,
      messageIds: mids(run),
    };
  }
  if (a.kind === 'error' && err)
    return {
      verdict: 'info',
      message: `${sent} was refused with error ${describeError({ ...err })}${r && r.answer === a ? ` (HTTP ${r.status})` : ''} — a size limit of the server's own; neither MCP nor JSON-RPC sets one, so it is reported, not graded`,
      messageIds: mids(run),
    };
  return {
    verdict: 'pass',
    message: `${sent} was answered in ${Math.round(a.t - run.probe.sent[0]!.t)} ms`,
    messageIds: mids(run),
  };
}

/** robustness/unknown-notification's verdict from its probe's run, with when the watch for an answer ran (details.watch). */
export function gradeUnknownNotification(ctx: CaseContext, run: ProbeRun): Outcome {
  const o = unknownNotificationOutcome(ctx, run);
  return run.watched ? { ...o, details: { ...o.details, watch: run.watched } } : o;
}

export function unknownNotificationOutcome(ctx: CaseContext, run: ProbeRun): Outcome {
  const method = UNKNOWN_NOTIFICATION;
  const lost = lostOutcome(run, 'an unknown notification');
  if (lost) return lost;
  if (run.diedAfterMs !== undefined) {
    return {
      verdict: 'fail',
      message: `the server died ${run.diedAfterMs} ms after an unknown notification (${method}), while the harness watched ${ANSWER_GRACE_MS} ms for an answer once the ${ctx.session.heartbeatMethod} request sent after it had been answered: ${serverGone(ctx).message}`,
      messageIds: mids(run),
    };
  }
  const alive = stillAnswers(ctx, run);
  const r = run.refusal;
  // The refusal of the notification's own POST is the transport's answer, not a JSON-RPC answer to it.
  const answers = run.probe.answers.filter((m) => !r || m !== r.answer);
  if (answers.length)
    return {
      verdict: 'fail',
      message: `the notification was answered: ${answers
        .slice(0, 3)
        .map((m) => cut(m.raw, 160))
        .join(' | ')}`,
      messageIds: mids(run),
    };
  // 2026-07-28 is stateless: a notification (this one carries no version _meta) must not change how the next request
  // is served — server/discover, served at the start of the session, must still succeed, not merely be answered.
  // https://modelcontextprotocol.io/specification/2026-07-28/basic#statelessness
  if (ctx.features.requestMeta && run.ping?.error) {
    return {
      verdict: 'fail',
      message: `after ${method} (a notification without version _meta), ${ctx.session.heartbeatMethod} was answered with error ${describeError(run.ping.error)}, where it had succeeded before: 2026-07-28 is stateless, and no earlier message may change how a request is served (the server took the notification for a legacy opening?)`,
      messageIds: mids(run),
    };
  }
  if (r && r.status >= 500)
    return {
      verdict: 'warn',
      message: `${method} was answered with ${refusalText(r)}: a server error, where 202 (accepted) or a 4xx refusal was due; ${alive}`,
      messageIds: mids(run),
    };
  if (r && ctx.features.notificationRefusalByStatus)
    return {
      verdict: 'pass',
      message: `${method} was refused with ${refusalText(r)}: a server that cannot accept a notification answers an HTTP error status (2026-07-28 defines no client notifications over Streamable HTTP); no JSON-RPC answer; ${alive}`,
      messageIds: mids(run),
    };
  if (r)
    return {
      verdict: 'info',
      message: `${method} was refused with ${refusalText(r)} (no JSON-RPC answer; whether the status is right is judged by http/accepted-202); ${alive}`,
      messageIds: mids(run),
    };
  const post = run.probe.sent[0]?.http?.status;
  return {
    verdict: 'pass',
    message: `${method} got no answer${post !== undefined ? ` (its POST got HTTP ${post})` : ''}; ${alive}`,
    messageIds: mids(run),
  };
}
