/**
 * Schema: every message of the run, both directions, against the JSON Schema of the protocol version in force
 * (which also says which side sends which method). One result per direction, method and kind of exchange.
 * https://modelcontextprotocol.io/specification/2025-11-25/schema
 */
import type { LoggedMessage } from '../core/log.js';
import type { CaseDef, ItemOutcome, Suite } from '../core/suite.js';

/**
 * The item of a message. The usual exchanges keep the bare method: answers from the server to the harness's
 * requests (`tools/call`), the harness's requests (`tools/call`) and notifications either way
 * (`notifications/message`). A request the server sends is `<method> (request)` and the harness's answer to it
 * `<method> (response)`, so they never share an item with the harness's own exchange of that name (`initialize`
 * is the answer to the harness's initialize, `initialize (request)` one the server sent); a notification whose
 * name is not under notifications/ is `<method> (notification)`.
 */
function groupOf(m: LoggedMessage): string {
  if (m.method) {
    const from = m.direction === 'from-server';
    if (m.kind === 'request') return from ? `${m.method} (request)` : m.method;
    if (m.kind === 'notification')
      return m.method.startsWith('notifications/') ? m.method : `${m.method} (notification)`;
    return from ? m.method : `${m.method} (response)`;
  }
  if (m.kind === 'invalid') return '(not a JSON-RPC message)';
  if (m.kind === 'error')
    return m.id === null || m.id === undefined ? '(error without id)' : '(error for an unknown id)';
  return '(response for an unknown id)';
}

function byDirection(direction: 'from-server' | 'to-server'): CaseDef {
  const from = direction === 'from-server';
  return {
    id: `schema/${direction}`,
    title: from ? 'messages from the server match the schema' : 'messages the harness sent match the schema',
    level: 'MUST',
    spec: 'schema',
    requirement: from
      ? "Every message the server sends validates against the MCP JSON Schema of the protocol version in force, and a method the version knows is one servers send (ServerRequest, ServerNotification), not a client's (an error answer with id null, as JSON-RPC prescribes for unreadable requests, is accepted)."
      : 'Every message the harness sends validates too (a check of the harness itself); probes malformed on purpose are listed with their expected violations and do not fail.',
    perItem: 'method',
    requires: { needs: 'log' },
    async run(ctx) {
      const groups = new Map<string, LoggedMessage[]>();
      for (const m of ctx.session.log) {
        if (m.direction !== direction || !m.schema.checked) continue;
        const g = groupOf(m);
        const list = groups.get(g);
        if (list)
          list.push(m); // not a copy per message: a flood of notifications makes that quadratic
        else groups.set(g, [m]);
      }
      if (!groups.size)
        return {
          verdict: 'skip',
          message: `nothing to judge: no message ${from ? 'came from the server' : 'was sent'}`,
        };
      // The harness's own messages to a server that never said a word are no evidence about that server.
      if (!from && !ctx.session.log.some((m) => m.direction === 'from-server'))
        return {
          verdict: 'skip',
          message:
            "nothing to judge: nothing came from the server (the harness's own messages are checked in runs where it answers)",
        };
      const out: ItemOutcome[] = [];
      for (const [method, ms] of groups) {
        const bad = ms.filter((m) => !m.schema.valid && !m.schema.expectedInvalid);
        const expected = ms.filter((m) => !m.schema.valid && m.schema.expectedInvalid);
        if (bad.length) {
          const shown = bad.slice(0, 3).map((m) => {
            const v = m.schema.violations
              .slice(0, 3)
              .map((x) => `${x.pointer || '(root)'} ${x.message}`)
              .join(', ');
            return `message ${m.seq} (${m.kind}${m.id !== undefined ? ` id ${JSON.stringify(m.id)}` : ''}, ${m.schema.definition}): ${v}`;
          });
          out.push({
            item: method,
            verdict: 'fail',
            message: `${bad.length} of ${ms.length} messages violate the schema: ${shown.join('; ')}${bad.length > 3 ? '; …' : ''}`,
            messageIds: bad.map((m) => m.seq),
          });
        } else {
          const note = expected.length
            ? `; ${expected.length} malformed on purpose (${expected[0]!.schema.expectedInvalid})`
            : '';
          out.push({
            item: method,
            verdict: 'pass',
            message: `${ms.length - expected.length} message${ms.length - expected.length === 1 ? '' : 's'} valid${note}`,
            messageIds: ms.map((m) => m.seq),
          });
        }
      }
      return out;
    },
  };
}

export const schema: Suite = {
  id: 'schema',
  title: 'Schema',
  description: 'every message checked against the JSON Schema of the protocol version in force',
  cases: [byDirection('from-server'), byDirection('to-server')],
};
