/** client-requests: the client's messages — unique ids, schema-valid, valid tool arguments, pagination, list_changed. */
import type { LoggedMessage } from '../../core/log.js';
import type { Outcome } from '../../core/suite.js';
import { MOCK_REQUEST_IDS } from '../../mocks/client-mock.js';
import {
  ending,
  fromClient,
  isModernMessage,
  isObj,
  label,
  perSession,
  type ClientCaseContext,
  type ClientCaseDef,
  type ClientSuite,
} from './helpers.js';

const paramsOf = (m: LoggedMessage): Record<string, unknown> =>
  isObj(m.json) && isObj((m.json as Record<string, unknown>).params)
    ? (m.json as { params: Record<string, unknown> }).params
    : {};
const resultOf = (m: LoggedMessage): Record<string, unknown> | undefined =>
  isObj(m.json) && isObj((m.json as Record<string, unknown>).result)
    ? (m.json as { result: Record<string, unknown> }).result
    : undefined;

/** The client's messages, cut into sessions: each initialize request starts one. */
function sessions(ctx: ClientCaseContext): LoggedMessage[][] {
  const out: LoggedMessage[][] = [];
  for (const m of fromClient(ctx)) {
    if ((m.kind === 'request' && m.method === 'initialize') || !out.length) out.push([]);
    out[out.length - 1]!.push(m);
  }
  return out;
}

const LISTS = ['tools/list', 'resources/list', 'prompts/list', 'resources/templates/list'];

function uniqueIds(ctx: ClientCaseContext) {
  const dupes: string[] = [];
  const mids: number[] = [];
  let n = 0;
  for (const s of sessions(ctx)) {
    const seen = new Map<string, LoggedMessage>();
    for (const m of s) {
      if (m.kind !== 'request') continue;
      n++;
      const key = JSON.stringify(m.id ?? null);
      const prev = seen.get(key);
      if (m.id === null || m.id === undefined) {
        dupes.push(`${m.method} has id ${key}`);
        mids.push(m.seq);
        continue;
      }
      if (prev) {
        dupes.push(
          `id ${key} used by ${prev.method} (message ${prev.seq}) and again by ${m.method} (message ${m.seq})`,
        );
        mids.push(prev.seq, m.seq);
      } else seen.set(key, m);
    }
  }
  if (!n) return { verdict: 'skip' as const, message: `the client sent no request; ${ending(ctx)}` };
  if (dupes.length)
    return {
      verdict: 'fail' as const,
      message: `${dupes.slice(0, 3).join('; ')}${dupes.length > 3 ? ` (and ${dupes.length - 3} more)` : ''}`,
      messageIds: mids.slice(0, 10),
    };
  return { verdict: 'pass' as const, message: `${n} request${n === 1 ? '' : 's'}, every id unique within its session` };
}

