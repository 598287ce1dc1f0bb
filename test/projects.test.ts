/**
 * The test projects of vitest.config.ts (docs/developing.md, "The tests"): every test file is in exactly one; a unit
 * file starts no process and loads nothing built; a file that starts a third-party peer is in `peers`, so that
 * `npm run test:cli` needs nothing but Node, python3 and the project's own install.
 */
import { readdirSync, readFileSync, statSync } from 'node:fs';
import { join, relative } from 'node:path';
import { describe, expect, it } from 'vitest';
import { PEERS, UNIT } from '../vitest.config.js';
import { ROOT } from './helpers/cli.js';

function testFiles(dir = join(ROOT, 'test')): string[] {
  return readdirSync(dir).flatMap((name) => {
    const path = join(dir, name);
    if (statSync(path).isDirectory()) return testFiles(path);
    return name.endsWith('.test.ts') ? [relative(ROOT, path)] : [];
  });
}

const FILES = testFiles();
const text = (file: string) => readFileSync(join(ROOT, file), 'utf8');

/** What a unit test may not use: processes, the built CLI or package, servers over the network of another process. */
const NOT_IN_UNIT: [RegExp, string][] = [
  [/from 'node:child_process'/, 'starts a process (node:child_process)'],
  [
    /import \{[^}]*\b(cli|run|runArgs|CLI|py)\b[^}]*\} from '\.\.?\/(\.\.\/)?helpers\/cli\.js'/,
    'runs the built CLI (helpers/cli.js)',
  ],
  [
    /from '\.\.?\/(\.\.\/)?(http-helpers|helpers\/(zoo|proc|python-peers|node22-peers|chromium|cached-install|client-run))\.js'/,
    'starts servers or peers (a process helper)',
  ],
  [/from 'mcp-conform(\/[^']*)?'/, "loads the built package ('mcp-conform' is dist/)"],
  [
    /\b(ROOT|root)\b, 'dist'|'(\.\.\/)+dist\//,
    'reads dist/ (the unit project also refuses to load a module from there)',
  ],
];

/** Third-party programs started as processes: they make a file a peers file. */
const PEER_MARKERS: [RegExp, string][] = [
  [/mcp-server-(everything|filesystem|memory|commands|sequential-thinking)\b/, 'an npm MCP server'],
  [/import \{[^}]*\beverything\b[^}]*\} from '[^']*http-helpers\.js'/, 'server-everything (http-helpers)'],
  [/sdk-(http|stdio|client|auth-client)\.mjs|\bsdkHttp\b/, 'a server or client on the real SDK (fixtures/*/sdk-*.mjs)'],
  [/['/]peers['/]|fixtures\/(servers|clients)\/peers/, 'a peer of fixtures/*/peers/'],
  [/\bpythonPeers\(|\bnode22Peers\(/, 'the Python SDK venv or Node 22'],
  [/\bfindChromium\(/, 'Chromium'],
];

describe('test projects (vitest.config.ts)', () => {
  it('every listed file exists, and no file is listed twice', () => {
    for (const f of [...UNIT, ...PEERS])
      expect(FILES, `${f} is listed in vitest.config.ts but does not exist`).toContain(f);
    expect(UNIT.filter((f) => PEERS.includes(f))).toEqual([]);
    expect(new Set(UNIT).size).toBe(UNIT.length);
    expect(new Set(PEERS).size).toBe(PEERS.length);
  });

  it('a unit file starts no process and loads nothing built', () => {
    const found = UNIT.filter((f) => f !== 'test/projects.test.ts').flatMap((f) =>
      NOT_IN_UNIT.filter(([re]) => re.test(text(f))).map(([, why]) => `${f}: ${why}`),
    );
    expect(found, 'move these files to the cli or peers project (vitest.config.ts)').toEqual([]);
  });

  it('no test file changes what the next file of its worker sees (every project runs files without isolation)', () => {
    const SHARED: [RegExp, string][] = [
      [/process\.env(\.\w+|\[[^\]]+\])\s*=[^=]|delete process\.env/, 'changes process.env'],
      [/\bvi\.(mock|stubEnv|stubGlobal|useFakeTimers)\(/, 'mocks a module, the environment, a global or the clock'],
      [/process\.chdir\(/, 'changes the working directory'],
    ];
    const found = FILES.filter((f) => f !== 'test/projects.test.ts').flatMap((f) =>
      SHARED.filter(([re]) => re.test(text(f))).map(([, why]) => `${f}: ${why}`),
    );
    expect(found, 'restore it in the file, or give the file its own project with isolate: true').toEqual([]);
  });

  it('a file that starts a third-party peer is in the peers project', () => {
    const found = FILES.filter((f) => !PEERS.includes(f) && f !== 'test/projects.test.ts').flatMap((f) =>
      PEER_MARKERS.filter(([re]) => re.test(text(f))).map(([, why]) => `${f}: ${why}`),
    );
    expect(
      found,
      'add these files to PEERS in vitest.config.ts (or move the peer test to a file of its own there)',
    ).toEqual([]);
  });
});
