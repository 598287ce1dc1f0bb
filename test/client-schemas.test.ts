/**
 * client-schemas: scenario tool-schemas (a tool whose schemas use JSON Schema 2020-12 keywords) and remote-ref (a tool
 * whose schemas $ref an http:// URL on the mock's loopback listener). Each verdict is shown on a broken
 * standard-library client (fixtures/clients/broken/, fixtures/clients/discover-2026.py) and held on real clients;
 * every non-pass verdict of a real client stands in the ledger. Needs the build.
 */
import { join } from 'node:path';
import { describe, expect, it } from 'vitest';
import { client, nonPass, type ClientResult } from './helpers/client-run.js';
import { ROOT } from './helpers/cli.js';
import { pythonPeers } from './helpers/python-peers.js';
import { node22Peers } from './helpers/node22-peers.js';
import { unledgered } from './helpers/client-ledger.js';

const S = ['--scenario', 'tool-schemas,remote-ref'];
const KIT = (defect: string, kind: string) =>
  `python3 ${join(ROOT, 'fixtures/clients/broken/clientkit.py')} ${defect} ${kind} ${kind === 'stdio' ? '{server}' : '{url}'}`;
const D2026 = (defect = '') => `python3 ${join(ROOT, 'fixtures/clients/discover-2026.py')} {server} ${defect}`;
const DIALECT = 'client-schemas/dialect-2020';
const REF = 'client-schemas/no-network-ref';
const dialect = (r: ClientResult) => r.verdict('tool-schemas', DIALECT);
const ref = (r: ClientResult) => r.verdict('remote-ref', REF);

