/**
 * The stdio proxy of `record --stdio` (and `serve` over stdio) exits when its stdin ends: cassette written, upstream
 * ended, "Cassette: …" printed, exit 0, within a bounded time, every time. Regression: a client that reused a request
 * id while the first request was in flight (robustness/duplicate-id) left a request waiting 30 s for an answer the
 * upstream had already given to the other one, and the harness had to SIGTERM the proxy (lifecycle/shutdown not a
 * pass, no final line). Also `record --stdio` and `record --http` on SIGTERM.
 */
import { spawn, type ChildProcess } from 'node:child_process';
import { mkdtempSync, readFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { PassThrough } from 'node:stream';
import { afterAll, describe, expect, it } from 'vitest';
import { parseCassette, type Cassette } from '../core/formats/cassette.js';
import { CassetteRecorder, ProxySource } from '../mocks/proxy.js';
import { Redactor } from '../core/redact.js';
import { serveStdio } from '../mocks/stdio.js';
import { CLI, FIXTURES, ROOT, run } from './helpers/cli.js';

const dir = mkdtempSync(join(tmpdir(), 'mcp-record-exit-'));
const CALC = `python3 ${join(FIXTURES, 'calc.py')}`;
const started: ChildProcess[] = [];

afterAll(() => {
  for (const p of started) if (p.exitCode === null && p.signalCode === null) p.kill('SIGKILL');
});

const init = (id: number) =>
  JSON.stringify({
    jsonrpc: '2.0',
    id,
    method: 'initialize',
    params: {
      protocolVersion: '2025-11-25',
      capabilities: {},
      clientInfo: { name: 'record-exit-test', version: '1.0.0' },
    },
  });
const ping = (id: number) => JSON.stringify({ jsonrpc: '2.0', id, method: 'ping' });
const key = (m: { message?: unknown; raw?: string }) => (m.message !== undefined ? JSON.stringify(m.message) : m.raw!);

function readCassetteFile(file: string): Cassette {
  return parseCassette(readFileSync(file, 'utf8'), file);
}

/** Feeds lines to serveStdio with a proxy in front of `upstream`; ends the input; resolves with what came out. */
async function proxyOnce(upstream: string, lines: string[], out: string, timeoutMs?: number) {
  const recorder = new CassetteRecorder(out, 'record-stdio', 'stdio', new Redactor({}));
  const source = new ProxySource({ spec: upstream, timeoutMs }, recorder);
  const input = new PassThrough();
  const output = new PassThrough();
  let text = '';
  output.on('data', (b: Buffer) => {
    text += b.toString();
  });
  const t0 = Date.now();
  const served = serveStdio(source, input, output);
  input.end(lines.map((l) => l + '\n').join('')); // all in one chunk: every request is in flight at once
  await served;
  await source.close();
  const ms = Date.now() - t0;
  const answers = text
    .split('\n')
    .filter((l) => l.trim())
    .map((l) => JSON.parse(l) as { id?: unknown; result?: unknown; error?: { message: string } });
  return { answers, ms, cassette: readCassetteFile(out) };
}

describe('the stdio proxy on stdin end (in process)', () => {
  it('answers both requests that share an id, and ends at once', async () => {
    const r = await proxyOnce(CALC, [init(1), ping(13), ping(13), ping(14)], join(dir, 'dup.jsonl'));
    expect(r.answers.filter((a) => a.id === 13 && a.result)).toHaveLength(2);
    expect(r.answers.find((a) => a.id === 14)?.result).toBeDefined();
    expect(r.ms).toBeLessThan(3000); // not the 30 s upstream timeout
    const fromServer = r.cassette.messages
      .filter((m) => m.dir === 'from-server')
      .map((m) => (m.message as { id?: unknown }).id);
    expect(fromServer.filter((id) => id === 13)).toHaveLength(2);
    expect(r.cassette.messages.filter((m) => m.dir === 'to-server')).toHaveLength(4);
    expect(r.cassette.header.server?.serverInfo).toMatchObject({ name: 'calc' });
  }, 20_000);

  it('an upstream that never answers and exits at stdin end: the request gets an error at once', async () => {
    const silent = `python3 -c "import sys\nfor _ in sys.stdin: pass"`;
    const r = await proxyOnce(silent, [init(1)], join(dir, 'silent.jsonl'), 30_000);
    expect(r.answers).toHaveLength(1);
    expect(r.answers[0]!.error?.message).toMatch(/upstream: the server exited/);
    expect(r.ms).toBeLessThan(3000);
  }, 20_000);

  it('an upstream that ignores stdin end and SIGTERM: ended by SIGKILL, bounded', async () => {
    const stubborn = `python3 -c "import signal,time\nsignal.signal(signal.SIGTERM, signal.SIG_IGN)\ntime.sleep(60)"`;
    const r = await proxyOnce(stubborn, [init(1)], join(dir, 'stubborn.jsonl'), 30_000);
    expect(r.answers).toHaveLength(1);
    expect(r.answers[0]!.error).toBeDefined();
    expect(r.ms).toBeLessThan(6000); // 1.5 s stdin, 1.5 s SIGTERM, then SIGKILL
  }, 20_000);
});

describe('record --stdio run as a server by the harness (lifecycle + robustness)', () => {
  const RUNS = 5;
  for (let i = 1; i <= RUNS; i++) {
    it(`run ${i}/${RUNS}: exits on stdin end, cassette complete`, async () => {
      const out = join(dir, `rec-${i}.jsonl`);
      const proxy = `node ${CLI} record --stdio '${CALC}' --out ${out}`;
      const r = await run(proxy, ['--suite', 'lifecycle,robustness'], { timeoutMs: 60_000, cwd: ROOT });
      const shutdown = r.c('lifecycle/shutdown');
      expect(shutdown.verdict, shutdown.message).toBe('pass');
      expect(r.report.process?.shutdown).toBe('exited');
      expect(r.report.process?.exitCode).toBe(0);
      expect(r.c('robustness/duplicate-id').verdict).toBe('pass');
      const stderr = r.report.process?.stderr ?? [];
      const line = stderr.find((l) => l.startsWith('Cassette: '));
      expect(line, stderr.join('\n')).toBe(`Cassette: ${out} (${r.report.messages.length} messages)`);
      const c = readCassetteFile(out);
      expect(c.messages).toHaveLength(r.report.messages.length);
      // What the harness sent and received is what the cassette holds (the second connection is another process).
      const ofReport = (dir: string) =>
        r.report.messages
          .filter((m) => m.direction === dir)
          .map((m) => {
            try {
              return JSON.stringify(JSON.parse(m.raw));
            } catch {
              return m.raw;
            }
          })
          .sort();
      expect(
        c.messages
          .filter((m) => m.dir === 'to-server')
          .map(key)
          .sort(),
      ).toEqual(ofReport('to-server'));
      expect(
        c.messages
          .filter((m) => m.dir === 'from-server')
          .map(key)
          .sort(),
      ).toEqual(ofReport('from-server'));
    }, 60_000);
  }
});

describe('serve over stdio run as a server by the harness', () => {
  for (const [name, cmd] of [
    ['passthrough', `node ${CLI} serve --mode passthrough --upstream '${CALC}'`],
    ['fixture', `node ${CLI} serve --fixture ${join(ROOT, 'fixtures/mocks/calc.yaml')}`],
  ] as const) {
    it(`${name}: exits on stdin end`, async () => {
      const r = await run(cmd, ['--suite', 'lifecycle,robustness'], { timeoutMs: 60_000, cwd: ROOT });
      const shutdown = r.c('lifecycle/shutdown');
      expect(shutdown.verdict, shutdown.message).toBe('pass');
      expect(r.report.process?.shutdown).toBe('exited');
    }, 60_000);
  }
});

/** Starts the CLI; resolves once stderr matches `ready`. */
function startCli(
  args: string[],
  ready: RegExp,
): Promise<{ p: ChildProcess; m: RegExpExecArray; stderr: () => string }> {
  const p = spawn(process.execPath, [CLI, ...args], { cwd: ROOT, stdio: ['pipe', 'pipe', 'pipe'] });
  started.push(p);
  let err = '';
  p.stderr!.on('data', (d: Buffer) => {
    err += d.toString();
  });
  p.stdout!.resume();
  return new Promise((res, rej) => {
    const timer = setTimeout(() => {
      p.kill('SIGKILL');
      rej(new Error(`not ready: ${err}`));
    }, 15_000);
    const check = () => {
      const m = ready.exec(err);
      if (m) {
        clearTimeout(timer);
        p.stderr!.off('data', check);
        res({ p, m, stderr: () => err });
      }
    };
    p.stderr!.on('data', check);
    check();
  });
}

function exited(
  p: ChildProcess,
  ms: number,
): Promise<{ code: number | null; signal: NodeJS.Signals | null; ms: number }> {
  const t0 = Date.now();
  return new Promise((res, rej) => {
    if (p.exitCode !== null || p.signalCode !== null) return res({ code: p.exitCode, signal: p.signalCode, ms: 0 });
    const timer = setTimeout(() => {
      p.kill('SIGKILL');
      rej(new Error(`still running after ${ms} ms`));
    }, ms);
    p.once('exit', (code, signal) => {
      clearTimeout(timer);
      res({ code, signal, ms: Date.now() - t0 });
    });
  });
}

describe('on SIGTERM', () => {
  it('record --stdio: cassette written, final line, exit 0', async () => {
    const out = join(dir, 'sigterm-stdio.jsonl');
    const { p, stderr } = await startCli(['record', '--stdio', CALC, '--out', out], /^/); // silent until the first message
    const answered = new Promise<void>((r) => p.stdout!.once('data', () => r()));
    p.stdin!.write(init(1) + '\n');
    await answered;
    p.kill('SIGTERM');
    const e = await exited(p, 5000);
    expect(e).toMatchObject({ code: 0, signal: null });
    expect(stderr()).toContain(`Cassette: ${out} (2 messages)`);
    expect(readCassetteFile(out).messages).toHaveLength(2);
  }, 20_000);

  it('record --http: cassette written, final line, exit 0', async () => {
    const upstream = await startCli(
      ['serve', '--fixture', join(ROOT, 'fixtures/mocks/calc.yaml'), '--http', '0'],
      /at (http:\/\/\S+)/,
    );
    try {
      const out = join(dir, 'sigterm-http.jsonl');
      const { p, m, stderr } = await startCli(
        ['record', '--http', upstream.m[1]!, '--listen-http', '0', '--out', out],
        / at (http:\/\/\S+)/,
      );
      const r = await fetch(m[1]!, {
        method: 'POST',
        headers: { 'content-type': 'application/json', accept: 'application/json, text/event-stream' },
        body: init(1),
        signal: AbortSignal.timeout(10_000),
      });
      expect(r.status).toBe(200);
      await r.text();
      p.kill('SIGTERM');
      const e = await exited(p, 5000);
      expect(e).toMatchObject({ code: 0, signal: null });
      expect(stderr()).toContain(`Cassette: ${out} (2 messages)`);
      expect(readCassetteFile(out).messages).toHaveLength(2);
    } finally {
      upstream.p.kill('SIGTERM');
      await exited(upstream.p, 5000).catch(() => undefined);
    }
  }, 20_000);
});
