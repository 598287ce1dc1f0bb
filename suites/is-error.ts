/**
 * isError results: every result with isError: true seen during the run explains the error in its content.
 * https://modelcontextprotocol.io/specification/2025-11-25/server/tools#error-handling
 */
import type { Suite } from '../core/suite.js';
import { toolCallsOf } from '../core/tools.js';
import { brief, ids, isObject } from './helpers.js';

export const isError: Suite = {
  id: 'is-error',
  title: 'isError results',
  description: 'tool error results are well-formed',
  cases: [
    {
      id: 'is-error/well-formed',
      title: 'every isError result explains the error in its content',
      level: 'MUST',
      spec: 'server/tools#error-handling',
      requirement:
        'A result with isError: true carries a non-empty content array with text that tells what went wrong, so the model can act on it.',
      requires: { capability: 'tools' },
      async run(ctx) {
        const calls = toolCallsOf(ctx);
        const seen = calls.filter((c) => c.reply?.result?.isError === true);
        if (!seen.length)
          return { verdict: 'skip', message: `no result with isError: true was seen in ${calls.length} tool calls` };
        const empty: string[] = [];
        const textless: string[] = [];
        const mids: number[] = [];
        for (const c of seen) {
          const content = c.reply!.result!.content;
          mids.push(...ids(c.reply!.response));
          const label = `${c.tool || '(no name)'} [${c.purpose}]`;
          if (!Array.isArray(content) || content.length === 0) empty.push(label);
          else if (
            !content.some((b) => isObject(b) && b.type === 'text' && typeof b.text === 'string' && b.text.trim() !== '')
          )
            textless.push(`${label}: ${brief(content, 80)}`);
        }
        if (empty.length)
          return {
            verdict: 'fail',
            message: `${empty.length} of ${seen.length} isError results have no content to explain the error: ${empty.slice(0, 5).join(', ')}`,
            messageIds: mids,
          };
        if (textless.length)
          return {
            verdict: 'warn',
            level: 'SHOULD',
            message: `${textless.length} of ${seen.length} isError results have no text explaining the error: ${textless.slice(0, 3).join('; ')}`,
            messageIds: mids,
          };
        return {
          verdict: 'pass',
          message: `all ${seen.length} isError results explain the error in text`,
          messageIds: mids,
        };
      },
    },
  ],
};
