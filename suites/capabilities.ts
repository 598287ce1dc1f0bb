/**
 * Capabilities are honest: a method of a declared capability is served (never -32601), a method of a capability the
 * server did not declare is refused with -32601 (SHOULD), and list_changed notifications come only from a server that
 * declared listChanged. https://modelcontextprotocol.io/specification/2025-11-25/basic/lifecycle#capability-negotiation
 */
import type { LoggedMessage } from '../core/log.js';
import type { Session } from '../core/session.js';
import type { Suite } from '../core/suite.js';
import type { VersionFeatures } from '../core/features.js';
import { brief, describeError, isObject, nothingHeard, unanswered } from './helpers.js';
import { MISSING_URI } from './resources.js';
import { FINAL_LEVEL } from './logging.js';
import { UNKNOWN_PROMPT } from './prompts.js';

interface Probe {
  capability: string;
  method: string;
  params?: Record<string, unknown>;
}

/** One request per capability, harmless: a list, a completion of an unlisted prompt, the level the run leaves. */
function probesFor(f: Readonly<VersionFeatures>): Probe[] {
  return [
    { capability: 'tools', method: 'tools/list' },
    { capability: 'resources', method: 'resources/list' },
    { capability: 'prompts', method: 'prompts/list' },
    ...(f.completionsCapability
      ? [
          {
            capability: 'completions',
            method: 'completion/complete',
            params: { ref: { type: 'ref/prompt', name: UNKNOWN_PROMPT }, argument: { name: 'x', value: '' } },
          },
        ]
      : []),
    ...(f.setLevel ? [{ capability: 'logging', method: 'logging/setLevel', params: { level: FINAL_LEVEL } }] : []),
  ];
}

/**
 * Every method a client might still send for a capability the server did not declare, each harmless: lists, a call
 * of a tool and a read of a resource that do not exist, a completion of an unlisted prompt, the level the run leaves.
 * (A server that serves them anyway has nothing of that name to act on.)
 */
function undeclaredProbesFor(f: Readonly<VersionFeatures>): Probe[] {
  const completion = { ref: { type: 'ref/prompt', name: UNKNOWN_PROMPT }, argument: { name: 'x', value: '' } };
  return [
    { capability: 'tools', method: 'tools/list' },
    { capability: 'tools', method: 'tools/call', params: { name: UNDECLARED_TOOL, arguments: {} } },
    { capability: 'resources', method: 'resources/list' },
    { capability: 'resources', method: 'resources/templates/list' },
    { capability: 'resources', method: 'resources/read', params: { uri: MISSING_URI } },
    ...(f.resourceSubscribe
      ? [{ capability: 'resources', method: 'resources/subscribe', params: { uri: MISSING_URI } }]
      : []),
    { capability: 'prompts', method: 'prompts/list' },
    { capability: 'prompts', method: 'prompts/get', params: { name: UNKNOWN_PROMPT } },
    // Before 2025-03-26 completion/complete needed no capability: only probed where the capability exists.
    ...(f.completionsCapability
      ? [{ capability: 'completions', method: 'completion/complete', params: completion }]
      : []),
    ...(f.setLevel ? [{ capability: 'logging', method: 'logging/setLevel', params: { level: FINAL_LEVEL } }] : []),
  ];
}

/** A tool name no server lists (the probe of an undeclared tools capability calls nothing real). */
const UNDECLARED_TOOL = 'mcp-conform-undeclared-capability-probe';
/** How long a probe of an undeclared capability waits for its answer: a server that ignores it loses nothing more. */
const UNDECLARED_WAIT_MS = 5000;

/** The answer to `method` already in the log (another suite sent it), else a fresh request. */
async function answerTo(session: Session, p: Probe): Promise<{ answer: LoggedMessage; request: LoggedMessage }> {
  const log = session.log;
  for (const req of log) {
    if (req.direction !== 'to-server' || req.kind !== 'request' || req.method !== p.method) continue;
    const answer = log.find(
      (m) => m.direction === 'from-server' && m.inReplyTo === req.seq && (m.kind === 'response' || m.kind === 'error'),
    );
    if (answer) return { answer, request: req };
  }
  const reply = await session.request(p.method, p.params);
  return { answer: reply.response, request: reply.request };
}

function errorOf(m: LoggedMessage): { code: number; message: string } | undefined {
  const e = isObject(m.json) ? (m.json as Record<string, unknown>).error : undefined;
  if (!isObject(e)) return undefined;
  return { code: typeof e.code === 'number' ? e.code : NaN, message: typeof e.message === 'string' ? e.message : '' };
}

const LIST_CHANGED: Record<string, string> = {
  'notifications/tools/list_changed': 'tools',
  'notifications/resources/list_changed': 'resources',
  'notifications/prompts/list_changed': 'prompts',
};

