/**
 * An MCPB bundle's manifest against the server it starts (run --manifest manifest.json): the manifest fits its
 * published schema (@anthropic-ai/mcpb's JSON Schema of its manifest_version), and the tools and prompts it declares
 * are the ones the server lists — each missing or undeclared one named. Only in runs given a manifest.
 * Manifest format: https://github.com/modelcontextprotocol/mcpb/blob/main/MANIFEST.md
 */
import { publishedInput } from '../core/published/types.js';
import type { CaseContext, Outcome, Suite } from '../core/suite.js';
import { promptListing } from '../core/surface.js';
import { tools } from '../core/tools.js';
import { publishedSchemaOutcome } from './helpers.js';

const MANIFEST_SPEC = 'https://github.com/modelcontextprotocol/mcpb/blob/main/MANIFEST.md';

const several = (kind: string, names: string[]) => (names.length === 1 ? `a ${kind}` : `${names.length} ${kind}s`);

/** Declared names against listed names: what is missing from the server, what it lists undeclared. */
function parity(
  kind: 'tool' | 'prompt',
  declared: string[],
  listed: string[],
  generated: boolean,
  messageIds: number[],
): Outcome {
  const have = new Set(listed);
  const said = new Set(declared);
  const missing = declared.filter((n) => !have.has(n));
  const extra = listed.filter((n) => !said.has(n));
  const q = (ns: string[]) => ns.map((n) => `"${n}"`).join(', ');
  if (missing.length) {
    return {
      verdict: 'fail',
      messageIds,
      message: `the manifest declares ${several(kind, missing)} the server does not list: ${q(missing)}${extra.length ? `; the server lists ${several(kind, extra)} the manifest does not declare: ${q(extra)}` : ''}`,
    };
  }
  if (extra.length) {
    if (generated)
      return {
        verdict: 'pass',
        messageIds,
        message: `every declared ${kind} is listed; ${extra.length} more listed (${q(extra.slice(0, 10))}${extra.length > 10 ? ', …' : ''}), which ${kind}s_generated: true allows`,
      };
    return {
      verdict: 'fail',
      messageIds,
      message: `the server lists ${several(kind, extra)} the manifest does not declare: ${q(extra)} (declare ${extra.length === 1 ? 'it' : 'them'}, or set ${kind}s_generated: true)`,
    };
  }
  return {
    verdict: 'pass',
    messageIds,
    message:
      declared.length === 1
        ? `the ${kind} the manifest declares is the one the server lists`
        : `the ${declared.length} ${kind}s the manifest declares are the ones the server lists`,
  };
}

async function listedNames(
  ctx: CaseContext,
  kind: 'tool' | 'prompt',
): Promise<{ names: string[]; messageIds: number[]; problem?: string }> {
  if (kind === 'tool') {
    const l = await ctx.service(tools);
    return { names: l.tools.map((t) => t.name), messageIds: l.messageIds, problem: l.problem };
  }
  if (ctx.capabilities.prompts === undefined) return { names: [], messageIds: [] };
  const l = await ctx.service(promptListing);
  return { names: l.items.map((p) => p.name), messageIds: l.messageIds, problem: l.problem };
}

function parityCase(kind: 'tool' | 'prompt'): Suite['cases'][number] {
  return {
    id: `manifest/${kind}s`,
    title: `the ${kind}s the manifest declares are the ones the server lists`,
    level: 'SHOULD',
    spec: MANIFEST_SPEC,
    requirement: `An MCPB manifest's "${kind}s" names what the bundled server offers: each declared ${kind} is listed by the server (${kind === 'tool' ? 'tools/list' : 'prompts/list'}), and the server lists none the manifest leaves out unless "${kind}s_generated" is true.`,
    async run(ctx) {
      const m = ctx.input(publishedInput)?.manifest;
      if (!m) return { verdict: 'skip', message: 'no --manifest given' };
      const declared = kind === 'tool' ? m.tools : m.prompts;
      const l = await listedNames(ctx, kind);
      if (l.problem)
        return {
          verdict: 'fail',
          messageIds: l.messageIds,
          message: `the ${kind}s could not be listed, so they cannot be compared with the manifest: ${l.problem}`,
        };
      if (declared === undefined) {
        if (!l.names.length)
          return {
            verdict: 'skip',
            messageIds: l.messageIds,
            message: `the manifest declares no ${kind}s and the server lists none`,
          };
        return parity(kind, [], l.names, kind === 'tool' ? !!m.toolsGenerated : !!m.promptsGenerated, l.messageIds);
      }
      return parity(kind, declared, l.names, kind === 'tool' ? !!m.toolsGenerated : !!m.promptsGenerated, l.messageIds);
    },
  };
}

export const manifestSuite: Suite = {
  id: 'manifest',
  title: 'MCPB manifest',
  description:
    "An MCPB bundle's manifest.json (--manifest): its schema, and the tools and prompts it declares against those the server lists",
  selectedWhen: (sel) => !!sel.input(publishedInput)?.manifest,
  cases: [
    {
      id: 'manifest/schema',
      ofFile: true,
      title: 'manifest.json fits the published MCPB manifest schema of its manifest_version',
      level: 'MUST',
      spec: MANIFEST_SPEC,
      requirement:
        'manifest.json is valid against the JSON Schema the MCPB project publishes for the manifest_version it declares (required fields, server.mcp_config, user_config entries, tools and prompts).',
      // The file, not the server: judged even when the server never answered (it is read after the run).
      requires: { needs: 'log' },
      run: async (ctx) => publishedSchemaOutcome(ctx.input(publishedInput)?.manifest, '--manifest'),
    },
    parityCase('tool'),
    parityCase('prompt'),
  ],
};
