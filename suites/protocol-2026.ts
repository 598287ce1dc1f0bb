/**
 * What 2026-07-28 asks of every request and result, judged by probes: a version the server does not serve is refused
 * with UnsupportedProtocolVersion (-32022) naming the versions it does; a request without the required `_meta` fields
 * is refused with -32602; clientInfo is optional; results name the server (`_meta` serverInfo, SHOULD); log messages
 * come only for a request that asked for them with a logLevel, and an unknown level is refused.
 * Over stdio each probe goes to a fresh server process (a probe the server takes badly must not change the run's
 * session: that is robustness/unknown-notification's to judge); over Streamable HTTP each is a POST of its own.
 * https://modelcontextprotocol.io/specification/2026-07-28/basic#meta ,
 * https://modelcontextprotocol.io/specification/2026-07-28/basic/versioning#protocol-version-negotiation ,
 * https://modelcontextprotocol.io/specification/2026-07-28/server/utilities/logging
 */
import { requestMetaFor } from '../core/negotiate.js';
import { CLIENT_INFO } from '../core/run.js';
import type { CaseContext, Outcome, Suite } from '../core/suite.js';
import { brief, describeError, isObject, nothingHeard } from './helpers.js';
import { LOG_LEVELS } from './logging.js';
import { callPlan } from '../core/call-policy.js';
import { generateArguments } from '../core/args/arguments.js';
import { assertCallAllowed } from '../core/call-policy.js';
import { headerSafe, paramHeaders } from '../core/param-headers.js';
import { META } from '../core/wire.js';

const META_VERSION = META.protocolVersion;
const META_CLIENT_INFO = META.clientInfo;
const META_SERVER_INFO = META.serverInfo;
const META_LOG_LEVEL = META.logLevel;
/** A version no server serves. */
const UNSERVED_VERSION = '1999-01-01';
/** How long a probe waits for its answer. */
const PROBE_MS = 10_000;

let probeIds = 0;

/** What a probe got: the JSON-RPC answer (error or result), and over HTTP the status. */
interface Asked {
  /** What was sent, in words. */
  sent: string;
  status?: number;
  error?: { code: number; message: string; data?: unknown };
  result?: unknown;
  /** No answer: why. */
  failure?: string;
  messageIds?: number[];
  details?: Record<string, unknown>;
  /** The levels of the notifications/message that came with the answer (on its response stream, or over stdio before it). */
  logLevels?: string[];
}

/**
 * The evidence of a probe's verdict: its details, and the error it was answered with (on a connection of its own, not
 * in the run's log: the engine's environment rule reads it from `errors`).
 */
function evidenceOf(a: Asked): { details: Record<string, unknown>; errors?: NonNullable<Asked['error']>[] } {
  return { details: a.details ?? {}, ...(a.error ? { errors: [a.error] } : {}) };
}

/** The method a probe sends: tools/list where tools are declared (a method every client uses), else server/discover. */
function probeMethod(ctx: CaseContext): string {
  return ctx.capabilities.tools ? 'tools/list' : 'server/discover';
}

/**
 * Send one request with exactly this `_meta` (undefined: none at all): over Streamable HTTP as a POST of its own with
 * the 2026-07-28 headers (MCP-Protocol-Version as the body says, Mcp-Method); over stdio on a fresh server process.
 */
