/**
 * --call-tools safe (the default) calls only tools annotated readOnlyHint: true — in every suite that calls a listed
 * tool — and --call-tool NAME adds named tools. Proved on a fixture whose other tools leave a file behind when called
 * (valid arguments or not); on a real server that runs shell commands: test/call-policy-peers.test.ts.
 */
import { describe, expect, it } from 'vitest';
import { mkdtempSync, readdirSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { planCalls, policyRefusal } from '../core/call-policy.js';
import { cli, FIXTURES, run } from './helpers/cli.js';
import { calledNames } from './helpers/tool-calls.js';

const SIDE_EFFECTS = join(FIXTURES, 'safety', 'side-effects.py');
const NOT_READ_ONLY = ['mutate', 'note', 'slow_job', 'wipe'];

/** A server started with SIDE_EFFECTS_DIR pointing at a fresh directory, run through the CLI with these flags. */
async function runSideEffects(extra: string[]) {
  const dir = mkdtempSync(join(tmpdir(), 'mcp-conform-side-effects-'));
  const r = await run(`python3 ${SIDE_EFFECTS}`, ['--env', `SIDE_EFFECTS_DIR=${dir}`, ...extra]);
  return {
    r,
    touched: readdirSync(dir)
      .map((f) => f.replace(/\.called$/, ''))
      .sort(),
  };
}

describe('the call policy', () => {
  const tool = (name: string, annotations?: Record<string, unknown>, execution?: Record<string, unknown>) => ({
    name,
    ...(annotations ? { annotations } : {}),
    ...(execution ? { execution } : {}),
  });

  it('safe calls only readOnlyHint: true; every other tool is skipped with why and how to include it', () => {
    const tools = [
      tool('ro', { readOnlyHint: true }),
      tool('bare'),
      tool('empty', {}),
      tool('additive', { readOnlyHint: false, destructiveHint: false }),
      tool('destroys', { destructiveHint: true }),
      tool('both', { readOnlyHint: true, destructiveHint: true }),
    ];
    const plan = planCalls(tools, { mode: 'safe', allow: [] }, undefined);
    expect(plan.call.map((t) => t.name)).toEqual(['ro', 'both']); // readOnlyHint: true makes destructiveHint meaningless
    expect(plan.skipped.map((s) => s.name)).toEqual(['bare', 'empty', 'additive', 'destroys']);
    expect(plan.skipped[0]!.reason).toMatch(/no annotations: the spec presumes a tool may modify its environment/);
    expect(plan.skipped[2]!.reason).toMatch(/annotated readOnlyHint: false/);
    expect(plan.skipped[3]!.reason).toMatch(/annotated destructiveHint: true/);
    for (const s of plan.skipped) expect(s.reason).toMatch(/--call-tools all \(in a sandbox\) or --call-tool NAME/);
  });

  it('--call-tool NAME adds a tool on top of safe and of none; unknown names are kept to be reported', () => {
    const tools = [tool('ro', { readOnlyHint: true }), tool('bare'), tool('other')];
    expect(planCalls(tools, { mode: 'safe', allow: ['bare', 'nope'] }, undefined)).toMatchObject({
      call: [{ name: 'ro' }, { name: 'bare' }],
      skipped: [{ name: 'other' }],
      unknownAllowed: ['nope'],
    });
    expect(planCalls(tools, { mode: 'none', allow: ['bare'] }, undefined).call.map((t) => t.name)).toEqual(['bare']);
    expect(planCalls(tools, { mode: 'all', allow: [] }, undefined).call).toHaveLength(3);
    expect(policyRefusal(tool('x'), { mode: 'none', allow: [] })).toMatch(/--call-tools none/);
  });

  it('a task-required tool is never in the plain-call list: a task when the server takes one, else skipped with why', () => {
    const t = tool('research', { readOnlyHint: true }, { taskSupport: 'required' });
    expect(planCalls([t], { mode: 'safe', allow: [] }, undefined)).toMatchObject({
      call: [],
      tasks: [{ name: 'research' }],
      skipped: [],
    });
    const plan = planCalls(
      [t],
      { mode: 'safe', allow: [] },
      'the server does not declare capabilities.tasks.requests.tools.call',
    );
    expect(plan).toMatchObject({ call: [], tasks: [] });
    expect(plan.skipped[0]!.reason).toMatch(
      /taskSupport is "required".*must call it as a task.*does not declare capabilities\.tasks/,
    );
  });
});

describe('--call-tools safe on a server with side effects', () => {
  it('a default run of every suite calls only the read-only tool: no other tool was ever called, each is listed with why', async () => {
    const { r, touched } = await runSideEffects([]);
    expect(touched).toEqual([]); // no marker file: not one tools/call reached a tool with side effects
    expect([...new Set(calledNames(r.report))]).toEqual(['look']);
    expect(r.report.skippedTools.map((t) => t.name).sort()).toEqual(NOT_READ_ONLY);
    expect(r.report.options).toMatchObject({ callTools: 'safe', callTool: [] });
    expect(r.c('calling/tool/look').verdict).toBe('pass');
    for (const name of NOT_READ_ONLY) {
      expect(r.c(`calling/tool/${name}`)).toMatchObject({
        verdict: 'skip',
        message: expect.stringMatching(/^not called: --call-tools safe calls only tools annotated readOnlyHint: true/),
      });
    }
    // invalid-params probed only the read-only tool; the cancellation probe did not pick the unannotated slow_job.
    expect(Object.keys(r.verdicts('invalid-params/missing-required/'))).toEqual([
      'invalid-params/missing-required/look',
    ]);
    expect(r.c('robustness/cancel-in-flight').message).toMatch(/no slow tool to cancel/);
    expect(r.code).toBe(0);
  }, 60_000);

  it('--call-tool NAME calls that tool too (and only it); a name the server does not list is reported', async () => {
    const { r, touched } = await runSideEffects([
      '--suite',
      'calling,invalid-params',
      '--call-tool',
      'mutate',
      '--call-tool',
      'no_such_tool',
    ]);
    expect(touched).toEqual(['mutate']);
    expect([...new Set(calledNames(r.report))].sort()).toEqual(['look', 'mutate']);
    expect(r.c('calling/tool/mutate').verdict).toBe('pass');
    expect(r.report.options).toMatchObject({ callTool: ['mutate', 'no_such_tool'] });
    expect(r.report.unknownCallTools).toEqual(['no_such_tool']);
    expect(r.report.skippedTools.map((t) => t.name).sort()).toEqual(['note', 'slow_job', 'wipe']);
    // A name the server does not list is a usage error: exit 2, said on stderr, the report written all the same.
    expect(r.code).toBe(2);
    expect(r.stderr).toMatch(/--call-tool no_such_tool: the server lists no tool of that name/);
  }, 60_000);

  it('--call-tools none --call-tool look calls look alone', async () => {
    const { r, touched } = await runSideEffects(['--suite', 'calling', '--call-tools', 'none', '--call-tool', 'look']);
    expect(touched).toEqual([]);
    expect(calledNames(r.report)).toEqual(['look']);
    expect(r.report.skippedTools.map((t) => t.name).sort()).toEqual(NOT_READ_ONLY);
    expect(r.report.skippedTools.every((t) => /--call-tools none/.test(t.reason))).toBe(true);
  }, 60_000);

  it('the console says how many tools were not called and how to include them, and warns of an unknown --call-tool', async () => {
    const out = mkdtempSync(join(tmpdir(), 'mcp-conform-console-'));
    const dir = mkdtempSync(join(tmpdir(), 'mcp-conform-side-effects-'));
    const r = await cli([
      'run',
      '--stdio',
      `python3 ${SIDE_EFFECTS}`,
      '--env',
      `SIDE_EFFECTS_DIR=${dir}`,
      '--suite',
      'calling',
      '--call-tool',
      'nope',
      '--out-dir',
      out,
    ]);
    expect(r.stdout).toMatch(/4 tools not called \(--call-tools safe\): note, mutate, wipe, slow_job/);
    expect(r.stdout).toMatch(/to include them: --call-tools all \(in a sandbox[^)]*\), or --call-tool NAME/);
    expect(r.stdout).toMatch(/--call-tool nope: the server lists no tool of that name/);
    expect(readdirSync(dir)).toEqual([]);
  }, 60_000);

  it('--call-tools all calls every tool (what the marker files show)', async () => {
    const { r, touched } = await runSideEffects(['--suite', 'calling', '--call-tools', 'all']);
    expect(touched).toEqual(NOT_READ_ONLY);
    expect(r.report.skippedTools).toEqual([]);
  }, 60_000);
});

