/**
 * The isolation probe: clients already open (core/concurrency/clients.ts) first send their requests one at a time
 * (what a quiet server answers), then in a few bounded rounds all at once with the same JSON-RPC id, each carrying
 * its canary. The outcome lists every crossed answer and every request that failed only under concurrency.
 * security/session-isolation turns it into a verdict; it is the engine's, not the suite's, so that `load` and other
 * callers share it.
 */
import { performance } from 'node:perf_hooks';
import { canary, type CanaryTool, type MarkedRequest } from './canary.js';
import { crossedText, sameIdRound, type ConcurrentClient, type RoundOutcome } from './clients.js';
import { SessionError } from '../session.js';

export interface IsolationOptions {
  run: string;
  /** How many concurrent rounds at most (they stop early once an answer crossed). */
  rounds: number;
  /** Bound for each request (ms). */
  timeoutMs: number;
  /** The whole probe's bound (ms): no new round starts after it. */
  budgetMs: number;
  /** A read-only tool the policy lets the run call, with a string argument for the canary. */
  canaryTool?: CanaryTool;
  /** Methods the server answers (by its capabilities), for canaries by shape: ping always. */
  methods: string[];
  /** The JSON-RPC id of the first round (each round the next; every client uses the same). */
  firstId: number;
}

export interface IsolationOutcome {
  /** How the requests were told apart. */
  by: 'tool-canary' | 'shape';
  /** The tool whose echo carried the canaries. */
  tool?: string;
  /** Why no tool canary (when by shape). */
  noToolWhy?: string;
  rounds: number;
  sent: number;
  crossed: RoundOutcome[];
  /** Requests answered alone but failing (error, no answer) in a concurrent round. */
  concurrencyOnly: RoundOutcome[];
  /** Requests that failed alone as well (the server's ordinary behaviour, not judged here). */
  failingAlone: string[];
  /** Distinct answer shapes in play (by shape: how many clients can be told apart). */
  distinct: number;
  lines: string[];
}

function requestFor(c: ConcurrentClient, round: number, o: IsolationOptions, echo: boolean): MarkedRequest {
  if (echo && o.canaryTool) {
    const k = canary(o.run, c.index, round);
    return {
      client: c.index,
      seq: round,
      method: 'tools/call',
      params: { name: o.canaryTool.tool.name, arguments: o.canaryTool.args(k) },
      canary: k,
      tool: o.canaryTool.tool.name,
    };
  }
  const method = o.methods[(c.index + round) % o.methods.length]!;
  return { client: c.index, seq: round, method };
}

export async function probeIsolation(
  clients: readonly ConcurrentClient[],
  o: IsolationOptions,
): Promise<IsolationOutcome> {
  const t0 = performance.now();
  const lines: string[] = [];
  let echo = false;
  let noToolWhy: string | undefined = o.canaryTool
    ? undefined
    : 'no read-only tool with a plain string argument that the call policy lets the run call';
  let nextSoloId = o.firstId + 1000;
  // Does the tool echo its canary? One call alone on the first client.
  if (o.canaryTool && clients[0]) {
    const k = canary(o.run, clients[0].index, 9999);
    try {
      const r = await clients[0].session.sendRequest(
        {
          jsonrpc: '2.0',
          id: nextSoloId++,
          method: 'tools/call',
          params: { name: o.canaryTool.tool.name, arguments: o.canaryTool.args(k) },
        },
        { timeoutMs: o.timeoutMs },
      );
      echo = !!r.result && JSON.stringify(r.result).includes(k) && r.result.isError !== true;
      if (!echo)
        noToolWhy = `${o.canaryTool.tool.name} does not repeat its ${o.canaryTool.property} argument in its answer`;
    } catch (e) {
      noToolWhy = `${o.canaryTool.tool.name} called alone got no answer (${(e as Error).message})`;
    }
    lines.push(
      echo
        ? `canaries by tool: ${o.canaryTool.tool.name}(${o.canaryTool.property}: "mcc…") repeats its argument`
        : `canaries by shape: ${noToolWhy}`,
    );
  }
  // Alone: each client's first request, one at a time (what fails alone is no finding of isolation).
  const failingAlone = new Set<string>();
  for (const c of clients) {
    const req = requestFor(c, 0, o, echo);
    const key = req.tool ?? req.method;
    if (failingAlone.has(key)) continue;
    try {
      const r = await c.session.sendRequest(
        { jsonrpc: '2.0', id: nextSoloId++, method: req.method, ...(req.params ? { params: req.params } : {}) },
        { timeoutMs: o.timeoutMs },
      );
      if (r.error) failingAlone.add(key);
    } catch (e) {
      failingAlone.add(key);
      lines.push(`alone: client ${c.index} ${key} got no answer (${e instanceof SessionError ? e.kind : 'failed'})`);
    }
  }
  const crossed: RoundOutcome[] = [];
  const concurrencyOnly: RoundOutcome[] = [];
  let rounds = 0;
  let sent = 0;
  for (let r = 1; r <= o.rounds; r++) {
    if (performance.now() - t0 > o.budgetMs) {
      lines.push(`stopped after ${rounds} round(s): the probe's ${o.budgetMs} ms were used`);
      break;
    }
    const live = clients.filter((c) => !c.session.closed);
    if (live.length < 2) {
      lines.push('fewer than two clients left open');
      break;
    }
    const reqs = live.map((c) => requestFor(c, r, o, echo));
    const outs = await sameIdRound(live, reqs, o.firstId + r, o.run, o.timeoutMs);
    rounds++;
    sent += outs.length;
    for (const x of outs) {
      const key = x.request.tool ?? x.request.method;
      lines.push(
        `round ${r} (id ${o.firstId + r}): client ${x.request.client} ${key}: ${x.kind}${x.what ? ` — ${x.what}` : ''} (${x.ms} ms)`,
      );
      if (x.kind === 'crossed') crossed.push(x);
      else if ((x.kind === 'error' || x.kind === 'no-answer') && !failingAlone.has(key)) concurrencyOnly.push(x);
    }
    if (crossed.length) break; // decided: no need to keep loading a server that mixes answers up
  }
  const distinct = echo ? clients.length : new Set(clients.map((c) => requestFor(c, 1, o, false).method)).size;
  for (const x of crossed) lines.push(`crossed: ${crossedText(x)}`);
  return {
    by: echo ? 'tool-canary' : 'shape',
    ...(echo ? { tool: o.canaryTool!.tool.name } : { noToolWhy }),
    rounds,
    sent,
    crossed,
    concurrencyOnly,
    failingAlone: [...failingAlone],
    distinct,
    lines,
  };
}
