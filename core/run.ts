/**
 * A conformance run: start the server, initialize, run the selected suites, shut down, and build the report.
 * A run is a value: nothing here is global, so two runs can share a process.
 */
import { performance } from 'node:perf_hooks';
import { finalizeReport } from './finalize.js';
import { SchemaWorkbench } from './jsonschema.js';
import { summarize, type CaseResult, type Report, type SuiteResult, type Verdict } from './results.js';
import { Session, SessionError } from './session.js';
import { MessageValidator } from './schema/validator.js';
import { schemaDocumentFor } from './schema/index.js';
import { DEFAULT_OFFERED_VERSION, PROTOCOL_VERSIONS, dialectOf, specUrl, type ProtocolVersion } from './schema/versions.js';
import { isStateless, negotiate, requestMetaFor, suiteCounts, type MatrixEntry } from './negotiate.js';
import { unanswered, type CallToolsPolicy, type CaseContext, type CaseDef, type InitOutcome, type ItemOutcome, type Outcome, type Suite, type ToolCallRecord } from './suite.js';
import { listAllTools, type ToolListing } from './tools.js';
import { planCalls, type CallPlan } from './call-policy.js';
import { taskCallsUnsupported } from './tasks.js';
import { createTransport, targetInfo, type Target, type TransportOptions } from './transport/index.js';
import type { Transport } from './transport/types.js';
import { VERSION } from './version.js';
import { clientCapabilitiesObject, type Root } from './client-capabilities.js';

export type { HttpTarget, StdioTarget, Target } from './transport/index.js';

export interface RunOptions {
  target: Target;
  suites: Suite[];
  /** Suite ids to run (all when empty). */
  suiteFilter?: string[];
  /** Case ids or id prefixes to run (all when empty). */
  caseFilter?: string[];
  timeoutMs?: number;
  strict?: boolean;
  callTools?: CallToolsPolicy;
  /** --call-tool NAME: tools called on top of the callTools policy (whatever it is). */
  callToolNames?: string[];
  unknownToolCode?: number;
  /** --client-capabilities: client capabilities the harness declares and answers with canned results (sampling, elicitation, roots). */
  clientCapabilities?: string[];
  /** --root: the roots answered to roots/list when roots is declared. */
  roots?: Root[];
  /** Speak only this version. */
  protocolVersion?: ProtocolVersion;
  /** Bound for each shutdown step (ms). */
  shutdownGraceMs?: number;
  maxMessageBytes?: number;
  /**
   * Progress: called when a suite has run its cases of a phase ('session' while the server runs, 'after-shutdown' for
   * the cases that read the whole log), with the results that phase added. The suite is complete after its
   * 'after-shutdown' call.
   */
  onSuite?: (suite: SuiteResult, phase: 'session' | 'after-shutdown', added: CaseResult[]) => void;
  /**
   * Bound on the whole run (ms, default 10 minutes). When it runs out, the case in progress and every case still to
   * come are skipped with the reason, the server is shut down and the report is built (exit code 1).
   */
  maxDurationMs?: number;
  /**
   * Cancels the run the same way (SIGINT/SIGTERM in the CLI): the report covers what ran so far. The abort reason
   * (a string such as 'SIGINT', or an Error) is quoted in report.aborted.
   */
  signal?: AbortSignal;
  /**
   * --schema FILE: validate with this schema document instead of the built-in one of the version in force (loaded and
   * compiled beforehand: see core/validate-log.ts loadSchemaFile). The dialect comes from its `$schema`.
   */
  schema?: { file: string; document: Record<string, unknown>; dialect: 'draft-07' | '2020-12' };
  /** Builds the transport for a target (default: createTransport); tests put an in-process fake server here. */
  transportFactory?: (target: Target, opts: TransportOptions) => Transport;
}

export const CLIENT_INFO = { name: 'mcp-conform', version: VERSION };

/** What a run has started, so that an internal error still ends every server process (see runSuites). */
interface RunGuard {
  transports: Transport[];
  /** Sessions opened besides the main one (CaseContext.openSession). */
  extras: { close(): Promise<void> }[];
  dispose(): void;
  /** --all-versions: one bound for all the runs (performance.now() time it ends at, and the bound as given). */
  bound?: { at: number; ms: number };
  /** Set when the run was stopped (time bound or signal): why. */
  stopped?: string;
}

