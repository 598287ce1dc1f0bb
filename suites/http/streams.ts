/**
 * Streamable HTTP cases about header values and SSE streams (part of the `http` suite):
 *  - 2026-07-28 header values: surrounding whitespace is no part of a value; legacy headers (a session id,
 *    Last-Event-ID) are ignored; the Mcp-Param-{Name} headers of arguments a tool marks with `x-mcp-header` are
 *    checked against the body, and the marks themselves are valid;
 *  - what a request's response stream may carry (2026-07-28: no requests, only notifications about that request;
 *    earlier: they should relate to it);
 *  - several streams at once: a message goes on one stream only (2025-03-26 … 2025-11-25);
 *  - SSE polling (2025-11-25): priming event, `retry` before an early close, resumption with Last-Event-ID.
 * https://modelcontextprotocol.io/specification/2026-07-28/basic/transports/streamable-http
 * https://modelcontextprotocol.io/specification/2025-11-25/basic/transports#streamable-http
 */
import type { LoggedMessage } from '../../core/log.js';
import type { CaseContext, CaseDef, Outcome } from '../../core/suite.js';
import type { HttpExchange, ProbeResult } from '../../core/transport/http.js';
import { tools as toolList } from '../../core/tools.js';
import { assertCallAllowed } from '../../core/call-policy.js';
import { callPlan } from '../../core/call-policy.js';
import { generateArguments } from '../../core/args/index.js';
import {
  argumentAt,
  headerParamProblems,
  headerParams,
  paramHeaderValue,
  type HeaderParam,
} from '../../core/param-headers.js';
import { brief, isObject } from '../helpers.js';
import { MISSING_TOOL, codeWords, errorCode, ok, probeBody, said } from './probes.js';

const HTTP = ['streamable-http'] as const;

/** A probe answer that shows the request was served: a 2xx carrying no JSON-RPC error. */
const served = (r: ProbeResult) => ok(r.status) && errorCode(r) === undefined;
/** A probe answer that shows a header mismatch was seen: 400 with -32020 (or any 400: the code is graded apart). */
const mismatch = (r: ProbeResult) => r.status === 400 && errorCode(r) === -32020;

/** The request each POST carried, by exchange: what a message on that POST's response stream came with. */
function requestsByExchange(log: readonly LoggedMessage[]): Map<number, LoggedMessage> {
  const out = new Map<number, LoggedMessage>();
  for (const x of log)
    if (x.direction === 'to-server' && x.kind === 'request' && x.http && !out.has(x.http.exchange))
      out.set(x.http.exchange, x);
  return out;
}

function progressTokenOf(m: LoggedMessage | undefined): unknown {
  const p = isObject(m?.json) && isObject(m.json.params) ? m.json.params : undefined;
  return p && isObject(p._meta) ? p._meta.progressToken : undefined;
}

/** The stream an exchange belongs to: a resumption (GET with Last-Event-ID) continues the stream it resumes. */
function streamOf(exchanges: readonly HttpExchange[], n: number): number {
  let x = exchanges[n];
  while (x?.resumes !== undefined && x.resumes !== x.n) x = exchanges[x.resumes];
  return x?.n ?? n;
}

/** A tool with a valid x-mcp-header mark the call policy lets the run call, its generated arguments and the marks they fill. */
interface MarkedCall {
  name: string;
  args: Record<string, unknown>;
  marks: HeaderParam[];
}

/**
 * The first tool the Mcp-Param probes may call: it marks an input property with a valid x-mcp-header, the call policy
 * allows it (a server that does not check the headers runs it), and the run's arguments for it fill a mark that
 * `usable` accepts; else the skip that says why.
 */
