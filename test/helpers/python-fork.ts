/**
 * The Python peers started through a fork server (test/helpers/pyfork/): the tests start the Python SDK's servers and
 * clients hundreds of times, and each interpreter spent ~0.5 s of CPU importing the SDK before doing anything (about a
 * sixth of the suite's CPU on a two-core machine). The fork server imports it once; each peer is a fork of it that
 * runs the peer's script with the arguments, environment, working directory and standard streams it was started with,
 * and its launcher ends as it does. The peer's own code, its SDK and what the harness sees of it (a process it
 * started, its streams, its exit, its answers to signals) are unchanged. What differs: the launcher's pid is the one
 * the harness knows; the peer's process is a child of the fork server, in its own process group, ended by the server
 * when its launcher is gone.
 *
 * withForkServer(python) starts one fork server per test worker (it ends when the worker does) and gives the path of
 * a launcher that is used as the interpreter is (`LAUNCHER script.py args`, or in an argument array). Anything else
 * given to the launcher (an option such as -c, no script), or a fork server that is gone, runs the interpreter itself.
 * MCP_CONFORM_TEST_PYFORK=0 turns it off (the venv's interpreter is used directly).
 */
import { spawn } from 'node:child_process';
import { chmodSync, existsSync, mkdtempSync, readFileSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { ROOT } from './cli.js';

const DIR = join(ROOT, 'test', 'helpers', 'pyfork');
/** Imported once by the fork server: the SDK and what it stands on. None reads an environment variable on import. */
export const PRELOAD = [
  'anyio',
  'pydantic',
  'starlette.applications',
  'uvicorn',
  'mcp',
  'mcp.client',
  'mcp.client.auth',
  'mcp.client.sse',
  'mcp.client.stdio',
  'mcp.client.streamable_http',
  'mcp.server',
  'mcp.server.lowlevel',
  'mcp.server.mcpserver',
  'mcp.server.sse',
  'mcp.server.stdio',
  'mcp.server.streamable_http_manager',
];
/** How long the fork server may take to import PRELOAD and listen; after that the interpreter is used directly. */
const READY_MS = 30_000;

const memo = new Map<string, Promise<string>>();

/** A launcher for this interpreter through this worker's fork server, or the interpreter itself where there is none. */
export function withForkServer(python: string): Promise<string> {
  if (process.env.MCP_CONFORM_TEST_PYFORK === '0' || process.platform === 'win32') return Promise.resolve(python);
  let p = memo.get(python);
  if (!p) {
    p = start(python);
    memo.set(python, p);
  }
  return p;
}

async function start(python: string): Promise<string> {
  const dir = mkdtempSync(join(tmpdir(), 'pyfork-'));
  const socket = join(dir, 's');
  const zygote = spawn(python, [join(DIR, 'zygote.py'), socket, ...PRELOAD], {
    stdio: ['ignore', 'ignore', 'inherit'],
    detached: true,
  });
  zygote.unref();
  let gone = false;
  zygote.once('exit', () => (gone = true));
  zygote.once('error', () => {});
  const deadline = Date.now() + READY_MS;
  while (!existsSync(socket) && !gone && Date.now() < deadline) await new Promise((r) => setTimeout(r, 25));
  if (!existsSync(socket)) {
    if (!gone) zygote.kill('SIGKILL');
    return python;
  }
  // The launcher, an executable script run by the same interpreter without its site packages (it needs none).
  const launcher = join(dir, 'python');
  const code = `#!${python} -S\nSOCKET = ${JSON.stringify(socket)}\n`;
  writeFileSync(launcher, code + readFileSync(join(DIR, 'launch.py'), 'utf8'));
  chmodSync(launcher, 0o755);
  return launcher;
}