const moreCases: ClientCaseDef[] = [
  {
    id: 'client-requests/schema',
    title: 'every message the client sends is schema-valid',
    level: 'MUST',
    spec: 'basic#messages',
    requirement:
      'Every message the client sends is a JSON-RPC message that the schema of the version in force accepts.',
    run(ctx) {
      const mine = fromClient(ctx);
      if (!mine.length) return { verdict: 'skip', message: `the client sent nothing; ${ending(ctx)}` };
      const bad = mine.filter((m) => !m.schema.valid);
      if (!bad.length)
        return { verdict: 'pass', message: `${mine.length} messages, all valid against the ${ctx.version} schema` };
      const say = bad.slice(0, 3).map(
        (m) =>
          `${label(m)}: ${
            m.schema.violations
              .slice(0, 2)
              .map((v) => `${v.pointer || '(message)'} ${v.message}`)
              .join('; ') ||
            m.problem ||
            'invalid'
          }`,
      );
      return {
        verdict: 'fail',
        message: `${bad.length} of ${mine.length} messages break the ${ctx.version} schema: ${say.join(' | ')}`,
        messageIds: bad.slice(0, 10).map((m) => m.seq),
      };
    },
  },
  {
    id: 'client-requests/tool-arguments',
    title: 'tools/call names a listed tool, with arguments valid against its inputSchema',
    level: 'SHOULD',
    spec: 'server/tools#calling-tools',
    requirement: "The client calls tools the server listed, with arguments that satisfy the tool's inputSchema.",
    run(ctx) {
      const calls = fromClient(ctx).filter((m) => m.kind === 'request' && m.method === 'tools/call');
      if (!calls.length) return { verdict: 'skip', message: 'the client called no tool' };
      const problems: string[] = [];
      for (const c of calls) {
        const p = paramsOf(c);
        const tool = (ctx.fixture.tools ?? []).find((t) => t.name === p.name);
        if (!tool) {
          problems.push(`${label(c)} calls "${String(p.name)}", which the mock does not list`);
          continue;
        }
        const prepared = ctx.workbench.prepare(tool.inputSchema ?? { type: 'object' });
        const v = prepared.validate ? prepared.validate(p.arguments ?? {}) : [];
        if (v.length)
          problems.push(
            `${label(c)} calls ${tool.name} with ${JSON.stringify(p.arguments ?? {})}: ${v
              .slice(0, 2)
              .map((x) => `${x.pointer || '(arguments)'} ${x.message}`)
              .join('; ')}`,
          );
      }
      if (problems.length)
        return {
          verdict: 'warn',
          message: problems.slice(0, 3).join(' | '),
          messageIds: calls.map((c) => c.seq).slice(0, 10),
        };
      return {
        verdict: 'pass',
        message: `${calls.length} tool call${calls.length > 1 ? 's' : ''}, each to a listed tool with valid arguments`,
        messageIds: calls.map((c) => c.seq).slice(0, 10),
      };
    },
  },
  {
    id: 'client-requests/pagination',
    title: 'a listing follows nextCursor, passing the cursor unchanged',
    level: 'MAY',
    spec: 'server/utilities/pagination#pagination-flow',
    requirement:
      'A cursor the client sends is one the server gave, unchanged (cursors are opaque: a client never makes one up or changes it). Whether it asks for every page is its own choice: the spec has no client SHOULD for it (recorded as info).',
    run(ctx) {
      // A cursor is the server's whatever session it came in: one given in an earlier session is not made up
      // (mcp-remote retries a listing with its cursor in the new session after a 404).
      const everGiven = new Set(
        ctx.log
          .filter(
            (m) =>
              m.direction === 'from-server' &&
              m.kind === 'response' &&
              m.method &&
              LISTS.includes(m.method) &&
              typeof resultOf(m)?.nextCursor === 'string',
          )
          .map((m) => `${m.method} ${String(resultOf(m)!.nextCursor)}`),
      );
      return perSession(ctx, ['legacy', 'modern'], (sc) => pagination(sc, everGiven));
    },
  },
  {
    id: 'client-requests/list-changed',
    title: 'after notifications/tools/list_changed the tools are listed again',
    level: 'MAY',
    spec: 'server/tools#list-changed-notification',
    scenarios: ['list-changed'],
    requirement:
      'What a client does when told the tool list changed is its own choice (the spec has no client SHOULD); this records whether it listed the tools again in the session that got the notification.',
    run(ctx) {
      return perSession(ctx, ['legacy', 'modern'], (sc) => {
        const n = sc.log.find((m) => m.direction === 'from-server' && m.method === 'notifications/tools/list_changed');
        if (!n)
          return {
            verdict: 'skip',
            message:
              sc.version === '2026-07-28'
                ? 'the mock sent no list_changed: the client opened no subscriptions/listen asking for toolsListChanged, or never finished a tools/list'
                : 'the mock sent no list_changed: the client never finished a tools/list',
          };
        const again = fromClient(sc).find(
          (m) => m.seq > n.seq && m.kind === 'request' && m.method === 'tools/list' && paramsOf(m).cursor === undefined,
        );
        if (again)
          return {
            verdict: 'pass',
            message: `tools/list sent again ${Math.round(again.t - n.t)} ms after the notification, in the same session`,
            messageIds: [n.seq, again.seq],
          };
        return {
          verdict: 'info',
          message: `the mock sent notifications/tools/list_changed; the client did not list the tools again in that session; ${ending(ctx)}`,
          messageIds: [n.seq],
        };
      });
    },
  },
  {
    id: 'client-requests/cancel-after-timeout',
    title: 'a request left unanswered is cancelled once the client gives up on it',
    level: 'SHOULD',
    spec: 'basic/lifecycle#timeouts',
    scenarios: ['dropped-answer'],
    requirement:
      'A client sets a timeout on its requests; when one runs out without an answer it sends notifications/cancelled for that request and stops waiting.',
    run(ctx) {
      const call = fromClient(ctx).find((m) => m.kind === 'request' && m.method === 'tools/call');
      if (!call) return { verdict: 'skip', message: 'the client called no tool, so no answer was dropped' };
      const cancel = fromClient(ctx).find(
        (m) => m.seq > call.seq && m.method === 'notifications/cancelled' && paramsOf(m).requestId === call.id,
      );
      if (cancel)
        return {
          verdict: 'pass',
          message: `the mock never answered ${label(call)}; the client cancelled it after ${Math.round(cancel.t - call.t)} ms`,
          messageIds: [call.seq, cancel.seq],
        };
      if (ctx.client.endedByHarness) {
        // The run cannot tell "no timeout at all" from "a timeout longer than the wait": it says how long the client waited.
        const waited = Math.round(ctx.client.durationMs - call.t);
        return {
          verdict: 'info',
          message: `the mock never answered ${label(call)}; the client was still waiting about ${waited} ms later, when ${ending(ctx)}: it has no request timeout, or one longer than that (a longer --timeout tells which)`,
          messageIds: [call.seq],
        };
      }
      return {
        verdict: 'warn',
        message: `the mock never answered ${label(call)}; the client sent no notifications/cancelled for it; ${ending(ctx)}`,
        messageIds: [call.seq],
      };
    },
  },
  {
    id: 'client-requests/retry-after-failure',
    title: 'what the client does after a failed request (HTTP 503 or -32603)',
    level: 'MAY',
    spec: 'basic/lifecycle#error-handling',
    scenarios: ['server-error'],
    requirement: 'Whether and how a client retries a failed request is its own choice; this records what it did.',
    run(ctx) {
      const first = fromClient(ctx).find((m) => m.kind === 'request' && m.method === 'tools/list');
      if (!first) return { verdict: 'skip', message: 'the client listed no tools, so no request was failed' };
      const again = fromClient(ctx).filter(
        (m) =>
          m.seq > first.seq && m.kind === 'request' && m.method === 'tools/list' && paramsOf(m).cursor === undefined,
      );
      const how = first.http?.status === 503 ? 'HTTP 503' : 'a -32603 error';
      if (again.length)
        return {
          verdict: 'info',
          message: `the mock answered ${label(first)} with ${how}; the client tried again ${Math.round(again[0]!.t - first.t)} ms later (${again.length} more tools/list from the first page)`,
          messageIds: [first.seq, again[0]!.seq],
        };
      return {
        verdict: 'info',
        message: `the mock answered ${label(first)} with ${how}; the client did not try again; ${ending(ctx)}`,
        messageIds: [first.seq],
      };
    },
  },
  {
    id: 'client-requests/after-error',
    title: 'what the client does after a tool error',
    level: 'MAY',
    spec: 'server/tools#error-handling',
    scenarios: ['unknown-tool'],
    requirement:
      'How a client handles a protocol error is its own choice; this records what it did (kept the session, retried, exited).',
    run(ctx) {
      const err = ctx.log.find((m) => m.direction === 'from-server' && m.kind === 'error' && m.method === 'tools/call');
      if (!err)
        return { verdict: 'skip', message: 'the client called no tool, so the mock answered none with an error' };
      const after = fromClient(ctx).filter((m) => m.seq > err.seq);
      const retries = after.filter((m) => m.kind === 'request' && m.method === 'tools/call').length;
      return {
        verdict: 'info',
        message: `after the error to tools/call the client sent ${after.length} more message${after.length === 1 ? '' : 's'}${retries ? ` (${retries} more tools/call)` : ''}; ${ending(ctx)}`,
        messageIds: [err.seq, ...after.slice(0, 3).map((m) => m.seq)],
      };
    },
  },
];