/** Close a transport once: every later call (restart, end of run, internal error) waits for the same shutdown. */
const closings = new WeakMap<Transport, Promise<void>>();
function closeOnce(t: Transport): Promise<void> {
  let p = closings.get(t);
  if (!p) {
    p = t.close();
    closings.set(t, p);
  }
  return p;
}

/** Reports of runs that were stopped (time bound or signal), with why: --all-versions tells them apart. */
const stoppedRuns = new WeakMap<Report, string>();

export async function runSuites(opts: RunOptions): Promise<Report> {
  return runWithGuard(opts, { transports: [], extras: [], dispose() {} });
}

async function runWithGuard(opts: RunOptions, guard: RunGuard): Promise<Report> {
  try {
    const report = await runGuarded(opts, guard);
    if (guard.stopped) stoppedRuns.set(report, guard.stopped);
    return report;
  } catch (e) {
    // An internal error: whatever it interrupted, end every server this run started before passing it on.
    await Promise.all([...guard.extras.map((x) => x.close()), ...guard.transports.map((t) => closeOnce(t))].map((p) => p.catch(() => undefined)));
    throw e;
  } finally {
    guard.dispose();
  }
}

/** The reason an AbortSignal gives, in words. */
function abortReason(signal: AbortSignal): string {
  const r: unknown = signal.reason;
  if (typeof r === 'string') return `the run was interrupted (${r})`;
  if (r instanceof Error && r.name !== 'AbortError') return `the run was interrupted: ${r.message}`;
  return 'the run was interrupted';
}

/** Thrown into a case that was still running when the run was stopped. */
class RunStopped extends Error {}

