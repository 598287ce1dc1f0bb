/**
 * report.sarif: valid SARIF 2.1.0 (checked against the SARIF 2.1.0 JSON Schema that @microsoft/jest-sarif ships),
 * one rule per case id with its spec link and level, fail → error, warn → warning, nothing for pass/skip/info, and
 * results located where a reader of code scanning can find the target.
 */
import { mkdtempSync, readFileSync, writeFileSync } from 'node:fs';
import { createRequire } from 'node:module';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { describe, expect, it } from 'vitest';
import AjvDraft04Module from 'ajv-draft-04';
import addFormatsModule from 'ajv-formats';
import type { Report } from '../core/results.js';
import { renderSarif } from '../reports/sarif.js';
import { cli, py } from './helpers/cli.js';
import { kase, makeReport } from './helpers/report.js';

const require = createRequire(import.meta.url);
const schema = JSON.parse(
  readFileSync(require.resolve('@microsoft/jest-sarif/lib/schemas/sarif-2.1.0-rtm.5.json'), 'utf8'),
) as Record<string, unknown>;
// The schema's language-tag pattern is no valid regular expression in unicode mode.
// (CommonJS default export, as the other ajv modules are taken here: see core/schema/ajv.ts)
const AjvDraft04 = ((AjvDraft04Module as unknown as { default?: unknown }).default ??
  AjvDraft04Module) as unknown as typeof import('ajv').Ajv;
const ajv = new AjvDraft04({ allErrors: true, strict: false, unicodeRegExp: false });
const addFormats = ((addFormatsModule as unknown as { default?: unknown }).default ?? addFormatsModule) as (
  a: unknown,
) => unknown;
addFormats(ajv);
const validateSarif = ajv.compile(schema);

function expectValid(doc: unknown): void {
  const ok = validateSarif(doc);
  expect(ok ? [] : validateSarif.errors?.map((e) => `${e.instancePath} ${e.message}`)).toEqual([]);
}

interface SarifResult {
  ruleId: string;
  ruleIndex: number;
  level: string;
  message: { text: string };
  locations: {
    physicalLocation: { artifactLocation: { uri: string; uriBaseId?: string }; region?: { startLine: number } };
  }[];
  suppressions?: { kind: string; justification: string }[];
}
interface SarifRule {
  id: string;
  helpUri: string;
  shortDescription: { text: string };
  defaultConfiguration: { level: string };
  properties: { level: string };
}
const runOf = (doc: unknown) =>
  (doc as { runs: { tool: { driver: { rules: SarifRule[] } }; results: SarifResult[] }[] }).runs[0];

