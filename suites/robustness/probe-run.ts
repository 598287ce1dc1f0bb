import type { LoggedMessage } from '../../core/log.js';
import { closedReason, SessionError, type Reply, type Session } from '../../core/session.js';
import type { Probe, ProbeOptions } from '../../core/probe.js';
import type { Service } from '../../core/services.js';
import type { CaseContext, CaseDef, Outcome } from '../../core/suite.js';
import type { HttpExchange } from '../../core/transport/http.js';
import type { Transport } from '../../core/transport/types.js';
import { brief, describeError, ids, isObject } from '../helpers.js';
import { cut } from '../../core/text.js';

/** How long to wait, once the ping sent after a probe is answered, for an answer to the probe itself. */
export const ANSWER_GRACE_MS = 150;
/** How long the early heartbeat (before the unknown notification is sent early) may take; slower: the case waits for its turn. */
export const EARLY_BASELINE_MS = 1000;
export const UNKNOWN_NOTIFICATION = 'notifications/mcp-conform/unknown';
/** How long a tool call must stay unanswered to count as in flight (worth cancelling). */
export const IN_FLIGHT_MS = 300;
/** How long to watch for an answer to a cancelled request. */
export const AFTER_CANCEL_MS = 2000;
/** Size of the padding in the very large request. */
export const LARGE_BYTES = 1024 * 1024;
/** Names, titles or descriptions of tools that take a while (worth cancelling). */
export const SLOW_TOOL = /long[-_\s]?running|\bslow|\bsleep|\bdelay/i;

export interface ProbeRun {
  probe: Probe;
  /** The ping sent after the probe, when it was answered (with a result or an error: either shows life). */
  ping?: Reply;
  /** Why the ping got no answer: the server died or stopped answering. */
  lost?: SessionError | Error;
  /** Over HTTP: the probe's POST was refused with an HTTP error status (itself an answer). */
  refusal?: HttpRefusal;
  /** The connection ended while the harness watched for an answer (after the ping was answered): when, in ms after the probe. */
  diedAfterMs?: number;
  /** The watch for answers: from the ping's answer until the wait ended (ms since the session began, as messages[].t). */
  watched?: { from: number; until: number };
}

/** An HTTP error status that answered a probe's POST, with what its body said. */
export interface HttpRefusal {
  status: number;
  statusText: string;
  /** The body as sent, when it was no JSON-RPC message. */
  body: string;
  /** The JSON-RPC error the body carried, if any. */
  error?: { code: number; message: string };
  /** The error message the body carried, when it was logged as an answer. */
  answer?: LoggedMessage;
}

/**
 * The ping that shows the server answers at all, once per run (a run service): without it no probe can be graded.
 * An error answer counts as an answer.
 */
export const heartbeatBaseline: Service<string | undefined> = {
  id: 'robustness-baseline',
  // Answered already when robustness/unknown-notification's early work began (it asks first).
  produce: (ctx) =>
    earlyBaseline.has(ctx.session)
      ? Promise.resolve(undefined)
      : ctx.session.heartbeat().then(
          () => undefined,
          (e: Error) => e.message,
        ),
};

/** Sessions whose heartbeat was answered before the unknown notification was sent early. */
export const earlyBaseline = new WeakSet<Session>();

export function baseline(ctx: CaseContext): Promise<string | undefined> {
  return ctx.service(heartbeatBaseline);
}

/** Send the probe, then a ping; wait briefly for answers to the probe; close it. */
export async function runProbe(ctx: CaseContext, values: unknown[], opts: ProbeOptions): Promise<ProbeRun> {
  // One catch-all probe at a time: an early watch window (robustness/unknown-notification) may still be open.
  if (opts.catchAll) await ctx.session.catchAllIdle();
  const probe = ctx.session.probe(values, opts);
  const run: ProbeRun = { probe };
  try {
    run.ping = await ctx.session.heartbeat(); // ping; server/discover from 2026-07-28 (ping was removed)
    await watchWindow(ctx, run, opts.expectAnswers ?? 1);
  } catch (e) {
    run.lost = e as Error;
  }
  run.refusal = await httpRefusal(ctx.transport, probe.sent, probe.answers);
  probe.close();
  return run;
}

