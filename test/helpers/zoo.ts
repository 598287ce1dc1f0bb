/** Run the CLI against a zoo server and check what every zoo test checks: bounded, report written, nothing left. */
import { expect } from 'vitest';
import { py, run, type RunResult } from './cli.js';
import { announcedPids, remaining } from './proc.js';

export interface ZooExpectation {
  /** The exit code the CLI must end with. */
  code: number;
  /** The run (node start to exit) must end within this many ms. */
  withinMs: number;
}

/** Every pid a run's servers announced: the server, "child pid N" helpers, second connections ("server pid N"). */
export function serverPids(r: RunResult): { pgid?: number; pids: number[] } {
  const pids = announcedPids(r.report.process.stderr);
  for (const c of r.report.suites.flatMap((s) => s.cases)) {
    for (const m of c.message.matchAll(/server pid (\d+)/g)) pids.push(Number(m[1]));
  }
  return { pgid: r.report.process.pid, pids };
}

export function expectNothingLeft(r: RunResult): void {
  const { pgid, pids } = serverPids(r);
  for (const pid of pids) expect(remaining(pid), `second-connection group ${pid}`).toEqual([]);
  expect(remaining(pgid, pids)).toEqual([]);
}

/** `mcp-conform run --stdio "python3 fixtures/servers/<file>" --shutdown-grace 500 …`, checked. */
export async function zoo(file: string, args: string[], want: ZooExpectation): Promise<RunResult> {
  const r = await run(py(file), ['--shutdown-grace', '500', ...args], { timeoutMs: want.withinMs + 30_000 });
  expect(r.code, `exit code of ${file}\n${r.stderr}`).toBe(want.code);
  expect(r.report.exitCode).toBe(want.code);
  expect(r.ms, `${file} took ${r.ms} ms`).toBeLessThan(want.withinMs);
  expectNothingLeft(r);
  return r;
}

/** Verdicts of the cases that are not pass (and not the transports' own suites, which skip over stdio, nor quality's infos). */
export function notPassing(r: RunResult): Record<string, string> {
  return Object.fromEntries(
    r.report.suites
      .flatMap((s) => s.cases)
      .filter((c) => c.verdict !== 'pass' && !/^(http|sse)\//.test(c.id) && c.id !== 'listing/output-schema')
      // lifecycle/result-type only applies from 2026-07-28: its skip in earlier versions says nothing about the server
      .filter((c) => !(c.id === 'lifecycle/result-type' && c.verdict === 'skip'))
      // quality reports the zoo's undescribed parameters, token cost and result sizes as info: not what these servers test
      .filter((c) => !(c.id.startsWith('quality/') && c.verdict === 'info'))
      // calling/open-world notes (info) how many read-only tools may reach the outside world: a note, not what these servers test
      .filter((c) => !(c.id === 'calling/open-world' && c.verdict === 'info'))
      // Cases that do not apply (a capability not declared, a feature of another version, nothing of the kind to look
      // at) say nothing about these servers either. ("does not apply: …" is the runner's one reason for a case whose
      // declared versions, features or transports do not fit the run.)
      .filter(
        (c) =>
          !(
            c.verdict === 'skip' &&
            (c.notApplicable ||
              /^does not apply: |^the server did not declare\b|^the server declared every capability this case probes$|^protocol \S+ has no\b|\bwas never sent\b|^no callable tool\b/.test(
                c.message,
              ))
          ),
      )
      .map((c) => [c.id, c.verdict]),
  );
}
