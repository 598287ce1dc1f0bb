/**
 * Servers tested from what their authors publish: an MCP registry server.json (run --server-json: a remote over its
 * transport, an npm package started with npx, the file checked as case registry/server-json) and an MCPB bundle's
 * manifest.json (run --manifest: its mcp_config started with ${__dirname} and user_config filled in; suite manifest
 * names each declared tool the server lacks).
 */
import { mkdtempSync, readFileSync, writeFileSync } from 'node:fs';
import { homedir, tmpdir } from 'node:os';
import { dirname, join } from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { serverJsonTarget } from '../core/published/server-json.js';
import type { Report } from '../core/results.js';
import { cli, ROOT } from './helpers/cli.js';
import { brokenHttp, FIXTURES, startServer, type Started } from './http-helpers.js';

const dir = mkdtempSync(join(tmpdir(), 'mcp-conform-published-'));
const write = (name: string, doc: unknown) => {
  const f = join(dir, name);
  writeFileSync(f, JSON.stringify(doc, null, 2));
  return f;
};
const caseOf = (r: Report, id: string) => r.suites.flatMap((s) => s.cases).find((c) => c.id === id);
async function run(args: string[], out: string, env?: Record<string, string>) {
  const r = await cli(['run', ...args, '--out-dir', join(dir, out), '--reporter', 'json', '--quiet'], {
    env,
    timeoutMs: 180_000,
  });
  let report: Report | undefined;
  try {
    report = JSON.parse(readFileSync(join(dir, out, 'report.json'), 'utf8')) as Report;
  } catch {
    /* none written */
  }
  return { ...r, report: report! };
}

const base = {
  $schema: 'https://static.modelcontextprotocol.io/schemas/2025-12-11/server.schema.json',
  name: 'io.github.example/server',
  description: 'A server to test',
  version: '1.0.0',
};
const memoryVersion = (
  JSON.parse(readFileSync(join(ROOT, 'node_modules/@modelcontextprotocol/server-memory/package.json'), 'utf8')) as {
    version: string;
  }
).version;