/**
 * The wait for an answer to a probe, once the ping after it was answered: ANSWER_GRACE_MS (less when the answers
 * came); notes a connection that ended meanwhile (the server died), unless other messages had been sent meanwhile.
 */
export async function watchWindow(ctx: CaseContext, run: ProbeRun, count: number): Promise<void> {
  const s = ctx.session;
  const start = s.now();
  let answered = await run.probe.waitForAnswers(ANSWER_GRACE_MS, count);
  // Never shorter than ANSWER_GRACE_MS on the log's clock (a timer may fire a fraction of a millisecond early).
  while (!answered && run.probe.open && s.now() - start < ANSWER_GRACE_MS)
    answered = await run.probe.waitForAnswers(ANSWER_GRACE_MS - (s.now() - start) + 0.5, count);
  // What arrived before the window ended is read before it closes: when other work kept the harness busy past its
  // end, the timer comes first in the event loop and the input that waited would otherwise be read after the close.
  for (let i = 0; i < 2 && !answered && run.probe.open; i++) {
    await new Promise((r) => setImmediate(r));
    answered = run.probe.answers.length >= count;
  }
  run.watched = { from: run.ping?.response.t ?? start, until: s.now() };
  const first = run.probe.sent[0];
  const lost = run.probe.connectionLost;
  // Overlapped (an early window): an end that came after other cases had sent something may be theirs, not the probe's.
  if (!answered && lost && first && !(run.probe.opts.overlapped && lost.othersSent))
    run.diedAfterMs = Math.round(lost.t - first.t);
}

/** The transport's record of the HTTP exchange that carried a message (over HTTP only). */
export function exchangeOf(transport: Transport, m: LoggedMessage): HttpExchange | undefined {
  const n = m.http?.exchange;
  if (n === undefined) return undefined;
  return (transport.httpExchanges?.() as HttpExchange[] | undefined)?.find((x) => x.n === n && x.method === 'POST');
}

/**
 * Over HTTP (Streamable HTTP, HTTP+SSE): the first of the messages whose POST was answered with an HTTP error status,
 * which is the server's answer to it (a refusal) whether or not the body carries a JSON-RPC error. Waits (bounded) for
 * the POSTs still under way to end. undefined over stdio and when every POST was accepted.
 */
export async function httpRefusal(
  transport: Transport,
  sent: LoggedMessage[],
  answers: LoggedMessage[],
): Promise<HttpRefusal | undefined> {
  const posts = await postsSettled(transport, sent);
  for (const m of posts) {
    const status = m.http!.status;
    if (status === undefined || status < 400) continue;
    const x = exchangeOf(transport, m);
    const answer = answers.find((a) => a.http?.exchange === m.http!.exchange);
    const body = (x?.responseBody ?? '').trim();
    // The body may carry a JSON-RPC error that is not an answer to the probe (its id is another): it is still what
    // the refusal said.
    const error = answer ? errorOf(answer) : bodyError(body);
    return {
      status,
      statusText: x?.statusText ?? '',
      body,
      ...(error ? { error } : {}),
      ...(answer ? { answer } : {}),
    };
  }
  return undefined;
}

/** The JSON-RPC error a response body carries (JSON, or the data of an SSE event), if any. */
export function bodyError(body: string): { code: number; message: string } | undefined {
  const texts = body.startsWith('{')
    ? [body]
    : body
        .split(/\r?\n/)
        .filter((l) => l.startsWith('data:'))
        .map((l) => l.slice(5).trim());
  for (const t of texts) {
    try {
      const j: unknown = JSON.parse(t);
      if (isObject(j) && isObject(j.error))
        return {
          code: typeof j.error.code === 'number' ? j.error.code : NaN,
          message: typeof j.error.message === 'string' ? j.error.message : '',
        };
    } catch {
      /* not JSON: no error */
    }
  }
  return undefined;
}

/** Over HTTP: wait (at most ANSWER_GRACE_MS) for the POSTs that carried these messages to end; returns those messages. */
export async function postsSettled(transport: Transport, sent: LoggedMessage[]): Promise<LoggedMessage[]> {
  const posts = sent.filter((m) => m.http?.method === 'POST');
  if (!posts.length) return posts;
  const until = performance.now() + ANSWER_GRACE_MS;
  while (
    posts.some((m) => {
      const x = exchangeOf(transport, m);
      return !!x && x.ms === undefined && x.error === undefined;
    }) &&
    performance.now() < until
  ) {
    await new Promise((r) => setTimeout(r, 10));
  }
  return posts;
}

