/**
 * Running the cases of the selected suites: the runner decides, from what a case declares (core/applies.ts) and the
 * state of the run (handshake failed, run stopped, server gone), whether it runs or is skipped and why; it turns
 * outcomes into results, with times.
 */
import { performance } from 'node:perf_hooks';
import { notApplicable, requiresOf } from './applies.js';
import type { RunContext } from './context.js';
import type { CaseResult, SuiteResult } from './results.js';
import { closedReason, SessionError } from './session.js';
import { environmentRule } from './environment.js';
import { specUrl } from './schema/versions.js';
import { unanswered, type CaseDef, type ItemOutcome, type Outcome, type Suite } from './suite.js';
import type { Transport } from './transport/types.js';

export type Phase = 'session' | 'after-shutdown';

/** What the case runner needs to know about the run, read at the moment each case starts. */
export interface RunState {
  /** Why nothing can run after the handshake (undefined: the handshake went through). */
  aborted(): string | undefined;
  /** Why the run was stopped (time bound or signal), if it was. */
  stopped(): string | undefined;
  /** The server refused the run for want of authorization: why, and how to get in (core/auth/required.ts). */
  authRequired?(): string | undefined;
  /** Wait for a promise, or throw once the run is stopped. */
  untilStopped<T>(p: Promise<T>): Promise<T>;
  transport: Transport;
  /** false: the cases' early work (CaseDef.early) is not done; each case does it all at its turn. Default true. */
  early?: boolean;
  /**
   * Starts the schema check of the session's messages (those logged so far included): called once per run, by the
   * session phase once the early work is out, before the first case (absent: the messages are already checked).
   */
  checkMessages?: () => void;
}

/** A case with needs 'log' runs after shutdown; the others while the server runs. */
export const phaseOf = (c: CaseDef): Phase => (requiresOf(c).needs === 'log' ? 'after-shutdown' : 'session');

/** A case runs when no --case is given, or one names it, a prefix of it, or an item under it. */
export function caseWanted(c: Pick<CaseDef, 'id' | 'perItem'>, filter?: string[]): boolean {
  if (!filter?.length) return true;
  return filter.some((f) => c.id.startsWith(f) || (c.perItem !== undefined && f.startsWith(c.id + '/')));
}

/**
 * Why a case is not run because of the state of the run (the handshake failed, the run stopped, the server is gone).
 * A case whose early work saw the server die or stop answering (CaseDef.sawLoss) runs anyway: that is its verdict.
 */
function notRunnable(c: CaseDef, ctx: RunContext, st: RunState): string | undefined {
  const { needs, withoutToken } = requiresOf(c);
  const authRequired = st.authRequired?.();
  if (authRequired && !st.stopped() && needs !== 'log') return withoutToken ? undefined : authRequired;
  const lostEarly = earlyLosses.get(ctx);
  const stopWhy = st.stopped();
  const aborted = st.aborted();
  if (stopWhy && aborted === stopWhy && needs !== 'log') return `not run: ${stopWhy}`; // stopped before the handshake ended
  if (needs === 'listed') return aborted ? `not run: ${aborted}` : stopWhy ? `not run: ${stopWhy}` : undefined;
  if (needs !== 'server') return undefined;
  if (aborted) return `not run: ${aborted}`;
  if (stopWhy) return `not run: ${stopWhy}`;
  if (c.early && c.sawLoss?.(ctx)) return undefined;
  if (ctx.session.closed) return `not run: ${closedReason(st.transport.closeInfo)}`;
  if (ctx.session.unresponsive) return `not run: ${ctx.session.unresponsive}`;
  // The server stopped answering on what a case sent before the first case (nothing has come from it since): the
  // other cases are not blamed for it, as they are not once it died.
  if (lostEarly && ctx.session.isStalled)
    return `not run: the server stopped answering after what ${lostEarly} sent before the first case (nothing has come from it since)`;
  return undefined;
}

/** Per run: the case whose early work saw the server stop answering or die (CaseDef.sawLoss right after early()). */
const earlyLosses = new WeakMap<RunContext, string>();
/** Per run: the cases whose early work was started. */
const earlyCases = new WeakMap<RunContext, CaseDef[]>();

/**
 * Whether what the cases sent early (CaseDef.early) may have cost other cases their verdicts: 'clean' when no early
 * work left a wait open, or the server was heard from after the last such wait ended (it was alive then, so nothing
 * the other cases met before is the early message's doing); 'open' while that cannot be told yet; else why the run
 * must be repeated without early work: the early work itself saw the server die or stop answering, or the connection
 * ended, or the server went silent (a request unanswered, nothing heard since) from before the last wait ended. A
 * server that behaves so would, in a run without early work, have met the early message only at its case's turn,
 * after the cases that ran meanwhile: only a repeat gives those cases the verdicts they would have had.
 */
