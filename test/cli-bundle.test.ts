/**
 * The bundled CLI (scripts/bundle.mjs): its commands part is compiled from a V8 code cache made at build time. The
 * cache must fit the build (else every start compiles it all again, silently), and a start whose cache V8 rejects
 * (another Node version, other V8 flags) must work and print the same.
 */
import { execFile } from 'node:child_process';
import { cpSync, mkdtempSync, readFileSync, symlinkSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { pathToFileURL } from 'node:url';
import { describe, expect, it } from 'vitest';
import { tagSource, untagSource } from '../core/schema/code-cache.js';
import { CLI, ROOT, py } from './helpers/cli.js';

function node(
  args: string[],
  env: Record<string, string> = {},
): Promise<{ code: number; stdout: string; stderr: string }> {
  return new Promise((resolve) => {
    execFile(
      process.execPath,
      args,
      { cwd: ROOT, env: { ...process.env, NO_COLOR: '1', ...env }, maxBuffer: 64 * 1024 * 1024, timeout: 60_000 },
      (e, stdout, stderr) => {
        resolve({ code: e ? (typeof e.code === 'number' ? e.code : 1) : 0, stdout, stderr });
      },
    );
  });
}

const loader = pathToFileURL(join(ROOT, 'dist', 'cli', 'cli-loader.js')).href;

describe('the bundled CLI and its code cache', () => {
  it('the code cache in dist/cli is the one of this build: node with default flags compiles from it', async () => {
    const r = await node([
      '--input-type=module',
      '-e',
      `const m = await import(${JSON.stringify(loader)}); console.log(JSON.stringify({ used: m.codeCacheUsed, dispatch: typeof m.dispatch }));`,
    ]);
    expect(r.stderr).toBe('');
    expect(JSON.parse(r.stdout)).toEqual({ used: true, dispatch: 'function' });
  });

  it('with V8 flags that make V8 reject the cache, the CLI prints the same and runs the demo server', async () => {
    const rejected = await node([
      '--max-semi-space-size=32',
      '--input-type=module',
      '-e',
      `const m = await import(${JSON.stringify(loader)}); console.log(m.codeCacheUsed);`,
    ]);
    expect(rejected.stdout.trim()).toBe('false');
    const [cached, uncached] = await Promise.all([
      node([CLI, 'list', '--format', 'json']),
      node(['--max-semi-space-size=32', CLI, 'list', '--format', 'json']),
    ]);
    expect(cached.code).toBe(0);
    expect(uncached.stdout).toBe(cached.stdout);
    const usage = await node(['--max-semi-space-size=32', CLI, 'run', '--stdio', py('calc.py'), '--suite', 'bogus']);
    expect(usage.code).toBe(2);
    expect(usage.stderr).toMatch(/unknown suite "bogus"/);
    const run = await node([
      '--max-semi-space-size=32',
      CLI,
      'run',
      '--stdio',
      py('calc.py'),
      '--suite',
      'lifecycle',
      '--reporter',
      'console',
      '--out-dir',
      mkdtempSync(join(tmpdir(), 'mcp-conform-bundle-')),
    ]);
    expect(run.code).toBe(0);
    expect(run.stdout).toMatch(/\nlifecycle +\d+ pass/);
  });

  it('without require() of ES modules (NODE_OPTIONS=--no-experimental-require-module), every command works as by default', async () => {
    const env = { NODE_OPTIONS: '--no-experimental-require-module' };
    const [plain, flagged] = await Promise.all([
      node([CLI, 'list', '--format', 'json']),
      node([CLI, 'list', '--format', 'json'], env),
    ]);
    expect(flagged.stderr).toBe('');
    expect(flagged.code).toBe(0);
    expect(flagged.stdout).toBe(plain.stdout);
    const usage = await node([CLI, 'run', '--stdio', py('calc.py'), '--suite', 'bogus'], env);
    expect(usage.code).toBe(2);
    expect(usage.stderr).toMatch(/unknown suite "bogus"/);
    const run = await node(
      [
        CLI,
        'run',
        '--stdio',
        py('calc.py'),
        '--suite',
        'lifecycle',
        '--reporter',
        'console',
        '--out-dir',
        mkdtempSync(join(tmpdir(), 'mcp-conform-bundle-')),
      ],
      env,
    );
    expect(run.stderr).not.toMatch(/ERR_REQUIRE_ESM|internal error/);
    expect(run.code).toBe(0);
    expect(run.stdout).toMatch(/\nlifecycle +\d+ pass/);
  });

  it("a cli.cjs of another build (same length: V8 alone would take this build's cache) is compiled without it", async () => {
    // A package folder with this build's CLI.
    const pkg = mkdtempSync(join(tmpdir(), 'mcp-conform-bundle-copy-'));
    for (const dir of ['bin', 'cli']) cpSync(join(ROOT, 'dist', dir), join(pkg, 'dist', dir), { recursive: true });
    cpSync(join(ROOT, 'package.json'), join(pkg, 'package.json'));
    symlinkSync(join(ROOT, 'node_modules'), join(pkg, 'node_modules'), 'dir');
    const copyLoader = pathToFileURL(join(pkg, 'dist', 'cli', 'cli-loader.js')).href;
    const used = async () =>
      (
        await node([
          '--input-type=module',
          '-e',
          `const m = await import(${JSON.stringify(copyLoader)}); console.log(m.codeCacheUsed);`,
        ])
      ).stdout.trim();
    const usage = async () =>
      (await node([join(pkg, 'dist', 'bin', 'mcp-conform.js'), 'run', '--stdio', py('calc.py'), '--suite', 'bogus']))
        .stderr;
    expect(await used()).toBe('true');
    expect(await usage()).toMatch(/unknown suite "bogus"/);
    // cli.cjs as another build would write it (the message of an unknown suite changed to a text of the same length,
    // tagged with its own hash), beside this build's cache.
    const file = join(pkg, 'dist', 'cli', 'cli.cjs');
    const text = readFileSync(file, 'utf8');
    expect(text).toContain('unknown suite "');
    const other = tagSource(untagSource(text).replace('unknown suite "', 'unknown SUITE "'));
    expect(other.length).toBe(text.length);
    writeFileSync(file, other);
    expect(await used()).toBe('false');
    expect(await usage()).toMatch(/unknown SUITE "bogus"/);
  });
});
