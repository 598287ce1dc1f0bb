/**
 * stdio transport rules: stdout carries MCP messages only, one per line, in UTF-8.
 * https://modelcontextprotocol.io/specification/2025-11-25/basic/transports#stdio
 */
import type { Suite } from '../core/suite.js';
import { brief } from './helpers.js';

export const stdio: Suite = {
  id: 'stdio',
  title: 'stdio transport',
  description: 'stdout carries only JSON-RPC messages, in UTF-8',
  transports: ['stdio'],
  cases: [
    {
      id: 'stdio/stdout-only-messages',
      title: 'stdout carries only JSON-RPC messages',
      level: 'MUST',
      spec: 'basic/transports#stdio',
      requirement:
        'The server writes nothing to stdout that is not a valid MCP message: logs belong on stderr. Every other line is a failure.',
      requires: { transports: ['stdio'], needs: 'log' },
      async run(ctx) {
        const stray = ctx.session.log.filter((m) => m.direction === 'from-server' && m.kind === 'invalid');
        const total = ctx.session.log.filter((m) => m.direction === 'from-server').length;
        if (stray.length) {
          const shown = stray
            .slice(0, 5)
            .map((m) => `message ${m.seq}: ${m.problem ?? 'not a JSON-RPC message'}: ${brief(m.raw, 80)}`);
          return {
            verdict: 'fail',
            message: `${stray.length} of ${total} stdout lines are not JSON-RPC messages: ${shown.join('; ')}${stray.length > 5 ? '; …' : ''}`,
            messageIds: stray.map((m) => m.seq),
          };
        }
        if (!total) return { verdict: 'skip', message: 'nothing to judge: the server wrote nothing to stdout' };
        return { verdict: 'pass', message: `all ${total} stdout lines are JSON-RPC messages` };
      },
    },
    {
      id: 'stdio/utf8',
      title: 'messages are valid UTF-8 and end with a newline',
      level: 'MUST',
      spec: 'basic/transports#stdio',
      requirement: 'Messages are UTF-8 encoded and delimited by newlines.',
      requires: { transports: ['stdio'], needs: 'log' },
      async run(ctx) {
        const bad = ctx.session.log.filter(
          (m) => m.direction === 'from-server' && m.problem && /UTF-8|no newline|longer than/.test(m.problem),
        );
        if (bad.length)
          return {
            verdict: 'fail',
            message: bad
              .slice(0, 5)
              .map((m) => `message ${m.seq}: ${m.problem}`)
              .join('; '),
            messageIds: bad.map((m) => m.seq),
          };
        const lines = ctx.session.log.filter((m) => m.direction === 'from-server').length;
        if (!lines) return { verdict: 'skip', message: 'nothing to judge: the server wrote nothing to stdout' };
        return {
          verdict: 'pass',
          message: `all ${lines} line${lines === 1 ? '' : 's'} valid UTF-8 and newline-terminated`,
        };
      },
    },
  ],
};
