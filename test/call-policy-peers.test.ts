/**
 * The call policy on a real server nobody here wrote whose tools run shell commands (@agent-infra/mcp-server-commands):
 * a default run (--call-tools safe) calls none of them. The policy on our own fixture: test/call-policy.test.ts.
 */
import { existsSync, mkdtempSync, readdirSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { describe, expect, it } from 'vitest';
import { BIN, run } from './helpers/cli.js';
import { calledNames, listedTools } from './helpers/tool-calls.js';

describe('a real server that runs shell commands: @agent-infra/mcp-server-commands', () => {
  const bin = join(BIN, 'mcp-server-commands');
  it.skipIf(!existsSync(bin))(
    'a default run calls neither run_command nor run_script (they are not annotated read-only)',
    async () => {
      // Its tools execute commands through /bin/sh. NEVER run it here with --call-tools all.
      const cwd = mkdtempSync(join(tmpdir(), 'mcp-conform-commands-'));
      const r = await run(bin, [], { cwd, timeoutMs: 90_000 });
      const listed = listedTools(r.report);
      const readOnly = new Set(listed.filter((t) => t.annotations?.readOnlyHint === true).map((t) => t.name));
      expect(listed.map((t) => t.name)).toEqual(expect.arrayContaining(['run_command', 'run_script']));
      expect(calledNames(r.report).filter((n) => !readOnly.has(n))).toEqual([]);
      expect(r.report.skippedTools.map((t) => t.name).sort()).toEqual(['run_command', 'run_script']);
      expect(r.c('calling/tool/run_command')).toMatchObject({
        verdict: 'skip',
        message: expect.stringMatching(/no annotations/),
      });
      expect(readdirSync(cwd).filter((f) => f !== 'mcp-conform-report')).toEqual([]);
    },
    90_000,
  );
});
