/**
 * Server-to-client requests (sampling/createMessage, elicitation/create, roots/list): a server asks only for what the
 * client declared (--client-capabilities), and what it asks is answered with the documented canned results.
 * https://modelcontextprotocol.io/specification/2025-11-25/basic/lifecycle#operation
 */
import { CAPABILITY_OF_REQUEST } from '../core/client-capabilities.js';
import { isDeclared, neededCapability } from '../core/mrtr.js';
import type { LoggedMessage } from '../core/log.js';
import type { Suite } from '../core/suite.js';
import type { VersionFeatures } from '../core/features.js';
import { nothingHeard } from './helpers.js';

function serverRequests(log: readonly LoggedMessage[]): LoggedMessage[] {
  return log.filter(
    (m) =>
      m.direction === 'from-server' &&
      m.kind === 'request' &&
      m.method !== undefined &&
      CAPABILITY_OF_REQUEST[m.method],
  );
}

/**
 * How strongly the spec forbids a request for a capability the client did not declare: elicitation from 2025-11-25
 * (servers MUST NOT send elicitation requests in a mode the client does not support); otherwise the lifecycle's
 * "only use capabilities that were negotiated" (SHOULD).
 */
function strength(method: string, f: Readonly<VersionFeatures>): 'MUST' | 'SHOULD' {
  return method === 'elicitation/create' && f.elicitationMust ? 'MUST' : 'SHOULD';
}

export const serverRequestsSuite: Suite = {
  id: 'server-requests',
  title: 'Server-to-client requests',
  description: 'sampling, elicitation and roots requests only for declared client capabilities; canned answers',
  cases: [
    {
      id: 'server-requests/declared-only',
      title: 'the server asks only for client capabilities that were declared',
      level: 'MUST',
      spec: 'basic/lifecycle#operation',
      requirement:
        "A server sends sampling/createMessage, elicitation/create or roots/list only when the client declared sampling, elicitation or roots (the harness declares what --client-capabilities names, by default nothing; elicitation form mode only, sampling without tools). Elicitation without the capability breaks a MUST NOT from 2025-11-25 (fail); otherwise the lifecycle's SHOULD (warn). In 2026-07-28 a server sends none of them as requests (multi round-trip requests: fail).",
      requires: { needs: 'log' },
      async run(ctx) {
        const declared = ctx.session.opts.clientCapabilities ?? {};
        const reqs = serverRequests(ctx.session.log);
        // 2026-07-28: such requests go through input_required results (multi round-trip requests), never on their own.
        if (ctx.features.mrtr && reqs.length) {
          return {
            verdict: 'fail',
            messageIds: reqs.slice(0, 10).map((m) => m.seq),
            message: `the server sent ${reqs.length} request(s) of its own (${[...new Set(reqs.map((m) => m.method))].join(', ')}); in ${ctx.version} a server asks for them through an input_required result (multi round-trip requests), never as a request`,
          };
        }
        // An elicitation in url mode needs elicitation.url declared (a bare elicitation: {} is form only), sampling
        // with tools needs sampling.tools (core/mrtr.ts neededCapability: the same rule as for 2026-07-28 input requests).
        const bad = reqs.filter(
          (m) => !isDeclared(neededCapability(m.json) ?? { capability: CAPABILITY_OF_REQUEST[m.method!]! }, declared),
        );
        const silent = reqs.length ? undefined : nothingHeard(ctx);
        if (silent) return silent;
        if (!bad.length)
          return {
            verdict: 'pass',
            messageIds: reqs.slice(0, 10).map((m) => m.seq),
            message: reqs.length
              ? `${reqs.length} server request(s), each for a declared capability`
              : 'the server sent no sampling, elicitation or roots request the client had not declared',
          };
        const must = bad.filter((m) => strength(m.method!, ctx.features) === 'MUST');
        const methods = [
          ...new Set(
            bad.map((m) => {
              const need = neededCapability(m.json);
              return need?.sub ? `${m.method} (${need.label})` : m.method;
            }),
          ),
        ].join(', ');
        const declaredNames = Object.keys(declared);
        return {
          verdict: must.length ? 'fail' : 'warn',
          level: must.length ? 'MUST' : 'SHOULD',
          messageIds: bad.slice(0, 10).map((m) => m.seq),
          message: `the server sent ${bad.length} request(s) (${methods}) for client capabilities the harness did not declare (it declared ${declaredNames.length ? declaredNames.join(', ') : 'none'}${declaredNames.length ? '; elicitation form mode only, sampling without tools' : ''}); ${bad.every((m) => declared[CAPABILITY_OF_REQUEST[m.method!]!] === undefined) ? 'each was answered -32601' : 'those of an undeclared capability were answered -32601, the others (a mode or feature not declared) got the canned answer'}`,
        };
      },
    },
    {
      id: 'server-requests/answered',
      title: 'server requests for declared capabilities got the canned answers',
      level: 'MAY',
      spec: 'client/sampling',
      requirement:
        "With --client-capabilities, the server's sampling/createMessage, elicitation/create and roots/list requests are answered (a fixed assistant text; decline; the --root list): which ones came is reported (info).",
      requires: { needs: 'log' },
      async run(ctx) {
        const declared = ctx.session.opts.clientCapabilities ?? {};
        const reqs = serverRequests(ctx.session.log).filter(
          (m) => declared[CAPABILITY_OF_REQUEST[m.method!]!] !== undefined,
        );
        if (!reqs.length)
          return {
            verdict: 'skip',
            message: `a request for a declared client capability was never sent (declared: ${Object.keys(declared).join(', ') || 'none'})`,
          };
        const counts = new Map<string, number>();
        for (const m of reqs) counts.set(m.method!, (counts.get(m.method!) ?? 0) + 1);
        return {
          verdict: 'info',
          messageIds: reqs.slice(0, 10).map((m) => m.seq),
          message: `answered with canned results: ${[...counts].map(([k, n]) => `${k} ×${n}`).join(', ')}`,
        };
      },
    },
  ],
};
