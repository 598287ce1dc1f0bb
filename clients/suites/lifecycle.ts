/** client-lifecycle: how the client opens the session — initialize first, then initialized; and answers a ping. */
import { isProtocolVersion } from '../../core/schema/versions.js';
import { MOCK_PING_ID } from '../../mocks/client-mock.js';
import {
  ending,
  firstInitialize,
  fromClient,
  isObj,
  label,
  perSession,
  type ClientCaseDef,
  type ClientSuite,
} from './helpers.js';

/** How long a ping answer may take and still be prompt (ms). */
export const PROMPT_MS = 5000;

const cases: ClientCaseDef[] = [
  {
    id: 'client-lifecycle/initialize-first',
    title: 'initialize is the first message',
    level: 'MUST',
    spec: 'basic/lifecycle#initialization',
    requirement:
      'The initialization phase is the first interaction: the first message a client sends is an initialize request.',
    run(ctx) {
      // A server/discover probe before initialize is what a dual-era client does (2026-07-28 backward compatibility).
      const probes = fromClient(ctx).filter((m) => m.kind === 'request' && m.method === 'server/discover');
      const first = fromClient(ctx).find((m) => !probes.includes(m));
      if (!first) return { verdict: 'fail', message: `the client sent nothing at all; ${ending(ctx)}` };
      if (first.kind === 'request' && first.method === 'initialize')
        return {
          verdict: 'pass',
          message: `the first message was initialize (id ${JSON.stringify(first.id)})${probes.length ? `, after ${probes.length} server/discover probe${probes.length > 1 ? 's' : ''}` : ''}`,
          messageIds: [first.seq],
        };
      return {
        verdict: 'fail',
        message: `the first message the client sent was a ${label(first)}, not an initialize request`,
        messageIds: [first.seq],
      };
    },
  },
  {
    id: 'client-lifecycle/initialize-params',
    title: 'initialize carries a published protocolVersion, capabilities and clientInfo',
    level: 'MUST',
    spec: 'basic/lifecycle#initialization',
    requirement:
      'The initialize request carries the protocol version the client supports (a published one), its capabilities and its implementation information (name and version).',
    run(ctx) {
      const { request } = firstInitialize(ctx);
      if (!request) return { verdict: 'fail', message: `the client sent no initialize request; ${ending(ctx)}` };
      const p =
        isObj(request.json) && isObj((request.json as Record<string, unknown>).params)
          ? (request.json as { params: Record<string, unknown> }).params
          : undefined;
      const problems: string[] = [];
      if (!p) problems.push('it has no params object');
      else {
        if (!isProtocolVersion(p.protocolVersion))
          problems.push(`protocolVersion is ${JSON.stringify(p.protocolVersion)}, not a published version`);
        if (!isObj(p.capabilities)) problems.push(`capabilities is ${JSON.stringify(p.capabilities)}, not an object`);
        const ci = p.clientInfo;
        if (!isObj(ci) || typeof ci.name !== 'string' || typeof ci.version !== 'string')
          problems.push(`clientInfo is ${JSON.stringify(ci)}, not { name, version } strings`);
      }
      if (problems.length)
        return {
          verdict: 'fail',
          message: `initialize (id ${JSON.stringify(request.id)}): ${problems.join('; ')}`,
          messageIds: [request.seq],
        };
      const ci = p!.clientInfo as Record<string, unknown>;
      return {
        verdict: 'pass',
        message: `initialize offered ${String(p!.protocolVersion)} from ${String(ci.name)} ${String(ci.version)}`,
        messageIds: [request.seq],
      };
    },
  },
  {
    id: 'client-lifecycle/wait-for-initialize-answer',
    title: 'no request but ping before the initialize answer',
    level: 'SHOULD',
    spec: 'basic/lifecycle#initialization',
    requirement: 'The client does not send requests other than pings before the server has answered initialize.',
    run(ctx) {
      const { request, response } = firstInitialize(ctx);
      if (!request)
        return {
          verdict: 'skip',
          message: 'the client sent no initialize request (client-lifecycle/initialize-first)',
        };
      const until = response?.seq ?? Infinity;
      const early = fromClient(ctx).filter(
        (m) => m.seq > request.seq && m.seq < until && m.kind === 'request' && m.method !== 'ping',
      );
      if (early.length)
        return {
          verdict: 'warn',
          message: `before the mock answered initialize (held back 150 ms), the client sent ${early.map(label).join(', ')}`,
          messageIds: [request.seq, ...early.map((m) => m.seq)],
        };
      return {
        verdict: 'pass',
        message: 'the client waited for the initialize answer before its next request',
        messageIds: [request.seq, ...(response ? [response.seq] : [])],
      };
    },
  },
  {
    id: 'client-lifecycle/initialized-sent',
    title: 'notifications/initialized after the initialize answer',
    level: 'MUST',
    spec: 'basic/lifecycle#initialization',
    requirement: 'After a successful initialize, the client sends the notifications/initialized notification.',
    run(ctx) {
      const { request, response } = firstInitialize(ctx);
      if (!request)
        return {
          verdict: 'skip',
          message: 'the client sent no initialize request (client-lifecycle/initialize-first)',
        };
      if (response?.kind !== 'response')
        return { verdict: 'skip', message: 'the mock did not answer initialize with a result' };
      const n = fromClient(ctx).find(
        (m) => m.seq > response.seq && m.kind === 'notification' && m.method === 'notifications/initialized',
      );
      const before = n
        ? fromClient(ctx).filter(
            (m) => m.seq > response.seq && m.seq < n.seq && m.kind === 'request' && m.method !== 'ping',
          )
        : [];
      if (!n) {
        const after = fromClient(ctx).filter((m) => m.seq > response.seq);
        return {
          verdict: 'fail',
          message: `after the initialize answer the client sent ${after.length ? after.slice(0, 4).map(label).join(', ') + (after.length > 4 ? ', …' : '') : 'nothing'} and no notifications/initialized; ${ending(ctx)}`,
          messageIds: [response.seq, ...after.slice(0, 4).map((m) => m.seq)],
        };
      }
      return {
        verdict: 'pass',
        message: `notifications/initialized sent${before.length ? ` (after ${before.map(label).join(', ')})` : ''}`,
        messageIds: [n.seq],
      };
    },
  },
  {
    id: 'client-lifecycle/ping-answered',
    title: "the server's ping is answered promptly",
    level: 'MUST',
    spec: 'basic/utilities/ping#behavior-requirements',
    until: '2026-07-28',
    scenarios: ['ping'],
    requirement: `The receiver of a ping answers promptly with an empty result (here: within ${PROMPT_MS / 1000} s).`,
    run(ctx) {
      const ping = ctx.log.find(
        (m) => m.direction === 'from-server' && m.kind === 'request' && m.method === 'ping' && m.id === MOCK_PING_ID,
      );
      if (!ping)
        return {
          verdict: 'skip',
          message: 'the mock sent no ping: the client made no request after notifications/initialized',
        };
      const answer = ctx.log.find(
        (m) => m.direction === 'to-server' && (m.kind === 'response' || m.kind === 'error') && m.id === MOCK_PING_ID,
      );
      if (!answer)
        return {
          verdict: 'fail',
          message: `the mock sent ping (id "${MOCK_PING_ID}"); the client never answered it; ${ending(ctx)}`,
          messageIds: [ping.seq],
        };
      const ms = Math.round(answer.t - ping.t);
      if (answer.kind === 'error')
        return {
          verdict: 'fail',
          message: `the client answered ping with an error ${JSON.stringify((answer.json as Record<string, unknown>).error)}, not an empty result`,
          messageIds: [ping.seq, answer.seq],
        };
      const result = (answer.json as Record<string, unknown>).result;
      if (!isObj(result) || Object.keys(result).some((k) => k !== '_meta'))
        return {
          verdict: 'fail',
          message: `the client answered ping with ${JSON.stringify(result)}, not an empty result`,
          messageIds: [ping.seq, answer.seq],
        };
      if (ms > PROMPT_MS)
        return {
          verdict: 'fail',
          message: `the client answered ping after ${ms} ms (more than ${PROMPT_MS} ms)`,
          messageIds: [ping.seq, answer.seq],
        };
      return { verdict: 'pass', message: `ping answered with {} after ${ms} ms`, messageIds: [ping.seq, answer.seq] };
    },
  },
];

/** A 2026-07-28 session has no initialize: the lifecycle is graded on the client's legacy sessions (each of them). */
const NONE =
  'the client opened no session with initialize: it spoke 2026-07-28 only, which has no initialize (client-2026 grades it); to grade its lifecycle, run it against a legacy mock (--protocol-version 2025-11-25)';

const PROBE_ONLY =
  'the client opened no session with initialize: it only probed with server/discover and did not fall back (client-2026/negotiation)';

export const clientLifecycle: ClientSuite = {
  id: 'client-lifecycle',
  title: 'Client lifecycle',
  description:
    "Each session the client opens with initialize (every process, every HTTP session): initialize first, the answer awaited, notifications/initialized sent, the server's ping answered.",
  cases: cases.map((c) => ({
    ...c,
    run: (ctx) =>
      perSession(ctx, ['legacy'], (sc) => c.run(sc), ctx.sessions.some((s) => s.era === 'modern') ? NONE : PROBE_ONLY),
  })),
};