describe('server.json: which entry, and how it is started', () => {
  const doc = {
    ...base,
    packages: [
      {
        registryType: 'pypi',
        identifier: 'example-server',
        version: '2.1.0',
        runtimeHint: 'uvx-not-installed-here',
        transport: { type: 'stdio' },
        packageArguments: [
          { type: 'named', name: '--port', value: '{port}', variables: { port: { default: '8080' } } },
          { type: 'positional', valueHint: 'root', default: '/data' },
        ],
      },
      {
        registryType: 'oci',
        identifier: 'ghcr.io/example/server',
        version: '2.1.0',
        transport: { type: 'stdio' },
        environmentVariables: [{ name: 'API_TOKEN', isRequired: true, isSecret: true }],
      },
      { registryType: 'npm', identifier: '@example/server', version: '2.1.0', transport: { type: 'stdio' } },
    ],
    remotes: [{ type: 'sse', url: 'https://api.example.com/{tenant}/sse', variables: { tenant: { default: 'acme' } } }],
  };
  const file = write('choice.json', doc);

  it('takes the first package whose runner is on PATH, else the first remote; --server-json-entry picks', () => {
    const env = (path: string) => ({ PATH: path, API_TOKEN: 'from-env-123456' });
    const bin = mkdtempSync(join(tmpdir(), 'mcp-conform-path-'));
    writeFileSync(join(bin, 'docker'), '');
    expect(serverJsonTarget(file, { processEnv: env(bin) }).run.entry).toBe('packages[1]');
    expect(serverJsonTarget(file, { processEnv: env('/nowhere') }).run.entry).toBe('remotes[0]');
    const pypi = serverJsonTarget(file, { entry: 'pypi', processEnv: env('/nowhere') });
    expect(pypi.target.stdio).toEqual(['uvx-not-installed-here', 'example-server==2.1.0', '--port=8080', '/data']);
    const oci = serverJsonTarget(file, { entry: 'packages[1]', processEnv: env('/nowhere') });
    // The secret's value goes to docker's environment, never onto its command line.
    expect(oci.target.stdio).toEqual([
      'docker',
      'run',
      '-i',
      '--rm',
      '-e',
      'API_TOKEN',
      'ghcr.io/example/server:2.1.0',
    ]);
    expect(oci.target.env).toContain('API_TOKEN=from-env-123456');
    expect(serverJsonTarget(file, { entry: '@example/server', processEnv: env('/nowhere') }).target.stdio).toEqual([
      'npx',
      '--yes',
      '@example/server@2.1.0',
    ]);
    expect(serverJsonTarget(file, { entry: 'remotes[0]', processEnv: env('/nowhere') }).target).toEqual({
      sse: 'https://api.example.com/acme/sse',
    });
    expect(() => serverJsonTarget(file, { entry: 'remotes[3]', processEnv: env('/nowhere') })).toThrow(
      /has no such entry \(it has packages\[0\] \(pypi example-server\)/,
    );
    // A required input nothing gives is a usage error naming it.
    expect(() => serverJsonTarget(file, { entry: 'oci', processEnv: { PATH: '/nowhere' } })).toThrow(
      /"API_TOKEN" is required and has no value: give it with --env API_TOKEN=VALUE/,
    );
  });

  it("named arguments as mongodb-mcp-server publishes them: an optional one without a value is left out, not passed bare; a required one says how to give it (with the file's schema verdict)", async () => {
    // The shape of mongodb-mcp-server's server.json (1.2.0): optional named packageArguments with no value. Passed as
    // bare flags they stopped the server at once ("Invalid transport:"); a client that has not asked for them omits them.
    const named = write('named.json', {
      ...base,
      packages: [
        {
          registryType: 'npm',
          identifier: 'mongodb-mcp-server',
          version: '1.2.0',
          transport: { type: 'stdio' },
          packageArguments: [
            { type: 'named', name: '--transport', description: 'stdio or http' },
            { type: 'named', name: '--readOnly', value: 'true' },
            { type: 'named', name: '--connectionString', isRequired: true, isSecret: true },
          ],
        },
        {
          registryType: 'npm',
          identifier: '@cyanheads/git-mcp-server',
          version: '2.15.1',
          runtimeHint: 'bun',
          transport: { type: 'stdio' },
        },
      ],
    });
    const env = { PATH: '/nowhere' };
    expect(() => serverJsonTarget(named, { processEnv: env })).toThrow(
      /"connectionString" is required and has no value: give it with --env connectionString=VALUE/,
    );
    const r = serverJsonTarget(named, { processEnv: env, env: ['connectionString=mongodb://127.0.0.1:1/x'] });
    expect(r.target.stdio).toEqual([
      'npx',
      '--yes',
      'mongodb-mcp-server@1.2.0',
      '--readOnly=true',
      '--connectionString=mongodb://127.0.0.1:1/x',
    ]);
    // The usage error keeps the file's schema verdict: on the command line, exit 2 with both.
    const cli1 = await cli(['run', '--server-json', named], { env: { PATH: `/nowhere:${dirname(process.execPath)}` } });
    expect(cli1.code).toBe(2);
    expect(cli1.stderr).toMatch(
      /"connectionString" is required and has no value[\s\S]*registry\/server-json \(the file itself\): pass: it fits https:\/\//,
    );
    const broken = write('named-broken.json', { ...JSON.parse(readFileSync(named, 'utf8')), version: 7 });
    const cli2 = await cli(['run', '--server-json', broken], {
      env: { PATH: `/nowhere:${dirname(process.execPath)}` },
    });
    expect(cli2.code).toBe(2);
    expect(cli2.stderr).toMatch(/registry\/server-json \(the file itself\): fail: it does not fit .*version/);
    // Given by name, an optional one is passed.
    expect(
      serverJsonTarget(named, { processEnv: env, env: ['connectionString=x', 'transport=stdio'] }).target.stdio,
    ).toContain('--transport=stdio');
    // --yes is npx's answer to its install prompt, not another runner's.
    expect(serverJsonTarget(named, { entry: 'packages[1]', processEnv: env }).target.stdio).toEqual([
      'bun',
      '@cyanheads/git-mcp-server@2.15.1',
    ]);
  });
});

describe('run --server-json', () => {
  let http: Started;
  beforeAll(async () => {
    http = await startServer(['python3', brokenHttp, 'good']);
  });
  afterAll(async () => {
    await http?.stop();
  });

  it('a remote: tested over its transport, the header placeholder filled from --env, the file checked', async () => {
    const file = write('remote.json', {
      ...base,
      remotes: [
        {
          type: 'streamable-http',
          url: 'http://127.0.0.1:{port}/mcp',
          variables: { port: { default: String(http.port) } },
          headers: [{ name: 'X-Api-Key', value: 'Key {API_KEY}', isSecret: true }],
        },
      ],
    });
    const r = await run(
      ['--server-json', file, '--env', 'API_KEY=s3cret-key-value-123', '--suite', 'lifecycle'],
      'remote',
    );
    expect(r.code, r.stderr).toBe(0);
    expect(r.report.target).toMatchObject({ transport: 'streamable-http', url: `http://127.0.0.1:${http.port}/mcp` });
    expect(Object.keys(r.report.target.headers ?? {})).toEqual(['X-Api-Key']);
    expect(JSON.stringify(r.report)).not.toContain('s3cret-key-value-123');
    expect(caseOf(r.report, 'registry/server-json')).toMatchObject({ verdict: 'pass' });
    expect(caseOf(r.report, 'registry/server-json')!.message).toContain(
      `tested remotes[0]: streamable-http http://127.0.0.1:${http.port}/mcp with header X-Api-Key`,
    );
    // Without the placeholder's value: a usage error that names it.
    const missing = await cli(['run', '--server-json', file, '--suite', 'lifecycle', '--quiet'], {
      env: { API_KEY: '' },
    });
    expect(missing.code).toBe(2);
    expect(missing.stderr).toContain('nothing fills the placeholder {API_KEY}');
  });

  it('from a config file: serverJson relative to it, --env from its env, beside another target at --concurrency 2', async () => {
    write('remote-2.json', {
      ...base,
      remotes: [
        {
          type: 'streamable-http',
          url: `http://127.0.0.1:${http.port}/mcp`,
          headers: [{ name: 'X-Api-Key', value: '{API_KEY}' }],
        },
      ],
    });
    const cfg = join(dir, 'fleet.yaml');
    writeFileSync(
      cfg,
      [
        'suites: [lifecycle]',
        'concurrency: 2',
        'env: { API_KEY: from-config-0123456789 }',
        'targets:',
        '  - name: published',
        '    serverJson: remote-2.json',
        '  - name: calc',
        `    stdio: python3 ${join(FIXTURES, 'calc.py')}`,
      ].join('\n'),
    );
    const r = await cli(
      ['run', '--config', cfg, '--out-dir', join(dir, 'fleet-out'), '--reporter', 'json', '--quiet'],
      { timeoutMs: 180_000 },
    );
    expect(r.code, r.stderr).toBe(0);
    const doc = JSON.parse(readFileSync(join(dir, 'fleet-out', 'report.json'), 'utf8')) as { runs: Report[] };
    expect(doc.runs.map((x) => [x.target.name, x.target.transport])).toEqual([
      ['published', 'streamable-http'],
      ['calc', 'stdio'],
    ]);
    expect(caseOf(doc.runs[0], 'registry/server-json')?.verdict).toBe('pass');
    expect(caseOf(doc.runs[1], 'registry/server-json')).toBeUndefined();
  });

  it('an npm package: started with npx (found offline, installed here), its environment variables set', async () => {
    const file = write('memory.json', {
      ...base,
      name: 'io.github.modelcontextprotocol/server-memory',
      packages: [
        {
          registryType: 'npm',
          identifier: '@modelcontextprotocol/server-memory',
          version: memoryVersion,
          transport: { type: 'stdio' },
          environmentVariables: [
            { name: 'MEMORY_FILE_PATH', value: '{dir}/memory.jsonl', variables: { dir: { default: dir } } },
          ],
        },
      ],
    });
    const r = await run(['--server-json', file, '--suite', 'lifecycle,listing'], 'memory', {
      npm_config_offline: 'true',
    });
    expect(r.code, r.stderr).toBe(0);
    expect(r.report.target.argv).toEqual(['npx', '--yes', `@modelcontextprotocol/server-memory@${memoryVersion}`]);
    expect(caseOf(r.report, 'lifecycle/initialize')?.verdict).toBe('pass');
    expect(r.report.server.toolCount).toBeGreaterThan(0);
    expect(caseOf(r.report, 'registry/server-json')?.verdict).toBe('pass');
  });

  it("a package that cannot be fetched fails its target with the installer's message; the file is still judged", async () => {
    const file = write('missing.json', {
      ...base,
      packages: [
        {
          registryType: 'npm',
          identifier: '@mcp-conform-fixtures/no-such-server',
          version: '1.0.0',
          transport: { type: 'stdio' },
        },
      ],
    });
    const r = await run(['--server-json', file, '--suite', 'lifecycle'], 'missing', { npm_config_offline: 'true' });
    expect(r.code).toBe(1);
    const init = caseOf(r.report, 'lifecycle/initialize')!;
    expect(init.verdict).toBe('fail');
    expect(init.message).toMatch(/npm error code ENOTCACHED/);
    expect(caseOf(r.report, 'registry/server-json')?.verdict).toBe('pass');
    // The fetch before the start (core/published/fetch.ts) failed the same way, and the file's case says so.
    expect(caseOf(r.report, 'registry/server-json')?.message).toMatch(
      /fetching the package with npx first failed \(exit 1\): npm error/,
    );
  });

  it('the package fetch before the start is bounded and ends its whole process group; a runner that is not there is no crash', async () => {
    const { fetchPackage } = await import('../core/published/fetch.js');
    const slow = await fetchPackage(['sh', '-c', 'sleep 30 & sleep 30'], { env: process.env, timeoutMs: 300 });
    expect(slow.timedOut).toBe(true);
    expect(slow.ms).toBeLessThan(10_000);
    expect(() => process.kill(-slow.pgid!, 0)).toThrow(); // no process of the group is left
    const ok = await fetchPackage(['node', '-e', 'console.log("cached")'], { env: process.env });
    expect(ok).toMatchObject({ code: 0, timedOut: false, output: 'cached\n' });
    const none = await fetchPackage(['mcp-conform-no-such-runner'], { env: process.env });
    expect(none).toMatchObject({ code: null, timedOut: false, output: expect.stringContaining('ENOENT') });
  });

  it('a server.json that does not fit the registry schema fails registry/server-json, naming where; the server is still tested', async () => {
    const file = write('invalid.json', {
      name: 'no-namespace',
      version: '1.0.0',
      packages: [
        {
          registryType: 'npm',
          identifier: '@modelcontextprotocol/server-memory',
          version: 'latest',
          transport: { type: 'stdio' },
        },
      ],
    });
    const r = await run(['--server-json', file, '--suite', 'lifecycle', '--server-json-entry', 'npm'], 'invalid', {
      npm_config_offline: 'true',
    });
    const c = caseOf(r.report, 'registry/server-json')!;
    expect(c.verdict).toBe('fail');
    expect(c.message).toContain("(top level): must have required property 'description'");
    expect(c.message).toContain('/name: must match pattern');
    expect(c.message).toContain('/packages/0/version: must NOT be valid');
    expect(caseOf(r.report, 'lifecycle/initialize')).toBeDefined();
  });

  it('a file that is not JSON, or both --server-json and --stdio: usage errors', async () => {
    writeFileSync(join(dir, 'broken.json'), '{ nope');
    const a = await cli(['run', '--server-json', join(dir, 'broken.json')]);
    expect(a.code).toBe(2);
    expect(a.stderr).toContain('is not valid JSON');
    const b = await cli(['run', '--server-json', join(dir, 'memory.json'), '--stdio', 'python3 x.py']);
    expect(b.code).toBe(2);
    expect(b.stderr).toContain('--server-json says how to start or reach the server: leave out --stdio');
  });
});

describe('run --manifest (MCPB)', () => {
  const manifest = join(FIXTURES, '..', 'mcpb', 'calc', 'manifest.json');

  it("starts the bundle's server (${__dirname}, user_config default), and manifest/tools fails naming the tool the server lacks", async () => {
    const r = await run(['--manifest', manifest, '--suite', 'lifecycle'], 'mcpb');
    expect(r.code).toBe(1);
    expect(r.report.target.argv).toEqual(['python3', join(FIXTURES, '..', 'mcpb', 'calc', 'server', 'calc.py')]);
    expect(caseOf(r.report, 'lifecycle/initialize')?.verdict).toBe('pass'); // the bundle's server exits at once without its user_config
    expect(caseOf(r.report, 'manifest/schema')).toMatchObject({ verdict: 'pass' });
    expect(caseOf(r.report, 'manifest/tools')).toMatchObject({
      verdict: 'fail',
      message: 'the manifest declares a tool the server does not list: "sqrt"',
    });
    expect(r.report.suites.filter((s) => s.cases.some((c) => c.verdict === 'fail')).map((s) => s.id)).toEqual([
      'manifest',
    ]);
  });

  it("a dual-era server: the file case manifest/schema counts once (the first era's), the session cases once per era", async () => {
    const doc = JSON.parse(readFileSync(manifest, 'utf8')) as { server: { mcp_config: { args: string[] } } };
    doc.server.mcp_config.args = [join(FIXTURES, 'calc-all.py')];
    const file = write('manifest-dual.json', doc);
    const r = await run(['--manifest', file, '--suite', 'lifecycle'], 'mcpb-dual');
    expect(r.report.eras?.map((e) => e.protocolVersion)).toHaveLength(2);
    const all = r.report.suites.flatMap((s) => s.cases);
    expect(all.filter((c) => c.id === 'manifest/schema')).toHaveLength(1);
    expect(all.find((c) => c.id === 'manifest/schema')).toMatchObject({
      ofFile: true,
      protocolVersion: r.report.eras![0]!.protocolVersion,
    });
    expect(all.filter((c) => c.id === 'lifecycle/initialize' || c.id === 'manifest/tools').length).toBeGreaterThan(2); // session cases: in each era
    const counted = r.report.eras!.reduce((n, e) => n + e.summary.total, 0);
    expect(counted).toBe(r.report.summary.total);
  });

  it('an undeclared tool is named too; a manifest that breaks its schema fails manifest/schema; unknown user_config is a usage error', async () => {
    const doc = JSON.parse(readFileSync(manifest, 'utf8')) as {
      tools: { name: string }[];
      author?: unknown;
      server: { mcp_config: { args: string[] } };
    };
    doc.tools = doc.tools.filter((t) => t.name !== 'sqrt' && t.name !== 'history');
    delete doc.author;
    doc.server.mcp_config.args = [join(FIXTURES, '..', 'mcpb', 'calc', 'server', 'calc.py')];
    const file = write('manifest.json', doc);
    const r = await run(['--manifest', file, '--suite', 'lifecycle', '--user-config', 'precision=2'], 'mcpb-2');
    expect(caseOf(r.report, 'manifest/tools')).toMatchObject({
      verdict: 'fail',
      message: expect.stringContaining('the server lists a tool the manifest does not declare: "history"'),
    });
    const schema = caseOf(r.report, 'manifest/schema')!;
    expect(schema.verdict).toBe('fail');
    expect(schema.message).toContain("must have required property 'author'");
    const bad = await cli(['run', '--manifest', file, '--user-config', 'colour=red']);
    expect(bad.code).toBe(2);
    expect(bad.stderr).toContain('--user-config colour: ');
  });

  it("user_config as MCPB hosts fill it: a list expands to arguments, an optional one without a value stays as written, the user's folders, commas kept", async () => {
    // The calc bundle with a mcp_config of the kinds real bundles use (mcpb's file-system-node and hello-world-node
    // examples): a `multiple` directory list, an optional file without a default, ${DOCUMENTS}, an env value.
    const doc = JSON.parse(readFileSync(manifest, 'utf8')) as {
      server: { mcp_config: { args: string[]; env: Record<string, string> } };
      user_config: Record<string, unknown>;
    };
    doc.server.mcp_config.args = [
      join(FIXTURES, '..', 'mcpb', 'calc', 'server', 'calc.py'),
      '${user_config.dirs}',
      '--config=${user_config.config_file}',
      '--workspace=${user_config.workspace}',
    ];
    doc.server.mcp_config.env = { CALC_PRECISION: '${user_config.precision}', TAGS: '${user_config.tags}' };
    doc.user_config = {
      ...doc.user_config,
      dirs: {
        type: 'directory',
        title: 'Directories',
        description: 'Allowed directories',
        multiple: true,
        required: true,
        default: [],
      },
      config_file: { type: 'file', title: 'Config file', description: 'Optional', required: false },
      workspace: { type: 'directory', title: 'Workspace', description: 'Where to work', default: '${DOCUMENTS}/ws' },
      tags: { type: 'string', title: 'Tags', description: 'Comma-separated', default: 'x' },
    };
    const file = write('manifest-user-config.json', doc);
    // A required list whose default is empty has no value: a usage error naming it (before: started with an empty argument).
    const none = await cli(['run', '--manifest', file]);
    expect(none.code).toBe(2);
    expect(none.stderr).toContain('user_config "dirs" is required and has no value');
    const r = await run(
      [
        '--manifest',
        file,
        '--suite',
        'lifecycle',
        '--user-config',
        'dirs=/srv/a',
        '--user-config',
        'dirs=/srv/b,c',
        '--user-config',
        'tags=red,green',
        '--env',
        'EXTRA=1,2',
      ],
      'mcpb-user-config',
    );
    expect(r.code).toBe(1); // manifest/tools: sqrt, as in the first test
    expect(r.report.target.argv).toEqual([
      'python3',
      join(FIXTURES, '..', 'mcpb', 'calc', 'server', 'calc.py'),
      '/srv/a',
      '/srv/b,c',
      '--config=${user_config.config_file}',
      `--workspace=${join(homedir(), 'Documents')}/ws`,
    ]);
    expect(caseOf(r.report, 'lifecycle/initialize')?.verdict).toBe('pass');
    expect(caseOf(r.report, 'manifest/schema')?.message).toContain(
      'user_config "config_file" has no value (optional, no default)',
    );
    // A key that takes one value, given twice: a usage error.
    const twice = await cli([
      'run',
      '--manifest',
      file,
      '--user-config',
      'dirs=/srv/a',
      '--user-config',
      'tags=a',
      '--user-config',
      'tags=b',
    ]);
    expect(twice.code).toBe(2);
    expect(twice.stderr).toContain('--user-config tags is given 2 times');
    // From a config file: a list for the multiple one (config.schema.json allows it), a value with a comma.
    const cfg = join(dir, 'bundle.yaml');
    writeFileSync(
      cfg,
      [
        'targets:',
        '  - name: bundle',
        '    manifest: manifest-user-config.json',
        '    userConfig: { dirs: [/srv/x, "/srv/y,z"], tags: "a,b" }',
        'suites: [lifecycle]',
      ].join('\n'),
    );
    const fromConfig = await cli([
      'run',
      '--config',
      cfg,
      '--out-dir',
      join(dir, 'bundle-out'),
      '--reporter',
      'json',
      '--quiet',
    ]);
    const bundle = JSON.parse(readFileSync(join(dir, 'bundle-out', 'report.json'), 'utf8')) as Report;
    expect(fromConfig.code, fromConfig.stderr).toBe(1); // manifest/tools: sqrt
    expect(bundle.target.argv?.slice(2, 4)).toEqual(['/srv/x', '/srv/y,z']);
  });
});