export const capabilities: Suite = {
  id: 'capabilities',
  title: 'Capabilities are honest',
  description: 'declared capabilities are served, undeclared ones refused, list_changed only when declared',
  cases: [
    {
      id: 'capabilities/declared-served',
      title: 'every declared capability has its methods served',
      level: 'MUST',
      spec: 'basic/lifecycle#capability-negotiation',
      requirement:
        'A server that declares tools, resources, prompts, completions or logging serves that feature: its method (tools/list, resources/list, prompts/list, completion/complete, logging/setLevel) is never answered -32601 (method not found).',
      async run(ctx) {
        const declared = probesFor(ctx.features).filter((p) => ctx.capabilities[p.capability] !== undefined);
        if (!declared.length)
          return {
            verdict: 'skip',
            message: 'the server declared none of tools, resources, prompts, completions, logging',
          };
        const ids: number[] = [];
        const bad: string[] = [];
        for (const p of declared) {
          let a;
          try {
            a = await answerTo(ctx.session, p);
          } catch (e) {
            const u = unanswered(e as Error);
            return { ...u, messageIds: [...ids, ...(u.messageIds ?? [])] };
          }
          ids.push(a.request.seq, a.answer.seq);
          const err = errorOf(a.answer);
          if (err?.code === -32601)
            bad.push(`${p.capability} is declared but ${p.method} answered ${describeError(err)}`);
        }
        if (bad.length) return { verdict: 'fail', messageIds: ids, message: bad.join('; ') };
        return {
          verdict: 'pass',
          messageIds: ids,
          message: `served: ${declared.map((p) => `${p.capability} (${p.method})`).join(', ')}`,
        };
      },
    },
    {
      id: 'capabilities/undeclared-refused',
      title: 'methods of undeclared capabilities are refused with -32601',
      level: 'SHOULD',
      spec: 'basic/lifecycle#operation',
      requirement:
        'Both sides use only the capabilities negotiated: a server that did not declare tools, resources, prompts, completions or logging answers every method of that feature a client might still send (tools/list, tools/call; resources/list, resources/templates/list, resources/read, resources/subscribe; prompts/list, prompts/get; completion/complete; logging/setLevel) with -32601 (method not found) — the names probed exist nowhere, so serving one acts on nothing; serving it anyway (a result, even {"result": null}) is a warn, no answer within 5 s a fail.',
      async run(ctx) {
        const undeclared = undeclaredProbesFor(ctx.features).filter(
          (p) => ctx.capabilities[p.capability] === undefined,
        );
        if (!undeclared.length)
          return { verdict: 'skip', message: 'the server declared every capability this case probes' };
        const ids: number[] = [];
        const served: string[] = [];
        const other: string[] = [];
        const silent: string[] = [];
        for (const p of undeclared) {
          let reply;
          try {
            reply = await ctx.session.request(p.method, p.params, {
              timeoutMs: Math.min(ctx.timeoutMs, UNDECLARED_WAIT_MS),
            });
          } catch (e) {
            const u = unanswered(e as Error);
            if (u.verdict === 'skip' || ctx.session.closed)
              return { ...u, messageIds: [...ids, ...(u.messageIds ?? [])] };
            ids.push(...(u.messageIds ?? []));
            silent.push(`${p.method} (${p.capability} not declared): ${(e as Error).message}`);
            continue;
          }
          ids.push(reply.request.seq, reply.response.seq);
          const result = isObject(reply.response.json)
            ? (reply.response.json as Record<string, unknown>).result
            : undefined;
          if (!reply.error)
            served.push(`${p.method} (${p.capability} not declared) answered a result: ${brief(result, 80)}`);
          else if (reply.error.code !== -32601) other.push(`${p.method}: ${describeError(reply.error)}`);
        }
        if (silent.length)
          return {
            verdict: 'fail',
            messageIds: ids,
            message: `not answered: ${silent.join('; ')}${served.length ? `; served anyway: ${served.join('; ')}` : ''} — every request gets an answer, -32601 for a method the server does not serve`,
          };
        if (served.length)
          return {
            verdict: 'warn',
            messageIds: ids,
            message: `${served.join('; ')}; a method of a capability not declared should be refused with -32601`,
          };
        return {
          verdict: 'pass',
          messageIds: ids,
          message: `refused: ${undeclared.map((p) => p.method).join(', ')}${other.length ? ` (not with -32601: ${other.join('; ')})` : ' (all with -32601)'}`,
        };
      },
    },
    {
      id: 'capabilities/list-changed',
      title: 'list_changed notifications only when listChanged is declared',
      level: 'SHOULD',
      spec: 'basic/lifecycle#capability-negotiation',
      requirement:
        'notifications/tools|resources|prompts/list_changed come only from a server that declared listChanged: true for that capability.',
      requires: { needs: 'log' },
      async run(ctx) {
        const sent = ctx.session.log.filter(
          (m) =>
            m.direction === 'from-server' &&
            m.kind === 'notification' &&
            m.method !== undefined &&
            LIST_CHANGED[m.method],
        );
        const bad = sent.filter((m) => {
          const cap = ctx.capabilities[LIST_CHANGED[m.method!]!];
          return !isObject(cap) || cap.listChanged !== true;
        });
        if (bad.length)
          return {
            verdict: 'warn',
            messageIds: bad.slice(0, 10).map((m) => m.seq),
            message: `${bad.length} list_changed notification(s) for a capability without listChanged: true (first: ${bad[0]!.method})`,
          };
        const silent = nothingHeard(ctx);
        if (silent) return silent;
        return {
          verdict: 'pass',
          messageIds: sent.slice(0, 10).map((m) => m.seq),
          message: sent.length
            ? `${sent.length} list_changed notification(s), each for a capability that declared listChanged`
            : 'no list_changed notification was sent',
        };
      },
    },
  ],
};