async function markedTool(
  ctx: CaseContext,
  purpose: string,
  usable: (value: unknown) => boolean,
): Promise<MarkedCall | Outcome> {
  const l = await ctx.service(toolList);
  const plan = await ctx.service(callPlan);
  const callable = new Set(plan.call.map((t) => t.name));
  const candidates = l.tools.filter(
    (t) => headerParams(t.inputSchema).length && !headerParamProblems(t.inputSchema).length,
  );
  if (!candidates.length)
    return { verdict: 'skip', message: 'nothing to judge: no tool marks an input property with a valid x-mcp-header' };
  const allowed = candidates.filter((c) => callable.has(c.name));
  for (const t of allowed) {
    const args = generateArguments(t.inputSchema).value;
    const marks = headerParams(t.inputSchema).filter(
      (h) => paramHeaderValue(argumentAt(args, h.path)) !== undefined && usable(argumentAt(args, h.path)),
    );
    if (marks.length) {
      await assertCallAllowed(ctx, t.name, purpose);
      return { name: t.name, args, marks };
    }
  }
  return {
    verdict: 'skip',
    message: allowed.length
      ? `the arguments the run makes for ${allowed.map((c) => c.name).join(', ')} leave the marked ${purpose === 'param-header-chars' ? 'string ' : ''}properties out`
      : `the call policy lets the run call none of the tools with marked arguments (${candidates
          .map((c) => c.name)
          .slice(0, 5)
          .join(', ')}): a server that does not check the headers would run the tool`,
  };
}

/** A copy of args with value at path (objects along it copied). */
function withArgument(args: Record<string, unknown>, path: readonly string[], value: unknown): Record<string, unknown> {
  const out = { ...args };
  let o: Record<string, unknown> = out;
  path.forEach((k, i) => {
    if (i === path.length - 1) {
      o[k] = value;
      return;
    }
    const next = isObject(o[k]) ? { ...(o[k] as Record<string, unknown>) } : {};
    o[k] = next;
    o = next;
  });
  return out;
}

const LIST_CHANGES = /^notifications\/(tools|prompts|resources)\/list_changed$|^notifications\/resources\/updated$/;

