/**
 * Version negotiation: which protocol version a run speaks, and how it got there.
 *
 * By default the harness tries the newest version first: 2026-07-28 has no handshake, so it asks `server/discover`
 * (with the stateless `_meta` every 2026-07-28 request carries) and, if the server lists 2026-07-28, speaks it.
 * Any other outcome falls back to `initialize` offering 2025-11-25 (or the newest published version the server
 * listed): an error answer (the TypeScript SDK answers -32601) on the same connection; no answer within
 * min(--timeout, 5 s) counted from when the server process is idle (not while it starts, which may take up to
 * max(--timeout, 10 s) of its own: see startUp), or a server that died of the unknown method, on a fresh server
 * process (restarted once). An initialize that is the first message to a server process (no discover before it, or
 * after that restart), and a discover forced by --protocol-version 2026-07-28, have their --timeout counted from the
 * same moment.
 * `--protocol-version V` speaks only V: `server/discover` for 2026-07-28, `initialize` offering V for the others.
 * https://modelcontextprotocol.io/specification/2026-07-28/server/discover
 * https://modelcontextprotocol.io/specification/2025-11-25/basic/lifecycle#version-negotiation
 */
import type { Reply, RequestOptions, Session } from './session.js';
import { SessionError } from './session.js';
import {
  DEFAULT_OFFERED_VERSION,
  PROTOCOL_VERSIONS,
  isProtocolVersion,
  type ProtocolVersion,
} from './schema/versions.js';
import type { Transport } from './transport/types.js';
import { whenIdle } from './processes.js';
import { cut } from './text.js';
import type { MatrixEntry, Negotiation, NegotiationStep, SuiteResult } from './results.js';
import { META } from './wire.js';
export type { MatrixEntry, Negotiation, NegotiationStep } from './results.js';

/** The first version without an initialize handshake (stateless, `server/discover`). */
export const STATELESS_VERSION: ProtocolVersion = '2026-07-28';
/** How long the default discover attempt waits at most (a server may hang on a method it does not know). */
export const DISCOVER_BOUND_MS = 5000;
/** How long the server process must be idle (no CPU time used) before that bound starts counting. */
const IDLE_QUIET_MS = 300;
/** The longest a server process may take to start (be idle) before its first request's --timeout counts anyway. */
const START_UP_MS = 10_000;

/**
 * A server process the run has just started (stdio, or HTTP with --start): resolves once it is idle — done starting,
 * waiting for input — and at most after max(--timeout, 10 s), the start-up allowance (on its own: a request's
 * --timeout counts from then). A Python server importing its packages on a loaded machine (a CI runner) may take
 * longer to start than a short --timeout; that is not the request's time. Undefined without a process to watch (HTTP
 * without --start).
 */
function startUp(transport: Transport, timeoutMs: number): { idle: Promise<void>; cancel(): void } | undefined {
  const pid = transport.processInfo()?.pid;
  return pid !== undefined
    ? whenIdle(pid, { quietMs: IDLE_QUIET_MS, maxMs: Math.max(timeoutMs, START_UP_MS) })
    : undefined;
}

/** A request whose timeout counts from `started`'s idle moment (see startUp) when there is one; the watch ends with it. */
async function requestOnceStarted(
  session: Session,
  method: string,
  params: unknown,
  opts: RequestOptions,
  started: ReturnType<typeof startUp>,
): Promise<Reply> {
  const noise = session.transport.kind === 'stdio' ? noiseWatch(session, method, started?.idle) : undefined;
  try {
    const answer = session.request(method, params, started ? { ...opts, timeoutFrom: started.idle } : opts);
    answer.catch(() => undefined); // it may lose the race to the noise watch: the session ends it with the connection
    return await (noise ? Promise.race([answer, noise.stopped]) : answer);
  } finally {
    started?.cancel();
    noise?.cancel();
  }
}

/** How long after its start-up a server that wrote only text that is not JSON-RPC on stdout has to give an answer. */
export const NOISE_GRACE_MS = 2000;

