/**
 * security/rug-pull: does the server show everyone the same tools? The run's own tools/list is compared with that of a
 * later session (same client name) and of sessions that call themselves by a well-known host's name. A list that
 * changes over time warns; a list that changes only for a host's name fails: a server that shows a conformance tool
 * one face and the hosts its users run another defeats every check made on the first.
 */
import { runClientInfo } from '../../core/client-info.js';
import { requestMetaFor } from '../../core/negotiate.js';
import type { MessageValidator } from '../../core/schema/validator.js';
import type { Service } from '../../core/services.js';
import type { CaseContext, CaseDef } from '../../core/suite.js';
import { listAllTools, tools, type Tool } from '../../core/tools.js';
import { listedTools } from '../helpers.js';

/**
 * clientInfo.name values of well-known hosts (as they send them). The case opens one session with each of the first
 * PROBED_HOSTS that is not the run's own name; the rest are listed for `--identify-as`.
 */
export const HOST_NAMES = [
  'claude-ai',
  'cursor-vscode',
  'Visual Studio Code',
  'claude-code',
  'windsurf-client',
  'Zed',
  'goose',
  'cline',
  'Continue',
  'openai-mcp',
];
export const PROBED_HOSTS = 3;

/** A tool as compared: the fields a model or a user sees, keys sorted. */
function canonical(v: unknown): unknown {
  if (Array.isArray(v)) return v.map(canonical);
  if (v && typeof v === 'object')
    return Object.fromEntries(
      Object.keys(v as object)
        .sort()
        .map((k) => [k, canonical((v as Record<string, unknown>)[k])]),
    );
  return v;
}
const FIELDS = ['title', 'description', 'inputSchema', 'outputSchema', 'annotations'] as const;
const cut = (s: string, n = 80) => (s.length > n ? `${s.slice(0, n)}…` : s);

/** Two texts shown where they differ: the shared start and end left out ("…" in their place). */
function textChange(a: unknown, b: unknown): string {
  if (typeof a !== 'string' || typeof b !== 'string')
    return `${a === undefined ? '(none)' : JSON.stringify(cut(String(a)))} → ${b === undefined ? '(none)' : JSON.stringify(cut(String(b)))}`;
  let p = 0;
  while (p < a.length && p < b.length && a[p] === b[p]) p++;
  let s = 0;
  while (s < a.length - p && s < b.length - p && a[a.length - 1 - s] === b[b.length - 1 - s]) s++;
  const from = Math.max(0, p - 20);
  const part = (t: string) => `${from > 0 ? '…' : ''}${cut(t.slice(from, t.length - s), 140)}${s > 0 ? '…' : ''}`;
  return `${JSON.stringify(part(a))} → ${JSON.stringify(part(b))}`;
}

/** What changed from one list to another, in words ("tool "x": description "…" → "…""); empty when nothing did. */
export function diffLists(a: Tool[], b: Tool[]): string[] {
  const out: string[] = [];
  const byName = (l: Tool[]) => new Map(l.map((t) => [t.name, t]));
  const A = byName(a);
  const B = byName(b);
  const added = [...B.keys()].filter((n) => !A.has(n));
  const removed = [...A.keys()].filter((n) => !B.has(n));
  if (added.length)
    out.push(
      `added ${added
        .slice(0, 5)
        .map((n) => `"${n}"`)
        .join(', ')}${added.length > 5 ? ` and ${added.length - 5} more` : ''}`,
    );
  if (removed.length)
    out.push(
      `removed ${removed
        .slice(0, 5)
        .map((n) => `"${n}"`)
        .join(', ')}${removed.length > 5 ? ` and ${removed.length - 5} more` : ''}`,
    );
  for (const [name, ta] of A) {
    const tb = B.get(name);
    if (!tb) continue;
    for (const f of FIELDS) {
      const x = JSON.stringify(canonical(ta[f]));
      const y = JSON.stringify(canonical(tb[f]));
      if (x === y) continue;
      out.push(
        f === 'description' || f === 'title'
          ? `tool "${name}": ${f} ${textChange(ta[f], tb[f])}`
          : `tool "${name}": ${f} changed (${cut(x ?? 'none', 60)} → ${cut(y ?? 'none', 60)})`,
      );
    }
  }
  return out;
}

interface Seen {
  as: string;
  tools?: Tool[];
  problem?: string;
}

/** The tool list a fresh session that calls itself `name` gets. */
async function listAs(ctx: CaseContext, name: string): Promise<Seen> {
  let h: Awaited<ReturnType<NonNullable<CaseContext['openSession']>>>;
  try {
    h = await ctx.openSession!();
  } catch (e) {
    return { as: name, problem: `the session could not be opened: ${(e as Error).message}` };
  }
  try {
    const s = h.session;
    // These sessions' messages are compared, not reported: the schema check of every message (the dear part of a
    // long list) is left out.
    s.setValidator({
      version: ctx.version,
      check: () => ({ checked: false, valid: true, violations: [] }),
    } as unknown as MessageValidator);
    const clientInfo = { ...runClientInfo(ctx), name };
    const timeoutMs = Math.min(ctx.timeoutMs, 10_000);
    if (ctx.features.requestMeta) {
      s.setRequestMeta(requestMetaFor(ctx.version, clientInfo));
      // 2026-07-28 over HTTP: every POST names the version in MCP-Protocol-Version (as negotiate sets it on the run's).
      if (h.transport.kind === 'streamable-http')
        (h.transport as { protocolVersion?: string }).protocolVersion = ctx.version;
    } else {
      const init = await s.request(
        'initialize',
        { protocolVersion: ctx.version, capabilities: {}, clientInfo },
        { timeoutMs },
      );
      if (init.error) return { as: name, problem: `initialize was refused: ${init.error.message}` };
      s.notify('notifications/initialized');
    }
    const l = await listAllTools(s);
    if (l.problem && !l.tools.length) return { as: name, problem: `tools/list failed: ${l.problem}` };
    return { as: name, tools: l.tools };
  } catch (e) {
    return { as: name, problem: (e as Error).message };
  } finally {
    void h.close();
  }
}