export const clientRequests: ClientSuite = {
  id: 'client-requests',
  title: 'Client requests',
  description:
    'What the client sends: request ids, schema validity, tool arguments, pagination, and what it does on list_changed and on an error.',
  cases: [
    {
      id: 'client-requests/unique-ids',
      title: 'request ids are unique within the session',
      level: 'MUST',
      spec: 'basic#requests',
      requirement:
        'A request id is a string or an integer, not null, and is not reused by the client within the same session.',
      run(ctx) {
        // Each HTTP POST of 2026-07-28 stands alone (no session to be unique in); every other session is graded by itself.
        return perSession(ctx, ['legacy', 'modern', 'probe'], (sc) =>
          sc.exchanges.length &&
          sc.log.every((m) => m.direction !== 'to-server' || m.kind !== 'request' || isModernMessage(m))
            ? { verdict: 'skip', message: '2026-07-28 requests over HTTP: no session' }
            : uniqueIds(sc),
        );
      },
    },
    {
      id: 'client-requests/server-requests-answered',
      title: "the server's requests are answered (roots/list, sampling/createMessage, elicitation/create)",
      level: 'MUST',
      spec: 'basic#responses',
      until: '2026-07-28',
      scenarios: ['server-requests'],
      requirement:
        "A client answers every request the server sends it (a result or an error, with the request's id); the server asks only for capabilities the client declared.",
      run(ctx) {
        const asked = ctx.log.filter(
          (m) =>
            m.direction === 'from-server' &&
            m.kind === 'request' &&
            Object.values(MOCK_REQUEST_IDS).includes(String(m.id)),
        );
        if (!asked.length)
          return {
            verdict: 'skip',
            message:
              'the mock asked nothing: the client declared none of roots, sampling, elicitation, or called no tool',
          };
        const missing = asked.filter(
          (q) =>
            !ctx.log.some(
              (m) => m.direction === 'to-server' && (m.kind === 'response' || m.kind === 'error') && m.id === q.id,
            ),
        );
        const errors = asked.filter((q) =>
          ctx.log.some((m) => m.direction === 'to-server' && m.kind === 'error' && m.id === q.id),
        );
        if (missing.length)
          return {
            verdict: 'fail',
            message: `the client never answered ${missing.map(label).join(', ')}; ${ending(ctx)}`,
            messageIds: missing.map((m) => m.seq),
          };
        return {
          verdict: 'pass',
          message: `${asked.length} request${asked.length > 1 ? 's' : ''} of the mock answered (${asked.map((m) => m.method).join(', ')})${errors.length ? `; with an error: ${errors.map((m) => m.method).join(', ')}` : ''}`,
          messageIds: asked.map((m) => m.seq),
        };
      },
    },
    ...moreCases,
  ],
};

