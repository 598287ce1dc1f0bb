/**
 * security/resource-escape, security/path-escape, security/ssrf (issue 37 items 4–6): each defect of
 * fixtures/servers/security/files.py is found with the form that shows it, the sound server passes, and the probes are
 * safe — no canary left behind (also when the run is interrupted by SIGINT), the SSRF listener on 127.0.0.1 only and
 * no other address handed to a server, no tool outside the call policy called.
 */
import { describe, expect, it } from 'vitest';
import { spawn } from 'node:child_process';
import { existsSync, lstatSync, mkdirSync, mkdtempSync, readdirSync, readFileSync, writeFileSync } from 'node:fs';
import { request } from 'node:http';
import { tmpdir } from 'node:os';
import { basename, dirname, join } from 'node:path';
import { CLI, FIXTURES, runArgs } from './helpers/cli.js';
import { canariesOnDisk, CanaryError, makeCanaries } from '../core/canaries.js';
import { startCanaryListener } from '../core/canary-listener.js';
import { foldersFromCommandLine, foldersFromRoots, foldersInText, localServer } from '../core/served-folder.js';
import { pathParam, urlParam } from '../suites/security/params.js';
import type { Report } from '../core/results.js';

const FILES = join(FIXTURES, 'security', 'files.py');
const ROOT_DIST = join(dirname(CLI), '..');

/** A served folder with one file, alone in a fresh parent folder (so anything left next to it shows). */
function servedFolder(): string {
  const parent = mkdtempSync(join(tmpdir(), 'mcp-conform-sec-'));
  const served = join(parent, 'served');
  mkdirSync(served);
  writeFileSync(join(served, 'notes.txt'), 'hello\n');
  return served;
}

/** What is next to and inside the served folder besides what the test made. */
function leftovers(served: string): string[] {
  return [
    ...readdirSync(dirname(served))
      .filter((n) => n !== 'served')
      .map((n) => join(dirname(served), n)),
    ...readdirSync(served)
      .filter((n) => n !== 'notes.txt')
      .map((n) => join(served, n)),
  ];
}

/** The verdicts of this file's three cases (the suite has others: test/suites/security.test.ts). */
const mine = (r: { verdicts(prefix: string): Record<string, string> }) =>
  Object.fromEntries(
    Object.entries(r.verdicts('security/')).filter(([id]) => /^security\/(resource-escape|path-escape|ssrf)$/.test(id)),
  );

const security = (served: string, mode = '', extra: string[] = []) =>
  runArgs([
    '--stdio',
    `python3 ${FILES} ${served}`,
    ...(mode ? ['--env', `MODE=${mode}`] : []),
    '--suite',
    'security',
    ...extra,
  ]);

describe('canary files (core/canaries.ts)', () => {
  it('makes a prefix-named sibling, a folder reached by .., and a symlink inside the folder; remove() leaves nothing', () => {
    const served = servedFolder();
    const c = makeCanaries(served);
    expect(basename(c.prefixDir).startsWith('served-')).toBe(true);
    expect(basename(c.outsideDir).startsWith('served')).toBe(false);
    expect(dirname(c.outsideDir)).toBe(dirname(served));
    expect(readFileSync(c.prefix.path, 'utf8')).toContain(c.prefix.token);
    expect(readFileSync(c.outside.path, 'utf8')).toContain(c.outside.token);
    expect(c.prefix.token).not.toBe(c.outside.token);
    expect(lstatSync(c.link!).isSymbolicLink()).toBe(true);
    expect(readFileSync(c.link!, 'utf8')).toContain(c.outside.token);
    expect(canariesOnDisk().length).toBe(3);
    c.remove();
    c.remove(); // idempotent
    expect(leftovers(served)).toEqual([]);
    expect(canariesOnDisk()).toEqual([]);
  });

  it('refuses a folder it cannot put canaries next to, and never writes into a folder it did not make', () => {
    expect(() => makeCanaries('/')).toThrow(CanaryError);
    expect(() => makeCanaries(join(tmpdir(), 'no-such-folder-here'))).toThrow(/not a folder on this machine/);
    const served = servedFolder();
    writeFileSync(join(served, 'notes.txt'), 'hello\n');
    expect(() => makeCanaries(join(served, 'notes.txt'))).toThrow(/not a folder/);
  });
});

