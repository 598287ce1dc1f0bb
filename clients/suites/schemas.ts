/**
 * client-schemas: what a client does with the JSON Schemas of the tools it is given, as far as the mock can see it.
 * Scenario tool-schemas lists `plot`, whose schemas use 2020-12 keywords (the default dialect from 2025-11-25: a client
 * must support it); scenario remote-ref lists `locate`, whose schemas `$ref` a network URL on the mock's loopback
 * listener (2026-07-28: a client must not dereference it by itself).
 * https://modelcontextprotocol.io/specification/2026-07-28/basic/index#json-schema-usage
 */
import { SchemaWorkbench } from '../../core/jsonschema.js';
import type { LoggedMessage } from '../../core/log.js';
import { PROTOCOL_VERSIONS } from '../../core/schema/versions.js';
import { REMOTE_REF_TOOL, SCHEMA_TOOL } from '../../mocks/schema-tools.js';
import {
  ending,
  fromClient,
  isObj,
  label,
  type ClientCaseContext,
  type ClientCaseDef,
  type ClientSuite,
} from './helpers.js';

/** The tool as the mock sent it in a tools/list answer, and that answer. */
function listed(
  ctx: ClientCaseContext,
  name: string,
): { tool: Record<string, unknown>; answer: LoggedMessage } | undefined {
  for (const m of ctx.log) {
    if (
      m.direction !== 'from-server' ||
      m.kind !== 'response' ||
      m.method !== 'tools/list' ||
      !isObj(m.json) ||
      !isObj(m.json.result)
    )
      continue;
    const tools = m.json.result.tools;
    const tool = Array.isArray(tools) ? tools.find((t) => isObj(t) && t.name === name) : undefined;
    if (isObj(tool)) return { tool, answer: m };
  }
  return undefined;
}

const callsOf = (ctx: ClientCaseContext, name: string) =>
  fromClient(ctx).filter(
    (m) =>
      m.kind === 'request' &&
      m.method === 'tools/call' &&
      isObj(m.json) &&
      isObj(m.json.params) &&
      m.json.params.name === name,
  );
const argsOf = (m: LoggedMessage): unknown =>
  isObj(m.json) && isObj(m.json.params) ? (m.json.params.arguments ?? {}) : undefined;
const answerOf = (ctx: ClientCaseContext, q: LoggedMessage) => ctx.log.find((m) => m.inReplyTo === q.seq);
/** The client's last lines of output (its own account of an error), for a message. */
const lastOutput = (ctx: ClientCaseContext) => {
  const lines = (ctx.client.output ?? []).filter((l) => l.trim()).slice(-2);
  return lines.length ? `; its last output: ${lines.map((l) => JSON.stringify(l.slice(0, 200))).join(' ')}` : '';
};
const failedEnd = (ctx: ClientCaseContext) =>
  !ctx.client.endedByHarness && (ctx.client.signal !== null || (ctx.client.exitCode ?? 0) !== 0);

