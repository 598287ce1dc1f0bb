/**
 * A stopped run leaves nothing behind: no server started by a negotiation restart after the stop, no --url
 * connection made after close(); --all-versions keeps one time bound and exit 1 when it is hit; --start-timeout is
 * not capped at --timeout.
 */
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { runSuites } from '../core/run.js';
import { ALL_SUITES } from '../suites/index.js';
import { processTable } from './helpers/proc.js';
import { run } from './helpers/cli.js';
import { freePort, groupAlive, runArgs, sdkHttp, startServer, type Started } from './http-helpers.js';

let dir: string;
const file = (name: string) => join(dir, name);

/** stdio: server/discover hangs; stdin EOF is ignored (the shutdown takes SIGTERM). */
const HANGS = `
import sys, json, time
for line in sys.stdin:
    try: m = json.loads(line)
    except Exception: continue
    i = m.get('id')
    if i is None or m.get('method') == 'server/discover': continue
    r = {'protocolVersion': m['params']['protocolVersion'], 'capabilities': {}, 'serverInfo': {'name': 'h', 'version': '1'}} if m.get('method') == 'initialize' else {}
    sys.stdout.write(json.dumps({'jsonrpc': '2.0', 'id': i, 'result': r}) + '\\n'); sys.stdout.flush()
while True: time.sleep(1)
`;

/** HTTP: the probing POST takes 2 s and gets 405; a GET opens an SSE stream (and says so on stderr). */
const SLOW_DETECT = `
import sys, time
from http.server import ThreadingHTTPServer, BaseHTTPRequestHandler
class H(BaseHTTPRequestHandler):
    protocol_version = 'HTTP/1.1'
    def log_message(self, *a): pass
    def do_POST(self):
        self.rfile.read(int(self.headers.get('content-length') or 0))
        time.sleep(2)
        self.send_response(405); self.send_header('content-length', '0'); self.end_headers()
    def do_GET(self):
        sys.stderr.write('GET STREAM OPENED\\n'); sys.stderr.flush()
        self.send_response(200); self.send_header('content-type', 'text/event-stream'); self.end_headers()
        self.wfile.write(b'event: endpoint\\ndata: /messages\\n\\n'); self.wfile.flush()
        try:
            while True: time.sleep(0.5); self.wfile.write(b': ka\\n\\n'); self.wfile.flush()
        except Exception: pass
ThreadingHTTPServer(('127.0.0.1', int(sys.argv[1])), H).serve_forever()
`;

/** stdio: speaks only 2024-11-05; initialize offering any other version gets no answer. */
const ONLY_OLDEST = `
import sys, json
for line in sys.stdin:
    try: m = json.loads(line)
    except Exception: continue
    i = m.get('id'); meth = m.get('method')
    if i is None: continue
    if meth == 'initialize':
        if m['params']['protocolVersion'] != '2024-11-05': continue
        r = {'protocolVersion': '2024-11-05', 'capabilities': {}, 'serverInfo': {'name': 'old', 'version': '1'}}
        out = {'jsonrpc': '2.0', 'id': i, 'result': r}
    elif meth == 'server/discover':
        continue
    elif meth == 'ping':
        out = {'jsonrpc': '2.0', 'id': i, 'result': {}}
    else:
        out = {'jsonrpc': '2.0', 'id': i, 'error': {'code': -32601, 'message': 'Method not found'}}
    sys.stdout.write(json.dumps(out) + '\\n'); sys.stdout.flush()
`;

beforeAll(() => {
  dir = mkdtempSync(join(tmpdir(), 'mcp-conform-stop-'));
  writeFileSync(file('hangs.py'), HANGS);
  writeFileSync(file('slow-detect.py'), SLOW_DETECT);
  writeFileSync(file('only-oldest.py'), ONLY_OLDEST);
});
afterAll(() => rmSync(dir, { recursive: true, force: true }));