export function earlyTrouble(ctx: RunContext, final: boolean): 'clean' | 'open' | string {
  const ran = earlyCases.get(ctx);
  if (!ran?.length) return 'clean';
  const lost = earlyLosses.get(ctx);
  if (lost) return `the server died or stopped answering right after what ${lost} sent before the first case`;
  const s = ctx.session;
  let until = -1;
  let who: string | undefined;
  for (const c of ran) {
    const w = c.earlyWindow?.(ctx);
    if (!w) continue;
    const end = w.until ?? Infinity;
    if (end > until) {
      until = end;
      who = c.id;
    }
  }
  if (!who) return 'clean';
  const what = `while the wait of ${who}'s early work (sent before the first case) was open`;
  if (s.closedAt !== undefined && s.closedAt <= until)
    return `the connection ended ${Math.round(s.closedAt)} ms into the session, ${what}`;
  if (until !== Infinity && s.heardLast > until) return 'clean';
  // Ended later, with nothing heard from the server since the wait began: whether the early message did it cannot be
  // told apart, so it is treated as if it had.
  if (s.closedAt !== undefined)
    return `the connection ended ${Math.round(s.closedAt)} ms into the session with nothing heard from the server after the wait of ${who}'s early work (sent before the first case) ended`;
  if (!final) return 'open';
  // Silent since before the wait ended, with a request unanswered (a timeout): whether the early message did it
  // cannot be told from a slow request, so it is treated as if it had (a repeat costs time, never a verdict).
  if ((s.isStalled || s.unresponsive) && s.heardLast <= until)
    return `the server stopped answering (nothing came from it after ${Math.round(s.heardLast)} ms into the session) ${what}`;
  return 'clean';
}

export async function runCase(
  c: CaseDef,
  ctx: RunContext,
  st: RunState,
  filter: string[] | undefined,
  out: CaseResult[],
): Promise<void> {
  if (!caseWanted(c, filter)) return;
  const ct0 = performance.now();
  const base = { title: c.title, level: c.level, spec: specUrl(ctx.version, c.spec), requirement: c.requirement };
  const push = (id: string, o: Outcome, extra?: { title?: string; item?: string; notApplicable?: true }) => {
    out.push({
      id,
      ...base,
      title: extra?.title ?? base.title,
      level: o.level ?? c.level,
      verdict: o.verdict,
      message: o.message,
      durationMs: o.durationMs ?? -1,
      messageIds: o.messageIds ?? [],
      ...(o.details ? { details: o.details } : {}),
      ...(extra?.item !== undefined ? { item: extra.item } : {}),
      ...(extra?.notApplicable || (o.notApplicable && o.verdict === 'skip') ? { notApplicable: true } : {}),
      ...(c.ofFile ? { ofFile: true } : {}),
    });
  };
  const first = out.length;
  const needsServer = requiresOf(c).needs === 'server';
  // A request of an earlier case timed out and the server is being asked whether it still answers: wait for that
  // (bounded) so this case is run, or skipped, on what is known of the server.
  if (needsServer) await st.untilStopped(ctx.session.livenessKnown()).catch(() => undefined);
  // Once the handshake went through, a case that does not apply says so, whatever became of the server since (it
  // would not have run anyway); before that, what the run lacks is the reason.
  const applies = () =>
    notApplicable(c, {
      version: ctx.version,
      features: ctx.features,
      transport: st.transport.kind,
      capabilities: ctx.capabilities,
    });
  const handshakeDone = !st.aborted() && !st.authRequired?.();
  const doesNotApply = handshakeDone ? applies() : undefined;
  const cannotRun = doesNotApply ? undefined : notRunnable(c, ctx, st);
  if (cannotRun) {
    push(c.id, { verdict: 'skip', message: cannotRun });
  } else if (doesNotApply) {
    push(c.id, { verdict: 'skip', message: doesNotApply }, { notApplicable: true });
  } else {
    ctx.currentCase = c.id;
    try {
      const o = needsServer ? await st.untilStopped(c.run(ctx)) : await c.run(ctx);
      // One rule for every case that talks to the server: a fail or warn that rests on an answer blaming the server's
      // environment (core/environment.ts) is inconclusive. Cases that read the log judge the wire itself.
      const judged = <T extends Outcome>(x: T): T =>
        requiresOf(c).needs === 'log' ? x : environmentRule(x, ctx.session.log);
      if (Array.isArray(o)) {
        for (const item of o as ItemOutcome[]) {
          const id = `${c.id}/${item.item}`;
          if (ctx.selected(id)) push(id, judged(item), { title: item.title, item: item.item });
        }
      } else push(c.id, judged(o));
    } catch (e) {
      const err = e as Error;
      const stopWhy = st.stopped();
      if (stopWhy && needsServer)
        push(c.id, { verdict: 'skip', message: `not finished: ${stopWhy}`, messageIds: unanswered(err).messageIds });
      else if (err instanceof SessionError) push(c.id, unanswered(err));
      else
        push(c.id, { verdict: 'fail', message: `harness error while running this case: ${err.stack ?? err.message}` });
    }
  }
  const ms = Math.round((performance.now() - ct0) * 1000) / 1000;
  const added = out.slice(first);
  // What was not run has no duration: a case skipped whole before it ran, and the items of a per-item case skipped
  // without being measured (a tool the call policy kept from being called). The case's time is shared out among the
  // other results it did not measure.
  if (cannotRun || doesNotApply) for (const r of added) r.durationMs = 0;
  const perItemSkips = added.filter((r) => r.durationMs < 0 && r.item !== undefined && r.verdict === 'skip');
  for (const r of perItemSkips) r.durationMs = 0;
  const unmeasured = added.filter((r) => r.durationMs < 0);
  for (const r of unmeasured) r.durationMs = Math.round((ms / unmeasured.length) * 1000) / 1000;
}