describe('the loopback listener (core/canary-listener.ts)', () => {
  it('is bound to 127.0.0.1 and [::1] alone, on ports of its own, and records what reaches it', async () => {
    const l = await startCanaryListener();
    const get = (o: string | { host: string; port: number; path: string; family: 4 | 6 }) =>
      new Promise<string>((resolve) => {
        request(o, (res) => {
          let b = '';
          res.on('data', (d) => (b += d));
          res.on('end', () => resolve(b));
        })
          .on('error', (e) => resolve(`error ${(e as NodeJS.ErrnoException).code ?? ''}`))
          .end();
      });
    try {
      expect(l.host).toBe('127.0.0.1');
      expect(l.port).toBeGreaterThan(0);
      const { url, token } = l.url('fetch');
      expect(new URL(url).hostname).toBe('127.0.0.1');
      expect(await get(url)).toContain(token);
      expect(await l.waitFor(token, 1000)).toBe(true);
      expect(l.hitsFor(token)).toHaveLength(1);
      expect(l.hits[0]!.remote).toMatch(/127\.0\.0\.1$/);
      // [::1] on a port of its own (this machine has IPv6 loopback); the IPv4 port is not open there.
      expect(l.port6).toBeGreaterThan(0);
      const six = l.url('fetch', 6);
      expect(new URL(six.url).hostname).toBe('[::1]');
      expect(await get(six.url)).toContain(six.token);
      expect(l.hitsFor(six.token)[0]!.remote).toBe('::1');
      expect(await get({ host: '::1', port: l.port, path: '/', family: 6 })).toMatch(/^error/);
    } finally {
      await l.close();
    }
    // Closed: nothing listens any more.
    expect(await get(l.url('x').url)).toMatch(/^error ECONNREFUSED/);
  });
});

describe('what the probes take from the run and the tool list', () => {
  it('the served folder: directories on the command line (also --flag=DIR), --cwd, file:// roots, paths in a tool answer', () => {
    const served = servedFolder();
    const local = localServer({
      transport: 'stdio',
      command: 'x',
      argv: ['node', 'server.js', '--verbose', `--root=${served}`],
      cwd: dirname(served),
    });
    expect(typeof local).toBe('object');
    expect(foldersFromCommandLine(local as Exclude<typeof local, string>)).toEqual([
      { path: served, from: "the server's command line" },
      { path: dirname(served), from: '--cwd' },
    ]);
    expect(foldersFromRoots([{ uri: `file://${served}` }, { uri: 'file:///mcp-conform/root' }])).toEqual([
      { path: served, from: 'roots' },
    ]);
    expect(foldersInText(`Allowed directories:\n${served}\n/no/such/dir`, 'tool t').map((f) => f.path)).toEqual([
      served,
    ]);
    expect(localServer({ transport: 'streamable-http', url: 'http://example.test/mcp' })).toMatch(
      /not started by this run/,
    );
  });

  it('a path parameter by name or description, a URL parameter by name or format; look-alike names are not', () => {
    const tool = (properties: Record<string, unknown>, name = 't') => ({
      name,
      inputSchema: { type: 'object', properties },
    });
    expect(pathParam(tool({ path: { type: 'string' } }))?.param).toBe('path');
    expect(pathParam(tool({ paths: { type: 'array', items: { type: 'string' } } }))).toMatchObject({
      param: 'paths',
      array: true,
    });
    expect(pathParam(tool({ where: { type: 'string', description: 'Path of the file to read' } }))?.param).toBe(
      'where',
    );
    expect(pathParam(tool({ sourceFile: { type: 'string' } }))?.param).toBe('sourceFile');
    expect(
      pathParam(
        tool({ profile: { type: 'string' }, query: { type: 'string', description: 'words to look for in files' } }),
      ),
    ).toBeUndefined();
    expect(pathParam(tool({ path: { type: 'number' } }))).toBeUndefined();
    // A listing tool gets the canary folders (a listing that names the canary file is the finding), a reading tool the files.
    expect(pathParam(tool({ path: { type: 'string' } }, 'list_directory'))?.directory).toBe(true);
    expect(pathParam(tool({ path: { type: 'string' } }, 'read_file'))?.directory).toBe(false);
    // server-filesystem 2025.7.1 lists `{}` schemas (its zod-to-json-schema meets zod 4): the name is guessed.
    expect(
      pathParam({ name: 'read_file', inputSchema: { $schema: 'http://json-schema.org/draft-07/schema#' } }),
    ).toMatchObject({ param: 'path', guessed: true });
    expect(pathParam({ name: 'list_allowed_directories', inputSchema: {} })).toBeUndefined();
    expect(urlParam(tool({ url: { type: 'string' } }))?.param).toBe('url');
    expect(urlParam(tool({ data: { type: 'string', format: 'uri' } }))?.param).toBe('data');
    expect(urlParam(tool({ curly: { type: 'string' } }))).toBeUndefined();
    expect(urlParam(tool({ path: { type: 'string' } }))).toBeUndefined();
  });
});

