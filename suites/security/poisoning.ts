/**
 * security/poisoning (the list as a whole and the server's instructions) and security/poisoning/<tool> (one result
 * per tool with a finding): the text a server hands the model, judged offline by the rules of poisoning-rules.ts.
 * Needs no tool call: runs under --call-tools none, and in `lint` on a saved tool list.
 */
import type { Service } from '../../core/services.js';
import type { CaseContext, CaseDef, ItemOutcome } from '../../core/suite.js';
import { tools, type Tool } from '../../core/tools.js';
import { listedTools } from '../helpers.js';
import { findingLine, judgeInstructions, judgeTool, worstOf, type PoisoningFinding } from './poisoning-rules.js';

const plural = (n: number, w: string) => `${n} ${w}${n === 1 ? '' : 's'}`;
const POISONING_REF = 'https://invariantlabs.ai/blog/mcp-security-notification-tool-poisoning-attacks';

/** The server's instructions (initialize result, or the server/discover of 2026-07-28), when the run has them. */
function instructionsOf(ctx: CaseContext): string | undefined {
  const init = ctx.init as CaseContext['init'] | undefined;
  const r = (init?.handshake === 'server/discover' ? init.discover?.result : init?.reply?.result) as
    | Record<string, unknown>
    | undefined;
  const v = r?.instructions;
  return typeof v === 'string' ? v : undefined;
}

/** Each tool's findings, worked out once per run (both cases read them). */
const toolFindings: Service<Map<Tool, PoisoningFinding[]>> = {
  id: 'security-poisoning',
  produce: async () => new Map(),
};
async function findingsOf(ctx: CaseContext, list: Tool[]): Promise<{ tool: string; findings: PoisoningFinding[] }[]> {
  const memo = await ctx.service(toolFindings);
  const names = list.map((x) => x.name);
  return list.map((t) => {
    let f = memo.get(t);
    if (!f) memo.set(t, (f = judgeTool(t, names)));
    return { tool: t.name, findings: f };
  });
}

export const poisoningCases: CaseDef[] = [
  {
    id: 'security/poisoning',
    title: 'the tool list and the instructions carry no hidden or model-directed instructions',
    level: 'SHOULD',
    spec: 'server/tools#security-considerations',
    requirement: `Tool definitions and the server's instructions describe the tools to the model; they carry no hidden characters, no requests to send local secrets anywhere, no directives to keep things from the user or about other tools (tool poisoning: ${POISONING_REF}). Judged offline by documented rules (docs/security.md); the per-tool findings are security/poisoning/<tool>. Hidden content and exfiltration fail, softer signals warn.`,
    // The rules run as soon as the listing suite has the tool list, while the run waits anyway.
    start(ctx) {
      if (!ctx.capabilities.tools) return;
      ctx
        .whenProduced(tools)
        .then((l) => (l.tools.length ? findingsOf(ctx, l.tools) : undefined))
        .catch(() => undefined);
    },
    async run(ctx) {
      // A server without tools may still give the model instructions: those are judged alone.
      const t = ctx.capabilities.tools ? await listedTools(ctx) : [];
      if (!Array.isArray(t)) return t;
      if (!ctx.capabilities.tools && instructionsOf(ctx) === undefined)
        return {
          verdict: 'skip',
          message: 'the server did not declare the "tools" capability and gave no instructions',
        };
      const byTool = (await findingsOf(ctx, t)).filter((x) => x.findings.length);
      const instr = instructionsOf(ctx);
      const inInstructions = instr ? judgeInstructions(instr) : [];
      const all: PoisoningFinding[] = [...inInstructions, ...byTool.flatMap((x) => x.findings)];
      const details = {
        tools: t.length,
        instructions: instr !== undefined,
        findings: inInstructions,
        toolsWithFindings: byTool.map((x) => x.tool),
      };
      const head = `${ctx.capabilities.tools ? `${plural(t.length, 'tool')}${instr !== undefined ? ' and the instructions' : ''}` : 'the instructions (no tools capability)'} checked`;
      if (!all.length)
        return { verdict: 'pass', message: `${head}: no hidden characters, no model-directed instructions`, details };
      const parts = [
        ...inInstructions.map(findingLine),
        ...(byTool.length
          ? [
              `${plural(byTool.length, 'tool')} with findings: ${byTool
                .slice(0, 6)
                .map((x) => `"${x.tool}" (${[...new Set(x.findings.map((f) => f.rule))].join(', ')})`)
                .join(', ')}${byTool.length > 6 ? '…' : ''} (see security/poisoning/<tool>)`,
            ]
          : []),
      ];
      return { verdict: worstOf(all) as 'fail' | 'warn', message: `${head}: ${parts.join('; ')}`, details };
    },
  },
  {
    id: 'security/poisoning',
    title: "the tool's definition carries no hidden or model-directed instructions",
    level: 'SHOULD',
    spec: 'server/tools#security-considerations',
    requirement: `The tool's name, title, description and parameter descriptions describe the tool (tool poisoning: ${POISONING_REF}); one result per tool with a finding, quoting what triggered it (hidden characters decoded) and why it is a risk.`,
    perItem: 'tool',
    requires: { capability: 'tools' },
    async run(ctx) {
      const t = await listedTools(ctx);
      if (!Array.isArray(t)) return [];
      const out: ItemOutcome[] = [];
      for (const { tool, findings: fs } of await findingsOf(ctx, t)) {
        if (fs.length)
          out.push({
            item: tool,
            verdict: worstOf(fs) as 'fail' | 'warn',
            message: `tool "${tool}": ${fs.map(findingLine).join('; ')}`,
            details: { findings: fs },
          });
      }
      return out;
    },
  },
];
