/**
 * The types of a JSON-RPC session (core/session.ts): replies, errors, options and what the session records (dropped
 * messages, id anomalies, the requests it cancelled). Kept apart so that the session itself stays readable.
 */
import type { Root } from './client-capabilities.js';
import type { LoggedMessage } from './log.js';
import type { TransportClosed } from './transport/types.js';

export interface JsonRpcError {
  code: number;
  message: string;
  data?: unknown;
}

export interface Reply {
  request: LoggedMessage;
  response: LoggedMessage;
  /** Present for a success answer. */
  result?: Record<string, unknown>;
  /** Present for an error answer. */
  error?: JsonRpcError;
  /**
   * When the request's timeout began (ms since the session began): when it was sent, or for a request queued
   * behind an earlier one (RequestOptions.timeoutFrom) when that one ended (answered or failed). Its duration is
   * measured from here.
   */
  timedFrom?: number;
}

/** transport: the transport knows no answer will come (an HTTP error status, a stream cut before the answer). */
export type SessionErrorKind = 'timeout' | 'closed' | 'unresponsive' | 'transport' | 'too-large';

export class SessionError extends Error {
  constructor(
    readonly kind: SessionErrorKind,
    message: string,
    readonly request?: LoggedMessage,
    readonly closeInfo?: TransportClosed,
    /** The request was sent after the server was already gone (nothing to judge in it). */
    readonly afterClose = false,
  ) {
    super(message);
    this.name = 'SessionError';
  }

  /** A request that went unanswered (timeout, unresponsive): how long it waited from when its timeout began. */
  waitedMs?: number;
}

/**
 * How long the liveness probe waits at most (the heartbeat sent once a request timed out, to tell a slow server from
 * one that answers nothing): the request timeout when that is shorter.
 */
export const LIVENESS_WAIT_MS = 5000;

/** The notifications/cancelled the session sent for a request it stopped waiting for. */
export interface CancelledRequest {
  requestId: string | number;
  /** seq of the request cancelled, and of the notification. */
  requestSeq: number;
  seq: number;
  reason: string;
}

export interface RequestOptions {
  timeoutMs?: number;
  /** The message is malformed on purpose (a probe): its schema violations are expected. Say why. */
  expectInvalid?: string;
  /**
   * The request is queued behind an earlier one still in flight (pipelined calls): its timeout starts only once
   * this settles (the earlier request's answer, or its failure), as if it had been sent after it. Bounded: the
   * earlier request has its own timeout. pipelined (core/tools.ts) hands it to each call it makes.
   */
  timeoutFrom?: Promise<unknown>;
}

export interface Pending {
  request: LoggedMessage;
  resolve: (r: Reply) => void;
  reject: (e: Error) => void;
  /** Unset while the request waits for its turn (timeoutFrom). */
  timer?: NodeJS.Timeout;
  /** When its timeout began (ms since the session began); unset while it waits for its turn. */
  timedFrom?: number;
}

export interface SessionOptions {
  /** Default per-request timeout (ms). */
  timeoutMs: number;
  /** Client capabilities declared in initialize: server requests for undeclared ones get -32601. */
  clientCapabilities?: Record<string, unknown>;
  /** The roots answered to roots/list when roots is declared (default: DEFAULT_ROOTS of core/client-capabilities.ts). */
  roots?: Root[];
  /**
   * Bounds on the message log (a server flooding notifications must not exhaust memory): once the log holds this
   * many messages or this many characters, messages from the server that answer nothing the harness waits for are
   * counted in `dropped` instead of logged (and not schema-checked). Defaults 50,000 and 256 Mi.
   */
  maxLogMessages?: number;
  maxLogChars?: number;
  /**
   * 2026-07-28 (stateless): the `_meta` members every request carries (protocol version, client capabilities,
   * client info). When set, each request the session sends — probes included — gets them in `params._meta`
   * (members the request already has win). Notifications and answers are left alone.
   */
  requestMeta?: Record<string, unknown>;
}

/** Messages left out of the log once it reached its bounds (see SessionOptions.maxLogMessages). */
export interface DroppedMessages {
  messages: number;
  chars: number;
  /** Count by method (or by kind for answers and lines that are no messages). */
  byMethod: Record<string, number>;
}

export interface IdAnomaly {
  seq: number;
  /** late-answer: the answer to a request that had already timed out (not an id error). */
  problem: 'unknown-id' | 'duplicate-answer' | 'missing-id' | 'late-answer';
}