async function runGuarded(opts: RunOptions, guard: RunGuard): Promise<Report> {
  const started = new Date();
  const t0 = performance.now();
  const timeoutMs = opts.timeoutMs ?? 30_000;
  const offered = opts.protocolVersion ?? DEFAULT_OFFERED_VERSION;
  // (--url detection probes with initialize: it offers a version that has one.)
  const transportOptions = { shutdownGraceMs: opts.shutdownGraceMs, maxMessageBytes: opts.maxMessageBytes, timeoutMs, protocolVersion: isStateless(offered) ? DEFAULT_OFFERED_VERSION : offered, clientInfo: CLIENT_INFO };
  const makeTransport = opts.transportFactory ?? createTransport;
  const clientCaps = clientCapabilitiesObject(opts.clientCapabilities ?? []);
  let transport = makeTransport(opts.target, transportOptions);
  guard.transports.push(transport);
  let session = new Session(transport, { timeoutMs, clientCapabilities: clientCaps, roots: opts.roots });
  const init: InitOutcome = { offered };
  let version: ProtocolVersion = offered;
  const validatorFor = (v: ProtocolVersion) => makeValidator(v, opts.schema);
  let aborted: string | undefined;

  // The whole run is bounded (maxDurationMs) and can be cancelled (signal): either stops it where it is.
  let stopWhy: string | undefined;
  let onStop!: () => void;
  const stopped = new Promise<never>((_, reject) => { onStop = () => reject(new RunStopped(stopWhy)); });
  stopped.catch(() => undefined);
  const halt = (why: string) => {
    if (stopWhy) return;
    stopWhy = why;
    guard.stopped = why;
    onStop();
    session.abandon(`not finished: ${why}`);
  };
  const maxMs = guard.bound?.ms ?? opts.maxDurationMs ?? 600_000;
  const deadline = setTimeout(() => halt(`the run reached its time limit of ${maxMs} ms (--max-duration)`), guard.bound ? Math.max(0, guard.bound.at - performance.now()) : maxMs);
  const onAbort = () => halt(abortReason(opts.signal!));
  if (opts.signal?.aborted) onAbort();
  else opts.signal?.addEventListener('abort', onAbort, { once: true });
  guard.dispose = () => { clearTimeout(deadline); opts.signal?.removeEventListener('abort', onAbort); };
  const untilStopped = <T>(p: Promise<T>): Promise<T> => {
    p.catch(() => undefined); // a promise that loses the race must not become an unhandled rejection
    return Promise.race([p, stopped]);
  };
  /**
   * Connecting is bounded too (a spawn resolves at once; an HTTP transport has its own bounds as well). With --start
   * the server first gets its --start-timeout to accept connections, then --timeout for the rest.
   */
  const startSpec = opts.target.transport !== 'stdio' ? opts.target.start : undefined;
  const connectMs = startSpec ? (startSpec.timeoutMs ?? 15_000) + timeoutMs : timeoutMs;
  const connect = async (t: Transport) => {
    let startTimer: NodeJS.Timeout | undefined;
    const startBound = new Promise<never>((_, reject) => { startTimer = setTimeout(() => reject(new Error(`the server could not be reached within ${connectMs} ms${startSpec ? ' (--start-timeout + --timeout)' : ''}`)), connectMs); });
    try {
      await untilStopped(Promise.race([t.start(), startBound]));
    } finally {
      clearTimeout(startTimer);
    }
  };

  try {
    if (stopWhy) throw new RunStopped(stopWhy);
    await connect(transport);
  } catch (e) {
    init.failure = e as Error;
    aborted = stopWhy ?? (e as Error).message;
  }
  if (!aborted) {
    try {
      const n = await untilStopped(negotiate({
        session, transport, timeoutMs, forced: opts.protocolVersion, clientInfo: CLIENT_INFO, clientCapabilities: clientCaps,
        restart: async () => {
          // A stopped run starts no server: negotiate may go on in the background after the run stopped waiting.
          if (stopWhy) throw new RunStopped(stopWhy);
          // The first server is ended (its log stays out of the report: the negotiation step describes it).
          session.abandon('restarted after server/discover');
          await closeOnce(transport).catch(() => undefined);
          if (stopWhy) throw new RunStopped(stopWhy);
          transport = makeTransport(opts.target, transportOptions);
          guard.transports.push(transport);
          session = new Session(transport, { timeoutMs, clientCapabilities: clientCaps, roots: opts.roots });
          await connect(transport);
          if (stopWhy) throw new RunStopped(stopWhy);
          return { session, transport };
        },
      }));
      ({ session, transport, version } = n);
      Object.assign(init, { offered: n.offered, reply: n.reply, failure: n.failure ?? n.discoverFailure, initializedSeq: n.initializedSeq, handshake: n.negotiation.handshake, discover: n.discover, discoverFailure: n.discoverFailure, negotiation: n.negotiation });
      if (!n.failure && n.negotiation.handshake !== 'none') delete init.failure;
      if (n.aborted) aborted = n.aborted;
    } catch (e) {
      init.failure = e as Error;
      aborted = stopWhy ?? `negotiation failed: ${(e as Error).message}`;
    }
  }
  // Every message, the handshake included, is checked against the schema of the version in force.
  session.setValidator(validatorFor(version));

  const handshakeResult = (init.handshake === 'server/discover' ? init.discover?.result : init.reply?.result) ?? undefined;
  const capabilities = (handshakeResult?.capabilities ?? {}) as Record<string, unknown>;
  const ctx = makeContext(session, transport, opts, init, version, capabilities, timeoutMs);
  ctx.openSession = async () => {
    // Another connection to the same server: a second process for stdio; for HTTP a second session at the same
    // URL (a server the run started itself with --start is not started twice).
    const target: Target = opts.target.transport !== 'stdio' && opts.target.start ? { ...opts.target, start: undefined } : opts.target;
    const t = makeTransport(target, transportOptions);
    guard.transports.push(t);
    const s = new Session(t, { timeoutMs, clientCapabilities: clientCaps, roots: opts.roots });
    s.setValidator(validatorFor(version));
    if (isStateless(version)) {
      s.setRequestMeta(requestMetaFor(version, CLIENT_INFO, clientCaps));
      s.heartbeatMethod = 'server/discover';
    }
    let closing: Promise<void> | undefined;
    const handle = { session: s, transport: t, close: () => (closing ??= closeOnce(t).catch(() => undefined)) };
    guard.extras.push(handle);
    await untilStopped(t.start());
    return handle;
  };
  const results = new Map<string, SuiteResult>();
  const selectedSuites = opts.suites.filter((s) => (opts.suiteFilter?.length ? opts.suiteFilter.includes(s.id) : !s.transports || s.transports.includes(transport.kind)));

  const runCase = async (suite: Suite, c: CaseDef, out: CaseResult[]) => {
    if (!caseWanted(c, opts.caseFilter)) return;
    const ct0 = performance.now();
    const url = specUrl(version, c.spec);
    const base = { title: c.title, level: c.level, spec: url, requirement: c.requirement };
    const push = (id: string, o: Outcome, title?: string) => {
      out.push({ id, ...base, title: title ?? base.title, level: o.level ?? c.level, verdict: o.verdict, message: o.message, durationMs: o.durationMs ?? -1, messageIds: o.messageIds ?? [], ...(o.details ? { details: o.details } : {}) });
    };
    const first = out.length;
    let skipWhy: string | undefined;
    const needsServer = c.phase !== 'after-shutdown' && c.id !== 'lifecycle/initialize' && c.id !== 'lifecycle/version-negotiation';
    if (stopWhy && aborted === stopWhy && c.phase !== 'after-shutdown') skipWhy = `not run: ${stopWhy}`; // stopped before the handshake ended
    else if (needsServer && aborted) skipWhy = `not run: ${aborted}`;
    else if (needsServer && stopWhy) skipWhy = `not run: ${stopWhy}`;
    else if (needsServer && session.closed) skipWhy = `not run: ${transport.closeInfo?.reason ?? 'the server is gone'}${tailOf(transport)}`;
    else if (needsServer && session.unresponsive) skipWhy = `not run: ${session.unresponsive}`;
    else if (c.needsCapability && !capabilities[c.needsCapability]) skipWhy = `the server did not declare the "${c.needsCapability}" capability`;
    if (skipWhy) {
      push(c.id, { verdict: 'skip', message: skipWhy });
    } else {
      try {
        const o = needsServer ? await untilStopped(c.run(ctx)) : await c.run(ctx);
        if (Array.isArray(o)) {
          for (const item of o as ItemOutcome[]) {
            const id = `${c.id}/${item.item}`;
            if (ctx.selected(id)) push(id, item, item.title);
          }
        } else push(c.id, o);
      } catch (e) {
        const err = e as Error;
        if (stopWhy && needsServer) {
          push(c.id, { verdict: 'skip', message: `not finished: ${stopWhy}`, messageIds: unanswered(err).messageIds });
        } else if (err instanceof SessionError) {
          push(c.id, unanswered(err));
        } else {
          push(c.id, { verdict: 'fail', message: `harness error while running this case: ${err.stack ?? err.message}` });
        }
      }
    }
    const ms = Math.round((performance.now() - ct0) * 1000) / 1000;
    const unmeasured = out.slice(first).filter((r) => r.durationMs < 0);
    for (const r of unmeasured) r.durationMs = Math.round((ms / unmeasured.length) * 1000) / 1000;
  };

  const phaseRun = async (phase: 'session' | 'after-shutdown') => {
    for (const suite of selectedSuites) {
      const st0 = performance.now();
      const res = results.get(suite.id) ?? { id: suite.id, title: suite.title, durationMs: 0, cases: [] };
      results.set(suite.id, res);
      const before = res.cases.length;
      for (const c of suite.cases) {
        if ((c.phase ?? 'session') === phase) await runCase(suite, c, res.cases);
      }
      res.durationMs += Math.round((performance.now() - st0) * 1000) / 1000;
      opts.onSuite?.(res, phase, res.cases.slice(before));
    }
  };

  await phaseRun('session');
  session.abandon('the run ended');
  await Promise.all(guard.extras.map((x) => x.close()));
  // Every server the run started is ended: the one in force (the report describes it), and any other (a first
  // server a stopped negotiation restart was still ending, a connection still being made when the run stopped).
  const ending = transport;
  const others = guard.transports.filter((t) => t !== ending).map((t) => closeOnce(t).catch(() => undefined));
  await closeOnce(ending);
  await Promise.all(others);
  aborted ??= stopWhy;
  await phaseRun('after-shutdown');

  const suites = selectedSuites.map((s) => results.get(s.id)!);
  const summary = summarize(suites, session.log);
  const listing = ctx.peekTools();
  const r = handshakeResult ?? {};
  const metaInfo = (r._meta as Record<string, unknown> | undefined)?.['io.modelcontextprotocol/serverInfo'];
  const serverInfo = (r.serverInfo ?? metaInfo ?? {}) as Record<string, unknown>;
  const report: Report = {
    tool: { name: 'mcp-conform', version: VERSION },
    reportVersion: 1,
    startedAt: started.toISOString(),
    durationMs: Math.round(performance.now() - t0),
    exitCode: 0, // set by finalizeReport below
    ...(aborted ? { aborted } : {}),
    summary,
    server: {
      name: str(serverInfo.name),
      version: str(serverInfo.version),
      title: str(serverInfo.title),
      protocolVersion: init.handshake === 'server/discover' ? version : str(r.protocolVersion),
      capabilities: handshakeResult ? capabilities : undefined,
      instructions: str(r.instructions),
      toolCount: listing?.tools.length,
    },
    target: targetInfo(opts.target, ending),
    process: ending.processInfo() ?? { stderr: [] },
    options: {
      protocolVersionOffered: init.offered,
      protocolVersionInForce: version,
      schemaVersion: session.protocolVersion,
      timeoutMs,
      strict: !!opts.strict,
      callTools: opts.callTools ?? 'safe',
      callTool: opts.callToolNames ?? [],
      unknownToolCode: opts.unknownToolCode,
      clientCapabilities: opts.clientCapabilities ?? [],
      ...(opts.roots ? { roots: opts.roots } : {}),
      suites: selectedSuites.map((s) => s.id),
      cases: opts.caseFilter ?? [],
      ...(opts.schema ? { schemaFile: opts.schema.file } : {}),
    },
    skippedTools: ctx.peekPlan()?.skipped ?? [],
    ...(ctx.peekPlan()?.unknownAllowed.length ? { unknownCallTools: ctx.peekPlan()!.unknownAllowed } : {}),
    suites,
    messages: session.log,
    ...(session.dropped.messages ? { droppedMessages: session.dropped } : {}),
    ...(ending.httpExchanges ? { http: { exchanges: ending.httpExchanges() } } : {}),
    ...(init.negotiation ? { negotiation: init.negotiation } : {}),
  };
  finalizeReport(report); // --strict, the summary, the exit code
  return report;
}

