/** action.yml: a composite action; its run step, executed as the runner would (bash -e), with inputs as env. */
import { spawn } from 'node:child_process';
import { existsSync, mkdtempSync, readFileSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { describe, expect, it } from 'vitest';
import { parse } from 'yaml';
import { FIXTURES, ROOT } from './helpers/cli.js';

interface Step {
  name: string;
  id?: string;
  shell?: string;
  run?: string;
  uses?: string;
  if?: string;
  env?: Record<string, string>;
}
const action = parse(readFileSync(join(ROOT, 'action.yml'), 'utf8')) as {
  name: string;
  inputs: Record<string, { default?: string }>;
  outputs: Record<string, unknown>;
  runs: { using: string; steps: Step[] };
};

function bash(script: string, env: Record<string, string>, cwd: string): Promise<{ code: number | null; out: string }> {
  return new Promise((res, rej) => {
    const child = spawn('bash', ['--noprofile', '--norc', '-eo', 'pipefail', '-c', script], {
      cwd,
      env: { PATH: process.env.PATH!, HOME: process.env.HOME ?? '/tmp', ...env },
      stdio: ['ignore', 'pipe', 'pipe'],
    });
    let out = '';
    child.stdout.on('data', (b) => (out += b));
    child.stderr.on('data', (b) => (out += b));
    const timer = setTimeout(() => {
      child.kill('SIGKILL');
      rej(new Error(`the action script did not end\n${out}`));
    }, 90_000);
    child.on('close', (code) => {
      clearTimeout(timer);
      res({ code, out });
    });
  });
}

describe('action.yml', () => {
  it('is a composite action with the documented inputs and outputs', () => {
    expect(action.runs.using).toBe('composite');
    for (const k of [
      'stdio',
      'http',
      'url',
      'start',
      'config',
      'baseline',
      'suite',
      'call-tools',
      'call-tool',
      'client-capabilities',
      'strict',
      'reporters',
      'out-dir',
      'args',
      'working-directory',
      'version',
      'upload-artifact',
      'shard',
      'merge',
    ])
      expect(action.inputs).toHaveProperty(k);
    expect(Object.keys(action.outputs)).toEqual(['exit-code', 'report-dir', 'artifact-name']);
    // inputs never pasted into a script: only through env
    for (const s of action.runs.steps) expect(s.run ?? '').not.toContain('${{');
  });

  it('the run step runs mcp-conform with the inputs, sets the outputs, and fails the step on failures', async () => {
    const step = action.runs.steps.find((s) => s.id === 'run')!;
    const dir = mkdtempSync(join(tmpdir(), 'mcp-conform-action-'));
    const output = join(dir, 'github-output');
    const summary = join(dir, 'summary.md');
    writeFileSync(output, '');
    const input = (k: string, v?: string) => v ?? action.inputs[k].default ?? '';
    const env = {
      GITHUB_ACTIONS: 'true',
      GITHUB_OUTPUT: output,
      GITHUB_STEP_SUMMARY: summary,
      CI: 'true',
      MCPC_STDIO: `python3 ${join(FIXTURES, 'broken', 'stray-stdout.py')}`,
      MCPC_HTTP: '',
      MCPC_URL: '',
      MCPC_START: '',
      MCPC_CONFIG: '',
      MCPC_BASELINE: '',
      MCPC_SUITE: 'lifecycle,stdio',
      MCPC_STRICT: input('strict'),
      MCPC_REPORTERS: input('reporters'),
      MCPC_OUT_DIR: input('out-dir'),
      MCPC_ARGS: '--timeout 10000 --verbose',
      MCPC_VERSION: '',
      MCPC_ACTION_PATH: ROOT,
      MCPC_CALL_TOOLS: 'none',
      MCPC_CALL_TOOL: 'add, echo',
    };
    const r = await bash(step.run!, env, dir);
    expect(r.code, r.out).toBe(1);
    expect(readFileSync(output, 'utf8')).toBe(
      'report-dir=mcp-conform-report\nartifact-name=mcp-conform-report\nexit-code=1\n',
    );
    for (const f of ['report.json', 'junit.xml', 'report.html'])
      expect(existsSync(join(dir, 'mcp-conform-report', f))).toBe(true);
    const report = JSON.parse(readFileSync(join(dir, 'mcp-conform-report', 'report.json'), 'utf8'));
    expect(report.options).toMatchObject({
      suites: ['lifecycle', 'stdio'],
      timeoutMs: 10000,
      callTools: 'none',
      callTool: ['add', 'echo'],
    });
    expect(r.out).toMatch(/^::error title=mcp-conform%3A stdio\/stdout-only-messages \(MUST\)::/m);
    expect(readFileSync(summary, 'utf8')).toContain('## ❌ mcp-conform: stray-stdout');
  });

  it('shard and merge: a shard job names its artifact after its shard; a merge job joins the reports found by a glob', async () => {
    const step = action.runs.steps.find((s) => s.id === 'run')!;
    const dir = mkdtempSync(join(tmpdir(), 'mcp-conform-action-shard-'));
    const output = join(dir, 'github-output');
    writeFileSync(output, '');
    const base = {
      GITHUB_ACTIONS: 'true',
      GITHUB_OUTPUT: output,
      GITHUB_STEP_SUMMARY: join(dir, 'summary.md'),
      CI: 'true',
      MCPC_STDIO: `python3 ${join(FIXTURES, 'broken', 'stray-stdout.py')}`,
      MCPC_HTTP: '',
      MCPC_URL: '',
      MCPC_START: '',
      MCPC_CONFIG: '',
      MCPC_BASELINE: '',
      MCPC_SUITE: 'lifecycle,stdio',
      MCPC_STRICT: 'false',
      MCPC_REPORTERS: 'json',
      MCPC_ARGS: '',
      MCPC_VERSION: '',
      MCPC_ACTION_PATH: ROOT,
      MCPC_CALL_TOOLS: '',
      MCPC_CALL_TOOL: '',
      MCPC_MERGE: '',
    };
    const shard = await bash(step.run!, { ...base, MCPC_SHARD: '1/1', MCPC_OUT_DIR: 'shards/1' }, dir);
    expect(shard.code, shard.out).toBe(1);
    expect(readFileSync(output, 'utf8')).toBe(
      'report-dir=shards/1\nartifact-name=mcp-conform-report-shard-1-of-1\nexit-code=1\n',
    );
    writeFileSync(output, '');
    const merged = await bash(
      step.run!,
      {
        ...base,
        MCPC_SHARD: '',
        MCPC_STDIO: '',
        MCPC_MERGE: 'shards/*/report.json',
        MCPC_OUT_DIR: 'merged',
        MCPC_REPORTERS: 'json,junit',
      },
      dir,
    );
    expect(merged.code, merged.out).toBe(1);
    expect(readFileSync(output, 'utf8')).toBe('report-dir=merged\nartifact-name=mcp-conform-report\nexit-code=1\n');
    expect(JSON.parse(readFileSync(join(dir, 'merged', 'report.json'), 'utf8')).server.name).toBe('stray-stdout');
    expect(existsSync(join(dir, 'merged', 'junit.xml'))).toBe(true);
    expect(merged.out).toMatch(/^::error title=mcp-conform%3A stdio\/stdout-only-messages \(MUST\)::/m);
    const none = await bash(
      step.run!,
      { ...base, MCPC_SHARD: '', MCPC_STDIO: '', MCPC_MERGE: 'nowhere/*/report.json', MCPC_OUT_DIR: 'x' },
      dir,
    );
    expect(none.code).toBe(2);
    expect(none.out).toContain('no report.json matches');
  });
});
