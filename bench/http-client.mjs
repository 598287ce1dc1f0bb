#!/usr/bin/env node
// The HTTP counterpart of raw-client.mjs: a minimal Streamable HTTP client. It starts the server, reads its URL from
// what the server prints ("listening <port>" as fixtures/servers/sdk-http.mjs does, or "… at http://…" as
// `mcp-conform serve --http 0` / `record --listen-http 0` do), then POSTs the given messages one by one over a single
// keep-alive connection, one request at a time: Accept: application/json, text/event-stream; the Mcp-Session-Id of
// the initialize answer (and the negotiated MCP-Protocol-Version) sent on every later request; answers read as JSON
// or as an SSE stream (to its end), nothing else parsed. A request's answer must be a result (an error, a miss of
// the replay engine, fails the run). Then DELETE of the session, SIGTERM to the server, wait for its exit.
//
//   node bench/http-client.mjs SCRIPT.json -- command args…
//
// SCRIPT.json: as for raw-client.mjs ([{ "raw": "<message>", "wait": <id> }…]; "wait" absent: a notification, 202).
// Prints one JSON line: { ms, firstMs, steadyMs, roundTrips } — firstMs: from the start until the initialize answer
// (server start-up included); steadyMs: from there until the last answer (the rest of the script).
// Every wait is bounded (server URL 20 s, each request 15 s, server exit 5 s); exit code 1 on any failure.
import { spawn } from 'node:child_process';
import { Agent, request } from 'node:http';
import { readFileSync } from 'node:fs';

const t0 = performance.now();
const sep = process.argv.indexOf('--');
const script = JSON.parse(readFileSync(process.argv[2], 'utf8'));
const [cmd, ...args] = process.argv.slice(sep + 1);

const child = spawn(cmd, args, { stdio: ['ignore', 'pipe', 'pipe'] });
const exited = new Promise((r) => child.once('exit', r));
let output = '';

function fail(msg) {
  process.stderr.write(`http-client: ${msg}\n${output.slice(-2000)}`);
  child.kill('SIGKILL');
  process.exit(1);
}
const url = await new Promise((resolve, reject) => {
  const t = setTimeout(() => reject(new Error('the server printed no URL in 20 s')), 20_000);
  const look = (s) => {
    output += s;
    if (output.length > 64 * 1024) output = output.slice(-32 * 1024);
    const at = / at (http:\/\/\S+)/.exec(output);
    const port = /listening (\d+)/.exec(output);
    if (at || port) {
      clearTimeout(t);
      resolve(at ? at[1] : `http://127.0.0.1:${port[1]}/mcp`);
    }
  };
  child.stdout.setEncoding('utf8').on('data', look);
  child.stderr.setEncoding('utf8').on('data', look);
  child.once('exit', (code) => {
    clearTimeout(t);
    reject(new Error(`the server exited (${code}) before printing its URL`));
  });
}).catch((e) => fail(e.message));

const agent = new Agent({ keepAlive: true, maxSockets: 1 });
const target = new URL(url);
let sessionId;
let protocolVersion;

/** One HTTP exchange: resolves { status, headers, body }. */
function exchange(method, body) {
  return new Promise((resolve, reject) => {
    const headers = { accept: 'application/json, text/event-stream' };
    if (body !== undefined) {
      headers['content-type'] = 'application/json';
      headers['content-length'] = Buffer.byteLength(body);
    }
    if (sessionId) headers['mcp-session-id'] = sessionId;
    if (protocolVersion) headers['mcp-protocol-version'] = protocolVersion;
    const req = request(
      { agent, host: target.hostname, port: target.port, path: target.pathname, method, headers },
      (res) => {
        let text = '';
        res.setEncoding('utf8');
        res.on('data', (c) => {
          text += c;
        });
        res.on('end', () => resolve({ status: res.statusCode, headers: res.headers, body: text }));
        res.on('error', reject);
      },
    );
    req.setTimeout(15_000, () => req.destroy(new Error(`${method} ${url}: no answer in 15 s`)));
    req.on('error', reject);
    req.end(body);
  });
}

/** The JSON-RPC messages of an answer: a JSON body, or the data of each SSE event. */
function messagesOf(res) {
  const type = String(res.headers['content-type'] ?? '');
  if (type.startsWith('application/json')) return [JSON.parse(res.body)];
  if (type.startsWith('text/event-stream')) {
    const out = [];
    for (const ev of res.body.split(/\r?\n\r?\n/)) {
      const data = ev
        .split(/\r?\n/)
        .filter((l) => l.startsWith('data:'))
        .map((l) => l.slice(l[5] === ' ' ? 6 : 5))
        .join('\n');
      if (data) out.push(JSON.parse(data));
    }
    return out;
  }
  return [];
}

let trips = 0;
let firstMs;
let lastMs;
try {
  for (const step of script) {
    const res = await exchange('POST', step.raw);
    if (step.wait === undefined) {
      if (res.status !== 202 && res.status !== 200)
        throw new Error(`${step.raw.slice(0, 80)}: HTTP ${res.status} ${res.body.slice(0, 300)}`);
      continue;
    }
    if (res.status !== 200) throw new Error(`${step.raw.slice(0, 80)}: HTTP ${res.status} ${res.body.slice(0, 300)}`);
    const answer = messagesOf(res).find((m) => m && m.id === step.wait);
    if (!answer)
      throw new Error(`${step.raw.slice(0, 80)}: no answer with id ${step.wait} in ${res.body.slice(0, 300)}`);
    if (!answer.result) throw new Error(`${step.raw.slice(0, 80)}: ${JSON.stringify(answer).slice(0, 400)}`);
    trips++;
    if (firstMs === undefined) {
      firstMs = performance.now() - t0;
      sessionId = res.headers['mcp-session-id'];
      protocolVersion = answer.result.protocolVersion;
    }
    lastMs = performance.now() - t0;
  }
  if (sessionId) await exchange('DELETE').catch(() => undefined);
} catch (e) {
  fail(e.message);
}
agent.destroy();
child.kill('SIGTERM');
const killer = setTimeout(() => child.kill('SIGKILL'), 5_000);
await exited;
clearTimeout(killer);
process.stdout.write(
  JSON.stringify({ ms: performance.now() - t0, firstMs, steadyMs: lastMs - firstMs, roundTrips: trips }) + '\n',
);
