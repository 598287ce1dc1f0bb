/**
 * Baselines: known failures that do not fail the run.
 *
 * A baseline file (YAML) lists entries: a case id (`stdio/stdout-only-messages`), a per-item case stem or a suite id
 * (`listing/input-schema`, `stdio`: every case under it), or a `suite:case` pair (`calling:tool/add`, the case id
 * relative to its suite). Each entry may carry a reason, and a target name (several targets in one config).
 *
 * Accepted shapes:
 *   - ours:        `{ version: 1, failures: [ "id" | { id, reason?, target? } ] }`
 *   - a bare list: `[ "id" | { id, reason?, target? } ]`
 *   - the official MCP conformance suite's expected-failures file: `{ server: [ "scenario" | "scenario:check" ],
 *     client: [...] }` (its `server` list is read; `client` is about clients and ignored). Its scenario names are
 *     not mcp-conform ids, so such entries only match where the names agree; the others are reported stale.
 *
 * A listed failing case keeps verdict `fail` and gets `baselined: true` (+ the reason); the exit code ignores it.
 * An entry that matches no failing case is stale (a warning; under --strict it fails the run).
 */
import { readFile, writeFile } from 'node:fs/promises';
import { parse as parseYaml, stringify as stringifyYaml } from 'yaml';
import { exitCodeOf, type BaselineOutcome, type CaseResult, type Report, type UpdatedFile } from './results.js';

export { exitCodeOf };

export class BaselineError extends Error {}

export interface BaselineEntry {
  /** The entry as written (shown in reports). */
  written: string;
  /** The case id or id prefix it stands for. */
  id: string;
  reason?: string;
  /** Only for the target of this name (config files with several targets). */
  target?: string;
}

export interface Baseline {
  file: string;
  format: BaselineOutcome['format'];
  entries: BaselineEntry[];
}

/** `suite:case` → `suite/case` (a case id already under the suite is kept as is); anything else unchanged. */
export function normalizeEntry(text: string): string {
  const t = text.trim();
  const colon = t.indexOf(':');
  // Case ids always contain '/', suite ids never do: a colon after the first '/' belongs to a tool name.
  if (colon > 0 && !t.slice(0, colon).includes('/')) {
    const suite = t.slice(0, colon);
    const rest = t.slice(colon + 1).replace(/^\/+/, '');
    if (!rest) return suite;
    return rest === suite || rest.startsWith(suite + '/') ? rest : `${suite}/${rest}`;
  }
  return t;
}

function entryFrom(raw: unknown, where: string): BaselineEntry {
  if (typeof raw === 'string' || typeof raw === 'number') {
    const written = String(raw).trim();
    if (!written) throw new BaselineError(`${where}: an empty entry`);
    return { written, id: normalizeEntry(written) };
  }
  if (raw && typeof raw === 'object' && !Array.isArray(raw)) {
    const o = raw as Record<string, unknown>;
    const allowed = ['id', 'reason', 'target'];
    const keys = Object.keys(o);
    const unknown = keys.filter((k) => !allowed.includes(k));
    if (unknown.length || typeof o.id !== 'string') {
      // `- some-id: why` parses as a one-key mapping: say what to write instead.
      if (keys.length === 1 && typeof o[keys[0]] !== 'object') {
        throw new BaselineError(
          `${where}: "${keys[0]}: ${String(o[keys[0]])}" is a mapping; write "- id: ${keys[0]}" with "reason: ..." on the next line (or "- ${keys[0]}" alone)`,
        );
      }
      throw new BaselineError(
        `${where}: an entry is a string or { id, reason?, target? }${unknown.length ? ` (unknown keys: ${unknown.join(', ')})` : ' (id missing)'}`,
      );
    }
    const written = o.id.trim();
    if (!written) throw new BaselineError(`${where}: an empty id`);
    if (o.reason !== undefined && typeof o.reason !== 'string')
      throw new BaselineError(`${where}: reason must be a string`);
    if (o.target !== undefined && typeof o.target !== 'string')
      throw new BaselineError(`${where}: target must be a string`);
    return {
      written,
      id: normalizeEntry(written),
      ...(o.reason ? { reason: o.reason } : {}),
      ...(o.target ? { target: o.target } : {}),
    };
  }
  throw new BaselineError(
    `${where}: an entry is a string or { id, reason?, target? }, got ${raw === null ? 'null' : Array.isArray(raw) ? 'a list' : typeof raw}`,
  );
}

