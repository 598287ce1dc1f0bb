#!/usr/bin/env node
// The floor: a minimal raw JSON-RPC client. It starts the server, writes the given lines one by one and, for a
// line that expects an answer, waits for the line that carries its id before sending the next (one round trip at
// a time, no parsing beyond the answers' ids, no schema checks, no log). Then it closes stdin and waits for exit.
//
//   node bench/raw-client.mjs SCRIPT.json -- command args…
//
// SCRIPT.json: [{ "raw": "<line>", "wait": <id> }…]; "wait" absent = send and go on (a notification, a probe).
// Prints one JSON line: { ms, roundTrips, firstMs } (firstMs: until the first answer, i.e. start-up and initialize).
import { spawn } from 'node:child_process';
import { readFileSync } from 'node:fs';

const t0 = performance.now();
const sep = process.argv.indexOf('--');
const script = JSON.parse(readFileSync(process.argv[2], 'utf8'));
const [cmd, ...args] = process.argv.slice(sep + 1);
const child = spawn(cmd, args, { stdio: ['pipe', 'pipe', 'ignore'] });
let waiting; // { id, resolve }
let partial = '';
child.stdout.setEncoding('utf8');
child.stdout.on('data', (s) => {
  let text = partial + s;
  let nl;
  while ((nl = text.indexOf('\n')) >= 0) {
    const line = text.slice(0, nl);
    text = text.slice(nl + 1);
    if (!waiting) continue;
    let id;
    try {
      id = JSON.parse(line).id;
    } catch {
      continue;
    }
    if (id === waiting.id) {
      const w = waiting;
      waiting = undefined;
      w.resolve();
    }
  }
  partial = text;
});
const exited = new Promise((r) => child.once('exit', r));
let trips = 0;
let firstMs;
for (const step of script) {
  if (step.wait === undefined) {
    child.stdin.write(step.raw + '\n');
    continue;
  }
  await new Promise((resolve) => {
    waiting = { id: step.wait, resolve };
    child.stdin.write(step.raw + '\n');
  });
  trips++;
  firstMs ??= performance.now() - t0;
}
child.stdin.end();
await exited;
process.stdout.write(JSON.stringify({ ms: performance.now() - t0, roundTrips: trips, firstMs }) + '\n');