/** Every URL the run's tools/call requests carried, by tool. */
function urlsSent(report: Report): { tool: string; url: string }[] {
  const out: { tool: string; url: string }[] = [];
  for (const m of report.messages) {
    if (m.direction !== 'to-server' || m.method !== 'tools/call') continue;
    const p = (m.json as { params?: { name?: string; arguments?: unknown } }).params;
    for (const u of JSON.stringify(p?.arguments ?? {}).match(/[a-z][a-z0-9+.-]*:\/\/[^"\s\\]*/gi) ?? [])
      out.push({ tool: p?.name ?? '', url: u });
  }
  return out;
}

/** tools/call requests of the named tools. */
const callsOf = (report: Report, names: string[]) =>
  report.messages.filter(
    (m) =>
      m.direction === 'to-server' &&
      m.method === 'tools/call' &&
      names.includes((m.json as { params?: { name?: string } }).params?.name ?? ''),
  );

describe('the sound file server passes, and the probes are safe', () => {
  it('resource-escape, path-escape and ssrf pass; nothing left next to or inside the folder', async () => {
    const served = servedFolder();
    const r = await security(served);
    expect(mine(r)).toEqual({
      'security/resource-escape': 'pass',
      'security/path-escape': 'pass',
      'security/ssrf': 'pass',
    });
    expect(r.c('security/path-escape').message).toMatch(
      /5 calls of read_file .*not called under the call policy: write_note/,
    );
    expect(r.c('security/ssrf').message).toMatch(/no request reached it .*not called under the call policy: post_url/);
    expect(leftovers(served)).toEqual([]);
    // Only the listener's loopback addresses were handed to the server: 127.0.0.1, then [::1] after it was refused.
    const urls = urlsSent(r.report);
    expect(urls.map(({ url }) => new URL(url).hostname)).toEqual(['127.0.0.1', '[::1]']);
    expect(callsOf(r.report, ['write_note', 'post_url'])).toEqual([]);
  });

  it('a default run calls no tool outside the call policy, and hands no server a canary path or the listener through one', async () => {
    const served = servedFolder();
    const r = await runArgs(['--stdio', `python3 ${FILES} ${served}`]);
    expect(mine(r)).toEqual({
      'security/resource-escape': 'pass',
      'security/path-escape': 'pass',
      'security/ssrf': 'pass',
    });
    expect(callsOf(r.report, ['write_note', 'post_url'])).toEqual([]);
    expect(r.report.process.stderr.join('\n')).not.toMatch(/CALLED/);
    expect(leftovers(served)).toEqual([]);
  });

  it('--call-tools all: the calling suite calls the write tools, the security probes still do not hand them canaries or the listener', async () => {
    const served = servedFolder();
    const r = await security(served, '', ['--call-tools', 'all', '--suite', 'calling']);
    const probes = callsOf(r.report, ['write_note', 'post_url']).filter((m) =>
      /mcp-conform-(canary|link|ssrf)|served-/.test(JSON.stringify(m.json)),
    );
    expect(probes).toEqual([]);
    expect(r.c('security/path-escape').message).toMatch(/write_note/);
    expect(leftovers(served)).toEqual([]);
  });

  it('--call-tool NAME opts a write tool in: path-escape then calls it', async () => {
    const served = servedFolder();
    const r = await security(served, '', ['--call-tool', 'write_note', '--case', 'security/path-escape']);
    expect(r.c('security/path-escape').verdict).toBe('pass');
    expect(r.c('security/path-escape').message).toMatch(/calls of read_file, write_note/);
    expect(leftovers(served)).toEqual([]);
  });

  it('finds the served folder through --cwd, or a list_allowed_directories tool', async () => {
    const served = servedFolder();
    const byCwd = await runArgs([
      '--stdio',
      `python3 ${FILES}`,
      '--cwd',
      served,
      '--suite',
      'security',
      '--case',
      'security/path-escape',
    ]);
    expect(byCwd.c('security/path-escape')).toMatchObject({
      verdict: 'pass',
      message: expect.stringContaining(`${served} (from --cwd)`),
    });
    const byTool = await runArgs([
      '--stdio',
      `python3 ${FILES}`,
      '--env',
      `SERVE=${served}`,
      '--suite',
      'security',
      '--case',
      'security/path-escape',
    ]);
    expect(byTool.c('security/path-escape')).toMatchObject({
      verdict: 'pass',
      message: expect.stringContaining(`${served} (from tool list_allowed_directories)`),
    });
    expect(leftovers(served)).toEqual([]);
  });
});

describe('the served folder from roots', () => {
  it('--client-capabilities roots --root: path-escape probes the root (the listing tool left out by --call-tools none)', async () => {
    const served = servedFolder();
    const r = await runArgs([
      '--stdio',
      `python3 ${FILES}`,
      '--env',
      `SERVE=${served}`,
      '--env',
      'MODE=path-prefix',
      '--client-capabilities',
      'roots',
      '--root',
      `file://${served}`,
      '--call-tools',
      'none',
      '--call-tool',
      'read_file',
      '--suite',
      'security',
      '--case',
      'security/path-escape',
    ]);
    expect(r.c('security/path-escape')).toMatchObject({
      verdict: 'fail',
      message: expect.stringContaining(`${served} (from roots)`),
    });
    expect(callsOf(r.report, ['list_allowed_directories'])).toEqual([]);
    expect(leftovers(served)).toEqual([]);
  });
});

describe('each defect is found, by the form that shows it', () => {
  const cases: [string, string, RegExp][] = [
    [
      'prefix-resources',
      'security/resource-escape',
      /resources\/read returned the content of a canary .*"file:\/\/[^"]*\/served-[0-9a-f]+\/canary-[0-9a-f]+\.txt", a sibling folder whose name starts with the served folder's.*CVE-2025-53110/,
    ],
    [
      'path-prefix',
      'security/path-escape',
      /tool read_file \(path\) returned the content of a canary .*"[^"]*\/served-[0-9a-f]+\/canary-[0-9a-f]+\.txt", a sibling folder .*CVE-2025-53110/,
    ],
    [
      'path-dotdot',
      'security/path-escape',
      /tool read_file \(path\) returned .*"[^"]*\/served\/\.\.\/\.mcp-conform-canary-[0-9a-f]+\/canary-[0-9a-f]+\.txt", a path through `\.\.`/,
    ],
    [
      'path-symlink',
      'security/path-escape',
      /tool read_file \(path\) returned .*"[^"]*\/served\/\.mcp-conform-link-[0-9a-f]+", a symlink inside the folder pointing out.*CVE-2025-53109/,
    ],
  ];
  for (const [mode, id, message] of cases) {
    it(`${mode}: ${id} fails, the other cases pass, no canary left`, async () => {
      const served = servedFolder();
      const r = await security(served, mode);
      expect(r.c(id)).toMatchObject({ verdict: 'fail', level: 'MUST', message: expect.stringMatching(message) });
      for (const other of ['security/resource-escape', 'security/path-escape', 'security/ssrf'].filter((x) => x !== id))
        expect(r.c(other).verdict, other).toBe('pass');
      expect(r.code).toBe(1);
      expect(leftovers(served)).toEqual([]);
    });
  }

  it('fetch-any: ssrf warns, naming the tool and the request that reached the listener; only 127.0.0.1 was handed out', async () => {
    const served = servedFolder();
    const r = await security(served, 'fetch-any');
    expect(r.c('security/ssrf')).toMatchObject({
      verdict: 'warn',
      level: 'SHOULD',
      message: expect.stringMatching(
        /^tool fetch fetched a loopback address it was handed: 1 request\(s\) reached a loopback listener the harness ran on 127\.0\.0\.1:\d+ .*GET \/mcp-conform-ssrf-fetch\/[0-9a-f]+ .*its answer carries the listener's text/,
      ),
    });
    expect(mine(r)).toMatchObject({
      'security/resource-escape': 'pass',
      'security/path-escape': 'pass',
    });
    // It fetched 127.0.0.1: no [::1] call followed.
    expect(urlsSent(r.report).map(({ url }) => new URL(url).hostname)).toEqual(['127.0.0.1']);
  });

  it('fetch-v6: a fetch that refuses "127.0.0.1" by its spelling is caught by the [::1] URL', async () => {
    const served = servedFolder();
    const r = await security(served, 'fetch-v6');
    expect(r.c('security/ssrf')).toMatchObject({
      verdict: 'warn',
      message: expect.stringMatching(
        /^tool fetch fetched a loopback address it was handed: 1 request\(s\) reached .*\[::1\]:\d+ for this case only \(GET \/mcp-conform-ssrf-fetch\//,
      ),
    });
    expect(urlsSent(r.report).map(({ url }) => new URL(url).hostname)).toEqual(['127.0.0.1', '[::1]']);
  });
});

