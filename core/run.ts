/**
 * A conformance run: start the server, initialize, run the selected suites, shut down, and build the report.
 * A run is a value: nothing here is global, so two runs can share a process.
 */
import { acquireUrlSink } from './url-sink.js';
import { performance } from 'node:perf_hooks';
import { finalizeReport } from './finalize.js';
import { summarize, type Report, type SuiteResult, type Verdict } from './results.js';
import { Session } from './session.js';
import { MessageValidator } from './schema/validator.js';
import { schemaDocumentFor } from './schema/index.js';
import { DEFAULT_OFFERED_VERSION, PROTOCOL_VERSIONS, type ProtocolVersion } from './schema/versions.js';
import { isStateless, negotiate, requestMetaFor, suiteCounts, type MatrixEntry } from './negotiate.js';
import type { InitOutcome, Suite } from './suite.js';
import { callPlan, callToolOption, callToolsOption } from './call-policy.js';
import { makeContext } from './context.js';
import type { OptionDef } from './options.js';
import { caseWanted, earlyTrouble, runPhase, type RunState } from './run-cases.js';
import { startFailureOf, startFailureResults } from './start-failure.js';
import { reportBodiesOption } from './log.js';
import type { Service } from './services.js';
import { maxInFlightOption } from './tools.js';
import { clientInfoOf, identifyAsOption } from './client-info.js';
import { authRequiredReason } from './auth/required.js';
import { credentialsInput, credentialsReport } from './auth/credentials.js';
import { inputValue, withInput, type RunInputs } from './inputs.js';
import { createTransport, targetInfo, type Target } from './transport/index.js';
import type { Transport } from './transport/types.js';
import { VERSION } from './version.js';
import { clientCapabilitiesObject, DEFAULT_ROOTS } from './client-capabilities.js';
import { rootsInput, targetInput } from './served-folder.js';
import { versionsOfCase } from './applies.js';
import { eraOf, legacyAccepted, legacyEraOf, mergeEras, refusedReason } from './eras.js';
import { META } from './wire.js';

export { caseWanted } from './run-cases.js';

/** The run's own options (the suites declare theirs): the call policy binds every suite that calls a listed tool; --max-in-flight every batch of independent requests; --identify-as every session. */
export const RUN_OPTIONS: readonly OptionDef[] = [
  callToolsOption as OptionDef,
  callToolOption as OptionDef,
  reportBodiesOption as OptionDef,
  maxInFlightOption as OptionDef,
  identifyAsOption as OptionDef,
];
/** The run's own services: their report fields are always filled (report.skippedTools). */
const RUN_SERVICES: readonly Service<unknown>[] = [callPlan as Service<unknown>];

export type { HttpTarget, StdioTarget, Target } from './transport/index.js';

export type { RunOptions } from './run-options.js';
import type { RunOptions } from './run-options.js';

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
/** Whether a suite runs: named by --suite, else by default on this transport (and when its own condition holds). */
function suiteSelected(
  s: Suite,
  opts: RunOptions,
  kind: Transport['kind'],
  run?: { transport: Transport; init: InitOutcome },
): boolean {
  if (opts.suiteFilter?.length) return opts.suiteFilter.includes(s.id);
  if (s.transports && !s.transports.includes(kind)) return false;
  if (!s.selectedWhen) return true;
  const values = optionValues(opts);
  const inputs = inputsOf(opts);
  return s.selectedWhen(
    {
      option: (o) => (values[o.key] === undefined ? o.default : values[o.key]) as never,
      input: (i) => inputValue(inputs, i),
    },
    run,
  );
}

/** The values given for features, with the run's credentials among them (what cases read as ctx.input(credentialsInput)). */
function inputsOf(opts: RunOptions): RunInputs | undefined {
  let inputs = opts.credentials ? withInput(opts.inputs, credentialsInput, opts.credentials) : opts.inputs;
  // The target and the roots the harness answers with: where a local server keeps its files (core/served-folder.ts).
  inputs = withInput(inputs, targetInput, opts.target);
  if (opts.clientCapabilities?.includes('roots')) inputs = withInput(inputs, rootsInput, opts.roots ?? DEFAULT_ROOTS);
  return inputs;
}

