/**
 * Vitest global setup: every temporary file of a test run — the tests' own output folders and whatever the CLI,
 * mocks and servers they start put in the temp dir — goes under one folder of this run, removed when the run ends.
 * Without it a full run leaves thousands of mcp-conform-* folders in /tmp (several GB over a day of runs).
 * TMPDIR is inherited by the test workers and every process they start; os.tmpdir() reads it on each call.
 * Each project of vitest.config.ts lists this setup: the first one of a run makes the folder, the others use it.
 */
import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';

const MARK = 'MCP_CONFORM_TEST_TEMP_ROOT';

export default function setup(): () => void {
  if (process.env[MARK]) return () => {};
  const before = process.env.TMPDIR;
  const root = mkdtempSync(join(tmpdir(), 'mcp-conform-tests-'));
  process.env.TMPDIR = root;
  process.env[MARK] = root;
  return () => {
    if (before === undefined) delete process.env.TMPDIR;
    else process.env.TMPDIR = before;
    delete process.env[MARK];
    rmSync(root, { recursive: true, force: true });
  };
}