describe('canaries are removed when the run is interrupted', () => {
  /** Start a run whose read_file hangs, wait until its canaries are on disk, signal it; its exit code. */
  async function interrupted(signals: number): Promise<{ code: number | null; served: string; seen: string[] }> {
    const served = servedFolder();
    const out = mkdtempSync(join(tmpdir(), 'mcp-conform-sec-int-'));
    const p = spawn(
      process.execPath,
      [
        CLI,
        'run',
        '--stdio',
        `python3 ${FILES} ${served}`,
        '--env',
        'MODE=slow-read',
        '--suite',
        'security',
        '--case',
        'security/path-escape',
        '--out-dir',
        out,
        '--reporter',
        'json',
        '--quiet',
        '--shutdown-grace',
        '500',
      ],
      { stdio: 'ignore' },
    );
    const exited = new Promise<number | null>((r) => {
      const t = setTimeout(() => {
        p.kill('SIGKILL');
        r(null);
      }, 40_000);
      p.once('exit', (c) => {
        clearTimeout(t);
        r(c);
      });
    });
    let seen: string[] = [];
    // All three (the two folders and the link): another process can see them appear one by one.
    for (let i = 0; i < 300 && seen.length < 3; i++) {
      await new Promise((r) => setTimeout(r, 100));
      seen = leftovers(served);
    }
    for (let i = 0; i < signals; i++) {
      p.kill('SIGINT');
      await new Promise((r) => setTimeout(r, 50));
    }
    return { code: await exited, served, seen };
  }

  it('SIGINT while a probe waits: the run stops (exit 130) and every canary is gone', async () => {
    const { code, served, seen } = await interrupted(1);
    expect(seen.length, 'the canaries were made').toBe(3);
    expect(code).toBe(130);
    expect(leftovers(served)).toEqual([]);
    for (const p of seen) expect(existsSync(p)).toBe(false);
  }, 60_000);

  /** A program of its own (no CLI, no handler) that makes canaries and then ends as `how` says; what it left. */
  async function library(
    how: 'exit' | 'throw' | 'SIGINT' | 'SIGTERM',
  ): Promise<{ code: number | null; signal: string | null; left: string[]; made: boolean }> {
    const served = servedFolder();
    const mod = join(ROOT_DIST, 'core', 'canaries.js');
    const script = `import { makeCanaries } from ${JSON.stringify(mod)};
      makeCanaries(${JSON.stringify(served)}); console.log('made');
      ${how === 'exit' ? 'process.exit(3);' : how === 'throw' ? 'setTimeout(() => { throw new Error("boom"); }, 10);' : 'setTimeout(() => {}, 30000);'}`;
    const p = spawn(process.execPath, ['--input-type=module', '-e', script], { stdio: ['ignore', 'pipe', 'ignore'] });
    let made = false;
    p.stdout.on('data', (b: Buffer) => {
      if (!b.toString().includes('made')) return;
      made = leftovers(served).length >= 3;
      if (how === 'SIGINT' || how === 'SIGTERM') p.kill(how);
    });
    const [code, signal] = await new Promise<[number | null, string | null]>((r) => {
      const t = setTimeout(() => {
        p.kill('SIGKILL');
        r([null, 'timeout']);
      }, 20_000);
      p.once('exit', (c, s) => {
        clearTimeout(t);
        r([c, s]);
      });
    });
    return { code, signal, left: leftovers(served), made };
  }

  it('a program that exits, throws, or is ended by SIGINT/SIGTERM with no handler of its own leaves no canary (and still ends by the signal)', async () => {
    const exit = await library('exit');
    expect(exit).toMatchObject({ code: 3, left: [] });
    const thrown = await library('throw');
    expect(thrown).toMatchObject({ code: 1, left: [] });
    for (const sig of ['SIGINT', 'SIGTERM'] as const) {
      const r = await library(sig);
      expect(r, sig).toMatchObject({ made: true, signal: sig, code: null, left: [] });
    }
  }, 60_000);

  it('a second SIGINT (the forced exit): every canary is gone too', async () => {
    const { code, served, seen } = await interrupted(2);
    expect(seen.length).toBe(3);
    expect(code).toBe(130);
    expect(leftovers(served)).toEqual([]);
  }, 60_000);
});
