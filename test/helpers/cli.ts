/** Run the built CLI as a user would, and read the report it wrote. */
import { spawn } from 'node:child_process';
import { mkdtempSync, readFileSync, existsSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join, resolve } from 'node:path';
import type { CaseResult, Report } from '../../core/results.js';

export const ROOT = resolve(import.meta.dirname, '..', '..');
export const CLI = join(ROOT, 'dist', 'bin', 'mcp-conform.js');
export const FIXTURES = join(ROOT, 'fixtures', 'servers');
export const BIN = join(ROOT, 'node_modules', '.bin');

/**
 * The current @modelcontextprotocol/server-filesystem's entry script. Not node_modules/.bin/mcp-server-filesystem: the
 * old releases installed beside it as npm aliases (server-filesystem-2025.3.28, …) declare the same bin name, and npm
 * links it to whichever it installs last.
 */
export const FILESYSTEM_SERVER = join(
  ROOT,
  'node_modules',
  '@modelcontextprotocol',
  'server-filesystem',
  'dist',
  'index.js',
);

export interface CliResult {
  code: number | null;
  stdout: string;
  stderr: string;
  ms: number;
}

export function cli(
  args: string[],
  opts: { cwd?: string; env?: Record<string, string>; timeoutMs?: number } = {},
): Promise<CliResult> {
  return new Promise((res, rej) => {
    const t0 = Date.now();
    const child = spawn(process.execPath, [CLI, ...args], {
      cwd: opts.cwd ?? ROOT,
      env: { ...process.env, NO_COLOR: '1', ...opts.env },
      stdio: ['ignore', 'pipe', 'pipe'],
    });
    let stdout = '';
    let stderr = '';
    child.stdout.on('data', (b) => (stdout += b));
    child.stderr.on('data', (b) => (stderr += b));
    const timer = setTimeout(() => {
      child.kill('SIGKILL');
      rej(
        new Error(
          `mcp-conform ${args.join(' ')} did not end within ${opts.timeoutMs ?? 90_000} ms\n${stdout}\n${stderr}`,
        ),
      );
    }, opts.timeoutMs ?? 90_000);
    child.on('close', (code) => {
      clearTimeout(timer);
      res({ code, stdout, stderr, ms: Date.now() - t0 });
    });
  });
}

export interface RunResult extends CliResult {
  report: Report;
  outDir: string;
  /** Case by id. */
  c(id: string): CaseResult;
  verdicts(prefix: string): Record<string, string>;
}

/** `mcp-conform run <args> --reporter json --quiet` into a fresh directory; returns the report too. */
export async function runArgs(args: string[], opts: { timeoutMs?: number; cwd?: string } = {}): Promise<RunResult> {
  const outDir = mkdtempSync(join(tmpdir(), 'mcp-conform-test-'));
  const r = await cli(['run', ...args, '--out-dir', outDir, '--reporter', 'json', '--quiet'], opts);
  const file = join(outDir, 'report.json');
  if (!existsSync(file)) throw new Error(`no report written (exit ${r.code})\n${r.stdout}\n${r.stderr}`);
  const report = JSON.parse(readFileSync(file, 'utf8')) as Report;
  const all = report.suites.flatMap((s) => s.cases);
  return {
    ...r,
    report,
    outDir,
    // A report of two eras (a dual-era server: report.eras) has the 2026-07-28 results first: c() and verdicts() are
    // those (filter suites[].cases by protocolVersion for the other era's).
    c(id: string) {
      const found = all.find((x) => x.id === id);
      if (!found) throw new Error(`no case ${id}; cases: ${all.map((x) => x.id).join(', ')}`);
      return found;
    },
    verdicts(prefix: string) {
      const first = all.filter((x) => !x.protocolVersion || x.protocolVersion === all[0]?.protocolVersion);
      return Object.fromEntries(first.filter((x) => x.id.startsWith(prefix)).map((x) => [x.id, x.verdict]));
    },
  };
}

/** `mcp-conform run --stdio <command> <extra> --reporter json` into a fresh directory; returns the report too. */
export function run(
  command: string,
  extra: string[] = [],
  opts: { timeoutMs?: number; cwd?: string } = {},
): Promise<RunResult> {
  return runArgs(['--stdio', command, ...extra], opts);
}

export const py = (file: string) => `python3 ${join(FIXTURES, file)}`;