/** Pagination in one session: a made-up cursor fails; a page not asked for is info, unless it came on a stream the mock cut (the client never got it). */
function pagination(ctx: ClientCaseContext, everGiven: Set<string>): Outcome {
  const given = new Map<string, LoggedMessage>();
  const followed = new Set<string>();
  const invented: LoggedMessage[] = [];
  const unfollowed: { m: LoggedMessage; method: string; cursor: string }[] = [];
  const cut = new Set(ctx.exchanges.filter((e) => e.fault?.startsWith('stream ended early')).map((e) => e.n));
  const resumed = ctx.exchanges.some((e) => e.fault?.startsWith('stream resumed'));
  for (const m of ctx.log) {
    if (m.direction === 'from-server' && m.kind === 'response' && m.method && LISTS.includes(m.method)) {
      const c = resultOf(m)?.nextCursor;
      const req = m.inReplyTo !== undefined ? ctx.log.find((x) => x.seq === m.inReplyTo) : undefined;
      const undelivered = !resumed && !!req?.http && cut.has(req.http.exchange);
      if (typeof c === 'string') {
        given.set(`${m.method} ${c}`, m);
        if (!undelivered) unfollowed.push({ m, method: m.method, cursor: c });
      }
    }
    if (m.direction === 'to-server' && m.kind === 'request' && m.method && LISTS.includes(m.method)) {
      const c = paramsOf(m).cursor;
      if (c === undefined) continue;
      const key = `${m.method} ${String(c)}`;
      if (typeof c !== 'string' || (!given.has(key) && !everGiven.has(key))) invented.push(m);
      else if (given.has(key)) followed.add(key);
    }
  }
  if (invented.length)
    return {
      verdict: 'fail',
      level: 'MUST',
      message: `${invented
        .map((m) => `${label(m)} sent cursor ${JSON.stringify(paramsOf(m).cursor)}, which the mock never gave`)
        .slice(0, 3)
        .join('; ')}`,
      messageIds: invented.map((m) => m.seq),
    };
  if (!given.size) return { verdict: 'skip', message: 'the client listed nothing that came in pages' };
  const left = unfollowed.filter((u) => !followed.has(`${u.method} ${u.cursor}`));
  if (left.length)
    return {
      verdict: 'info',
      message: `the mock answered ${left.map((u) => `${u.method} with nextCursor "${u.cursor}"`).join(', ')}; the client never asked for that page, so it saw only part of the list`,
      messageIds: left.map((u) => u.m.seq),
    };
  if (!followed.size)
    return {
      verdict: 'skip',
      message:
        'every page with a nextCursor came on a stream the mock cut (scenario stream-resume) and was never delivered',
    };
  return {
    verdict: 'pass',
    message: `every nextCursor followed (${followed.size} page${followed.size > 1 ? 's' : ''} after the first)`,
  };
}