export const streamCases: CaseDef[] = [
  {
    id: 'http/2026/header-whitespace',
    title: 'whitespace around a request header value is not part of it',
    level: 'SHOULD',
    spec: 'basic/transports/streamable-http#server-validation',
    requirement:
      'HTTP leaves spaces and tabs around a field value out of the value (RFC 9110 section 5.5), so MCP-Protocol-Version, Mcp-Method and Mcp-Name sent with surrounding whitespace still match the body. Served (or, for the tools/call of a tool that exists nowhere, refused for that tool): pass; refused as a header mismatch: warn (the MCP specification does not restate the HTTP rule); a server error: fail.',
    requires: { transports: [...HTTP], feature: 'requestHeaders' },
    async run(ctx) {
      const t = ctx.http!;
      const list = await t.probe({
        method: 'POST',
        body: probeBody(ctx, 'tools/list'),
        headers: { 'MCP-Protocol-Version': `  ${ctx.version} `, 'Mcp-Method': ' tools/list\t' },
      });
      const call = await t.probe({
        method: 'POST',
        body: probeBody(ctx, 'tools/call', { name: MISSING_TOOL, arguments: {} }),
        headers: { 'Mcp-Method': 'tools/call ', 'Mcp-Name': `  ${MISSING_TOOL}  ` },
      });
      const details = { exchanges: [list.exchange.n, call.exchange.n] };
      const lines = [
        `tools/list with "  ${ctx.version} " and " tools/list\\t" → ${served(list) ? `served (HTTP ${list.status})` : said(list)}`,
        `tools/call with Mcp-Name "  ${MISSING_TOOL}  " → ${said(call)}`,
      ];
      if ((list.status ?? 0) >= 500 || (call.status ?? 0) >= 500 || list.error || call.error)
        return { verdict: 'fail', message: `${lines.join('; ')}: a server error`, details };
      const refused = [
        !served(list) ? 'the tools/list' : '',
        errorCode(call) === -32020 || (call.status === 400 && errorCode(call) === undefined) ? 'the tools/call' : '',
      ].filter(Boolean);
      if (refused.length)
        return {
          verdict: 'warn',
          message: `${lines.join('; ')}: ${refused.join(' and ')} refused, though the values match once the surrounding whitespace HTTP leaves out is left out`,
          details,
        };
      return { verdict: 'pass', message: lines.join('; '), details };
    },
  },
  {
    id: 'http/2026/legacy-headers',
    title: 'a session id or Last-Event-ID from an older client is ignored, and no session id is minted',
    level: 'SHOULD',
    spec: 'basic/transports/streamable-http#earlier-streamable-http-revisions',
    requirement:
      'Sessions and resumable streams are gone in 2026-07-28: a server of this revision ignores an Mcp-Session-Id header (and neither mints nor echoes one) and ignores Last-Event-ID. A tools/list carrying both is served with no Mcp-Session-Id in the answer: pass; refused, or answered with a session id: warn.',
    requires: { transports: [...HTTP], feature: 'requestHeaders' },
    async run(ctx) {
      const r = await ctx.http!.probe({
        method: 'POST',
        body: probeBody(ctx, 'tools/list'),
        headers: {
          'Mcp-Method': 'tools/list',
          'Mcp-Session-Id': 'mcp-conform-legacy-session',
          'Last-Event-ID': 'mcp-conform-0',
        },
      });
      const sid = r.headers['mcp-session-id'];
      const details = { exchange: r.exchange.n };
      if ((r.status ?? 0) >= 500 || r.error)
        return {
          verdict: 'fail',
          message: `tools/list with Mcp-Session-Id and Last-Event-ID → ${said(r)}: a server error`,
          details,
        };
      if (!served(r))
        return {
          verdict: 'warn',
          message: `tools/list with Mcp-Session-Id and Last-Event-ID → ${said(r)}; this revision ignores both headers`,
          details,
        };
      if (sid !== undefined)
        return {
          verdict: 'warn',
          message: `tools/list with a legacy Mcp-Session-Id was served, but the answer carries Mcp-Session-Id ${brief(String(sid), 60)}; this revision neither mints nor echoes session ids`,
          details,
        };
      return {
        verdict: 'pass',
        message: `tools/list with Mcp-Session-Id and Last-Event-ID → served (HTTP ${r.status}), no session id in the answer`,
        details,
      };
    },
  },
  {
    id: 'http/2026/param-header-marks',
    title: 'x-mcp-header marks in tool input schemas are valid',
    level: 'MUST',
    spec: 'server/tools#x-mcp-header',
    requirement:
      'A tool may mark input properties with x-mcp-header so that clients mirror their values into Mcp-Param-{Name} headers. A mark is an HTTP header-name token, unique (case-insensitively) within the schema, on a string, integer or boolean property reached through properties keys alone (not under items, a combinator, a conditional or $defs). A client over HTTP drops a tool with an invalid mark from its tool list. No marks: skip.',
    requires: { transports: [...HTTP], feature: 'requestHeaders' },
    async run(ctx) {
      const l = await ctx.service(toolList);
      const marked = l.tools.filter((t) => JSON.stringify(t.inputSchema ?? null).includes('"x-mcp-header"'));
      if (!marked.length)
        return {
          verdict: 'skip',
          message: `nothing to judge: none of the ${l.tools.length} tools marks an input property with x-mcp-header (the marks are optional for servers)`,
        };
      const bad = marked.map((t) => ({ t, p: headerParamProblems(t.inputSchema) })).filter((x) => x.p.length);
      if (bad.length)
        return {
          verdict: 'fail',
          message: `${bad.length} of ${marked.length} tools with x-mcp-header marks have invalid ones (clients over HTTP drop such tools): ${bad
            .slice(0, 3)
            .map((x) => `${x.t.name}: ${x.p.slice(0, 2).join('; ')}`)
            .join(' | ')}`,
          messageIds: l.messageIds,
        };
      return {
        verdict: 'pass',
        message: `${marked.length} tool${marked.length > 1 ? 's' : ''} mark${marked.length > 1 ? '' : 's'} ${marked.reduce((n, t) => n + headerParams(t.inputSchema).length, 0)} input properties with valid x-mcp-header names`,
      };
    },
  },
  {
    id: 'http/2026/param-headers',
    title:
      'Mcp-Param-{Name} headers are checked against the arguments: a wrong or missing one is refused with 400 and -32020',
    level: 'MUST',
    spec: 'basic/transports/streamable-http#server-behavior-for-custom-headers',
    requirement:
      'When a tool marks an input property with x-mcp-header, a tools/call carrying that argument carries Mcp-Param-{Name} with its value (Base64 sentinel form when not plain ASCII); the server compares the decoded header with the body and refuses a mismatch, or a missing header, with HTTP 400 and -32020. Three calls of the first such tool the call policy lets the run call: headers right (served), one header wrong, one header left out (each refused with 400 -32020: pass; 400 with another error: warn; served: fail). No such tool, or none the policy allows: skip.',
    requires: { transports: [...HTTP], feature: 'requestHeaders' },
    async run(ctx) {
      const pick = await markedTool(ctx, 'param-headers', () => true);
      if ('verdict' in pick) return pick;
      const t = ctx.http!;
      const right: Record<string, string> = {};
      for (const h of pick.marks) right[`Mcp-Param-${h.name}`] = paramHeaderValue(argumentAt(pick.args, h.path))!;
      const h0 = pick.marks[0]!;
      const v0 = argumentAt(pick.args, h0.path);
      const other =
        typeof v0 === 'number'
          ? String(v0 + 1)
          : typeof v0 === 'boolean'
            ? String(!v0)
            : `${String(v0)}-mcp-conform-other`;
      const base = { 'Mcp-Method': 'tools/call', 'Mcp-Name': pick.name };
      const send = (h: Record<string, string | null>) =>
        t.probe({
          method: 'POST',
          body: probeBody(ctx, 'tools/call', { name: pick!.name, arguments: pick!.args }),
          headers: { ...base, ...h },
        });
      const good = await send(right);
      const wrong = await send({ ...right, [`Mcp-Param-${h0.name}`]: paramHeaderValue(other)! });
      const missing = await send({ ...right, [`Mcp-Param-${h0.name}`]: null });
      const details = {
        tool: pick.name,
        header: `Mcp-Param-${h0.name}`,
        exchanges: [good.exchange.n, wrong.exchange.n, missing.exchange.n],
      };
      const what = `tools/call of ${pick.name} (${h0.path.join('.')} = ${brief(v0, 40)})`;
      if (errorCode(good) === -32020)
        return {
          verdict: 'fail',
          message: `${what} with matching Mcp-Param-* headers → ${said(good)}: the headers the spec asks for were refused as a mismatch`,
          details,
        };
      if (good.status === 400 || (good.status ?? 0) >= 500 || good.error)
        return {
          verdict: 'skip',
          message: `${what} with matching headers → ${said(good)}: with the right call refused, the wrong-header calls cannot tell anything`,
          details,
        };
      const lines: string[] = [];
      let verdict: Outcome['verdict'] = 'pass';
      for (const [label, r] of [
        [`Mcp-Param-${h0.name}: ${other}`, wrong],
        [`no Mcp-Param-${h0.name}`, missing],
      ] as const) {
        if (mismatch(r)) lines.push(`${label} → HTTP 400 with error -32020`);
        else if (r.status === 400) {
          if (verdict === 'pass') verdict = 'warn';
          lines.push(`${label} → 400, but ${codeWords(errorCode(r))} (HeaderMismatch is -32020)`);
        } else {
          verdict = 'fail';
          lines.push(`${label} → ${served(r) ? `served (HTTP ${r.status})` : said(r)}; expected 400 with -32020`);
        }
      }
      return {
        verdict,
        message: `${what}: matching headers → ${served(good) ? 'served' : said(good)}; ${lines.join('; ')}`,
        details,
      };
    },
  },
  {
    id: 'http/2026/param-header-chars',
    title: 'an Mcp-Param-{Name} value outside plain ASCII is decoded in its Base64 form and refused when sent raw',
    level: 'MUST',
    spec: 'basic/transports/streamable-http#value-encoding',
    requirement:
      'A header value carries visible ASCII, spaces and tabs only; a client sends any other text in the =?base64?…?= form, which the server decodes before comparing it with the body, and the server refuses a recognised Mcp-Param-{Name} header that carries other characters (400 with -32020). Two calls of the first callable tool with a marked string argument, that argument ending in "é": the header in Base64 (served: pass; refused as a mismatch: fail) and the header raw, the "é" as one byte 0xE9 (400 with -32020: pass; another 400: warn; served: fail). No such tool: skip.',
    requires: { transports: [...HTTP], feature: 'requestHeaders' },
    async run(ctx) {
      const pick = await markedTool(ctx, 'param-header-chars', (v) => typeof v === 'string');
      if ('verdict' in pick) return pick;
      const h0 = pick.marks[0]!;
      const value = `${String(argumentAt(pick.args, h0.path))}-\u00e9`;
      const args = withArgument(pick.args, h0.path, value);
      const right: Record<string, string> = {};
      for (const h of pick.marks) right[`Mcp-Param-${h.name}`] = paramHeaderValue(argumentAt(args, h.path))!;
      const send = (h: Record<string, string>) =>
        ctx.http!.probe({
          method: 'POST',
          body: probeBody(ctx, 'tools/call', { name: pick.name, arguments: args }),
          headers: { 'Mcp-Method': 'tools/call', 'Mcp-Name': pick.name, ...right, ...h },
        });
      const name = `Mcp-Param-${h0.name}`;
      const b64 = await send({});
      const raw = await send({ [name]: value });
      const details = { tool: pick.name, header: name, exchanges: [b64.exchange.n, raw.exchange.n] };
      const what = `tools/call of ${pick.name} with ${h0.path.join('.')} = ${brief(value, 40)}`;
      const b64Said = `${name}: ${right[name]} → ${served(b64) ? `served (HTTP ${b64.status})` : said(b64)}`;
      if (errorCode(b64) === -32020)
        return {
          verdict: 'fail',
          message: `${what}: ${b64Said}; the Base64 form is to be decoded before the comparison`,
          details,
        };
      const rawSaid = `${name} sent raw (the é as byte 0xE9) → ${mismatch(raw) ? 'HTTP 400 with error -32020' : served(raw) ? `served (HTTP ${raw.status})` : said(raw)}`;
      if (mismatch(raw)) return { verdict: 'pass', message: `${what}: ${b64Said}; ${rawSaid}`, details };
      if (raw.status === 400)
        return {
          verdict: 'warn',
          message: `${what}: ${b64Said}; ${rawSaid}, but ${codeWords(errorCode(raw))} (HeaderMismatch is -32020)`,
          details,
        };
      return {
        verdict: 'fail',
        message: `${what}: ${b64Said}; ${rawSaid}; a value with characters outside visible ASCII is to be refused with 400 and -32020`,
        details,
      };
    },
  },
  {
    id: 'http/response-stream/related',
    title: "a request's response stream carries only messages about that request",
    level: 'MUST',
    spec: 'basic/transports#sending-messages-to-the-server',
    requirement:
      "In 2026-07-28 the SSE stream answering a POSTed request may carry notifications about that request before the answer, never a request of the server's own (those travel inside input_required results), and change notifications belong on the subscriptions/listen stream. Up to 2025-11-25 requests and notifications on it should relate to the originating request (a SHOULD). Judged from what the run received: a request (2026-07-28) or a progress notification with another request's token fails (warns up to 2025-11-25); change notifications on another request's stream, and progress or log messages on the listen stream, warn.",
    requires: { transports: [...HTTP], needs: 'log' },
    async run(ctx) {
      const log = ctx.session.log;
      const onPost = log.filter(
        (m) =>
          m.direction === 'from-server' &&
          m.http?.method === 'POST' &&
          (m.kind === 'request' || m.kind === 'notification'),
      );
      if (!onPost.length)
        return {
          verdict: 'skip',
          message: "nothing to judge: no request's response stream carried a request or notification",
        };
      const must = ctx.features.mrtr;
      const hard: LoggedMessage[] = [];
      const soft: LoggedMessage[] = [];
      const why = new Map<number, string>();
      const requests = requestsByExchange(log);
      for (const m of onPost) {
        const origin = requests.get(m.http!.exchange);
        const om = origin?.method ?? '(unknown request)';
        if (m.kind === 'request') {
          if (must) {
            hard.push(m);
            why.set(m.seq, `request ${m.method} on the stream of ${om}`);
          }
          continue;
        }
        if (m.method === 'notifications/progress') {
          const token = isObject(m.json) && isObject(m.json.params) ? m.json.params.progressToken : undefined;
          if (om === 'subscriptions/listen') {
            soft.push(m);
            why.set(m.seq, `progress on the subscriptions/listen stream`);
          } else if (token !== undefined && token !== progressTokenOf(origin)) {
            (must ? hard : soft).push(m);
            why.set(
              m.seq,
              `progress for token ${brief(token, 40)} on the stream of ${om}, whose token is ${brief(progressTokenOf(origin) ?? '(none)', 40)}`,
            );
          }
        } else if (m.method === 'notifications/message' && om === 'subscriptions/listen') {
          soft.push(m);
          why.set(
            m.seq,
            'a log message on the subscriptions/listen stream (it belongs on the stream of the request it is about)',
          );
        } else if (
          ctx.features.subscriptionsListen &&
          LIST_CHANGES.test(m.method ?? '') &&
          om !== 'subscriptions/listen'
        ) {
          soft.push(m);
          why.set(
            m.seq,
            `${m.method} on the stream of ${om} (change notifications go on the subscriptions/listen stream)`,
          );
        }
      }
      const show = (ms: LoggedMessage[]) =>
        ms
          .slice(0, 4)
          .map((m) => `${why.get(m.seq)} (message ${m.seq})`)
          .join('; ');
      const counted = `${onPost.length} request${onPost.length > 1 ? 's and' : ' or'} notification${onPost.length > 1 ? 's' : ''} on response streams`;
      if (hard.length)
        return {
          verdict: 'fail',
          message: `${show(hard)}${soft.length ? `; also ${show(soft)}` : ''}`,
          messageIds: [...hard, ...soft].map((m) => m.seq),
        };
      if (soft.length)
        return {
          verdict: 'warn',
          level: 'SHOULD',
          message: `${show(soft)}${must ? '' : ' (up to 2025-11-25 these should relate to the request)'}`,
          messageIds: soft.map((m) => m.seq),
        };
      const asked = onPost.filter((m) => m.kind === 'request').length;
      return {
        verdict: 'pass',
        message: `${counted}, each about its request${asked ? ` (${asked} server request${asked > 1 ? 's' : ''} during a request, which ${ctx.version} allows)` : ''}`,
      };
    },
  },
  {
    id: 'http/streams/no-broadcast',
    title: 'with several streams open, each server message goes on one of them only',
    level: 'MUST',
    spec: 'basic/transports#multiple-connections',
    requirement:
      'A client may hold several SSE streams at once (the GET stream and the streams of its POSTs); the server sends each JSON-RPC message on one of them, never the same message on several. Judged from what the run received: a server request with the same id on two streams fails; the same notification on two streams within 100 ms warns (a notification carries no id: it may be two equal messages, each for its own request) (a resumption replaying its own stream is the same stream). Fewer than two streams carrying server messages: skip.',
    requires: { transports: [...HTTP], needs: 'log', feature: 'getStream' },
    async run(ctx) {
      const xs = ctx.http?.exchanges ?? [];
      const msgs = ctx.session.log.filter(
        (m) =>
          m.direction === 'from-server' && m.http !== undefined && (m.kind === 'request' || m.kind === 'notification'),
      );
      const streams = new Set(msgs.map((m) => streamOf(xs, m.http!.exchange)));
      if (streams.size < 2)
        return {
          verdict: 'skip',
          message: `nothing to judge: server requests and notifications came on ${streams.size} stream${streams.size === 1 ? '' : 's'}, no second stream to compare with`,
        };
      const seen = new Map<string, LoggedMessage>();
      const dup: [LoggedMessage, LoggedMessage][] = [];
      for (const m of msgs) {
        const key =
          m.kind === 'request'
            ? `request ${JSON.stringify(m.id)} ${m.method}`
            : `notification ${JSON.stringify(m.json)}`;
        const first = seen.get(key);
        const sameStream = first && streamOf(xs, first.http!.exchange) === streamOf(xs, m.http!.exchange);
        if (first && !sameStream && (m.kind === 'request' || m.t - first.t <= 100)) dup.push([first, m]);
        else if (!first || m.kind === 'notification') seen.set(key, m);
      }
      const where = (d: [LoggedMessage, LoggedMessage][]) =>
        d
          .slice(0, 3)
          .map(
            ([a, b]) =>
              `${a.method}${a.kind === 'request' ? ` (id ${JSON.stringify(a.id)})` : ''} as message ${a.seq} on exchange ${a.http!.exchange} and message ${b.seq} on exchange ${b.http!.exchange}`,
          )
          .join('; ');
      // A server request carries an id: the same id on two streams is one message sent twice. A notification has no
      // id: two equal ones on two streams may be one broadcast or two alike (the same log line for two requests in
      // flight together), so they only warn.
      const requestsTwice = dup.filter(([a]) => a.kind === 'request');
      const alike = dup.filter(([a]) => a.kind !== 'request');
      if (requestsTwice.length)
        return {
          verdict: 'fail',
          message: `${requestsTwice.length} server request${requestsTwice.length > 1 ? 's' : ''} sent on more than one stream: ${where(requestsTwice)}${alike.length ? `; also ${alike.length} equal notification${alike.length > 1 ? 's' : ''} on two streams` : ''}`,
          messageIds: dup.flat().map((m) => m.seq),
        };
      if (alike.length)
        return {
          verdict: 'warn',
          message: `${alike.length} notification${alike.length > 1 ? 's' : ''} came alike on two streams within 100 ms — one message broadcast, or two equal ones, each for its own request (a notification has no id to tell): ${where(alike)}`,
          messageIds: dup.flat().map((m) => m.seq),
        };
      return {
        verdict: 'pass',
        message: `${msgs.length} server request${msgs.length === 1 ? '' : 's'} and notifications on ${streams.size} streams, none sent twice`,
      };
    },
  },
  {
    id: 'http/sse-polling',
    title: 'SSE polling: a priming event, retry before an early close, resumption that delivers what was missed',
    level: 'SHOULD',
    spec: 'basic/transports#sending-messages-to-the-server',
    requirement:
      "In 2025-11-25 a server that gives SSE event ids should open each stream with a priming event (an id and empty data) so the client can resume at once; it may close the connection before the answer (the client then polls with GET and Last-Event-ID), having sent a retry field first; the resumed stream should go on to the answer, and must never replay messages of another stream. A server that gives no event ids does not offer resumption: skip. Missing priming, no retry before a close, or an answer never delivered: warn; another stream's messages replayed: fail.",
    requires: { transports: [...HTTP], needs: 'log', feature: 'ssePolling' },
    async run(ctx) {
      const xs = ctx.http?.exchanges ?? [];
      const posts = xs.filter((x) => x.purpose === 'message' && x.method === 'POST' && x.events?.length);
      const withIds = posts.filter((x) => x.events!.some((e) => e.id !== undefined));
      if (!withIds.length)
        return {
          verdict: 'skip',
          message: posts.length
            ? `nothing to judge: none of the ${posts.length} SSE answers carried event ids; the server offers no resumption, so priming, retry and polling do not apply`
            : 'nothing to judge: no request was answered with an SSE stream',
        };
      const log = ctx.session.log;
      const warns: string[] = [];
      const fails: string[] = [];
      const unprimed = withIds.filter((x) => {
        const e = x.events![0]!;
        return e.id === undefined || e.dataBytes !== 0;
      });
      if (unprimed.length)
        warns.push(
          `${unprimed.length} of ${withIds.length} SSE answers with event ids did not open with a priming event (an id and empty data): exchanges ${unprimed
            .slice(0, 5)
            .map((x) => x.n)
            .join(', ')}`,
        );
      const closed = withIds.filter((x) => xs.some((r) => r.resumes === x.n));
      const notes: string[] = [];
      const requests = requestsByExchange(log);
      for (const x of closed) {
        const origin = requests.get(x.n);
        const resumes = xs.filter((r) => r.resumes === x.n);
        const ns = new Set(resumes.map((r) => r.n));
        const got = log.filter((m) => m.direction === 'from-server' && m.http && ns.has(m.http.exchange));
        const foreign = got.filter((m) => (m.kind === 'response' || m.kind === 'error') && m.id !== origin?.id);
        const answered = got.some((m) => (m.kind === 'response' || m.kind === 'error') && m.id === origin?.id);
        const what = `${origin?.method ?? 'a request'} (exchange ${x.n})`;
        if (!x.events!.some((e) => e.retry !== undefined))
          warns.push(`the stream of ${what} was closed before its answer without a retry field`);
        if (foreign.length)
          fails.push(
            `resuming the stream of ${what} replayed ${foreign.length} answer${foreign.length > 1 ? 's' : ''} to other requests (ids ${foreign
              .slice(0, 3)
              .map((m) => JSON.stringify(m.id))
              .join(', ')}), which belong to other streams`,
          );
        if (!answered)
          warns.push(
            `the stream of ${what} was closed before its answer and resuming it (${resumes.map((r) => `GET → ${r.status ?? r.error ?? '?'}`).join(', ')}) did not deliver it`,
          );
        else notes.push(`${what} closed early and resumed to its answer`);
      }
      const summary = `${withIds.length} SSE answer${withIds.length > 1 ? 's' : ''} with event ids, ${withIds.length - unprimed.length} primed; ${closed.length ? notes.join('; ') || `${closed.length} closed early` : 'no stream closed before its answer (the server does not poll)'}`;
      const ids = xs.length ? { exchanges: [...withIds.slice(0, 10).map((x) => x.n)] } : undefined;
      if (fails.length)
        return {
          verdict: 'fail',
          level: 'MUST',
          message: `${fails.join('; ')}${warns.length ? `; also ${warns.join('; ')}` : ''}`,
          details: ids,
        };
      if (warns.length) return { verdict: 'warn', message: `${warns.join('; ')} (${summary})`, details: ids };
      return { verdict: 'pass', message: summary, details: ids };
    },
  },
];