function str(v: unknown): string | undefined {
  return typeof v === 'string' ? v : undefined;
}

function tailOf(t: Transport): string {
  const tail = t.closeInfo?.stderrTail ?? [];
  return tail.length ? `; last stderr lines: ${tail.slice(-5).join(' | ')}` : '';
}

function makeValidator(v: ProtocolVersion, custom?: RunOptions['schema']): MessageValidator {
  if (custom) return new MessageValidator(v, custom.document, custom.dialect);
  const { version, document } = schemaDocumentFor(v);
  return new MessageValidator(version, document);
}

/**
 * --all-versions: one full run per published version, each forced to that version on a fresh server (process or
 * HTTP session). The report returned is the run of the newest version the server accepted (else the last one tried),
 * with `matrix` listing every version; its exit code is 1 when an accepted version has a failing case, when the
 * server accepted none, or when the runs were stopped. --max-duration bounds all the runs together: a version whose
 * handshake the bound (or an interrupt) cut short, or that never started, is "not tested" (`tested: false`).
 */
export async function runAllVersions(opts: RunOptions, onVersion?: (v: ProtocolVersion, r: Report) => void): Promise<Report> {
  const matrix: MatrixEntry[] = [];
  let main: Report | undefined;
  let mainAccepted = false;
  const ms = opts.maxDurationMs ?? 600_000;
  const bound = { at: performance.now() + ms, ms };
  let stopped: string | undefined;
  for (const v of PROTOCOL_VERSIONS) {
    if (!stopped && opts.signal?.aborted) stopped = abortReason(opts.signal);
    if (!stopped && performance.now() >= bound.at) stopped = `the run reached its time limit of ${ms} ms (--max-duration)`;
    if (stopped) {
      matrix.push({ protocolVersion: v, accepted: false, tested: false, reason: `not run: ${stopped}`, summary: summarize([], []), suites: [] });
      continue;
    }
    const r = await runWithGuard({ ...opts, protocolVersion: v }, { transports: [], extras: [], dispose() {}, bound });
    const cut = stoppedRuns.get(r);
    if (cut) stopped = cut;
    // Accepted: the handshake succeeded and agreed on v (a counter-offer of another version is a refusal of v).
    const n = r.negotiation;
    const accepted = !!n && n.handshake !== 'none' && n.version === v && r.options.protocolVersionInForce === v;
    // Stopped before the handshake decided: nothing is known about v.
    const untested = !accepted && !!cut && r.aborted === cut;
    const reason = accepted ? undefined : untested ? `cut short: ${cut}` : r.negotiation?.steps.at(-1)?.message ?? r.aborted ?? 'no handshake';
    matrix.push({ protocolVersion: v, accepted, ...(untested ? { tested: false } : {}), ...(reason ? { reason } : {}), summary: r.summary, suites: r.suites.map(suiteCounts) });
    if (accepted || !mainAccepted) { main = r; mainAccepted = accepted; }
    onVersion?.(v, r);
  }
  const report = main ?? (await runWithGuard({ ...opts, protocolVersion: PROTOCOL_VERSIONS.at(-1)! }, { transports: [], extras: [], dispose() {}, bound }));
  report.matrix = matrix;
  if (stopped) report.aborted ??= stopped;
  finalizeReport(report); // the exit code now counts the matrix (see exitCodeOf)
  return report;
}

