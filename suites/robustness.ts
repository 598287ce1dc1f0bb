/**
 * Robustness: what the server makes of messages it should refuse or tolerate — invalid JSON, a JSON value that is no
 * JSON-RPC message, a wrong "jsonrpc", an unknown method, an unknown notification, a reused request id, a request
 * before initialize, a cancelled request, a very large request — each probe followed by a ping that shows the
 * server still answers. Graded per the policy table of the README (from docs/protocol-notes.md).
 * https://modelcontextprotocol.io/specification/2025-11-25/basic
 */
import { generateArguments } from '../core/args/index.js';
import type { LoggedMessage } from '../core/log.js';
import { SessionError, type Probe, type ProbeOptions, type Reply, type Session } from '../core/session.js';
import type { CaseContext, CaseDef, Outcome, Suite } from '../core/suite.js';
import type { Tool } from '../core/tools.js';
import { VERSION } from '../core/version.js';
import { brief, describeError, ids, isObject } from './helpers.js';

/** How long to wait, once the ping sent after a probe is answered, for an answer to the probe itself. */
const ANSWER_GRACE_MS = 150;
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
}

/**
 * The ping that shows the server answers at all, once per session: without it no probe can be graded.
 * An error answer counts as an answer.
 */
const baselines = new WeakMap<Session, Promise<string | undefined>>();

function baseline(ctx: CaseContext): Promise<string | undefined> {
  let b = baselines.get(ctx.session);
  if (!b) {
    b = ctx.session.heartbeat().then(() => undefined, (e: Error) => e.message);
    baselines.set(ctx.session, b);
  }
  return b;
}

/** Send the probe, then a ping; wait briefly for answers to the probe; close it. */
async function runProbe(ctx: CaseContext, values: unknown[], opts: ProbeOptions): Promise<ProbeRun> {
  const probe = ctx.session.probe(values, opts);
  const run: ProbeRun = { probe };
  try {
    run.ping = await ctx.session.heartbeat(); // ping; server/discover from 2026-07-28 (ping was removed)
    await probe.waitForAnswers(ANSWER_GRACE_MS, opts.expectAnswers ?? 1);
  } catch (e) {
    run.lost = e as Error;
  }
  probe.close();
  return run;
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
 * an error answer with id null (or absent, or the message's own id when it had a readable one) passes; silence is a
 * warn (what the official SDKs do); an answer with a made-up id or a success result is a warn.
 */
function gradeUnreadable(run: ProbeRun, what: string, jsonRpcCode: number, ownId?: string | number): Outcome {
  const lost = lostOutcome(run, what);
  if (lost) return lost;
  const answers = run.probe.answers;
  if (!answers.length) {
    const idWords = ownId !== undefined ? `with the message's id ${JSON.stringify(ownId)} (or null)` : 'with id null';
    return { verdict: 'warn', level: 'SHOULD', message: `no answer to ${what}; JSON-RPC 2.0 asks for error ${jsonRpcCode} ${idWords} (the official SDKs stay silent as well); the server still answers ping`, messageIds: mids(run) };
  }
  const first = answers[0]!;
  const more = answers.length > 1 ? ` (and ${answers.length - 1} more answer${answers.length > 2 ? 's' : ''})` : '';
  const id = isObject(first.json) ? first.json.id : undefined;
  const idOk = id === null || id === undefined || (ownId !== undefined && id === ownId);
  const err = errorOf(first);
  if (first.kind === 'error' && err) {
    const code = err.code === jsonRpcCode ? `${jsonRpcCode}` : `${Number.isNaN(err.code) ? '(no code)' : err.code} (JSON-RPC's code for this is ${jsonRpcCode})`;
    if (idOk) return { verdict: 'pass', message: `${what} was answered with error ${code} ${brief(err.message, 100)}, id ${idText(first)}${more}; the server still answers ping`, messageIds: mids(run) };
    return { verdict: 'warn', message: `${what} was answered with an error, but with id ${idText(first)}, which it did not carry (JSON-RPC wants id null)${more}`, messageIds: mids(run) };
  }
  return { verdict: 'warn', message: `${what} was answered with ${first.kind === 'response' ? 'a success result' : 'something that is no error'}: ${cut(first.raw, 160)}${more}; expected error ${jsonRpcCode} with id null, or silence`, messageIds: mids(run) };
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
      const broken = await baseline(ctx);
      if (broken !== undefined) return { verdict: 'skip', message: `the probes need a server that answers ping, and this one did not: ${broken}` };
      // A probe can only be blamed for what happens after it: not when the server had already stopped answering.
      if (ctx.session.isStalled) return { verdict: 'skip', message: 'not run: the server had already stopped answering (an earlier request timed out, and nothing has come from it since)' };
      return probe(ctx);
    },
  };
}

