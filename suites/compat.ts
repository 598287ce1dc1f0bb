/**
 * Provider compatibility: would a model provider accept this server's tool list as its tool configuration? A client
 * hands the MCP tool list to OpenAI, Anthropic, Bedrock or Gemini; a tool that breaks the provider's rules makes the
 * provider refuse the whole request. The rules are data (suites/compat/rules.ts, with sources and dates).
 *
 * Cases: compat/<provider> (always present: the list as a whole) and compat/<provider>/<tool> for each tool the
 * provider would reject or degrade. warn by default (the server is valid MCP; the provider is stricter);
 * --providers a,b checks only those profiles and makes their rejections fail.
 */
import type { OptionDef } from '../core/options.js';
import type { Service } from '../core/services.js';
import type { CaseContext, CaseDef, ItemOutcome, Suite } from '../core/suite.js';
import { tools, type Tool } from '../core/tools.js';
import { checkProfile, type Finding } from './compat/check.js';
import { listedTools } from './helpers.js';
import {
  DEFAULT_PROVIDERS,
  PROFILES,
  PROVIDER_IDS,
  RULES_VERSION,
  type Profile,
  type ProviderId,
} from './compat/rules.js';

/**
 * --providers (config key and library option `providers`): the suite's own option. Reported in
 * report.options.suiteOptions with the quality suite's token bounds (the report contract keeps them together).
 */
export const providersOption: OptionDef<string[] | undefined> = {
  flag: 'providers',
  key: 'providers',
  type: 'string[]',
  inReport: 'when-set',
  reportIn: 'suiteOptions',
  help: `compat: provider profiles to check (${PROVIDER_IDS.join(', ')}); only these, and their rejections fail (default: ${DEFAULT_PROVIDERS.join(', ')}, as warnings)`,
  normalize: (v) =>
    v && [
      ...new Set(
        v
          .flatMap((x) => x.split(','))
          .map((x) => x.trim())
          .filter(Boolean),
      ),
    ],
  validate(v, name) {
    if (!Array.isArray(v) || !v.every((x) => typeof x === 'string')) return `${name} must be a list of strings`;
    for (const x of v)
      if (!PROVIDER_IDS.includes(x as ProviderId))
        return `${name}: unknown provider "${x}" (known: ${PROVIDER_IDS.join(', ')})`;
    if (!v.length) return `${name}: name at least one provider`;
    return undefined;
  },
};

/** The profiles named by --providers (undefined: none named, the defaults are checked as warnings). */
export function namedProviders(ctx: Pick<CaseContext, 'option'>): ProviderId[] | undefined {
  const p = ctx.option(providersOption);
  return p?.length ? (p as ProviderId[]) : undefined;
}

function notChecked(ctx: CaseContext, p: Profile): boolean {
  const named = namedProviders(ctx);
  return named ? !named.includes(p.id) : !p.default;
}

const plural = (n: number, w: string) => `${n} ${w}${n === 1 ? '' : 's'}`;

function findingText(f: Finding): string {
  return `${f.rule}: ${f.message}${f.providerMessage ? ` — ${f.kind === 'reject' ? 'the provider answers' : 'reported as'}: "${f.providerMessage}"` : ''}`;
}

/**
 * Each profile's findings on the run's tool list, and the list's size in JSON (the same for every profile), computed
 * once per run (a run service: the per-profile memo).
 */
const profileFindings: Service<{ byProfile: Map<ProviderId, Finding[]>; bytes?: number }> = {
  id: 'compat-findings',
  produce: async () => ({ byProfile: new Map() }),
};
async function findings(ctx: CaseContext, tools: Tool[], p: Profile): Promise<Finding[]> {
  const m = (await ctx.service(profileFindings)).byProfile;
  let f = m.get(p.id);
  if (!f) m.set(p.id, (f = checkProfile(tools, p.id, { enforce: !!namedProviders(ctx) })));
  return f;
}
async function listBytes(ctx: CaseContext, tools: Tool[]): Promise<number> {
  const memo = await ctx.service(profileFindings);
  return (memo.bytes ??= tools.reduce((a, x) => a + JSON.stringify(x).length, 0));
}

function worst(fs: Finding[]): 'fail' | 'warn' | 'info' {
  return fs.some((f) => f.severity === 'fail') ? 'fail' : fs.some((f) => f.severity === 'warn') ? 'warn' : 'info';
}

