/**
 * client-2026: a client of protocol 2026-07-28 — `_meta` on every request, the request-metadata headers over HTTP
 * (equal to the body), version negotiation (the server/discover probe, the fallback of a dual-era client, a retry
 * after -32022, the discover result kept), multi round-trip requests (input_required answered and retried), and
 * subscriptions/listen. Skipped for a client that sent no 2026-07-28 request.
 * https://modelcontextprotocol.io/specification/2026-07-28/basic/versioning
 */
import type { LoggedMessage } from '../../core/log.js';
import type { Outcome } from '../../core/suite.js';
import { MOCK_REQUEST_STATE, type ClientExchange } from '../../mocks/client-mock.js';
import { headerParams, headerValue } from '../../core/param-headers.js';
import {
  ending,
  fromClient,
  isModernMessage,
  isObj,
  label,
  metaVersion,
  type ClientCaseContext,
  type ClientCaseDef,
  type ClientSuite,
} from './helpers.js';
import { META } from '../../core/wire.js';

/** The requirements are those of 2026-07-28 whatever version a fallen-back client spoke: the links say so. */
const SPEC = 'https://modelcontextprotocol.io/specification/2026-07-28';
const META_CAPS = META.clientCapabilities;
const META_INFO = META.clientInfo;
const HTTP = ['streamable-http' as const];
const NAMED: Record<string, 'name' | 'uri'> = { 'tools/call': 'name', 'prompts/get': 'name', 'resources/read': 'uri' };

const paramsOf = (m: LoggedMessage): Record<string, unknown> =>
  isObj(m.json) && isObj(m.json.params) ? m.json.params : {};
const metaOf = (m: LoggedMessage): Record<string, unknown> => {
  const p = paramsOf(m);
  return isObj(p._meta) ? p._meta : {};
};
const errorOf = (m: LoggedMessage | undefined): Record<string, unknown> | undefined =>
  m && isObj(m.json) && isObj(m.json.error) ? m.json.error : undefined;
const resultOf = (m: LoggedMessage | undefined): Record<string, unknown> | undefined =>
  m && isObj(m.json) && isObj(m.json.result) ? m.json.result : undefined;

/** The 2026-07-28 requests of the client (probes included). */
const modernRequests = (ctx: ClientCaseContext) => fromClient(ctx).filter(isModernMessage);
const answerTo = (ctx: ClientCaseContext, q: LoggedMessage) => ctx.log.find((m) => m.inReplyTo === q.seq);
const exchangeOf = (ctx: ClientCaseContext, m: LoggedMessage) => (m.http ? ctx.exchanges[m.http.exchange] : undefined);
const NONE =
  'the client sent no 2026-07-28 request (no server/discover, no _meta version): it spoke an earlier version';

/** Runs a case body only when the client sent a 2026-07-28 request (and over HTTP when asked). */
function modern(body: (ctx: ClientCaseContext, qs: LoggedMessage[]) => Outcome): (ctx: ClientCaseContext) => Outcome {
  return (ctx) => {
    const qs = modernRequests(ctx);
    return qs.length ? body(ctx, qs) : { verdict: 'skip', message: NONE };
  };
}

/** A header check on the POST of each request: fail naming the first three that break it. */
function perPost(
  ctx: ClientCaseContext,
  qs: LoggedMessage[],
  problem: (q: LoggedMessage, e: ClientExchange) => string | undefined,
  ok: string,
): Outcome {
  const bad: string[] = [];
  const ids: number[] = [];
  for (const q of qs) {
    const e = exchangeOf(ctx, q);
    const p = e ? problem(q, e) : undefined;
    if (p) {
      bad.push(`${label(q)}: ${p}`);
      ids.push(q.seq);
    }
  }
  if (bad.length)
    return {
      verdict: 'fail',
      message: `${bad.length} of ${qs.length} requests: ${bad.slice(0, 3).join('; ')}`,
      messageIds: ids.slice(0, 10),
    };
  return { verdict: 'pass', message: ok };
}

