/**
 * What 2026-07-28 adds to the server surface: cache hints on list results (ttlMs, cacheScope), input_required results
 * (multi-round-trip requests) recognised, and the extensions capability.
 * https://modelcontextprotocol.io/specification/2026-07-28/server/utilities/caching ,
 * https://modelcontextprotocol.io/specification/2026-07-28/basic/patterns/mrtr ,
 * https://modelcontextprotocol.io/specification/2026-07-28/basic/lifecycle
 */
import type { LoggedMessage } from '../core/log.js';
import type { Suite } from '../core/suite.js';
import { brief, describeError, isObject, unanswered } from './helpers.js';
import { MRTR_METHODS, isDeclared, mrtrExchanges, neededCapability, type MrtrExchange } from '../core/mrtr.js';
import { assertCallAllowed } from '../core/call-policy.js';
import { firstParams, inputProbeCases } from './mrtr-probes.js';

/** Methods whose 2026-07-28 results are cacheable (CacheableResult in the schema): they carry ttlMs and cacheScope. */
const LIST_METHODS = [
  'server/discover',
  'tools/list',
  'resources/list',
  'resources/templates/list',
  'prompts/list',
  'resources/read',
];

/** A `_meta` key with its mandatory prefix: reverse-DNS labels, a slash, a name (alphanumeric at both ends). */
const EXTENSION_KEY =
  /^[A-Za-z](?:[A-Za-z0-9-]*[A-Za-z0-9])?(?:\.[A-Za-z](?:[A-Za-z0-9-]*[A-Za-z0-9])?)*\/(?:[A-Za-z0-9](?:[A-Za-z0-9._-]*[A-Za-z0-9])?)?$/;

function resultOf(m: LoggedMessage): Record<string, unknown> | undefined {
  const r = isObject(m.json) ? (m.json as Record<string, unknown>).result : undefined;
  return isObject(r) ? r : undefined;
}

/** Every answer of the server whose result is input_required. */
function inputRequiredAnswers(log: readonly LoggedMessage[]): LoggedMessage[] {
  return log.filter(
    (m) => m.direction === 'from-server' && m.kind === 'response' && resultOf(m)?.resultType === 'input_required',
  );
}

function what(x: MrtrExchange): string {
  return `${x.method}${x.target !== undefined ? ` ${JSON.stringify(x.target)}` : ''}`;
}

