/**
 * The Python interpreter that has the Python MCP SDK (`mcp` >= 2) for the tests that run real Python peers, from
 * MCP_CONFORM_PYTHON. Without one those tests are skipped with the reason `why` (kept small, to merge with the
 * venv-creating helper of the ledger work).
 */
import { spawnSync } from 'node:child_process';

export interface PythonPeers {
  python?: string;
  why: string;
}

let found: PythonPeers | undefined;

export function pythonWithMcp(): PythonPeers {
  if (found) return found;
  const python = process.env.MCP_CONFORM_PYTHON;
  if (!python) return (found = { why: 'MCP_CONFORM_PYTHON is not set (a Python with the MCP SDK >= 2: pip install "mcp>=2" fastmcp)' });
  const r = spawnSync(python, ['-c', "import importlib.metadata as m, mcp; v = m.version('mcp'); print(v); assert int(v.split('.')[0]) >= 2"], { encoding: 'utf8', timeout: 20_000 });
  if (r.status !== 0) return (found = { why: `MCP_CONFORM_PYTHON=${python} has no Python MCP SDK >= 2: ${(r.stderr || r.error?.message || '').trim().split('\n').pop()}` });
  return (found = { python, why: `Python MCP SDK ${r.stdout.trim()}` });
}
