#!/usr/bin/env node
// `npm run bench`: mcp-conform measured against baselines run side by side in the same run, several rounds,
// medians. Prints a table (each row with its target and whether it is met) and writes bench/results.json.
//
//   node bench/bench.mjs [--quick] [--rounds N] [--only startup,overhead,scale,validation,replay,fleet,inflight,oauth,security,load,conformance,clientauth]
//                        [--before OTHER-CLI.js] [--conformance-dir DIR] [--conformance-node NODE22] [--fleet-concurrency N] [--out FILE]
//
// Needs dist/ (npm run bench builds it first) and python3. `conformance` and `clientauth` (not in the default set) also need Node 22
// and @modelcontextprotocol/conformance, installed from npm into --conformance-dir on first use. See bench/README.md
// for what each row means.
import { spawn, spawnSync } from 'node:child_process';
import { existsSync, mkdtempSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import { cpus, loadavg, tmpdir, totalmem } from 'node:os';
import { dirname, join, resolve } from 'node:path';
import { fileURLToPath } from 'node:url';

const ROOT = resolve(dirname(fileURLToPath(import.meta.url)), '..');
const CLI = join(ROOT, 'dist/bin/mcp-conform.js');
const SERVER = join(ROOT, 'bench/fixtures/server.py');
const RAW = join(ROOT, 'bench/raw-client.mjs');
const HTTP_CLIENT = join(ROOT, 'bench/http-client.mjs');
const SDK_SERVER = join(ROOT, 'fixtures/servers/sdk-stdio.mjs');
const SDK_HTTP_SERVER = join(ROOT, 'fixtures/servers/sdk-http.mjs');

const argv = process.argv.slice(2);
const flag = (name) => argv.includes(name);
const opt = (name, dflt) => {
  const i = argv.indexOf(name);
  return i >= 0 ? argv[i + 1] : dflt;
};
const QUICK = flag('--quick');
const ROUNDS = Number(opt('--rounds', QUICK ? 2 : 5));
const ONLY = (opt('--only', '') || 'startup,overhead,scale,validation,replay,fleet,inflight,oauth,security,load').split(
  ',',
);
/** --before: another build's CLI (a copy of main's dist/bin/mcp-conform.js, say), timed in the same rounds of the overhead rows. */
const BEFORE = opt('--before') ? resolve(opt('--before')) : undefined;
/** Where Node 22 and the official conformance suite are installed (npm) for the `conformance` row. */
const CONFORMANCE_DIR = resolve(opt('--conformance-dir', join(tmpdir(), 'mcp-conform-bench-conformance')));
const CONFORMANCE_PKG = '@modelcontextprotocol/conformance@0.1.16';
const EVERYTHING = join(ROOT, 'node_modules/@modelcontextprotocol/server-everything/dist/index.js');
const LOOPBACK = join(ROOT, 'bench/loopback-port.mjs');
const AUTOCANNON = join(ROOT, 'node_modules/autocannon/autocannon.js');
const OUT = resolve(opt('--out', join(ROOT, 'bench/results.json')));
const PY = process.env.PYTHON ?? 'python3';
const TIME = existsSync('/usr/bin/time') ? '/usr/bin/time' : undefined;

if (!existsSync(CLI)) {
  console.error('bench: dist/ is missing; run `npm run build` first (npm run bench does)');
  process.exit(2);
}
const work = mkdtempSync(join(tmpdir(), 'mcp-conform-bench-'));
/** Process groups started with a bound (timed … timeoutMs, startHttpServer): ended on exit and on SIGINT/SIGTERM. */
const groups = new Set();
const killGroup = (pid, sig = 'SIGKILL') => {
  try {
    process.kill(-pid, sig);
  } catch {
    /* gone */
  }
};
process.on('exit', () => {
  for (const g of groups) killGroup(g);
  rmSync(work, { recursive: true, force: true });
});
for (const sig of ['SIGINT', 'SIGTERM']) process.once(sig, () => process.exit(130));

const median = (xs) => {
  const s = [...xs].sort((a, b) => a - b);
  const m = s.length >> 1;
  return s.length % 2 ? s[m] : (s[m - 1] + s[m]) / 2;
};
const r2 = (x) => Math.round(x * 100) / 100;
const rows = [];
function row(group, name, value, unit, target, met, detail = {}) {
  rows.push({ group, name, value: typeof value === 'number' ? r2(value) : value, unit, target, met, ...detail });
  const mark = met === undefined ? '  info' : met ? '  met ' : '  NOT met';
  process.stderr.write(
    `  ${group.padEnd(10)} ${name.padEnd(48)} ${String(typeof value === 'number' ? r2(value) : value).padStart(10)} ${unit.padEnd(10)} ${target.padEnd(26)}${mark}\n`,
  );
}

/**
 * Runs a command to its end; resolves { ms, code, stdout, peakKb } (peakKb: largest process of the tree, via /usr/bin/time).
 * With timeoutMs: the command runs in a process group of its own, killed whole (SIGKILL) at the deadline (a rejection)
 * and swept when the command exits (nothing it started outlives it).
 */
function timed(cmd, args, { cwd = ROOT, rss = false, cpu = false, timeoutMs } = {}) {
  return new Promise((res, rej) => {
    // /usr/bin/time: the largest process's peak RSS, and the CPU time (user + system) of the command and every child
    // it waited for (the harness's servers, the floors' server).
    const full = (rss || cpu) && TIME ? [TIME, ['-f', 'MAXRSS_KB=%M CPU_S=%U+%S', cmd, ...args]] : [cmd, args];
    const t0 = performance.now();
    const child = spawn(full[0], full[1], {
      cwd,
      stdio: ['ignore', 'pipe', 'pipe'],
      detached: timeoutMs !== undefined,
    });
    let limit;
    if (timeoutMs !== undefined && child.pid) {
      groups.add(child.pid);
      limit = setTimeout(() => {
        killGroup(child.pid);
        rej(new Error(`${[cmd, ...args].join(' ').slice(0, 300)}: not done in ${timeoutMs} ms, killed`));
      }, timeoutMs);
    }
    let out = '';
    let err = '';
    child.stdout.on('data', (b) => {
      out += b;
    });
    child.stderr.on('data', (b) => {
      err += b;
    });
    let peakKb = 0;
    let poll;
    if (rss && !TIME) {
      // No /usr/bin/time: poll the high-water mark of the process (may miss a peak in its last few ms).
      poll = setInterval(() => {
        try {
          const m = /VmHWM:\s+(\d+)/.exec(readFileSync(`/proc/${child.pid}/status`, 'utf8'));
          if (m) peakKb = Math.max(peakKb, Number(m[1]));
        } catch {
          /* gone */
        }
      }, 20);
    }
    child.on('error', rej);
    child.on('exit', (code) => {
      const ms = performance.now() - t0;
      clearInterval(poll);
      if (limit) {
        clearTimeout(limit);
        killGroup(child.pid);
        groups.delete(child.pid);
      }
      const m = /MAXRSS_KB=(\d+) CPU_S=([\d.]+)\+([\d.]+)/.exec(err);
      if (m) peakKb = Number(m[1]);
      const cpuMs = m ? (Number(m[2]) + Number(m[3])) * 1000 : undefined;
      res({ ms, code, stdout: out, stderr: err, peakKb, cpuMs });
    });
  });
}

/**
 * The overhead and scale rows' run. Without the security suite (this build's CLI: --skip-security): its other sessions
 * (rug-pull: four more server processes over stdio, each listing every tool) are work the raw floor does not do, and
 * the `security` row measures what it adds to a default run, side by side.
 */
const harnessArgs = (tools, outDir, cli = CLI) => [
  cli,
  'run',
  '--stdio',
  `${PY} ${SERVER} ${tools}`,
  '--call-tools',
  'all',
  '--quiet',
  '--out-dir',
  outDir,
  ...(cli === CLI ? ['--skip-security'] : []),
];

/** The ping floor's script: initialize, notifications/initialized, then pings up to `roundTrips` round trips in all, one at a time. */
function pingScript(roundTrips) {
  const script = [
    {
      raw: JSON.stringify({
        jsonrpc: '2.0',
        id: 0,
        method: 'initialize',
        params: { protocolVersion: '2025-11-25', capabilities: {}, clientInfo: { name: 'bench', version: '1' } },
      }),
      wait: 0,
    },
    { raw: JSON.stringify({ jsonrpc: '2.0', method: 'notifications/initialized' }) },
  ];
  for (let i = 1; i < roundTrips; i++)
    script.push({ raw: JSON.stringify({ jsonrpc: '2.0', id: i, method: 'ping' }), wait: i });
  return script;
}

/** The raw client's script for the same exchange: the harness's own to-server messages, from its report. */
function scriptFromReport(file) {
  const report = JSON.parse(readFileSync(file, 'utf8'));
  const answered = new Set();
  for (const m of report.messages)
    if (m.direction === 'from-server' && (m.kind === 'response' || m.kind === 'error') && m.inReplyTo !== undefined)
      answered.add(m.inReplyTo);
  const script = [];
  for (const m of report.messages) {
    if (m.direction !== 'to-server') continue;
    const wait = answered.has(m.seq) && m.id !== undefined && m.id !== null && m.kind === 'request' ? m.id : undefined;
    script.push(wait === undefined ? { raw: m.raw } : { raw: m.raw, wait });
  }
  return { script, messages: report.messages.length, requests: script.filter((s) => s.wait !== undefined).length };
}

async function startup() {
  const n = QUICK ? 5 : 15;
  const t = { bare: [], version: [], list: [], help: [] };
  for (let i = 0; i < n; i++) {
    t.bare.push((await timed(process.execPath, ['-e', '0'])).ms);
    t.version.push((await timed(process.execPath, [CLI, '--version'])).ms);
    t.help.push((await timed(process.execPath, [CLI, '--help'])).ms);
    t.list.push((await timed(process.execPath, [CLI, 'list'])).ms);
  }
  const bare = median(t.bare);
  row('startup', 'node -e 0 (baseline)', bare, 'ms', '-', undefined);
  row(
    'startup',
    'mcp-conform --version / node -e 0',
    median(t.version) / bare,
    '×',
    '≤ 3×',
    median(t.version) / bare <= 3,
    { ms: r2(median(t.version)) },
  );
  row('startup', 'mcp-conform --help / node -e 0', median(t.help) / bare, '×', '(info)', undefined, {
    ms: r2(median(t.help)),
  });
  row('startup', 'mcp-conform list / node -e 0', median(t.list) / bare, '×', '(info)', undefined, {
    ms: r2(median(t.list)),
  });
}

/**
 * The overhead rows at `tools` tools: the full run against its two floors, in interleaved rounds. `target` (a ratio)
 * is graded on the floor `targetOn` names: the 10-tool row against the raw floor, the 5,000-tool row against the ping
 * floor (issue 30's definition: spawn, handshake, one ping per round trip the run makes). The other ratio is info, and
 * so is the CPU row (client and servers, /usr/bin/time), which does not depend on how busy the machine's cores are.
 */
async function overhead(tools, target, rounds, targetOn = 'raw') {
  const outDir = join(work, `overhead-${tools}`);
  const timeoutMs = 300_000;
  const warm = await timed(process.execPath, harnessArgs(tools, outDir), { timeoutMs });
  if (warm.code !== 0)
    throw new Error(`the harness run against ${tools} tools exited ${warm.code}: ${warm.stderr.slice(-2000)}`);
  const { script, requests, messages } = scriptFromReport(join(outDir, 'report.json'));
  const scriptFile = join(work, `script-${tools}.json`);
  writeFileSync(scriptFile, JSON.stringify(script));
  const pingFile = join(work, `ping-${tools}.json`);
  writeFileSync(pingFile, JSON.stringify(pingScript(requests)));
  const h = [];
  const f = [];
  const p = [];
  const b = [];
  const hc = [];
  const pc = [];
  const steps = {
    harness: async () => {
      const a = await timed(process.execPath, harnessArgs(tools, outDir), { timeoutMs, cpu: true });
      if (a.code !== 0) throw new Error(`harness exited ${a.code}: ${a.stderr.slice(-2000)}`);
      h.push(a.ms);
      if (a.cpuMs !== undefined) hc.push(a.cpuMs);
    },
    raw: async () => {
      f.push((await timed(process.execPath, [RAW, scriptFile, '--', PY, SERVER, String(tools)], { timeoutMs })).ms);
    },
    ping: async () => {
      const q = await timed(process.execPath, [RAW, pingFile, '--', PY, SERVER, String(tools)], {
        timeoutMs,
        cpu: true,
      });
      if (q.code !== 0 || JSON.parse(q.stdout).roundTrips !== requests)
        throw new Error(`the ping floor did not make ${requests} round trips: ${q.stdout} ${q.stderr.slice(-2000)}`);
      p.push(q.ms);
      if (q.cpuMs !== undefined) pc.push(q.cpuMs);
    },
    before: async () => {
      const o = await timed(process.execPath, harnessArgs(tools, join(work, `before-${tools}`), BEFORE), { timeoutMs });
      if (o.code !== 0) throw new Error(`--before ${BEFORE} exited ${o.code}: ${o.stderr.slice(-2000)}`);
      b.push(o.ms);
    },
  };
  const order = ['harness', 'raw', 'ping', ...(BEFORE ? ['before'] : [])];
  for (let i = 0; i < rounds; i++) {
    // Interleaved: every measurement in every round, the order reversed every other round (no place is favoured).
    for (const step of i % 2 ? [...order].reverse() : order) await steps[step]();
  }
  // A floor's row: its target and whether it is met where targetOn names that floor, else info.
  const graded = (floor, r) => (floor === targetOn ? [`≤ ${target}×`, r <= target] : ['(info)', undefined]);
  const ratio = median(h) / median(f);
  row('overhead', `full run / raw floor, ${tools} tools`, ratio, '×', ...graded('raw', ratio), {
    harnessMs: r2(median(h)),
    floorMs: r2(median(f)),
    roundTrips: requests,
    messages,
  });
  const pr = median(h) / median(p);
  row('overhead', `full run / ping floor, ${tools} tools`, pr, '×', ...graded('ping', pr), {
    harnessMs: r2(median(h)),
    pingFloorMs: r2(median(p)),
    roundTrips: requests,
  });
  if (hc.length && pc.length) {
    const cr = median(hc) / median(pc);
    row('overhead', `CPU, full run / ping floor, ${tools} tools`, cr, '×', '(info)', undefined, {
      harnessCpuMs: r2(median(hc)),
      pingFloorCpuMs: r2(median(pc)),
      what: 'user + system CPU of the client and the servers it started',
    });
  }
  if (BEFORE) {
    const br = median(b) / median(h);
    row('overhead', `--before / this build, ${tools} tools`, br, '×', '(info)', undefined, {
      beforeMs: r2(median(b)),
      harnessMs: r2(median(h)),
      before: BEFORE,
    });
  }
}

async function scale(sizes, rounds) {
  const res = {};
  for (const n of sizes) {
    const outDir = join(work, `scale-${n}`);
    const ms = [];
    const kb = [];
    for (let i = 0; i < rounds; i++) {
      const a = await timed(process.execPath, harnessArgs(n, outDir), { rss: true });
      if (a.code !== 0) throw new Error(`harness run with ${n} tools exited ${a.code}: ${a.stderr.slice(-2000)}`);
      ms.push(a.ms);
      kb.push(a.peakKb);
    }
    const report = JSON.parse(readFileSync(join(outDir, 'report.json'), 'utf8'));
    res[n] = {
      ms: median(ms),
      mb: median(kb) / 1024,
      messages: report.messages.length,
      toolCount: report.server.toolCount,
    };
    row('scale', `${n} tools: time per tool (full run)`, res[n].ms / n, 'ms', '(info)', undefined, {
      totalMs: r2(res[n].ms),
      messages: res[n].messages,
    });
    row(
      'scale',
      `${n} tools: peak RSS`,
      res[n].mb,
      'MB',
      n >= 10000 ? '< 300 MB' : '(info)',
      n >= 10000 ? res[n].mb < 300 : undefined,
    );
    if (n >= 10000)
      row('scale', `${n} tools: listed and called, total`, res[n].ms / 1000, 's', '< 15 s', res[n].ms < 15000);
  }
  const [lo, hi] = [1000, 10000];
  if (res[lo] && res[hi]) {
    const tg = res[hi].ms / hi / (res[lo].ms / lo);
    row('scale', `time per tool growth ${lo}→${hi}`, tg, '×', '≤ 1.25× (1 = linear)', tg <= 1.25);
    const base = res[100] ?? { mb: 0 };
    const mg = (res[hi].mb - base.mb) / Math.max(1, res[lo].mb - base.mb);
    row('scale', `RSS above 100 tools, ${lo}→${hi}`, mg, '×', '≤ 12.5× (10 = linear)', mg <= 12.5);
  }
  if (res[5000]) row('scale', '5000 tools: total', res[5000].ms / 1000, 's', '(info)', undefined);
}

async function validation() {
  const script = `
    import { MessageValidator, schemaDocumentFor, PROTOCOL_VERSIONS } from ${JSON.stringify(join(ROOT, 'dist/core/schema/index.js'))};
    const tool = (i) => ({ name: 'tool_' + i, description: 'A tool', inputSchema: { type: 'object', properties: { q: { type: 'string' } }, required: ['q'] } });
    const msgs = [
      { direction: 'to-server', kind: 'request', method: 'tools/call', json: { jsonrpc: '2.0', id: 7, method: 'tools/call', params: { name: 'search', arguments: { q: 'x', n: 3 } } } },
      { direction: 'from-server', kind: 'response', method: 'tools/call', json: { jsonrpc: '2.0', id: 7, result: { content: [{ type: 'text', text: 'three results' }] } } },
      { direction: 'to-server', kind: 'request', method: 'tools/call', json: { jsonrpc: '2.0', id: 8, method: 'tools/call', params: { name: 'add', arguments: { a: 1, b: 2 } } } },
      { direction: 'from-server', kind: 'response', method: 'tools/call', json: { jsonrpc: '2.0', id: 8, result: { content: [{ type: 'text', text: '3' }], isError: false } } },
      { direction: 'to-server', kind: 'request', method: 'ping', json: { jsonrpc: '2.0', id: 9, method: 'ping' } },
      { direction: 'from-server', kind: 'response', method: 'ping', json: { jsonrpc: '2.0', id: 9, result: {} } },
      { direction: 'from-server', kind: 'notification', method: 'notifications/message', json: { jsonrpc: '2.0', method: 'notifications/message', params: { level: 'info', data: 'working' } } },
      { direction: 'from-server', kind: 'error', method: 'tools/call', json: { jsonrpc: '2.0', id: 10, error: { code: -32602, message: 'Unknown tool: nope' } } },
      { direction: 'to-server', kind: 'request', method: 'tools/list', json: { jsonrpc: '2.0', id: 11, method: 'tools/list', params: { cursor: 'abc' } } },
      { direction: 'from-server', kind: 'response', method: 'tools/list', json: { jsonrpc: '2.0', id: 11, result: { tools: [tool(1), tool(2), tool(3)] } } },
    ];
    // 2026-07-28 is stateless: every request carries the _meta keys and every result a resultType. Typical
    // messages of that version have them.
    const for2026 = (m) => {
      const json = structuredClone(m.json);
      if (m.kind === 'request') json.params = { ...(json.params ?? {}), _meta: { 'io.modelcontextprotocol/protocolVersion': '2026-07-28', 'io.modelcontextprotocol/clientCapabilities': {} } };
      if (m.kind === 'response') json.result = { ...json.result, resultType: 'complete' };
      return { ...m, json };
    };
    const out = {};
    for (const v of PROTOCOL_VERSIONS) {
      const { version, document } = schemaDocumentFor(v);
      const t0 = performance.now();
      const val = new MessageValidator(version, document);
      const typical = v === '2026-07-28' ? msgs.map(for2026) : msgs;
      let valid = 0;
      for (const m of typical) if (val.check(m).valid) valid++;
      const firstUse = performance.now() - t0;
      let n = 0; const t1 = performance.now();
      while (performance.now() - t1 < ${QUICK ? 150 : 400}) { for (let k = 0; k < 100; k++) for (const m of typical) val.check(m); n += 100 * typical.length; }
      out[v] = { perSecond: n / ((performance.now() - t1) / 1000), firstUseMs: firstUse, version, valid: valid + '/' + msgs.length };
    }
    process.stdout.write(JSON.stringify(out));
  `;
  const runs = [];
  for (let i = 0; i < Math.max(3, Math.min(ROUNDS, 5)); i++) {
    const r = spawnSync(process.execPath, ['--input-type=module', '-e', script], { encoding: 'utf8' });
    if (r.status !== 0) throw new Error(`validation benchmark failed: ${r.stderr}`);
    runs.push(JSON.parse(r.stdout));
  }
  for (const v of Object.keys(runs[0])) {
    const ps = median(runs.map((x) => x[v].perSecond));
    row(
      'validation',
      `${v}: messages/s${runs[0][v].version !== v ? ` (schema ${runs[0][v].version})` : ''}`,
      Math.round(ps),
      'msg/s',
      '≥ 500000',
      ps >= 500_000,
      { validOfTypical: runs[0][v].valid },
    );
    const first = median(runs.map((x) => x[v].firstUseMs));
    row('validation', `${v}: schema compilation before the first check`, first, 'ms', '< 50 ms', first < 50);
  }
}

/** Starts an HTTP server that prints "listening <port>" (fixtures/servers/sdk-http.mjs) in a process group of its own; resolves { url, stop }. */
function startHttpServer(cmd, args, waitMs = 20_000, env = {}) {
  return new Promise((resolve, reject) => {
    const child = spawn(cmd, args, {
      cwd: ROOT,
      stdio: ['ignore', 'pipe', 'pipe'],
      detached: true,
      env: { ...process.env, ...env },
    });
    groups.add(child.pid);
    const exited = new Promise((r) => child.once('exit', r));
    const stop = async () => {
      killGroup(child.pid, 'SIGTERM');
      const t = setTimeout(() => killGroup(child.pid), 5_000);
      await exited;
      clearTimeout(t);
      killGroup(child.pid);
      groups.delete(child.pid);
    };
    let out = '';
    const t = setTimeout(() => {
      void stop();
      reject(new Error(`${cmd} ${args.join(' ')}: no "listening <port>" in ${waitMs} ms: ${out.slice(-1000)}`));
    }, waitMs);
    const look = (b) => {
      out += b;
      const m = /listening (\d+)/.exec(out);
      if (m) {
        clearTimeout(t);
        resolve({ url: `http://127.0.0.1:${m[1]}/mcp`, stop });
      }
    };
    child.stdout.on('data', look);
    child.stderr.on('data', look);
    child.once('exit', (code) => {
      clearTimeout(t);
      reject(new Error(`${cmd} ${args.join(' ')} exited (${code}): ${out.slice(-1000)}`));
    });
  });
}

async function replay(calls, rounds) {
  // The workload: initialize, initialized, then `calls` calls of add with distinct arguments, one at a time; the same
  // script over stdio (bench/raw-client.mjs) and over Streamable HTTP (bench/http-client.mjs).
  const script = [
    {
      raw: JSON.stringify({
        jsonrpc: '2.0',
        id: 0,
        method: 'initialize',
        params: { protocolVersion: '2025-11-25', capabilities: {}, clientInfo: { name: 'bench', version: '1' } },
      }),
      wait: 0,
    },
    { raw: JSON.stringify({ jsonrpc: '2.0', method: 'notifications/initialized' }) },
  ];
  for (let i = 1; i <= calls; i++)
    script.push({
      raw: JSON.stringify({
        jsonrpc: '2.0',
        id: i,
        method: 'tools/call',
        params: { name: 'add', arguments: { a: i, b: 1 } },
      }),
      wait: i,
    });
  const scriptFile = join(work, 'replay-script.json');
  writeFileSync(scriptFile, JSON.stringify(script));
  const timeoutMs = 120_000;
  const parse = (r, what) => {
    if (r.code !== 0) throw new Error(`${what} exited ${r.code}: ${r.stderr.slice(-2000)}`);
    return JSON.parse(r.stdout);
  };
  const cassette = join(work, 'replay.jsonl');
  // Record the workload once through the proxy, against the SDK server: over stdio…
  const rec = await timed(
    process.execPath,
    [
      RAW,
      scriptFile,
      '--',
      process.execPath,
      CLI,
      'record',
      '--stdio',
      `${process.execPath} ${SDK_SERVER}`,
      '--out',
      cassette,
    ],
    { timeoutMs },
  );
  if (!existsSync(cassette)) throw new Error(`recording failed: ${rec.stderr}`);
  // …and over Streamable HTTP (`record --http URL --listen-http 0`), against the SDK's HTTP server, the HTTP baseline.
  const httpCassette = join(work, 'replay-http.jsonl');
  const upstream = await startHttpServer(process.execPath, [SDK_HTTP_SERVER, 'stateful', '0']);
  try {
    parse(
      await timed(
        process.execPath,
        [
          HTTP_CLIENT,
          scriptFile,
          '--',
          process.execPath,
          CLI,
          'record',
          '--http',
          upstream.url,
          '--listen-http',
          '0',
          '--out',
          httpCassette,
        ],
        { timeoutMs },
      ),
      'the HTTP recording',
    );
  } finally {
    await upstream.stop();
  }
  if (!existsSync(httpCassette)) throw new Error('the HTTP recording wrote no cassette');
  const sdk = [];
  const mock = [];
  const sdkHttp = [];
  const mockHttp = [];
  for (let i = 0; i < rounds; i++) {
    const a = parse(
      await timed(process.execPath, [RAW, scriptFile, '--', process.execPath, SDK_SERVER], { timeoutMs }),
      'the SDK stdio run',
    );
    const b = parse(
      await timed(process.execPath, [RAW, scriptFile, '--', process.execPath, CLI, 'serve', '--cassette', cassette], {
        timeoutMs,
      }),
      'the stdio replay',
    );
    sdk.push(calls / ((a.ms - a.firstMs) / 1000));
    mock.push(calls / ((b.ms - b.firstMs) / 1000));
    const c = parse(
      await timed(
        process.execPath,
        [HTTP_CLIENT, scriptFile, '--', process.execPath, SDK_HTTP_SERVER, 'stateful', '0'],
        { timeoutMs },
      ),
      'the SDK HTTP run',
    );
    const d = parse(
      await timed(
        process.execPath,
        [HTTP_CLIENT, scriptFile, '--', process.execPath, CLI, 'serve', '--cassette', httpCassette, '--http', '0'],
        { timeoutMs },
      ),
      'the HTTP replay',
    );
    sdkHttp.push(calls / (c.steadyMs / 1000));
    mockHttp.push(calls / (d.steadyMs / 1000));
  }
  const ratio = median(mock) / median(sdk);
  row('replay', `stdio: mock replay / SDK McpServer, ${calls} calls`, ratio, '×', '≥ 1× (own target)', ratio >= 1, {
    mockPerSecond: Math.round(median(mock)),
    sdkPerSecond: Math.round(median(sdk)),
  });
  const ratioHttp = median(mockHttp) / median(sdkHttp);
  row(
    'replay',
    `HTTP: mock replay / SDK McpServer, ${calls} calls`,
    ratioHttp,
    '×',
    '≥ 1× (own target)',
    ratioHttp >= 1,
    { mockPerSecond: Math.round(median(mockHttp)), sdkPerSecond: Math.round(median(sdkHttp)) },
  );
  row(
    'replay',
    'stdio: mock / SDK McpServer (calls/s)',
    `${Math.round(median(mock))} / ${Math.round(median(sdk))}`,
    'calls/s',
    '(info)',
    undefined,
  );
  row(
    'replay',
    'HTTP: mock / SDK McpServer (calls/s)',
    `${Math.round(median(mockHttp))} / ${Math.round(median(sdkHttp))}`,
    'calls/s',
    '(info)',
    undefined,
  );
}

/**
 * Node 22 and the official conformance suite (npm: `node@22`, CONFORMANCE_PKG), in CONFORMANCE_DIR: installed there
 * with npm on first use (bounded). Resolves { node, cli, nodeVersion, version }.
 */
async function conformanceTools() {
  // --conformance-node PATH: a Node 22 of your own (the package still comes from --conformance-dir).
  const node = opt('--conformance-node')
    ? resolve(opt('--conformance-node'))
    : join(CONFORMANCE_DIR, 'node_modules/.bin/node');
  const cli = join(CONFORMANCE_DIR, 'node_modules/@modelcontextprotocol/conformance/dist/index.js');
  if (!existsSync(node) || !existsSync(cli)) {
    process.stderr.write(`  (installing node@22 and ${CONFORMANCE_PKG} into ${CONFORMANCE_DIR} with npm)\n`);
    const npm = process.platform === 'win32' ? 'npm.cmd' : 'npm';
    const r = await timed(
      npm,
      ['install', '--prefix', CONFORMANCE_DIR, '--no-audit', '--no-fund', '--no-save', 'node@22', CONFORMANCE_PKG],
      { timeoutMs: 300_000 },
    );
    if (r.code !== 0 || !existsSync(node) || !existsSync(cli))
      throw new Error(
        `npm install of node@22 and ${CONFORMANCE_PKG} into ${CONFORMANCE_DIR} failed (${r.code}): ${r.stderr.slice(-2000)}`,
      );
  }
  const nodeVersion = spawnSync(node, ['--version'], { encoding: 'utf8' }).stdout.trim();
  if (!/^v(2[2-9]|[3-9]\d)\./.test(nodeVersion))
    throw new Error(`${node} is ${nodeVersion || 'not runnable'}; the official suite needs Node 22`);
  const version = JSON.parse(
    readFileSync(join(CONFORMANCE_DIR, 'node_modules/@modelcontextprotocol/conformance/package.json'), 'utf8'),
  ).version;
  return { node, cli, nodeVersion, version };
}

/**
 * server-everything over Streamable HTTP: a full mcp-conform run (`--call-tools all`, this Node) against the official
 * conformance suite's server run (`conformance server --url`, Node 22), each on a fresh server started before the
 * clock starts, interleaved, medians. Both exit 1 (each finds failures: the official scenarios expect their own
 * fixture tools); what each checked is in the row.
 */
async function conformance(rounds) {
  if (!existsSync(EVERYTHING)) throw new Error(`${EVERYTHING} is missing (npm install)`);
  const tools = await conformanceTools();
  const timeoutMs = 180_000;
  const ours = [];
  const theirs = [];
  let ourReport;
  let theirSummary;
  for (let i = 0; i < rounds; i++) {
    for (const which of i % 2 ? ['theirs', 'ours'] : ['ours', 'theirs']) {
      const server = await startHttpServer(
        process.execPath,
        ['--import', LOOPBACK, EVERYTHING, 'streamableHttp'],
        20_000,
        { PORT: '0' },
      );
      try {
        if (which === 'ours') {
          const outDir = join(work, 'conformance-ours');
          const a = await timed(
            process.execPath,
            [CLI, 'run', '--http', server.url, '--call-tools', 'all', '--quiet', '--out-dir', outDir],
            { timeoutMs },
          );
          if (!existsSync(join(outDir, 'report.json')) || a.code > 1)
            throw new Error(`mcp-conform against server-everything exited ${a.code}: ${a.stderr.slice(-2000)}`);
          ours.push(a.ms);
          ourReport = JSON.parse(readFileSync(join(outDir, 'report.json'), 'utf8'));
        } else {
          const b = await timed(
            tools.node,
            [tools.cli, 'server', '--url', server.url, '-o', join(work, 'conformance-theirs')],
            { timeoutMs },
          );
          const m = /Total: (\d+) passed, (\d+) failed/.exec(b.stdout + b.stderr);
          if (!m || b.code > 1)
            throw new Error(`the official conformance suite exited ${b.code}: ${(b.stdout + b.stderr).slice(-2000)}`);
          theirs.push(b.ms);
          theirSummary = {
            passed: Number(m[1]),
            failed: Number(m[2]),
            scenarios: (b.stdout.match(/^[✓✗] /gmu) ?? []).length,
          };
        }
      } finally {
        await server.stop();
      }
    }
  }
  const ratio = median(ours) / median(theirs);
  row('conformance', 'server-everything, HTTP: mcp-conform / official suite', ratio, '×', '(info)', undefined, {
    oursMs: r2(median(ours)),
    officialMs: r2(median(theirs)),
    ours: {
      results: ourReport.summary.total,
      pass: ourReport.summary.pass,
      warn: ourReport.summary.warn,
      fail: ourReport.summary.fail,
      messages: ourReport.messages.length,
      node: process.version,
    },
    official: {
      package: `@modelcontextprotocol/conformance@${tools.version}`,
      node: tools.nodeVersion,
      ...theirSummary,
    },
  });
  const slow = ourReport.suites
    .flatMap((s) => s.cases)
    .filter((c) => c.durationMs >= 1000)
    .sort((a, b) => b.durationMs - a.durationMs)
    .slice(0, 6);
  row(
    'conformance',
    'mcp-conform / official suite (ms)',
    `${Math.round(median(ours))} / ${Math.round(median(theirs))}`,
    'ms',
    '(info)',
    undefined,
    { slowestCases: slow.map((c) => `${c.id} ${Math.round(c.durationMs)} ms`) },
  );
}

/**
 * The whole client-auth set on a sound client (fixtures/clients/auth/authkit.py, standard-library Python): mcp-conform
 * one scenario after another (--concurrency 1) and side by side (the default, the number of cores), and the official
 * conformance suite's `client --suite auth` on the same client (Node 22; its scenarios in parallel), interleaved,
 * medians. Rows: parallel / serial (target < 1), and parallel / official (target ≤ 3×: the two sets differ — the row
 * says how many scenarios each played). Every mcp-conform run must give the verdicts of the first.
 */
async function clientAuth(rounds) {
  const tools = await conformanceTools();
  const kit = join(ROOT, 'fixtures/clients/auth/authkit.py');
  const times = { serial: [], parallel: [], official: [] };
  let first;
  let scenarios = 0;
  let theirs;
  const verdicts = (file) => {
    const j = JSON.parse(readFileSync(file, 'utf8'));
    const runs = j.runs ?? [j];
    scenarios = runs.length;
    return JSON.stringify(runs.map((r) => r.suites.flatMap((x) => x.cases).map((c) => `${c.id} ${c.verdict}`)));
  };
  for (let i = 0; i < rounds; i++) {
    const order = ['serial', 'parallel', 'official'];
    for (const which of i % 2 ? order.reverse() : order) {
      if (which === 'official') {
        const b = await timed(
          tools.node,
          [
            tools.cli,
            'client',
            '--command',
            `${PY} ${kit} none http`,
            '--suite',
            'auth',
            '-o',
            join(work, 'clientauth-theirs'),
          ],
          { timeoutMs: 300_000 },
        );
        const m = /Total: (\d+) passed, (\d+) failed(?:, (\d+) warnings)?/.exec(b.stdout + b.stderr);
        if (!m)
          throw new Error(
            `the official suite's client --suite auth exited ${b.code}: ${(b.stdout + b.stderr).slice(-2000)}`,
          );
        theirs = {
          passed: Number(m[1]),
          failed: Number(m[2]),
          warnings: Number(m[3] ?? 0),
          scenarios: ((b.stdout + b.stderr).match(/^[✓✗] auth\//gmu) ?? []).length,
        };
        times.official.push(b.ms);
        continue;
      }
      const outDir = join(work, `clientauth-${which}`);
      const a = await timed(
        process.execPath,
        [
          CLI,
          'client',
          '--suite',
          'client-auth',
          '--http',
          `${PY} ${kit} none http {url}`,
          '--quiet',
          '--reporter',
          'json',
          '--out-dir',
          outDir,
          ...(which === 'serial' ? ['--concurrency', '1'] : []),
        ],
        { timeoutMs: 600_000 },
      );
      if (a.code !== 0)
        throw new Error(`mcp-conform client --suite client-auth (${which}) exited ${a.code}: ${a.stderr.slice(-2000)}`);
      const v = verdicts(join(outDir, 'report.json'));
      first ??= v;
      if (v !== first) throw new Error(`the ${which} run gave other verdicts than the first run`);
      times[which].push(a.ms);
    }
  }
  row(
    'clientauth',
    `client-auth set (${scenarios} scenarios): parallel / serial`,
    median(times.parallel) / median(times.serial),
    '×',
    '< 1',
    median(times.parallel) < median(times.serial),
    { parallelMs: r2(median(times.parallel)), serialMs: r2(median(times.serial)), concurrency: cpus().length },
  );
  row(
    'clientauth',
    'client-auth set, parallel / official suite --suite auth',
    median(times.parallel) / median(times.official),
    '×',
    '≤ 3',
    median(times.parallel) / median(times.official) <= 3,
    {
      oursMs: r2(median(times.parallel)),
      officialMs: r2(median(times.official)),
      oursScenarios: scenarios,
      official: { package: `@modelcontextprotocol/conformance@${tools.version}`, node: tools.nodeVersion, ...theirs },
    },
  );
}

/**
 * Fleet throughput: a config of six targets, run serially (--concurrency 1) and side by side (--concurrency N, default
 * 3), interleaved, medians; servers per minute for each, their ratio (target < 0.8×), and the CPU floor. Every run must
 * give the verdicts of the first (the row lists any verdict that differs). Two fleets: the bench server with 20 tools
 * (Python, standard library: a fast start, CPU-bound runs) and the TypeScript SDK's McpServer
 * (fixtures/servers/sdk-stdio.mjs: a Node server, whose start is most of a run), both `--call-tools all`.
 */
async function fleet(
  rounds,
  { label = '', stdio = `${PY} ${SERVER} 20` } = {},
  n = Number(opt('--fleet-concurrency', 3)),
) {
  const dir = mkdtempSync(join(work, 'fleet-'));
  const targets = 6;
  const config = join(dir, 'mcp-conform.config.json');
  writeFileSync(
    config,
    JSON.stringify(
      { callTools: 'all', targets: Array.from({ length: targets }, (_, i) => ({ name: `server-${i + 1}`, stdio })) },
      null,
      2,
    ),
  );
  const verdicts = (file) =>
    JSON.parse(readFileSync(file, 'utf8')).runs.flatMap((r) =>
      r.suites.flatMap((s) => s.cases.map((c) => `${r.target.name} ${c.id}=${c.verdict}`)),
    );
  const times = { 1: [], [n]: [] };
  const cpu = { 1: [], [n]: [] };
  let reference;
  const differences = new Set();
  for (let i = 0; i < rounds; i++) {
    for (const c of i % 2 ? [n, 1] : [1, n]) {
      const outDir = join(dir, `out-${c}`);
      const r = await timed(
        process.execPath,
        [CLI, 'run', '--config', config, '--concurrency', String(c), '--quiet', '--out-dir', outDir],
        { timeoutMs: 600_000, cpu: true },
      );
      if (r.code !== 0)
        throw new Error(`the fleet run (--concurrency ${c}) exited ${r.code}: ${r.stderr.slice(-2000)}`);
      const v = verdicts(join(outDir, 'report.json'));
      reference ??= v;
      // A verdict that differs from the first run's (side by side or not: a case that times out under load, say).
      for (const x of v) if (!reference.includes(x)) differences.add(`--concurrency ${c}: ${x}`);
      times[c].push(r.ms);
      if (r.cpuMs !== undefined) cpu[c].push(r.cpuMs);
    }
  }
  const perMinute = (ms) => targets / (ms / 60_000);
  row(
    'fleet',
    `${label}${targets} servers, --concurrency 1: servers/min`,
    perMinute(median(times[1])),
    '/min',
    '(info)',
    undefined,
    { ms: r2(median(times[1])) },
  );
  row(
    'fleet',
    `${label}${targets} servers, --concurrency ${n}: servers/min`,
    perMinute(median(times[n])),
    '/min',
    '(info)',
    undefined,
    { ms: r2(median(times[n])) },
  );
  const ratio = median(times[n]) / median(times[1]);
  row(
    'fleet',
    `${label}--concurrency ${n} / serial, wall time`,
    ratio,
    '×',
    '< 0.8×, same verdicts',
    ratio < 0.8 && !differences.size,
    { sameVerdicts: !differences.size, differences: [...differences], cores: cpus().length },
  );
  if (cpu[n].length && cpu[1].length) {
    // No schedule does better than the side-by-side run's CPU time (client and servers) spread over every core.
    const floor = median(cpu[n]) / cpus().length / median(times[1]);
    row('fleet', `${label}CPU floor of --concurrency ${n} / serial`, floor, '×', '(info)', undefined, {
      serialCpuMs: r2(median(cpu[1])),
      sideBySideCpuMs: r2(median(cpu[n])),
      cores: cpus().length,
      what: 'CPU time of the side-by-side run (client and servers) / cores / serial wall time: the best ratio this machine allows',
    });
  }
}

/**
 * run --max-in-flight: a default run (the default bound) against a serial one (--max-in-flight 1) on two servers
 * whose own time dominates a run: server-everything over stdio (its 10-second read-only tool, called once for calling
 * and progress) and fixtures/servers/slow-calls.py (every tools/call takes SLOW_MS = 1 s, served side by side, like a
 * server behind a slow API). Interleaved rounds, medians; each row is the ratio default / serial, with both times;
 * every verdict must be the same both ways (the row lists any that differs).
 */
async function inflight(rounds) {
  const dir = mkdtempSync(join(work, 'inflight-'));
  const servers = [
    { name: 'server-everything (stdio)', args: ['--stdio', `${process.execPath} ${EVERYTHING} stdio`] },
    {
      name: 'slow-calls.py, 1 s per call (stdio)',
      args: ['--stdio', `${PY} ${join(ROOT, 'fixtures/servers/slow-calls.py')}`, '--env', 'SLOW_MS=1000'],
    },
  ];
  const verdicts = (file) =>
    JSON.parse(readFileSync(file, 'utf8')).suites.flatMap((s) => s.cases.map((c) => `${c.id}=${c.verdict}`));
  for (const server of servers) {
    const times = { default: [], serial: [] };
    let reference;
    const differences = new Set();
    for (let i = 0; i < rounds; i++) {
      for (const which of i % 2 ? ['serial', 'default'] : ['default', 'serial']) {
        const outDir = join(dir, which);
        const r = await timed(
          process.execPath,
          [
            CLI,
            'run',
            ...server.args,
            '--reporter',
            'json',
            '--quiet',
            '--out-dir',
            outDir,
            ...(which === 'serial' ? ['--max-in-flight', '1'] : []),
          ],
          { timeoutMs: 300_000 },
        );
        if (r.code !== 0 && r.code !== 1)
          throw new Error(`${server.name} (${which}) exited ${r.code}: ${r.stderr.slice(-2000)}`);
        const v = verdicts(join(outDir, 'report.json'));
        reference ??= v;
        for (const x of v) if (!reference.includes(x)) differences.add(`${which}: ${x}`);
        times[which].push(r.ms);
      }
    }
    const ratio = median(times.default) / median(times.serial);
    row(
      'inflight',
      `${server.name}: default / --max-in-flight 1`,
      ratio,
      '×',
      '(info) same verdicts',
      differences.size ? false : undefined,
      {
        defaultMs: r2(median(times.default)),
        serialMs: r2(median(times.serial)),
        sameVerdicts: !differences.size,
        differences: [...differences],
      },
    );
  }
}

/**
 * --oauth's cost: the same run (lifecycle and listing) against the TypeScript SDK server behind oidc-provider
 * (fixtures/servers/peers/auth/oidc-sdk.mjs auto: the authorization endpoint approves at once), once getting in with
 * --oauth (discovery, dynamic registration, authorization code with PKCE on the loopback redirect, token), once with
 * a token given as --header (fetched beforehand with the peer's client_credentials client). Interleaved, medians;
 * the row is the difference.
 */
async function oauth(rounds) {
  const server = await startHttpServer(
    process.execPath,
    [join(ROOT, 'fixtures/servers/peers/auth/oidc-sdk.mjs'), 'auto', '0'],
    60_000,
  );
  try {
    const prm = await (await fetch(new URL('/.well-known/oauth-protected-resource/mcp', server.url))).json();
    const as = await (
      await fetch(new URL('/.well-known/oauth-authorization-server', prm.authorization_servers[0]))
    ).json();
    const tok = await (
      await fetch(as.token_endpoint, {
        method: 'POST',
        headers: {
          'Content-Type': 'application/x-www-form-urlencoded',
          Authorization: `Basic ${Buffer.from('mcp-conform-ci:ci-secret-0f9d2c7e41').toString('base64')}`,
        },
        body: new URLSearchParams({ grant_type: 'client_credentials', resource: server.url }),
      })
    ).json();
    if (typeof tok.access_token !== 'string') throw new Error(`no token from the peer: ${JSON.stringify(tok)}`);
    const common = [
      'run',
      '--http',
      server.url,
      '--suite',
      'lifecycle,listing',
      '--quiet',
      '--out-dir',
      join(work, 'oauth'),
    ];
    const withOauth = [];
    const withHeader = [];
    for (let i = 0; i < rounds + 1; i++) {
      for (const which of i % 2 ? ['header', 'oauth'] : ['oauth', 'header']) {
        const a = await timed(
          process.execPath,
          [
            CLI,
            ...common,
            ...(which === 'oauth' ? ['--oauth'] : ['--header', `Authorization: Bearer ${tok.access_token}`]),
          ],
          { timeoutMs: 60_000 },
        );
        if (a.code !== 0) throw new Error(`the ${which} run exited ${a.code}: ${a.stderr.slice(-2000)}`);
        if (i > 0) (which === 'oauth' ? withOauth : withHeader).push(a.ms); // round 0 warms up
      }
    }
    const added = median(withOauth) - median(withHeader);
    row('oauth', '--oauth (approves at once) − --header token', added, 'ms', '< 500 ms', added < 500, {
      oauthMs: r2(median(withOauth)),
      headerMs: r2(median(withHeader)),
    });
  } finally {
    await server.stop();
  }
}

/**
 * What the security suite adds to a default run of the demo server (fixtures/servers/calc.py over stdio): the same run
 * with the suite and with --skip-security, interleaved rounds (round 0 warms up), medians; the row is the difference
 * (the suite's own time: the poisoning rules, and rug-pull's later and host-named sessions, each a server process).
 */
async function security(rounds) {
  const demo = `${PY} ${join(ROOT, 'fixtures/servers/calc.py')}`;
  const times = { with: [], without: [] };
  for (let i = 0; i < rounds + 1; i++) {
    for (const which of i % 2 ? ['without', 'with'] : ['with', 'without']) {
      const r = await timed(
        process.execPath,
        [
          CLI,
          'run',
          '--stdio',
          demo,
          '--quiet',
          '--out-dir',
          join(work, `security-${which}`),
          ...(which === 'without' ? ['--skip-security'] : []),
        ],
        { timeoutMs: 120_000 },
      );
      if (r.code !== 0)
        throw new Error(`the demo run ${which} the security suite exited ${r.code}: ${r.stderr.slice(-2000)}`);
      if (i > 0) times[which].push(r.ms);
    }
  }
  const added = median(times.with) - median(times.without);
  row('security', 'demo default run: with − --skip-security', added, 'ms', '< 3000 ms', added < 3000, {
    withMs: r2(median(times.with)),
    withoutMs: r2(median(times.without)),
  });
}

/**
 * What a page fault costs here: the first write to each 4 KiB page of a fresh 64 MiB buffer (the kernel maps a zeroed
 * page for each), in µs per page, in a process of its own. A run's memory is paid for this way, so the same harness
 * ratios differ between machines where it costs 0.5 µs and where it costs 15 (a virtual machine that traps each one).
 * Measured only when a group whose figures it explains runs (overhead, scale, fleet): three processes, ~1.2 s here.
 */
function pageFaultUs() {
  const code =
    'const n = 16384; const a = new Uint8Array(n * 4096); const t = performance.now(); for (let i = 0; i < n; i++) a[i * 4096] = 1; process.stdout.write(String((performance.now() - t) * 1000 / n));';
  const us = [0, 1, 2].map(() => Number(spawnSync(process.execPath, ['-e', code], { encoding: 'utf8' }).stdout));
  return r2(median(us));
}

/**
 * `load` against autocannon: the same JSON-RPC POST (ping, protocol 2025-11-25) at the same concurrency against the
 * project's own HTTP mock (`serve --fixture fixtures/mocks/calc.yaml --http 0`), side by side in interleaved rounds.
 * autocannon (its command line) sends on one session (its id as a header), load opens one session per client and
 * checks every answer (schema, canary shape); both run as child processes started alike. The row is load's answered
 * requests per second over autocannon's (target ≥ 0.8).
 */
async function loadBench(rounds, connections = 8, seconds = QUICK ? 3 : 5) {
  const child = spawn(
    process.execPath,
    [CLI, 'serve', '--fixture', join(ROOT, 'fixtures/mocks/calc.yaml'), '--http', '0'],
    { cwd: ROOT, stdio: ['ignore', 'pipe', 'pipe'], detached: true },
  );
  groups.add(child.pid);
  try {
    const url = await new Promise((res, rej) => {
      let out = '';
      const t = setTimeout(() => rej(new Error(`serve --http: no URL in 20 s: ${out}`)), 20_000);
      const look = (b) => {
        out += b;
        const m = /(http:\/\/127\.0\.0\.1:\d+\/mcp)/.exec(out);
        if (m) {
          clearTimeout(t);
          res(m[1]);
        }
      };
      child.stdout.on('data', look);
      child.stderr.on('data', look);
    });
    const H = {
      'content-type': 'application/json',
      accept: 'application/json, text/event-stream',
      'mcp-protocol-version': '2025-11-25',
    };
    const init = await fetch(url, {
      method: 'POST',
      headers: H,
      body: JSON.stringify({
        jsonrpc: '2.0',
        id: 1,
        method: 'initialize',
        params: { protocolVersion: '2025-11-25', capabilities: {}, clientInfo: { name: 'autocannon', version: '1' } },
      }),
    });
    const sid = init.headers.get('mcp-session-id');
    await init.text();
    const dir = mkdtempSync(join(work, 'load-'));
    const rps = { load: [], autocannon: [] };
    for (let i = 0; i < rounds; i++) {
      for (const which of i % 2 ? ['autocannon', 'load'] : ['load', 'autocannon']) {
        if (which === 'autocannon') {
          // Its command line, started as load is (a child process of its own): the machine schedules both alike.
          const headers = Object.entries({ ...H, 'mcp-session-id': sid }).flatMap(([k, v]) => ['-H', `${k}=${v}`]);
          const t = await timed(
            process.execPath,
            [
              AUTOCANNON,
              '-j',
              '-c',
              String(connections),
              '-d',
              String(seconds),
              '-m',
              'POST',
              ...headers,
              '-b',
              JSON.stringify({ jsonrpc: '2.0', id: 2, method: 'ping' }),
              url,
            ],
            { timeoutMs: (seconds + 30) * 1000 },
          );
          const r = JSON.parse(t.stdout);
          if (r.non2xx || r.errors) throw new Error(`autocannon: ${r.non2xx} non-2xx answers, ${r.errors} errors`);
          rps.autocannon.push(r.requests.total / seconds);
        } else {
          const r = await timed(
            process.execPath,
            [
              CLI,
              'load',
              '--http',
              url,
              '--sessions',
              String(connections),
              '--duration',
              String(seconds),
              '--mix',
              'ping',
              '--protocol-version',
              '2025-11-25',
              '--reporter',
              'json',
              '--out-dir',
              dir,
            ],
            { timeoutMs: (seconds + 30) * 1000 },
          );
          if (r.code !== 0) throw new Error(`load exited ${r.code}: ${r.stderr.slice(-2000)}`);
          const l = JSON.parse(readFileSync(join(dir, 'report.json'), 'utf8')).load;
          if (l.crossed || Object.keys(l.errors).length)
            throw new Error(`load: ${l.crossed} crossed, errors ${JSON.stringify(l.errors)}`);
          rps.load.push(l.throughput);
        }
      }
    }
    const ratio = median(rps.load) / median(rps.autocannon);
    row(
      'load',
      `load / autocannon rps (${connections} connections, ping, serve --http)`,
      ratio,
      '×',
      '≥ 0.8',
      ratio >= 0.8,
      { loadRps: r2(median(rps.load)), autocannonRps: r2(median(rps.autocannon)), seconds, rounds },
    );
  } finally {
    killGroup(child.pid, 'SIGTERM');
    groups.delete(child.pid);
  }
}

const t0 = performance.now();
const machine = {
  cpus: cpus().length,
  cpu: cpus()[0]?.model,
  memoryGb: r2(totalmem() / 2 ** 30),
  node: process.version,
  platform: `${process.platform} ${process.arch}`,
  python: spawnSync(PY, ['--version'], { encoding: 'utf8' }).stdout.trim(),
  ...(['overhead', 'scale', 'fleet'].some((g) => ONLY.includes(g)) ? { pageFaultUs: pageFaultUs() } : {}),
};
// The machine's load average (1 min) when the bench starts and ends: other work on the machine moves absolute times.
const loadAtStart = r2(loadavg()[0]);
process.stderr.write(
  `mcp-conform bench${QUICK ? ' (quick)' : ''}: ${ROUNDS} rounds, medians; ${machine.cpus} × ${machine.cpu}, node ${machine.node}; ${machine.pageFaultUs !== undefined ? `a page fault ${machine.pageFaultUs} µs; ` : ''}load average ${loadAtStart}\n`,
);
process.stderr.write(
  `  ${'group'.padEnd(10)} ${'row'.padEnd(48)} ${'value'.padStart(10)} ${'unit'.padEnd(10)} ${'target'.padEnd(26)}\n`,
);
if (ONLY.includes('startup')) await startup();
if (ONLY.includes('overhead')) {
  await overhead(10, 2, ROUNDS);
  await overhead(QUICK ? 1000 : 5000, 1.3, Math.max(2, Math.min(ROUNDS, 3)), 'ping');
}
if (ONLY.includes('scale'))
  await scale(QUICK ? [100, 1000, 10000] : [100, 1000, 10000], QUICK ? 1 : Math.min(ROUNDS, 3));
if (ONLY.includes('validation')) await validation();
if (ONLY.includes('replay')) await replay(QUICK ? 500 : 2000, QUICK ? 2 : Math.min(ROUNDS, 3));
if (ONLY.includes('conformance')) await conformance(QUICK ? 1 : Math.min(ROUNDS, 3));
if (ONLY.includes('fleet')) {
  await fleet(QUICK ? 1 : Math.min(ROUNDS, 3));
  await fleet(QUICK ? 1 : Math.min(ROUNDS, 2), {
    label: 'SDK servers: ',
    stdio: `${JSON.stringify(process.execPath)} ${SDK_SERVER}`,
  });
}
if (ONLY.includes('inflight')) await inflight(QUICK ? 1 : Math.min(ROUNDS, 2));
if (ONLY.includes('oauth')) await oauth(QUICK ? 2 : ROUNDS);
if (ONLY.includes('load')) await loadBench(QUICK ? 2 : Math.min(ROUNDS, 3));
if (ONLY.includes('security')) await security(QUICK ? 2 : Math.min(ROUNDS, 3));
if (ONLY.includes('clientauth')) await clientAuth(QUICK ? 1 : Math.min(ROUNDS, 3));
const totalS = (performance.now() - t0) / 1000;
const doc = {
  when: new Date().toISOString(),
  quick: QUICK,
  rounds: ROUNDS,
  machine: { ...machine, loadAverage1m: { start: loadAtStart, end: r2(loadavg()[0]) } },
  totalSeconds: r2(totalS),
  rows,
};
writeFileSync(OUT, JSON.stringify(doc, null, 2) + '\n');
const missed = rows.filter((r) => r.met === false);
process.stdout.write(`\n${'row'.padEnd(58)} ${'value'.padStart(10)} ${'target'.padEnd(26)} met\n`);
for (const r of rows)
  process.stdout.write(
    `${`${r.group}: ${r.name}`.padEnd(58)} ${`${r.value} ${r.unit}`.padStart(12)} ${r.target.padEnd(26)} ${r.met === undefined ? '-' : r.met ? 'yes' : 'NO'}\n`,
  );
process.stdout.write(
  `\n${rows.filter((r) => r.met).length} targets met, ${missed.length} not met; ${r2(totalS)} s; load average ${doc.machine.loadAverage1m.start} → ${doc.machine.loadAverage1m.end} (${machine.cpus} cores); written to ${OUT}\n`,
);
