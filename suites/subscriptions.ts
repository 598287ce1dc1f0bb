/**
 * Subscriptions (2026-07-28): subscriptions/listen, the one way a client receives change notifications (tools,
 * prompts and resources list changes, resource updates) — it replaced resources/subscribe and the HTTP GET stream.
 * The harness opens a subscription for what the server declares, checks the acknowledgement and what comes on the
 * subscription for a short while, then ends it as a client does (closing the response stream over HTTP,
 * notifications/cancelled over stdio).
 * https://modelcontextprotocol.io/specification/2026-07-28/basic/patterns/subscriptions
 */
import type { CaseContext, Outcome, Suite } from '../core/suite.js';
import { resourceListing } from '../core/surface.js';
import {
  ACKNOWLEDGED,
  openListen,
  requested,
  subscriptionIdOf,
  type Subscription,
  type SubscriptionFilter,
} from '../core/listen.js';
import type { LoggedMessage } from '../core/log.js';
import { brief, describeError, isObject } from './helpers.js';
import { MISSING_URI } from './resources.js';

/** How long a subscription is watched after its acknowledgement for notifications it must not carry. */
export const LISTEN_WATCH_MS = 300;
/** How long, after the harness ended a subscription over stdio, an answer to it is waited for (it should get none). */
export const AFTER_CANCEL_MS = 200;
/** subscriptions/unsupported-omitted watches its subscription this long (its point is the acknowledgement). */
export const UNSUPPORTED_WATCH_MS = 100;

/** The filter field each capability flag makes applicable: [capability, flag, filter field]. */
const DECLARES: [string, string, string][] = [
  ['tools', 'listChanged', 'toolsListChanged'],
  ['prompts', 'listChanged', 'promptsListChanged'],
  ['resources', 'listChanged', 'resourcesListChanged'],
  ['resources', 'subscribe', 'resourceSubscriptions'],
];

function declared(caps: Record<string, unknown>, cap: string, flag: string): boolean {
  const c = caps[cap];
  return isObject(c) && c[flag] === true;
}

function show(v: unknown): string {
  return brief(v, 200);
}

/** What a notification is, in a few words: its method, and the subscriptionId it carries. */
function what(m: LoggedMessage): string {
  const sid = subscriptionIdOf(m);
  return `${m.method ?? m.kind} (message ${m.seq}${sid === undefined ? ', no subscriptionId' : `, subscriptionId ${JSON.stringify(sid)}`})`;
}

/** The answer to a listen, in words. */
function answerText(a: LoggedMessage): string {
  const j = a.json as { result?: unknown; error?: { code?: number; message?: string } } | undefined;
  if (a.kind === 'error' && j?.error)
    return `error ${describeError({ code: Number(j.error.code), message: String(j.error.message ?? '') })}`;
  return `a result ${brief(j?.result, 120)}`;
}

interface Exercise {
  sub: Subscription;
  sent: string;
  /** The outcome when there was no acknowledgement (undefined when there was one). */
  noAck?: Outcome;
  /** Wall time from the request to the acknowledgement. */
  ackMs?: number;
  /** It ended (answered, or its HTTP stream closed) before the harness ended it. */
  endedEarly?: string;
  /** An answer that came after the harness ended it over stdio. */
  answeredAfterCancel?: LoggedMessage;
}

/**
 * Open a subscription with this filter, wait (bounded) for its acknowledgement, watch it, end it. The subscription is
 * always ended and closed before this returns.
 */
async function exercise(
  ctx: CaseContext,
  filter: SubscriptionFilter,
  why: string,
  how: { watchMs: number; afterCancel: boolean },
): Promise<Exercise> {
  const sub = openListen(ctx, filter);
  const sent = `subscriptions/listen (id ${sub.id}) with notifications ${JSON.stringify(filter)}${why}`;
  const ex: Exercise = { sub, sent };
  try {
    const acked = await sub.waitForAck(ctx.timeoutMs);
    if (!acked) {
      ex.noAck = noAckOutcome(ctx, sub, sent);
      return ex;
    }
    ex.ackMs = Math.round(sub.ack!.t - sub.request.t);
    if (!sub.answer && !ctx.session.closed) await sub.watchFor(Math.min(how.watchMs, ctx.timeoutMs));
    if (sub.answer)
      ex.endedEarly = `it answered ${answerText(sub.answer)} ${Math.round(sub.answer.t - sub.ack!.t)} ms after acknowledging, ending the subscription before the client cancelled it`;
    else if (sub.streamEnded) ex.endedEarly = 'its response stream ended before the harness closed it';
    else if (sub.serverCancelled)
      ex.endedEarly = `it sent notifications/cancelled for it (message ${sub.serverCancelled.seq}) ${Math.round(sub.serverCancelled.t - sub.ack!.t)} ms after acknowledging`;
    else if (ctx.session.closed)
      ex.endedEarly = `the connection ended (${ctx.session.transport.closeInfo?.reason ?? 'closed'})`;
    else {
      const c = sub.cancel('mcp-conform: the subscription has been checked');
      if (c.streamWasOpen === false) ex.endedEarly = 'its response stream had ended before the harness closed it';
      else if (!sub.overHttp && how.afterCancel) {
        // A cancelled request should get no answer; one that comes anyway is noted.
        await sub.until(() => sub.answer !== undefined, Math.min(AFTER_CANCEL_MS, ctx.timeoutMs));
        if (sub.answer) ex.answeredAfterCancel = sub.answer;
      }
    }
    return ex;
  } finally {
    sub.close();
  }
}

