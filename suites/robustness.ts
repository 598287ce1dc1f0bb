/**
 * Robustness: what the server makes of messages it should refuse or tolerate — invalid JSON, a JSON value that is no
 * JSON-RPC message, a wrong "jsonrpc", an unknown method, an unknown notification, a reused request id, a request
 * before initialize, a cancelled request, a very large request — each probe followed by a ping that shows the
 * server still answers. Graded per the policy table of docs/suites.md, "Verdicts" (from docs/protocol-notes.md).
 * https://modelcontextprotocol.io/specification/2025-11-25/basic
 */
import { generateArguments } from '../core/args/index.js';
import type { LoggedMessage } from '../core/log.js';
import { closedReason, SessionError, type Reply, type Session } from '../core/session.js';
import type { Probe, ProbeOptions } from '../core/probe.js';
import type { Service } from '../core/services.js';
import type { CaseContext, CaseDef, Outcome, Suite } from '../core/suite.js';
import type { Tool } from '../core/tools.js';
import type { HttpExchange } from '../core/transport/http.js';
import type { Transport } from '../core/transport/types.js';
import { VERSION } from '../core/version.js';
import { brief, describeError, ids, isObject } from './helpers.js';
import { callPlan } from '../core/call-policy.js';

/** How long to wait, once the ping sent after a probe is answered, for an answer to the probe itself. */
const ANSWER_GRACE_MS = 150;
/** How long the early heartbeat (before the unknown notification is sent early) may take; slower: the case waits for its turn. */
const EARLY_BASELINE_MS = 1000;
const UNKNOWN_NOTIFICATION = 'notifications/mcp-conform/unknown';
/** How long a tool call must stay unanswered to count as in flight (worth cancelling). */
const IN_FLIGHT_MS = 300;
/** How long to watch for an answer to a cancelled request. */
const AFTER_CANCEL_MS = 2000;
/** Size of the padding in the very large request. */
const LARGE_BYTES = 1024 * 1024;
/** Names, titles or descriptions of tools that take a while (worth cancelling). */
const SLOW_TOOL = /long[-_\s]?running|\bslow|\bsleep|\bdelay/i;

