/**
 * `mcp-conform client --concurrency N`: scenarios played side by side (each its own mock, port and client process
 * group) give the verdicts one after another gives, in the same order. Needs the build.
 */
import { mkdtempSync, readdirSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { describe, expect, it } from 'vitest';
import { cli, ROOT } from './helpers/cli.js';
import { client, type ClientResult } from './helpers/client-run.js';

const KIT = join(ROOT, 'fixtures/clients/auth');
// auth-step-up is left out: on a loaded machine the stdlib client sometimes exits without stepping up (in either mode),
// so its verdict differs between two runs of the same mode too; that is the fixture's timing, not the concurrency.
const SET =
  'auth-basic,auth-401-later,auth-prm-root-origin,auth-state-mismatch,auth-token-basic,auth-registration-refused,auth-no-s256';
/** scenario → case → verdict, for every case of every scenario, in report order. */
const verdicts = (r: ClientResult) =>
  r.reports.map((rep) => [rep.target.name, rep.suites.flatMap((s) => s.cases).map((c) => `${c.id} ${c.verdict}`)]);

describe('client scenarios in parallel', () => {
  for (const defect of ['authkit.py none', 'no-state-check.py']) {
    it(`${defect}: --concurrency 4 gives the verdicts --concurrency 1 gives, in the same order`, async () => {
      const args = [
        '--suite',
        'client-auth',
        '--http',
        `python3 ${join(KIT, defect)} http {url}`,
        '--scenario',
        SET,
        '--timeout',
        '15000',
      ];
      const serial = await client([...args, '--concurrency', '1'], 200_000);
      const parallel = await client([...args, '--concurrency', '4'], 200_000);
      expect(parallel.reports.map((r) => r.target.name)).toEqual(SET.split(',').map((s) => `scenario ${s}`));
      expect(verdicts(parallel)).toEqual(verdicts(serial));
      expect(parallel.code).toBe(serial.code);
      // Each scenario had its own mock: no two endpoints alike.
      expect(new Set(parallel.reports.map((r) => r.target.url)).size).toBe(parallel.reports.length);
    }, 420_000);
  }

  it('leaves no temporary folder behind: stdio scenarios side by side, one of them a client that never starts the mock', async () => {
    const tmp = mkdtempSync(join(tmpdir(), 'mcp-conform-tmp-'));
    const out = mkdtempSync(join(tmpdir(), 'mcp-conform-out-'));
    const env = { TMPDIR: tmp };
    const ok = await cli(
      [
        'client',
        '--stdio',
        `node ${join(ROOT, 'fixtures/clients/sdk-client.mjs')} stdio {server}`,
        '--scenario',
        'pages,ping,unknown-tool',
        '--concurrency',
        '3',
        '--out-dir',
        out,
        '--quiet',
        '--timeout',
        '20000',
      ],
      { env, timeoutMs: 120_000 },
    );
    expect(ok.code, ok.stderr).toBe(0);
    const never = await cli(
      ['client', '--stdio', 'sh -c "exit 3" {server}', '--scenario', 'pages', '--out-dir', out, '--quiet'],
      { env, timeoutMs: 60_000 },
    );
    expect(never.code).toBe(1);
    expect(readdirSync(tmp)).toEqual([]);
  }, 150_000);

  it('--concurrency 0 or a word is a usage error (exit 2)', async () => {
    for (const bad of ['0', 'many']) {
      const r = await cli(['client', '--http', 'node x.js {url}', '--concurrency', bad]);
      expect(r.code).toBe(2);
      expect(r.stderr).toMatch(/--concurrency .*whole number of scenarios/);
    }
  });
});
