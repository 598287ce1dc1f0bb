/**
 * Verdict guard, real peers: server-everything over stdio, Streamable HTTP and HTTP+SSE (default runs) give the
 * verdicts recorded in test/verdicts/everything-*.json. Our own fixtures: test/verdicts.test.ts.
 */
import { describe, it } from 'vitest';
import { run, runArgs } from './helpers/cli.js';
import { check, verdictsOf } from './helpers/verdict-guard.js';
import { everything, startServer } from './http-helpers.js';

describe('verdicts of server-everything are unchanged (test/verdicts/everything-*.json)', () => {
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
});