const cases: ClientCaseDef[] = [
  {
    id: 'client-schemas/no-network-ref',
    title: 'a $ref to a network URL in a tool schema is not fetched',
    level: 'MUST',
    spec: 'https://modelcontextprotocol.io/specification/2026-07-28/basic/index#ref-resolution',
    scenarios: ['remote-ref'],
    requirement:
      'From 2026-07-28 a client does not dereference by itself a $ref that resolves to a network URI (an opt-in mode may, off by default, and should refuse loopback and private addresses). The mock lists locate, whose inputSchema and outputSchema $ref an http:// URL on its loopback listener, and records every request there. Before 2026-07-28 the spec has no rule on it: a fetch is recorded as info.',
    run(ctx) {
      if (!ctx.ref) return { verdict: 'skip', message: 'the run had no listener for the referenced schema' };
      const l = listed(ctx, REMOTE_REF_TOOL);
      const calls = callsOf(ctx, REMOTE_REF_TOOL);
      const f = ctx.ref.fetches;
      if (f.length) {
        const what = `the client fetched ${ctx.ref.url} ${f.length === 1 ? 'once' : `${f.length} times`} (${f
          .slice(0, 3)
          .map((x) => `${x.method} ${x.url}${x.userAgent ? ` by ${JSON.stringify(x.userAgent)}` : ''}`)
          .join(', ')}), the $ref in ${REMOTE_REF_TOOL}'s schemas`;
        const modern = PROTOCOL_VERSIONS.indexOf(ctx.version) >= PROTOCOL_VERSIONS.indexOf('2026-07-28');
        if (modern)
          return {
            verdict: 'fail',
            message: `${what}: a network $ref dereferenced without the user opting in (and a loopback address, which even an opt-in mode should refuse)`,
            messageIds: l ? [l.answer.seq] : [],
          };
        return {
          verdict: 'info',
          message: `${what}; protocol ${ctx.version} has no rule on it, 2026-07-28 forbids it (a network $ref is not dereferenced unless the user opted in, and never on loopback)`,
          messageIds: l ? [l.answer.seq] : [],
        };
      }
      if (!l)
        return {
          verdict: 'skip',
          message: `the client never got the tools/list answer that holds ${REMOTE_REF_TOOL}; ${ending(ctx)}`,
        };
      if (!calls.length)
        return {
          verdict: 'pass',
          message: `the client was given ${REMOTE_REF_TOOL} (${label(l.answer)}) and fetched nothing from ${ctx.ref.url}; it did not call the tool (a client that refuses a schema it cannot resolve, as the spec asks, does not), so a fetch made only to validate a call could not show; ${ending(ctx)}`,
          messageIds: [l.answer.seq],
        };
      const answered = calls.filter((q) => answerOf(ctx, q)?.kind === 'response');
      return {
        verdict: 'pass',
        message: `the client was given ${REMOTE_REF_TOOL} and called it ${calls.length} time${calls.length > 1 ? 's' : ''} (${answered.length} answered with structuredContent for the $ref'd outputSchema) without fetching ${ctx.ref.url}`,
        messageIds: [l.answer.seq, ...calls.map((q) => q.seq)].slice(0, 10),
      };
    },
  },
  {
    id: 'client-schemas/dialect-2020',
    title: 'a tool schema in JSON Schema 2020-12 (the default dialect) is taken as such',
    level: 'MUST',
    spec: 'basic/index#json-schema-usage',
    from: '2025-11-25',
    scenarios: ['tool-schemas'],
    requirement:
      'From 2025-11-25 a schema without $schema is JSON Schema 2020-12, which clients must support. The mock lists plot, whose inputSchema and outputSchema use $defs reached by a pointer and by an $anchor, prefixItems, dependentRequired, if/then/else and unevaluatedProperties. What shows: the arguments of a call checked against the inputSchema as sent (2020-12), and a client that cannot go on after the listing that holds plot (it re-asks it or ends in an error without calling anything) fails.',
    run(ctx) {
      const l = listed(ctx, SCHEMA_TOOL);
      if (!l)
        return {
          verdict: 'skip',
          message: `the client never got the tools/list answer that holds ${SCHEMA_TOOL}; ${ending(ctx)}`,
        };
      const calls = callsOf(ctx, SCHEMA_TOOL);
      if (!calls.length) {
        const after = fromClient(ctx).filter((m) => m.seq > l.answer.seq && m.kind === 'request');
        const work = after.filter(
          (m) => m.method !== 'tools/list' && m.method !== 'server/discover' && m.method !== 'initialize',
        );
        if (failedEnd(ctx) && !work.length) {
          const again = after.filter((m) => m.method === 'tools/list').length;
          return {
            verdict: 'fail',
            message: `after ${label(l.answer)}, which holds ${SCHEMA_TOOL} (valid 2020-12 schemas), the client ${again ? `asked tools/list again ${again === 1 ? 'once' : `${again} times`}, ` : ''}sent nothing else; ${ending(ctx)}: it could not take the listing (scenario pages, the same without ${SCHEMA_TOOL}, shows whether it otherwise ends well)${lastOutput(ctx)}`,
            messageIds: [l.answer.seq, ...after.map((m) => m.seq)].slice(0, 10),
          };
        }
        return {
          verdict: 'skip',
          message: `the client was given ${SCHEMA_TOOL} and never called it: nothing it sent shows how it read the schemas; ${ending(ctx)}`,
        };
      }
      const prepared = new SchemaWorkbench('2020-12').prepare(l.tool.inputSchema);
      if (!prepared.validate)
        return {
          verdict: 'skip',
          message: `the inputSchema of ${SCHEMA_TOOL} as sent does not compile here (${prepared.problems.join('; ')})`,
        };
      const bad = calls.map((q) => ({ q, v: prepared.validate!(argsOf(q)) })).filter((x) => x.v.length);
      if (bad.length) {
        const x = bad[0]!;
        return {
          verdict: 'info',
          message: `${label(x.q)} sends arguments ${JSON.stringify(argsOf(x.q))} that its 2020-12 inputSchema rejects (${x.v
            .slice(0, 3)
            .map((v) => `${v.pointer || '(root)'} ${v.message}`)
            .join('; ')}): the client checked nothing, or read the schema another way (the server must refuse them)`,
          messageIds: bad.map((b) => b.q.seq).slice(0, 10),
        };
      }
      // The answers whose structuredContent the outputSchema as sent, read as 2020-12, takes.
      const out = new SchemaWorkbench('2020-12').prepare(l.tool.outputSchema);
      const valid = calls
        .map((q) => answerOf(ctx, q))
        .filter((a): a is LoggedMessage => {
          const r = a?.kind === 'response' && isObj(a.json) && isObj(a.json.result) ? a.json.result : undefined;
          return (
            !!r && r.structuredContent !== undefined && !!out.validate && out.validate(r.structuredContent).length === 0
          );
        });
      const ids = [...calls.map((q) => q.seq), ...valid.map((a) => a.seq)].slice(0, 10);
      if (failedEnd(ctx)) {
        const last = valid[valid.length - 1];
        // It stopped at a result its outputSchema takes: it read that schema another way and refused the result.
        if (last && !fromClient(ctx).some((m) => m.seq > last.seq && m.kind === 'request')) {
          return {
            verdict: 'fail',
            message: `${label(last)} carried structuredContent that ${SCHEMA_TOOL}'s outputSchema, read as 2020-12, takes; the client sent nothing after it and ${ending(ctx)}: it refused a valid result${lastOutput(ctx)}`,
            messageIds: ids,
          };
        }
        return {
          verdict: 'info',
          message: `the client called ${SCHEMA_TOOL} with arguments valid under its 2020-12 inputSchema (${valid.length} of ${calls.length} answered with structuredContent its outputSchema takes), then ${ending(ctx)}${lastOutput(ctx)}`,
          messageIds: ids,
        };
      }
      return {
        verdict: 'pass',
        message: `the client called ${SCHEMA_TOOL} with arguments valid under its 2020-12 inputSchema (${JSON.stringify(argsOf(calls[0]!))}), took ${valid.length} of ${calls.length} answers with structuredContent valid under its 2020-12 outputSchema, and ${ending(ctx)}`,
        messageIds: ids,
      };
    },
  },
];

export const clientSchemas: ClientSuite = {
  id: 'client-schemas',
  title: 'Client: tool schemas',
  description:
    'Tool schemas in JSON Schema 2020-12 taken as such (scenario tool-schemas); a $ref to a network URL not fetched (scenario remote-ref).',
  cases,
};
