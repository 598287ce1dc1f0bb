/**
 * Dual-era servers: a server that speaks 2026-07-28 (it answered `server/discover` listing it) and also answers
 * `initialize` serves every client of the 2025 revisions — most clients in use — on its legacy path. A default run
 * judges it in both eras: the 2026-07-28 run the negotiation chose, then a run forced to the newest legacy version the
 * server lists (2025-11-25 when it lists none) on a fresh server, merged here into one report. Each case names the
 * version it was judged in (CaseResult.protocolVersion); report.eras says what each era was.
 * https://modelcontextprotocol.io/specification/2026-07-28/basic/versioning
 */
import { DEFAULT_OFFERED_VERSION, isProtocolVersion, type ProtocolVersion } from './schema/versions.js';
import { isStateless, suiteCounts } from './negotiate.js';
import type { LoggedMessage } from './log.js';
import { summarize, type Era, type Report, type SuiteResult } from './results.js';
export type { Era } from './results.js';

/**
 * The legacy version to judge a run in, when the run spoke 2026-07-28 by default (no --protocol-version, a
 * server/discover handshake) and was neither stopped nor cut short: the newest version before 2026-07-28 that the
 * server's server/discover lists, else the newest the harness offers in initialize. Undefined otherwise.
 */
export function legacyEraOf(r: Report): ProtocolVersion | undefined {
  const n = r.negotiation;
  if (n?.mode !== 'default' || n.handshake !== 'server/discover' || !isStateless(n.version) || r.aborted)
    return undefined;
  const listed = n.steps.find((s) => s.method === 'server/discover' && s.outcome === 'result')?.answered;
  const legacy = (Array.isArray(listed) ? listed : [])
    .filter(isProtocolVersion)
    .filter((v) => !isStateless(v))
    .sort();
  return legacy.at(-1) ?? DEFAULT_OFFERED_VERSION;
}

/**
 * Whether a legacy-era run was served: initialize went through and agreed on a version before 2026-07-28 (the one
 * offered, or an older one the server countered with: the newest it serves).
 */
export function legacyAccepted(r: Report): boolean {
  const n = r.negotiation;
  return (
    !!n &&
    n.handshake === 'initialize' &&
    isProtocolVersion(n.version) &&
    !isStateless(n.version) &&
    r.options.protocolVersionInForce === n.version
  );
}

/** The era row of a run. */
export function eraOf(r: Report, accepted: boolean, reason?: string, messages?: Era['messages']): Era {
  const v = (accepted ? r.options.protocolVersionInForce : r.options.protocolVersionOffered) as ProtocolVersion;
  return {
    protocolVersion: v,
    accepted,
    ...(reason ? { reason } : {}),
    summary: r.summary,
    suites: accepted ? r.suites.map(suiteCounts) : [],
    handshake: r.negotiation?.handshake,
    ...(messages ? { messages } : {}),
    startedAt: r.startedAt,
    durationMs: r.durationMs,
    ...(accepted ? { server: r.server, process: r.process } : {}),
    ...(r.negotiation ? { negotiation: r.negotiation } : {}),
    ...(r.aborted ? { aborted: r.aborted } : {}),
  };
}

/** Why a legacy-era run was not served (its negotiation's last word). */
export function refusedReason(r: Report): string {
  return r.negotiation?.steps.at(-1)?.message ?? r.aborted ?? 'no handshake';
}

/**
 * The report of the 2026-07-28 run with the legacy run's results and messages added: its messages renumbered after
 * the first run's (seq, inReplyTo, the HTTP exchange numbers and the cases' messageIds with them), its suites' cases
 * after the first run's in the same suite, every case naming its version. The first run's report is changed in place
 * and returned; the summary and exit code are set again by finalizeReport.
 */
export function mergeEras(first: Report, second: Report): Report {
  const v1 = first.options.protocolVersionInForce as string;
  const v2 = second.options.protocolVersionInForce as string;
  const firstSeqs = first.messages.map((m) => m.seq);
  const offset = firstSeqs.length ? Math.max(...firstSeqs) + 1 : 0;
  const exOffset = first.http?.exchanges.length ?? 0;
  const tOffset = Math.max(0, Date.parse(second.startedAt) - Date.parse(first.startedAt));
  const moved: LoggedMessage[] = second.messages.map((m) => ({
    ...m,
    seq: m.seq + offset,
    t: m.t + tOffset,
    ...(m.inReplyTo !== undefined ? { inReplyTo: m.inReplyTo + offset } : {}),
    ...(m.http ? { http: { ...m.http, exchange: m.http.exchange + exOffset } } : {}),
  }));
  // A case about a file (server.json, the MCPB manifest), not the session, is judged once: the first era's result
  // stands, and the second era's copy goes (from its row's counts too).
  const fileIds = new Set(
    first.suites
      .flatMap((s) => s.cases)
      .filter((c) => c.ofFile)
      .map((c) => c.id),
  );
  if (fileIds.size) {
    for (const s of second.suites) s.cases = s.cases.filter((c) => !(c.ofFile && fileIds.has(c.id)));
    second.suites = second.suites.filter((s) => s.cases.length);
    second.summary = summarize(second.suites, second.messages);
  }
  // The rows, before the merge: each counts its own run's cases (a copy of the first summary: the merged report's
  // summary object is the first run's, and finalizeReport sets it again in place).
  const eras: Era[] = [
    {
      ...eraOf(
        first,
        true,
        undefined,
        first.messages.length ? { from: Math.min(...firstSeqs), to: offset - 1 } : undefined,
      ),
      summary: { ...first.summary },
    },
    eraOf(second, true, undefined, moved.length ? { from: moved[0]!.seq, to: moved.at(-1)!.seq } : undefined),
  ];
  for (const s of first.suites) for (const c of s.cases) c.protocolVersion = v1;
  const bySuite = new Map<string, SuiteResult>(first.suites.map((s) => [s.id, s]));
  for (const s of second.suites) {
    const cases = s.cases.map((c) => ({
      ...c,
      protocolVersion: v2,
      messageIds: c.messageIds.map((id) => id + offset),
    }));
    const into = bySuite.get(s.id);
    if (into) {
      into.cases.push(...cases);
      into.durationMs += s.durationMs;
    } else {
      const added = { ...s, cases };
      first.suites.push(added);
      bySuite.set(s.id, added);
    }
  }
  first.messages.push(...moved);
  if (second.http)
    (first.http ??= { exchanges: [] }).exchanges.push(
      ...second.http.exchanges.map((x) =>
        typeof x === 'object' && x !== null && 'n' in x
          ? { ...(x as object), n: (x as { n: number }).n + exOffset }
          : x,
      ),
    );
  first.durationMs = Math.round(tOffset + second.durationMs);
  const names = new Set(first.skippedTools.map((t) => t.name));
  for (const t of second.skippedTools) if (!names.has(t.name)) first.skippedTools.push(t);
  const open = [...new Set([...(first.openWorldTools ?? []), ...(second.openWorldTools ?? [])])];
  if (open.length) first.openWorldTools = open;
  if (second.droppedMessages) {
    const d = (first.droppedMessages ??= { messages: 0, chars: 0, byMethod: {} });
    d.messages += second.droppedMessages.messages;
    d.chars += second.droppedMessages.chars;
    for (const [k, n] of Object.entries(second.droppedMessages.byMethod)) d.byMethod[k] = (d.byMethod[k] ?? 0) + n;
  }
  first.options.suites = [...new Set([...(first.options.suites as string[]), ...(second.options.suites as string[])])];
  if (second.aborted) first.aborted ??= `${v2}: ${second.aborted}`;
  first.eras = eras;
  return first;
}