const sleep = (ms: number) => new Promise((r) => setTimeout(r, ms));
/** Live processes whose command line holds tag. */
const tagged = (tag: string) =>
  processTable().filter((r) => !r.stat.startsWith('Z') && r.args.includes(tag) && !r.args.includes('ps -eo'));
const killTagged = (tag: string) => {
  for (const r of tagged(tag))
    try {
      process.kill(r.pid, 'SIGKILL');
    } catch {
      /* gone */
    }
};

describe('a run stopped while negotiation restarts the server', () => {
  it('starts no new server after the stop; every server is ended; report.process is the one shut down', async () => {
    const tag = `stop-restart-${process.pid}-${Date.now()}`;
    const ac = new AbortController();
    // discover is bounded by the timeout (1 s), then restart closes the first server: stdin, 1 s grace, SIGTERM.
    const timer = setTimeout(() => ac.abort('SIGINT'), 1500);
    try {
      const r = await runSuites({
        target: { transport: 'stdio', command: 'hangs', argv: ['python3', file('hangs.py'), tag] },
        suites: ALL_SUITES,
        timeoutMs: 1000,
        shutdownGraceMs: 1000,
        signal: ac.signal,
      });
      expect(r.aborted).toMatch(/interrupted \(SIGINT\)/);
      expect(r.exitCode).toBe(1);
      expect(tagged(tag)).toEqual([]);
      // Had the restart gone on, its server would appear now.
      await sleep(1500);
      expect(tagged(tag)).toEqual([]);
      expect(r.process.pid).toBeGreaterThan(0);
      expect(r.process.shutdown).toBe('SIGTERM');
      expect(groupAlive(r.process.pid!)).toBe(false);
    } finally {
      clearTimeout(timer);
      killTagged(tag);
    }
  }, 30_000);

  it('a stop just after the restart ends the fresh server too', async () => {
    const tag = `stop-restart2-${process.pid}-${Date.now()}`;
    const ac = new AbortController();
    // The first server is ended by 2 s (1 s discover bound, 1 s grace, SIGTERM); stop just after the restart.
    const timer = setTimeout(() => ac.abort('SIGTERM'), 2300);
    try {
      const r = await runSuites({
        target: { transport: 'stdio', command: 'hangs', argv: ['python3', file('hangs.py'), tag] },
        suites: ALL_SUITES,
        timeoutMs: 1000,
        shutdownGraceMs: 1000,
        signal: ac.signal,
      });
      expect(r.aborted).toBeDefined();
      await sleep(500);
      expect(tagged(tag)).toEqual([]);
      expect(groupAlive(r.process.pid!)).toBe(false);
    } finally {
      clearTimeout(timer);
      killTagged(tag);
    }
  }, 30_000);
});

