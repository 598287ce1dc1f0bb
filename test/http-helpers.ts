/** Helpers for the HTTP tests: free ports, servers started in their own process group, runs over HTTP. */
import { spawn, type ChildProcess } from 'node:child_process';
import { createServer, connect } from 'node:net';
import { join } from 'node:path';
import { BIN, FIXTURES, ROOT, runArgs, type RunResult } from './helpers/cli.js';

export { BIN, FIXTURES, ROOT };

export function freePort(): Promise<number> {
  return new Promise((resolve, reject) => {
    const s = createServer();
    s.once('error', reject);
    s.listen(0, '127.0.0.1', () => {
      const port = (s.address() as { port: number }).port;
      s.close(() => resolve(port));
    });
  });
}

function accepts(port: number): Promise<boolean> {
  return new Promise((resolve) => {
    const s = connect({ host: '127.0.0.1', port });
    s.once('connect', () => {
      s.destroy();
      resolve(true);
    });
    s.once('error', () => resolve(false));
  });
}

export interface Started {
  port: number;
  child: ChildProcess;
  stop(): Promise<void>;
}

/** Start a server (own process group) on a free port and wait (bounded) until it accepts connections. */
export async function startServer(
  argv: string[],
  opts: { env?: Record<string, string>; portArg?: boolean } = {},
): Promise<Started> {
  const port = await freePort();
  const args = opts.portArg === false ? argv.slice(1) : [...argv.slice(1), String(port)];
  const child = spawn(argv[0]!, args, {
    cwd: ROOT,
    env: { ...process.env, PORT: String(port), ...opts.env },
    stdio: ['ignore', 'ignore', 'pipe'],
    detached: true,
  });
  let stderr = '';
  child.stderr!.on('data', (b) => (stderr += b));
  const until = Date.now() + 15_000;
  while (!(await accepts(port))) {
    if (child.exitCode !== null || Date.now() > until) {
      try {
        process.kill(-child.pid!, 'SIGKILL');
      } catch {
        /* gone */
      }
      throw new Error(`${argv.join(' ')} did not open port ${port}: ${stderr}`);
    }
    await new Promise((r) => setTimeout(r, 100));
  }
  return {
    port,
    child,
    async stop() {
      try {
        process.kill(-child.pid!, 'SIGTERM');
      } catch {
        return;
      }
      const end = Date.now() + 3000;
      while (Date.now() < end) {
        try {
          process.kill(-child.pid!, 0);
        } catch {
          return;
        }
        await new Promise((r) => setTimeout(r, 50));
      }
      try {
        process.kill(-child.pid!, 'SIGKILL');
      } catch {
        /* gone */
      }
    },
  };
}

export { runArgs, type RunResult as Run } from './helpers/cli.js';

export const everything = join(BIN, 'mcp-server-everything');
export const sdkHttp = join(FIXTURES, 'sdk-http.mjs');
export const brokenHttp = join(FIXTURES, 'http', 'broken_http.py');

/** A run of the given suites against broken_http.py in `mode` (on a free port), the server stopped after it. */
export async function runBroken(mode: string, suites: string, extra: string[] = []): Promise<RunResult> {
  const s = await startServer(['python3', brokenHttp, mode]);
  try {
    return await runArgs(['--http', `http://127.0.0.1:${s.port}/mcp`, '--suite', suites, ...extra], {
      timeoutMs: 60_000,
    });
  } finally {
    await s.stop();
  }
}

/** true while any process of the group exists. */
export function groupAlive(pgid: number): boolean {
  try {
    process.kill(-pgid, 0);
    return true;
  } catch (e) {
    return (e as NodeJS.ErrnoException).code === 'EPERM';
  }
}
