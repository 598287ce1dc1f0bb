/**
 * Vitest global setup of the `cli` and `peers` projects: `python3` found once. The tests start the Python fixtures
 * hundreds of times as `python3 fixtures/…` (the command a user types); where `python3` on PATH is a version manager's
 * shim (pyenv's is a bash script that looks the version up on every start, ~3× the interpreter's own start-up), the
 * interpreter it resolves to is put first on PATH for this run, through a folder holding one symlink. The same
 * interpreter runs every fixture; only the lookup is done once. Nothing changes where `python3` is the interpreter.
 */
import { spawnSync } from 'node:child_process';
import { mkdtempSync, realpathSync, rmSync, symlinkSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { delimiter, join } from 'node:path';

export default function setup(): (() => void) | undefined {
  if (process.env.MCP_CONFORM_TEST_PYTHON3) return undefined; // an earlier project of this run did it
  const which = spawnSync('sh', ['-c', 'command -v python3'], { encoding: 'utf8', timeout: 10_000 });
  const onPath = which.status === 0 ? which.stdout.trim() : '';
  if (!onPath) return undefined;
  const exe = spawnSync(onPath, ['-c', 'import sys; print(sys.executable)'], { encoding: 'utf8', timeout: 30_000 });
  const real = exe.status === 0 ? exe.stdout.trim() : '';
  if (!real || realpathSync(real) === realpathSync(onPath)) return undefined;
  const dir = mkdtempSync(join(tmpdir(), 'mcp-conform-python3-'));
  symlinkSync(real, join(dir, 'python3'));
  const before = process.env.PATH;
  process.env.PATH = `${dir}${delimiter}${before ?? ''}`;
  process.env.MCP_CONFORM_TEST_PYTHON3 = real;
  return () => {
    process.env.PATH = before;
    delete process.env.MCP_CONFORM_TEST_PYTHON3;
    rmSync(dir, { recursive: true, force: true });
  };
}