const cases: ClientCaseDef[] = [
  {
    id: 'client-2026/meta',
    title: '_meta carries the protocol version and the client capabilities on every request',
    level: 'MUST',
    spec: `${SPEC}/basic/index#meta`,
    requirement:
      'Every request of a 2026-07-28 client carries, in params._meta, io.modelcontextprotocol/protocolVersion (a string) and io.modelcontextprotocol/clientCapabilities (an object).',
    run: modern((ctx, qs) => {
      // Every 2026-07-28 request, and every request of a session that speaks 2026-07-28 (one without the version there is the defect).
      const inModern = ctx.sessions
        .filter((s) => s.era === 'modern')
        .flatMap((s) => s.messages.filter((m) => m.direction === 'to-server' && m.kind === 'request'));
      const mine = [...new Set([...qs, ...inModern])].sort((a, b) => a.seq - b.seq);
      const bad = mine.filter(
        (m) => typeof metaOf(m)[META.protocolVersion] !== 'string' || !isObj(metaOf(m)[META_CAPS]),
      );
      if (!mine.length)
        return {
          verdict: 'skip',
          message: 'the client only probed with server/discover and then spoke an earlier version',
        };
      if (bad.length)
        return {
          verdict: 'fail',
          message: `${bad.length} of ${mine.length} requests lack them: ${bad
            .slice(0, 3)
            .map((m) => `${label(m)} _meta ${JSON.stringify(metaOf(m))}`)
            .join('; ')}`,
          messageIds: bad.slice(0, 10).map((m) => m.seq),
        };
      return {
        verdict: 'pass',
        message: `${mine.length} requests, each with the version (${[...new Set(mine.map((m) => String(metaVersion(m.json))))].join(', ')}) and capabilities in _meta`,
      };
    }),
  },
  {
    id: 'client-2026/client-info',
    title: '_meta carries clientInfo on every request',
    level: 'SHOULD',
    spec: `${SPEC}/basic/index#meta`,
    requirement:
      'A 2026-07-28 client includes io.modelcontextprotocol/clientInfo (name and version) on every request unless configured not to.',
    run: modern((_ctx, qs) => {
      const bad = qs.filter((m) => {
        const ci = metaOf(m)[META_INFO];
        return !isObj(ci) || typeof ci.name !== 'string' || typeof ci.version !== 'string';
      });
      if (bad.length)
        return {
          verdict: 'warn',
          message: `${bad.length} of ${qs.length} requests without clientInfo { name, version }: ${bad.slice(0, 3).map(label).join(', ')}`,
          messageIds: bad.slice(0, 10).map((m) => m.seq),
        };
      const ci = metaOf(qs[0]!)[META_INFO] as Record<string, unknown>;
      return {
        verdict: 'pass',
        message: `${qs.length} requests, each naming the client (${String(ci.name)} ${String(ci.version)})`,
      };
    }),
  },
  {
    id: 'client-2026/version-header',
    title: 'MCP-Protocol-Version on every POST, equal to the _meta version',
    level: 'MUST',
    spec: `${SPEC}/basic/transports/streamable-http#protocol-version-header`,
    transports: HTTP,
    requirement:
      'Every POST of a 2026-07-28 request carries the MCP-Protocol-Version header, with the value of io.modelcontextprotocol/protocolVersion in its _meta.',
    run: modern((ctx, qs) =>
      perPost(
        ctx,
        qs,
        (q, e) => {
          const h = e.headers['mcp-protocol-version'];
          return h === metaVersion(q.json)
            ? undefined
            : `header ${h === undefined ? '(none)' : h}, _meta ${JSON.stringify(metaVersion(q.json))}`;
        },
        `${qs.length} requests, each with MCP-Protocol-Version equal to its _meta version`,
      ),
    ),
  },
  {
    id: 'client-2026/standard-headers',
    title: 'Mcp-Method (and Mcp-Name for named calls) mirror the body',
    level: 'MUST',
    spec: `${SPEC}/basic/transports/streamable-http#standard-request-headers`,
    transports: HTTP,
    requirement:
      'Every 2026-07-28 request POST carries Mcp-Method equal to its method; tools/call, resources/read and prompts/get also Mcp-Name equal to params.name or params.uri (Base64 in the =?base64?…?= form when not plain ASCII).',
    run: modern((ctx, qs) =>
      perPost(
        ctx,
        qs,
        (q, e) => {
          const problems: string[] = [];
          if (e.headers['mcp-method'] !== q.method) problems.push(`Mcp-Method ${e.headers['mcp-method'] ?? '(none)'}`);
          const field = NAMED[q.method ?? ''];
          if (field) {
            const h = e.headers['mcp-name'];
            if (h === undefined || headerValue(h) !== paramsOf(q)[field])
              problems.push(`Mcp-Name ${h ?? '(none)'} for ${field} ${JSON.stringify(paramsOf(q)[field])}`);
          }
          return problems.length ? problems.join(', ') : undefined;
        },
        `${qs.length} requests, each with Mcp-Method${qs.some((q) => NAMED[q.method ?? '']) ? ' (and Mcp-Name where it names something)' : ''}`,
      ),
    ),
  },
  {
    id: 'client-2026/custom-headers',
    title: 'arguments marked x-mcp-header are mirrored in Mcp-Param-{Name}',
    level: 'MUST',
    spec: `${SPEC}/basic/transports/streamable-http#custom-headers-from-tool-parameters`,
    transports: HTTP,
    requirement:
      "A tools/call whose tool marks an argument with x-mcp-header in its inputSchema carries Mcp-Param-{Name} with that argument's value (omitted when the argument is absent or null).",
    run: modern((ctx, qs) => {
      let n = 0;
      const bad: string[] = [];
      const ids: number[] = [];
      for (const q of qs.filter((m) => m.method === 'tools/call')) {
        const tool = (ctx.fixture.tools ?? []).find((t) => t.name === paramsOf(q).name);
        const marked = headerParams(tool?.inputSchema);
        const e = exchangeOf(ctx, q);
        if (!marked.length || !e) continue;
        for (const h of marked) {
          let v: unknown = paramsOf(q).arguments;
          for (const k of h.path) v = isObj(v) ? v[k] : undefined;
          if (v === undefined || v === null) continue;
          n++;
          const got = e.headers[`mcp-param-${h.name.toLowerCase()}`];
          if (got === undefined || headerValue(got) !== String(v)) {
            bad.push(
              `${label(q)}: Mcp-Param-${h.name} ${got ?? '(none)'} for argument ${h.path.join('.')} ${JSON.stringify(v)}`,
            );
            ids.push(q.seq);
          }
        }
      }
      if (!n) return { verdict: 'skip', message: 'the client called no tool with an argument marked x-mcp-header' };
      if (bad.length) return { verdict: 'fail', message: bad.slice(0, 3).join('; '), messageIds: ids };
      return { verdict: 'pass', message: `${n} marked argument${n > 1 ? 's' : ''} mirrored in Mcp-Param-* headers` };
    }),
  },
  {
    id: 'client-2026/negotiation',
    title: 'version negotiation: the probe, a retry after -32022, the fallback of a dual-era client',
    level: 'SHOULD',
    spec: `${SPEC}/basic/versioning#protocol-version-negotiation`,
    requirement:
      "After -32022 (unsupported version) the client retries with a version from the error's supported list and does not fall back to initialize; a dual-era client whose server/discover probe gets any other error (or none) falls back to initialize, whatever the error code.",
    run: modern((ctx, qs) => {
      const probes = qs.filter((m) => m.method === 'server/discover');
      const unsupported = qs.map((q) => ({ q, a: answerTo(ctx, q) })).filter((x) => errorOf(x.a)?.code === -32022);
      const inits = fromClient(ctx).filter((m) => m.kind === 'request' && m.method === 'initialize');
      for (const { q, a } of unsupported) {
        const supported = (
          isObj(errorOf(a)!.data) ? (errorOf(a)!.data as Record<string, unknown>).supported : undefined
        ) as unknown[] | undefined;
        const after = qs.filter((m) => m.seq > a!.seq);
        const fellBack = inits.find((m) => m.seq > a!.seq);
        if (fellBack && !after.length)
          return {
            verdict: 'warn',
            message: `${label(q)} got -32022 (supported: ${JSON.stringify(supported)}); the client fell back to initialize instead of retrying with a supported version`,
            messageIds: [q.seq, a!.seq, fellBack.seq],
          };
        const retry = after.find((m) => Array.isArray(supported) && supported.includes(metaVersion(m.json)));
        if (!retry)
          return {
            verdict: 'warn',
            message: `${label(q)} got -32022 (supported: ${JSON.stringify(supported)}); the client sent no request with one of those versions; ${ending(ctx)}`,
            messageIds: [q.seq, a!.seq],
          };
      }
      const failedProbes = probes.filter((p) => {
        const a = answerTo(ctx, p);
        return !a || (a.kind === 'error' && errorOf(a)?.code !== -32022);
      });
      const okProbes = probes.filter((p) => answerTo(ctx, p)?.kind === 'response');
      const codes = [
        ...new Set(
          failedProbes.map((p) => {
            const c = errorOf(answerTo(ctx, p))?.code;
            return c === undefined ? 'no answer' : String(c);
          }),
        ),
      ];
      if (failedProbes.length && inits.some((i) => i.seq > failedProbes[0]!.seq))
        return {
          verdict: 'pass',
          message: `server/discover got ${codes.join(', ')} (a legacy server); the client fell back to initialize`,
          messageIds: [failedProbes[0]!.seq],
        };
      if (failedProbes.length && !okProbes.length)
        return {
          verdict: 'info',
          message: `server/discover got ${codes.join(', ')} (a legacy server); the client did not fall back to initialize (a 2026-07-28-only client; it should say why it stops); ${ending(ctx)}`,
          messageIds: [failedProbes[0]!.seq],
        };
      if (unsupported.length)
        return {
          verdict: 'pass',
          message: `after -32022 the client retried with a version the mock supports (${unsupported.length} time${unsupported.length > 1 ? 's' : ''})`,
        };
      if (okProbes.length)
        return {
          verdict: 'pass',
          message: `server/discover answered (${(resultOf(answerTo(ctx, okProbes[0]!))?.supportedVersions as unknown[] | undefined)?.join(', ')}); the client spoke ${String(metaVersion(qs[qs.length - 1]!.json))}`,
        };
      return {
        verdict: 'pass',
        message: `no probe: the client sent its requests with ${String(metaVersion(qs[0]!.json))} in _meta and the mock served them`,
      };
    }),
  },
  {
    id: 'client-2026/discover-cached',
    title: 'the server/discover result is kept, not asked again',
    level: 'SHOULD',
    spec: `${SPEC}/basic/versioning#backward-compatibility-with-initialization-based-versions`,
    requirement:
      'A client keeps what it learnt of the server (its era and versions) for the life of the server process (stdio) or origin (HTTP), re-probing only when that later fails; the discover result carries ttlMs.',
    run: modern((ctx) => {
      const per = ctx.sessions.map((s) => ({
        s,
        ok: s.messages.filter(
          (m) =>
            m.direction === 'to-server' &&
            m.method === 'server/discover' &&
            s.messages.some((a) => a.inReplyTo === m.seq && a.kind === 'response'),
        ),
      }));
      const again = per.filter((x) => x.ok.length > 1);
      if (!per.some((x) => x.ok.length))
        return { verdict: 'skip', message: 'no server/discover was answered with a result' };
      if (again.length) {
        const x = again[0]!;
        const how = x.s.exchanges.length
          ? 'over HTTP (the mock cannot tell one client process from another there)'
          : 'in one stdio process';
        return {
          verdict: x.s.exchanges.length ? 'info' : 'warn',
          message: `server/discover answered ${x.ok.length} times ${how} (ttlMs ${String(resultOf(answerTo(ctx, x.ok[0]!))?.ttlMs)})`,
          messageIds: x.ok.map((m) => m.seq).slice(0, 10),
        };
      }
      return { verdict: 'pass', message: 'each process or origin asked server/discover once' };
    }),
  },
  {
    id: 'client-2026/input-required',
    title: 'an input_required answer is retried with the inputs, requestState echoed, a new id',
    level: 'MUST',
    spec: `${SPEC}/basic/patterns/mrtr#client-requirements-basic-workflow`,
    scenarios: ['server-requests'],
    requirement:
      'After an InputRequiredResult, the client retries the original request with a new JSON-RPC id, inputResponses under every key of inputRequests (the inputs gathered first), and requestState echoed exactly (none when none was given).',
    run: modern((ctx, qs) => {
      const answer = ctx.log.find((m) => m.direction === 'from-server' && resultOf(m)?.resultType === 'input_required');
      if (!answer)
        return {
          verdict: 'skip',
          message: 'the mock answered no request with input_required: the client called no tool',
        };
      const first = ctx.log.find((m) => m.seq === answer.inReplyTo)!;
      const r = resultOf(answer)!;
      const keys = isObj(r.inputRequests) ? Object.keys(r.inputRequests) : [];
      const retry = qs.find(
        (m) =>
          m.seq > answer.seq &&
          m.method === first.method &&
          paramsOf(m)[NAMED[first.method ?? ''] ?? 'name'] === paramsOf(first)[NAMED[first.method ?? ''] ?? 'name'],
      );
      if (!retry)
        return {
          verdict: 'warn',
          message: `${label(first)} was answered input_required (${keys.length ? `inputRequests ${keys.join(', ')}` : 'requestState only'}); the client never sent it again; ${ending(ctx)}`,
          messageIds: [first.seq, answer.seq],
        };
      const p = paramsOf(retry);
      const problems: string[] = [];
      if (retry.id === first.id) problems.push(`the retry reuses id ${JSON.stringify(first.id)}`);
      if (p.requestState !== MOCK_REQUEST_STATE)
        problems.push(
          `requestState ${JSON.stringify(p.requestState)}, not the ${JSON.stringify(MOCK_REQUEST_STATE)} given`,
        );
      const responses = isObj(p.inputResponses) ? p.inputResponses : {};
      const missing = keys.filter((k) => !(k in responses));
      if (missing.length) problems.push(`inputResponses lacks ${missing.join(', ')}`);
      if (problems.length)
        return {
          verdict: 'fail',
          message: `${label(retry)} retries ${label(first)}: ${problems.join('; ')}`,
          messageIds: [first.seq, answer.seq, retry.seq],
        };
      return {
        verdict: 'pass',
        message: `${label(first)} retried as ${label(retry)} with ${keys.length ? `inputResponses ${keys.join(', ')} and ` : ''}requestState echoed`,
        messageIds: [first.seq, answer.seq, retry.seq],
      };
    }),
  },
  {
    id: 'client-2026/subscriptions',
    title: 'what the client listens to (subscriptions/listen)',
    level: 'MAY',
    spec: `${SPEC}/basic/patterns/subscriptions`,
    requirement:
      'A client may open subscriptions/listen to be told of changes (list_changed, resource updates); this records whether it did and with what filter.',
    run: modern((ctx, qs) => {
      if (!ctx.sessions.some((s) => s.era === 'modern'))
        return { verdict: 'skip', message: 'the client probed with server/discover and then spoke an earlier version' };
      const listens = qs.filter((m) => m.method === 'subscriptions/listen');
      if (!listens.length)
        return {
          verdict: 'info',
          message:
            'the client opened no subscriptions/listen (it is told of no change; its cache hints are all it has)',
        };
      return {
        verdict: 'info',
        message: `subscriptions/listen with ${listens.map((m) => JSON.stringify(paramsOf(m).notifications ?? {})).join(', ')}`,
        messageIds: listens.map((m) => m.seq),
      };
    }),
  },
];

export const client2026: ClientSuite = {
  id: 'client-2026',
  title: 'Client of protocol 2026-07-28',
  description:
    '_meta on every request, the request-metadata headers over HTTP, version negotiation and fallback, input_required rounds, subscriptions.',
  cases,
};