describe('client-schemas on the broken clients (standard library)', () => {
  it('a correct client passes both over stdio and Streamable HTTP (2025-11-25) and in 2026-07-28', async () => {
    const runs = await Promise.all([
      client(['--stdio', KIT('none', 'stdio'), ...S]),
      client(['--http', KIT('none', 'http'), ...S]),
      client(['--stdio', D2026(), ...S]),
    ]);
    for (const r of runs) {
      expect(r.code, nonPass(r).join('\n')).toBe(0);
      expect(dialect(r)).toMatchObject({
        verdict: 'pass',
        message: expect.stringMatching(/arguments valid under its 2020-12 inputSchema .*took 1 of 1 answers/),
      });
      expect(ref(r)).toMatchObject({
        verdict: 'pass',
        message: expect.stringMatching(
          /called it 1 time .*without fetching http:\/\/127\.0\.0\.1:\d+\/mcp-conform\/schemas\/point\.json/,
        ),
      });
      // Each case runs in its own scenario only.
      expect(r.verdict('remote-ref', DIALECT).verdict).toBe('skip');
      expect(r.verdict('tool-schemas', 'client-requests/tool-arguments').verdict).toBe('pass');
    }
    expect(runs[2]!.reports[0]!.options.protocolVersionInForce).toBe('2026-07-28');
  }, 300_000);

  it('fetching the network $ref fails in 2026-07-28 and is info in 2025-11-25; the run goes on (its exit is its own)', async () => {
    const [modern, legacy] = await Promise.all([
      client(['--stdio', D2026('fetches-ref'), ...S]),
      client(['--http', KIT('fetches-ref', 'http'), ...S]),
    ]);
    expect(ref(modern)).toMatchObject({
      verdict: 'fail',
      level: 'MUST',
      message: expect.stringMatching(
        /fetched http:\/\/127\.0\.0\.1:\d+\/mcp-conform\/schemas\/point\.json 2 times \(GET .* by "Python-urllib/,
      ),
    });
    expect(modern.code).toBe(1);
    expect(ref(legacy)).toMatchObject({
      verdict: 'info',
      message: expect.stringMatching(/protocol 2025-11-25 has no rule on it, 2026-07-28 forbids it/),
    });
    expect(dialect(legacy).verdict).toBe('pass');
  }, 300_000);

  it('a draft-07 reader that gives up on the listing fails dialect-2020; arguments its 2020-12 inputSchema rejects are info', async () => {
    const [d07, bad] = await Promise.all([
      client(['--stdio', KIT('draft07-schemas', 'stdio'), '--scenario', 'tool-schemas']),
      client(['--http', KIT('bad-arguments', 'http'), '--scenario', 'tool-schemas']),
    ]);
    expect(dialect(d07)).toMatchObject({
      verdict: 'fail',
      message: expect.stringMatching(
        /holds plot .*sent nothing else; the client exited with code 1: it could not take the listing.*cannot be resolved: #coord/,
      ),
    });
    expect(dialect(bad)).toMatchObject({
      verdict: 'info',
      message: expect.stringMatching(
        /\{"point":\[1,2,3\],"scale":2\} that its 2020-12 inputSchema rejects \(\/point must NOT have more than 2 items; \(root\) must have property unit when property scale is present\)/,
      ),
    });
  }, 300_000);

  it('client-process: the draft-07 reader fails its tool-schemas run; in remote-ref (plain http refs, nothing it cannot read) it ends well', async () => {
    const r = await client(['--stdio', KIT('draft07-schemas', 'stdio'), '--scenario', 'remote-ref,tool-schemas']);
    expect(r.verdict('tool-schemas', 'client-process/exit').verdict).toBe('fail');
    // locate's refs are plain http URLs: draft07-schemas has nothing against them and ends well there.
    expect(r.verdict('remote-ref', 'client-process/exit').verdict).toBe('pass');
  }, 300_000);
});

const node22 = await node22Peers();
const V1 = (kind: string) =>
  `node ${join(ROOT, 'fixtures/clients/sdk-client.mjs')} ${kind} ${kind === 'stdio' ? '{server}' : '{url}'}`;
const V2 = (mode: string, kind: string) =>
  `node ${join(ROOT, 'fixtures/clients/peers/ts-v2-client.mjs')} ${mode} ${kind} ${kind === 'stdio' ? '{server}' : '{url}'}`;

describe('client-schemas on real clients', () => {
  it('TS SDK v1 reads the 2020-12 outputSchema as draft-07 and refuses the valid result (fail, ledger); it fetches no $ref', async () => {
    const runs = await Promise.all([
      client(['--stdio', V1('stdio'), ...S]),
      client(['--http', V1('http'), ...S]),
      client(['--sse', V1('sse'), ...S]),
    ]);
    for (const r of runs) {
      expect(dialect(r)).toMatchObject({
        verdict: 'fail',
        message: expect.stringMatching(
          /structuredContent that plot's outputSchema, read as 2020-12, takes; the client sent nothing after it .*refused a valid result.*/,
        ),
      });
      expect(r.reports.find((x) => x.target.name === 'scenario tool-schemas')!.process.stderr.join('\n')).toMatch(
        /Structured content does not match the tool's output schema/,
      );
      expect(ref(r).verdict).toBe('pass');
      expect(unledgered('TS SDK v1', r)).toEqual([]);
    }
  }, 600_000);

  it('TS SDK v2 (auto, pinned) takes the 2020-12 schemas and refuses to call the tool whose $ref it cannot resolve, fetching nothing', async () => {
    const runs = await Promise.all([
      client(['--stdio', V2('auto', 'stdio'), ...S]),
      client(['--http', V2('pin', 'http'), ...S]),
    ]);
    for (const r of runs) {
      expect(dialect(r).verdict).toBe('pass');
      expect(ref(r)).toMatchObject({ verdict: 'pass', message: expect.stringMatching(/fetched nothing/) });
      expect(r.verdict('remote-ref', 'client-process/exit')).toMatchObject({
        verdict: 'info',
        message: expect.stringMatching(/exited with code 1 in scenario remote-ref/),
      });
      expect(r.reports.find((x) => x.target.name === 'scenario remote-ref')!.process.stderr.join('\n')).toMatch(
        /invalid outputSchema: can't resolve reference http:\/\/127\.0\.0\.1/,
      );
      expect(unledgered('TS SDK v2', r)).toEqual([]);
    }
  }, 600_000);
});

const peers = await pythonPeers();
describe('client-schemas on the Python clients', () => {
  const python = peers.python;
  const P = (kind: string) =>
    `${python} ${join(ROOT, 'fixtures/clients/python-sdk-client.py')} ${kind} ${kind === 'stdio' ? '{server}' : '{url}'}`;
  const PY = (lib: string, kind: string) =>
    `${python} ${join(ROOT, 'fixtures/clients/peers/py-client.py')} ${lib} auto ${kind} ${kind === 'stdio' ? '{server}' : '{url}'}`;
  it.skipIf(!python)(
    `ClientSession and FastMCP take the 2020-12 schemas and refuse the unresolvable $ref at the call, fetching nothing; mcp.Client never lists the page that holds the tools (${python ? python : `skipped: ${peers.reason}`})`,
    async () => {
      const [sdkS, sdkH, fastS, fastH, mcpS] = await Promise.all([
        client(['--stdio', P('stdio'), ...S], 300_000),
        client(['--http', P('http'), ...S], 300_000),
        client(['--stdio', PY('fastmcp', 'stdio'), ...S], 300_000),
        client(['--http', PY('fastmcp', 'http'), ...S], 300_000),
        client(['--stdio', PY('mcp', 'stdio'), ...S], 300_000),
      ]);
      for (const [r, name] of [
        [sdkS, 'Python SDK `ClientSession`'],
        [sdkH, 'Python SDK `ClientSession`'],
        [fastS, 'FastMCP'],
        [fastH, 'FastMCP'],
      ] as const) {
        expect(dialect(r).verdict, dialect(r).message).toBe('pass');
        expect(ref(r)).toMatchObject({
          verdict: 'pass',
          message: expect.stringMatching(/called it 1 time .*without fetching/),
        });
        // Python jsonschema (referencing) does not retrieve the remote schema: validate_tool_result raises.
        expect(r.reports.find((x) => x.target.name === 'scenario remote-ref')!.process.stderr.join('\n')).toMatch(
          /Invalid schema for tool locate: Unresolvable: http:\/\/127\.0\.0\.1/,
        );
        expect(unledgered(name, r)).toEqual([]);
      }
      // mcp.Client.list_tools() returns the first page only (client-requests/pagination info): plot and locate are on the second.
      expect(dialect(mcpS)).toMatchObject({
        verdict: 'skip',
        message: expect.stringMatching(/never got the tools\/list answer that holds plot/),
      });
      expect(ref(mcpS).verdict).toBe('skip');
    },
    600_000,
  );
});

describe('client-schemas on the AI SDK and mastra', () => {
  const A = (kind: string) =>
    `node ${join(ROOT, 'fixtures/clients/peers/ai-sdk-client.mjs')} ${kind} ${kind === 'stdio' ? '{server}' : '{url}'}`;
  it('the AI SDK takes the 2020-12 schemas and calls locate without fetching its $ref (it validates no result)', async () => {
    const runs = await Promise.all([
      client(['--stdio', A('stdio'), ...S], 300_000),
      client(['--http', A('http'), ...S], 300_000),
    ]);
    for (const r of runs) {
      expect(r.code, nonPass(r).join('\n')).toBe(0);
      expect(dialect(r).verdict).toBe('pass');
      expect(ref(r)).toMatchObject({ verdict: 'pass', message: expect.stringMatching(/called it 1 time/) });
      expect(unledgered('AI SDK', r)).toEqual([]);
    }
  }, 600_000);

  it.skipIf(!node22.node)(
    'mastra takes the 2020-12 schemas; it leaves out the tool whose $ref it cannot resolve, fetching nothing',
    async () => {
      const M = (kind: string) =>
        `${node22.node} ${join(ROOT, 'fixtures/clients/node22/mastra-client.mjs')} ${kind} ${kind === 'stdio' ? '{server}' : '{url}'}`;
      const env = ['--env', `NODE22_MODULES=${node22.modules}`, '--env', 'MASTRA_TELEMETRY_DISABLED=1'];
      const runs = await Promise.all([
        client(['--stdio', M('stdio'), ...env, ...S], 300_000),
        client(['--http', M('http'), ...env, ...S], 300_000),
      ]);
      for (const r of runs) {
        expect(r.code, nonPass(r).join('\n')).toBe(0);
        expect(dialect(r).verdict).toBe('pass');
        expect(ref(r)).toMatchObject({
          verdict: 'pass',
          message: expect.stringMatching(/fetched nothing .*did not call the tool/),
        });
        expect(unledgered('mastra', r)).toEqual([]);
      }
    },
    600_000,
  );
});