/**
 * The host-named sessions' lists, fetched once per run: begun (start hook) as soon as the run's own list is in, so
 * that those sessions (over stdio a server process each) overlap the cases ahead instead of adding their time at the
 * case's turn. The later session is opened at the case's turn, near the run's end.
 */
const hostSessions: Service<{ hosts: string[]; asHosts: Seen[] }> = {
  id: 'security-rug-pull-hosts',
  async produce(ctx) {
    const me = runClientInfo(ctx).name;
    const hosts = HOST_NAMES.filter((n) => n !== me).slice(0, PROBED_HOSTS);
    return { hosts, asHosts: await Promise.all(hosts.map((n) => listAs(ctx, n))) };
  },
};

export const rugPull: CaseDef = {
  id: 'security/rug-pull',
  title: 'every client gets the same tool list, now and later',
  level: 'SHOULD',
  spec: 'server/tools#security-considerations',
  requirement: `The tools a client approves are the tools it gets: the run's tools/list (names, descriptions, schemas, annotations) is compared with a later session's and with sessions whose clientInfo.name is a well-known host's (${HOST_NAMES.slice(0, PROBED_HOSTS).join(', ')}). A difference warns, saying what changed where; a list that changes only for a host's name fails (the server shows a checker one face and users another). A list that changes after approval is a "rug pull": https://invariantlabs.ai/blog/mcp-security-notification-tool-poisoning-attacks`,
  requires: { capability: 'tools' },
  start(ctx) {
    if (!ctx.capabilities.tools || !ctx.openSession) return;
    ctx
      .whenProduced(tools)
      .then((l) => (l.tools.length ? ctx.service(hostSessions) : undefined))
      .catch(() => undefined);
  },
  async run(ctx) {
    const own = await listedTools(ctx);
    if (!Array.isArray(own)) return own;
    if (!ctx.openSession) return { verdict: 'skip', message: 'this run cannot open another session with the server' };
    const me = runClientInfo(ctx).name;
    const [{ hosts, asHosts }, later] = await Promise.all([ctx.service(hostSessions), listAs(ctx, me)]);
    const details: Record<string, unknown> = {
      clientName: me,
      hosts,
      sessions: [later, ...asHosts].map((s) => ({
        as: s!.as,
        ...(s!.tools ? { tools: s!.tools.length } : { problem: s!.problem }),
      })),
    };
    if (!later!.tools)
      return {
        verdict: 'skip',
        message: `inconclusive: a later session as "${me}" got no tool list (${later!.problem})`,
        details,
      };
    const overTime = diffLists(own, later!.tools);
    // A host's list is compared with the run's own (both fetched early in the run), the later one with the run's own.
    const hostDiffs = asHosts.map((h) => ({
      as: h.as,
      problem: h.problem,
      diff: h.tools ? diffLists(own, h.tools) : [],
    }));
    // A host's list that differs from the run's but equals the later session's is the change over time, not a face.
    const hostFaces = hostDiffs.filter((h, i) => h.diff.length && diffLists(later.tools!, asHosts[i]!.tools!).length);
    const refused = hostDiffs.filter((h) => h.problem);
    const hostText = hostFaces
      .map(
        (h) =>
          `as "${h.as}": ${h.diff.slice(0, 4).join('; ')}${h.diff.length > 4 ? `; and ${h.diff.length - 4} more` : ''}`,
      )
      .join(' · ');
    details.changes = { later: overTime, ...Object.fromEntries(hostDiffs.map((h) => [h.as, h.diff])) };
    if (hostFaces.length && !overTime.length) {
      return {
        verdict: 'fail',
        message: `the server shows a host's name another tool list than it shows "${me}" (whose list stays the same in a later session, at the run's end): ${hostText}. Whatever a check of this server finds, users of those hosts get something else`,
        details,
      };
    }
    if (overTime.length) {
      return {
        verdict: 'warn',
        message: `the tool list changed between the run's session and a later one as "${me}": ${overTime.slice(0, 5).join('; ')}${overTime.length > 5 ? `; and ${overTime.length - 5} more` : ''}${hostFaces.length ? `; a host's name also gets another list: ${hostText}` : ''}. Tools that change after a user approved them are a "rug pull"; a server whose tools legitimately change should announce it (notifications/tools/list_changed)`,
        details,
      };
    }
    if (refused.length) {
      return {
        verdict: 'warn',
        message: `sessions that call themselves ${refused.map((h) => `"${h.as}"`).join(', ')} got no tool list where "${me}" did: ${refused.map((h) => `${h.as}: ${h.problem}`).join('; ')}`,
        details,
      };
    }
    return {
      verdict: 'pass',
      message: `the same ${own.length} tool${own.length === 1 ? '' : 's'} in the run's session, a later session and sessions as ${hosts.map((h) => `"${h}"`).join(', ')}`,
      details,
    };
  },
};
