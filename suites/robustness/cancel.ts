/** robustness/cancel-in-flight: a slow tool call (or a request) cancelled while in flight, then a ping. */
import { generateArguments } from '../../core/args/index.js';
import type { CaseContext, Outcome } from '../../core/suite.js';
import type { Tool } from '../../core/tools.js';
import { ids } from '../helpers.js';
import { callPlan } from '../../core/call-policy.js';
import { cut } from '../../core/text.js';
import {
  AFTER_CANCEL_MS,
  ANSWER_GRACE_MS,
  IN_FLIGHT_MS,
  type ProbeRun,
  SLOW_TOOL,
  jsonrpc,
  lostOutcome,
  mids,
  stillAnswers,
} from './probe-run.js';

export async function cancelInFlight(ctx: CaseContext): Promise<Outcome> {
  const s = ctx.session;
  const hb = s.heartbeatMethod;
  let slow: Tool | undefined;
  if (ctx.capabilities.tools) {
    const plan = await ctx.service(callPlan);
    slow = plan.call.find((t) => SLOW_TOOL.test(`${t.name} ${t.title ?? ''} ${t.description ?? ''}`));
  }
  const id = s.newId();
  // 2026-07-28 over Streamable HTTP: no notifications/cancelled; closing the request's response stream cancels it.
  // https://modelcontextprotocol.io/specification/2026-07-28/basic/transports/streamable-http#cancellation
  const byClose = ctx.features.cancelByStreamClose ? ctx.http : undefined;
  const how = byClose ? 'closing its response stream' : 'notifications/cancelled';
  /** Cancel the probe: the time it happened, and the notification's place in the log when one was sent. */
  const cancel = (): { t: number; seq?: number; closed?: boolean } => {
    if (byClose) {
      const closed = byClose.closeRequestStream(id);
      return { t: s.now(), closed };
    }
    const note = s.notify('notifications/cancelled', {
      requestId: id,
      reason: 'mcp-conform robustness probe: cancelled on purpose',
    });
    return { t: note.t, seq: note.seq };
  };
  const withNote = (ids: number[], c: { seq?: number }) => (c.seq !== undefined ? [...ids, c.seq] : ids);
  if (slow) {
    const args = generateArguments(slow.inputSchema).value;
    const probe = s.probe([jsonrpc(id, 'tools/call', { name: slow.name, arguments: args })], { id });
    const early = await probe.waitForAnswers(IN_FLIGHT_MS);
    if (!early && !s.closed) {
      const c = cancel();
      if (byClose && !c.closed) {
        const post = probe.sent[0]?.http;
        return {
          verdict: 'skip',
          message: `tools/call ${slow.name} (id ${id}) had no answer after ${IN_FLIGHT_MS} ms, but its POST had already ended (${post?.status !== undefined ? `HTTP ${post.status}` : (post?.problem ?? 'no status')}): there was no response stream left to close`,
          messageIds: ids(...probe.sent),
        };
      }
      const run: ProbeRun = { probe };
      try {
        run.ping = await s.heartbeat();
        await probe.waitForAnswers(Math.min(ctx.timeoutMs, AFTER_CANCEL_MS));
      } catch (e) {
        run.lost = e as Error;
      }
      const lost = lostOutcome(run, `cancelling tools/call ${slow.name} by ${how}`);
      if (lost) return lost;
      const m = withNote(mids(run), c);
      const details = { tool: slow.name, arguments: args, cancelledBy: how };
      const a = probe.answers[0];
      if (a)
        return {
          verdict: 'warn',
          message: `tools/call ${slow.name} (id ${id}) was answered ${Math.round(a.t - c.t)} ms after ${byClose ? 'the harness closed its response stream' : 'notifications/cancelled'}: ${cut(a.raw, 120)}; a cancelled request should get no answer`,
          messageIds: m,
          details,
        };
      if (byClose)
        return {
          verdict: 'pass',
          message: `tools/call ${slow.name} (id ${id}) was in flight for ${IN_FLIGHT_MS} ms, then cancelled by closing its response stream (2026-07-28 sends no notifications/cancelled over HTTP); ${stillAnswers(ctx, run)} (whether it stopped the work cannot be seen from the client)`,
          messageIds: m,
          details,
        };
      return {
        verdict: 'pass',
        message: `tools/call ${slow.name} (id ${id}) was in flight for ${IN_FLIGHT_MS} ms, then cancelled with notifications/cancelled: no answer in the ${Math.min(ctx.timeoutMs, AFTER_CANCEL_MS)} ms after, and ${stillAnswers(ctx, run)}`,
        messageIds: m,
        details,
      };
    }
    // It answered before it could be cancelled: cancel it anyway (a late cancellation must be ignored) and go on.
    const c = cancel();
    const run: ProbeRun = { probe };
    try {
      run.ping = await s.heartbeat();
    } catch (e) {
      run.lost = e as Error;
    }
    const lost = lostOutcome(run, `cancelling tools/call ${slow.name} after it was answered`);
    if (lost) return lost;
    const late = byClose
      ? 'its response had already ended, so there was no stream left to close'
      : 'a notifications/cancelled sent after the answer was ignored';
    return {
      verdict: 'pass',
      message: `${slow.name} looked slow but answered within ${IN_FLIGHT_MS} ms, before it could be cancelled; ${late}, and ${stillAnswers(ctx, run)} (not graded: whether it stops work in flight)`,
      messageIds: withNote(mids(run), c),
    };
  }
  // No slow tool: cancel a quick request right after sending it; only "still answers" can be graded.
  const method = ctx.capabilities.tools ? 'tools/list' : hb;
  const probe = s.probe([jsonrpc(id, method)], { id });
  const c = cancel();
  const run: ProbeRun = { probe };
  try {
    run.ping = await s.heartbeat();
    await probe.waitForAnswers(ANSWER_GRACE_MS);
  } catch (e) {
    run.lost = e as Error;
  }
  const lost = lostOutcome(run, `cancelling ${method} by ${how}`);
  if (lost) return lost;
  const answered = probe.answers.length ? 'answered anyway (it was quick, which is allowed)' : 'not answered';
  return {
    verdict: 'pass',
    message: `no slow tool to cancel${ctx.capabilities.tools ? ' (none is named or described as long-running, slow, sleep or delay, or it may not be called)' : ''}: ${method} (id ${id}) was cancelled by ${how} right after it was sent and ${answered}; ${stillAnswers(ctx, run)} (only that is graded)`,
    messageIds: withNote(mids(run), c),
  };
}
