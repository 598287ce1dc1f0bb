/** What every transport gives the session: raw lines in and out, and an end. */
import type { ProcessInfo } from '../results.js';
import type { HttpInfo } from '../log.js';

export interface IncomingFrame {
  raw: string;
  /** Set when the frame could not be taken as sent: invalid UTF-8, cut at the size bound, no final newline. */
  problem?: string;
  /** The message was longer than the size bound and was cut there (it cannot be parsed). */
  truncated?: boolean;
  /** Over HTTP: the exchange and SSE event that carried the frame. */
  http?: HttpInfo;
}

export interface TransportClosed {
  exitCode?: number | null;
  signal?: string | null;
  /** Plain-words reason, e.g. 'the server exited with code 3'. */
  reason: string;
  /** The last lines the server wrote to stderr, for failure messages. */
  stderrTail: string[];
}

export interface Transport {
  readonly kind: 'stdio' | 'streamable-http' | 'sse';
  /** Start (spawn or connect). Rejects with a clear Error when that is impossible. */
  start(): Promise<void>;
  /** Send one message. HTTP transports return the exchange record, filled in when the answer comes. */
  send(raw: string): HttpInfo | void;
  onFrame?: (frame: IncomingFrame) => void;
  /**
   * Over HTTP: a request will get no answer (an HTTP error status, a stream cut before the answer): the session
   * fails it now instead of waiting for its timeout.
   */
  onRequestFailed?: (id: string | number, reason: string) => void;
  onClose?: (info: TransportClosed) => void;
  /** true once the peer is gone. */
  readonly closed: boolean;
  closeInfo?: TransportClosed;
  /** End the connection (and the process, if one was started); resolves when nothing is left. */
  close(): Promise<void>;
  /** The server process this transport started, if any: pid, exit, how shutdown went, stderr. */
  processInfo(): ProcessInfo | undefined;
  /** Over HTTP: every exchange of the run (for the report). */
  httpExchanges?(): unknown[];
}
