/**
 * `mcp-conform merge REPORT…`: the report.json files of the shards of one config (`run --shard i/n` on n CI
 * machines) joined into the reports one run over the whole config would have written, every reporter available, and
 * the exit code that run would have had.
 *
 * What is checked (each a usage error, exit 2, naming the file): the file is JSON and an mcp-conform report.json; it
 * was written by this version of mcp-conform (report formats may change between versions); the shards are of one
 * split (same count, same number of targets), none given twice, none missing. Reports that are not shards (plain
 * runs) can be merged too: their runs follow one another in the order given.
 *
 * Joined: runs in config order; a baseline entry that one shard found stale is not stale when another shard used it
 * (applied over the whole config, as in one run), and each run's exit code is judged again from its content.
 */
import { readFile } from 'node:fs/promises';
import { resolve } from 'node:path';
import { exitCodeOf, type Report } from '../core/results.js';
import type { ShardInfo } from '../core/shard.js';
import type { CombinedReport, ReportSet } from './types.js';
import { isObject as isObj } from '../core/objects.js';
import { isLoadReport, mergeLoadReports } from './merge-load.js';

export class MergeError extends Error {}

interface Piece {
  file: string;
  runs: Report[];
  shard?: ShardInfo;
  configFile?: string;
}

/** One report.json as runs (a one-target report is its run; a combined one has runs). */
export async function readReportFile(file: string, version: string): Promise<Piece> {
  const abs = resolve(file);
  let text: string;
  try {
    text = await readFile(abs, 'utf8');
  } catch (e) {
    throw new MergeError(`cannot read ${file}: ${(e as NodeJS.ErrnoException).code ?? (e as Error).message}`);
  }
  let doc: unknown;
  try {
    doc = JSON.parse(text);
  } catch (e) {
    throw new MergeError(`${file} is not a report: not JSON (${(e as Error).message.split('\n')[0]})`);
  }
  const tool = isObj(doc) && isObj(doc.tool) ? doc.tool : undefined;
  if (!isObj(doc) || tool?.name !== 'mcp-conform' || !(Array.isArray(doc.runs) || Array.isArray(doc.suites))) {
    throw new MergeError(
      `${file} is not a report: not a report.json of mcp-conform (no tool "mcp-conform" with runs or suites)`,
    );
  }
  if (doc.reportVersion !== 1)
    throw new MergeError(
      `${file} has report version ${JSON.stringify(doc.reportVersion)}; this mcp-conform reads version 1`,
    );
  if (tool.version !== version)
    throw new MergeError(
      `${file} was written by mcp-conform ${String(tool.version)}; this is mcp-conform ${version}: merge the reports of one version (run every shard with the same version)`,
    );
  if (Array.isArray(doc.runs)) {
    const c = doc as unknown as CombinedReport;
    for (const r of c.runs)
      if (!isObj(r) || !Array.isArray((r as { suites?: unknown }).suites))
        throw new MergeError(`${file} is not a report: an entry of runs has no suites`);
    if (c.shard && (!Array.isArray(c.shard.targets) || c.shard.targets.length !== c.runs.length))
      throw new MergeError(
        `${file}: its shard lists ${c.shard.targets?.length ?? 'no'} target positions for ${c.runs.length} runs`,
      );
    return { file, runs: c.runs, shard: c.shard, configFile: c.configFile };
  }
  return { file, runs: [doc as unknown as Report] };
}

/** The shard reports joined: the report set one run over the whole config would have given. */
export function joinReports(pieces: Piece[]): ReportSet {
  if (!pieces.length) throw new MergeError('merge: name the report.json files to join');
  const sharded = pieces.filter((p) => p.shard);
  if (sharded.length && sharded.length < pieces.length) {
    const plain = pieces.find((p) => !p.shard)!;
    throw new MergeError(
      `${plain.file} is not the report of a shard (run --shard i/n), unlike ${sharded[0].file}: merge the shards of one split`,
    );
  }
  let runs: Report[];
  if (sharded.length) {
    const { count, of } = sharded[0].shard!;
    const byIndex = new Map<number, Piece>();
    for (const p of sharded) {
      const s = p.shard!;
      if (s.count !== count || s.of !== of)
        throw new MergeError(
          `${p.file} is shard ${s.index}/${s.count} of ${s.of} targets, ${sharded[0].file} shard ${sharded[0].shard!.index}/${count} of ${of}: not the same split`,
        );
      const twice = byIndex.get(s.index);
      if (twice) throw new MergeError(`${twice.file} and ${p.file} are both shard ${s.index}/${count}`);
      byIndex.set(s.index, p);
    }
    const missing = Array.from({ length: count }, (_, i) => i + 1).filter((i) => !byIndex.has(i));
    if (missing.length)
      throw new MergeError(
        `shard${missing.length > 1 ? 's' : ''} ${missing.map((i) => `${i}/${count}`).join(', ')} missing: give the report.json of every shard`,
      );
    const placed: { at: number; run: Report }[] = [];
    for (const p of sharded) p.runs.forEach((run, i) => placed.push({ at: p.shard!.targets[i], run }));
    placed.sort((a, b) => a.at - b.at);
    const dup = placed.find((x, i) => i > 0 && placed[i - 1].at === x.at);
    if (dup) throw new MergeError(`target ${dup.at + 1} of the config is in two shards: not the same split`);
    runs = placed.map((x) => x.run);
  } else {
    runs = pieces.flatMap((p) => p.runs);
    // Load reports of several machines: one report, the counts summed and the histograms merged (merge-load.ts).
    const load = runs.filter(isLoadReport).length;
    if (load && load !== runs.length)
      throw new MergeError(
        'merge joins load reports with load reports only (mcp-conform load), not with the reports of run',
      );
    if (load > 1) runs = [mergeLoadReports(runs)];
  }
  unstaleAcrossRuns(runs);
  for (const r of runs) r.exitCode = exitCodeOf(r);
  return { runs, configFile: pieces.find((p) => p.configFile)?.configFile };
}

/**
 * A baseline is applied over all the targets of an invocation: an entry used by any run is stale in none. Each shard
 * judged it over its own targets only; here an entry another run used moves from a run's stale list to its used list.
 */
function unstaleAcrossRuns(runs: Report[]): void {
  const used = new Set<string>();
  for (const r of runs) for (const e of r.baseline?.used ?? []) used.add(e);
  for (const r of runs) {
    const b = r.baseline;
    if (!b) continue;
    const now = b.stale.filter((s) => used.has(s.entry));
    if (!now.length) continue;
    b.stale = b.stale.filter((s) => !now.includes(s));
    for (const s of now) if (!b.used.includes(s.entry)) b.used.push(s.entry);
  }
}

/** Reads and joins report.json files (see joinReports). */
export async function mergeReportFiles(files: string[], version: string): Promise<ReportSet> {
  const pieces: Piece[] = [];
  for (const f of files) pieces.push(await readReportFile(f, version));
  return joinReports(pieces);
}