/** Whether a value given for a feature keeps the run in one era (a surface snapshot compares one version's answers). */
function inputsWantOneEra(inputs: RunInputs | undefined): boolean {
  return [...(inputs ?? new Map())].some(([i, v]) => i.oneEra?.(v) === true);
}

/** The report.options entries the values given for features add. */
function inputsReportOptions(inputs: RunInputs | undefined): Record<string, unknown> {
  return Object.assign({}, ...[...(inputs ?? new Map())].map(([i, v]) => i.reportOptions?.(v) ?? {}));
}

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
  // URLs the argument generator makes up point at a loopback listener of the run's own (404), never a public host.
  const releaseUrlSink = await acquireUrlSink();
  try {
    const report = await runGuarded(opts, guard);
    if (guard.stopped) stoppedRuns.set(report, guard.stopped);
    return report;
  } catch (e) {
    // An internal error: whatever it interrupted, end every server this run started before passing it on.
    await Promise.all(
      [...guard.extras.map((x) => x.close()), ...guard.transports.map((t) => closeOnce(t))].map((p) =>
        p.catch(() => undefined),
      ),
    );
    throw e;
  } finally {
    guard.dispose();
    await releaseUrlSink();
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

/**
 * The stop control of one run: the whole run is bounded (maxDurationMs) and can be cancelled (signal); either stops
 * it where it is (the session in force is abandoned, the case running gets RunStopped).
 */
class StopControl {
  why: string | undefined;
  private onStop!: () => void;
  private readonly stopped = new Promise<never>((_, reject) => {
    this.onStop = () => reject(new RunStopped(this.why));
  });

  constructor(
    opts: RunOptions,
    private readonly guard: RunGuard,
    private readonly abandon: (why: string) => void,
  ) {
    this.stopped.catch(() => undefined);
    const maxMs = guard.bound?.ms ?? opts.maxDurationMs ?? 600_000;
    const deadline = setTimeout(
      () => this.halt(`the run reached its time limit of ${maxMs} ms (--max-duration)`),
      guard.bound ? Math.max(0, guard.bound.at - performance.now()) : maxMs,
    );
    const onAbort = () => this.halt(abortReason(opts.signal!));
    if (opts.signal?.aborted) onAbort();
    else opts.signal?.addEventListener('abort', onAbort, { once: true });
    guard.dispose = () => {
      clearTimeout(deadline);
      opts.signal?.removeEventListener('abort', onAbort);
    };
  }

  halt(why: string): void {
    if (this.why) return;
    this.why = why;
    this.guard.stopped = why;
    this.onStop();
    this.abandon(`not finished: ${why}`);
  }

  /** Wait for p, or reject once the run is stopped. */
  untilStopped<T>(p: Promise<T>): Promise<T> {
    p.catch(() => undefined); // a promise that loses the race must not become an unhandled rejection
    return Promise.race([p, this.stopped]);
  }

  /** Throw when the run was stopped (before starting something new). */
  check(): void {
    if (this.why) throw new RunStopped(this.why);
  }
}

/** The connection of a run once the handshake is over (or failed). */
interface Connected {
  session: Session;
  transport: Transport;
  version: ProtocolVersion;
  init: InitOutcome;
  /** Why nothing can run after the handshake. */
  aborted?: string;
}

/** Start the transport and negotiate the version (restarting the server once when negotiate asks). */
async function connectAndNegotiate(
  opts: RunOptions,
  guard: RunGuard,
  stop: StopControl,
  conn: Connected,
  env: {
    timeoutMs: number;
    makeTransport: () => Transport;
    clientCaps: Record<string, unknown>;
    clientInfo: { name: string; version: string };
  },
): Promise<void> {
  const { timeoutMs } = env;
  /**
   * Connecting is bounded too (a spawn resolves at once; an HTTP transport has its own bounds as well). With --start
   * the server first gets its --start-timeout to accept connections, then --timeout for the rest.
   */
  const startSpec = opts.target.transport !== 'stdio' ? opts.target.start : undefined;
  const connectMs = startSpec ? (startSpec.timeoutMs ?? 15_000) + timeoutMs : timeoutMs;
  const connect = async (t: Transport) => {
    let startTimer: NodeJS.Timeout | undefined;
    const startBound = new Promise<never>((_, reject) => {
      startTimer = setTimeout(
        () =>
          reject(
            new Error(
              `the server could not be reached within ${connectMs} ms${startSpec ? ' (--start-timeout + --timeout)' : ''}`,
            ),
          ),
        connectMs,
      );
    });
    try {
      await stop.untilStopped(Promise.race([t.start(), startBound]));
    } finally {
      clearTimeout(startTimer);
    }
  };
  try {
    stop.check();
    await connect(conn.transport);
    // --oauth gets its token now that the server is up (a server started with --start included): bounded by its own
    // bounds (each request, --oauth-timeout for a login), stopped with the run.
    if (opts.credentials?.prepare) await stop.untilStopped(opts.credentials.prepare());
  } catch (e) {
    conn.init.failure = e as Error;
    conn.aborted = stop.why ?? (e as Error).message;
    return;
  }
  try {
    const n = await stop.untilStopped(
      negotiate({
        session: conn.session,
        transport: conn.transport,
        timeoutMs,
        forced: opts.protocolVersion,
        legacyOffer: opts.legacyOffer,
        clientInfo: env.clientInfo,
        clientCapabilities: env.clientCaps,
        restart: async () => {
          // A stopped run starts no server: negotiate may go on in the background after the run stopped waiting.
          stop.check();
          // The first server is ended (its log stays out of the report: the negotiation step describes it).
          conn.session.abandon('restarted after server/discover');
          await closeOnce(conn.transport).catch(() => undefined);
          stop.check();
          conn.transport = env.makeTransport();
          guard.transports.push(conn.transport);
          conn.session = new Session(conn.transport, {
            timeoutMs,
            clientCapabilities: env.clientCaps,
            roots: opts.roots,
          });
          await connect(conn.transport);
          stop.check();
          return { session: conn.session, transport: conn.transport };
        },
      }),
    );
    ({ session: conn.session, transport: conn.transport, version: conn.version } = n);
    conn.init = n.handshake;
    if (n.aborted) conn.aborted = n.aborted;
  } catch (e) {
    conn.init.failure = e as Error;
    conn.aborted = stop.why ?? `negotiation failed: ${(e as Error).message}`;
  }
}

/** The option values of a run by key: the suites' options and the run's own (call policy). */
function optionValues(opts: RunOptions): Record<string, unknown> {
  return {
    ...(opts.unknownToolCode !== undefined ? { unknownToolCode: opts.unknownToolCode } : {}),
    ...opts.optionValues,
    ...(opts.callTools !== undefined ? { [callToolsOption.key]: opts.callTools } : {}),
    ...(opts.callToolNames !== undefined ? { [callToolOption.key]: opts.callToolNames } : {}),
  };
}

/** The options a run knows: its own and those of every suite it was given. */
export function declaredOptions(suites: readonly Suite[]): OptionDef[] {
  return [...RUN_OPTIONS, ...suites.flatMap((s) => s.options ?? [])];
}

/**
 * One attempt at a run. `early`: whether the cases do their early work (CaseDef.early: robustness/unknown-notification
 * sends its notification before the first case and watches while the others run). It is done where a repeat can start
 * the server afresh (stdio, --start, a transport factory); when the server died or went silent while such a wait was
 * open (core/run-cases.ts earlyTrouble), the run is repeated once without it, so that every case gets the verdict a
 * run without early work gives (report.repeated says why).
 */
async function runGuarded(
  opts: RunOptions,
  guard: RunGuard,
  attempt: { early: boolean; repeated?: { reason: string; firstAttemptMs: number } } = {
    early: opts.target.transport === 'stdio' || !!opts.target.start || !!opts.transportFactory,
  },
): Promise<Report> {
  const started = new Date();
  const t0 = performance.now();
  const timeoutMs = opts.timeoutMs ?? 30_000;
  const offered = opts.protocolVersion ?? opts.legacyOffer ?? DEFAULT_OFFERED_VERSION;
  // The name the run gives itself in every session (--identify-as, else mcp-conform).
  const clientInfo = clientInfoOf(optionValues(opts));
  // (--url detection probes with initialize: it offers a version that has one.)
  const transportOptions = {
    shutdownGraceMs: opts.shutdownGraceMs,
    maxMessageBytes: opts.maxMessageBytes,
    timeoutMs,
    protocolVersion: isStateless(offered) ? DEFAULT_OFFERED_VERSION : offered,
    clientInfo,
    ...(opts.credentials ? { credentials: opts.credentials } : {}),
  };
  const makeTransport = () => (opts.transportFactory ?? createTransport)(opts.target, transportOptions);
  const first = makeTransport();
  guard.transports.push(first);
  const clientCaps = clientCapabilitiesObject(opts.clientCapabilities ?? []);
  const conn: Connected = {
    transport: first,
    session: new Session(first, { timeoutMs, clientCapabilities: clientCaps, roots: opts.roots }),
    version: offered,
    init: { offered },
  };
  // One validator per version for the run's sessions (the main one, a second connection): making one costs ~15–25 ms.
  const validators = new Map<ProtocolVersion, MessageValidator>();
  const validatorFor = (v: ProtocolVersion) => {
    let m = validators.get(v);
    if (!m) validators.set(v, (m = makeValidator(v, opts.schema)));
    return m;
  };
  const stop = new StopControl(opts, guard, (why) => conn.session.abandon(why));

  const negotiated = connectAndNegotiate(opts, guard, stop, conn, { timeoutMs, makeTransport, clientCaps, clientInfo });
  // The server is starting: suites begin loading what they will need while the harness waits for its first answer.
  // After the first message is written, not before: a server started early (bin/early.ts) is taken and sent its first
  // message in this turn of the event loop (the stdio transport writes at setImmediate), and a warm-up would hold it;
  // it overlaps the wait for the answer instead. (The schema check is not made ready here: see checkMessages below.)
  const warmedUp = new Promise<void>((resolve) =>
    setImmediate(() =>
      setImmediate(() => {
        for (const s of opts.suites) {
          if (s.warmUp && suiteSelected(s, opts, first.kind) && s.cases.some((c) => caseWanted(c, opts.caseFilter))) {
            try {
              s.warmUp();
            } catch {
              /* only a head start: the cases load what they need themselves */
            }
          }
        }
        resolve();
      }),
    ),
  );
  await negotiated;
  // A server that asks for authorization the run does not have: said so, with how to get in (core/auth/required.ts).
  const authRequired = conn.aborted && !stop.why ? authRequiredReason(conn.transport, opts.credentials) : undefined;
  if (authRequired) conn.aborted = authRequired;
  await warmedUp;
  // A target that never came up (never one JSON-RPC answer): one cause, no case lines streamed, no pass (core/start-failure.ts).
  // A 401 is no start failure when the user named the cases that judge that refusal (the auth suite's checks without a
  // token: --suite auth, or --case auth/…): they run, and the others are skipped with the reason.
  const judgesRefusal =
    !!authRequired &&
    !!(opts.suiteFilter?.length || opts.caseFilter?.length) &&
    opts.suites.some(
      (s) =>
        suiteSelected(s, opts, conn.transport.kind, { transport: conn.transport, init: conn.init }) &&
        s.cases.some((c) => c.requires?.withoutToken && caseWanted(c, opts.caseFilter)),
    );
  const startFailure =
    conn.aborted && !stop.why && !judgesRefusal
      ? startFailureOf({
          target: opts.target,
          transport: conn.transport,
          session: conn.session,
          init: conn.init,
          aborted: conn.aborted,
          authRequired,
          timeoutMs,
          hasCredentials: !!opts.credentials,
        })
      : undefined;
  const { session, transport, version, init } = conn;
  // Every message, the handshake included, is checked against the schema of the version in force: from when the
  // session's early work is out (core/run-cases.ts startEarly; the messages logged until then are checked at that
  // moment), so that making the validator (~15–25 ms: the build's precompiled file, the document, its methods) neither
  // competes with the server's start for the CPU nor holds the message that opens robustness/unknown-notification's
  // window; it runs inside that window. Before any case runs, in every run (the session phase always begins).
  const checkMessages = () => session.setValidator(validatorFor(version));

  const handshakeResult =
    (init.handshake === 'server/discover' ? init.discover?.result : init.reply?.result) ?? undefined;
  const capabilities = (handshakeResult?.capabilities ?? {}) as Record<string, unknown>;
  const values = optionValues(opts);
  const ctx = makeContext({
    session,
    transport,
    init,
    version,
    capabilities,
    timeoutMs,
    forcedVersion: opts.protocolVersion,
    options: values,
    caseFilter: opts.caseFilter,
    inputs: inputsOf(opts),
  });
  ctx.openSession = async () => {
    // Another connection to the same server: a second process for stdio; for HTTP a second session at the same
    // URL (a server the run started itself with --start is not started twice).
    const target: Target =
      opts.target.transport !== 'stdio' && opts.target.start ? { ...opts.target, start: undefined } : opts.target;
    const t = (opts.transportFactory ?? createTransport)(target, transportOptions);
    guard.transports.push(t);
    const s = new Session(t, { timeoutMs, clientCapabilities: clientCaps, roots: opts.roots });
    let closing: Promise<void> | undefined;
    const handle = { session: s, transport: t, close: () => (closing ??= closeOnce(t).catch(() => undefined)) };
    guard.extras.push(handle);
    // Started (a second process spawned) before the validator is made: the server's start-up is the longer wait.
    const starting = t.start();
    s.setValidator(validatorFor(version));
    if (ctx.features.requestMeta) {
      s.setRequestMeta(requestMetaFor(version, clientInfo, clientCaps));
      s.heartbeatMethod = 'server/discover';
    }
    await stop.untilStopped(starting);
    return handle;
  };
  const results = new Map<string, SuiteResult>();
  const selectedSuites = opts.suites.filter((s) => suiteSelected(s, opts, transport.kind, { transport, init }));
  for (const s of [...RUN_SERVICES, ...opts.suites.flatMap((x) => x.services ?? [])]) ctx.services.declare(s);
  const state: RunState = {
    aborted: () => conn.aborted,
    stopped: () => stop.why,
    authRequired: () => authRequired,
    untilStopped: (p) => stop.untilStopped(p),
    transport,
    early: attempt.early,
    checkMessages,
  };
  // With early work, the suites' results reach onSuite (the console's progress) once it is clear that the run will not
  // be repeated (earlyTrouble 'clean'), so that no result is shown that a repeat replaces.
  const held: Parameters<NonNullable<RunOptions['onSuite']>>[] = [];
  let streaming = !attempt.early;
  const release = () => {
    streaming = true;
    for (const a of held.splice(0)) opts.onSuite?.(...a);
  };
  const onSuite: RunOptions['onSuite'] = startFailure
    ? undefined
    : opts.onSuite &&
      ((suite, phase, added) => {
        if (!streaming && earlyTrouble(ctx, false) === 'clean') release();
        if (streaming) opts.onSuite!(suite, phase, added);
        else held.push([suite, phase, added]);
      });

  await runPhase('session', selectedSuites, results, ctx, state, opts.caseFilter, onSuite);
  const trouble = attempt.early && !stop.why && !conn.aborted ? earlyTrouble(ctx, true) : 'clean';
  if (trouble !== 'clean') {
    // Ended as at the end of a run (every server and connection of this attempt), then run again without early work,
    // within what is left of the run's bound.
    await endConnections(guard, session, transport, `repeated without early work: ${trouble}`);
    guard.dispose();
    const ms = opts.maxDurationMs ?? 600_000;
    guard.bound ??= { at: t0 + ms, ms };
    return runGuarded(opts, guard, {
      early: false,
      repeated: { reason: trouble, firstAttemptMs: Math.round(performance.now() - t0) },
    });
  }
  if (!streaming) release();
  // --call-tool names are checked against the tool list even when no selected suite needed the plan, so a misspelt
  // name is always reported (report.unknownCallTools, the console); bounded like every request.
  if (opts.callToolNames?.length && !session.closed && !conn.aborted && !stop.why)
    await ctx.service(callPlan).catch(() => undefined);
  await endConnections(guard, session, transport, 'the run ended', opts.onSessionEnd);
  conn.aborted ??= stop.why;
  await runPhase('after-shutdown', selectedSuites, results, ctx, state, opts.caseFilter, onSuite);

  const suites = startFailure
    ? keepFileVerdicts(
        startFailureResults(selectedSuites, opts.caseFilter, startFailure, version),
        selectedSuites,
        results,
      )
    : selectedSuites.map((s) => results.get(s.id)!);
  const r = handshakeResult ?? {};
  const metaInfo = (r._meta as Record<string, unknown> | undefined)?.[META.serverInfo];
  const serverInfo = (r.serverInfo ?? metaInfo ?? {}) as Record<string, unknown>;
  const report: Report = {
    tool: { name: 'mcp-conform', version: VERSION },
    reportVersion: 1,
    startedAt: started.toISOString(),
    durationMs: Math.round(performance.now() - t0),
    exitCode: 0, // set by finalizeReport below
    ...(conn.aborted ? { aborted: conn.aborted } : {}),
    ...(startFailure ? { startFailure } : {}),
    ...(attempt.repeated ? { repeated: attempt.repeated } : {}),
    summary: summarize(suites, session.log),
    server: {
      name: str(serverInfo.name),
      version: str(serverInfo.version),
      title: str(serverInfo.title),
      protocolVersion: init.handshake === 'server/discover' ? version : str(r.protocolVersion),
      capabilities: handshakeResult ? capabilities : undefined,
      instructions: str(r.instructions),
    },
    target: targetInfo(opts.target, transport),
    ...(opts.credentials ? { authorization: credentialsReport(opts.credentials) } : {}),
    process: transport.processInfo() ?? { stderr: [] },
    options: {
      protocolVersionOffered: init.offered,
      protocolVersionInForce: version,
      schemaVersion: session.protocolVersion,
      timeoutMs,
      strict: !!opts.strict,
      ...reportedOptions(declaredOptions(opts.suites), values),
      ...inputsReportOptions(opts.inputs),
      clientCapabilities: opts.clientCapabilities ?? [],
      ...(opts.roots ? { roots: opts.roots } : {}),
      suites: selectedSuites.map((s) => s.id),
      cases: opts.caseFilter ?? [],
      ...(opts.schema ? { schemaFile: opts.schema.file } : {}),
    },
    skippedTools: [],
    suites,
    messages: session.log,
    ...(session.dropped.messages ? { droppedMessages: session.dropped } : {}),
    ...(transport.httpExchanges ? { http: { exchanges: transport.httpExchanges() } } : {}),
    ...(init.negotiation ? { negotiation: init.negotiation } : {}),
  };
  ctx.services.contribute(report); // fields the run services add (server.toolCount, skippedTools, unknownCallTools…)
  finalizeReport(report); // --strict, the summary, the exit code
  return report;
}

/**
 * The end of a run's connections: the session sends nothing more, the other connections (CaseContext.openSession) are
 * closed, then every server the run started is ended: the one in force (the report describes it; its shutdown errors
 * are the report's), and any other (a first server a stopped negotiation restart was still ending, a connection still
 * being made when the run stopped, a first attempt's). The other connections end first, also over stdio where each is
 * a process of its own: the server in force is the last to end, so what it does at its end comes last (a `record
 * --stdio` proxy run as the server writes its cassette then: a second connection's, ending after it, would overwrite
 * it; test/mocks-record-exit.test.ts). Ending them together would save ~5 ms of a run: not done. onSessionEnd (the
 * run's end, not a repeat's) gets the log once nothing more is sent, while the servers end.
 */
async function endConnections(
  guard: RunGuard,
  session: Session,
  transport: Transport,
  why: string,
  onSessionEnd?: RunOptions['onSessionEnd'],
): Promise<void> {
  session.abandon(why);
  try {
    onSessionEnd?.(session.log);
  } catch {
    /* only a head start for the report */
  }
  await Promise.all(guard.extras.map((x) => x.close()));
  const others = guard.transports.filter((t) => t !== transport).map((t) => closeOnce(t).catch(() => undefined));
  await closeOnce(transport);
  await Promise.all(others);
}

/**
 * report.options entries of the declared options: `always` ones with their value or default, the others when set;
 * each under its key in report.options, or in the member its declaration names (reportIn, e.g. suiteOptions).
 */
export function reportedOptions(defs: OptionDef[], values: Record<string, unknown>): Record<string, unknown> {
  const out: Record<string, unknown> = {};
  for (const o of defs) {
    const v = values[o.key];
    const into = o.reportIn ? ((out[o.reportIn] ??= {}) as Record<string, unknown>) : out;
    if (o.inReport === 'never') continue;
    if (o.inReport === 'always') into[o.key] = v ?? o.default;
    else if (v !== undefined) into[o.key] = v;
  }
  for (const k of Object.keys(out))
    if (defs.some((o) => o.reportIn === k) && !Object.keys(out[k] as object).length) delete out[k];
  return out;
}

function str(v: unknown): string | undefined {
  return typeof v === 'string' ? v : undefined;
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
export async function runAllVersions(
  opts: RunOptions,
  onVersion?: (v: ProtocolVersion, r: Report) => void,
): Promise<Report> {
  const matrix: MatrixEntry[] = [];
  let main: Report | undefined;
  let mainAccepted = false;
  const bounded = boundedRuns(opts);
  for (const v of PROTOCOL_VERSIONS) {
    const stopped = bounded.stopped();
    if (stopped) {
      matrix.push({
        protocolVersion: v,
        accepted: false,
        tested: false,
        reason: `not run: ${stopped}`,
        summary: summarize([], []),
        suites: [],
      });
      continue;
    }
    const r = await bounded.run({ ...opts, protocolVersion: v });
    const cut = stoppedRuns.get(r);
    // Accepted: the handshake succeeded and agreed on v (a counter-offer of another version is a refusal of v).
    const n = r.negotiation;
    const accepted = !!n && n.handshake !== 'none' && n.version === v && r.options.protocolVersionInForce === v;
    // Stopped before the handshake decided: nothing is known about v.
    const untested = !accepted && !!cut && r.aborted === cut;
    const reason = accepted
      ? undefined
      : untested
        ? `cut short: ${cut}`
        : (r.negotiation?.steps.at(-1)?.message ?? r.aborted ?? 'no handshake');
    matrix.push({
      protocolVersion: v,
      accepted,
      ...(untested ? { tested: false } : {}),
      ...(reason ? { reason } : {}),
      summary: r.summary,
      suites: r.suites.map(suiteCounts),
    });
    if (accepted || !mainAccepted) {
      main = r;
      mainAccepted = accepted;
    }
    onVersion?.(v, r);
  }
  const report = main ?? (await bounded.run({ ...opts, protocolVersion: PROTOCOL_VERSIONS.at(-1)! }));
  report.matrix = matrix;
  const stopped = bounded.stopped();
  if (stopped) report.aborted ??= stopped;
  finalizeReport(report); // the exit code now counts the matrix (see exitCodeOf)
  return report;
}

/**
 * Runs of one target that follow one another (--all-versions, the eras of a default run): --max-duration bounds them
 * together, and once one was stopped (time bound or signal) no other starts (`stopped` says why).
 */
function boundedRuns(opts: RunOptions): { run(o: RunOptions): Promise<Report>; stopped(): string | undefined } {
  const ms = opts.maxDurationMs ?? 600_000;
  const bound = { at: performance.now() + ms, ms };
  let stopped: string | undefined;
  return {
    async run(o) {
      const r = await runWithGuard(o, { transports: [], extras: [], dispose() {}, bound });
      stopped ??= stoppedRuns.get(r);
      return r;
    },
    stopped() {
      if (!stopped && opts.signal?.aborted) stopped = abortReason(opts.signal);
      if (!stopped && performance.now() >= bound.at)
        stopped = `the run reached its time limit of ${ms} ms (--max-duration)`;
      return stopped;
    },
  };
}

/**
 * A default run (the `run` command, runConformance): one run, and for a dual-era server — it spoke 2026-07-28 by
 * default and answers initialize too — a second run forced to its newest legacy version on a fresh server, merged into
 * one report (core/eras.ts: report.eras, each case's protocolVersion). --protocol-version picks one version (one run);
 * so do --schema (a schema file is one version's) and an input that asks for one era (a surface snapshot or
 * baseline compares one version: RunInput.oneEra). A
 * server that refuses initialize is judged in 2026-07-28 only (report.eras says why). --max-duration bounds both runs.
 * `eras: false`: the first run alone (a run that writes files from the server's answers: lib/conformance.ts).
 */
export async function runEras(opts: RunOptions, o: { eras?: boolean } = {}): Promise<Report> {
  const bounded = boundedRuns(opts);
  const first = await bounded.run(opts);
  const legacy =
    o.eras === false || opts.protocolVersion || opts.schema || inputsWantOneEra(opts.inputs)
      ? undefined
      : legacyEraOf(first);
  // Only when a case selected can apply there (`--suite protocol-2026` alone has nothing to judge in a legacy version).
  const applies = (v: ProtocolVersion) =>
    opts.suites.some(
      (s) =>
        (!opts.suiteFilter?.length || opts.suiteFilter.includes(s.id)) &&
        s.cases.some((c) => caseWanted(c, opts.caseFilter) && versionsOfCase(c).includes(v)),
    );
  if (!legacy || !applies(legacy) || bounded.stopped()) return first;
  // The second era's log is not the report's as it stands (it is renumbered into it): no head start for it.
  const second = await bounded.run({ ...opts, legacyOffer: legacy, onSessionEnd: undefined });
  if (legacyAccepted(second)) mergeEras(first, second);
  else first.eras = [eraOf(first, true), eraOf(second, false, refusedReason(second))];
  const stopped = bounded.stopped();
  if (stopped) first.aborted ??= stopped;
  finalizeReport(first);
  return first;
}

export type { Verdict };

/**
 * A target that never came up still has its file judged: the cases about a file the run was given (server.json, an
 * MCPB manifest: CaseDef.ofFile) keep the verdict they reached, in place of the start failure's skip.
 */
function keepFileVerdicts(skipped: SuiteResult[], suites: Suite[], results: Map<string, SuiteResult>): SuiteResult[] {
  return skipped.map((sr) => {
    const s = suites.find((x) => x.id === sr.id);
    const ran = results.get(sr.id);
    if (!s || !ran || !s.cases.some((c) => c.ofFile)) return sr;
    const fileIds = new Set(s.cases.filter((c) => c.ofFile).map((c) => c.id));
    const judged = (id: string) => ran.cases.find((c) => c.id === id && c.verdict !== 'skip');
    return { ...sr, cases: sr.cases.map((c) => (fileIds.has(c.id) ? (judged(c.id) ?? c) : c)) };
  });
}