/** "HTTP 400 Bad Request with error -32700 "Parse error"" / "HTTP 400 Bad Request (body: "…"; no JSON-RPC error)". */
export function refusalText(r: HttpRefusal): string {
  const line = `HTTP ${r.status}${r.statusText ? ` ${r.statusText}` : ''}`;
  if (r.error) return `${line} with error ${describeError({ ...r.error })}`;
  return `${line} (${r.body ? `body ${brief(r.body.replace(/\s+/g, ' '), 100)}` : 'no body'}; no JSON-RPC error)`;
}

/** The fail for a server that died or stopped answering after a probe; undefined when it still answers. */
export function lostOutcome(run: ProbeRun, what: string): Outcome | undefined {
  if (!run.lost) return undefined;
  const e = run.lost;
  const mids = ids(...run.probe.sent, ...run.probe.answers, e instanceof SessionError ? e.request : undefined);
  if (e instanceof SessionError && (e.kind === 'closed' || e.afterClose)) {
    return { verdict: 'fail', message: `the server died after ${what}: ${e.message}`, messageIds: mids };
  }
  return { verdict: 'fail', message: `the server stopped answering after ${what}: ${e.message}`, messageIds: mids };
}

export function mids(run: ProbeRun): number[] {
  return ids(...run.probe.sent, ...run.probe.answers, run.ping?.request, run.ping?.response);
}

export function errorOf(m: LoggedMessage): { code: number; message: string } | undefined {
  const e = isObject(m.json) ? m.json.error : undefined;
  if (!isObject(e)) return undefined;
  return { code: typeof e.code === 'number' ? e.code : NaN, message: typeof e.message === 'string' ? e.message : '' };
}

export function idText(m: LoggedMessage): string {
  return isObject(m.json) && 'id' in m.json ? JSON.stringify(m.json.id) : 'absent';
}

/**
 * Grade the answer to a message the server cannot read (invalid JSON, a value that is no message, a bad envelope):
 * an error answer with id null (or absent, or the message's own id when it had a readable one) passes, and so does an
 * HTTP 4xx refusal of its POST (over HTTP the status is an answer); silence is a warn; an answer with a made-up id, a
 * success result or an HTTP 5xx is a warn.
 */
export function gradeUnreadable(
  ctx: CaseContext,
  run: ProbeRun,
  what: string,
  jsonRpcCode: number,
  ownId?: string | number,
): Outcome {
  const lost = lostOutcome(run, what);
  if (lost) return lost;
  const alive = stillAnswers(ctx, run);
  const answers = run.probe.answers;
  const r = run.refusal;
  if (r && r.status >= 500) {
    return {
      verdict: 'warn',
      message: `${what} was answered with ${refusalText(r)}: a server error, where a refusal (HTTP 400${r.error ? '' : `, or error ${jsonRpcCode}`}) was due; ${alive}`,
      messageIds: mids(run),
    };
  }
  if (r && (!answers.length || answers[0] === r.answer)) {
    // Over HTTP the status line answers the POST: a 4xx is a refusal, with or without a JSON-RPC error in the body.
    const code = r.error ? (r.error.code === jsonRpcCode ? '' : ` (JSON-RPC's code for this is ${jsonRpcCode})`) : '';
    const idNote =
      r.answer && !idAcceptable(r.answer, ownId)
        ? `; the error carries id ${idText(r.answer)}, which the message did not carry`
        : '';
    return {
      verdict: idNote ? 'warn' : 'pass',
      message: `${what} was refused with ${refusalText(r)}${code}${idNote}; ${alive}`,
      messageIds: mids(run),
    };
  }
  if (!answers.length) {
    const idWords = ownId !== undefined ? `with the message's id ${JSON.stringify(ownId)} (or null)` : 'with id null';
    const post = run.probe.sent[0]?.http?.status;
    const seen =
      post !== undefined
        ? `its POST got HTTP ${post} and no JSON-RPC answer came`
        : `no answer came within ${ANSWER_GRACE_MS} ms of the answer to the ${ctx.session.heartbeatMethod} request sent after it`;
    return {
      verdict: 'warn',
      level: 'SHOULD',
      message: `${what} was not refused: ${seen}; JSON-RPC 2.0 asks for error ${jsonRpcCode} ${idWords}; ${alive}`,
      messageIds: mids(run),
    };
  }
  const first = answers[0]!;
  const more = answers.length > 1 ? ` (and ${answers.length - 1} more answer${answers.length > 2 ? 's' : ''})` : '';
  const err = errorOf(first);
  if (first.kind === 'error' && err) {
    const code =
      err.code === jsonRpcCode
        ? `${jsonRpcCode}`
        : `${Number.isNaN(err.code) ? '(no code)' : err.code} (JSON-RPC's code for this is ${jsonRpcCode})`;
    if (idAcceptable(first, ownId))
      return {
        verdict: 'pass',
        message: `${what} was answered with error ${code} ${brief(err.message, 100)}, id ${idText(first)}${more}; ${alive}`,
        messageIds: mids(run),
      };
    return {
      verdict: 'warn',
      message: `${what} was answered with an error, but with id ${idText(first)}, which it did not carry (JSON-RPC wants id null)${more}`,
      messageIds: mids(run),
    };
  }
  return {
    verdict: 'warn',
    message: `${what} was answered with ${first.kind === 'response' ? 'a success result' : 'something that is no error'}: ${cut(first.raw, 160)}${more}; expected error ${jsonRpcCode} with id null, or silence`,
    messageIds: mids(run),
  };
}

