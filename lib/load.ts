/**
 * `mcp-conform load`: hold a server under many concurrent clients and report throughput, latency percentiles, errors by
 * kind, answers that reached the wrong client, and the memory of a server it started. The target is reached as `run`
 * reaches it (lib/conformance.ts prepareRun); the version is negotiated once; then N clients (core/concurrency/) send
 * the mix (core/load/mix.ts) through the generator (core/load/engine.ts). The report is a run report whose one suite,
 * `load`, holds the checks load/crossed, load/error-rate, load/p95 and load/memory, with the figures in `load`.
 */
import { performance } from 'node:perf_hooks';
import { isIP } from 'node:net';
import {
  OptionsError,
  prepareRun,
  runCredentials,
  withAuthServer,
  type ConformanceOptions,
  type PreparedRun,
  type TargetConformanceOptions,
} from './conformance.js';
import { validatorFor } from './validate.js';
import { createTransport, targetInfo, type Target, type TransportOptions } from '../core/transport/index.js';
import { Session } from '../core/session.js';
import { isStateless, negotiate, requestMetaFor } from '../core/negotiate.js';
import { CLIENT_INFO } from '../core/run.js';
import { listAllTools } from '../core/tools.js';
import { planCalls, type CallToolsPolicy } from '../core/call-policy.js';
import { canaryRun, findCanaryTool, canary, type CanaryTool } from '../core/concurrency/canary.js';
import { handshake } from '../core/concurrency/clients.js';
import { encodeHistogram, LoadStats, percentilesOf } from '../core/load/stats.js';
import { MemorySampler, memoryGrowth } from '../core/load/memory.js';
import { chosenMix, defaultMix, mixCycle, parseMix, type Surface } from '../core/load/mix.js';
import { IdPool, runLoad, type LoadClient, type PendingClient } from '../core/load/engine.js';
import { HttpSender, sessionSender, type Sender } from '../core/load/senders.js';
import { StreamableHttpTransport } from '../core/transport/http.js';
import { DetectingTransport } from '../core/transport/detect.js';
import { VERSION } from '../core/version.js';
import { credentialsReport } from '../core/auth/credentials.js';
import { summarize } from '../core/results.js';
import type { CaseResult, Report } from '../core/results.js';
import type { Transport } from '../core/transport/types.js';
import type { ProtocolVersion } from '../core/schema/versions.js';
import type { LoadSummary } from '../core/load/summary.js';
import { check, verdicts } from '../core/load/checks.js';
export type { LoadSummary } from '../core/load/summary.js';

export interface LoadOptions
  extends TargetConformanceOptions,
    Pick<ConformanceOptions, 'credentials' | 'protocolVersion'> {
  sessions?: number;
  /** Seconds (default 10, unless only `requests` is given). */
  durationS?: number;
  requests?: number;
  /** Open loop: requests per second over all clients. */
  rate?: number;
  /** Sessions started over this many seconds. */
  rampS?: number;
  mix?: string;
  callTools?: CallToolsPolicy;
  callTool?: string[];
  allowRemote?: boolean;
  /** Fraction (0.01 = 1 %). */
  maxErrorRate?: number;
  maxP95Ms?: number;
  timeoutMs?: number;
  /** Called about once a second while the load runs. */
  onProgress?: (p: LoadProgress) => void;
  signal?: AbortSignal;
}

export interface LoadProgress {
  elapsedS: number;
  requests: number;
  rps: number;
  p95: number;
  errors: number;
  crossed: number;
  sessions: number;
}

const LOOPBACK_NAMES = new Set(['localhost', 'ip6-localhost', 'ip6-loopback']);

/** Whether a host is on the loopback range (127.0.0.0/8, ::1, localhost). */
export function isLoopbackHost(host: string): boolean {
  const h = host.replace(/^\[|\]$/g, '').toLowerCase();
  if (LOOPBACK_NAMES.has(h) || h.endsWith('.localhost')) return true;
  if (isIP(h) === 4) return h.startsWith('127.');
  if (isIP(h) === 6) return h === '::1' || h === '0:0:0:0:0:0:0:1' || /^::ffff:127\./.test(h);
  return false;
}

