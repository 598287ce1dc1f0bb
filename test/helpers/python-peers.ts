/**
 * A Python virtual environment with the Python MCP SDK (`mcp` 2.x) and Python FastMCP, for the tests that run the
 * Python peers (fixtures/servers/peers/python_*.py).
 *
 * Created once with `python3 -m venv DIR && DIR/bin/pip install --retries 0 --timeout 10 'mcp>=2' fastmcp` under
 * node_modules/.cache/mcp-conform-pyvenv/ and reused by later runs (a `.ready` marker says it is complete; the
 * directory name carries a hash of the requirements, so changing them makes a new one). Made at most once per
 * machine, concurrent test files waiting for the one that makes it: cached-install.ts.
 *
 * MCP_CONFORM_PYTHON=/path/to/python uses that interpreter instead (it must import mcp and fastmcp);
 * MCP_CONFORM_PYTHON=none skips the Python peers (the reason says so).
 */
import { createHash } from 'node:crypto';
import { join } from 'node:path';
import { cachedInstall, lastLine, runBounded } from './cached-install.js';
import { ROOT } from './cli.js';
import { withForkServer } from './python-fork.js';

export const REQUIREMENTS = ['mcp>=2', 'fastmcp'];
export const CACHE_ROOT = join(ROOT, 'node_modules', '.cache', 'mcp-conform-pyvenv');
/** Bound of the whole creation (venv + pip install); it takes about 20 s on this kind of machine. */
export const CREATE_TIMEOUT_MS = 240_000;

export type PythonPeers = { python: string; reason?: undefined } | { python?: undefined; reason: string };

const venvDir = () => join(CACHE_ROOT, createHash('sha256').update(REQUIREMENTS.join('\n')).digest('hex').slice(0, 12));

/** Does this interpreter import both packages? undefined when it does, else why not. */
async function check(python: string): Promise<string | undefined> {
  const r = await runBounded(python, ['-c', 'import mcp.server, fastmcp; print("ok")'], 60_000);
  return r.code === 0 ? undefined : `${python} cannot import mcp and fastmcp: ${lastLine(r.out) || `exit ${r.code}`}`;
}

async function create(dir: string): Promise<string | undefined> {
  // The interpreter itself, not the run's PATH shortcut to it (test/setup/python3.ts): the venv points at the
  // interpreter it was made with, and that shortcut is gone when the run ends.
  const python3 = process.env.MCP_CONFORM_TEST_PYTHON3 || 'python3';
  const deadline = Date.now() + CREATE_TIMEOUT_MS;
  const left = () => Math.max(1, deadline - Date.now());
  const version = await runBounded(python3, ['-c', 'import sys; print("%d.%d" % sys.version_info[:2])'], 10_000);
  if (version.code !== 0) return `python3 is not usable: ${lastLine(version.out) || `exit ${version.code}`}`;
  const [major, minor] = version.out.trim().split('.').map(Number);
  if (major! < 3 || (major === 3 && minor! < 10))
    return `python3 is ${version.out.trim()}; the Python MCP SDK 2.x needs 3.10 or later`;
  const venv = await runBounded(python3, ['-m', 'venv', dir], left());
  if (venv.code !== 0) return `python3 -m venv failed${venv.timedOut ? ' (timed out)' : ''}: ${lastLine(venv.out)}`;
  const pip = await runBounded(
    join(dir, 'bin', 'pip'),
    ['install', '--retries', '0', '--timeout', '10', ...REQUIREMENTS],
    left(),
    { ...process.env, PIP_DISABLE_PIP_VERSION_CHECK: '1' },
  );
  if (pip.code !== 0) {
    return `pip install ${REQUIREMENTS.map((r) => `'${r}'`).join(' ')} failed${pip.timedOut ? ` (stopped after ${CREATE_TIMEOUT_MS / 1000} s)` : ''}: ${lastLine(pip.out)}`;
  }
  return check(join(dir, 'bin', 'python'));
}

let memo: Promise<PythonPeers> | undefined;

/**
 * The venv's python (through this worker's fork server: python-fork.ts), or why there is none. Creates the venv at most
 * once per machine (see the file comment).
 */
export function pythonPeers(): Promise<PythonPeers> {
  return (memo ??= resolvePeers().then(async (p) => (p.python ? { python: await withForkServer(p.python) } : p)));
}

async function resolvePeers(): Promise<PythonPeers> {
  const forced = process.env.MCP_CONFORM_PYTHON;
  if (forced === 'none') return { reason: 'MCP_CONFORM_PYTHON=none: Python peers skipped' };
  if (forced) {
    const why = await check(forced);
    return why ? { reason: why } : { python: forced };
  }
  const dir = venvDir();
  const why = await cachedInstall({ dir, timeoutMs: CREATE_TIMEOUT_MS, create, marker: REQUIREMENTS.join(' ') });
  return why ? { reason: why } : { python: join(dir, 'bin', 'python') };
}