/** Parses baseline text (YAML; JSON is YAML too). */
export function parseBaseline(text: string, file: string): Baseline {
  let doc: unknown;
  try {
    doc = parseYaml(text);
  } catch (e) {
    throw new BaselineError(`${file}: not valid YAML: ${(e as Error).message.split('\n')[0]}`);
  }
  if (doc === null || doc === undefined) return { file, format: 'mcp-conform', entries: [] };
  const list = (items: unknown, key: string): BaselineEntry[] => {
    if (items === null || items === undefined) return [];
    if (!Array.isArray(items)) throw new BaselineError(`${file}: "${key}" must be a list`);
    return items.map((x, i) => entryFrom(x, `${file}: ${key}[${i}]`));
  };
  if (Array.isArray(doc)) return { file, format: 'mcp-conform', entries: list(doc, 'entries') };
  if (typeof doc !== 'object')
    throw new BaselineError(
      `${file}: expected a mapping with "failures" (or the expected-failures shape with "server"), got ${typeof doc}`,
    );
  const o = doc as Record<string, unknown>;
  if ('failures' in o) {
    if (o.version !== undefined && o.version !== 1)
      throw new BaselineError(`${file}: version ${String(o.version)} is not supported (1 is)`);
    const extra = Object.keys(o).filter((k) => k !== 'failures' && k !== 'version');
    if (extra.length) throw new BaselineError(`${file}: unknown keys ${extra.join(', ')} (known: version, failures)`);
    return { file, format: 'mcp-conform', entries: list(o.failures, 'failures') };
  }
  if ('server' in o || 'client' in o) {
    const extra = Object.keys(o).filter((k) => k !== 'server' && k !== 'client');
    if (extra.length)
      throw new BaselineError(
        `${file}: unknown keys ${extra.join(', ')} (an expected-failures file has server and client)`,
      );
    if (o.client !== undefined && o.client !== null && !Array.isArray(o.client))
      throw new BaselineError(`${file}: "client" must be a list`);
    return { file, format: 'expected-failures', entries: list(o.server, 'server') };
  }
  throw new BaselineError(`${file}: no "failures" list (nor "server", the expected-failures shape)`);
}

export async function loadBaseline(file: string): Promise<Baseline> {
  let text: string;
  try {
    text = await readFile(file, 'utf8');
  } catch (e) {
    throw new BaselineError(
      `cannot read the baseline ${file}: ${(e as NodeJS.ErrnoException).code ?? (e as Error).message}`,
    );
  }
  return parseBaseline(text, file);
}

/** Does the entry name this case (the id itself, or a suite / stem above it)? */
export function entryMatches(entry: BaselineEntry, caseId: string): boolean {
  return caseId === entry.id || caseId.startsWith(entry.id + '/');
}

const runName = (r: Report) => r.target.name;

function applies(entry: BaselineEntry, r: Report): boolean {
  return entry.target === undefined || entry.target === runName(r);
}

function allCases(r: Report): CaseResult[] {
  return r.suites.flatMap((s) => s.cases);
}

/** Would a run with these options have checked cases under this id? */
function selectedIn(r: Report, id: string): boolean {
  const suites = Array.isArray(r.options.suites) ? (r.options.suites as string[]) : undefined;
  const suite = id.split('/')[0];
  if (suites && !suites.includes(suite)) return false;
  const cases = Array.isArray(r.options.cases) ? (r.options.cases as string[]) : [];
  return !cases.length || cases.some((p) => id.startsWith(p) || p.startsWith(id));
}

/**
 * Applies a baseline to the reports of one invocation (one per target): marks listed failures, counts them, finds
 * stale entries (across all runs: an entry is stale only if it excused a failure in none), and sets each report's
 * exit code: 1 when a failure is not baselined, the run ended early, or (the run's --strict) an entry is stale.
 */
export function applyBaseline(reports: Report[], baseline: Baseline): void {
  const used = new Set<BaselineEntry>();
  const seen = new Set<BaselineEntry>(); // matched a case that was checked (not only skipped)
  for (const r of reports) {
    for (const c of allCases(r)) {
      delete c.baselined;
      delete c.baselineReason;
      delete c.baselineEntry;
      const matching = baseline.entries.filter((e) => applies(e, r) && entryMatches(e, c.id));
      if (!matching.length) continue;
      if (c.verdict !== 'skip') for (const e of matching) seen.add(e);
      if (c.verdict !== 'fail') continue;
      // The most specific entry gives the reason.
      const best = matching.reduce((a, b) => (b.id.length > a.id.length ? b : a));
      for (const e of matching) used.add(e);
      c.baselined = true;
      c.baselineEntry = best.written;
      if (best.reason) c.baselineReason = best.reason;
    }
  }
  for (const r of reports) {
    const mine = baseline.entries.filter((e) => applies(e, r));
    const outcome: BaselineOutcome = {
      file: baseline.file,
      format: baseline.format,
      entries: mine.length,
      used: [],
      stale: [],
      unchecked: [],
    };
    for (const e of mine) {
      // Used in any run (an entry without a target covers them all): not stale.
      if (used.has(e)) {
        outcome.used.push(e.written);
        continue;
      }
      const matched = allCases(r).filter((c) => entryMatches(e, c.id));
      const checked = seen.has(e);
      const reason = e.reason ? { reason: e.reason } : {};
      if (checked) {
        const verdicts = [...new Set(matched.map((c) => c.verdict))].join(', ');
        outcome.stale.push({
          entry: e.written,
          ...reason,
          why: `no failure any more (${matched.length === 1 ? matched[0].id : `${matched.length} cases`}: ${verdicts})`,
        });
      } else if (matched.length || !selectedIn(r, e.id) || r.aborted) {
        outcome.unchecked.push(e.written);
      } else {
        outcome.stale.push({ entry: e.written, ...reason, why: 'matches no case of this run (renamed or removed?)' });
      }
    }
    r.baseline = outcome;
    r.summary.baselined = allCases(r).filter((c) => c.baselined && c.verdict === 'fail').length;
    r.exitCode = exitCodeOf(r);
  }
}