/**
 * A server process that writes text that is not JSON-RPC on stdout (a banner, an echo, a log line) and no JSON-RPC
 * answer: the handshake request is given up once the process is done starting (`idle`) and NOISE_GRACE_MS more have
 * passed with such text and no answer, quoting the text — not after its full --timeout, with the cause 100 lines
 * below (core/start-failure.ts reports it). A server that prints a banner and then answers is not concerned: its
 * answer comes first (stdio/stdout-only-messages judges the banner).
 */
function noiseWatch(
  session: Session,
  method: string,
  idle: Promise<void> | undefined,
): { stopped: Promise<never>; cancel(): void } {
  let timer: NodeJS.Timeout | undefined;
  let done = false;
  const fromServer = () => session.log.filter((m) => m.direction === 'from-server');
  const stopped = new Promise<never>((_, reject) => {
    const tick = () => {
      if (done) return;
      timer = setTimeout(() => {
        if (done) return;
        const got = fromServer();
        if (got.some((m) => m.kind === 'response' || m.kind === 'error')) return;
        const text = got.find((m) => m.kind === 'invalid' && m.raw.trim());
        if (!text) return tick();
        const shown = text.raw.length > 120 ? `${text.raw.slice(0, 120)}…` : text.raw;
        const request = [...session.log].reverse().find((m) => m.direction === 'to-server' && m.method === method);
        reject(
          new SessionError(
            'unresponsive',
            `${method}${request ? ` (id ${JSON.stringify(request.id)})` : ''} not answered: the server wrote text that is not JSON-RPC on stdout ('${shown}') and no JSON-RPC answer within ${NOISE_GRACE_MS} ms of its start-up (stdout is for protocol messages; log to stderr)`,
            request,
          ),
        );
      }, NOISE_GRACE_MS);
      timer.unref?.();
    };
    void (idle ?? Promise.resolve()).then(tick);
  });
  stopped.catch(() => undefined);
  return {
    stopped,
    cancel: () => {
      done = true;
      clearTimeout(timer);
    },
  };
}

export function isStateless(v: string | undefined): boolean {
  return v !== undefined && v >= STATELESS_VERSION;
}

/** The `_meta` members every request carries in a stateless version. */
export function requestMetaFor(
  version: ProtocolVersion,
  clientInfo: { name: string; version: string },
  clientCapabilities: Record<string, unknown> = {},
): Record<string, unknown> {
  return {
    [META.protocolVersion]: version,
    [META.clientCapabilities]: clientCapabilities,
    [META.clientInfo]: clientInfo,
  };
}

/**
 * The outcome of the handshake, as cases see it (ctx.init): the one type for it. `negotiation` is how the run got
 * there, in the JSON shape of report.negotiation.
 */
export interface Handshake {
  /** The version the deciding handshake offered (offered in initialize, or 2026-07-28 for discover). */
  offered: ProtocolVersion;
  /** The handshake of the version in force: 'server/discover' (2026-07-28, stateless) or 'initialize'; 'none' when both failed. */
  handshake?: 'server/discover' | 'initialize' | 'none';
  /** The initialize answer. */
  reply?: Reply;
  /** Why the handshake failed (absent when it went through). */
  failure?: Error;
  /** seq of notifications/initialized. */
  initializedSeq?: number;
  /** The server/discover answer, when the run speaks a stateless version (or discover was tried on this connection). */
  discover?: Reply;
  discoverFailure?: Error;
  /** How the version was negotiated (report.negotiation). */
  negotiation?: Negotiation;
}

/** What negotiate() gives the runner: the connection in force, the version, the handshake, and why nothing can run. */
export interface NegotiationResult {
  session: Session;
  transport: Transport;
  /** The version every message is judged by. */
  version: ProtocolVersion;
  handshake: Handshake & { negotiation: Negotiation };
  /** Why nothing can run after the handshake (the cases that need the server are skipped with it). */
  aborted?: string;
}

/** The parts of a negotiation's outcome, before they are put together (negotiate's steps). */
interface Outcome {
  version: ProtocolVersion;
  offered: ProtocolVersion;
  discover?: Reply;
  discoverFailure?: Error;
  reply?: Reply;
  failure?: Error;
  initializedSeq?: number;
  aborted?: string;
}