const GRADING = 'graded per the policy table (README, "Verdicts")';

export const robustness: Suite = {
  id: 'robustness',
  title: 'Robustness',
  description: 'malformed and unexpected input; each probe is followed by a ping to show the server still answers',
  cases: [
    probeCase({
      id: 'robustness/invalid-json',
      title: 'a line that is not JSON is refused, and the server keeps answering',
      level: 'MUST',
      spec: 'basic/transports#stdio',
      requirement: `A line that is not JSON is answered with a JSON-RPC parse error (-32700, id null) or ignored; the server must not die or stop answering (error: pass; silence: warn; dies or stops answering: fail; ${GRADING}).`,
      async probe(ctx) {
        const text = '{"jsonrpc": "2.0", "method": "tools/list", "params": {"cursor": ';
        const run = await runProbe(ctx, [text], { rawText: true, catchAll: true, expectInvalid: 'not JSON, on purpose (robustness/invalid-json)' });
        return gradeUnreadable(run, 'a line of invalid JSON', -32700);
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
        return gradeUnreadable(run, 'a JSON object that is no JSON-RPC message', -32600);
      },
    }),
    probeCase({
      id: 'robustness/wrong-jsonrpc',
      title: 'a request with "jsonrpc": "1.0" is refused, and the server keeps answering',
      level: 'MUST',
      spec: 'basic#messages',
      requirement: `Every JSON-RPC 2.0 message carries "jsonrpc": "2.0". A ping with "jsonrpc": "1.0" is answered with Invalid Request (-32600) or ignored (silence: warn; treated as a valid ping: warn; dies or stops answering: fail).`,
      async probe(ctx) {
        const id = ctx.session.newId();
        const run = await runProbe(ctx, [{ jsonrpc: '1.0', id, method: ctx.session.heartbeatMethod }], { id, catchAll: true, expectInvalid: '"jsonrpc": "1.0" on purpose (robustness/wrong-jsonrpc)' });
        return gradeUnreadable(run, 'a ping with "jsonrpc": "1.0"', -32600, id);
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
        if (!a) return { verdict: 'fail', message: `${method} (id ${id}) was never answered (the server answered a ping sent after it); a client would wait for ever`, messageIds: mids(run) };
        const err = errorOf(a);
        if (a.kind === 'error' && err) {
          if (err.code === -32601) return { verdict: 'pass', message: `${method} answered with error -32601 ${brief(err.message, 100)}`, messageIds: mids(run) };
          return { verdict: 'warn', message: `${method} answered with error ${describeError({ ...err })}; expected -32601 (method not found)`, messageIds: mids(run) };
        }
        return { verdict: 'fail', message: `${method}, which no MCP server has, was answered with a success result: ${cut(a.raw, 160)}`, messageIds: mids(run) };
      },
    }),
    probeCase({
      id: 'robustness/unknown-notification',
      title: 'an unknown notification is ignored: no answer, and the server keeps answering',
      level: 'MUST',
      spec: 'basic#notifications',
      requirement: 'A notification is never answered, not even one the server does not know; the server must not die or stop answering.',
      async probe(ctx) {
        const run = await runProbe(ctx, [{ jsonrpc: '2.0', method: 'notifications/mcp-conform/unknown', params: {} }], { catchAll: true });
        const lost = lostOutcome(run, 'an unknown notification');
        if (lost) return lost;
        const answers = run.probe.answers;
        if (answers.length) return { verdict: 'fail', message: `the notification was answered: ${answers.slice(0, 3).map((m) => cut(m.raw, 160)).join(' | ')}`, messageIds: mids(run) };
        return { verdict: 'pass', message: 'notifications/mcp-conform/unknown got no answer; the server still answers ping', messageIds: mids(run) };
      },
    }),
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
        const lost = lostOutcome(run, `two pings with the same id ${id}`);
        if (lost) return lost;
        const a = run.probe.answers;
        const kinds = a.map((m) => (m.kind === 'error' ? `error ${errorOf(m)?.code ?? '?'}` : 'a result'));
        const what = a.length === 0 ? 'answered neither' : a.length === 1 ? `answered once (${kinds[0]})` : `answered both (${kinds.join(', ')})`;
        return { verdict: 'pass', message: `two pings with the same id ${id}: the server ${what}, and still answers ping`, messageIds: mids(run), details: { answers: a.length } };
      },
    }),
    {
      id: 'robustness/request-before-initialize',
      title: 'a request before initialize, on a second connection (reported, not graded)',
      level: 'MAY',
      spec: 'basic/lifecycle#initialization',
      requirement: 'What a server does with a request that comes before initialize is not specified: reported as info (a server that dies of it: warn). The probe uses a second connection (over stdio a second server process), closed right after.',
      async run(ctx) {
        if (!ctx.openSession) return { verdict: 'skip', message: 'this run cannot open a second connection to the server' };
        if (ctx.version >= '2026-07-28') return { verdict: 'skip', message: `protocol ${ctx.version} has no initialize` };
        return beforeInitialize(ctx);
      },
    },
    probeCase({
      id: 'robustness/cancel-in-flight',
      title: 'a cancelled request is not answered, and the server keeps answering',
      level: 'SHOULD',
      spec: 'basic/utilities/cancellation',
      requirement: `After notifications/cancelled for a request in flight the server should not answer it, and keeps serving. Needs a slow tool (found by name or description: long-running, slow, sleep, delay); without one a quick request is cancelled and only "still answers" is graded (an answer after cancellation: warn; dies or stops answering: fail).`,
      probe: cancelInFlight,
    }),
    probeCase({
      id: 'robustness/large-request',
      title: 'a 1 MiB request is answered',
      level: 'SHOULD',
      spec: 'basic/transports#stdio',
      requirement: 'A request of 1 MiB (a ping whose params._meta carries padding) is answered like any other: a result passes, an error (a size limit) is a warn, no answer or a crash fails.',
      async probe(ctx) {
        const id = ctx.session.newId();
        const params = { _meta: { 'mcp-conform/padding': 'x'.repeat(LARGE_BYTES) } };
        const run = await runProbe(ctx, [jsonrpc(id, ctx.session.heartbeatMethod, params)], { id });
        const size = run.probe.sent[0]?.raw.length ?? 0;
        const lost = lostOutcome(run, `a request of ${size} bytes`);
        if (lost) return lost;
        const a = run.probe.answers[0];
        if (!a) return { verdict: 'fail', message: `a ping of ${size} bytes (id ${id}) was never answered, though a small ping after it was`, messageIds: mids(run) };
        const err = errorOf(a);
        if (a.kind === 'error' && err) return { verdict: 'warn', message: `a ping of ${size} bytes was refused with error ${describeError({ ...err })}`, messageIds: mids(run) };
        return { verdict: 'pass', message: `a ping of ${size} bytes was answered in ${Math.round(a.t - run.probe.sent[0]!.t)} ms`, messageIds: mids(run) };
      },
    }),
    {
      id: 'robustness/early-server-messages',
      title: 'before initialized, the server sends no requests other than ping',
      level: 'SHOULD',
      spec: 'basic/lifecycle#initialization',
      requirement: 'Until the client has sent notifications/initialized, the server should not send requests other than ping (warn), and notifications other than logging are reported (info). The harness answers every server request whenever it comes.',
      phase: 'after-shutdown',
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

async function cancelInFlight(ctx: CaseContext): Promise<Outcome> {
  const s = ctx.session;
  let slow: Tool | undefined;
  if (ctx.capabilities.tools) {
    const plan = await ctx.callPlan();
    slow = plan.call.find((t) => SLOW_TOOL.test(`${t.name} ${t.title ?? ''} ${t.description ?? ''}`));
  }
  const id = s.newId();
  const cancel = () => s.notify('notifications/cancelled', { requestId: id, reason: 'mcp-conform robustness probe: cancelled on purpose' });
  if (slow) {
    const args = generateArguments(slow.inputSchema).value;
    const probe = s.probe([jsonrpc(id, 'tools/call', { name: slow.name, arguments: args })], { id });
    const early = await probe.waitForAnswers(IN_FLIGHT_MS);
    if (!early && !s.closed) {
      const note = cancel();
      const run: ProbeRun = { probe };
      try {
        run.ping = await s.heartbeat();
        await probe.waitForAnswers(Math.min(ctx.timeoutMs, AFTER_CANCEL_MS));
      } catch (e) {
        run.lost = e as Error;
      }
      const lost = lostOutcome(run, `cancelling tools/call ${slow.name}`);
      if (lost) return lost;
      const m = [...mids(run), note.seq];
      const a = probe.answers[0];
      if (a) return { verdict: 'warn', message: `tools/call ${slow.name} (id ${id}) was answered ${Math.round(a.t - note.t)} ms after notifications/cancelled: ${cut(a.raw, 120)}; a cancelled request should get no answer`, messageIds: m, details: { tool: slow.name, arguments: args } };
      return { verdict: 'pass', message: `tools/call ${slow.name} (id ${id}) was in flight for ${IN_FLIGHT_MS} ms, then cancelled: no answer in the ${Math.min(ctx.timeoutMs, AFTER_CANCEL_MS)} ms after, and the server still answers ping`, messageIds: m, details: { tool: slow.name, arguments: args } };
    }
    // It answered before it could be cancelled: cancel it anyway (a late cancellation must be ignored) and go on.
    const note = cancel();
    const run: ProbeRun = { probe };
    try { run.ping = await s.heartbeat(); } catch (e) { run.lost = e as Error; }
    const lost = lostOutcome(run, `cancelling tools/call ${slow.name} after it was answered`);
    if (lost) return lost;
    return { verdict: 'pass', message: `${slow.name} looked slow but answered within ${IN_FLIGHT_MS} ms, before it could be cancelled; a cancellation sent after the answer was ignored and the server still answers ping (not graded: whether it stops work in flight)`, messageIds: [...mids(run), note.seq] };
  }
  // No slow tool: cancel a quick request right after sending it; only "still answers" can be graded.
  const method = ctx.capabilities.tools ? 'tools/list' : s.heartbeatMethod;
  const probe = s.probe([jsonrpc(id, method)], { id });
  const note = cancel();
  const run: ProbeRun = { probe };
  try {
    run.ping = await s.heartbeat();
    await probe.waitForAnswers(ANSWER_GRACE_MS);
  } catch (e) {
    run.lost = e as Error;
  }
  const lost = lostOutcome(run, `cancelling ${method}`);
  if (lost) return lost;
  const answered = probe.answers.length ? 'answered anyway (it was quick, which is allowed)' : 'not answered';
  return { verdict: 'pass', message: `no slow tool to cancel${ctx.capabilities.tools ? ' (none is named or described as long-running, slow, sleep or delay, or it may not be called)' : ''}: ${method} (id ${id}) was cancelled right after it was sent and ${answered}; the server still answers ping (only that is graded)`, messageIds: [...mids(run), note.seq] };
}

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
    const probe = s.probe([jsonrpc(id, method)], { id });
    let initFailure: string | undefined;
    try {
      await s.request('initialize', { protocolVersion: ctx.version, capabilities: {}, clientInfo: { name: 'mcp-conform', version: VERSION } });
      await probe.waitForAnswers(ANSWER_GRACE_MS);
    } catch (e) {
      initFailure = (e as Error).message;
    }
    const details = { secondConnection: s.log.map((m) => `${m.direction === 'to-server' ? '→' : '←'} ${cut(m.raw, 300)}`) };
    const a = probe.answers[0];
    const where = `on a second connection${second.transport.processInfo()?.pid ? ` (server pid ${second.transport.processInfo()!.pid})` : ''}`;
    if (a) {
      const err = errorOf(a);
      const what = a.kind === 'error' && err ? `refused with error ${describeError({ ...err })}` : `served: ${cut(a.raw, 120)}`;
      return { verdict: 'info', message: `${method} sent before initialize ${where} was ${what}`, details };
    }
    if (s.closed) {
      return { verdict: 'warn', message: `${method} sent before initialize ${where}: the server died (${s.transport.closeInfo?.reason ?? 'connection closed'})`, details };
    }
    if (initFailure) return { verdict: 'info', message: `${method} sent before initialize ${where} got no answer, and neither did the initialize sent after it: ${initFailure}`, details };
    return { verdict: 'info', message: `${method} sent before initialize ${where} got no answer (the initialize sent after it was answered)`, details };
  } finally {
    await second.close();
  }
}
