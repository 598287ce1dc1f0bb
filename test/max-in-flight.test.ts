/**
 * run --max-in-flight ("one run, less waiting"): requests whose verdicts cannot depend on one another (calls
 * of different read-only tools, the per-tool invalid-params probes) go out together, up to the bound; 1 is a serial
 * run. Each server is run both ways, side by side, and must get the same verdicts, case by case and tool by tool.
 * Whether the calls really overlapped is read from the slow fixture's own log (report.process.stderr), not from a
 * clock: how much faster it is belongs to `npm run bench`. And the long-running tool that progress/notifications
 * watches is called once, by calling/tool, with the progress token: both cases judge that one call.
 */
import { join } from 'node:path';
import { beforeAll, describe, expect, it } from 'vitest';
import type { Report } from '../core/results.js';
import { BIN, FIXTURES, run, type RunResult } from './helpers/cli.js';
import { pythonPeers, type PythonPeers } from './helpers/python-peers.js';

const SLOW = `python3 ${join(FIXTURES, 'slow-calls.py')}`;
const EVERYTHING = `${join(BIN, 'mcp-server-everything')} stdio`;

/** Every result of a report by id (per-tool items included): its verdict. */
function verdicts(r: RunResult): Record<string, string> {
  return Object.fromEntries(r.report.suites.flatMap((s) => s.cases).map((c) => [c.id, c.verdict]));
}

/** The most calls the slow fixture had in flight at once, from its own log lines ("in-flight=N"). */
function mostInFlight(report: Report): number {
  const lines = report.process.stderr.map((l) => (typeof l === 'string' ? l : ((l as { text?: string }).text ?? '')));
  return Math.max(0, ...lines.map((l) => Number(/slow-calls: begin .* in-flight=(\d+)/.exec(l)?.[1] ?? 0)));
}

/** The tools/call requests of a run that named `tool`, with their params. */
function callsOf(r: RunResult, tool: string): { name: string; _meta?: Record<string, unknown> }[] {
  return r.report.messages
    .filter((m) => m.direction === 'to-server' && m.method === 'tools/call')
    .map((m) => (m.json as { params: { name: string; _meta?: Record<string, unknown> } }).params)
    .filter((p) => p.name === tool);
}

/** Run a server both ways at once (default bound, and --max-in-flight 1). */
async function bothWays(
  command: string,
  extra: string[],
  timeoutMs: number,
): Promise<{ dflt: RunResult; serial: RunResult }> {
  const [dflt, serial] = await Promise.all([
    run(command, extra, { timeoutMs }),
    run(command, [...extra, '--max-in-flight', '1'], { timeoutMs }),
  ]);
  return { dflt, serial };
}

describe('run --max-in-flight: the same verdicts as a serial run', () => {
  it('a server that takes a while per call and serves calls side by side: calls overlap by default, never with --max-in-flight 1', async () => {
    const { dflt, serial } = await bothWays(SLOW, ['--env', 'SLOW_MS=400'], 120_000);
    expect(verdicts(dflt)).toEqual(verdicts(serial));
    expect(dflt.code).toBe(serial.code);
    // The server saw several calls at once in the default run (the bound is 8, the fixture has 5 tools), one at a
    // time in the serial one.
    expect(mostInFlight(dflt.report)).toBeGreaterThan(1);
    expect(mostInFlight(dflt.report)).toBeLessThanOrEqual(8);
    expect(mostInFlight(serial.report)).toBe(1);
    expect(dflt.report.options).toMatchObject({ maxInFlight: 8 });
    expect(serial.report.options).toMatchObject({ maxInFlight: 1 });
    // Per-tool results are all there and pass on this conformant server, both ways.
    for (const tool of ['lookup', 'search', 'fetch_page', 'summarize', 'long_running_report']) {
      expect(dflt.c(`calling/tool/${tool}`).verdict).toBe('pass');
      expect(dflt.c(`invalid-params/wrong-type/${tool}`).verdict).toBe('pass');
    }
    // progress/notifications judged the call calling/tool made (it carried the token), not a second call.
    for (const r of [dflt, serial]) {
      const p = r.c('progress/notifications');
      expect(p.verdict, p.message).toBe('pass');
      expect(p.message).toMatch(
        /long_running_report .*the call calling\/tool made\): 3 notifications\/progress with the token/,
      );
      expect(callsOf(r, 'long_running_report').filter((c) => c._meta?.progressToken !== undefined)).toHaveLength(1);
      expect(r.c('calling/tool/long_running_report').details).toMatchObject({
        progressToken: 'mcp-conform-progress-1',
      });
    }
  }, 150_000);

  it('a bound of 2 is kept: never more than 2 calls in flight', async () => {
    const r = await run(SLOW, ['--env', 'SLOW_MS=300', '--suite', 'calling,invalid-params', '--max-in-flight', '2'], {
      timeoutMs: 60_000,
    });
    expect(mostInFlight(r.report)).toBe(2);
    expect(r.code).toBe(0);
  }, 90_000);

  it('a bound that is not a whole number from 1 to 256 is a usage error', async () => {
    for (const bad of ['0', '1.5', '1000']) {
      const r = await run(SLOW, ['--max-in-flight', bad], { timeoutMs: 20_000 }).catch((e: Error) => e);
      // No report is written (run throws with the CLI's exit code and output).
      expect(r).toBeInstanceOf(Error);
      expect((r as Error).message).toMatch(/exit 2/);
      expect((r as Error).message).toMatch(/--max-in-flight must be an integer from 1 to 256/);
    }
  }, 60_000);

  it('@modelcontextprotocol/server-everything over stdio: its 10-second tool is called once for calling and progress', async () => {
    const { dflt, serial } = await bothWays(EVERYTHING, [], 180_000);
    expect(verdicts(dflt)).toEqual(verdicts(serial));
    expect(dflt.code).toBe(serial.code);
    for (const r of [dflt, serial]) {
      expect(r.c('calling/tool/trigger-long-running-operation').verdict).toBe('pass');
      expect(r.c('progress/notifications').verdict).toBe('pass');
      expect(r.c('progress/notifications').message).toMatch(
        /trigger-long-running-operation .*the call calling\/tool made\): \d+ notifications\/progress with the token, increasing/,
      );
      // One call with the token (the 10-second one); the others of this tool are invalid-params' and the
      // cancellation probe's, which end at once or are cancelled.
      expect(
        callsOf(r, 'trigger-long-running-operation').filter((c) => c._meta?.progressToken !== undefined),
      ).toHaveLength(1);
    }
  }, 240_000);

  describe('a Python MCP SDK server (stdio)', () => {
    let peers: PythonPeers;
    beforeAll(async () => {
      peers = await pythonPeers();
    }, 300_000);

    it('gets the same verdicts both ways', async (t) => {
      if (!peers.python) return t.skip(peers.reason);
      const { dflt, serial } = await bothWays(
        `${peers.python} ${join(FIXTURES, 'peers', 'python_sdk.py')} stdio`,
        [],
        120_000,
      );
      expect(Object.keys(verdicts(dflt)).length).toBeGreaterThan(40);
      expect(verdicts(dflt)).toEqual(verdicts(serial));
      expect(dflt.code).toBe(serial.code);
    }, 180_000);
  });
});
