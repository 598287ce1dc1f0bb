/**
 * The unknown-tool suite's message says what was sent and what came back. Its verdicts on the broken fixtures are in verdicts.test.ts.
 */
import { describe, expect, it } from 'vitest';
import { join } from 'node:path';
import { FIXTURES, run } from '../helpers/cli.js';

describe('real servers: the unknown-tool message names what was sent and what came back', () => {
  it("the SDK's McpServer: the unknown-tool message says what was sent and seen, not what SDKs do", async () => {
    const r = await run(`node ${join(FIXTURES, 'sdk-stdio.mjs')}`, ['--suite', 'unknown-tool']);
    const m = r.c('unknown-tool/call').message;
    expect(r.c('unknown-tool/call').verdict).toBe('warn');
    expect(m).toMatch(
      /^tools\/call of "mcp_conform_no_such_tool", a tool the server did not list, was answered with a result with isError: true \(.*not found.*\) instead of a JSON-RPC error/,
    );
    expect(m).not.toMatch(/SDK/);
  });
});
