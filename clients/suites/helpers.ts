/** Helpers the client cases share: the client's messages, the first initialize, a message's label, per-session grading. */
import type { LoggedMessage } from '../../core/log.js';
import type { Outcome } from '../../core/suite.js';
import { isObject } from '../../core/objects.js';
import { META } from '../../core/wire.js';
import type { ClientSessionView, ClientCaseContext } from '../case.js';
export type {
  AuthRunRecord,
  ClientRunInfo,
  ClientSessionView,
  ClientCaseContext,
  ClientCaseDef,
  ClientSuite,
} from '../case.js';

export const fromClient = (ctx: ClientCaseContext) => ctx.log.filter((m) => m.direction === 'to-server');

export function firstInitialize(ctx: ClientCaseContext): { request?: LoggedMessage; response?: LoggedMessage } {
  const request = ctx.log.find((m) => m.direction === 'to-server' && m.kind === 'request' && m.method === 'initialize');
  const response = request
    ? ctx.log.find((m) => m.direction === 'from-server' && m.inReplyTo === request.seq)
    : undefined;
  return { request, response };
}

export function label(m: LoggedMessage): string {
  if (m.kind === 'request') return `${m.method} request (id ${JSON.stringify(m.id)})`;
  if (m.kind === 'notification') return `${m.method} notification`;
  if (m.kind === 'response' || m.kind === 'error')
    return `${m.kind === 'error' ? 'error' : 'response'} to id ${JSON.stringify(m.id)}`;
  return `a line that is no JSON-RPC message (${m.problem ?? 'invalid'})`;
}

/** How the client run ended, for messages: 'the client exited with code 0'. */
export function ending(ctx: ClientCaseContext): string {
  const c = ctx.client;
  if (c.endedByHarness) return `the client was ended by the harness (${c.endedByHarness})`;
  if (c.signal) return `the client ended by signal ${c.signal}`;
  return `the client exited with code ${c.exitCode}`;
}

export { isObject as isObj } from '../../core/objects.js';

/**
 * A case body run on each session of an era by itself (its messages and exchanges only), the outcomes combined: the
 * worst verdict wins; with more than one session the message names each session that did not pass.
 */
export function perSession(
  ctx: ClientCaseContext,
  eras: ClientSessionView['era'][],
  body: (c: ClientCaseContext) => Outcome,
  none?: string,
): Outcome {
  // A client that sent nothing has no session: the body says so in its own words.
  if (!ctx.sessions.some((s) => s.messages.some((m) => m.direction === 'to-server'))) return body(ctx);
  const ss = ctx.sessions.filter((s) => eras.includes(s.era));
  if (!ss.length)
    return { verdict: 'skip', message: none ?? `the client opened no ${eras.join(' or ')} session; ${ending(ctx)}` };
  if (ss.length === 1 && ctx.sessions.length === 1) return body(ctx);
  const outs = ss.map((s) => ({
    s,
    o: body({ ...ctx, log: s.messages, exchanges: s.exchanges, ...(s.version ? { version: s.version } : {}) }),
  }));
  const rank: Record<string, number> = { fail: 4, warn: 3, info: 2, pass: 1, skip: 0 };
  const worst = outs.reduce((a, b) => (rank[b.o.verdict]! > rank[a.o.verdict]! ? b : a));
  const name = (s: ClientSessionView) => `session ${s.n} of ${ctx.sessions.length}`;
  if (worst.o.verdict === 'skip')
    return { ...worst.o, message: outs.map(({ s, o }) => `${name(s)}: ${o.message}`).join(' | ') };
  const shown =
    worst.o.verdict === 'pass'
      ? outs.filter((x) => x.o.verdict === 'pass')
      : outs.filter((x) => x.o.verdict === worst.o.verdict);
  return {
    verdict: worst.o.verdict,
    ...(worst.o.level ? { level: worst.o.level } : {}),
    message: shown.map(({ s, o }) => `${name(s)}: ${o.message}`).join(' | '),
    messageIds: shown.flatMap((x) => x.o.messageIds ?? []).slice(0, 20),
  };
}

const PV = META.protocolVersion;
/** The protocol version a 2026-07-28 request names in `_meta`. */
export const metaVersion = (json: unknown): unknown => {
  const p = isObject(json) && isObject(json.params) ? json.params : undefined;
  return p && isObject(p._meta) ? p._meta[PV] : undefined;
};
/** A 2026-07-28 request: server/discover, or the version in `_meta`. */
export const isModernMessage = (m: LoggedMessage): boolean =>
  m.direction === 'to-server' &&
  m.kind === 'request' &&
  (m.method === 'server/discover' || metaVersion(m.json) !== undefined);