export const surface2026: Suite = {
  id: 'surface-2026',
  title: 'The 2026-07-28 surface',
  description:
    'ttlMs/cacheScope on list results, input_required results (answered with canned input; altered retries probed), extensions',
  cases: [
    {
      id: 'surface-2026/cache-hints',
      title: 'cacheable results carry ttlMs and cacheScope',
      level: 'MUST',
      spec: 'server/utilities/caching',
      requirement:
        'In 2026-07-28 every cacheable result (resultType "complete") — of server/discover, tools/list, resources/list, resources/templates/list, prompts/list and resources/read — carries ttlMs (an integer ≥ 0: how long the client may cache it) and cacheScope ("public" or "private").',
      requires: { feature: 'cacheHints', needs: 'log' },
      async run(ctx) {
        const answers = ctx.session.log.filter(
          (m) =>
            m.direction === 'from-server' &&
            m.kind === 'response' &&
            m.method !== undefined &&
            LIST_METHODS.includes(m.method),
        );
        if (!answers.length) return { verdict: 'skip', message: 'a cacheable result was never sent' };
        const bad: string[] = [];
        for (const m of answers) {
          const r = resultOf(m);
          if (!r || r.resultType === 'input_required') continue;
          const ttl = r.ttlMs,
            scope = r.cacheScope;
          if (!Number.isInteger(ttl) || (ttl as number) < 0)
            bad.push(`${m.method} (message ${m.seq}): ttlMs is ${brief(ttl, 30)}`);
          if (scope !== 'public' && scope !== 'private')
            bad.push(`${m.method} (message ${m.seq}): cacheScope is ${brief(scope, 30)}`);
        }
        if (bad.length)
          return {
            verdict: 'fail',
            messageIds: answers.slice(0, 10).map((m) => m.seq),
            message: `cacheable results without valid cache hints: ${bad.slice(0, 4).join('; ')}`,
          };
        const scopes = [...new Set(answers.map((m) => String(resultOf(m)?.cacheScope)))];
        return {
          verdict: 'pass',
          messageIds: answers.slice(0, 10).map((m) => m.seq),
          message: `${answers.length} cacheable result(s), each with ttlMs and cacheScope (${scopes.join(', ')})`,
        };
      },
    },
    {
      id: 'surface-2026/input-required',
      title: 'input_required results are well-formed and only answer tools/call, prompts/get, resources/read',
      level: 'MUST',
      spec: 'basic/patterns/mrtr#server-requirements-basic-workflow',
      requirement:
        'An InputRequiredResult (resultType "input_required") answers only tools/call, prompts/get or resources/read; it carries inputRequests or requestState (at least one); inputRequests is a map whose values are elicitation/create, sampling/createMessage or roots/list requests; requestState is a string. The harness recognises such a result (it is never judged as a malformed result of the method) and answers it where it can (surface-2026/input-required-rounds).',
      requires: { feature: 'mrtr', needs: 'log' },
      async run(ctx) {
        const seen = inputRequiredAnswers(ctx.session.log);
        if (!seen.length) return { verdict: 'skip', message: 'an input_required result was never sent' };
        const bad: string[] = [];
        for (const m of seen) {
          const r = resultOf(m)!;
          const at = `the answer to ${m.method ?? 'a request'} (message ${m.seq})`;
          if (m.method !== undefined && !MRTR_METHODS.includes(m.method))
            bad.push(
              `${at}: ${m.method} may not be answered with input_required (only tools/call, prompts/get, resources/read)`,
            );
          if (r.inputRequests === undefined && r.requestState === undefined)
            bad.push(`${at} has neither inputRequests nor requestState`);
          if (r.requestState !== undefined && typeof r.requestState !== 'string')
            bad.push(`${at}: requestState is ${brief(r.requestState, 40)}, not a string`);
          if (r.inputRequests !== undefined && !isObject(r.inputRequests))
            bad.push(`${at}: inputRequests is ${brief(r.inputRequests, 40)}, not a map of requests`);
          else if (isObject(r.inputRequests)) {
            for (const [k, v] of Object.entries(r.inputRequests)) {
              if (!neededCapability(v))
                bad.push(
                  `${at}: inputRequests["${k}"] is ${brief(v, 60)}, not an elicitation/create, sampling/createMessage or roots/list request`,
                );
            }
          }
        }
        const ids = seen.slice(0, 10).map((m) => m.seq);
        if (bad.length)
          return {
            verdict: 'fail',
            messageIds: ids,
            message: `${bad.length} problem(s) in ${seen.length} input_required result(s): ${bad.slice(0, 4).join('; ')}`,
          };
        const kinds = [
          ...new Set(
            seen.flatMap((m) => {
              const r = resultOf(m)!;
              return isObject(r.inputRequests)
                ? Object.values(r.inputRequests).map((v) => String((v as Record<string, unknown>).method))
                : ['requestState only'];
            }),
          ),
        ];
        return {
          verdict: 'pass',
          messageIds: ids,
          message: `${seen.length} input_required result(s) (to ${[...new Set(seen.map((m) => m.method))].join(', ')}; asking for ${kinds.join(', ')}), each well-formed`,
        };
      },
    },
    {
      id: 'surface-2026/input-requests-declared',
      title: 'input requests ask only for client capabilities that were declared',
      level: 'MUST',
      spec: 'basic/patterns/mrtr#server-requirements-basic-workflow',
      requirement:
        'A server puts in inputRequests only requests the client declared support for in its capabilities (the harness declares what --client-capabilities names, by default nothing): no elicitation/create without elicitation (nor in url mode without elicitation.url), no sampling/createMessage without sampling (nor with tools without sampling.tools), no roots/list without roots. A server that needs one the client lacks answers error -32021 instead.',
      requires: { feature: 'mrtr', needs: 'log' },
      async run(ctx) {
        const declared = ctx.session.opts.clientCapabilities ?? {};
        const names = Object.keys(declared);
        const seen = inputRequiredAnswers(ctx.session.log).filter((m) => isObject(resultOf(m)!.inputRequests));
        if (!seen.length)
          return { verdict: 'skip', message: 'an input_required result with inputRequests was never sent' };
        const bad: { m: LoggedMessage; what: string }[] = [];
        let count = 0;
        for (const m of seen) {
          for (const [k, v] of Object.entries(resultOf(m)!.inputRequests as Record<string, unknown>)) {
            const need = neededCapability(v);
            if (!need) continue; // not a request kind at all: surface-2026/input-required
            count++;
            if (!isDeclared(need, declared))
              bad.push({ m, what: `"${k}" (${need.label}) in the answer to ${m.method} (message ${m.seq})` });
          }
        }
        const decl = `the harness declared ${names.length ? names.map((n) => (isObject(declared[n]) && Object.keys(declared[n] as object).length ? `${n} ${JSON.stringify(declared[n])}` : n)).join(', ') : 'no client capability'} (--client-capabilities)`;
        if (bad.length)
          return {
            verdict: 'fail',
            messageIds: [...new Set(bad.map((b) => b.m.seq))].slice(0, 10),
            message: `${bad.length} input request(s) for capabilities the client did not declare: ${bad
              .slice(0, 4)
              .map((b) => b.what)
              .join('; ')}; ${decl}, and the harness did not answer them`,
          };
        return {
          verdict: 'pass',
          messageIds: seen.slice(0, 10).map((m) => m.seq),
          message: `${count} input request(s), each for a declared capability (${decl})`,
        };
      },
    },
    {
      id: 'surface-2026/input-required-rounds',
      title: 'answered with canned input and sent again, the request ends in a valid result of the method',
      level: 'MUST',
      spec: 'basic/patterns/mrtr#basic-workflow',
      requirement:
        'When the harness can answer every input request (canned answers of --client-capabilities: a fixed assistant text, an elicitation decline, the --root list) it sends the request again with a new id, inputResponses under the server\'s keys and requestState echoed exactly — at most 3 times. The final answer is a result of the method with resultType "complete" that conforms to the schema (or a JSON-RPC error). Input it cannot give (a capability not declared, a kind it does not know) and a server that keeps asking are reported as not exercisable, not as faults.',
      requires: { feature: 'mrtr', needs: 'log' },
      async run(ctx) {
        const xs = await ctx.service(mrtrExchanges);
        if (!xs.length)
          return { verdict: 'skip', message: 'an input_required result was never sent to a request of the harness' };
        const ids = xs.flatMap((x) => x.rounds.flatMap((r) => [r.request.seq, r.response.seq])).slice(0, 20);
        const answered = xs.filter((x) => x.rounds.length > 1);
        const bad: string[] = [];
        for (const x of answered) {
          const last = x.rounds.at(-1)!;
          if (x.outcome !== 'complete') continue;
          const kind = last.result?.resultType;
          if (kind !== 'complete')
            bad.push(
              `${what(x)}: the final result (message ${last.response.seq}) has resultType ${brief(kind, 30)}, not "complete"`,
            );
          else if (last.response.schema.checked && !last.response.schema.valid)
            bad.push(
              `${what(x)}: the final result (message ${last.response.seq}) is not a valid ${last.response.schema.definition ?? 'result'}: ${last.response.schema.violations
                .slice(0, 2)
                .map((v) => `${v.pointer || '(root)'} ${v.message}`)
                .join('; ')}`,
            );
        }
        if (bad.length) return { verdict: 'fail', messageIds: ids, message: bad.slice(0, 4).join('; ') };
        const lines = xs.slice(0, 6).map((x) => {
          const n = x.rounds.length - 1;
          const last = x.rounds.at(-1)!;
          switch (x.outcome) {
            case 'complete':
              return `${what(x)}: ${n} round(s) answered (${x.answered.flat().join('; ')}), then a complete result`;
            case 'error':
              return `${what(x)}: ${n} round(s) answered (${x.answered.flat().join('; ')}), then error ${last.error!.code}`;
            case 'failure':
              return `${what(x)}: ${n} round(s) answered, then no answer`;
            case 'still-asking':
              return `${what(x)}: ${x.note}`;
            default:
              return `${what(x)}: not exercisable — ${x.note}`;
          }
        });
        const more = xs.length > 6 ? ` (and ${xs.length - 6} more)` : '';
        if (!answered.some((x) => x.outcome === 'complete' || x.outcome === 'error'))
          return {
            verdict: 'info',
            messageIds: ids,
            message: `${xs.length} request(s) met input_required; none ended in a final answer the harness could judge: ${lines.join('; ')}${more}`,
          };
        const stuck = xs.length - answered.length + xs.filter((x) => x.outcome === 'still-asking').length;
        return {
          verdict: 'pass',
          messageIds: ids,
          message: `${answered.length} of ${xs.length} request(s) that met input_required were answered and sent again${stuck ? ` (${stuck} not exercisable)` : ''}: ${lines.join('; ')}${more}`,
        };
      },
    },
    {
      id: 'surface-2026/input-missing-reasked',
      title: 'a retry without the requested input is asked again, not refused',
      level: 'SHOULD',
      spec: 'basic/patterns/mrtr#error-handling',
      requirement:
        'When a retry lacks input the server asked for and needs, the server should answer a new input_required result asking for it again rather than an error. Probed once: a request that met input_required with inputRequests earlier in the run is sent again with its requestState (if any) and no inputResponses. A tools/call goes out only when the call policy allows the tool.',
      requires: { feature: 'mrtr' },
      async run(ctx) {
        const xs = await ctx.service(mrtrExchanges);
        const x = xs.find(
          (e) =>
            e.outcome !== 'not-exercisable' &&
            isObject(e.rounds[0]!.result?.inputRequests) &&
            Object.keys(e.rounds[0]!.result!.inputRequests as object).length > 0,
        );
        if (!x)
          return {
            verdict: 'skip',
            message: xs.length
              ? 'no request that met input_required with inputRequests could be answered earlier in the run (not exercisable: see surface-2026/input-required-rounds)'
              : 'an input_required result with inputRequests was never sent earlier in the run',
          };
        const first = x.rounds[0]!;
        const sentParams = firstParams(x);
        const state = first.result!.requestState;
        if (typeof state === 'string') sentParams.requestState = state;
        if (x.method === 'tools/call' && typeof sentParams.name === 'string') {
          try {
            await assertCallAllowed(ctx, sentParams.name, 'mrtr-missing-input');
          } catch (e) {
            return { verdict: 'skip', message: `not probed: ${(e as Error).message}` };
          }
        }
        const sent = `${what(x)} sent again ${typeof state === 'string' ? 'with the requestState of its first answer' : 'as first sent'}, without inputResponses (the server had asked for ${Object.keys(
          first.result!.inputRequests as object,
        )
          .map((k) => `"${k}"`)
          .join(', ')})`;
        let reply;
        try {
          reply = await ctx.session.request(x.method, sentParams);
        } catch (e) {
          return unanswered(e as Error);
        }
        const messageIds = [first.request.seq, first.response.seq, reply.request.seq, reply.response.seq];
        if (isObject(reply.result) && reply.result.resultType === 'input_required') {
          const keys = isObject(reply.result.inputRequests) ? Object.keys(reply.result.inputRequests) : [];
          return {
            verdict: 'pass',
            messageIds,
            message: `${sent}: answered input_required again${keys.length ? ` asking for ${keys.map((k) => `"${k}"`).join(', ')}` : ' (requestState only)'}`,
          };
        }
        if (reply.error)
          return {
            verdict: 'warn',
            messageIds,
            message: `${sent}: answered with error ${describeError(reply.error)}; a server should ask for missing input again with input_required rather than refuse`,
          };
        return {
          verdict: 'info',
          messageIds,
          message: `${sent}: answered with a ${String(reply.result?.resultType ?? 'result')} result — the server went on without the input (allowed when it does not need it)`,
        };
      },
    },
    ...inputProbeCases,
    {
      id: 'surface-2026/extensions',
      title: 'declared extensions have prefixed identifiers and object settings',
      level: 'MUST',
      spec: 'basic/lifecycle',
      requirement:
        'capabilities.extensions maps extension identifiers — _meta-style keys with a mandatory prefix, e.g. "io.modelcontextprotocol/tasks" — to settings objects ({} for none).',
      requires: { feature: 'extensions' },
      async run(ctx) {
        const ext = ctx.capabilities.extensions;
        if (ext === undefined)
          return { verdict: 'skip', message: 'no extension declared (capabilities.extensions is absent)' };
        if (!isObject(ext))
          return { verdict: 'fail', message: `capabilities.extensions is ${brief(ext, 60)}, not an object` };
        const bad = Object.entries(ext).flatMap(([k, v]) => [
          ...(EXTENSION_KEY.test(k)
            ? []
            : [`"${k}" is not a prefixed identifier (like io.modelcontextprotocol/tasks)`]),
          ...(isObject(v) ? [] : [`the settings of "${k}" are ${brief(v, 40)}, not an object`]),
        ]);
        if (bad.length) return { verdict: 'fail', message: bad.slice(0, 4).join('; ') };
        return { verdict: 'pass', message: `extensions: ${Object.keys(ext).join(', ') || 'none (empty object)'}` };
      },
    },
  ],
};
