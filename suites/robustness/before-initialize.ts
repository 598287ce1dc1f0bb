import type { Service } from '../../core/services.js';
import type { CaseContext, Outcome } from '../../core/suite.js';
import { VERSION } from '../../core/version.js';
import { describeError } from '../helpers.js';
import { cut } from '../../core/text.js';
import { ANSWER_GRACE_MS, errorOf, httpRefusal, jsonrpc, refusalText } from './probe-run.js';

/**
 * robustness/request-before-initialize's probe on its second connection, once per run (a run service, so that the
 * case's early start and its run share it). Never rejects: an error is handed to the case, which throws it.
 */
export const secondConnection: Service<{ outcome: Outcome } | { error: unknown }> = {
  id: 'robustness-before-initialize',
  produce: (ctx) =>
    beforeInitialize(ctx).then(
      (outcome) => ({ outcome }),
      (error: unknown) => ({ error }),
    ),
};

export async function beforeInitialize(ctx: CaseContext): Promise<Outcome> {
  let second: Awaited<ReturnType<NonNullable<CaseContext['openSession']>>>;
  try {
    second = await ctx.openSession!();
  } catch (e) {
    return { verdict: 'skip', message: `a second connection could not be opened: ${(e as Error).message}` };
  }
  try {
    const s = second.session;
    const caps = ctx.capabilities;
    const method = caps.tools
      ? 'tools/list'
      : caps.resources
        ? 'resources/list'
        : caps.prompts
          ? 'prompts/list'
          : 'ping';
    const id = s.newId();
    // catchAll: an error without the probe's id (id null, as HTTP refusals carry) is the answer to it as well.
    const probe = s.probe([jsonrpc(id, method)], { id, catchAll: true });
    let initFailure: string | undefined;
    try {
      await s.request('initialize', {
        protocolVersion: ctx.version,
        capabilities: {},
        clientInfo: { name: 'mcp-conform', version: VERSION },
      });
      await probe.waitForAnswers(ANSWER_GRACE_MS);
    } catch (e) {
      initFailure = (e as Error).message;
    }
    const refusal = await httpRefusal(second.transport, probe.sent, probe.answers);
    probe.close();
    const details = {
      secondConnection: s.log.map(
        (m) =>
          `${m.direction === 'to-server' ? '→' : '←'}${m.http?.status !== undefined && m.direction === 'to-server' ? ` [HTTP ${m.http.status}]` : ''} ${cut(m.raw, 300)}`,
      ),
    };
    const a = probe.answers[0];
    const where = `on a second connection${second.transport.processInfo()?.pid ? ` (server pid ${second.transport.processInfo()!.pid})` : ''}`;
    if (a) {
      const err = errorOf(a);
      const http =
        refusal && refusal.answer === a
          ? ` in an HTTP ${refusal.status}${refusal.statusText ? ` ${refusal.statusText}` : ''} answer`
          : '';
      const what =
        a.kind === 'error' && err
          ? `refused with error ${describeError({ ...err })}${http}`
          : `served: ${cut(a.raw, 120)}`;
      return { verdict: 'info', message: `${method} sent before initialize ${where} was ${what}`, details };
    }
    if (refusal)
      return {
        verdict: 'info',
        message: `${method} sent before initialize ${where} was refused with ${refusalText(refusal)}`,
        details,
      };
    if (s.closed) {
      return {
        verdict: 'warn',
        message: `${method} sent before initialize ${where}: the server died (${s.transport.closeInfo?.reason ?? 'connection closed'})`,
        details,
      };
    }
    if (initFailure)
      return {
        verdict: 'info',
        message: `${method} sent before initialize ${where} got no answer, and neither did the initialize sent after it: ${initFailure}`,
        details,
      };
    return {
      verdict: 'info',
      message: `${method} sent before initialize ${where} got no answer (the initialize sent after it was answered)`,
      details,
    };
  } finally {
    // Ended now, not waited for: the outcome is known, and the run waits for every connection it opened at its end
    // (ctx.openSession's handles), so the second server's exit overlaps the cases that follow.
    void second.close();
  }
}
