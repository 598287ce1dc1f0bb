/** The stderr lines a "server exited" message quotes: the line that names the error is among them. */
import { describe, expect, it } from 'vitest';
import { stderrTail } from '../core/session.js';

// What Node 20 wrote when `node /wrong/path/index.js` was the --stdio command (recorded in an audit run).
const NODE_CRASH = [
  'node:internal/modules/cjs/loader:1210',
  '  throw err;',
  '  ^',
  '',
  "Error: Cannot find module '/tmp/x/node_modules/@cyanheads/git-mcp-server/dist/index.js'",
  '    at Module._resolveFilename (node:internal/modules/cjs/loader:1207:15)',
  '    at Module._load (node:internal/modules/cjs/loader:1038:27)',
  '    at Function.executeUserEntryPoint [as runMain] (node:internal/modules/run_main:164:12)',
  '    at node:internal/main/run_main_module:28:49 {',
  "  code: 'MODULE_NOT_FOUND',",
  '  requireStack: []',
  '}',
  '',
  'Node.js v20.20.2',
];

describe('stderrTail', () => {
  it('a Node crash: the "Error: …" line before the stack leads, then the last five lines', () => {
    const s = stderrTail({ reason: 'the server exited with code 1', stderrTail: NODE_CRASH });
    expect(s).toBe(
      "; last stderr lines: Error: Cannot find module '/tmp/x/node_modules/@cyanheads/git-mcp-server/dist/index.js' | … | " +
        "  code: 'MODULE_NOT_FOUND', |   requireStack: [] | } |  | Node.js v20.20.2",
    );
  });
  it('a Python traceback ends with its error line: the last five lines as they are, nothing moved', () => {
    const tb = [
      'Traceback (most recent call last):',
      '  File "/srv/server.py", line 3, in <module>',
      '    import mcp',
      "ModuleNotFoundError: No module named 'mcp'",
    ];
    expect(stderrTail({ reason: 'x', stderrTail: tb })).toBe(`; last stderr lines: ${tb.slice(-5).join(' | ')}`);
  });
  it('no error line anywhere: the last five lines; nothing written: nothing', () => {
    const lines = ['starting', 'listening on stdio', 'a', 'b', 'c', 'd', 'bye'];
    expect(stderrTail({ reason: 'x', stderrTail: lines })).toBe('; last stderr lines: a | b | c | d | bye');
    expect(stderrTail({ reason: 'x', stderrTail: [] })).toBe('');
  });
});
