/**
 * Which tools the harness may call: the one place that decides it (--call-tools, --call-tool NAME).
 *
 * Tool annotations are hints whose defaults presume the worst: `readOnlyHint` defaults to false and
 * `destructiveHint` to true, so a tool without annotations may have side effects
 * (ToolAnnotations in the schema: https://modelcontextprotocol.io/specification/2025-11-25/schema#toolannotations).
 * `safe`, the default, therefore calls only tools annotated `readOnlyHint: true`. `--call-tool NAME` adds named
 * tools on top of any policy (also `none`: `--call-tools none --call-tool echo` calls echo and nothing else).
 *
 * Every tools/call the harness makes with a tool name the server listed goes through this plan: the calling suite,
 * the invalid-params suite (a server that does not validate would run the tool with the harness's bad arguments),
 * the robustness suite's cancellation probe, and the security suite's file and URL probes (which are stricter still:
 * a tool not annotated readOnlyHint: true only when --call-tool names it, suites/security/params.ts probeRefusal).
 *
 * Calls the user wrote are not the harness's to refuse: an expectation file (run --expect, the suite in
 * suites/expect.ts) names a tool and its arguments, and that call is made whatever the policy says; the policy still
 * decides every call the harness makes up (report.skippedTools is about those).
 *
 * Tools with `execution.taskSupport: "required"` are never called plainly: a client MUST call them as tasks
 * (https://modelcontextprotocol.io/specification/2025-11-25/basic/utilities/tasks#tool-level-negotiation). When the
 * policy allows one and the server can take it as a task, it goes to `tasks` (see core/tasks.ts); else it is skipped
 * with the reason.
 */
import type { ToolSkip } from './results.js';
import type { OptionDef } from './options.js';
import type { Service } from './services.js';
import { taskCallsUnsupported } from './tasks.js';
import { tools, type Tool } from './tools.js';
import type { CaseContext, ToolCallRecord } from './suite.js';

export type CallToolsPolicy = 'safe' | 'safe-closed' | 'all' | 'none';

/** The policies, for option choices and checks. */
export const CALL_TOOLS_POLICIES: readonly CallToolsPolicy[] = ['safe', 'safe-closed', 'all', 'none'];

export interface CallPolicy {
  mode: CallToolsPolicy;
  /** --call-tool NAME: tools called whatever the mode says (names as the server lists them). */
  allow: readonly string[];
}

/**
 * Whether a tool may reach the outside world: `openWorldHint` defaults to true (a web search, a paid API), so only
 * `openWorldHint: false` says it does not
 * (https://modelcontextprotocol.io/specification/2025-11-25/schema#toolannotations).
 */
export function reachesOpenWorld(tool: Tool): boolean {
  const a = tool.annotations;
  return !(a && typeof a === 'object' && a.openWorldHint === false);
}

export interface CallPlan {
  /** Tools that may be called plainly (tools/call without task augmentation). */
  call: Tool[];
  /** Tools the policy allows that require task augmentation, and the server takes tools/call as a task. */
  tasks: Tool[];
  /** Tools not called, with why. */
  skipped: ToolSkip[];
  /** --call-tool names that match no listed tool. */
  unknownAllowed: string[];
  /** Names of the tools to be called (plainly or as tasks) that may reach the outside world (openWorldHint true or absent). */
  openWorld: string[];
}

/** How to call a tool the policy leaves out, for messages. */
export const HOW_TO_INCLUDE = '--call-tools all (in a sandbox) or --call-tool NAME calls it';

/** Why the policy leaves a tool out (undefined: it may be called). */
export function policyRefusal(tool: Tool, policy: CallPolicy): string | undefined {
  if (policy.allow.includes(tool.name) || policy.mode === 'all') return undefined;
  if (policy.mode === 'none') return '--call-tools none (--call-tool NAME calls it)';
  const a = tool.annotations;
  if (a && typeof a === 'object' && a.readOnlyHint === true) {
    if (policy.mode !== 'safe-closed' || !reachesOpenWorld(tool)) return undefined;
    const hint =
      a.openWorldHint === undefined
        ? 'no openWorldHint (it defaults to true: the tool may reach the outside world, a paid API say)'
        : `openWorldHint is ${JSON.stringify(a.openWorldHint)}`;
    return `--call-tools safe-closed calls only read-only tools annotated openWorldHint: false; ${hint}; --call-tools safe or --call-tool NAME calls it`;
  }
  let why: string;
  if (!a || typeof a !== 'object' || !Object.keys(a).length)
    why = 'no annotations: the spec presumes a tool may modify its environment (readOnlyHint defaults to false)';
  else if (a.destructiveHint === true) why = 'annotated destructiveHint: true';
  else if (a.readOnlyHint === false) why = 'annotated readOnlyHint: false';
  else if (a.readOnlyHint !== undefined) why = `readOnlyHint is ${JSON.stringify(a.readOnlyHint)}, not true`;
  else why = 'not annotated readOnlyHint: true (it defaults to false: the tool may modify its environment)';
  return `--call-tools ${policy.mode} calls only tools annotated readOnlyHint: true${policy.mode === 'safe-closed' ? ' (and openWorldHint: false)' : ''}; ${why}; ${HOW_TO_INCLUDE}`;
}

/** The tool's `execution.taskSupport` ('forbidden' when absent, as the spec's default). */
export function taskSupportOf(tool: Tool): string {
  const e = tool.execution;
  const s = e && typeof e === 'object' ? (e as Record<string, unknown>).taskSupport : undefined;
  return typeof s === 'string' ? s : 'forbidden';
}

