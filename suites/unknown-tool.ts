/**
 * Calling a tool that does not exist: a protocol error is expected.
 * https://modelcontextprotocol.io/specification/2025-11-25/server/tools#error-handling
 */
import type { OptionDef } from '../core/options.js';
import type { Suite } from '../core/suite.js';
import { tools } from '../core/tools.js';
import { callTool } from '../core/call-policy.js';
import { brief, describeError, ids } from './helpers.js';

/** --unknown-tool-code N: demand exactly this error code (the suite's own option). */
export const unknownToolCode: OptionDef<number | undefined> = {
  flag: 'unknown-tool-code',
  key: 'unknownToolCode',
  type: 'integer',
  inReport: 'when-set',
  help: 'Demand exactly this JSON-RPC error code for an unknown tool',
};

export const unknownTool: Suite = {
  id: 'unknown-tool',
  title: 'Unknown tool',
  description: 'tools/call with a name the server did not list',
  options: [unknownToolCode as OptionDef],
  cases: [
    {
      id: 'unknown-tool/call',
      title: 'calling an unknown tool is a protocol error',
      level: 'MUST',
      spec: 'server/tools#error-handling',
      requirement:
        'tools/call naming a tool the server does not have is answered with a JSON-RPC error (-32602, or -32601); an isError result is tolerated (warn); a success result is wrong. --unknown-tool-code N demands exactly that code.',
      requires: { capability: 'tools' },
      async run(ctx) {
        const l = await ctx.service(tools);
        const names = new Set(l.tools.map((t) => t.name));
        let name = 'mcp_conform_no_such_tool';
        for (let i = 2; names.has(name); i++) name = `mcp_conform_no_such_tool_${i}`;
        const rec = await callTool(ctx, name, {}, 'unknown-tool');
        if (rec.failure) throw rec.failure;
        const reply = rec.reply!;
        const mids = ids(reply.request, reply.response);
        const want = ctx.option(unknownToolCode);
        const sent = `tools/call of "${name}", a tool the server did not list`;
        if (reply.error) {
          const code = reply.error.code;
          if (want !== undefined) {
            return code === want
              ? {
                  verdict: 'pass',
                  message: `${sent}: JSON-RPC error ${describeError(reply.error)}, the code demanded`,
                  messageIds: mids,
                }
              : {
                  verdict: 'fail',
                  message: `${sent}: JSON-RPC error ${describeError(reply.error)}; --unknown-tool-code demands ${want}`,
                  messageIds: mids,
                };
          }
          if (code === -32602)
            return {
              verdict: 'pass',
              message: `${sent}: JSON-RPC error -32602 (invalid params), as the spec's example shows: "${reply.error.message}"`,
              messageIds: mids,
            };
          if (code === -32601)
            return {
              verdict: 'pass',
              message: `${sent}: JSON-RPC error -32601 (method not found): "${reply.error.message}"`,
              messageIds: mids,
            };
          return {
            verdict: 'warn',
            message: `${sent}: JSON-RPC error ${describeError(reply.error)}; expected -32602 (or -32601)`,
            messageIds: mids,
          };
        }
        const r = reply.result!;
        if (r.isError === true) {
          return {
            verdict: want !== undefined ? 'fail' : 'warn',
            message: `${sent}, was answered with a result with isError: true (${brief(r.content, 120)}) instead of a JSON-RPC error${want !== undefined ? `; --unknown-tool-code demands error ${want}` : " (-32602 in the spec's example)"}`,
            messageIds: mids,
          };
        }
        return {
          verdict: 'fail',
          message: `${sent}, was answered with a success result: ${brief(r, 160)}`,
          messageIds: mids,
        };
      },
    },
  ],
};