interface ProbeRun {
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
interface HttpRefusal {
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
const heartbeatBaseline: Service<string | undefined> = {
  id: 'robustness-baseline',
  // Answered already when robustness/unknown-notification's early work began (it asks first).
  produce: (ctx) => (earlyBaseline.has(ctx.session) ? Promise.resolve(undefined) : ctx.session.heartbeat().then(() => undefined, (e: Error) => e.message)),
};

/** Sessions whose heartbeat was answered before the unknown notification was sent early. */
const earlyBaseline = new WeakSet<Session>();

function baseline(ctx: CaseContext): Promise<string | undefined> {
  return ctx.service(heartbeatBaseline);
}

/** Send the probe, then a ping; wait briefly for answers to the probe; close it. */
async function runProbe(ctx: CaseContext, values: unknown[], opts: ProbeOptions): Promise<ProbeRun> {
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
async function watchWindow(ctx: CaseContext, run: ProbeRun, count: number): Promise<void> {
  const s = ctx.session;
  const start = s.now();
  let answered = await run.probe.waitForAnswers(ANSWER_GRACE_MS, count);
  // Never shorter than ANSWER_GRACE_MS on the log's clock (a timer may fire a fraction of a millisecond early).
  while (!answered && run.probe.open && s.now() - start < ANSWER_GRACE_MS) answered = await run.probe.waitForAnswers(ANSWER_GRACE_MS - (s.now() - start) + 0.5, count);
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
  if (!answered && lost && first && !(run.probe.opts.overlapped && lost.othersSent)) run.diedAfterMs = Math.round(lost.t - first.t);
}

/**
 * Per run (by session): robustness/unknown-notification's probe, sent when the session phase begins (its early()):
 * its watch window closes while the other cases run; the case reads it at its turn.
 */
interface EarlyWatch {
  run: ProbeRun;
  /** The run once the window has closed (bounded: the window, then the wait for the notification's POST). */
  done: Promise<ProbeRun>;
  /** Set once the window has closed. */
  closed?: boolean;
}
const earlyWatches = new WeakMap<Session, EarlyWatch>();

/**
 * robustness/unknown-notification's early work: the heartbeat (as a probe: it has no timeout of its own, so a server
 * that never answers it is not marked as stalled before the other cases run; no answer within EARLY_BASELINE_MS:
 * nothing more is done early, the case does it all at its turn, as before), then the notification and a heartbeat,
 * awaited (a server that dies of the notification is caught before any other case runs), and over HTTP the end of the
 * notification's POST. The window of ANSWER_GRACE_MS from the heartbeat's answer then runs on its own.
 */
async function earlyUnknownNotification(ctx: CaseContext): Promise<void> {
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
  const probe = s.probe([{ jsonrpc: '2.0', method: UNKNOWN_NOTIFICATION, params: {} }], { catchAll: true, overlapped: true });
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
const earlyLarge = new WeakMap<Session, { run: ProbeRun; until: number; lostAt?: number }>();

/** robustness/large-request's probe: the 1 MiB request, a heartbeat after it, and the wait for its answer. */
function largeRequest(ctx: CaseContext): Promise<ProbeRun> {
  const id = ctx.session.newId();
  const params = { _meta: { 'mcp-conform/padding': 'x'.repeat(LARGE_BYTES) } };
  return runProbe(ctx, [jsonrpc(id, ctx.session.heartbeatMethod, params)], { id });
}

/**
 * robustness/large-request's early work: only behind the unknown notification's, on a server that answered its
 * heartbeat (else the case does it all at its turn). The probe is the one the case would send, awaited as the
 * notification's is (a server that dies of it or stops answering is caught before the other cases run).
 */
async function earlyLargeRequest(ctx: CaseContext): Promise<void> {
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
function coveredByNotification(ctx: CaseContext, e: { until: number; lostAt?: number }): boolean {
  const w = earlyWatches.get(ctx.session);
  if (!w || w.run.lost) return false;
  const windowEnd = w.run.watched?.until ?? (w.closed ? -1 : Infinity);
  return (e.lostAt ?? e.until) <= windowEnd;
}

/** robustness/large-request's verdict from its probe's run. */
function gradeLargeRequest(ctx: CaseContext, run: ProbeRun): Outcome {
  const size = run.probe.sent[0]?.raw.length ?? 0;
  const id = run.probe.opts.id;
  const lost = lostOutcome(run, `a request of ${size} bytes`);
  if (lost) return lost;
  const a = run.probe.answers[0];
  const hb = ctx.session.heartbeatMethod;
  const sent = `a ${hb} request of ${size} bytes (id ${id})`;
  const r = run.refusal;
  if (!a && r) return { verdict: 'info', message: `${sent} was refused with ${refusalText(r)}; the small ${hb} request after it was answered — the server (or its HTTP framework) limits a request's size; neither MCP nor JSON-RPC sets a limit, so clients that send large arguments or documents meet it`, messageIds: mids(run) };
  if (!a) return { verdict: 'fail', message: `${sent} was never answered, though the small ${hb} request after it was`, messageIds: mids(run) };
  const err = errorOf(a);
  // The small request after it refused with the same code: the refusal is about what the server serves now (an
  // earlier message changed its state, say), not about the size.
  const small = run.ping?.error;
  if (a.kind === 'error' && err && small && small.code === err.code) {
    return { verdict: 'skip', message: `inconclusive: ${sent} was refused with error ${describeError({ ...err })}, and so was the small ${hb} request after it (error ${describeError(small)}): the server refuses ${hb} whatever its size${ctx.features.requestMeta ? ' (in 2026-07-28, a sign that an earlier message changed how it serves requests: see robustness/unknown-notification)' : ''}, so this says nothing about large requests`, messageIds: mids(run) };
  }
  if (a.kind === 'error' && err) return { verdict: 'info', message: `${sent} was refused with error ${describeError({ ...err })}${r && r.answer === a ? ` (HTTP ${r.status})` : ''} — a size limit of the server's own; neither MCP nor JSON-RPC sets one, so it is reported, not graded`, messageIds: mids(run) };
  return { verdict: 'pass', message: `${sent} was answered in ${Math.round(a.t - run.probe.sent[0]!.t)} ms`, messageIds: mids(run) };
}

/** The transport's record of the HTTP exchange that carried a message (over HTTP only). */
function exchangeOf(transport: Transport, m: LoggedMessage): HttpExchange | undefined {
  const n = m.http?.exchange;
  if (n === undefined) return undefined;
  return (transport.httpExchanges?.() as HttpExchange[] | undefined)?.find((x) => x.n === n && x.method === 'POST');
}

/**
 * Over HTTP (Streamable HTTP, HTTP+SSE): the first of the messages whose POST was answered with an HTTP error status,
 * which is the server's answer to it (a refusal) whether or not the body carries a JSON-RPC error. Waits (bounded) for
 * the POSTs still under way to end. undefined over stdio and when every POST was accepted.
 */
async function httpRefusal(transport: Transport, sent: LoggedMessage[], answers: LoggedMessage[]): Promise<HttpRefusal | undefined> {
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
    return { status, statusText: x?.statusText ?? '', body, ...(error ? { error } : {}), ...(answer ? { answer } : {}) };
  }
  return undefined;
}

/** The JSON-RPC error a response body carries (JSON, or the data of an SSE event), if any. */
function bodyError(body: string): { code: number; message: string } | undefined {
  const texts = body.startsWith('{') ? [body] : body.split(/\r?\n/).filter((l) => l.startsWith('data:')).map((l) => l.slice(5).trim());
  for (const t of texts) {
    try {
      const j: unknown = JSON.parse(t);
      if (isObject(j) && isObject(j.error)) return { code: typeof j.error.code === 'number' ? j.error.code : NaN, message: typeof j.error.message === 'string' ? j.error.message : '' };
    } catch { /* not JSON: no error */ }
  }
  return undefined;
}

/** Over HTTP: wait (at most ANSWER_GRACE_MS) for the POSTs that carried these messages to end; returns those messages. */
async function postsSettled(transport: Transport, sent: LoggedMessage[]): Promise<LoggedMessage[]> {
  const posts = sent.filter((m) => m.http?.method === 'POST');
  if (!posts.length) return posts;
  const until = performance.now() + ANSWER_GRACE_MS;
  while (posts.some((m) => { const x = exchangeOf(transport, m); return !!x && x.ms === undefined && x.error === undefined; }) && performance.now() < until) {
    await new Promise((r) => setTimeout(r, 10));
  }
  return posts;
}

/** "HTTP 400 Bad Request with error -32700 "Parse error"" / "HTTP 400 Bad Request (body: "…"; no JSON-RPC error)". */
function refusalText(r: HttpRefusal): string {
  const line = `HTTP ${r.status}${r.statusText ? ` ${r.statusText}` : ''}`;
  if (r.error) return `${line} with error ${describeError({ ...r.error })}`;
  return `${line} (${r.body ? `body ${brief(r.body.replace(/\s+/g, ' '), 100)}` : 'no body'}; no JSON-RPC error)`;
}

/** The fail for a server that died or stopped answering after a probe; undefined when it still answers. */
function lostOutcome(run: ProbeRun, what: string): Outcome | undefined {
  if (!run.lost) return undefined;
  const e = run.lost;
  const mids = ids(...run.probe.sent, ...run.probe.answers, e instanceof SessionError ? e.request : undefined);
  if (e instanceof SessionError && (e.kind === 'closed' || e.afterClose)) {
    return { verdict: 'fail', message: `the server died after ${what}: ${e.message}`, messageIds: mids };
  }
  return { verdict: 'fail', message: `the server stopped answering after ${what}: ${e.message}`, messageIds: mids };
}

function mids(run: ProbeRun): number[] {
  return ids(...run.probe.sent, ...run.probe.answers, run.ping?.request, run.ping?.response);
}

function errorOf(m: LoggedMessage): { code: number; message: string } | undefined {
  const e = isObject(m.json) ? m.json.error : undefined;
  if (!isObject(e)) return undefined;
  return { code: typeof e.code === 'number' ? e.code : NaN, message: typeof e.message === 'string' ? e.message : '' };
}

function idText(m: LoggedMessage): string {
  return isObject(m.json) && 'id' in m.json ? JSON.stringify(m.json.id) : 'absent';
}

/**
 * Grade the answer to a message the server cannot read (invalid JSON, a value that is no message, a bad envelope):
 * an error answer with id null (or absent, or the message's own id when it had a readable one) passes, and so does an
 * HTTP 4xx refusal of its POST (over HTTP the status is an answer); silence is a warn; an answer with a made-up id, a
 * success result or an HTTP 5xx is a warn.
 */
function gradeUnreadable(ctx: CaseContext, run: ProbeRun, what: string, jsonRpcCode: number, ownId?: string | number): Outcome {
  const lost = lostOutcome(run, what);
  if (lost) return lost;
  const alive = stillAnswers(ctx, run);
  const answers = run.probe.answers;
  const r = run.refusal;
  if (r && r.status >= 500) {
    return { verdict: 'warn', message: `${what} was answered with ${refusalText(r)}: a server error, where a refusal (HTTP 400${r.error ? '' : `, or error ${jsonRpcCode}`}) was due; ${alive}`, messageIds: mids(run) };
  }
  if (r && (!answers.length || answers[0] === r.answer)) {
    // Over HTTP the status line answers the POST: a 4xx is a refusal, with or without a JSON-RPC error in the body.
    const code = r.error ? (r.error.code === jsonRpcCode ? '' : ` (JSON-RPC's code for this is ${jsonRpcCode})`) : '';
    const idNote = r.answer && !idAcceptable(r.answer, ownId) ? `; the error carries id ${idText(r.answer)}, which the message did not carry` : '';
    return { verdict: idNote ? 'warn' : 'pass', message: `${what} was refused with ${refusalText(r)}${code}${idNote}; ${alive}`, messageIds: mids(run) };
  }
  if (!answers.length) {
    const idWords = ownId !== undefined ? `with the message's id ${JSON.stringify(ownId)} (or null)` : 'with id null';
    const post = run.probe.sent[0]?.http?.status;
    const seen = post !== undefined ? `its POST got HTTP ${post} and no JSON-RPC answer came` : `no answer came within ${ANSWER_GRACE_MS} ms of the answer to the ${ctx.session.heartbeatMethod} request sent after it`;
    return { verdict: 'warn', level: 'SHOULD', message: `${what} was not refused: ${seen}; JSON-RPC 2.0 asks for error ${jsonRpcCode} ${idWords}; ${alive}`, messageIds: mids(run) };
  }
  const first = answers[0]!;
  const more = answers.length > 1 ? ` (and ${answers.length - 1} more answer${answers.length > 2 ? 's' : ''})` : '';
  const err = errorOf(first);
  if (first.kind === 'error' && err) {
    const code = err.code === jsonRpcCode ? `${jsonRpcCode}` : `${Number.isNaN(err.code) ? '(no code)' : err.code} (JSON-RPC's code for this is ${jsonRpcCode})`;
    if (idAcceptable(first, ownId)) return { verdict: 'pass', message: `${what} was answered with error ${code} ${brief(err.message, 100)}, id ${idText(first)}${more}; ${alive}`, messageIds: mids(run) };
    return { verdict: 'warn', message: `${what} was answered with an error, but with id ${idText(first)}, which it did not carry (JSON-RPC wants id null)${more}`, messageIds: mids(run) };
  }
  return { verdict: 'warn', message: `${what} was answered with ${first.kind === 'response' ? 'a success result' : 'something that is no error'}: ${cut(first.raw, 160)}${more}; expected error ${jsonRpcCode} with id null, or silence`, messageIds: mids(run) };
}

/** An error answer to an unreadable message may carry id null, no id, or the message's own id when it had one. */
function idAcceptable(m: LoggedMessage, ownId?: string | number): boolean {
  const id = isObject(m.json) ? m.json.id : undefined;
  return id === null || id === undefined || (ownId !== undefined && id === ownId);
}

/**
 * "the server still answers ping" — naming the request actually sent (server/discover from 2026-07-28), and saying
 * so when the answer after the probe was an error (it shows life, not service).
 */
function stillAnswers(ctx: CaseContext, run?: ProbeRun): string {
  const e = run?.ping?.error;
  return e ? `the server still answers ${ctx.session.heartbeatMethod}, though with error ${describeError(e)}` : `the server still answers ${ctx.session.heartbeatMethod}`;
}

function cut(text: string, max: number): string {
  return text.length > max ? text.slice(0, max) + '…' : text;
}

function jsonrpc(id: number, method: string, params?: unknown): Record<string, unknown> {
  return params === undefined ? { jsonrpc: '2.0', id, method } : { jsonrpc: '2.0', id, method, params };
}

/** A probe case: skipped (with why) when ping does not work at all, since every probe relies on it. */
function probeCase(def: Omit<CaseDef, 'run'> & { probe(ctx: CaseContext): Promise<Outcome> }): CaseDef {
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
function serverGone(ctx: CaseContext): SessionError {
  const info = ctx.transport.closeInfo;
  return new SessionError('closed', closedReason(info), undefined, info, true);
}

/** Why a probe case is skipped: ping does not work at all, or the server had already stopped answering. */
async function notProbed(ctx: CaseContext): Promise<Outcome | undefined> {
  const broken = await baseline(ctx);
  if (broken !== undefined) return { verdict: 'skip', message: `the probes need a server that answers ${ctx.session.heartbeatMethod}, and this one did not: ${broken}` };
  // A probe can only be blamed for what happens after it: not when the server had already stopped answering.
  if (ctx.session.isStalled) return { verdict: 'skip', message: 'not run: the server had already stopped answering (an earlier request timed out, and nothing has come from it since)' };
  return undefined;
}

const GRADING = 'graded per the policy table (docs/suites.md, "Verdicts")';

export const robustness: Suite = {
  id: 'robustness',
  title: 'Robustness',
  description: 'malformed and unexpected input; each probe is followed by a ping (server/discover from 2026-07-28) to show the server still answers',
  cases: [
    probeCase({
      id: 'robustness/invalid-json',
      title: 'a line that is not JSON is refused, and the server keeps answering',
      level: 'MUST',
      spec: 'basic/transports#stdio',
      requirement: `A line (over HTTP: a POST body) that is not JSON is answered with a JSON-RPC parse error (-32700, id null) or ignored; the server must not die or stop answering (error, or over HTTP a 4xx refusal: pass; silence: warn; dies or stops answering: fail; ${GRADING}).`,
      async probe(ctx) {
        const text = '{"jsonrpc": "2.0", "method": "tools/list", "params": {"cursor": ';
        const run = await runProbe(ctx, [text], { rawText: true, catchAll: true, expectInvalid: 'not JSON, on purpose (robustness/invalid-json)' });
        return gradeUnreadable(ctx, run, ctx.transport.kind === 'stdio' ? 'a line of invalid JSON' : 'a POST body of invalid JSON', -32700);
      },
    }),
    probeCase({
      id: 'robustness/not-a-message',
      title: 'a JSON value that is no JSON-RPC message is refused, and the server keeps answering',
      level: 'MUST',
      spec: 'basic#messages',
      requirement: `A JSON object that is neither a request, a notification nor a response is answered with Invalid Request (-32600, id null) or ignored; the server must not die or stop answering (${GRADING}).`,
      async probe(ctx) {
        const run = await runProbe(ctx, [{ 'mcp-conform': 'this object is no JSON-RPC message' }], { catchAll: true, expectInvalid: 'a JSON object that is no JSON-RPC message, on purpose (robustness/not-a-message)' });
        return gradeUnreadable(ctx, run, 'a JSON object that is no JSON-RPC message', -32600);
      },
    }),
    probeCase({
      id: 'robustness/wrong-jsonrpc',
      title: 'a request with "jsonrpc": "1.0" is refused, and the server keeps answering',
      level: 'MUST',
      spec: 'basic#messages',
      requirement: `Every JSON-RPC 2.0 message carries "jsonrpc": "2.0". A ping (server/discover from 2026-07-28) with "jsonrpc": "1.0" is answered with Invalid Request (-32600), or over HTTP refused with a 4xx, or ignored (silence: warn; treated as a valid request: warn; dies or stops answering: fail).`,
      async probe(ctx) {
        const id = ctx.session.newId();
        const run = await runProbe(ctx, [{ jsonrpc: '1.0', id, method: ctx.session.heartbeatMethod }], { id, catchAll: true, expectInvalid: '"jsonrpc": "1.0" on purpose (robustness/wrong-jsonrpc)' });
        return gradeUnreadable(ctx, run, `a ${ctx.session.heartbeatMethod} request with "jsonrpc": "1.0"`, -32600, id);
      },
    }),
    probeCase({
      id: 'robustness/unknown-method',
      title: 'an unknown method is answered with error -32601',
      level: 'MUST',
      spec: 'basic#responses',
      requirement: 'A request for a method the server does not have is answered with JSON-RPC error -32601 (another error code: warn; a success result, no answer, or a crash: fail).',
      async probe(ctx) {
        const id = ctx.session.newId();
        const method = 'mcp-conform/no-such-method';
        const run = await runProbe(ctx, [jsonrpc(id, method, {})], { id });
        const lost = lostOutcome(run, `a request for the unknown method ${method}`);
        if (lost) return lost;
        const a = run.probe.answers[0];
        const r = run.refusal;
        const hb = ctx.session.heartbeatMethod;
        if (!a && r && r.error) return { verdict: r.error.code === -32601 ? 'pass' : 'warn', message: `${method} (id ${id}) was refused with ${refusalText(r)}${r.error.code === -32601 ? '' : '; expected -32601 (method not found)'} (the error did not carry the request's id); ${stillAnswers(ctx, run)}`, messageIds: mids(run) };
        if (!a && r) return { verdict: 'warn', message: `${method} (id ${id}) was refused with ${refusalText(r)}, but with no JSON-RPC error -32601 (method not found) a client cannot tell what went wrong; ${stillAnswers(ctx, run)}`, messageIds: mids(run) };
        if (!a) return { verdict: 'fail', message: `${method} (id ${id}) was never answered (the server answered the ${hb} request sent after it); a client would wait for ever`, messageIds: mids(run) };
        const err = errorOf(a);
        const via = r && r.answer === a ? ` (in an HTTP ${r.status} answer)` : '';
        if (a.kind === 'error' && err) {
          if (err.code === -32601) return { verdict: 'pass', message: `${method} answered with error -32601 ${brief(err.message, 100)}${via}`, messageIds: mids(run) };
          return { verdict: 'warn', message: `${method} answered with error ${describeError({ ...err })}${via}; expected -32601 (method not found)`, messageIds: mids(run) };
        }
        return { verdict: 'fail', message: `${method}, which no MCP server has, was answered with a success result: ${cut(a.raw, 160)}`, messageIds: mids(run) };
      },
    }),
    {
      id: 'robustness/unknown-notification',
      title: 'an unknown notification is ignored: no answer, and the server keeps answering',
      level: 'MUST',
      spec: 'basic#notifications',
      requirement: `A notification is never answered, not even one the server does not know; the server must not die or stop answering (once the ping — server/discover from 2026-07-28 — sent after it is answered, the harness watches ${ANSWER_GRACE_MS} ms for an answer; a server that dies meanwhile fails). Over Streamable HTTP a server that cannot accept a notification answers its POST with an HTTP error status (its body may carry a JSON-RPC error without id): in 2026-07-28 that passes; before, it is reported (http/accepted-202 judges the status). Over stdio (and with --start) the notification is sent when the session begins and the watch runs while the other cases do; a run whose server dies or goes silent meanwhile is repeated with the notification sent at this case's turn.`,
      // Sent before the first case (the window overlaps the other cases), judged at its turn.
      early: earlyUnknownNotification,
      earlyWindow(ctx) {
        const w = earlyWatches.get(ctx.session);
        if (!w || w.run.lost) return undefined; // nothing left open (a loss right after the notification: sawLoss)
        return w.run.watched ? { until: w.run.watched.until } : w.closed ? { until: ctx.session.now() } : {};
      },
      sawLoss(ctx) {
        const w = earlyWatches.get(ctx.session);
        if (!w) return false;
        const lost = w.run.probe.connectionLost;
        return !!w.run.lost || w.run.diedAfterMs !== undefined || (!w.closed && !!lost && !lost.othersSent);
      },
      async run(ctx) {
        const w = earlyWatches.get(ctx.session);
        const early = w ? await w.done : undefined;
        if (early && (early.lost || early.diedAfterMs !== undefined)) return gradeUnknownNotification(ctx, early);
        const skip = await notProbed(ctx);
        if (skip) return skip;
        if (early && !early.probe.unattributed.length) return gradeUnknownNotification(ctx, early);
        // Not sent early, or answers that matched nothing came while other cases were sending (they may be theirs):
        // the notification is sent now, alone, and watched as before.
        const run = await runProbe(ctx, [{ jsonrpc: '2.0', method: UNKNOWN_NOTIFICATION, params: {} }], { catchAll: true });
        const o = gradeUnknownNotification(ctx, run);
        if (!early) return o;
        const seen = early.probe.unattributed.map((m) => m.seq);
        return { ...o, details: { ...o.details, repeated: `the notification sent when the session began (message ${early.probe.sent[0]?.seq}) was followed by answers that matched nothing (messages ${seen.join(', ')}) while other cases were sending, which could be theirs: it was sent again, alone` } };
      },
    },
    probeCase({
      id: 'robustness/duplicate-id',
      title: 'two requests with the same id do not break the server',
      level: 'SHOULD',
      spec: 'basic#requests',
      requirement: 'A client must not reuse a request id; a server that gets one anyway may answer either way, but it keeps serving (dies or stops answering: fail).',
      async probe(ctx) {
        const id = ctx.session.newId();
        const msg = jsonrpc(id, ctx.session.heartbeatMethod);
        const run = await runProbe(ctx, [msg, msg], { id, expectAnswers: 2, expectInvalid: `reuses request id ${id} on purpose (robustness/duplicate-id)` });
        const hb = ctx.session.heartbeatMethod;
        const sent = `two ${hb} requests with the same id ${id}`;
        const lost = lostOutcome(run, sent);
        if (lost) return lost;
        const a = run.probe.answers;
        const kinds = a.map((m) => (m.kind === 'error' ? `error ${errorOf(m)?.code ?? '?'}` : 'a result'));
        const what = a.length === 0 ? 'answered neither' : a.length === 1 ? `answered once (${kinds[0]})` : `answered both (${kinds.join(', ')})`;
        const http = run.refusal ? `; over HTTP one was refused with ${refusalText(run.refusal)}` : '';
        return { verdict: 'pass', message: `${sent}: the server ${what}${http}; ${stillAnswers(ctx, run)}`, messageIds: mids(run), details: { answers: a.length } };
      },
    }),
    {
      id: 'robustness/request-before-initialize',
      title: 'a request before initialize, on a second connection (reported, not graded)',
      level: 'MAY',
      spec: 'basic/lifecycle#initialization',
      requirement: 'What a server does with a request that comes before initialize is not specified: reported as info (a server that dies of it: warn). The probe uses a second connection (over stdio a second server process), closed right after.',
      requires: { feature: 'initialize' },
      // Over stdio the second connection is a process of its own: it is started with the run's first case and works
      // while the other cases do (its start-up is most of its cost). Over HTTP it reaches the same server process,
      // so it is opened when the case's turn comes, as before: a server that dies of it must not take the other cases
      // with it.
      start(ctx) {
        if (ctx.openSession && ctx.transport.kind === 'stdio') void ctx.service(secondConnection);
      },
      // Over stdio the second server is another process: the suite's next cases need not wait for its start-up.
      offSession: (ctx) => ctx.transport.kind === 'stdio',
      async run(ctx) {
        if (!ctx.openSession) return { verdict: 'skip', message: 'this run cannot open a second connection to the server' };
        const r = await ctx.service(secondConnection);
        if ('error' in r) throw r.error;
        return r.outcome;
      },
    },
    probeCase({
      id: 'robustness/cancel-in-flight',
      title: 'a cancelled request is not answered, and the server keeps answering',
      level: 'SHOULD',
      spec: 'basic/utilities/cancellation',
      requirement: `After notifications/cancelled for a request in flight the server should not answer it, and keeps serving (2026-07-28 over Streamable HTTP sends no notifications/cancelled: the harness closes the request's response stream, which is the cancellation there). Needs a slow tool (found by name or description: long-running, slow, sleep, delay); without one a quick request is cancelled and only "still answers" is graded (an answer after cancellation: warn; dies or stops answering: fail).`,
      probe: cancelInFlight,
    }),
    probeCase({
      id: 'robustness/large-request',
      title: 'a 1 MiB request is answered',
      level: 'SHOULD',
      spec: 'basic/transports#stdio',
      requirement: 'A request of 1 MiB (a ping — server/discover from 2026-07-28 — whose params._meta carries padding) gets an answer like any other request: a result passes; a clear refusal (an error, or over HTTP a 4xx such as 413) is info, since neither MCP nor JSON-RPC sets a size limit and a server may keep one; no answer or a crash fails (every request is answered, and the server keeps serving). Where the unknown notification is sent when the session begins, this request follows it there (the server parses it while the other cases run); a run whose server dies or goes silent meanwhile is repeated with it sent at this case\'s turn.',
      // Sent right after the unknown notification's, inside its watch window (the wait for the answer to 1 MiB
      // overlaps the other cases instead of adding to the end of the run); graded at its turn.
      early: earlyLargeRequest,
      earlyWindow(ctx) {
        const e = earlyLarge.get(ctx.session);
        if (!e || coveredByNotification(ctx, e)) return undefined; // nothing left open, or the notification's window covers it
        return { until: e.until };
      },
      sawLoss(ctx) {
        const e = earlyLarge.get(ctx.session);
        return !!e && (!!e.run.lost || e.run.diedAfterMs !== undefined) && !coveredByNotification(ctx, e);
      },
      async probe(ctx) {
        const e = earlyLarge.get(ctx.session);
        return gradeLargeRequest(ctx, e ? e.run : await largeRequest(ctx));
      },
    }),
    {
      id: 'robustness/early-server-messages',
      title: 'before initialized, the server sends no requests other than ping',
      level: 'SHOULD',
      spec: 'basic/lifecycle#initialization',
      requirement: 'Until the client has sent notifications/initialized, the server should not send requests other than ping (warn), and notifications other than logging are reported (info). The harness answers every server request whenever it comes.',
      requires: { needs: 'log' },
      async run(ctx) {
        const seq = ctx.init.initializedSeq;
        if (seq === undefined) return { verdict: 'skip', message: 'notifications/initialized was never sent' };
        const early = ctx.session.log.filter((m) => m.direction === 'from-server' && m.seq < seq);
        const requests = early.filter((m) => m.kind === 'request' && m.method !== 'ping');
        const notes = early.filter((m) => m.kind === 'notification' && m.method !== 'notifications/message');
        if (requests.length) {
          return { verdict: 'warn', message: `${requests.length} request${requests.length === 1 ? '' : 's'} before initialized: ${[...new Set(requests.map((m) => m.method))].join(', ')} (the harness answered ${requests.length === 1 ? 'it' : 'them'})`, messageIds: requests.map((m) => m.seq) };
        }
        if (notes.length) return { verdict: 'info', message: `notifications before initialized: ${[...new Set(notes.map((m) => m.method))].join(', ')}`, messageIds: notes.map((m) => m.seq) };
        const all = ctx.session.log.filter((m) => m.direction === 'from-server' && m.kind === 'request');
        return { verdict: 'pass', message: `nothing but answers and logging before initialized${all.length ? `; ${all.length} server request${all.length === 1 ? '' : 's'} later in the session, each answered` : ''}` };
      },
    },
  ],
};

/** robustness/unknown-notification's verdict from its probe's run, with when the watch for an answer ran (details.watch). */
function gradeUnknownNotification(ctx: CaseContext, run: ProbeRun): Outcome {
  const o = unknownNotificationOutcome(ctx, run);
  return run.watched ? { ...o, details: { ...o.details, watch: run.watched } } : o;
}

function unknownNotificationOutcome(ctx: CaseContext, run: ProbeRun): Outcome {
  const method = UNKNOWN_NOTIFICATION;
  const lost = lostOutcome(run, 'an unknown notification');
  if (lost) return lost;
  if (run.diedAfterMs !== undefined) {
    return { verdict: 'fail', message: `the server died ${run.diedAfterMs} ms after an unknown notification (${method}), while the harness watched ${ANSWER_GRACE_MS} ms for an answer once the ${ctx.session.heartbeatMethod} request sent after it had been answered: ${serverGone(ctx).message}`, messageIds: mids(run) };
  }
  const alive = stillAnswers(ctx, run);
  const r = run.refusal;
  // The refusal of the notification's own POST is the transport's answer, not a JSON-RPC answer to it.
  const answers = run.probe.answers.filter((m) => !r || m !== r.answer);
  if (answers.length) return { verdict: 'fail', message: `the notification was answered: ${answers.slice(0, 3).map((m) => cut(m.raw, 160)).join(' | ')}`, messageIds: mids(run) };
  // 2026-07-28 is stateless: a notification (this one carries no version _meta) must not change how the next request
  // is served — server/discover, served at the start of the session, must still succeed, not merely be answered.
  // https://modelcontextprotocol.io/specification/2026-07-28/basic#statelessness
  if (ctx.features.requestMeta && run.ping?.error) {
    return { verdict: 'fail', message: `after ${method} (a notification without version _meta), ${ctx.session.heartbeatMethod} was answered with error ${describeError(run.ping.error)}, where it had succeeded before: 2026-07-28 is stateless, and no earlier message may change how a request is served (the server took the notification for a legacy opening?)`, messageIds: mids(run) };
  }
  if (r && r.status >= 500) return { verdict: 'warn', message: `${method} was answered with ${refusalText(r)}: a server error, where 202 (accepted) or a 4xx refusal was due; ${alive}`, messageIds: mids(run) };
  if (r && ctx.features.notificationRefusalByStatus) return { verdict: 'pass', message: `${method} was refused with ${refusalText(r)}: a server that cannot accept a notification answers an HTTP error status (2026-07-28 defines no client notifications over Streamable HTTP); no JSON-RPC answer; ${alive}`, messageIds: mids(run) };
  if (r) return { verdict: 'info', message: `${method} was refused with ${refusalText(r)} (no JSON-RPC answer; whether the status is right is judged by http/accepted-202); ${alive}`, messageIds: mids(run) };
  const post = run.probe.sent[0]?.http?.status;
  return { verdict: 'pass', message: `${method} got no answer${post !== undefined ? ` (its POST got HTTP ${post})` : ''}; ${alive}`, messageIds: mids(run) };
}

async function cancelInFlight(ctx: CaseContext): Promise<Outcome> {
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
    if (byClose) { const closed = byClose.closeRequestStream(id); return { t: s.now(), closed }; }
    const note = s.notify('notifications/cancelled', { requestId: id, reason: 'mcp-conform robustness probe: cancelled on purpose' });
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
        return { verdict: 'skip', message: `tools/call ${slow.name} (id ${id}) had no answer after ${IN_FLIGHT_MS} ms, but its POST had already ended (${post?.status !== undefined ? `HTTP ${post.status}` : post?.problem ?? 'no status'}): there was no response stream left to close`, messageIds: ids(...probe.sent) };
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
      if (a) return { verdict: 'warn', message: `tools/call ${slow.name} (id ${id}) was answered ${Math.round(a.t - c.t)} ms after ${byClose ? 'the harness closed its response stream' : 'notifications/cancelled'}: ${cut(a.raw, 120)}; a cancelled request should get no answer`, messageIds: m, details };
      if (byClose) return { verdict: 'pass', message: `tools/call ${slow.name} (id ${id}) was in flight for ${IN_FLIGHT_MS} ms, then cancelled by closing its response stream (2026-07-28 sends no notifications/cancelled over HTTP); ${stillAnswers(ctx, run)} (whether it stopped the work cannot be seen from the client)`, messageIds: m, details };
      return { verdict: 'pass', message: `tools/call ${slow.name} (id ${id}) was in flight for ${IN_FLIGHT_MS} ms, then cancelled with notifications/cancelled: no answer in the ${Math.min(ctx.timeoutMs, AFTER_CANCEL_MS)} ms after, and ${stillAnswers(ctx, run)}`, messageIds: m, details };
    }
    // It answered before it could be cancelled: cancel it anyway (a late cancellation must be ignored) and go on.
    const c = cancel();
    const run: ProbeRun = { probe };
    try { run.ping = await s.heartbeat(); } catch (e) { run.lost = e as Error; }
    const lost = lostOutcome(run, `cancelling tools/call ${slow.name} after it was answered`);
    if (lost) return lost;
    const late = byClose ? 'its response had already ended, so there was no stream left to close' : 'a notifications/cancelled sent after the answer was ignored';
    return { verdict: 'pass', message: `${slow.name} looked slow but answered within ${IN_FLIGHT_MS} ms, before it could be cancelled; ${late}, and ${stillAnswers(ctx, run)} (not graded: whether it stops work in flight)`, messageIds: withNote(mids(run), c) };
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
  return { verdict: 'pass', message: `no slow tool to cancel${ctx.capabilities.tools ? ' (none is named or described as long-running, slow, sleep or delay, or it may not be called)' : ''}: ${method} (id ${id}) was cancelled by ${how} right after it was sent and ${answered}; ${stillAnswers(ctx, run)} (only that is graded)`, messageIds: withNote(mids(run), c) };
}

/**
 * robustness/request-before-initialize's probe on its second connection, once per run (a run service, so that the
 * case's early start and its run share it). Never rejects: an error is handed to the case, which throws it.
 */
const secondConnection: Service<{ outcome: Outcome } | { error: unknown }> = {
  id: 'robustness-before-initialize',
  produce: (ctx) => beforeInitialize(ctx).then((outcome) => ({ outcome }), (error: unknown) => ({ error })),
};

async function beforeInitialize(ctx: CaseContext): Promise<Outcome> {
  let second: Awaited<ReturnType<NonNullable<CaseContext['openSession']>>>;
  try {
    second = await ctx.openSession!();
  } catch (e) {
    return { verdict: 'skip', message: `a second connection could not be opened: ${(e as Error).message}` };
  }
  try {
    const s = second.session;
    const caps = ctx.capabilities;
    const method = caps.tools ? 'tools/list' : caps.resources ? 'resources/list' : caps.prompts ? 'prompts/list' : 'ping';
    const id = s.newId();
    // catchAll: an error without the probe's id (id null, as HTTP refusals carry) is the answer to it as well.
    const probe = s.probe([jsonrpc(id, method)], { id, catchAll: true });
    let initFailure: string | undefined;
    try {
      await s.request('initialize', { protocolVersion: ctx.version, capabilities: {}, clientInfo: { name: 'mcp-conform', version: VERSION } });
      await probe.waitForAnswers(ANSWER_GRACE_MS);
    } catch (e) {
      initFailure = (e as Error).message;
    }
    const refusal = await httpRefusal(second.transport, probe.sent, probe.answers);
    probe.close();
    const details = { secondConnection: s.log.map((m) => `${m.direction === 'to-server' ? '→' : '←'}${m.http?.status !== undefined && m.direction === 'to-server' ? ` [HTTP ${m.http.status}]` : ''} ${cut(m.raw, 300)}`) };
    const a = probe.answers[0];
    const where = `on a second connection${second.transport.processInfo()?.pid ? ` (server pid ${second.transport.processInfo()!.pid})` : ''}`;
    if (a) {
      const err = errorOf(a);
      const http = refusal && refusal.answer === a ? ` in an HTTP ${refusal.status}${refusal.statusText ? ` ${refusal.statusText}` : ''} answer` : '';
      const what = a.kind === 'error' && err ? `refused with error ${describeError({ ...err })}${http}` : `served: ${cut(a.raw, 120)}`;
      return { verdict: 'info', message: `${method} sent before initialize ${where} was ${what}`, details };
    }
    if (refusal) return { verdict: 'info', message: `${method} sent before initialize ${where} was refused with ${refusalText(refusal)}`, details };
    if (s.closed) {
      return { verdict: 'warn', message: `${method} sent before initialize ${where}: the server died (${s.transport.closeInfo?.reason ?? 'connection closed'})`, details };
    }
    if (initFailure) return { verdict: 'info', message: `${method} sent before initialize ${where} got no answer, and neither did the initialize sent after it: ${initFailure}`, details };
    return { verdict: 'info', message: `${method} sent before initialize ${where} got no answer (the initialize sent after it was answered)`, details };
  } finally {
    // Ended now, not waited for: the outcome is known, and the run waits for every connection it opened at its end
    // (ctx.openSession's handles), so the second server's exit overlaps the cases that follow.
    void second.close();
  }
}
