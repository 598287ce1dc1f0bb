/**
 * Fetching a published package before its server is started (run --server-json, an npm package run by npx): the
 * package's `fetch` command (core/published/server-json.ts) puts it into npx's cache, so that the server's start is
 * not a download. Without it a first `npx` of a large package (a minute for mongodb-mcp-server) ran into the start-up
 * allowance — npx waiting on the network uses no CPU, so it looks like a server waiting for input —, server/discover
 * timed out, and the run killed npx mid-install, leaving a broken entry in the user's npx cache.
 *
 * Bounded (FETCH_TIMEOUT_MS); its own process group, ended on time-out like a server. Whatever happens, the run goes on:
 * a package that cannot be fetched fails at the server's start, quoting the installer (as before).
 */
import { disown, endGroup, spawnGroup } from '../processes.js';

/** The longest a package fetch may take before the run goes on without it. */
export const FETCH_TIMEOUT_MS = 300_000;
/** How long what is left of a fetch's process group gets to stop before it is killed. */
const STOP_GRACE_MS = 2_000;

export interface FetchResult {
  code: number | null;
  timedOut: boolean;
  ms: number;
  output: string /** The fetch's process group (absent when it did not start). */;
  pgid?: number;
}

/** Runs a fetch command to its end (or FETCH_TIMEOUT_MS); never throws. `output`: the last 2,000 characters. */
export async function fetchPackage(
  words: string[],
  o: { cwd?: string; env: NodeJS.ProcessEnv; timeoutMs?: number },
): Promise<FetchResult> {
  const started = performance.now();
  let output = '';
  const keep = (b: Buffer) => {
    output = (output + b.toString('utf8')).slice(-2_000);
  };
  let g: ReturnType<typeof spawnGroup>;
  try {
    g = spawnGroup(words[0]!, words.slice(1), { cwd: o.cwd, env: o.env });
    await g.spawned;
  } catch (e) {
    return { code: null, timedOut: false, ms: performance.now() - started, output: (e as Error).message };
  }
  g.child.stdin?.end();
  g.child.stdout?.on('data', keep);
  g.child.stderr?.on('data', keep);
  const pgid = g.child.pid!;
  let timer: NodeJS.Timeout | undefined;
  const bound = new Promise<'timed out'>((resolve) => {
    timer = setTimeout(() => resolve('timed out'), o.timeoutMs ?? FETCH_TIMEOUT_MS);
  });
  const end = await Promise.race([g.exited, bound]);
  clearTimeout(timer);
  const timedOut = end === 'timed out';
  // On time-out the whole group; else anything the fetch left behind in it.
  await endGroup(pgid, STOP_GRACE_MS);
  disown(pgid);
  return { code: timedOut ? null : end.code, timedOut, ms: performance.now() - started, output, pgid };
}