/** Run one phase of every selected suite, in order; `onSuite` gets what the phase added. */
export async function runPhase(
  phase: Phase,
  suites: Suite[],
  results: Map<string, SuiteResult>,
  ctx: RunContext,
  st: RunState,
  filter: string[] | undefined,
  onSuite?: (suite: SuiteResult, phase: Phase, added: CaseResult[]) => void,
): Promise<void> {
  if (phase === 'session') await startEarly(suites, ctx, st, filter);
  for (const suite of suites) {
    const st0 = performance.now();
    const res = results.get(suite.id) ?? { id: suite.id, title: suite.title, durationMs: 0, cases: [] };
    results.set(suite.id, res);
    const before = res.cases.length;
    // One list of results per case, in the suite's order: a case collected at the end of the suite (CaseDef.offSession)
    // keeps its place.
    const slots: CaseResult[][] = [];
    const perItemStems = new Set(suite.cases.filter((c) => c.perItem !== undefined).map((c) => c.id));
    const offSession: Promise<void>[] = [];
    for (const c of suite.cases) {
      if (phaseOf(c) !== phase) continue;
      const slot: CaseResult[] = [];
      slots.push(slot);
      const running = runCase(c, ctx, st, filter, slot);
      if (c.offSession?.(ctx)) offSession.push(running);
      else await running;
    }
    await Promise.all(offSession);
    // A per-item case skipped whole reports under its stem; when another case of the suite has that id (compat/<provider>
    // and compat/<provider>/<tool>), that case carries the reason, and the skip is left out: ids stay unique.
    const ids = new Set(res.cases.map((r) => r.id));
    for (const slot of slots) {
      for (const r of slot) {
        if (ids.has(r.id) && r.verdict === 'skip' && r.item === undefined && perItemStems.has(r.id)) continue;
        ids.add(r.id);
        res.cases.push(r);
      }
    }
    res.durationMs += Math.round((performance.now() - st0) * 1000) / 1000;
    onSuite?.(res, phase, res.cases.slice(before));
  }
}

/**
 * Before the first case: let every selected, applicable case of the session phase that has early work start it, so
 * that it runs while the cases ahead of it do: CaseDef.early (on the main session, one case at a time, awaited; the
 * first one's first message goes out before anything else starts), with CaseDef.start (off the main session, not
 * awaited) right after the first early work (or, without any, at once), then the schema check of the session's
 * messages begins (RunState.checkMessages). Whether the case runs is still decided when its turn comes.
 */
async function startEarly(suites: Suite[], ctx: RunContext, st: RunState, filter: string[] | undefined): Promise<void> {
  const wanted = (c: CaseDef) =>
    phaseOf(c) === 'session' &&
    caseWanted(c, filter) &&
    !(
      notRunnable(c, ctx, st) ??
      notApplicable(c, {
        version: ctx.version,
        features: ctx.features,
        transport: st.transport.kind,
        capabilities: ctx.capabilities,
      })
    );
  const cases = suites.flatMap((s) => s.cases);
  let started = false;
  const startHooks = () => {
    if (started) return;
    started = true;
    for (const c of cases) {
      if (!c.start || !wanted(c)) continue;
      try {
        c.start(ctx);
      } catch {
        // The case does the work itself when its turn comes (and reports what goes wrong then).
      }
    }
  };
  try {
    // The first early work goes first: what it starts (a watch window) is the run's longest wait. The start hooks
    // follow it (what they do synchronously, a server spawned or a table read, does not hold that message; what they
    // start, a second server, gets going before the rest of the early work), then the rest of the early work.
    for (const c of cases) {
      if (!c.early || st.early === false || !wanted(c)) continue;
      ctx.currentCase = c.id;
      const ran = earlyCases.get(ctx) ?? [];
      earlyCases.set(ctx, [...ran, c]);
      try {
        await st.untilStopped(c.early(ctx));
        if (c.sawLoss?.(ctx) && !earlyLosses.has(ctx)) earlyLosses.set(ctx, c.id);
      } catch {
        // Stopped, or the early work failed: the case does the work itself when its turn comes (or is not run).
      }
      startHooks();
    }
    startHooks();
  } finally {
    st.checkMessages?.();
  }
}