/**
 * A baseline for the current failures: entries of the previous baseline that still excuse a failure (or were not
 * checked) are kept with their reasons; every failing case not covered gets its own entry, its reason the start of
 * the verdict message. Stale entries are dropped. With several targets, new entries name their target.
 */
export function baselineFor(reports: Report[], previous?: Baseline): Baseline {
  const entries: BaselineEntry[] = [];
  const multi = reports.length > 1;
  if (previous) {
    for (const e of previous.entries) {
      const stillUseful = reports.some(
        (r) => applies(e, r) && (r.baseline?.used.includes(e.written) || r.baseline?.unchecked.includes(e.written)),
      );
      if (stillUseful && !entries.some((x) => x.written === e.written && x.target === e.target)) entries.push(e);
    }
  }
  for (const r of reports) {
    for (const c of allCases(r)) {
      if (c.verdict !== 'fail') continue;
      if (entries.some((e) => applies(e, r) && entryMatches(e, c.id))) continue;
      const reason = c.message.replace(/\s+/g, ' ').trim();
      entries.push({
        written: c.id,
        id: c.id,
        reason: reason.length > 160 ? reason.slice(0, 159) + '…' : reason,
        ...(multi && r.target.name ? { target: r.target.name } : {}),
      });
    }
  }
  return { file: previous?.file ?? '', format: 'mcp-conform', entries };
}

/** The YAML text of a baseline in mcp-conform's own format. */
export function stringifyBaseline(b: Baseline): string {
  const failures = b.entries.map((e) => ({
    id: e.written,
    ...(e.reason ? { reason: e.reason } : {}),
    ...(e.target ? { target: e.target } : {}),
  }));
  const head = [
    '# mcp-conform baseline: failing cases that do not fail the run.',
    '# Entries: a case id, a suite id (every case in it) or "suite:case". Written by --update-baseline; edit the reasons.',
    '# An entry that no longer matches a failing case is reported as stale: remove it, so the baseline shrinks.',
  ].join('\n');
  return `${head}\n${stringifyYaml({ version: 1, failures }, { lineWidth: 0 })}`;
}

/**
 * --update-baseline FILE: the baseline for these runs (see baselineFor; `previous` — the --baseline, or the file as
 * it was — is applied first so that its entries still in use are kept with their reasons), written to the file.
 * Returns it, for finalizeReport to apply. Throws when the file cannot be written.
 */
export async function writeUpdatedBaseline(reports: Report[], file: string, previous?: Baseline): Promise<Baseline> {
  if (previous) applyBaseline(reports, previous);
  const next = baselineFor(reports, previous);
  next.file = file;
  // What changed, for the console's "updated FILE: …" or "FILE unchanged" (report.updatedFiles).
  const key = (e: BaselineEntry) => `${e.target ?? ''}\u0000${e.written}`;
  const before = new Set((previous?.entries ?? []).map(key));
  const after = new Set(next.entries.map(key));
  const added = next.entries.filter((e) => !before.has(key(e))).map((e) => `+ ${e.written}`);
  const removed = (previous?.entries ?? []).filter((e) => !after.has(key(e))).map((e) => `- ${e.written}`);
  const text = stringifyBaseline(next);
  let old: string | undefined;
  try {
    old = await readFile(file, 'utf8');
  } catch {
    /* a new file */
  }
  if (old !== text) await writeFile(file, text);
  const changed = old === undefined ? next.entries.length : added.length + removed.length;
  const entry: UpdatedFile = {
    file,
    by: 'update-baseline',
    written: old !== text,
    changed: old === text ? 0 : changed,
    unit: changed === 1 ? 'entry' : 'entries',
    details: old === undefined ? ['a new file', ...added] : [...added, ...removed],
  };
  for (const r of reports.slice(0, 1))
    r.updatedFiles = [...(r.updatedFiles ?? []).filter((u) => u.by !== 'update-baseline'), entry];
  return next;
}