function checkNumbers(o: LoadOptions): void {
  if (o.sessions !== undefined && (!Number.isInteger(o.sessions) || o.sessions < 1 || o.sessions > 10_000))
    throw new OptionsError('--sessions must be a whole number from 1 to 10000');
  if (o.durationS !== undefined && (!Number.isFinite(o.durationS) || o.durationS <= 0 || o.durationS > 86_400))
    throw new OptionsError('--duration must be a positive number of seconds (at most 86400)');
  if (o.requests !== undefined && (!Number.isInteger(o.requests) || o.requests < 1))
    throw new OptionsError('--requests must be a whole number, at least 1');
  if (o.rate !== undefined) {
    if (!Number.isFinite(o.rate) || o.rate <= 0)
      throw new OptionsError('--rate must be a positive number of requests per second');
    if (o.durationS === undefined) throw new OptionsError('--rate needs --duration: an open loop runs for a time');
  }
  if (o.rampS !== undefined && (!Number.isFinite(o.rampS) || o.rampS < 0))
    throw new OptionsError('--ramp must be a number of seconds, 0 or more');
  if (o.rampS !== undefined && o.rampS >= (o.durationS ?? 10))
    throw new OptionsError('--ramp must be shorter than --duration');
  if (o.maxErrorRate !== undefined && (!Number.isFinite(o.maxErrorRate) || o.maxErrorRate < 0 || o.maxErrorRate > 1))
    throw new OptionsError('--max-error-rate must be a fraction from 0 to 1 (0.01 = 1 %) or a percentage such as 1%');
  if (o.maxP95Ms !== undefined && (!Number.isFinite(o.maxP95Ms) || o.maxP95Ms <= 0))
    throw new OptionsError('--max-p95 must be a positive number of milliseconds');
  if (o.timeoutMs !== undefined && (!Number.isFinite(o.timeoutMs) || o.timeoutMs <= 0))
    throw new OptionsError('--timeout must be a positive number of milliseconds');
}

async function discoverSurface(
  session: Session,
  caps: Record<string, unknown>,
  policy: { mode: CallToolsPolicy; allow: string[] },
  timeoutMs: number,
  run: string,
): Promise<{ surface: Surface; unknownCallTools: string[] }> {
  const surface: Surface = {
    callable: [],
    resources: [],
    prompts: [],
    methods: { tools: !!caps.tools, prompts: !!caps.prompts, resources: !!caps.resources },
    heartbeat: session.heartbeatMethod,
  };
  let unknownCallTools: string[] = [];
  if (caps.tools) {
    const l = await listAllTools(session);
    const plan = planCalls(l.tools, policy, 'load does not call task-required tools');
    surface.callable = plan.call;
    unknownCallTools = plan.unknownAllowed;
    const ct: CanaryTool | undefined = findCanaryTool(plan.call);
    if (ct) {
      const k = canary(run, 0, 0);
      const r = await session
        .request('tools/call', { name: ct.tool.name, arguments: ct.args(k) }, { timeoutMs })
        .catch(() => undefined);
      if (r?.result && r.result.isError !== true && JSON.stringify(r.result).includes(k)) surface.canaryTool = ct;
    }
  }
  if (caps.resources) {
    const r = await session.request('resources/list', undefined, { timeoutMs }).catch(() => undefined);
    const list = r?.result?.resources;
    if (Array.isArray(list))
      surface.resources = list
        .filter((x): x is { uri: string } => !!x && typeof (x as { uri?: unknown }).uri === 'string')
        .slice(0, 10);
  }
  if (caps.prompts) {
    const r = await session.request('prompts/list', undefined, { timeoutMs }).catch(() => undefined);
    const list = r?.result?.prompts;
    if (Array.isArray(list))
      surface.prompts = list
        .filter((x): x is Surface['prompts'][number] => !!x && typeof (x as { name?: unknown }).name === 'string')
        .slice(0, 10);
  }
  return { surface, unknownCallTools };
}

/** Run a load test. Throws OptionsError for a usage error (exit 2). */
export async function runLoadTest(o: LoadOptions): Promise<Report> {
  checkNumbers(o);
  const prepared = await prepareRun({ ...o, callTools: o.callTools, callTool: o.callTool }, { flags: true });
  const target: Target = prepared.run.target;
  if (target.transport !== 'stdio') {
    const host = new URL(target.url).hostname;
    if (!isLoopbackHost(host) && !o.allowRemote) {
      throw new OptionsError(
        `load sends many requests: ${host} is not a loopback address (127.0.0.1, ::1, localhost), so it needs --allow-remote (say so for a server you run yourself, a staging server say; never load a server that is not yours)`,
      );
    }
  }
  // --auth-server: the harness's authorization server runs for the whole load; the started server gets its issuer and
  // every client sends a token it minted for the MCP URL (withAuthServer sets prepared.run's target and credentials).
  return withAuthServer(prepared, prepared.run, () => loadPrepared(o, prepared));
}

