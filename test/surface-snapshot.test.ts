/**
 * snapshot → diff end to end on real servers: two releases of a stdlib Python server (fixtures/servers/surface/
 * shop.py), server-everything (stable across two snapshots), run --snapshot / --baseline-snapshot and the GitHub
 * step summary.
 */
import { mkdtempSync, readFileSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { describe, expect, it } from 'vitest';
import type { Snapshot } from '../core/surface/snapshot.js';
import { BIN, cli, FIXTURES, runArgs } from './helpers/cli.js';
import { startServer } from './http-helpers.js';

const tmp = mkdtempSync(join(tmpdir(), 'mcp-conform-surface-'));
const shop = (release: 1 | 2) => `python3 ${join(FIXTURES, 'surface', 'shop.py')} ${release}`;

async function snapshot(args: string[], out: string, env?: Record<string, string>): Promise<string> {
  const r = await cli(['snapshot', ...args, '--out', out], { env });
  expect(r.code, r.stderr).toBe(0);
  return readFileSync(out, 'utf8');
}

describe('snapshot of server-everything (stdio)', () => {
  it('is the same bytes on two runs, with tools, prompts, resources and templates, no volatile field', async () => {
    const cmd = `${join(BIN, 'mcp-server-everything')} stdio`;
    const a = await snapshot(['--stdio', cmd], join(tmp, 'everything-1.json'));
    const b = await snapshot(['--stdio', cmd], join(tmp, 'everything-2.json'));
    expect(a).toBe(b);
    const s = JSON.parse(a) as Snapshot;
    expect(s.snapshotVersion).toBe(1);
    expect(s.server.name).toBeTruthy();
    expect(s.tools!.length).toBeGreaterThan(5);
    expect(s.prompts!.length).toBeGreaterThan(0);
    expect(s.resources!.length).toBeGreaterThan(0);
    expect(s.resourceTemplates!.length).toBeGreaterThan(0);
    expect(s.tools!.map((t) => t.name)).toEqual(
      [...s.tools!.map((t) => t.name as string)].sort((x, y) => (x < y ? -1 : x > y ? 1 : 0)),
    );
    expect(a).not.toContain('"_meta"');
    const d = await cli(['diff', join(tmp, 'everything-1.json'), join(tmp, 'everything-2.json')]);
    expect(d.code).toBe(0);
    expect(d.stdout).toContain('no changes');
  });

  it('over Streamable HTTP gives the same snapshot as over stdio', async () => {
    const server = await startServer([join(BIN, 'mcp-server-everything'), 'streamableHttp'], { portArg: false });
    try {
      const text = await snapshot(['--http', `http://127.0.0.1:${server.port}/mcp`], join(tmp, 'everything-http.json'));
      expect(text).toBe(readFileSync(join(tmp, 'everything-1.json'), 'utf8'));
    } finally {
      await server.stop();
    }
  });
});

describe('two releases of a Python server: snapshot → diff', () => {
  const v1 = join(tmp, 'shop-1.json');
  const v2 = join(tmp, 'shop-2.json');

  it('the snapshot follows every page, leaves out _meta, size and lastModified, and calls no tool', async () => {
    const log = join(tmp, 'requests.log');
    const text = await snapshot(['--stdio', shop(1)], v1, { SHOP_REQUEST_LOG: log });
    const s = JSON.parse(text) as Snapshot;
    expect(s.tools!.map((t) => t.name)).toEqual(['add_to_cart', 'delete_cart', 'get_product', 'search_products']);
    expect(s.prompts!.map((p) => p.name)).toEqual(['compare', 'faq', 'recommend']);
    expect(s.resources!.map((r) => r.uri)).toEqual(['shop://catalog', 'shop://terms']);
    expect(s.resourceTemplates!.map((r) => r.uriTemplate)).toEqual(['shop://product/{id}']);
    expect(s.resources![0]).toEqual({
      annotations: { priority: 0.9 },
      mimeType: 'application/json',
      name: 'catalog',
      uri: 'shop://catalog',
    });
    expect(text).not.toMatch(/_meta|listedAt|lastModified|"size"/);
    const methods = readFileSync(log, 'utf8').trim().split('\n');
    expect(methods).not.toContain('tools/call');
    expect(methods.filter((m) => m === 'tools/list')).toHaveLength(2); // 4 tools, 2 a page
    expect(methods.filter((m) => m === 'prompts/list')).toHaveLength(2);
    // A second snapshot of the same release is the same bytes, although its listings carry fresh timestamps.
    expect(await snapshot(['--stdio', shop(1)], join(tmp, 'shop-1b.json'))).toBe(text);
  });

  it('diff classifies each change of release 2 as the rule table says, and exits 1', async () => {
    await snapshot(['--stdio', shop(2)], v2);
    const r = await cli(['diff', v1, v2, '--format', 'json']);
    expect(r.code).toBe(1);
    const d = JSON.parse(r.stdout) as { changes: { severity: string; rule: string; name: string; path: string }[] };
    expect(d.changes.map((c) => `${c.severity} ${c.rule} ${c.name} ${c.path}`).sort()).toEqual([
      'breaking capability.removed logging /logging',
      'breaking input.required-added search_products /inputSchema/properties/store_id',
      'breaking output.type-changed get_product /outputSchema/properties/price/type',
      'breaking resource.mime-type-changed shop://catalog /mimeType',
      'breaking tool.destructive-gained delete_cart /annotations/destructiveHint',
      'breaking tool.removed add_to_cart ',
      'compatible input.enum-widened search_products /inputSchema/properties/sort/enum',
      'compatible prompt.argument-added recommend /arguments/1',
      'compatible resource.added shop://faq ',
      'compatible tool.added cart_add ',
      'cosmetic server.info shop /server/version',
      'cosmetic tool.text search_products /description',
    ]);
    const back = await cli(['diff', v2, v2]);
    expect(back.code).toBe(0);
    expect(back.stdout).toContain('no changes');
  });

  it('run --snapshot writes the same snapshot; a default run has no surface suite', async () => {
    const viaRun = join(tmp, 'shop-1-run.json');
    const r = await runArgs(['--stdio', shop(1), '--snapshot', viaRun]);
    expect(readFileSync(viaRun, 'utf8')).toBe(readFileSync(v1, 'utf8'));
    expect(r.c('surface/compatible').verdict).toBe('skip');
    // report.json as diff input: the same surface as the snapshot.
    const d = await cli(['diff', v1, join(r.outDir, 'report.json')]);
    expect(d.stdout).toContain('no changes');
    expect(d.code).toBe(0);
    const plain = await runArgs(['--stdio', shop(1)]);
    expect(plain.report.suites.map((s) => s.id)).not.toContain('surface');
    // (Its prompts and resources are listed by the prompts and resources suites, which cover what the server declares.)
    const named = await runArgs(['--stdio', shop(1), '--suite', 'surface']);
    expect(named.c('surface/compatible')).toMatchObject({ verdict: 'skip', message: 'no --baseline-snapshot given' });
    expect(named.report.messages.filter((m) => m.method === 'prompts/list')).toEqual([]);
  });

  it('run --baseline-snapshot: surface/compatible fails on the breaking release with the diff in details and in the step summary', async () => {
    const summary = join(tmp, 'step-summary.md');
    const outDir = mkdtempSync(join(tmp, 'out-'));
    const r = await cli(
      [
        'run',
        '--stdio',
        shop(2),
        '--baseline-snapshot',
        v1,
        '--suite',
        'lifecycle',
        '--reporter',
        'json',
        '--reporter',
        'github',
        '--out-dir',
        outDir,
        '--quiet',
      ],
      { env: { GITHUB_STEP_SUMMARY: summary } },
    );
    expect(r.code).toBe(1);
    const report = JSON.parse(readFileSync(join(outDir, 'report.json'), 'utf8'));
    const c = report.suites
      .flatMap((s: { cases: unknown[] }) => s.cases)
      .find((x: { id: string }) => x.id === 'surface/compatible');
    expect(c.verdict).toBe('fail');
    expect(c.message).toMatch(/^6 breaking, 4 compatible, 2 cosmetic changes against .*shop-1\.json: /);
    expect(c.details.diff.summary).toEqual({ breaking: 6, compatible: 4, cosmetic: 2 });
    expect(report.options.baselineSnapshot).toBe(v1);
    expect(r.stdout).toContain('::error title=mcp-conform%3A surface/compatible (MUST)');
    const md = readFileSync(summary, 'utf8');
    expect(md).toContain('### MCP surface: ❌ 6 breaking changes');
    expect(md).toContain(
      '| tool | `add_to_cart` |  | tool "add\\_to\\_cart" removed: calls to it fail | `tool.removed` |',
    );

    const same = await runArgs(['--stdio', shop(1), '--baseline-snapshot', v1, '--suite', 'listing']);
    expect(same.c('surface/compatible')).toMatchObject({ verdict: 'pass' });
    expect(same.c('surface/compatible').message).toMatch(/^the surface is the same as in /);
    expect(same.report.exitCode).toBe(0);
  });

  it('the config key baselineSnapshot works like the flag (a path relative to the config file)', async () => {
    const dir = mkdtempSync(join(tmp, 'cfg-'));
    writeFileSync(join(dir, 'base.json'), readFileSync(v1, 'utf8'));
    writeFileSync(
      join(dir, 'mcp-conform.config.json'),
      JSON.stringify({ targets: [{ stdio: shop(2), baselineSnapshot: 'base.json', suites: ['surface'] }] }),
    );
    const r = await cli(['run', '--reporter', 'json', '--out-dir', join(dir, 'out'), '--quiet'], { cwd: dir });
    expect(r.code).toBe(1);
    const report = JSON.parse(readFileSync(join(dir, 'out', 'report.json'), 'utf8'));
    expect(report.suites[0].cases[0]).toMatchObject({ id: 'surface/compatible', verdict: 'fail' });
  });

  it('a report.json whose run did not list tools: the tools are not compared, and the diff says so', async () => {
    const r = await runArgs(['--stdio', shop(1), '--suite', 'lifecycle']);
    const d = await cli(['diff', v1, join(r.outDir, 'report.json')]);
    expect(d.code).toBe(0);
    expect(d.stdout).toContain('NEW: tools: the run did not list them (no tools/list in the log): not compared');
    expect(d.stdout).toContain('tools not compared: NEW does not hold a tool listing');
    expect(d.stdout).toContain('prompts not compared');
  });

  it('2026-07-28 (server/discover): protocol version and server info from the discover answer; a report.json of the run gives the same surface', async () => {
    const out = join(tmp, 'calc-all.json');
    const r = await runArgs([
      '--stdio',
      `python3 ${join(FIXTURES, 'calc-all.py')}`,
      '--snapshot',
      out,
      '--suite',
      'listing',
    ]);
    expect(r.report.negotiation?.handshake).toBe('server/discover');
    const s = JSON.parse(readFileSync(out, 'utf8')) as Snapshot;
    expect(s.protocolVersion).toBe('2026-07-28');
    expect(s.server.name).toBe('calc');
    expect(s.tools!.length).toBeGreaterThan(3);
    const d = await cli(['diff', out, join(r.outDir, 'report.json'), '--fail-on', 'compatible']);
    expect(d.stdout).toContain('no changes');
    expect(d.code).toBe(0);
  });

  it('usage errors: an unreadable baseline snapshot, snapshot without a server (exit 2, nothing run)', async () => {
    const r1 = await cli(['run', '--stdio', shop(1), '--baseline-snapshot', join(tmp, 'nope.json'), '--quiet']);
    expect(r1.code).toBe(2);
    expect(r1.stderr).toContain('cannot read');
    const r2 = await cli(['snapshot']);
    expect(r2.code).toBe(2);
    expect(r2.stderr).toContain('needs a server');
    const r3 = await cli(['snapshot', '--stdio', shop(1), '--out', join(tmp, 'no-such-dir', 'x.json')]);
    expect(r3.code).toBe(2);
    expect(r3.stderr).toContain('does not exist');
  });

  it('a server that cannot be listed gives no snapshot and exit 1; a snapshot already there is left as it was', async () => {
    const out = join(tmp, 'kept.json');
    writeFileSync(out, 'the old snapshot');
    const r = await cli([
      'snapshot',
      '--stdio',
      `python3 ${join(FIXTURES, 'broken', 'looping-cursor.py')}`,
      '--out',
      out,
    ]);
    expect(r.code).toBe(1);
    expect(r.stderr).toMatch(/no snapshot taken: tools\/list: .*loop/);
    expect(readFileSync(out, 'utf8')).toBe('the old snapshot');
    const viaRun = await cli([
      'run',
      '--stdio',
      `python3 ${join(FIXTURES, 'broken', 'looping-cursor.py')}`,
      '--snapshot',
      out,
      '--suite',
      'listing',
      '--quiet',
      '--reporter',
      'console',
    ]);
    expect(viaRun.code).toBe(1);
    expect(viaRun.stderr).toContain(`no snapshot written to ${out}`);
    expect(readFileSync(out, 'utf8')).toBe('the old snapshot');
  });
});
