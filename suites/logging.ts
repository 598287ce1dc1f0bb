/**
 * Logging: logging/setLevel answered for every level, and no message below the level set afterwards (SHOULD).
 * https://modelcontextprotocol.io/specification/2025-11-25/server/utilities/logging
 */
import type { Suite } from '../core/suite.js';
import { describeError, isObject, unanswered } from './helpers.js';

/** RFC 5424 severities as MCP names them, least severe first. */
export const LOG_LEVELS = ['debug', 'info', 'notice', 'warning', 'error', 'critical', 'alert', 'emergency'] as const;
/** The level the harness leaves the server at (messages below it are not wanted from then on). */
export const FINAL_LEVEL = 'warning';

export const logging: Suite = {
  id: 'logging',
  title: 'Logging',
  description: 'logging/setLevel and the levels of notifications/message',
  cases: [
    {
      id: 'logging/set-level',
      title: 'logging/setLevel is answered with an empty result for every level',
      level: 'MUST',
      spec: 'server/utilities/logging#setting-log-level',
      requirement: `A server that declares logging answers logging/setLevel with an empty result for each of the eight levels (${LOG_LEVELS.join(', ')}); the harness sets them in turn, leaves the level at "${FINAL_LEVEL}" and sends a ping.`,
      requires: { capability: 'logging', feature: 'setLevel' },
      async run(ctx) {
        const ids: number[] = [];
        const odd: string[] = [];
        for (const level of [...LOG_LEVELS, FINAL_LEVEL]) {
          let reply;
          try {
            reply = await ctx.session.request('logging/setLevel', { level });
          } catch (e) {
            const u = unanswered(e as Error);
            return { ...u, messageIds: [...ids, ...(u.messageIds ?? [])] };
          }
          ids.push(reply.request.seq, reply.response.seq);
          if (reply.error)
            return {
              verdict: 'fail',
              messageIds: ids,
              message: `logging/setLevel "${level}" answered with error ${describeError(reply.error)} although the server declared logging`,
            };
          const keys = Object.keys(reply.result ?? {}).filter((k) => k !== '_meta' && k !== 'resultType');
          if (keys.length) odd.push(`"${level}" → members ${keys.join(', ')}`);
        }
        // One more request, so that a message the server sends while it handles requests shows up (logging/below-level).
        try {
          const settle = await ctx.session.request('ping');
          ids.push(settle.request.seq, settle.response.seq);
        } catch {
          /* judged by lifecycle/ping; nothing to say here */
        }
        // The spec's answer is an empty result; extra members break nothing a client relies on: noted, not graded.
        if (odd.length)
          return {
            verdict: 'info',
            messageIds: ids,
            message: `logging/setLevel answered every level, with results that are not empty: ${odd.slice(0, 3).join('; ')}`,
          };
        return {
          verdict: 'pass',
          messageIds: ids,
          message: `logging/setLevel answered {} for all ${LOG_LEVELS.length} levels (left at "${FINAL_LEVEL}")`,
        };
      },
    },
    {
      id: 'logging/below-level',
      title: 'no log message below the level set',
      level: 'SHOULD',
      spec: 'server/utilities/logging#log-levels',
      requirement: `After logging/setLevel "${FINAL_LEVEL}" is answered, the server sends notifications/message only at that level or more severe.`,
      requires: { capability: 'logging', feature: 'setLevel', needs: 'log' },
      async run(ctx) {
        const log = ctx.session.log;
        const set = log.filter(
          (m) => m.direction === 'to-server' && m.kind === 'request' && m.method === 'logging/setLevel',
        );
        const last = set.at(-1);
        const params =
          isObject(last?.json) && isObject((last!.json as Record<string, unknown>).params)
            ? ((last!.json as Record<string, unknown>).params as Record<string, unknown>)
            : undefined;
        if (!last || params?.level !== FINAL_LEVEL)
          return {
            verdict: 'skip',
            message: `logging/setLevel "${FINAL_LEVEL}" was never sent (logging/set-level did not run or did not finish)`,
          };
        const answer = log.find((m) => m.direction === 'from-server' && m.inReplyTo === last.seq);
        if (answer?.kind !== 'response')
          return { verdict: 'skip', message: `logging/setLevel "${FINAL_LEVEL}" got no result` };
        const floor = LOG_LEVELS.indexOf(FINAL_LEVEL);
        const after = log.filter(
          (m) => m.seq > answer.seq && m.direction === 'from-server' && m.method === 'notifications/message',
        );
        const below = after.filter((m) => {
          const lv = (m.json as { params?: { level?: unknown } }).params?.level;
          const i = LOG_LEVELS.indexOf(lv as (typeof LOG_LEVELS)[number]);
          return i >= 0 && i < floor;
        });
        if (below.length) {
          const lv = (below[0]!.json as { params: { level: string } }).params.level;
          return {
            verdict: 'warn',
            messageIds: [answer.seq, ...below.slice(0, 10).map((m) => m.seq)],
            message: `${below.length} notifications/message below "${FINAL_LEVEL}" came after the level was set (the first at level "${lv}")`,
          };
        }
        return {
          verdict: 'pass',
          messageIds: [answer.seq],
          message: `${after.length} notifications/message after the level was set to "${FINAL_LEVEL}", none below it`,
        };
      },
    },
  ],
};