async function ask(
  ctx: CaseContext,
  method: string,
  meta: Record<string, unknown> | undefined,
  sent: string,
  extra: Record<string, unknown> = {},
  inputSchema?: unknown,
): Promise<Asked> {
  const params = meta === undefined ? { ...extra } : { ...extra, _meta: meta };
  const t = ctx.http;
  if (t) {
    const version = typeof meta?.[META_VERSION] === 'string' ? (meta[META_VERSION] as string) : ctx.version;
    const body = JSON.stringify({ jsonrpc: '2.0', id: `mcp-conform-probe-2026-${++probeIds}`, method, params });
    // A named call mirrors its name into Mcp-Name (the Base64 sentinel where it is not plain visible ASCII), and a
    // tools/call the arguments its tool marks with x-mcp-header into Mcp-Param-{Name}, as the run's own calls do.
    const name =
      typeof extra.name === 'string' && ['tools/call', 'prompts/get'].includes(method) ? extra.name : undefined;
    const named: Record<string, string> =
      name === undefined
        ? {}
        : {
            'Mcp-Name': headerSafe(name),
            ...(method === 'tools/call' ? paramHeaders(inputSchema, extra.arguments) : {}),
          };
    const r = await t.probe({
      method: 'POST',
      body,
      withSession: false,
      headers: { 'MCP-Protocol-Version': version, 'Mcp-Method': method, ...named },
    });
    const m = r.messages.find((x) => isObject(x) && ('result' in x || 'error' in x)) as
      | Record<string, unknown>
      | undefined;
    const base: Asked = {
      sent,
      details: { exchange: r.exchange.n },
      logLevels: levelsOf(r.messages),
      ...(r.status !== undefined ? { status: r.status } : {}),
    };
    if (r.error) return { ...base, failure: r.error };
    if (!m)
      return {
        ...base,
        failure: `HTTP ${r.status}${r.body.trim() ? `: ${brief(r.body.trim(), 120)}` : ' with no JSON-RPC answer'}`,
      };
    return isObject(m.error) ? { ...base, error: m.error as Asked['error'] } : { ...base, result: m.result };
  }
  if (!ctx.openSession) return { sent, failure: 'no fresh connection could be opened for the probe' };
  let fresh;
  try {
    fresh = await ctx.openSession();
  } catch (e) {
    return { sent, failure: `a fresh connection could not be opened: ${(e as Error).message}` };
  }
  try {
    fresh.session.setRequestMeta(undefined); // exactly the _meta given, nothing merged in
    const reply = await fresh.session.request(method, params, { timeoutMs: Math.min(ctx.timeoutMs, PROBE_MS) });
    const where = {
      secondConnection: fresh.session.log.map(
        (m) => `${m.direction === 'to-server' ? '→' : '←'} ${brief(m.json ?? m.raw, 300)}`,
      ),
    };
    const logLevels = levelsOf(
      fresh.session.log.filter((m) => m.direction === 'from-server' && m.seq < reply.response.seq).map((m) => m.json),
    );
    return reply.error
      ? { sent, error: reply.error, details: where, logLevels }
      : { sent, result: reply.result, details: where, logLevels };
  } catch (e) {
    return { sent, failure: (e as Error).message };
  } finally {
    void fresh.close();
  }
}

/** The levels of the notifications/message among these messages ("(none)" for one without a string level). */
function levelsOf(messages: readonly unknown[]): string[] {
  return messages
    .filter((m) => isObject(m) && m.method === 'notifications/message')
    .map((m) => {
      const p = (m as Record<string, unknown>).params;
      return isObject(p) && typeof p.level === 'string' ? p.level : '(none)';
    });
}

/** The legacy (initialize-era) versions the server's server/discover lists. */
function legacyVersions(ctx: CaseContext): string[] {
  const listed = ctx.init.discover?.result?.supportedVersions;
  return Array.isArray(listed) ? listed.filter((v): v is string => typeof v === 'string' && v < '2026-07-28') : [];
}

/** "HTTP 400 with error code -32022 "…"" / "error code -32602 "…"" / "a result: {…}". */
function got(a: Asked): string {
  const http = a.status !== undefined ? `HTTP ${a.status} with ` : '';
  if (a.error) return `${http}error ${describeError({ code: a.error.code, message: String(a.error.message ?? '') })}`;
  return `${http}a result: ${brief(a.result, 100)}`;
}

/** The common grading: refused with `code` (and over HTTP with 400) passes; `otherwise` for the rest. */
function refusedWith(a: Asked, code: number, level: 'fail' | 'warn', why: string): Outcome {
  const o = evidenceOf(a);
  if (a.failure) return { verdict: 'fail', message: `${a.sent}: no answer (${a.failure})`, ...o };
  if (a.error?.code === code) {
    if (a.status !== undefined && a.status !== 400)
      return {
        verdict: 'fail',
        message: `${a.sent}: ${got(a)}; the error is right, but over HTTP its status must be 400 Bad Request`,
        ...o,
      };
    return { verdict: 'pass', message: `${a.sent}: ${got(a)}`, ...o };
  }
  if (a.error)
    return {
      verdict: level,
      message: `${a.sent}: ${got(a)}; expected error ${code}${a.status !== undefined ? ' with HTTP 400' : ''} (${why})`,
      ...o,
    };
  return { verdict: 'fail', message: `${a.sent}: ${got(a)} — served, where error ${code} was due (${why})`, ...o };
}