describe('report.sarif', () => {
  const report = () =>
    makeReport([
      kase('lifecycle/ping', 'pass'),
      kase('lifecycle/shutdown', 'warn', { level: 'SHOULD', message: 'needed SIGTERM' }),
      kase('listing/tools-list', 'fail', { message: 'bad tools' }),
      kase('listing/output-schema', 'skip'),
      kase('stdio/utf8', 'info'),
      kase('calling/tool/add', 'fail', { level: 'MUST', baselined: true, baselineReason: 'upstream bug #12' }),
    ]);

  it('validates against the SARIF 2.1.0 schema; fail is error, warn is warning, pass/skip/info are left out', () => {
    const doc = renderSarif({ runs: [report()] }, { env: {}, cwd: tmpdir() });
    expectValid(doc);
    // The schema check can fail: a result level SARIF does not know is caught.
    const bad = JSON.parse(JSON.stringify(doc)) as { runs: { results: { level: string }[] }[] };
    bad.runs[0].results[0].level = 'fail';
    expect(validateSarif(bad)).toBe(false);
    const run = runOf(doc);
    expect(run.results.map((r) => [r.ruleId, r.level])).toEqual([
      ['lifecycle/shutdown', 'warning'],
      ['listing/tools-list', 'error'],
      ['calling/tool/add', 'error'],
    ]);
    // One rule per case id met, each with its spec link and level; results point at their rule.
    expect(run.tool.driver.rules.map((r) => [r.id, r.defaultConfiguration.level, r.properties.level])).toEqual([
      ['lifecycle/shutdown', 'warning', 'SHOULD'],
      ['listing/tools-list', 'error', 'MUST'],
      ['calling/tool/add', 'error', 'MUST'],
    ]);
    for (const r of run.tool.driver.rules)
      expect(r.helpUri).toBe('https://modelcontextprotocol.io/specification/2025-11-25/basic');
    for (const r of run.results) expect(run.tool.driver.rules[r.ruleIndex].id).toBe(r.ruleId);
    // A baselined failure is a suppressed error carrying the baseline's reason.
    const known = run.results.find((r) => r.ruleId === 'calling/tool/add')!;
    expect(known.suppressions?.[0]).toMatchObject({ kind: 'external' });
    expect(known.suppressions?.[0].justification).toContain('upstream bug #12');
    expect(run.results.find((r) => r.ruleId === 'listing/tools-list')!.suppressions).toBeUndefined();
  });

  it('a config target is located on the line of its entry in the config file, relative to the checkout', () => {
    const dir = mkdtempSync(join(tmpdir(), 'mcp-conform-sarif-'));
    const config = join(dir, 'mcp-conform.config.yaml');
    writeFileSync(
      config,
      'suites: [lifecycle]\ntargets:\n  - name: first\n    stdio: python3 a.py\n  - name: second\n    http: http://127.0.0.1:1/mcp\n',
    );
    const a = makeReport([kase('lifecycle/ping', 'fail')], { name: 'first' });
    const b = makeReport([kase('lifecycle/ping', 'warn')], { name: 'second' });
    b.target = { name: 'second', transport: 'streamable-http', url: 'http://127.0.0.1:1/mcp' };
    const doc = renderSarif({ runs: [a, b], configFile: config }, { env: { GITHUB_WORKSPACE: dir } });
    expectValid(doc);
    const run = runOf(doc);
    expect(
      run.results.map((r) => [
        r.locations[0].physicalLocation.artifactLocation.uri,
        r.locations[0].physicalLocation.region?.startLine,
      ]),
    ).toEqual([
      ['mcp-conform.config.yaml', 3],
      ['mcp-conform.config.yaml', 5],
    ]);
    expect(run.results[0].locations[0].physicalLocation.artifactLocation.uriBaseId).toBe('%SRCROOT%');
    expect(run.results.map((r) => r.message.text)).toEqual([
      'first: fail message of lifecycle/ping',
      'second: warn message of lifecycle/ping',
    ]);
    // The same case id on two targets is one rule.
    expect(run.tool.driver.rules.map((r) => r.id)).toEqual(['lifecycle/ping']);
  });

  it('without a config: a stdio server at its script, an HTTP server at its URL (no credentials, no query)', () => {
    const dir = mkdtempSync(join(tmpdir(), 'mcp-conform-sarif-'));
    writeFileSync(join(dir, 'server.py'), '');
    const s = makeReport([kase('lifecycle/ping', 'fail')]);
    s.target = { transport: 'stdio', command: 'python3 server.py', argv: ['python3', 'server.py'], cwd: dir };
    const h = makeReport([kase('lifecycle/ping', 'fail')]);
    h.target = { transport: 'streamable-http', url: 'http://user:pw@127.0.0.1:8080/mcp?key=s3cret' };
    const uri = (r: Report) =>
      runOf(renderSarif({ runs: [r] }, { env: { GITHUB_WORKSPACE: dir } })).results[0].locations[0].physicalLocation
        .artifactLocation.uri;
    expect(uri(s)).toBe('server.py');
    expect(uri(h)).toBe('http://127.0.0.1:8080/mcp');
    const npx = makeReport([kase('lifecycle/ping', 'fail')]);
    npx.target = { transport: 'stdio', command: 'npx -y some-server', argv: ['npx', '-y', 'some-server'], cwd: dir };
    expect(uri(npx)).toBe('npx');
    expectValid(renderSarif({ runs: [h] }, { env: {} }));
  });

  it('a real run writes report.sarif: valid, and its results are the fails and warns of report.json', async () => {
    const out = mkdtempSync(join(tmpdir(), 'mcp-conform-sarif-run-'));
    const run = await cli([
      'run',
      '--stdio',
      py('broken/schema-violation.py'),
      '--out-dir',
      out,
      '--reporter',
      'json',
      '--reporter',
      'sarif',
      '--quiet',
    ]);
    expect(run.code, run.stderr).toBe(1);
    const doc = JSON.parse(readFileSync(join(out, 'report.sarif'), 'utf8')) as unknown;
    expectValid(doc);
    const report = JSON.parse(readFileSync(join(out, 'report.json'), 'utf8')) as Report;
    const expected = report.suites
      .flatMap((s) => s.cases)
      .filter((c) => c.verdict === 'fail' || c.verdict === 'warn')
      .map((c) => [c.id, c.verdict === 'fail' ? 'error' : 'warning']);
    expect(expected.length).toBeGreaterThan(0);
    expect(runOf(doc).results.map((r) => [r.ruleId, r.level])).toEqual(expected);
    // The server's script, relative to where the run was started (the repository).
    expect(new Set(runOf(doc).results.map((r) => r.locations[0].physicalLocation.artifactLocation.uri))).toEqual(
      new Set(['fixtures/servers/broken/schema-violation.py']),
    );
  });
});