function profileCases(p: Profile): CaseDef[] {
  const rules = `rules ${RULES_VERSION}, see mcp-conform list --rules`;
  return [
    {
      id: `compat/${p.id}`,
      title: `${p.title} accepts the tool list`,
      level: 'SHOULD',
      spec: 'server/tools#tool',
      requires: { needs: 'listed' },
      requirement: `Not an MCP requirement: a client that hands this tool list to ${p.title} (${p.shape}) gets it accepted. The provider refuses the whole request when one tool breaks its rules (${rules}). ${p.default ? 'Checked by default (warn); with --providers only the profiles named, and their rejections fail.' : 'Opt-in: checked only when --providers names it.'}`,
      // The profile's findings are worked out as soon as the listing suite has the tool list, while the run waits
      // anyway (robustness/unknown-notification's window), not at the case's turn near the run's end.
      start(ctx) {
        if (notChecked(ctx, p) || !ctx.capabilities.tools) return;
        ctx
          .whenProduced(tools)
          .then((l) => (l.tools.length ? Promise.all([findings(ctx, l.tools, p), listBytes(ctx, l.tools)]) : undefined))
          .catch(() => undefined);
      },
      async run(ctx) {
        // A profile that is not checked leaves no result (opt-in profiles, and the others under --providers).
        if (notChecked(ctx, p)) return [];
        if (!ctx.capabilities.tools)
          return { verdict: 'skip', message: 'the server did not declare the "tools" capability' };
        const t = await listedTools(ctx);
        if (!Array.isArray(t)) return t;
        const fs = await findings(ctx, t, p);
        const rejects = fs.filter((f) => f.kind === 'reject');
        const size = await listBytes(ctx, t);
        const head = `${plural(t.length, 'tool')}, ${size < 10_240 ? `${size} bytes` : `${Math.round(size / 1024)} KB`} of definitions`;
        const details = { provider: p.id, rulesVersion: RULES_VERSION, tools: t.length, bytes: size, findings: fs };
        if (rejects.length) {
          const listLevel = rejects.filter((f) => f.tool === undefined);
          const byTool = [...new Set(rejects.filter((f) => f.tool !== undefined).map((f) => f.tool!))];
          const parts = [
            ...listLevel.map(findingText),
            ...(byTool.length
              ? [
                  `${plural(byTool.length, 'tool')} ${byTool.length === 1 ? 'breaks' : 'break'} its rules: ${byTool
                    .slice(0, 5)
                    .map((n) => `"${n}"`)
                    .join(', ')}${byTool.length > 5 ? '…' : ''} (see compat/${p.id}/<tool>)`,
                ]
              : []),
          ];
          return {
            verdict: worst(rejects),
            message: `${p.title} would refuse every request that carries this list (${head}): ${parts.join('; ')}`,
            details,
          };
        }
        const degraded = [...new Set(fs.map((f) => f.tool ?? '(list)'))];
        return {
          verdict: 'pass',
          message: `${p.title} accepts the list (${head})${degraded.length ? `; ${plural(degraded.length, 'tool')} may be degraded, see compat/${p.id}/<tool>` : ''}`,
          details,
        };
      },
    },
    {
      id: `compat/${p.id}`,
      title: `${p.title} accepts the tool`,
      level: 'SHOULD',
      spec: 'server/tools#tool',
      requirement: `Not an MCP requirement: the tool fits ${p.title}'s rules (${rules}); one result per tool that breaks a rule, naming the rule, the JSON pointer and the provider's own error text where known.`,
      perItem: 'tool',
      requires: { needs: 'listed' },
      async run(ctx) {
        if (notChecked(ctx, p) || !ctx.capabilities.tools) return [];
        const t = await listedTools(ctx);
        if (!Array.isArray(t)) return [];
        const fs = (await findings(ctx, t, p)).filter((f) => f.tool !== undefined);
        const byTool = new Map<string, Finding[]>();
        for (const f of fs) byTool.set(f.tool!, [...(byTool.get(f.tool!) ?? []), f]);
        const out: ItemOutcome[] = [];
        for (const [tool, list] of byTool) {
          const rejected = list.some((f) => f.kind === 'reject');
          out.push({
            item: tool,
            verdict: worst(list),
            message: `${rejected ? `${p.title} rejects` : `${p.title} may drop or alter`} tool "${tool}": ${list.map(findingText).join('; ')}`,
            details: { provider: p.id, findings: list },
          });
        }
        return out;
      },
    },
  ];
}

export const compat: Suite = {
  id: 'compat',
  title: 'Provider compatibility',
  description: 'Would OpenAI, Anthropic, Bedrock and Gemini accept the tool list as their tool configuration',
  options: [providersOption as OptionDef],
  cases: PROFILES.flatMap(profileCases),
};
