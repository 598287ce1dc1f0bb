/**
 * security/session-isolation: several clients of one HTTP server at once (sessions, or stateless connections), each
 * request with the same JSON-RPC id and a canary of its own; an answer that reaches the wrong client fails. It is the
 * bug of GHSA-345p-7cg4-v4c7 (TypeScript SDK 1.10.0–1.25.3, one transport shared by every client), which leaked
 * users' data in production. The probe is the engine's (core/concurrency/); this file turns it into a verdict.
 * https://modelcontextprotocol.io/specification/2025-11-25/basic/transports#session-management
 */
import type { CaseDef, CaseContext, Outcome } from '../../core/suite.js';
import { callPlan } from '../../core/call-policy.js';
import { canaryRun, findCanaryTool } from '../../core/concurrency/canary.js';
import { crossedText, openClients, type ConcurrentClient } from '../../core/concurrency/clients.js';
import { probeIsolation } from '../../core/concurrency/isolation.js';
import { CLIENT_INFO } from '../../core/run.js';

/** How many clients: at least 4 (the issue's and the advisory's reproduction used 4). */
export const ISOLATION_CLIENTS = 4;
const ROUNDS = 3;
const ADVISORY = 'GHSA-345p-7cg4-v4c7';

async function methodsOf(ctx: CaseContext): Promise<string[]> {
  const caps = ctx.capabilities;
  // The request that shows the server answers: ping, or server/discover from 2026-07-28 (which has no ping).
  const m = [ctx.session.heartbeatMethod];
  if (caps.tools) m.push('tools/list');
  if (caps.prompts) m.push('prompts/list');
  if (caps.resources) m.push('resources/list');
  if (caps.resources && m.length < ISOLATION_CLIENTS) m.push('resources/templates/list');
  return m;
}

async function run(ctx: CaseContext): Promise<Outcome> {
  if (!ctx.openSession) return { verdict: 'skip', message: 'this run cannot open more connections to the server' };
  const plan = ctx.capabilities.tools ? await ctx.service(callPlan).catch(() => undefined) : undefined;
  const canaryTool = plan ? findCanaryTool(plan.call) : undefined;
  const methods = await methodsOf(ctx);
  const timeoutMs = Math.min(ctx.timeoutMs, 3000);
  const opened = await openClients(ISOLATION_CLIENTS, () => ctx.openSession!(), {
    version: ctx.version,
    stateless: ctx.features.requestMeta,
    clientInfo: CLIENT_INFO,
    timeoutMs,
  });
  const clients: ConcurrentClient[] = opened.clients;
  try {
    if (clients.length < 2) {
      return {
        verdict: 'skip',
        message: `fewer than two more sessions could be opened (${opened.failed.map((f) => `client ${f.index}: ${f.reason}`).join('; ')})`,
      };
    }
    const out = await probeIsolation(clients, {
      run: canaryRun(),
      rounds: ROUNDS,
      timeoutMs,
      budgetMs: 8000,
      canaryTool,
      methods,
      firstId: 7000,
    });
    const kind =
      ctx.features.requestMeta || !clients.some((c) => (c.transport as { sessionId?: string }).sessionId)
        ? 'stateless connections'
        : 'sessions';
    const how =
      out.by === 'tool-canary'
        ? `each calling ${out.tool} with its own canary`
        : `told apart by the shape of their answers (${methods.join(', ')}; ${out.noToolWhy ?? ''})`;
    const details = {
      clients: clients.length,
      failedToOpen: opened.failed,
      by: out.by,
      rounds: out.rounds,
      requests: out.sent,
      log: out.lines,
    };
    if (out.crossed.length) {
      const shown = out.crossed.slice(0, 3).map(crossedText);
      return {
        verdict: 'fail',
        message: `answers crossed between clients (${ADVISORY}): ${shown.join('; ')}${out.crossed.length > 3 ? `; ${out.crossed.length - 3} more` : ''} — ${clients.length} ${kind} sent the same JSON-RPC id at once, ${how}`,
        details,
      };
    }
    if (out.concurrencyOnly.length) {
      const shown = out.concurrencyOnly
        .slice(0, 3)
        .map((x) => `client ${x.request.client} ${x.request.tool ?? x.request.method}: ${x.what}`);
      return {
        verdict: 'warn',
        message: `no answer crossed, but ${out.concurrencyOnly.length} of ${out.sent} requests failed only when ${clients.length} ${kind} sent the same id at once (answered alone): ${shown.join('; ')}`,
        details,
      };
    }
    if (out.by === 'shape' && out.distinct < 2)
      return {
        verdict: 'skip',
        message: `no way to tell the clients' answers apart: ${out.noToolWhy}, and the server offers only ${methods[0]}`,
        details,
      };
    return {
      verdict: 'pass',
      message: `${clients.length} ${kind}, ${out.rounds} rounds with the same JSON-RPC id at once: every answer reached its own client (${how})`,
      details,
    };
  } finally {
    await Promise.all(clients.map((c) => c.close().catch(() => undefined)));
  }
}

export const isolationCases: CaseDef[] = [
  {
    id: 'security/session-isolation',
    title: 'answers reach the client that asked, when several clients send the same id at once',
    level: 'MUST',
    spec: 'basic/transports#session-management',
    requirement: `Each client gets its own answers: ${ISOLATION_CLIENTS} concurrent sessions (or stateless connections) send requests with the same JSON-RPC id at the same moment, each with its own canary (a read-only tool's echoed argument, else a method whose answer has a shape of its own); an answer carrying another client's canary or shape fails (${ADVISORY}); requests that fail only under concurrency warn.`,
    requires: { transports: ['streamable-http'] },
    run,
  },
];