/** Over HTTP: what the POST of a subscription got, in words ('' over stdio). */
function postText(sub: Subscription): string {
  const x = sub.exchange;
  if (!x || x.status === undefined) return x?.error ? ` (its POST: ${x.error})` : '';
  const ct = x.responseHeaders?.['content-type'];
  const text = (x.responseBody ?? '').replace(/\s+/g, ' ').trim();
  const body = text ? `: ${text.length > 160 ? `${text.slice(0, 160)}…` : text}` : '';
  return ` (its POST was answered HTTP ${x.status}${x.statusText ? ` ${x.statusText}` : ''}${ct ? `, ${String(ct)}` : ''}${body}${x.ms !== undefined ? ', and has ended' : ''})`;
}

function noAckOutcome(ctx: CaseContext, sub: Subscription, sent: string): Outcome {
  const messageIds = sub.seqs();
  const a = sub.answer;
  const others = sub.acks.filter((m) => subscriptionIdOf(m) !== sub.id);
  const otherText = others.length
    ? `; a ${ACKNOWLEDGED} came with ${subscriptionIdOf(others[0]!) === undefined ? 'no subscriptionId' : `subscriptionId ${JSON.stringify(subscriptionIdOf(others[0]!))}`} instead of ${sub.id} (message ${others[0]!.seq})`
    : '';
  if (a)
    return {
      verdict: 'fail',
      messageIds: [...messageIds, ...others.map((m) => m.seq)],
      message: `${sent} was answered with ${answerText(a)} and no ${ACKNOWLEDGED} carrying subscriptionId ${sub.id} came before it${otherText}`,
    };
  if (ctx.session.closed)
    return {
      verdict: 'fail',
      messageIds,
      message: `${sent}: the connection ended before any ${ACKNOWLEDGED} (${ctx.session.transport.closeInfo?.reason ?? 'closed'})`,
    };
  if (sub.serverCancelled)
    return {
      verdict: 'fail',
      messageIds,
      message: `${sent}: the server sent notifications/cancelled for it (message ${sub.serverCancelled.seq}) without any ${ACKNOWLEDGED} carrying subscriptionId ${sub.id} before it${otherText}`,
    };
  if (sub.streamEnded)
    return {
      verdict: 'fail',
      messageIds: [...messageIds, ...others.map((m) => m.seq)],
      message: `${sent}: no ${ACKNOWLEDGED} carrying subscriptionId ${sub.id} came before the POST ended${postText(sub)}${otherText}`,
    };
  return {
    verdict: 'fail',
    messageIds: [...messageIds, ...others.map((m) => m.seq)],
    message: `${sent}: no ${ACKNOWLEDGED} carrying subscriptionId ${sub.id} within ${ctx.timeoutMs} ms${postText(sub)}${otherText}`,
  };
}

/** What the notifications of a subscription did wrong (MUST rules), in words. */
function streamProblems(ex: Exercise): string[] {
  const { sub } = ex;
  const out: string[] = [];
  const ack = sub.ack!;
  const first = sub.messages[0];
  if (first && first !== ack)
    out.push(
      `${what(first)} came on the subscription before its acknowledgement (message ${ack.seq}): the acknowledgement must come first`,
    );
  for (const m of sub.messages) {
    if (m === ack) continue;
    const sid = subscriptionIdOf(m);
    if (sid !== sub.id) out.push(`${what(m)} came on the listen response stream without subscriptionId ${sub.id}`);
    else if (m.method === ACKNOWLEDGED) out.push(`a second acknowledgement came (message ${m.seq})`);
    else if (!requested(sub.filter, m))
      out.push(
        `${what(m)} is a notification the filter did not ask for${m.method === 'notifications/resources/updated' ? ` (uri ${brief((m.json as { params?: { uri?: unknown } }).params?.uri, 80)})` : ''}`,
      );
  }
  for (const m of sub.unattributed)
    out.push(
      `${what(m)} came while the subscription was open, carrying no subscriptionId: in 2026-07-28 a change notification travels only on a subscription that asked for it`,
    );
  return out;
}