async function loadPrepared(o: LoadOptions, prepared: PreparedRun): Promise<Report> {
  const target: Target = prepared.run.target;
  const credentials =
    prepared.run.credentials ?? (prepared.oauth ? await runCredentials(prepared, o.signal) : undefined);
  const sessions = o.sessions ?? 8;
  const durationMs = (o.durationS ?? (o.requests !== undefined ? 600 : 10)) * 1000;
  const timeoutMs = o.timeoutMs ?? 10_000;
  const maxErrorRate = o.maxErrorRate ?? 0.01;
  const started = new Date();
  const t0 = performance.now();
  const transportOptions: TransportOptions = {
    timeoutMs,
    shutdownGraceMs: 2000,
    clientInfo: CLIENT_INFO,
    protocolVersion: '2025-11-25',
    ...(credentials ? { credentials } : {}),
  };
  const opened: Transport[] = [];
  const make = (t: Target) => {
    const x = createTransport(t, transportOptions);
    opened.push(x);
    return x;
  };
  let transport = make(target);
  let session = new Session(transport, { timeoutMs, maxLogMessages: 1000 });
  const checks: CaseResult[] = [];
  let summary: LoadSummary | undefined;
  let aborted: string | undefined;
  let serverInfo: Record<string, unknown> = {};
  let version: ProtocolVersion | undefined;
  const failures: string[] = [];
  try {
    await transport.start();
    const neg = await negotiate({
      session,
      transport,
      timeoutMs,
      clientInfo: CLIENT_INFO,
      ...(o.protocolVersion ? { forced: o.protocolVersion as ProtocolVersion } : {}),
      restart: async () => {
        await transport.close().catch(() => undefined);
        transport = make(target);
        session = new Session(transport, { timeoutMs });
        await transport.start();
        return { session, transport };
      },
    });
    ({ session, transport } = neg);
    version = neg.version;
    if (neg.aborted) throw new Error(neg.aborted);
    const validator = validatorFor(version);
    session.setValidator(validator);
    const hs =
      (neg.handshake.handshake === 'server/discover' ? neg.handshake.discover?.result : neg.handshake.reply?.result) ??
      {};
    const metaInfo = (hs._meta as Record<string, unknown> | undefined)?.['io.modelcontextprotocol/serverInfo'];
    serverInfo = (hs.serverInfo ?? metaInfo ?? {}) as Record<string, unknown>;
    const caps = (hs.capabilities ?? {}) as Record<string, unknown>;
    const stateless = isStateless(version);
    const run = canaryRun();
    const { surface, unknownCallTools } = await discoverSurface(
      session,
      caps,
      { mode: o.callTools ?? 'safe', allow: o.callTool ?? [] },
      timeoutMs,
      run,
    );
    if (unknownCallTools.length) failures.push(`--call-tool names no listed tool: ${unknownCallTools.join(', ')}`);
    let mix;
    try {
      mix = o.mix ? chosenMix(parseMix(o.mix), surface) : defaultMix(surface);
    } catch (e) {
      throw new OptionsError((e as Error).message);
    }
    const cycle = mixCycle(mix);

    // The clients: over stdio one server process, its session shared by `sessions` workers (several requests in
    // flight on one process); over HTTP the run's session and sessions-1 more, each its own session or connection.
    const stats = new LoadStats(performance.now());
    const extras: { session: Session; transport: Transport; clean: boolean }[] = [];
    const FIRST_ID = 100_000;
    const pending: PendingClient[] = [];
    let turn: Promise<unknown> = Promise.resolve();
    let openedCount = 1;
    let failedCount = 0;
    const loadT0 = performance.now();
    const rampMs = (o.rampS ?? 0) * 1000;
    // Over Streamable HTTP each client sends lean POSTs (with the run's token when it has credentials)
    // (core/load/senders.ts); otherwise through its Session.
    const senders: HttpSender[] = [];
    const senderOf = (s: Session, t: Transport): Sender => {
      // --url: the transport it found (Streamable HTTP goes lean too).
      const http = t instanceof DetectingTransport ? t.inner : t;
      if (!(http instanceof StreamableHttpTransport)) return sessionSender(s);
      const h = http.baseHeaders();
      const x = new HttpSender({
        url: new URL(target.transport === 'stdio' ? 'http://127.0.0.1/' : target.url),
        headers: h,
        validator,
        ...(credentials ? { credentials } : {}),
        ...(stateless ? { requestMeta: requestMetaFor(version!, CLIENT_INFO, {}) } : {}),
      });
      senders.push(x);
      return x;
    };
    if (transport.kind === 'stdio') {
      const ids = new IdPool(FIRST_ID);
      const sender = sessionSender(session);
      for (let i = 0; i < sessions; i++) pending.push({ index: i, sender, ids });
    } else {
      pending.push({ index: 0, sender: senderOf(session, transport), ids: new IdPool(FIRST_ID) });
      const extraTarget: Target = { ...target, start: undefined } as Target;
      for (let i = 1; i < sessions; i++) {
        pending.push(
          (async (): Promise<LoadClient | undefined> => {
            const wait = (rampMs * i) / sessions;
            if (wait > 0) await new Promise((r) => setTimeout(r, wait));
            if (o.signal?.aborted || performance.now() - loadT0 > durationMs) return undefined;
            // Load's clients need no GET stream (nothing the server sends unasked is measured): over Streamable HTTP
            // they open none, as a client that only calls does.
            const t =
              extraTarget.transport === 'streamable-http' ||
              (extraTarget.transport === 'auto' && transport.kind === 'streamable-http')
                ? (() => {
                    const x = new StreamableHttpTransport({
                      url: new URL(extraTarget.url),
                      headers: extraTarget.headers,
                      timeoutMs,
                      openGetStream: false,
                      ...(credentials ? { credentials } : {}),
                    });
                    opened.push(x);
                    return x;
                  })()
                : make(extraTarget);
            const s = new Session(t, { timeoutMs, maxLogMessages: 1000 });
            s.setValidator(validator);
            if (stateless) {
              s.setRequestMeta(requestMetaFor(version!, CLIENT_INFO, {}));
              s.heartbeatMethod = 'server/discover';
            }
            (t as { protocolVersion?: string }).protocolVersion = stateless ? version : undefined;
            try {
              await t.start();
              // One handshake at a time (as openClients does): the initialize of every client has the same id.
              const mine = turn.then(() =>
                handshake(s, { version: version!, stateless, clientInfo: CLIENT_INFO, timeoutMs }),
              );
              turn = mine.catch(() => undefined);
              await mine;
            } catch (e) {
              failedCount++;
              if (failures.length < 10) failures.push(`client ${i}: ${(e as Error).message}`);
              await t.close().catch(() => undefined);
              return undefined;
            }
            openedCount++;
            extras.push({ session: s, transport: t, clean: true });
            return { index: i, sender: senderOf(s, t), ids: new IdPool(FIRST_ID) };
          })(),
        );
      }
    }
    // Without a ramp every client is opened (handshakes one after another) before the load starts: all start together,
    // and a server that refuses concurrency refuses requests, not the handshakes.
    const ready: PendingClient[] = rampMs
      ? pending
      : (await Promise.all(pending)).filter((c): c is LoadClient => c !== undefined);
    const pid = transport.processInfo()?.pid;
    const memory = pid !== undefined ? new MemorySampler(pid, loadT0, () => stats.answered) : undefined;
    memory?.start();
    const result = await runLoad(ready, cycle, stats, {
      durationMs,
      requests: o.requests,
      rate: o.rate,
      timeoutMs,
      graceMs: Math.min(2000, timeoutMs),
      run,
      signal: o.signal,
      onTick: () => {
        const el = (performance.now() - loadT0) / 1000;
        o.onProgress?.({
          elapsedS: Math.round(el),
          requests: stats.answered,
          rps: Math.round(stats.answered / Math.max(el, 0.001)),
          p95: stats.lastP95(),
          errors: stats.failedRequests,
          crossed: stats.crossed,
          sessions: openedCount,
        });
      },
    });
    memory?.stop();
    for (const x of senders) x.close();
    // The ends: each extra session closed (DELETE for a session), then the run's own (and the server it started).
    for (const x of extras) x.clean = !x.transport.closed;
    await Promise.all(
      extras.map(async (x) => {
        x.session.abandon('the load ended');
        await x.transport.close().catch(() => {
          x.clean = false;
        });
      }),
    );
    const mainClean = !transport.closed;
    const durationS = Math.max(result.loadMs / 1000, 0.001);
    const byMethod: LoadSummary['byMethod'] = {};
    for (const [k, m] of stats.byMethod)
      byMethod[k] = {
        requests: m.requests,
        errors: m.errors,
        latencyMs: percentilesOf(m.h),
        histogram: encodeHistogram(m.h),
      };
    const requestsDone = Object.values(byMethod).reduce((a, m) => a + m.requests, 0);
    const errorRate = requestsDone ? stats.failedRequests / requestsDone : 0;
    const samples = memory?.samples ?? [];
    const growth = memoryGrowth(samples);
    summary = {
      requests: requestsDone,
      durationS: Math.round(durationS * 1000) / 1000,
      throughput: Math.round((stats.answered / durationS) * 10) / 10,
      latencyMs: percentilesOf(stats.overall),
      byMethod,
      errors: { ...stats.errors },
      errorRate: Math.round(errorRate * 1e6) / 1e6,
      crossed: stats.crossed,
      crossedExamples: stats.crossedExamples,
      sessions: {
        requested: sessions,
        opened: transport.kind === 'stdio' ? 1 : openedCount,
        failed: failedCount,
        endedCleanly: (transport.kind === 'stdio' ? 0 : extras.filter((x) => x.clean).length) + (mainClean ? 1 : 0),
        ...(failures.length ? { failures } : {}),
      },
      ...(samples.length
        ? {
            memory: {
              startMb: samples[0]!.mb,
              peakMb: Math.max(...samples.map((x) => x.mb)),
              endMb: samples.at(-1)!.mb,
              samples: samples.map((x) => [x.s, x.mb] as [number, number]),
              ...(growth ? { growthMbPer1000Requests: growth.mbPer1000, steady: growth.steady } : {}),
            },
          }
        : {}),
      timeline: stats.timeline(),
      histogram: { encoding: 'hdr-compressed-base64', unit: 'us', value: stats.encoded(), buckets: stats.buckets() },
      mode: o.rate !== undefined ? 'open-loop' : 'closed-loop',
      endedBy: result.endedBy,
      unfinished: result.unfinished,
      canary: surface.canaryTool ? { by: 'tool', tool: surface.canaryTool.tool.name } : { by: 'shape' },
      mix: mix.map((m) => `${m.key}=${m.weight}`),
      options: {
        sessions,
        durationS: durationMs / 1000,
        ...(o.requests !== undefined ? { requests: o.requests } : {}),
        ...(o.rate !== undefined ? { rate: o.rate } : {}),
        ...(o.rampS !== undefined ? { rampS: o.rampS } : {}),
        maxErrorRate,
        ...(o.maxP95Ms !== undefined ? { maxP95Ms: o.maxP95Ms } : {}),
        timeoutMs,
        callTools: o.callTools ?? 'safe',
        callTool: o.callTool ?? [],
        allowRemote: !!o.allowRemote,
      },
    };
    checks.push(...verdicts(summary, maxErrorRate, o.maxP95Ms, pid !== undefined));
  } catch (e) {
    if (e instanceof OptionsError) throw e;
    aborted = (e as Error).message;
    checks.push(check('load/crossed', 'no answer reached the wrong client', 'skip', `not run: ${aborted}`));
  } finally {
    session.abandon('the load ended');
    await Promise.all(opened.map((t) => t.close().catch(() => undefined)));
  }
  const report: Report = {
    tool: { name: 'mcp-conform', version: VERSION },
    reportVersion: 1,
    startedAt: started.toISOString(),
    durationMs: Math.round(performance.now() - t0),
    exitCode: 0,
    ...(aborted ? { aborted } : {}),
    summary: summarize([{ id: 'load', title: 'Load', durationMs: 0, cases: checks }], []),
    server: { name: str(serverInfo.name), version: str(serverInfo.version), protocolVersion: version },
    target: targetInfo(target, transport),
    process: transport.processInfo() ?? { stderr: [] },
    options: { command: 'load', ...(summary?.options ?? {}) },
    skippedTools: [],
    suites: [{ id: 'load', title: 'Load', durationMs: Math.round(performance.now() - t0), cases: checks }],
    messages: [],
    ...(credentials ? { authorization: credentialsReport(credentials) } : {}),
    ...(summary ? { load: summary as unknown as Record<string, unknown> } : {}),
  };
  return report;
}

function str(v: unknown): string | undefined {
  return typeof v === 'string' ? v : undefined;
}
