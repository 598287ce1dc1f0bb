/**
 * Pipelined tool calls against a real server process that handles one request at a time
 * (fixtures/servers/zoo/one-at-a-time.py, through the built CLI): the wait in its queue does not count against a
 * call's timeout; a call never answered fails on its timeout from its turn. In-process: test/pipelined-timeouts.test.ts.
 */
import { describe, expect, it } from 'vitest';
import { zoo } from './helpers/zoo.js';

describe('zoo/one-at-a-time.py over stdio (the CLI)', () => {
  it('8 tools of 1.2 s each, handled one at a time: every calling case passes with --timeout 5000, exit 0', async () => {
    const r = await zoo('zoo/one-at-a-time.py', ['--suite', 'calling', '--timeout', '5000'], {
      code: 0,
      withinMs: 9_600 + 8_000,
    });
    expect(r.verdicts('calling/tool/')).toEqual(
      Object.fromEntries(Array.from({ length: 8 }, (_, i) => [`calling/tool/t${i}`, 'pass'])),
    );
  }, 60_000);

  it('invalid-params pipelines its calls too: 16 calls of 0.3 s each, none fails for its wait in the queue (--timeout 1500)', async () => {
    // Sent 8 at a time, the 8th waits ~2.1 s in the queue, more than its 1.5 s: only a timeout counted from its turn
    // (the call ahead of it) lets it through.
    const r = await zoo(
      'zoo/one-at-a-time.py --params --sleep 0.3',
      ['--suite', 'invalid-params', '--timeout', '1500'],
      { code: 0, withinMs: 16 * 300 + 8_000 },
    );
    const results = Object.keys(r.verdicts('invalid-params/')).filter((id) =>
      /\/(missing-required|wrong-type)\//.test(id),
    );
    expect(results.length).toBe(16); // missing-required and wrong-type, for each of the 8 tools
    for (const id of results) expect(r.c(id).message, id).not.toMatch(/not answered within|timed out/);
  }, 60_000);

  it('one call never answered (--drop t3): it alone fails, on its timeout from its turn; exit 1', async () => {
    const r = await zoo('zoo/one-at-a-time.py --drop t3 --sleep 0.3', ['--suite', 'calling', '--timeout', '2000'], {
      code: 1,
      withinMs: 900 + 2_000 + 8_000,
    });
    expect(r.verdicts('calling/tool/')).toMatchObject({
      'calling/tool/t2': 'pass',
      'calling/tool/t3': 'fail',
      'calling/tool/t4': 'pass',
      'calling/tool/t7': 'pass',
    });
    expect(Object.values(r.verdicts('calling/tool/')).filter((v) => v !== 'pass')).toEqual(['fail']);
    expect(r.c('calling/tool/t3').message).toMatch(/tools\/call \(id \d+\) not answered within 2000 ms/);
  }, 60_000);
});