/**
 * The call plan for a tool list. `taskCalls` says whether task-required tools can be called as tasks on this server
 * (undefined) or why not (a sentence).
 */
export function planCalls(tools: readonly Tool[], policy: CallPolicy, taskCalls: string | undefined): CallPlan {
  const plan: CallPlan = { call: [], tasks: [], skipped: [], unknownAllowed: [], openWorld: [] };
  const names = new Set(tools.map((t) => t.name));
  plan.unknownAllowed = [...new Set(policy.allow)].filter((n) => !names.has(n));
  for (const t of tools) {
    const refused = policyRefusal(t, policy);
    if (refused) plan.skipped.push({ name: t.name, reason: refused });
    else if (taskSupportOf(t) !== 'required') plan.call.push(t);
    else if (taskCalls === undefined) plan.tasks.push(t);
    else
      plan.skipped.push({
        name: t.name,
        reason: `execution.taskSupport is "required": a client must call it as a task, never plainly, and ${taskCalls}`,
      });
  }
  plan.openWorld = [...plan.call, ...plan.tasks].filter(reachesOpenWorld).map((t) => t.name);
  return plan;
}

/**
 * The call policy is a run option, not a suite's: it binds every suite that calls a listed tool (safety is the run's
 * default, whatever suites are selected), so it is declared here, next to the plan it decides.
 */
export const callToolsOption: OptionDef<CallToolsPolicy> = {
  flag: 'call-tools',
  key: 'callTools',
  type: 'string',
  choices: [...CALL_TOOLS_POLICIES],
  default: 'safe',
  inReport: 'always',
  help: 'Which tools the run may call: safe calls only tools annotated readOnlyHint: true (an unannotated tool may have side effects); safe-closed only those that are also annotated openWorldHint: false (no web search, no paid API: for CI with real keys); all calls every tool (use a sandbox); none calls none',
};
export const callToolOption: OptionDef<string[]> = {
  flag: 'call-tool',
  key: 'callTool',
  type: 'string[]',
  default: [],
  inReport: 'always',
  help: 'Also call the tool of this name, whatever --call-tools says (repeatable); a name the server does not list is reported and makes the exit code 2 (a usage error)',
};

/**
 * The call plan of the run (a run service): every tools/call with a listed tool's name goes through it. It fills
 * report.skippedTools (always) and report.unknownCallTools (when a --call-tool name matches no listed tool).
 */
export const callPlan: Service<CallPlan> = {
  id: 'call-plan',
  async produce(ctx) {
    const l = await ctx.service(tools);
    return planCalls(
      l.tools,
      { mode: ctx.option(callToolsOption), allow: ctx.option(callToolOption) },
      taskCallsUnsupported(ctx.version, ctx.capabilities),
    );
  },
  report(report, plan) {
    report.skippedTools = plan?.skipped ?? [];
    if (plan?.openWorld.length) report.openWorldTools = plan.openWorld;
    if (plan?.unknownAllowed.length) report.unknownCallTools = plan.unknownAllowed;
  },
};

/** Call a tool through ctx.request: the exchange is recorded with its purpose for later suites (is-error). */
export async function callTool(
  ctx: CaseContext,
  name: string,
  args: unknown,
  purpose: string,
  o: { expectInvalid?: string; params?: Record<string, unknown>; timeoutFrom?: Promise<unknown> } = {},
): Promise<ToolCallRecord> {
  await assertCallAllowed(ctx, name, purpose);
  // A retry after input_required (2026-07-28, core/mrtr.ts) is a tools/call too: the policy is checked again before it.
  return (await ctx.request('tools/call', o.params ?? { name, arguments: args }, {
    purpose,
    tool: name,
    expectInvalid: o.expectInvalid,
    timeoutFrom: o.timeoutFrom,
    beforeRetry: () => assertCallAllowed(ctx, name, purpose),
  })) as ToolCallRecord;
}

/**
 * The call policy holds wherever a listed tool is called: a tools/call of a tool the server lists goes out
 * only when the plan allows it plainly — or, for the one plain probe of calling/task-required-plain, when the plan
 * calls it as a task. Names the server does not list (the unknown-tool probe, the nameless malformed call) carry no
 * side effect of a real tool. A suite that asks for anything else has a bug: it is stopped here, before the call.
 */
export async function assertCallAllowed(ctx: CaseContext, name: string, purpose: string): Promise<void> {
  if (!namesOf(await ctx.service(tools), 'tools').has(name)) return;
  const plan = await ctx.service(callPlan);
  if (namesOf(plan, 'call').has(name)) return;
  if (purpose === 'task-required-plain' && namesOf(plan, 'tasks').has(name)) return;
  const why = plan.skipped.find((s) => s.name === name)?.reason ?? 'the call policy does not allow it';
  throw new Error(`harness refused to call tool "${name}" (${purpose}): ${why}`);
}

/** The names of a memoized list of tools (a run's listing or call plan), as a set built once: calls check them each. */
const nameSets = new WeakMap<object, Map<string, Set<string>>>();
function namesOf<K extends string>(o: Record<K, readonly Tool[]>, key: K): Set<string> {
  let byKey = nameSets.get(o);
  if (!byKey) nameSets.set(o, (byKey = new Map()));
  let set = byKey.get(key);
  if (!set) byKey.set(key, (set = new Set(o[key].map((t) => t.name))));
  return set;
}