/** The acknowledged filter compared with the request: fields it acknowledged that were not asked for. */
function beyondRequest(filter: SubscriptionFilter, acked: SubscriptionFilter): string[] {
  const out: string[] = [];
  for (const [k, v] of Object.entries(acked)) {
    if (v === false || v === undefined || v === null || (Array.isArray(v) && !v.length)) continue;
    if (k === 'resourceSubscriptions') {
      const asked = Array.isArray(filter.resourceSubscriptions) ? filter.resourceSubscriptions : [];
      const extra = Array.isArray(v) ? v.filter((u) => !asked.includes(u)) : [v];
      if (extra.length) out.push(`resourceSubscriptions ${JSON.stringify(extra)}`);
    } else if (filter[k] === undefined || filter[k] === false) out.push(`${k}: ${JSON.stringify(v)}`);
  }
  return out;
}

function endingText(ex: Exercise): string {
  if (ex.endedEarly) return `then the server ended it (${ex.endedEarly})`;
  if (ex.sub.overHttp) return 'then ended by closing its response stream';
  return 'then ended with notifications/cancelled';
}

export const subscriptions: Suite = {
  id: 'subscriptions',
  title: 'Subscriptions (subscriptions/listen)',
  description:
    '2026-07-28: subscriptions/listen acknowledged, carries only what was asked for, ends when the client cancels',
  cases: [
    {
      id: 'subscriptions/listen',
      title: 'subscriptions/listen is acknowledged first, and carries only the notifications asked for',
      level: 'MUST',
      spec: 'basic/patterns/subscriptions#acknowledgment',
      requirement:
        'A server that declares tools.listChanged, prompts.listChanged, resources.listChanged or resources.subscribe delivers those notifications only on a subscriptions/listen stream. The harness asks for each type declared (resource updates of the first listed resource): the server sends notifications/subscriptions/acknowledged carrying the request id as io.modelcontextprotocol/subscriptionId before any other notification of the subscription; every notification of the subscription carries that id and is of a type asked for (MUST). ' +
        `The subscription is watched for ${LISTEN_WATCH_MS} ms and ended as a client ends it (closing the response stream over HTTP, notifications/cancelled over stdio). An acknowledgement listing types not asked for, a subscription the server ends at once, or an answer after the cancellation: warn.`,
      requires: { feature: 'subscriptionsListen' },
      async run(ctx) {
        const caps = ctx.capabilities;
        const filter: SubscriptionFilter = {};
        const reasons: string[] = [];
        for (const [cap, flag, field] of DECLARES) {
          if (!declared(caps, cap, flag)) continue;
          if (field === 'resourceSubscriptions') {
            const first = (await ctx.service(resourceListing)).items[0];
            if (!first) {
              reasons.push('resources.subscribe is declared but no resource is listed to subscribe to');
              continue;
            }
            filter.resourceSubscriptions = [first.uri];
          } else filter[field] = true;
        }
        if (!Object.keys(filter).length) {
          return {
            verdict: 'skip',
            message: `the server did not declare tools.listChanged, prompts.listChanged, resources.listChanged or resources.subscribe: no notification to listen for${reasons.length ? ` (${reasons.join('; ')})` : ''}`,
          };
        }
        const ex = await exercise(ctx, filter, ' (the types the server declares)', {
          watchMs: LISTEN_WATCH_MS,
          afterCancel: true,
        });
        if (ex.noAck) {
          const a = ex.sub.answer;
          if (a?.kind === 'error' && (a.json as { error?: { code?: unknown } }).error?.code === -32601) {
            const decl = DECLARES.filter(([c, f]) => declared(caps, c, f))
              .map(([c, f]) => `${c}.${f}`)
              .join(', ');
            return {
              ...ex.noAck,
              message: `${ex.noAck.message}: the server declares ${decl}, whose notifications travel only on subscriptions/listen in ${ctx.version}`,
            };
          }
          return ex.noAck;
        }
        const { sub } = ex;
        const messageIds = sub.seqs();
        const problems = streamProblems(ex);
        const acked = sub.acknowledged() ?? {};
        const details = { filter, acknowledged: acked, notifications: sub.messages.map((m) => m.seq) };
        if (problems.length)
          return { verdict: 'fail', messageIds, details, message: `${ex.sent}: ${problems.slice(0, 4).join('; ')}` };
        const ackText = `acknowledged in ${ex.ackMs} ms with ${show(acked)}`;
        const extra = beyondRequest(filter, acked);
        if (extra.length)
          return {
            verdict: 'warn',
            level: 'SHOULD',
            messageIds,
            details,
            message: `${ex.sent} was ${ackText}: the acknowledgement lists ${extra.join(', ')}, which were not asked for (it is the subset of the requested types the server will send)`,
          };
        if (ex.endedEarly)
          return {
            verdict: 'warn',
            level: 'SHOULD',
            messageIds,
            details,
            message: `${ex.sent} was ${ackText}, but ${ex.endedEarly}: a subscription stays open until the client cancels it`,
          };
        if (ex.answeredAfterCancel)
          return {
            verdict: 'warn',
            level: 'SHOULD',
            messageIds,
            details,
            message: `${ex.sent} was ${ackText}; after notifications/cancelled it was answered with ${answerText(ex.answeredAfterCancel)} (message ${ex.answeredAfterCancel.seq}): a cancelled request should get no answer`,
          };
        const more = sub.messages.length - 1;
        const omitted = Object.keys(filter).filter((k) => acked[k] === undefined);
        return {
          verdict: 'pass',
          messageIds,
          details,
          message: `${ex.sent} was ${ackText}${omitted.length ? ` (not honoured: ${omitted.join(', ')})` : ''}; ${more ? `${more} further notification${more === 1 ? '' : 's'}, each asked for and carrying subscriptionId ${sub.id}` : 'nothing else came'} in the ${LISTEN_WATCH_MS} ms it was watched, ${endingText(ex)}`,
        };
      },
    },
    {
      id: 'subscriptions/unsupported-omitted',
      title: 'subscriptions/listen for types the server does not declare: acknowledged with them left out',
      level: 'SHOULD',
      spec: 'basic/patterns/subscriptions#acknowledgment',
      requirement:
        'A filter may ask for notification types the server does not support; the server acknowledges the subscription with those types left out (the acknowledgement lists only what it will send), and sends none of them. The harness asks for every type whose capability flag the server does not declare (resource updates of a URI it never listed). An acknowledgement that lists one of them, or no acknowledgement: warn (info when the server declares no notification type at all and refuses subscriptions/listen with an error); a notification of a type not asked for: fail (MUST NOT).',
      requires: { feature: 'subscriptionsListen' },
      async run(ctx) {
        const caps = ctx.capabilities;
        const filter: SubscriptionFilter = {};
        const because: Record<string, string> = {};
        for (const [cap, flag, field] of DECLARES) {
          if (declared(caps, cap, flag)) continue;
          filter[field] = field === 'resourceSubscriptions' ? [MISSING_URI] : true;
          because[field] = `${cap}.${flag} not declared`;
        }
        // Worded as the other cases that probe undeclared capabilities say it (a skip that says nothing of the server).
        if (!Object.keys(filter).length)
          return {
            verdict: 'skip',
            message: 'the server declared every capability this case probes',
            details: { declared: DECLARES.map(([c, f]) => `${c}.${f}`) },
          };
        const ex = await exercise(ctx, filter, ` (${Object.values(because).join(', ')})`, {
          watchMs: UNSUPPORTED_WATCH_MS,
          afterCancel: false,
        });
        if (ex.noAck) {
          // A server that declares no notification type at all has nothing to deliver on a subscription: refusing the
          // request (-32601, as for the methods of a capability it does not declare) is no fault.
          const none = DECLARES.every(([c, f]) => !declared(caps, c, f));
          if (none && ex.sub.answer?.kind === 'error')
            return {
              ...ex.noAck,
              verdict: 'info',
              message: `${ex.noAck.message}; the server declares no notification type a subscription could carry, so refusing subscriptions/listen is not judged`,
            };
          return {
            ...ex.noAck,
            verdict: 'warn',
            level: 'SHOULD',
            message: `${ex.noAck.message}; unsupported types are to be left out of the acknowledgement, not refused`,
          };
        }
        const { sub } = ex;
        const messageIds = sub.seqs();
        const problems = streamProblems(ex);
        const acked = sub.acknowledged() ?? {};
        const details = { filter, acknowledged: acked };
        if (problems.length)
          return {
            verdict: 'fail',
            level: 'MUST',
            messageIds,
            details,
            message: `${ex.sent}: ${problems.slice(0, 4).join('; ')}`,
          };
        const listed = Object.keys(filter).filter((k) => {
          const v = acked[k];
          return v !== undefined && v !== false && !(Array.isArray(v) && !v.length);
        });
        const extra = beyondRequest(filter, acked);
        if (listed.length || extra.length) {
          const bits = [...listed.map((k) => `${k} (${because[k]})`), ...extra.map((e) => `${e} (not asked for)`)];
          return {
            verdict: 'warn',
            messageIds,
            details,
            message: `${ex.sent} was acknowledged with ${show(acked)}: it lists ${bits.join(', ')}; the acknowledgement should leave out the types the server does not support`,
          };
        }
        return {
          verdict: 'pass',
          messageIds,
          details,
          message: `${ex.sent} was acknowledged in ${ex.ackMs} ms with ${show(acked)}: every unsupported type left out, ${endingText(ex)}`,
        };
      },
    },
  ],
};
