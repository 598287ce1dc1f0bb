/** client-requests: the client's messages — unique ids, schema-valid, valid tool arguments, pagination, list_changed. */
import type { LoggedMessage } from '../../core/log.js';
import { ending, fromClient, isObj, label, type ClientCaseContext, type ClientSuite } from './helpers.js';

const paramsOf = (m: LoggedMessage): Record<string, unknown> => (isObj(m.json) && isObj((m.json as Record<string, unknown>).params) ? (m.json as { params: Record<string, unknown> }).params : {});
const resultOf = (m: LoggedMessage): Record<string, unknown> | undefined => (isObj(m.json) && isObj((m.json as Record<string, unknown>).result) ? (m.json as { result: Record<string, unknown> }).result : undefined);

/** The client's messages, cut into sessions: each initialize request starts one. */
function sessions(ctx: ClientCaseContext): LoggedMessage[][] {
  const out: LoggedMessage[][] = [];
  for (const m of fromClient(ctx)) {
    if ((m.kind === 'request' && m.method === 'initialize') || !out.length) out.push([]);
    out[out.length - 1]!.push(m);
  }
  return out;
}

const LISTS = ['tools/list', 'resources/list', 'prompts/list', 'resources/templates/list'];

export const clientRequests: ClientSuite = {
  id: 'client-requests',
  title: 'Client requests',
  description: 'What the client sends: request ids, schema validity, tool arguments, pagination, and what it does on list_changed and on an error.',
  cases: [
    {
      id: 'client-requests/unique-ids',
      title: 'request ids are unique within the session',
      level: 'MUST',
      spec: 'basic#requests',
      requirement: 'A request id is a string or an integer, not null, and is not reused by the client within the same session.',
      run(ctx) {
        const dupes: string[] = [];
        const mids: number[] = [];
        let n = 0;
        for (const s of sessions(ctx)) {
          const seen = new Map<string, LoggedMessage>();
          for (const m of s) {
            if (m.kind !== 'request') continue;
            n++;
            const key = JSON.stringify(m.id ?? null);
            const prev = seen.get(key);
            if (m.id === null || m.id === undefined) { dupes.push(`${m.method} has id ${key}`); mids.push(m.seq); continue; }
            if (prev) { dupes.push(`id ${key} used by ${prev.method} (message ${prev.seq}) and again by ${m.method} (message ${m.seq})`); mids.push(prev.seq, m.seq); }
            else seen.set(key, m);
          }
        }
        if (!n) return { verdict: 'skip', message: `the client sent no request; ${ending(ctx)}` };
        if (dupes.length) return { verdict: 'fail', message: `${dupes.slice(0, 3).join('; ')}${dupes.length > 3 ? ` (and ${dupes.length - 3} more)` : ''}`, messageIds: mids.slice(0, 10) };
        return { verdict: 'pass', message: `${n} requests, every id unique within its session` };
      },
    },
    {
      id: 'client-requests/schema',
      title: 'every message the client sends is schema-valid',
      level: 'MUST',
      spec: 'basic#messages',
      requirement: 'Every message the client sends is a JSON-RPC message that the schema of the version in force accepts.',
      run(ctx) {
        const mine = fromClient(ctx);
        if (!mine.length) return { verdict: 'skip', message: `the client sent nothing; ${ending(ctx)}` };
        const bad = mine.filter((m) => !m.schema.valid);
        if (!bad.length) return { verdict: 'pass', message: `${mine.length} messages, all valid against the ${ctx.version} schema` };
        const say = bad.slice(0, 3).map((m) => `${label(m)}: ${m.schema.violations.slice(0, 2).map((v) => `${v.pointer || '(message)'} ${v.message}`).join('; ') || m.problem || 'invalid'}`);
        return { verdict: 'fail', message: `${bad.length} of ${mine.length} messages break the ${ctx.version} schema: ${say.join(' | ')}`, messageIds: bad.slice(0, 10).map((m) => m.seq) };
      },
    },
    {
      id: 'client-requests/tool-arguments',
      title: 'tools/call names a listed tool, with arguments valid against its inputSchema',
      level: 'SHOULD',
      spec: 'server/tools#calling-tools',
      requirement: 'The client calls tools the server listed, with arguments that satisfy the tool\'s inputSchema.',
      run(ctx) {
        const calls = fromClient(ctx).filter((m) => m.kind === 'request' && m.method === 'tools/call');
        if (!calls.length) return { verdict: 'skip', message: 'the client called no tool' };
        const problems: string[] = [];
        for (const c of calls) {
          const p = paramsOf(c);
          const tool = (ctx.fixture.tools ?? []).find((t) => t.name === p.name);
          if (!tool) { problems.push(`${label(c)} calls "${String(p.name)}", which the mock does not list`); continue; }
          const prepared = ctx.workbench.prepare(tool.inputSchema ?? { type: 'object' });
          const v = prepared.validate ? prepared.validate(p.arguments ?? {}) : [];
          if (v.length) problems.push(`${label(c)} calls ${tool.name} with ${JSON.stringify(p.arguments ?? {})}: ${v.slice(0, 2).map((x) => `${x.pointer || '(arguments)'} ${x.message}`).join('; ')}`);
        }
        if (problems.length) return { verdict: 'warn', message: problems.slice(0, 3).join(' | '), messageIds: calls.map((c) => c.seq).slice(0, 10) };
        return { verdict: 'pass', message: `${calls.length} tool call${calls.length > 1 ? 's' : ''}, each to a listed tool with valid arguments`, messageIds: calls.map((c) => c.seq).slice(0, 10) };
      },
    },
    {
      id: 'client-requests/pagination',
      title: 'a listing follows nextCursor, passing the cursor unchanged',
      level: 'SHOULD',
      spec: 'server/utilities/pagination#pagination-flow',
      requirement: 'A client that lists follows nextCursor to the end, sending the cursor back as it was given (cursors are opaque: a client never makes one up or changes it).',
      run(ctx) {
        const given = new Map<string, LoggedMessage>();
        const followed = new Set<string>();
        const invented: LoggedMessage[] = [];
        const unfollowed: { m: LoggedMessage; method: string; cursor: string }[] = [];
        for (const m of ctx.log) {
          if (m.direction === 'from-server' && m.kind === 'response' && m.method && LISTS.includes(m.method)) {
            const c = resultOf(m)?.nextCursor;
            if (typeof c === 'string') { given.set(`${m.method} ${c}`, m); unfollowed.push({ m, method: m.method, cursor: c }); }
          }
          if (m.direction === 'to-server' && m.kind === 'request' && m.method && LISTS.includes(m.method)) {
            const c = paramsOf(m).cursor;
            if (c === undefined) continue;
            const key = `${m.method} ${String(c)}`;
            if (typeof c !== 'string' || !given.has(key)) invented.push(m);
            else followed.add(key);
          }
        }
        if (invented.length) return { verdict: 'fail', level: 'MUST', message: `${invented.map((m) => `${label(m)} sent cursor ${JSON.stringify(paramsOf(m).cursor)}, which the mock never gave`).slice(0, 3).join('; ')}`, messageIds: invented.map((m) => m.seq) };
        if (!given.size) return { verdict: 'skip', message: 'the client listed nothing that came in pages' };
        const left = unfollowed.filter((u) => !followed.has(`${u.method} ${u.cursor}`));
        if (left.length) return { verdict: 'warn', message: `the mock answered ${left.map((u) => `${u.method} with nextCursor "${u.cursor}"`).join(', ')}; the client never asked for that page, so it saw only part of the list`, messageIds: left.map((u) => u.m.seq) };
        return { verdict: 'pass', message: `every nextCursor followed (${followed.size} page${followed.size > 1 ? 's' : ''} after the first)` };
      },
    },
    {
      id: 'client-requests/list-changed',
      title: 'after notifications/tools/list_changed the tools are listed again',
      level: 'SHOULD',
      spec: 'server/tools#list-changed-notification',
      scenarios: ['list-changed'],
      requirement: 'A client that is told the tool list changed fetches it again (tools/list from the first page).',
      run(ctx) {
        const n = ctx.log.find((m) => m.direction === 'from-server' && m.method === 'notifications/tools/list_changed');
        if (!n) return { verdict: 'skip', message: 'the mock sent no list_changed: the client never finished a tools/list' };
        const again = fromClient(ctx).find((m) => m.seq > n.seq && m.kind === 'request' && m.method === 'tools/list' && paramsOf(m).cursor === undefined);
        if (again) return { verdict: 'pass', message: `tools/list sent again ${Math.round(again.t - n.t)} ms after the notification`, messageIds: [n.seq, again.seq] };
        return { verdict: 'warn', message: `the mock sent notifications/tools/list_changed; the client did not list the tools again; ${ending(ctx)}`, messageIds: [n.seq] };
      },
    },
    {
      id: 'client-requests/cancel-after-timeout',
      title: 'a request left unanswered is cancelled once the client gives up on it',
      level: 'SHOULD',
      spec: 'basic/lifecycle#timeouts',
      scenarios: ['dropped-answer'],
      requirement: 'A client sets a timeout on its requests; when one runs out without an answer it sends notifications/cancelled for that request and stops waiting.',
      run(ctx) {
        const call = fromClient(ctx).find((m) => m.kind === 'request' && m.method === 'tools/call');
        if (!call) return { verdict: 'skip', message: 'the client called no tool, so no answer was dropped' };
        const cancel = fromClient(ctx).find((m) => m.seq > call.seq && m.method === 'notifications/cancelled' && paramsOf(m).requestId === call.id);
        if (cancel) return { verdict: 'pass', message: `the mock never answered ${label(call)}; the client cancelled it after ${Math.round(cancel.t - call.t)} ms`, messageIds: [call.seq, cancel.seq] };
        if (ctx.client.endedByHarness) return { verdict: 'info', message: `the mock never answered ${label(call)}; the client was still waiting when ${ending(ctx)} (its own timeout may be longer)`, messageIds: [call.seq] };
        return { verdict: 'warn', message: `the mock never answered ${label(call)}; the client sent no notifications/cancelled for it; ${ending(ctx)}`, messageIds: [call.seq] };
      },
    },
    {
      id: 'client-requests/retry-after-failure',
      title: 'what the client does after a failed request (HTTP 503 or -32603)',
      level: 'MAY',
      spec: 'basic/lifecycle#error-handling',
      scenarios: ['server-error'],
      requirement: 'Whether and how a client retries a failed request is its own choice; this records what it did.',
      run(ctx) {
        const first = fromClient(ctx).find((m) => m.kind === 'request' && m.method === 'tools/list');
        if (!first) return { verdict: 'skip', message: 'the client listed no tools, so no request was failed' };
        const again = fromClient(ctx).filter((m) => m.seq > first.seq && m.kind === 'request' && m.method === 'tools/list' && paramsOf(m).cursor === undefined);
        const how = first.http?.status === 503 ? 'HTTP 503' : 'a -32603 error';
        if (again.length) return { verdict: 'info', message: `the mock answered ${label(first)} with ${how}; the client tried again ${Math.round(again[0]!.t - first.t)} ms later (${again.length} more tools/list from the first page)`, messageIds: [first.seq, again[0]!.seq] };
        return { verdict: 'info', message: `the mock answered ${label(first)} with ${how}; the client did not try again; ${ending(ctx)}`, messageIds: [first.seq] };
      },
    },
    {
      id: 'client-requests/after-error',
      title: 'what the client does after a tool error',
      level: 'MAY',
      spec: 'server/tools#error-handling',
      scenarios: ['unknown-tool'],
      requirement: 'How a client handles a protocol error is its own choice; this records what it did (kept the session, retried, exited).',
      run(ctx) {
        const err = ctx.log.find((m) => m.direction === 'from-server' && m.kind === 'error' && m.method === 'tools/call');
        if (!err) return { verdict: 'skip', message: 'the client called no tool, so the mock answered none with an error' };
        const after = fromClient(ctx).filter((m) => m.seq > err.seq);
        const retries = after.filter((m) => m.kind === 'request' && m.method === 'tools/call').length;
        return { verdict: 'info', message: `after the error to tools/call the client sent ${after.length} more message${after.length === 1 ? '' : 's'}${retries ? ` (${retries} more tools/call)` : ''}; ${ending(ctx)}`, messageIds: [err.seq, ...after.slice(0, 3).map((m) => m.seq)] };
      },
    },
  ],
};
