/** Runs `mcp-conform client` (from dist/) with a JSON report and reads it back: the reports of each scenario, a case's verdict. */
import { existsSync, mkdtempSync, readFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import type { CaseResult, Report } from '../../core/results.js';
import { cli } from './cli.js';

export interface ClientResult {
  code: number | null;
  stderr: string;
  stdout: string;
  reports: Report[];
  outDir: string;
  ms: number;
  verdict(scenario: string, id: string): CaseResult;
}

export async function client(args: string[], timeoutMs = 120_000): Promise<ClientResult> {
  const outDir = mkdtempSync(join(tmpdir(), 'mcp-conform-client-'));
  const r = await cli(['client', ...args, '--out-dir', outDir, '--reporter', 'json', '--quiet'], { timeoutMs });
  const file = join(outDir, 'report.json');
  if (!existsSync(file)) throw new Error(`no report (exit ${r.code})\n${r.stdout}\n${r.stderr}`);
  const json = JSON.parse(readFileSync(file, 'utf8')) as Report & { runs?: Report[] };
  const reports = json.runs ?? [json];
  return {
    ...r,
    reports,
    outDir,
    verdict(scenario, id) {
      const rep = reports.find((x) => x.target.name === `scenario ${scenario}`);
      if (!rep) throw new Error(`no scenario ${scenario}: ${reports.map((x) => x.target.name).join(', ')}`);
      const c = rep.suites.flatMap((s) => s.cases).find((x) => x.id === id);
      if (!c) throw new Error(`no case ${id} in scenario ${scenario}`);
      return c;
    },
  };
}

/** Every verdict that is neither pass nor skip, as 'scenario X: id verdict: message'. */
export const nonPass = (r: ClientResult) =>
  r.reports.flatMap((rep) =>
    rep.suites
      .flatMap((s) => s.cases)
      .filter((c) => c.verdict !== 'pass' && c.verdict !== 'skip')
      .map((c) => `${rep.target.name}: ${c.id} ${c.verdict}: ${c.message}`),
  );