/** An error answer to an unreadable message may carry id null, no id, or the message's own id when it had one. */
export function idAcceptable(m: LoggedMessage, ownId?: string | number): boolean {
  const id = isObject(m.json) ? m.json.id : undefined;
  return id === null || id === undefined || (ownId !== undefined && id === ownId);
}

/**
 * "the server still answers ping" — naming the request actually sent (server/discover from 2026-07-28), and saying
 * so when the answer after the probe was an error (it shows life, not service).
 */
export function stillAnswers(ctx: CaseContext, run?: ProbeRun): string {
  const e = run?.ping?.error;
  return e
    ? `the server still answers ${ctx.session.heartbeatMethod}, though with error ${describeError(e)}`
    : `the server still answers ${ctx.session.heartbeatMethod}`;
}

export function jsonrpc(id: number, method: string, params?: unknown): Record<string, unknown> {
  return params === undefined ? { jsonrpc: '2.0', id, method } : { jsonrpc: '2.0', id, method, params };
}

/** A probe case: skipped (with why) when ping does not work at all, since every probe relies on it. */
export function probeCase(def: Omit<CaseDef, 'run'> & { probe(ctx: CaseContext): Promise<Outcome> }): CaseDef {
  const { probe, ...rest } = def;
  return {
    ...rest,
    async run(ctx) {
      // One catch-all probe at a time: robustness/unknown-notification's early window may still be open; the server
      // may have died meanwhile (then this case is not run, as the runner says of any case after the server is gone).
      await ctx.session.catchAllIdle();
      if (ctx.session.closed) throw serverGone(ctx);
      return (await notProbed(ctx)) ?? probe(ctx);
    },
  };
}

/** "the server exited with code 5; last stderr lines: …" as an error that makes the case a skip ("not run: …"). */
export function serverGone(ctx: CaseContext): SessionError {
  const info = ctx.transport.closeInfo;
  return new SessionError('closed', closedReason(info), undefined, info, true);
}

/** Why a probe case is skipped: ping does not work at all, or the server had already stopped answering. */
export async function notProbed(ctx: CaseContext): Promise<Outcome | undefined> {
  const broken = await baseline(ctx);
  if (broken !== undefined)
    return {
      verdict: 'skip',
      message: `the probes need a server that answers ${ctx.session.heartbeatMethod}, and this one did not: ${broken}`,
    };
  // A probe can only be blamed for what happens after it: not when the server had already stopped answering.
  if (ctx.session.isStalled)
    return {
      verdict: 'skip',
      message:
        'not run: the server had already stopped answering (an earlier request timed out, and nothing has come from it since)',
    };
  return undefined;
}

export const GRADING = 'graded per the policy table (docs/suites.md, "Verdicts")';
