/**
 * Verdict guard ("a default run on the demo server and on server-everything gives the same verdicts before
 * and after"): runs the demo server, every broken fixture of run-broken.test.ts, server-everything over stdio, Streamable
 * HTTP and HTTP+SSE, and the stdlib HTTP fixture (good and sloppy), and compares each case id → verdict with the
 * recorded ones in test/verdicts/*.json. A changed verdict fails until the file is regenerated on purpose
 * (`VERDICTS_UPDATE=1 npx vitest run test/verdicts.test.ts`) and the change explained in the commit.
 *
 * Only verdicts are compared: the words of a skip may change (the runner gives one uniform reason), a verdict may not.
 */
import { existsSync, mkdirSync, readFileSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { describe, expect, it } from 'vitest';
import { ROOT, py, run, runArgs, type RunResult } from './helpers/cli.js';
import { brokenHttp, everything, startServer } from './http-helpers.js';

const DIR = join(ROOT, 'test', 'verdicts');
const UPDATE = !!process.env.VERDICTS_UPDATE;

/** The broken fixtures run-broken.test.ts runs, read from that file so the two lists cannot drift apart. */
const BROKEN = [...readFileSync(join(ROOT, 'test', 'run-broken.test.ts'), 'utf8').matchAll(/^ {2}'([\w-]+\.py)': \{/gm)].map((m) => m[1]!);
const BROKEN_SUITES = 'lifecycle,listing,calling,unknown-tool,invalid-params,is-error,stdio,schema';

type Verdicts = Record<string, string>;

/**
 * Cases whose verdict depends on timing on a loaded machine rather than on the code (none known so far; a case listed
 * here must say why).
 */
const TIMING_DEPENDENT: Record<string, string> = {};

function verdictsOf(r: RunResult): Verdicts {
  const out: Verdicts = {};
  for (const c of r.report.suites.flatMap((s) => s.cases)) if (!(c.id in TIMING_DEPENDENT)) out[c.id] = c.verdict;
  return out;
}

function check(name: string, got: Verdicts): void {
  const file = join(DIR, `${name}.json`);
  if (UPDATE || !existsSync(file)) {
    mkdirSync(DIR, { recursive: true });
    writeFileSync(file, JSON.stringify(got, Object.keys(got).sort(), 2) + '\n');
    if (!UPDATE) throw new Error(`${file} was missing: written now; check it and commit it`);
    return;
  }
  const want = JSON.parse(readFileSync(file, 'utf8')) as Verdicts;
  const diff: string[] = [];
  for (const id of new Set([...Object.keys(want), ...Object.keys(got)])) {
    if (want[id] !== got[id]) diff.push(`${id}: recorded ${want[id] ?? '(absent)'}, now ${got[id] ?? '(absent)'}`);
  }
  expect(diff, `verdicts of ${name} changed`).toEqual([]);
}

describe('verdicts are unchanged (test/verdicts/*.json)', () => {
  it('the demo server (default run)', async () => {
    check('demo', verdictsOf(await run(py('calc.py'))));
  }, 120_000);

  it('the broken fixtures of run-broken.test.ts', async () => {
    expect(BROKEN.length).toBeGreaterThan(20);
    const all: Verdicts = {};
    // two at a time: the machine has two cores
    for (let i = 0; i < BROKEN.length; i += 2) {
      const batch = BROKEN.slice(i, i + 2);
      const runs = await Promise.all(batch.map((f) => run(py(`broken/${f}`), ['--suite', BROKEN_SUITES, '--timeout', '3000', '--shutdown-grace', '1000'])));
      batch.forEach((f, k) => { for (const [id, v] of Object.entries(verdictsOf(runs[k]!))) all[`${f} ${id}`] = v; });
    }
    check('broken', all);
  }, 600_000);

  it('server-everything over stdio (default run)', async () => {
    check('everything-stdio', verdictsOf(await run(`${everything} stdio`, [], { timeoutMs: 150_000 })));
  }, 180_000);

  it('server-everything over Streamable HTTP and HTTP+SSE (default runs)', async () => {
    const h = await startServer([everything, 'streamableHttp'], { portArg: false });
    const s = await startServer([everything, 'sse'], { portArg: false });
    try {
      const [hr, sr] = await Promise.all([
        runArgs(['--http', `http://127.0.0.1:${h.port}/mcp`], { timeoutMs: 150_000 }),
        runArgs(['--sse', `http://127.0.0.1:${s.port}/sse`], { timeoutMs: 150_000 }),
      ]);
      check('everything-http', verdictsOf(hr));
      check('everything-sse', verdictsOf(sr));
    } finally {
      await Promise.all([h.stop(), s.stop()]);
    }
  }, 240_000);

  it('the stdlib HTTP fixture, good and sloppy (default runs)', async () => {
    const servers = await Promise.all(['good', 'sloppy'].map((m) => startServer(['python3', brokenHttp, m])));
    try {
      const runs = await Promise.all(servers.map((s) => runArgs(['--http', `http://127.0.0.1:${s.port}/mcp`], { timeoutMs: 150_000 })));
      check('http-good', verdictsOf(runs[0]!));
      check('http-sloppy', verdictsOf(runs[1]!));
    } finally {
      await Promise.all(servers.map((s) => s.stop()));
    }
  }, 240_000);
});

