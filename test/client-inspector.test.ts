/**
 * The MCP Inspector's CLI as a real client of `mcp-conform client`: v2 (`@modelcontextprotocol/inspector` 2.12,
 * `inspector --cli`, Node 22) and v1 (`@modelcontextprotocol/inspector-cli` 1.0.3, run from its build folder), over
 * stdio, Streamable HTTP and HTTP+SSE, every default scenario; one Inspector process (and session) per method, each
 * graded; every non-pass verdict held by the ledger. Installed with Node 22 by test/helpers/node22-peers.ts. Needs the build.
 */
import { join } from 'node:path';
import { describe, expect, it } from 'vitest';
import { client } from './helpers/client-run.js';
import { ROOT } from './helpers/cli.js';
import { node22Peers } from './helpers/node22-peers.js';
import { unledgered } from './helpers/client-ledger.js';

const node22 = await node22Peers();
const I = (v: string, kind: string) =>
  `${node22.node} ${join(ROOT, 'fixtures/clients/node22/inspector-client.mjs')} ${v} ${kind} ${kind === 'stdio' ? '{server}' : '{url}'}`;
const env = ['--env', `NODE22_MODULES=${node22.modules}`];

describe.skipIf(!node22.node)(`the MCP Inspector CLI${node22.node ? '' : ` (skipped: ${node22.reason})`}`, () => {
  for (const v of ['v2', 'v1']) {
    it(`${v} over stdio, Streamable HTTP and HTTP+SSE, every default scenario: each process's session graded, every non-pass in the ledger`, async () => {
      const kinds = ['stdio', 'http', 'sse'];
      const runs = await Promise.all(kinds.map((k) => client([`--${k}`, I(v, k), ...env], 600_000)));
      expect(runs.flatMap((r, i) => unledgered(`Inspector CLI ${v}`, r).map((x) => `${kinds[i]}: ${x}`))).toEqual([]);
      for (const r of runs) {
        // One process per method: two sessions, each opened with initialize.
        expect(r.verdict('pages', 'client-lifecycle/initialize-first')).toMatchObject({
          verdict: 'pass',
          message: expect.stringMatching(/session 1 of 2: .*session 2 of 2: /),
        });
        expect(r.verdict('pages', 'client-process/exit').verdict).toBe('pass');
        expect(r.verdict('pages', 'client-requests/tool-arguments').verdict).toBe('pass');
      }
      // A one-shot CLI: after a 404 for its session it reports the error and exits, no new session (ledger: fail).
      expect(runs[1]!.verdict('session-expired', 'client-http/reinitialize-after-404')).toMatchObject({
        verdict: 'fail',
        message: expect.stringMatching(/got 404 for session .*the client sent nothing more/),
      });
      expect(runs[1]!.verdict('pages', 'client-http/delete-session').verdict).toBe('warn');
    }, 900_000);
  }
});