describe('the policy holds where calls are made: a suite cannot call a tool the plan leaves out', () => {
  it('a suite that asks to call a tool the policy leaves out is stopped before the call: no tools/call, no marker file', async () => {
    const { runConformance, callTool } = await import('mcp-conform');
    const dir = mkdtempSync(join(tmpdir(), 'mcp-conform-side-effects-'));
    const careless = {
      id: 'careless',
      title: 'a suite with a bug',
      description: 'calls a tool without asking the plan',
      cases: [
        {
          id: 'careless/call',
          title: 'calls mutate',
          level: 'MUST' as const,
          spec: 'server/tools#calling-tools',
          requirement: 'none',
          async run(ctx: Parameters<typeof callTool>[0]) {
            const rec = await callTool(ctx, 'mutate', {}, 'call');
            return { verdict: 'pass' as const, message: String(rec.reply) };
          },
        },
      ],
    };
    const report = await runConformance({
      stdio: `python3 ${SIDE_EFFECTS}`,
      env: [`SIDE_EFFECTS_DIR=${dir}`],
      suites: [careless],
      timeout: 10_000,
    });
    const c = report.suites.flatMap((s) => s.cases).find((x) => x.id === 'careless/call')!;
    expect(c.verdict).toBe('fail');
    expect(c.message).toMatch(/harness refused to call tool "mutate" \(call\)/);
    expect(calledNames(report)).toEqual([]);
    expect(readdirSync(dir)).toEqual([]);
  }, 60_000);

  it('--call-tool with a name the server does not list is reported even when no selected suite calls tools', async () => {
    const { r } = await runSideEffects(['--suite', 'lifecycle', '--call-tool', 'no_such_tool']);
    expect(r.report.unknownCallTools).toEqual(['no_such_tool']);
    expect(r.code).toBe(2);
  }, 60_000);
});