export interface NegotiateEnv {
  session: Session;
  transport: Transport;
  timeoutMs: number;
  forced?: ProtocolVersion;
  clientInfo: { name: string; version: string };
  /** Client capabilities the harness declares (--client-capabilities; default none). */
  clientCapabilities?: Record<string, unknown>;
  /**
   * Open with initialize offering this version, as a client of the 2025 revisions does (no server/discover first): the
   * legacy era of a dual-era server (core/eras.ts). Unlike `forced`, a counter-offer is plain negotiation.
   */
  legacyOffer?: ProtocolVersion;
  /** End the current server and connect a fresh one (a new session over a new transport). */
  restart(): Promise<{ session: Session; transport: Transport }>;
}

function cutRaw(s: string | undefined): string | undefined {
  return s === undefined ? undefined : cut(s, 2000);
}

function exchange(
  r: { request?: { raw: string }; response?: { raw: string } } | undefined,
): NegotiationStep['exchange'] {
  if (!r) return undefined;
  return { sent: cutRaw(r.request?.raw), received: cutRaw(r.response?.raw) };
}

/** The newest published version before the stateless one in a list a server gave (supportedVersions, -32022 data). */
function newestStatefulIn(list: unknown): ProtocolVersion | undefined {
  if (!Array.isArray(list)) return undefined;
  const known = list.filter(isProtocolVersion).filter((v) => !isStateless(v));
  return known.sort().at(-1);
}

/**
 * Point an HTTP transport at a version (2026-07-28 puts it and Mcp-Method on every POST); stdio has nothing to set.
 * --url's DetectingTransport forwards the version to the transport it found.
 */
function setTransportVersion(t: Transport, v: string | undefined): void {
  if (t.kind === 'streamable-http' && 'protocolVersion' in t) (t as { protocolVersion?: string }).protocolVersion = v;
}

