/**
 * Options are declared once (Suite.options, and the run's own call policy in core/call-policy.ts): the CLI flags, the
 * config keys, config.schema.json and the library options come from, or are checked against, those declarations.
 */
import { mkdtempSync, readFileSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { describe, expect, it } from 'vitest';
import { configSchema } from '../lib/config.js';
import { OptionsError, prepareRun } from '../lib/conformance.js';
import { optionSchema } from '../core/options.js';
import { declaredOptions, RUN_OPTIONS } from '../core/run.js';
import { ALL_SUITES } from '../suites/index.js';
import { cli, py, ROOT } from './helpers/cli.js';

const DECLARED = declaredOptions(ALL_SUITES);

describe('options declared once', () => {
  it('flags and keys are unique, kebab-case and camelCase, and the call policy is a run option', () => {
    expect(new Set(DECLARED.map((o) => o.flag)).size).toBe(DECLARED.length);
    expect(new Set(DECLARED.map((o) => o.key)).size).toBe(DECLARED.length);
    for (const o of DECLARED) {
      expect(o.flag).toMatch(/^[a-z][a-z0-9]*(-[a-z0-9]+)*$/);
      expect(o.key).toBe(o.flag.replace(/-([a-z0-9])/g, (_, c: string) => c.toUpperCase()));
      expect(o.help.length).toBeGreaterThan(10);
    }
    expect(RUN_OPTIONS.map((o) => o.flag)).toEqual([
      'call-tools',
      'call-tool',
      'report-bodies',
      'max-in-flight',
      'identify-as',
    ]);
    expect(ALL_SUITES.find((s) => s.id === 'unknown-tool')!.options!.map((o) => o.flag)).toEqual(['unknown-tool-code']);
  });

  it('run --help shows every declared flag with its help, and every suite id (from ALL_SUITES)', async () => {
    const r = await cli(['run', '--help'], { env: { COLUMNS: '400' } });
    expect(r.code).toBe(0);
    const text = r.stdout.replace(/\s+/g, ' ');
    for (const o of DECLARED) {
      expect(text).toContain(`--${o.flag} `);
      expect(text).toContain(o.help.slice(0, 40));
    }
    const suiteLine = /Suites to run, comma-separated or repeated \(([^)]*)\)/.exec(text);
    expect(suiteLine![1]!.split(', ')).toEqual(ALL_SUITES.map((s) => s.id));
  });

  it('config.schema.json has an entry for every declared option that agrees with its declaration, at the top and in a target', () => {
    const s = configSchema() as {
      definitions: Record<string, Record<string, unknown>>;
      properties: Record<string, unknown>;
    };
    const target = s.definitions.target as { properties: Record<string, unknown> };
    for (const o of DECLARED) {
      const def = s.definitions[o.key];
      expect(def, `definitions.${o.key}`).toBeDefined();
      const want = optionSchema(o);
      if (want.enum) expect(def!.enum).toEqual(want.enum);
      else expect(def!.type).toBe(want.type);
      if (want.items) expect((def!.items as { type: string }).type).toBe((want.items as { type: string }).type);
      expect(s.properties[o.key]).toEqual({ $ref: `#/definitions/${o.key}` });
      expect(target.properties[o.key]).toEqual({ $ref: `#/definitions/${o.key}` });
    }
  });

  it('the library checks a suite option against its declaration and passes it to the run', async () => {
    const p = await prepareRun({ stdio: 'python3 x.py', unknownToolCode: -32601 });
    expect(p.run.optionValues).toEqual({ unknownToolCode: -32601 });
    await expect(prepareRun({ stdio: 'python3 x.py', unknownToolCode: 1.5 })).rejects.toThrow(OptionsError);
    await expect(prepareRun({ stdio: 'python3 x.py', unknownToolCode: 1.5 })).rejects.toThrow(
      /^unknownToolCode must be an integer/,
    );
    await expect(
      prepareRun({ stdio: 'python3 x.py', options: { unknownToolCode: 'x' } }, { flags: true }),
    ).rejects.toThrow(/^--unknown-tool-code must be an integer/);
  });

  it('a config key reaches the suite: unknownToolCode in the config file is demanded, and shown in report.options', async () => {
    const dir = mkdtempSync(join(tmpdir(), 'mcp-conform-options-'));
    const cfg = join(dir, 'c.yaml');
    writeFileSync(cfg, `targets:\n  - stdio: ${py('calc.py')}\nunknownToolCode: -32601\nsuites: [unknown-tool]\n`);
    const r = await cli(['run', '--config', cfg, '--out-dir', dir, '--reporter', 'json', '--quiet'], { cwd: ROOT });
    const report = JSON.parse(readFileSync(join(dir, 'report.json'), 'utf8')) as {
      options: Record<string, unknown>;
      suites: { cases: { id: string; verdict: string; message: string }[] }[];
    };
    expect(report.options.unknownToolCode).toBe(-32601);
    const c = report.suites[0]!.cases[0]!;
    // calc.py answers -32602: the demanded -32601 makes it a fail that names the flag
    expect(c).toMatchObject({ id: 'unknown-tool/call', verdict: 'fail' });
    expect(c.message).toMatch(/--unknown-tool-code demands -32601/);
    expect(r.code).toBe(1);
  });
});