describe('--url: a run stopped during transport detection', () => {
  let server: Started;
  let stderr = '';
  beforeAll(async () => {
    server = await startServer(['python3', file('slow-detect.py')]);
    server.child.stderr!.on('data', (b) => (stderr += b));
  });
  afterAll(async () => server?.stop());

  it('connects nothing after close(): no SSE stream is opened, the run returns at once', async () => {
    const ac = new AbortController();
    const timer = setTimeout(() => ac.abort('SIGINT'), 500);
    const t0 = Date.now();
    try {
      const r = await runSuites({
        target: { transport: 'auto', url: `http://127.0.0.1:${server.port}/mcp` },
        suites: ALL_SUITES,
        timeoutMs: 5000,
        signal: ac.signal,
      });
      expect(r.aborted).toMatch(/interrupted/);
      expect(Date.now() - t0).toBeLessThan(1800); // the 2 s probe is not waited for
      await sleep(2500); // the probe's 405 would lead to the GET now
      expect(stderr).not.toContain('GET STREAM OPENED');
    } finally {
      clearTimeout(timer);
    }
  }, 30_000);

  it('with --start: the started server is stopped and stays stopped', async () => {
    const port = await freePort();
    const tag = `stop-detect-${process.pid}-${Date.now()}`;
    const ac = new AbortController();
    let timer: NodeJS.Timeout | undefined;
    try {
      const p = runSuites({
        target: {
          transport: 'auto',
          url: `http://127.0.0.1:${port}/mcp`,
          start: { command: 'slow', argv: ['python3', file('slow-detect.py'), String(port), tag], timeoutMs: 10_000 },
        },
        suites: ALL_SUITES,
        timeoutMs: 5000,
        shutdownGraceMs: 500,
        signal: ac.signal,
      });
      // Stop once the server is up and the probe is in flight.
      const until = Date.now() + 10_000;
      while (!tagged(tag).length && Date.now() < until) await sleep(50);
      timer = setTimeout(() => ac.abort('SIGINT'), 700);
      const r = await p;
      expect(r.aborted).toMatch(/interrupted/);
      await sleep(2500);
      expect(tagged(tag)).toEqual([]);
      expect(groupAlive(r.process.pid!)).toBe(false);
    } finally {
      clearTimeout(timer);
      killTagged(tag);
    }
  }, 30_000);
});

describe('--all-versions and --max-duration', () => {
  it('one bound for all versions; the one cut short and the ones never run are "not tested"; exit 1', async () => {
    const r = await run(`python3 ${file('only-oldest.py')}`, [
      '--all-versions',
      '--suite',
      'lifecycle',
      '--timeout',
      '5000',
      '--max-duration',
      '2500',
    ]);
    expect(r.code).toBe(1);
    expect(r.ms).toBeLessThan(9000); // not 2.5 s for each version
    const m = r.report.matrix!;
    expect(m.map((x) => [x.protocolVersion, x.accepted, x.tested])).toEqual([
      ['2024-11-05', true, undefined],
      ['2025-03-26', false, false],
      ['2025-06-18', false, false],
      ['2025-11-25', false, false],
      ['2026-07-28', false, false],
    ]);
    expect(m[1]!.reason).toMatch(/--max-duration/);
    expect(r.report.aborted).toMatch(/time limit of 2500 ms \(--max-duration\)/);
    expect(r.stdout).not.toMatch(/not accepted/);
  }, 30_000);

  it('the console table says "not tested"', async () => {
    const { matrixTable } = await import('../reports/matrix.js');
    const summary = {
      pass: 0,
      warn: 0,
      fail: 0,
      skip: 0,
      info: 0,
      total: 0,
      messagesValidated: 0,
      strayLines: 0,
      baselined: 0,
    };
    const t = matrixTable([
      {
        protocolVersion: '2024-11-05',
        accepted: true,
        summary,
        suites: [{ id: 'lifecycle', pass: 1, warn: 0, fail: 0, skip: 0, info: 0 }],
      },
      {
        protocolVersion: '2025-03-26',
        accepted: false,
        tested: false,
        reason: 'cut short: the run reached its time limit',
        summary,
        suites: [],
      },
    ]);
    expect(t).toMatch(/^accepted\s+yes\s+not tested$/m);
    expect(t).toContain('2025-03-26: not tested: cut short');
  });
});

describe('--start-timeout is not capped at --timeout', () => {
  it('a server that opens its port after --timeout but within --start-timeout is tested', async () => {
    const port = await freePort();
    const r = await runArgs([
      '--start',
      `sh -c "sleep 2; exec node ${sdkHttp} stateful ${port}"`,
      '--start-timeout',
      '15000',
      '--timeout',
      '1000',
      '--http',
      `http://127.0.0.1:${port}/mcp`,
      '--suite',
      'lifecycle',
    ]);
    expect(r.report.aborted).toBeUndefined();
    expect(r.report.negotiation?.handshake).toBe('initialize');
    expect(groupAlive(r.report.process.pid!)).toBe(false);
  }, 60_000);
});