export async function negotiate(env: NegotiateEnv): Promise<NegotiationResult> {
  let { session, transport } = env;
  const forced = env.forced;
  const steps: NegotiationStep[] = [];
  const negotiation: Negotiation = {
    mode: forced ? 'forced' : 'default',
    ...(forced ? { requested: forced } : {}),
    handshake: 'none',
    steps,
    restarts: 0,
  };
  const out = (r: Outcome): NegotiationResult => {
    negotiation.version ??= r.aborted && negotiation.handshake === 'none' ? undefined : r.version;
    const failure = r.failure ?? r.discoverFailure;
    const handshake: NegotiationResult['handshake'] = {
      offered: r.offered,
      handshake: negotiation.handshake,
      reply: r.reply,
      // a discover that failed before initialize went through is a step of the negotiation, not a failed handshake
      ...(failure && (r.failure || negotiation.handshake === 'none') ? { failure } : {}),
      initializedSeq: r.initializedSeq,
      discover: r.discover,
      discoverFailure: r.discoverFailure,
      negotiation,
    };
    return { session, transport, version: r.version, handshake, ...(r.aborted ? { aborted: r.aborted } : {}) };
  };

  // HTTP+SSE is the transport of 2024-11-05: no discover there.
  const tryDiscover = transport.kind !== 'sse' && !env.legacyOffer && (forced === undefined || isStateless(forced));
  let initOffer: ProtocolVersion =
    env.legacyOffer ?? (forced && !isStateless(forced) ? forced : DEFAULT_OFFERED_VERSION);
  let discoverFailure: Error | undefined;
  let discover: Reply | undefined;

  if (tryDiscover) {
    const v = STATELESS_VERSION;
    session.setRequestMeta(requestMetaFor(v, env.clientInfo, env.clientCapabilities));
    setTransportVersion(transport, v);
    const bound = forced ? env.timeoutMs : Math.min(env.timeoutMs, DISCOVER_BOUND_MS);
    // The bound is for a server that does not answer an unknown method, not for a server still starting: it counts
    // from when the server process the run started is idle (a Python server importing its packages on a busy machine
    // took more than 5 s to answer its first message, and was judged in the legacy era; see startUp). Forced to
    // 2026-07-28 too: there the first message is this one, and a slow start would abort the run.
    try {
      discover = await requestOnceStarted(
        session,
        'server/discover',
        undefined,
        { timeoutMs: bound },
        startUp(transport, env.timeoutMs),
      );
    } catch (e) {
      discoverFailure = e as Error;
    }
    const r = discover?.result;
    const listed = r && Array.isArray(r.supportedVersions) ? (r.supportedVersions as unknown[]) : undefined;
    if (r && listed?.includes(v)) {
      steps.push({
        method: 'server/discover',
        offered: v,
        outcome: 'result',
        answered: listed,
        message: `server/discover lists ${listed.map(String).join(', ')}: the run speaks ${v} (no initialize)`,
        exchange: exchange(discover),
      });
      negotiation.handshake = 'server/discover';
      session.heartbeatMethod = 'server/discover';
      return out({ version: v, offered: v, discover });
    }
    // Not 2026-07-28: leave the stateless envelope off from here on.
    session.setRequestMeta(undefined);
    setTransportVersion(transport, undefined);
    if (forced) {
      const why = r
        ? `server/discover answered, but its supportedVersions ${JSON.stringify(r.supportedVersions)} does not list ${v}`
        : discover?.error
          ? `server/discover was answered with error ${discover.error.code} ${JSON.stringify(discover.error.message)}`
          : `server/discover got no answer: ${discoverFailure?.message ?? 'no reply'}`;
      steps.push({
        method: 'server/discover',
        offered: v,
        outcome: r
          ? 'result'
          : discover?.error
            ? 'error'
            : discoverFailure instanceof SessionError && discoverFailure.kind === 'closed'
              ? 'closed'
              : 'timeout',
        ...(discover?.error ? { errorCode: discover.error.code } : {}),
        ...(r ? { answered: r.supportedVersions } : {}),
        message: `${why}: the server cannot speak ${v} (--protocol-version ${v})`,
        exchange: exchange(
          discover ?? (discoverFailure instanceof SessionError ? { request: discoverFailure.request } : undefined),
        ),
      });
      return out({
        version: v,
        offered: v,
        discover,
        discoverFailure,
        aborted: `${why}, so it cannot speak ${v} (--protocol-version ${v})`,
      });
    }
    let restartedAfter = false;
    let outcome: NegotiationStep['outcome'];
    let message: string;
    if (r) {
      outcome = 'result';
      const pick = newestStatefulIn(r.supportedVersions);
      if (pick) initOffer = pick;
      message = `server/discover answered without ${v} in supportedVersions (${JSON.stringify(r.supportedVersions)}): falling back to initialize offering ${initOffer}`;
    } else if (discover?.error) {
      outcome = 'error';
      const pick = newestStatefulIn((discover.error.data as { supported?: unknown } | undefined)?.supported);
      if (pick) initOffer = pick;
      message = `server/discover was answered with error ${discover.error.code}${discover.error.code === -32601 ? ' (method not found: a server before 2026-07-28)' : ''}: falling back to initialize offering ${initOffer}`;
    } else if (discoverFailure instanceof SessionError && discoverFailure.kind === 'transport') {
      // An HTTP status without an answer (a server before 2026-07-28 refusing the unknown headers or method).
      outcome = 'error';
      // Refused when the server answered with a status; a POST that got no answer at all failed (it was not refused).
      message = `server/discover ${/HTTP \d{3}/.test(discoverFailure.message) ? 'was refused' : 'failed'} (${discoverFailure.message}): falling back to initialize offering ${initOffer}`;
    } else {
      const e = discoverFailure as Error;
      const closed = e instanceof SessionError && e.kind === 'closed';
      outcome = closed
        ? 'closed'
        : e instanceof SessionError && (e.kind === 'timeout' || e.kind === 'unresponsive')
          ? 'timeout'
          : 'failed';
      // A server that died of the method, hangs on it, or whose connection is now in doubt: start afresh, once.
      restartedAfter = true;
      message = `server/discover ${closed ? `was not answered: ${transport.kind === 'stdio' ? 'the server exited' : 'the connection ended'}` : outcome === 'timeout' ? `got no answer within ${bound} ms` : `failed`} (${e.message}): ${afresh(transport)} and initialize offered ${initOffer} on the fresh connection`;
    }
    steps.push({
      method: 'server/discover',
      offered: v,
      outcome,
      ...(discover?.error ? { errorCode: discover.error.code } : {}),
      ...(r ? { answered: r.supportedVersions } : {}),
      message,
      ...(restartedAfter ? { restartedAfter } : {}),
      exchange: exchange(
        discover ?? (discoverFailure instanceof SessionError ? { request: discoverFailure.request } : undefined),
      ),
    });
    if (restartedAfter) {
      try {
        ({ session, transport } = await env.restart());
        negotiation.restarts++;
      } catch (e) {
        return out({
          version: initOffer,
          offered: initOffer,
          discover,
          discoverFailure,
          failure: e as Error,
          aborted: `${transport.processInfo() ? 'the server could not be restarted' : 'no fresh connection could be made'} after server/discover: ${(e as Error).message}`,
        });
      }
      discover = undefined; // its messages are in the first connection's log, described in the step
    }
  }

  // initialize
  let reply: Reply | undefined;
  let failure: Error | undefined;
  let aborted: string | undefined;
  let initializedSeq: number | undefined;
  let version: ProtocolVersion = initOffer;
  try {
    // The first message to a server process (no server/discover went before it, or it went to the process that was
    // restarted): its --timeout counts from when the process is idle, as discover's bound does, not from its start.
    const started = !tryDiscover || negotiation.restarts > 0 ? startUp(transport, env.timeoutMs) : undefined;
    reply = await requestOnceStarted(
      session,
      'initialize',
      { protocolVersion: initOffer, capabilities: env.clientCapabilities ?? {}, clientInfo: env.clientInfo },
      {},
      started,
    );
    const answered = reply.result?.protocolVersion;
    if (isProtocolVersion(answered) && !isStateless(answered)) version = answered;
    if (reply.error) {
      aborted = `initialize was answered with error ${reply.error.code}: ${reply.error.message}`;
      steps.push({
        method: 'initialize',
        offered: initOffer,
        outcome: 'error',
        errorCode: reply.error.code,
        message: aborted,
        exchange: exchange(reply),
      });
    } else {
      initializedSeq = session.notify('notifications/initialized').seq;
      negotiation.handshake = 'initialize';
      const words = isProtocolVersion(answered)
        ? isStateless(answered)
          ? `initialize was answered with ${answered}, a version without initialize: the run continues with ${version}`
          : answered === initOffer
            ? `initialize agreed on ${answered}`
            : `initialize offered ${initOffer}, the server countered with ${answered}: the run speaks ${answered}`
        : `initialize was answered with ${JSON.stringify(answered)}, which is no published version: messages are judged by ${version}`;
      steps.push({
        method: 'initialize',
        offered: initOffer,
        outcome: 'result',
        answered,
        message: words,
        exchange: exchange(reply),
      });
    }
  } catch (e) {
    failure = e as Error;
    aborted = `initialize failed: ${failure.message}`;
    steps.push({
      method: 'initialize',
      offered: initOffer,
      outcome: failure instanceof SessionError && failure.kind === 'closed' ? 'closed' : 'timeout',
      message: aborted,
      exchange: exchange(failure instanceof SessionError ? { request: failure.request } : undefined),
    });
  }
  if (!aborted && reply?.result && !isProtocolVersion(reply.result.protocolVersion))
    negotiation.version = String(reply.result.protocolVersion);
  return out({ version, offered: initOffer, discover, discoverFailure, reply, failure, initializedSeq, aborted });
}

export function suiteCounts(s: SuiteResult): MatrixEntry['suites'][number] {
  const c = { id: s.id, pass: 0, warn: 0, fail: 0, skip: 0, info: 0 };
  for (const x of s.cases) c[x.verdict]++;
  return c;
}

export { PROTOCOL_VERSIONS };

/**
 * What starting afresh after a failed server/discover meant: a server the harness runs (stdio, --start) is restarted;
 * a server it only reaches over HTTP keeps running, and gets a new connection (and session).
 */
function afresh(transport: Transport): string {
  return transport.processInfo()
    ? 'the server was restarted'
    : 'the harness connected afresh (a server it did not start is not restarted)';
}
