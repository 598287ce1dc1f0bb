import type { Suite } from '../core/suite.js';
import { brief, describeError } from './helpers.js';
import { cut } from '../core/text.js';
import {
  ANSWER_GRACE_MS,
  GRADING,
  UNKNOWN_NOTIFICATION,
  errorOf,
  gradeUnreadable,
  jsonrpc,
  lostOutcome,
  mids,
  notProbed,
  probeCase,
  refusalText,
  runProbe,
  stillAnswers,
} from './robustness/probe-run.js';
import {
  coveredByNotification,
  earlyLarge,
  earlyLargeRequest,
  earlyUnknownNotification,
  earlyWatches,
  gradeLargeRequest,
  gradeUnknownNotification,
  largeRequest,
} from './robustness/early.js';
import { cancelInFlight } from './robustness/cancel.js';
import { secondConnection } from './robustness/before-initialize.js';

export const robustness: Suite = {
  id: 'robustness',
  title: 'Robustness',
  description:
    'malformed and unexpected input; each probe is followed by a ping (server/discover from 2026-07-28) to show the server still answers',
  cases: [
    probeCase({
      id: 'robustness/invalid-json',
      title: 'a line that is not JSON is refused, and the server keeps answering',
      level: 'MUST',
      spec: 'basic/transports#stdio',
      requirement: `A line (over HTTP: a POST body) that is not JSON is answered with a JSON-RPC parse error (-32700, id null) or ignored; the server must not die or stop answering (error, or over HTTP a 4xx refusal: pass; silence: warn; dies or stops answering: fail; ${GRADING}).`,
      async probe(ctx) {
        const text = '{"jsonrpc": "2.0", "method": "tools/list", "params": {"cursor": ';
        const run = await runProbe(ctx, [text], {
          rawText: true,
          catchAll: true,
          expectInvalid: 'not JSON, on purpose (robustness/invalid-json)',
        });
        return gradeUnreadable(
          ctx,
          run,
          ctx.transport.kind === 'stdio' ? 'a line of invalid JSON' : 'a POST body of invalid JSON',
          -32700,
        );
      },
    }),
    probeCase({
      id: 'robustness/not-a-message',
      title: 'a JSON value that is no JSON-RPC message is refused, and the server keeps answering',
      level: 'MUST',
      spec: 'basic#messages',
      requirement: `A JSON object that is neither a request, a notification nor a response is answered with Invalid Request (-32600, id null) or ignored; the server must not die or stop answering (${GRADING}).`,
      async probe(ctx) {
        const run = await runProbe(ctx, [{ 'mcp-conform': 'this object is no JSON-RPC message' }], {
          catchAll: true,
          expectInvalid: 'a JSON object that is no JSON-RPC message, on purpose (robustness/not-a-message)',
        });
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
        const run = await runProbe(ctx, [{ jsonrpc: '1.0', id, method: ctx.session.heartbeatMethod }], {
          id,
          catchAll: true,
          expectInvalid: '"jsonrpc": "1.0" on purpose (robustness/wrong-jsonrpc)',
        });
        return gradeUnreadable(ctx, run, `a ${ctx.session.heartbeatMethod} request with "jsonrpc": "1.0"`, -32600, id);
      },
    }),
    probeCase({
      id: 'robustness/unknown-method',
      title: 'an unknown method is answered with error -32601',
      level: 'MUST',
      spec: 'basic#responses',
      requirement:
        'A request for a method the server does not have is answered with JSON-RPC error -32601 (another error code: warn; a success result, no answer, or a crash: fail).',
      async probe(ctx) {
        const id = ctx.session.newId();
        const method = 'mcp-conform/no-such-method';
        const run = await runProbe(ctx, [jsonrpc(id, method, {})], { id });
        const lost = lostOutcome(run, `a request for the unknown method ${method}`);
        if (lost) return lost;
        const a = run.probe.answers[0];
        const r = run.refusal;
        const hb = ctx.session.heartbeatMethod;
        if (!a && r && r.error)
          return {
            verdict: r.error.code === -32601 ? 'pass' : 'warn',
            message: `${method} (id ${id}) was refused with ${refusalText(r)}${r.error.code === -32601 ? '' : '; expected -32601 (method not found)'} (the error did not carry the request's id); ${stillAnswers(ctx, run)}`,
            messageIds: mids(run),
          };
        if (!a && r)
          return {
            verdict: 'warn',
            message: `${method} (id ${id}) was refused with ${refusalText(r)}, but with no JSON-RPC error -32601 (method not found) a client cannot tell what went wrong; ${stillAnswers(ctx, run)}`,
            messageIds: mids(run),
          };
        if (!a)
          return {
            verdict: 'fail',
            message: `${method} (id ${id}) was never answered (the server answered the ${hb} request sent after it); a client would wait for ever`,
            messageIds: mids(run),
          };
        const err = errorOf(a);
        const via = r && r.answer === a ? ` (in an HTTP ${r.status} answer)` : '';
        if (a.kind === 'error' && err) {
          if (err.code === -32601)
            return {
              verdict: 'pass',
              message: `${method} answered with error -32601 ${brief(err.message, 100)}${via}`,
              messageIds: mids(run),
            };
          return {
            verdict: 'warn',
            message: `${method} answered with error ${describeError({ ...err })}${via}; expected -32601 (method not found)`,
            messageIds: mids(run),
          };
        }
        return {
          verdict: 'fail',
          message: `${method}, which no MCP server has, was answered with a success result: ${cut(a.raw, 160)}`,
          messageIds: mids(run),
        };
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
        const run = await runProbe(ctx, [{ jsonrpc: '2.0', method: UNKNOWN_NOTIFICATION, params: {} }], {
          catchAll: true,
        });
        const o = gradeUnknownNotification(ctx, run);
        if (!early) return o;
        const seen = early.probe.unattributed.map((m) => m.seq);
        return {
          ...o,
          details: {
            ...o.details,
            repeated: `the notification sent when the session began (message ${early.probe.sent[0]?.seq}) was followed by answers that matched nothing (messages ${seen.join(', ')}) while other cases were sending, which could be theirs: it was sent again, alone`,
          },
        };
      },
    },
    probeCase({
      id: 'robustness/duplicate-id',
      title: 'two requests with the same id do not break the server',
      level: 'SHOULD',
      spec: 'basic#requests',
      requirement:
        'A client must not reuse a request id; a server that gets one anyway may answer either way, but it keeps serving (dies or stops answering: fail).',
      async probe(ctx) {
        const id = ctx.session.newId();
        const msg = jsonrpc(id, ctx.session.heartbeatMethod);
        const run = await runProbe(ctx, [msg, msg], {
          id,
          expectAnswers: 2,
          expectInvalid: `reuses request id ${id} on purpose (robustness/duplicate-id)`,
        });
        const hb = ctx.session.heartbeatMethod;
        const sent = `two ${hb} requests with the same id ${id}`;
        const lost = lostOutcome(run, sent);
        if (lost) return lost;
        const a = run.probe.answers;
        const kinds = a.map((m) => (m.kind === 'error' ? `error ${errorOf(m)?.code ?? '?'}` : 'a result'));
        const what =
          a.length === 0
            ? 'answered neither'
            : a.length === 1
              ? `answered once (${kinds[0]})`
              : `answered both (${kinds.join(', ')})`;
        const http = run.refusal ? `; over HTTP one was refused with ${refusalText(run.refusal)}` : '';
        return {
          verdict: 'pass',
          message: `${sent}: the server ${what}${http}; ${stillAnswers(ctx, run)}`,
          messageIds: mids(run),
          details: { answers: a.length },
        };
      },
    }),
    {
      id: 'robustness/request-before-initialize',
      title: 'a request before initialize, on a second connection (reported, not graded)',
      level: 'MAY',
      spec: 'basic/lifecycle#initialization',
      requirement:
        'What a server does with a request that comes before initialize is not specified: reported as info (a server that dies of it: warn). The probe uses a second connection (over stdio a second server process), closed right after.',
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
        if (!ctx.openSession)
          return { verdict: 'skip', message: 'this run cannot open a second connection to the server' };
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
      requirement:
        "A request of 1 MiB (a ping — server/discover from 2026-07-28 — whose params._meta carries padding) gets an answer like any other request: a result passes; a clear refusal (an error, or over HTTP a 4xx such as 413) is info, since neither MCP nor JSON-RPC sets a size limit and a server may keep one; no answer or a crash fails (every request is answered, and the server keeps serving). Where the unknown notification is sent when the session begins, this request follows it there (the server parses it while the other cases run); a run whose server dies or goes silent meanwhile is repeated with it sent at this case's turn.",
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
      requirement:
        'Until the client has sent notifications/initialized, the server should not send requests other than ping (warn), and notifications other than logging are reported (info). The harness answers every server request whenever it comes.',
      requires: { needs: 'log' },
      async run(ctx) {
        const seq = ctx.init.initializedSeq;
        if (seq === undefined) return { verdict: 'skip', message: 'notifications/initialized was never sent' };
        const early = ctx.session.log.filter((m) => m.direction === 'from-server' && m.seq < seq);
        const requests = early.filter((m) => m.kind === 'request' && m.method !== 'ping');
        const notes = early.filter((m) => m.kind === 'notification' && m.method !== 'notifications/message');
        if (requests.length) {
          return {
            verdict: 'warn',
            message: `${requests.length} request${requests.length === 1 ? '' : 's'} before initialized: ${[...new Set(requests.map((m) => m.method))].join(', ')} (the harness answered ${requests.length === 1 ? 'it' : 'them'})`,
            messageIds: requests.map((m) => m.seq),
          };
        }
        if (notes.length)
          return {
            verdict: 'info',
            message: `notifications before initialized: ${[...new Set(notes.map((m) => m.method))].join(', ')}`,
            messageIds: notes.map((m) => m.seq),
          };
        const all = ctx.session.log.filter((m) => m.direction === 'from-server' && m.kind === 'request');
        return {
          verdict: 'pass',
          message: `nothing but answers and logging before initialized${all.length ? `; ${all.length} server request${all.length === 1 ? '' : 's'} later in the session, each answered` : ''}`,
        };
      },
    },
  ],
};
