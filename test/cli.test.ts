/** The command line itself: help, version, usage errors (exit 2), the case catalogue. */
import { describe, expect, it } from 'vitest';
import { mkdtempSync, readFileSync, statSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { spawn } from 'node:child_process';
import { CLI, cli, py, ROOT } from './helpers/cli.js';

const pkg = JSON.parse(readFileSync(join(ROOT, 'package.json'), 'utf8')) as {
  version: string;
  bin: Record<string, string>;
};

describe('mcp-conform CLI', () => {
  it('a reader that stops early (| head) ends the command quietly with its own exit code, not an internal error', async () => {
    const dir = mkdtempSync(join(tmpdir(), 'mcp-conform-epipe-'));
    const file = join(dir, 'tools.json');
    const tools = Array.from({ length: 400 }, (_, i) => ({
      name: `tool_${i}`,
      description: `Does thing ${i}.`,
      inputSchema: { type: 'object', properties: { a: { type: 'string', description: 'x'.repeat(300) } } },
    }));
    writeFileSync(file, JSON.stringify({ tools }));
    for (const args of [
      ['tools', '--format', 'gemini', '--file', file],
      ['list', '--format', 'json'],
    ]) {
      const child = spawn(process.execPath, [CLI, ...args], { stdio: ['ignore', 'pipe', 'pipe'] });
      let stderr = '';
      child.stderr.on('data', (d) => (stderr += d));
      // Like `head -3`: read the first chunk, then close the pipe.
      child.stdout.once('data', () => child.stdout.destroy());
      const code = await new Promise<number | null | string>((r) => {
        const t = setTimeout(() => {
          child.kill('SIGKILL');
          r('still running');
        }, 30_000);
        child.on('close', (c) => {
          clearTimeout(t);
          r(c);
        });
      });
      expect(stderr, args.join(' ')).not.toMatch(/internal error|EPIPE/);
      // The code the command gives when its output is read to the end.
      expect(code, args.join(' ')).toBe((await cli(args)).code);
      expect(code).toBe(0);
    }
  }, 70_000);

  it('--version prints the package version', async () => {
    const r = await cli(['--version']);
    expect(r.code).toBe(0);
    expect(r.stdout.trim()).toBe(pkg.version);
  });

  it('the bin entry points at the compiled CLI, which is executable (npx runs it directly in this checkout)', () => {
    expect(pkg.bin['mcp-conform']).toBe('dist/bin/mcp-conform.js');
    expect(statSync(join(ROOT, pkg.bin['mcp-conform']!)).mode & 0o111).toBe(0o111);
  });

  it('run --help lists the flags with examples', async () => {
    const r = await cli(['run', '--help']);
    expect(r.code).toBe(0);
    for (const flag of [
      '--stdio',
      '--cwd',
      '--env',
      '--suite',
      '--case',
      '--timeout',
      '--strict',
      '--call-tools',
      '--call-tool',
      '--unknown-tool-code',
      '--reporter',
      '--out-dir',
      '--protocol-version',
      '--quiet',
    ]) {
      expect(r.stdout).toContain(flag);
    }
    expect(r.stdout).toContain('Examples:');
  });

  it.each([
    [['run', '--stdio', 'python3 x.py', '--bogus-flag'], /unknown option --bogus-flag of run/i],
    [['run'], /--stdio/],
    [['frobnicate'], /Unknown argument|command/i],
    [[], /command/i],
    [['run', '--stdio', 'python3 x.py', '--env', 'NOEQUALS'], /--env wants KEY=VALUE/],
    [['run', '--stdio', 'python3 x.py', '--suite', 'lifecycle,bogus'], /unknown suite "bogus"/],
    [['run', '--stdio', 'python3 x.py', '--reporter', 'pdf'], /unknown reporter "pdf"/],
    [['run', '--stdio', 'python3 x.py', '--call-tools', 'some'], /call-tools/],
    [['run', '--stdio', 'python3 x.py', '--protocol-version', '2099-01-01'], /protocol-version/],
    [['run', '--stdio', 'python3 x.py', '--timeout', '0'], /--timeout must be a positive/],
    [['run', '--stdio', 'python3 x.py', '--cwd', '/no/such/dir'], /is not a directory/],
    [['run', '--stdio', 'python3 "unclosed'], /unterminated double quote/],
  ])('usage error %j exits 2 with a clear message', async (args, message) => {
    const r = await cli(args);
    expect(r.code).toBe(2);
    expect(r.stderr).toMatch(message);
    expect(r.stdout).toBe('');
  });

  it('an out-dir that cannot be written is a configuration error (exit 2), found before the server starts', async () => {
    const dir = mkdtempSync(join(tmpdir(), 'mcp-conform-cli-'));
    const file = join(dir, 'a-file');
    writeFileSync(file, 'not a directory');
    const r = await cli(['run', '--stdio', py('calc.py'), '--out-dir', join(file, 'reports'), '--quiet']);
    expect(r.code).toBe(2);
    expect(r.stderr).toMatch(/--out-dir: cannot write reports to .*ENOTDIR/);
  });

  it('list prints every suite and case with level and spec link', async () => {
    const r = await cli(['list']);
    expect(r.code).toBe(0);
    for (const id of [
      'lifecycle/initialize',
      'lifecycle/shutdown',
      'listing/tools-list',
      'calling/tool/<tool>',
      'unknown-tool/call',
      'invalid-params/malformed-call',
      'is-error/well-formed',
      'stdio/stdout-only-messages',
      'schema/from-server/<method>',
    ]) {
      expect(r.stdout).toContain(id);
    }
    expect(r.stdout).toContain('https://modelcontextprotocol.io/specification/2025-11-25/basic/utilities/ping');
    expect(r.stdout).toMatch(/lifecycle\/shutdown\s+SHOULD/);
  });

  it('list --format json names the spec of the version asked for', async () => {
    const r = await cli(['list', '--format', 'json', '--protocol-version', '2025-06-18']);
    expect(r.code).toBe(0);
    const cat = JSON.parse(r.stdout) as {
      suites: { id: string; cases: { id: string; spec: string; level: string }[] }[];
    };
    // The core suites, in the order a run takes them (other suites may stand between them).
    const core = ['lifecycle', 'listing', 'calling', 'unknown-tool', 'invalid-params', 'is-error', 'stdio', 'schema'];
    expect(cat.suites.map((s) => s.id).filter((id) => core.includes(id))).toEqual(core);
    const ping = cat.suites[0]!.cases.find((c) => c.id === 'lifecycle/ping')!;
    expect(ping.spec).toBe('https://modelcontextprotocol.io/specification/2025-06-18/basic/utilities/ping');
    expect(ping.level).toBe('MUST');
  });
});
