import { mkdirSync, mkdtempSync, readFileSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { describe, expect, it } from 'vitest';
import { ConfigError, configSchema, explicitFlags, findConfig, planRuns } from '../lib/config.js';
import { PROTOCOL_VERSIONS } from '../core/schema/versions.js';
import { REPORTER_NAMES } from '../reports/index.js';

const tmp = () => mkdtempSync(join(tmpdir(), 'mcp-conform-config-'));
/** What yargs gives the run handler when only these flags are on the command line (defaults filled in). */
const DEFAULTS = {
  timeout: 30000,
  strict: false,
  'call-tools': 'safe',
  callTools: 'safe',
  'out-dir': 'mcp-conform-report',
  'shutdown-grace': 2000,
  quiet: false,
  verbose: false,
};

describe('config file', () => {
  it('the schema ships at the package root, and its enums match the code', () => {
    const s = configSchema() as {
      definitions: Record<string, { enum?: string[] }>;
      properties: Record<string, { items?: { enum?: string[] } }>;
    };
    expect(JSON.parse(readFileSync(join(import.meta.dirname, '..', 'config.schema.json'), 'utf8'))).toEqual(s);
    expect(s.definitions.protocolVersion.enum).toEqual([...PROTOCOL_VERSIONS]);
    expect(s.properties.reporters.items!.enum).toEqual(REPORTER_NAMES);
    const pkg = JSON.parse(readFileSync(join(import.meta.dirname, '..', 'package.json'), 'utf8')) as {
      files: string[];
    };
    expect(pkg.files).toContain('config.schema.json');
  });

  it('is found in the current directory as .json or .yaml; two at once is an error', () => {
    const d = tmp();
    expect(findConfig(d)).toBeUndefined();
    writeFileSync(join(d, 'mcp-conform.config.yaml'), 'targets:\n  - stdio: python3 server.py\n');
    expect(findConfig(d)!.file).toBe(join(d, 'mcp-conform.config.yaml'));
    writeFileSync(join(d, 'mcp-conform.config.json'), '{"targets": [{"stdio": "x"}]}');
    expect(() => findConfig(d)).toThrow(/keep one, or choose with --config/);
    expect(findConfig(d, 'mcp-conform.config.json')!.config).toEqual({ targets: [{ stdio: 'x' }] });
  });

  it('is checked against the schema, with messages that name the key', () => {
    const d = tmp();
    const bad = (text: string, name = 'c.yaml') => {
      writeFileSync(join(d, name), text);
      return () => findConfig(d, name);
    };
    expect(bad('targets:\n  - stdio: x\n    timout: 5\n')).toThrow(
      /targets\[0\]\.timout: unknown key; did you mean timeout\?/,
    );
    expect(bad('targets:\n  - stdio: x\ncallTools: some\n')).toThrow(
      /callTools: must be one of "safe", "safe-closed", "all", "none"/,
    );
    expect(bad('suites: [lifecycle]\n')).toThrow(/targets: missing \(it is required\)/);
    expect(bad('targets:\n  - cwd: .\n')).toThrow(ConfigError);
    expect(bad('{"targets": [', 'c.json')).toThrow(/is not valid JSON/);
    expect(() => findConfig(d, 'missing.yaml')).toThrow(/cannot read the config file/);
  });

  it('reads flags given on the command line from the raw arguments', () => {
    expect([
      ...explicitFlags(['run', '--stdio', 'x', '--timeout=5', '--no-strict', '--callTools', 'all', '--', '--quiet']),
    ]).toEqual(['stdio', 'timeout', 'strict', 'call-tools']);
  });
});

describe('planning runs from config and flags', () => {
  const setup = () => {
    const d = tmp();
    mkdirSync(join(d, 'srv'));
    writeFileSync(
      join(d, 'mcp-conform.config.yaml'),
      [
        'targets:',
        '  - name: alpha',
        '    stdio: python3 a.py',
        '    timeout: 5000',
        '    env: { A: "1" }',
        '  - name: beta',
        '    stdio: python3 b.py',
        '    cwd: srv',
        'suites: [lifecycle, listing]',
        'timeout: 10000',
        'strict: true',
        'callTools: none',
        'callTool: [echo, history]',
        'env: { SHARED: yes }',
        'reporters: [json, html]',
        'outDir: out',
        'baseline: known.yaml',
      ].join('\n'),
    );
    return d;
  };

  it('config targets, each with the top level under its own values; paths relative to the config file', () => {
    const d = setup();
    const plan = planRuns({ ...DEFAULTS }, ['run'], d);
    expect(plan.configFile).toBe(join(d, 'mcp-conform.config.yaml'));
    expect(plan.targets.map((t) => t.name)).toEqual(['alpha', 'beta']);
    const [a, b] = plan.targets.map((t) => t.argv);
    expect(a).toMatchObject({
      stdio: 'python3 a.py',
      timeout: 5000,
      strict: true,
      'call-tools': 'none',
      'call-tool': ['echo', 'history'],
      suite: ['lifecycle', 'listing'],
      cwd: d,
      env: ['SHARED=yes', 'A=1'],
    });
    expect(b).toMatchObject({ stdio: 'python3 b.py', timeout: 10000, cwd: join(d, 'srv'), env: ['SHARED=yes'] });
    expect(plan.shared).toMatchObject({
      reporter: ['json', 'html'],
      'out-dir': join(d, 'out'),
      baseline: join(d, 'known.yaml'),
      strict: true,
    });
  });

  it('flags given override the config for every target; --env adds to it', () => {
    const d = setup();
    const plan = planRuns(
      { ...DEFAULTS, timeout: 777, 'call-tools': 'all', callTools: 'all', reporter: ['junit'], env: ['A=2'] },
      ['run', '--timeout', '777', '--call-tools', 'all', '--reporter', 'junit', '--env', 'A=2'],
      d,
    );
    for (const t of plan.targets) expect(t.argv).toMatchObject({ timeout: 777, 'call-tools': 'all', strict: true });
    expect(plan.targets[0].argv.env).toEqual(['SHARED=yes', 'A=1', 'A=2']);
    expect(plan.shared.reporter).toEqual(['junit']);
  });

  it('allVersions and schema in a config become --all-versions and --schema (the path relative to the config file)', () => {
    const d = mkdtempSync(join(tmpdir(), 'mcp-conform-config-'));
    writeFileSync(
      join(d, 'mcp-conform.config.json'),
      JSON.stringify({ targets: [{ stdio: 'python3 a.py', allVersions: true }], schema: 'draft.json' }),
    );
    const plan = planRuns({ ...DEFAULTS }, ['run'], d);
    expect(plan.targets[0]!.argv).toMatchObject({ 'all-versions': true, schema: join(d, 'draft.json') });
  });

  it('a flag default does not override the config (only flags actually given do)', () => {
    const d = setup();
    const plan = planRuns({ ...DEFAULTS }, ['run'], d);
    expect(plan.targets[1].argv.timeout).toBe(10000);
    expect(plan.targets[1].argv['call-tools']).toBe('none');
  });

  it('--stdio on the command line replaces the targets; the rest of the config still applies', () => {
    const d = setup();
    const plan = planRuns({ ...DEFAULTS, stdio: 'node s.js' }, ['run', '--stdio', 'node s.js'], d);
    expect(plan.targets).toHaveLength(1);
    expect(plan.targets[0].name).toBeUndefined();
    expect(plan.targets[0].argv).toMatchObject({
      stdio: 'node s.js',
      timeout: 10000,
      strict: true,
      env: ['SHARED=yes'],
    });
    expect(plan.targets[0].argv.cwd).toBeUndefined(); // a command-line server runs in the current directory
  });

  it('no config: the command line as it is', () => {
    const d = tmp();
    const plan = planRuns({ ...DEFAULTS, stdio: 'x' }, ['run', '--stdio', 'x'], d);
    expect(plan.configFile).toBeUndefined();
    expect(plan.targets).toEqual([{ argv: { ...DEFAULTS, stdio: 'x' } }]);
  });

  it('two targets with one name are an error', () => {
    const d = tmp();
    writeFileSync(
      join(d, 'mcp-conform.config.json'),
      JSON.stringify({
        targets: [
          { name: 'x', stdio: 'a' },
          { name: 'x', stdio: 'b' },
        ],
      }),
    );
    expect(() => planRuns({ ...DEFAULTS }, ['run'], d)).toThrow(/two targets are named "x"/);
  });

  it('HTTP targets carry their URL and headers (an object becomes "Name: value" lines)', () => {
    const d = tmp();
    writeFileSync(
      join(d, 'mcp-conform.config.json'),
      JSON.stringify({ targets: [{ http: 'http://127.0.0.1:1/mcp', header: { 'X-Test': 'one' } }] }),
    );
    const [t] = planRuns({ ...DEFAULTS }, ['run'], d).targets;
    expect(t.argv).toMatchObject({ http: 'http://127.0.0.1:1/mcp', header: ['X-Test: one'] });
    expect(t.argv.cwd).toBeUndefined();
    expect(t.argv.env).toBeUndefined();
  });
});