export const protocol2026: Suite = {
  id: 'protocol-2026',
  title: 'Requests and results of 2026-07-28',
  description:
    'unsupported version (-32022), required _meta (-32602), optional clientInfo, serverInfo on results, per-request log levels',
  cases: [
    {
      id: 'protocol-2026/unsupported-version',
      title: 'a request in a version the server does not serve is refused with -32022 naming the versions it does',
      level: 'MUST',
      spec: 'basic/versioning#protocol-version-negotiation',
      requirement: `A request whose _meta names a protocol version the server does not implement (here ${UNSERVED_VERSION}) is answered with UnsupportedProtocolVersionError: code -32022 with data.supported, the versions it does serve — clients retry with one of them, and a dual-era client takes any other error for a legacy server. Over Streamable HTTP with status 400.`,
      requires: { feature: 'requestMeta' },
      async run(ctx) {
        const method = probeMethod(ctx);
        const a = await ask(
          ctx,
          method,
          { ...requestMetaFor(ctx.version, CLIENT_INFO), [META_VERSION]: UNSERVED_VERSION },
          `${method} with _meta ${META_VERSION}: "${UNSERVED_VERSION}"`,
        );
        const o = refusedWith(a, -32022, 'fail', 'UnsupportedProtocolVersion');
        if (o.verdict !== 'pass') return o;
        const supported = isObject(a.error!.data) ? a.error!.data.supported : undefined;
        if (!Array.isArray(supported) || !supported.length || !supported.every((v) => typeof v === 'string')) {
          return {
            ...o,
            verdict: 'fail',
            message: `${o.message}; but data.supported is ${brief(supported, 60)}, where the list of versions the server serves is due`,
          };
        }
        if (!supported.includes(ctx.version))
          return {
            ...o,
            verdict: 'fail',
            message: `${o.message}; but data.supported (${JSON.stringify(supported)}) leaves out ${ctx.version}, which the server serves in this run`,
          };
        return { ...o, message: `${o.message}, data.supported ${JSON.stringify(supported)}` };
      },
    },
    {
      id: 'protocol-2026/missing-meta',
      title: 'a request without the required _meta fields is refused with -32602',
      level: 'MUST',
      spec: 'basic#meta',
      requirement:
        "Every request carries io.modelcontextprotocol/protocolVersion and io.modelcontextprotocol/clientCapabilities in _meta; a request without them is malformed and is refused with -32602 (invalid params), over Streamable HTTP with status 400. Another error code: warn; served: fail (warn for a dual-era server, which may take it for a legacy client's request).",
      requires: { feature: 'requestMeta' },
      async run(ctx) {
        const method = probeMethod(ctx);
        const a = await ask(ctx, method, undefined, `${method} without _meta`);
        const o = refusedWith(a, -32602, 'warn', 'a request without the required _meta fields is malformed');
        // A dual-era server (its server/discover lists legacy versions too) may take a request without _meta for a
        // legacy client's, which is served before initialize as 2025 servers do: a deviation, not a broken client.
        // The evidence: its server/discover lists legacy versions, or the answer has a legacy shape (no resultType).
        const legacy = legacyVersions(ctx);
        const legacyShaped = isObject(a.result) && a.result.resultType === undefined;
        if (o.verdict === 'fail' && a.result !== undefined && (legacy.length || legacyShaped)) {
          const why = legacy.length
            ? `the server also serves ${legacy.join(', ')} and may have taken it for a legacy client's request`
            : "the answer has no resultType: the server took it for a legacy (2025) client's request";
          return {
            ...o,
            verdict: 'warn',
            message: `${o.message}; ${why}, but a request that neither carries the 2026-07-28 _meta nor is initialize is malformed`,
          };
        }
        return o;
      },
    },
    {
      id: 'protocol-2026/client-info-optional',
      title: 'a request without clientInfo is served',
      level: 'MUST',
      spec: 'basic#meta',
      requirement:
        "io.modelcontextprotocol/clientInfo is optional in a request's _meta (clients should send it, servers must not require it): a request with the required fields and no clientInfo is served like any other.",
      requires: { feature: 'requestMeta' },
      async run(ctx) {
        const method = probeMethod(ctx);
        const meta = requestMetaFor(ctx.version, CLIENT_INFO);
        delete meta[META_CLIENT_INFO];
        const a = await ask(ctx, method, meta, `${method} with _meta without ${META_CLIENT_INFO}`);
        const o = evidenceOf(a);
        if (a.failure) return { verdict: 'fail', message: `${a.sent}: no answer (${a.failure})`, ...o };
        if (a.error)
          return {
            verdict: 'fail',
            message: `${a.sent}: ${got(a)}; clientInfo is optional, so the request is valid and is served`,
            ...o,
          };
        return { verdict: 'pass', message: `${a.sent}: served (${got(a)})`, ...o };
      },
    },
    {
      id: 'protocol-2026/stateless-after-notification',
      title: 'a notification without version _meta opening a connection changes nothing',
      level: 'MUST',
      spec: 'basic#statelessness',
      requirement:
        'The protocol is stateless: no earlier message may change how a request is served. On a fresh connection (over stdio a fresh server process) the harness sends server/discover, then a notification without any _meta (as a client may send notifications/cancelled), then server/discover again: it must succeed as the first did. A dual-era server that takes the notification for a legacy opening (and answers server/discover -32601 from then on) fails.',
      requires: { feature: 'requestMeta' },
      async run(ctx) {
        const meta = requestMetaFor(ctx.version, CLIENT_INFO);
        const note = { jsonrpc: '2.0', method: 'notifications/mcp-conform/unknown', params: {} };
        const sent = 'server/discover, a notification without _meta, server/discover again';
        const t = ctx.http;
        let first: Asked, second: Asked;
        const details: Record<string, unknown> = {};
        if (t) {
          first = await ask(ctx, 'server/discover', meta, 'server/discover');
          const n = await t.probe({
            method: 'POST',
            body: JSON.stringify(note),
            withSession: false,
            headers: { 'MCP-Protocol-Version': ctx.version, 'Mcp-Method': note.method },
          });
          details.notification = { exchange: n.exchange.n, status: n.status };
          second = await ask(ctx, 'server/discover', meta, 'server/discover');
        } else {
          if (!ctx.openSession)
            return { verdict: 'skip', message: 'no fresh connection could be opened for the probe' };
          let fresh;
          try {
            fresh = await ctx.openSession();
          } catch (e) {
            return { verdict: 'skip', message: `a fresh connection could not be opened: ${(e as Error).message}` };
          }
          try {
            fresh.session.setRequestMeta(undefined);
            const once = async (): Promise<Asked> => {
              try {
                const r = await fresh.session.request(
                  'server/discover',
                  { _meta: meta },
                  { timeoutMs: Math.min(ctx.timeoutMs, PROBE_MS) },
                );
                return r.error
                  ? { sent: 'server/discover', error: r.error }
                  : { sent: 'server/discover', result: r.result };
              } catch (e) {
                return { sent: 'server/discover', failure: (e as Error).message };
              }
            };
            first = await once();
            fresh.session.notify(note.method, note.params);
            second = await once();
            details.secondConnection = fresh.session.log.map(
              (m) => `${m.direction === 'to-server' ? '→' : '←'} ${brief(m.json ?? m.raw, 200)}`,
            );
          } finally {
            void fresh.close();
          }
        }
        if (first.failure || first.error)
          return {
            verdict: 'skip',
            message: `${sent}: the first server/discover already got ${first.failure ? `no answer (${first.failure})` : got(first)}, so what the notification changed cannot be told`,
            details,
          };
        if (second.failure)
          return {
            verdict: 'fail',
            message: `${sent}: the second server/discover got no answer (${second.failure}), where the first was served`,
            details,
          };
        if (second.error)
          return {
            verdict: 'fail',
            errors: [second.error],
            message: `${sent}: the second server/discover got ${got(second)}, where the first was served — the notification changed how the server serves requests (taken for a legacy opening?); 2026-07-28 is stateless`,
            details,
          };
        return { verdict: 'pass', message: `${sent}: both served`, details };
      },
    },
    {
      id: 'protocol-2026/server-info',
      title: 'results name the server in _meta (serverInfo)',
      level: 'SHOULD',
      spec: 'basic#meta',
      requirement:
        "A server should put io.modelcontextprotocol/serverInfo (its name and version) in every result's _meta, so that a client can tell who answered without relying on connection state.",
      requires: { feature: 'requestMeta', needs: 'log' },
      async run(ctx) {
        const results = ctx.session.log.filter(
          (m) => m.direction === 'from-server' && m.kind === 'response' && isObject(m.json) && isObject(m.json.result),
        );
        if (!results.length) return { verdict: 'skip', message: 'the server sent no result' };
        const without = results.filter((m) => {
          const r = (m.json as { result: Record<string, unknown> }).result;
          return !(isObject(r._meta) && isObject(r._meta[META_SERVER_INFO]));
        });
        const methods = (ms: typeof results) => [...new Set(ms.map((m) => m.method ?? '?'))].join(', ');
        if (without.length)
          return {
            verdict: 'warn',
            messageIds: without.slice(0, 10).map((m) => m.seq),
            message: `${without.length} of ${results.length} results carry no _meta ${META_SERVER_INFO} (${methods(without)})`,
          };
        const si = (results[0]!.json as { result: { _meta: Record<string, Record<string, unknown>> } }).result._meta[
          META_SERVER_INFO
        ]!;
        return {
          verdict: 'pass',
          message: `all ${results.length} results name the server (${String(si.name)} ${String(si.version)})`,
        };
      },
    },
    {
      id: 'protocol-2026/log-unrequested',
      title: 'no log message for a request that did not ask for one',
      level: 'MUST',
      spec: 'server/utilities/logging#per-request-log-level',
      requirement:
        "In 2026-07-28 log messages are request-scoped: the server sends notifications/message only on the response stream of a request whose _meta carries io.modelcontextprotocol/logLevel, at or above that level. The harness sends no logLevel in the run (except to logging/unknown-level's probe), so any notifications/message is one nobody asked for.",
      requires: { feature: 'requestMeta', needs: 'log' },
      async run(ctx) {
        const notes = ctx.session.log.filter(
          (m) => m.direction === 'from-server' && m.kind === 'notification' && m.method === 'notifications/message',
        );
        const asked = ctx.session.log.some(
          (m) =>
            m.direction === 'to-server' &&
            isObject(m.json) &&
            isObject(m.json.params) &&
            isObject(m.json.params._meta) &&
            META_LOG_LEVEL in m.json.params._meta,
        );
        if (notes.length && !asked)
          return {
            verdict: 'fail',
            messageIds: notes.slice(0, 10).map((m) => m.seq),
            message: `${notes.length} notifications/message, though no request asked for log messages (no ${META_LOG_LEVEL} in any _meta): ${brief(notes[0]!.json, 120)}`,
          };
        const silent = nothingHeard(ctx);
        if (silent) return silent;
        return {
          verdict: 'pass',
          message: notes.length
            ? `${notes.length} notifications/message, each after a request that asked for a log level`
            : 'no notifications/message: the harness asked for none',
        };
      },
    },
    {
      id: 'protocol-2026/log-level-unknown',
      title: 'a request with an unknown logLevel is refused with -32602',
      level: 'SHOULD',
      spec: 'server/utilities/logging#error-handling',
      requirement:
        'A request whose _meta io.modelcontextprotocol/logLevel is not one of the eight levels should be refused with -32602 (invalid params). Probed on a server that declares logging.',
      requires: { feature: 'requestMeta', capability: 'logging' },
      async run(ctx) {
        const method = probeMethod(ctx);
        const a = await ask(
          ctx,
          method,
          { ...requestMetaFor(ctx.version, CLIENT_INFO), [META_LOG_LEVEL]: 'mcp-conform-verbose' },
          `${method} with _meta ${META_LOG_LEVEL}: "mcp-conform-verbose"`,
        );
        const o = evidenceOf(a);
        if (a.failure) return { verdict: 'fail', message: `${a.sent}: no answer (${a.failure})`, ...o };
        if (a.error?.code === -32602) return { verdict: 'pass', message: `${a.sent}: ${got(a)}`, ...o };
        return {
          verdict: 'warn',
          message: `${a.sent}: ${got(a)}; an unknown log level should be refused with -32602`,
          ...o,
        };
      },
    },
    {
      id: 'protocol-2026/log-level-floor',
      title: 'no log message below the logLevel a request asked for',
      level: 'SHOULD',
      spec: 'server/utilities/logging#per-request-log-level',
      requirement: `A request that carries io.modelcontextprotocol/logLevel may get notifications/message at or above that level, before its answer. Probed on a server that declares logging: tools/call of up to three tools the call policy allows, then tools/list (or server/discover), each with logLevel "debug" until one is answered with log messages (none: nothing to judge, skip); that request is sent again with a floor just above the least severe level it got. A message below the floor warns: the spec grants messages at or above the level and says nothing of the others in a MUST.`,
      requires: { feature: 'requestMeta', capability: 'logging' },
      async run(ctx) {
        // The first of up to three callable tools (the call policy's plan) that logs at "debug"; else tools/list or server/discover.
        const plan = ctx.capabilities.tools ? await ctx.service(callPlan) : undefined;
        const candidates: { method: string; extra: Record<string, unknown>; what: string; schema?: unknown }[] = (
          plan?.call ?? []
        )
          .slice(0, 3)
          .map((t) => ({
            method: 'tools/call',
            extra: { name: t.name, arguments: generateArguments(t.inputSchema).value },
            what: `tools/call ${t.name}`,
            schema: t.inputSchema,
          }));
        candidates.push({ method: probeMethod(ctx), extra: {}, what: probeMethod(ctx) });
        const meta = (level: string) => ({ ...requestMetaFor(ctx.version, CLIENT_INFO), [META_LOG_LEVEL]: level });
        let loud: Asked | undefined;
        let c = candidates[0]!;
        const quietOnes: string[] = [];
        for (c of candidates) {
          if (c.method === 'tools/call') {
            try {
              await assertCallAllowed(ctx, String(c.extra.name), 'log-level-floor');
            } catch (e) {
              return { verdict: 'skip', message: `not probed: ${(e as Error).message}` };
            }
          }
          loud = await ask(ctx, c.method, meta('debug'), `${c.what} with logLevel "debug"`, c.extra, c.schema);
          if (loud.failure || loud.logLevels?.length) break;
          quietOnes.push(c.what);
        }
        if (loud!.failure)
          return {
            verdict: 'skip',
            message: `not judged: ${loud!.sent}: no answer (${loud!.failure})`,
            details: loud!.details ?? {},
          };
        const seen = (loud!.logLevels ?? [])
          .map((l) => LOG_LEVELS.indexOf(l as (typeof LOG_LEVELS)[number]))
          .filter((i) => i >= 0);
        if (!seen.length)
          return {
            verdict: 'skip',
            message: `a notifications/message was never sent with the answer to ${quietOnes.join(', ')} (each with logLevel "debug"): nothing below a level to look for`,
            details: loud!.details ?? {},
          };
        const least = Math.min(...seen);
        if (least === LOG_LEVELS.length - 1)
          return {
            verdict: 'skip',
            message: `${loud!.sent}: only "emergency" messages came, and no level is above it`,
            details: loud!.details ?? {},
          };
        const floor = LOG_LEVELS[least + 1]!;
        const quiet = await ask(ctx, c.method, meta(floor), `${c.what} with logLevel "${floor}"`, c.extra, c.schema);
        const details = { debug: loud!.details ?? {}, floor: quiet.details ?? {} };
        if (quiet.failure)
          return { verdict: 'skip', message: `not judged: ${quiet.sent}: no answer (${quiet.failure})`, details };
        const levels = quiet.logLevels ?? [];
        const below = levels.filter((l) => {
          const i = LOG_LEVELS.indexOf(l as (typeof LOG_LEVELS)[number]);
          return i >= 0 && i < least + 1;
        });
        const at = `at "debug" it sent ${loud!.logLevels!.length} message(s) (${[...new Set(loud!.logLevels)].join(', ')})`;
        if (below.length)
          return {
            verdict: 'warn',
            message: `${quiet.sent}: ${below.length} of ${levels.length} notifications/message below "${floor}" (${[...new Set(below)].join(', ')}); ${at}`,
            details,
          };
        return {
          verdict: 'pass',
          message: `${quiet.sent}: ${levels.length} notifications/message, none below "${floor}"; ${at}`,
          details,
        };
      },
    },
  ],
};