/** A case runs when no --case is given, or one names it, a prefix of it, or an item under it. */
export function caseWanted(c: Pick<CaseDef, 'id' | 'perItem'>, filter?: string[]): boolean {
  if (!filter?.length) return true;
  return filter.some((f) => c.id.startsWith(f) || (c.perItem !== undefined && f.startsWith(c.id + '/')));
}

function makeContext(
  session: Session, transport: Transport, opts: RunOptions, init: InitOutcome, version: ProtocolVersion,
  capabilities: Record<string, unknown>, timeoutMs: number,
): CaseContext & { peekTools(): ToolListing | undefined; peekPlan(): CallPlan | undefined } {
  let listing: Promise<ToolListing> | undefined;
  let resolvedListing: ToolListing | undefined;
  let plan: CallPlan | undefined;
  const policy = opts.callTools ?? 'safe';
  const callToolNames = opts.callToolNames ?? [];
  const toolCalls: ToolCallRecord[] = [];
  const ctx = {
    session, transport, version, init, capabilities, timeoutMs,
    callTools: policy,
    callToolNames,
    unknownToolCode: opts.unknownToolCode,
    forcedVersion: opts.protocolVersion,
    workbench: new SchemaWorkbench(dialectOf(version) === 'draft-07' ? 'draft-07' : '2020-12'),
    toolCalls,
    tools() {
      listing ??= listAllTools(session).then((l) => (resolvedListing = l));
      return listing;
    },
    async callPlan() {
      const l = await ctx.tools();
      plan ??= planCalls(l.tools, { mode: policy, allow: callToolNames }, taskCallsUnsupported(version, capabilities));
      return plan;
    },
    async callTool(name: string, args: unknown, purpose: ToolCallRecord['purpose'], o: { expectInvalid?: string; params?: Record<string, unknown> } = {}) {
      const rec: ToolCallRecord = { tool: name, purpose };
      toolCalls.push(rec); // in the order the calls were made (several may be in flight: see pipelined in core/tools.ts)
      try {
        rec.reply = await session.request('tools/call', o.params ?? { name, arguments: args }, { expectInvalid: o.expectInvalid });
      } catch (e) {
        rec.failure = e as Error;
      }
      return rec;
    },
    selected(id: string) {
      const f = opts.caseFilter;
      return !f?.length || f.some((p) => id.startsWith(p) || p.startsWith(id + '/'));
    },
    spec(path: string) {
      return specUrl(version, path);
    },
    peekTools: () => resolvedListing,
    peekPlan: () => plan,
  };
  return ctx;
}

export type { Verdict };
