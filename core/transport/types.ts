/** What every transport gives the session: raw lines in and out, and an end. */
import type { ProcessInfo } from '../results.js';

export interface IncomingFrame {
  raw: string;
  /** Set when the frame could not be taken as sent: invalid UTF-8, cut at the size bound, no final newline. */
  problem?: string;
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
  send(raw: string): void;
  onFrame?: (frame: IncomingFrame) => void;
  onClose?: (info: TransportClosed) => void;
  /** true once the peer is gone. */
  readonly closed: boolean;
  closeInfo?: TransportClosed;
  /** End the connection (and the process, if one was started); resolves when nothing is left. */
  close(): Promise<void>;
  /** The server process this transport started, if any: pid, exit, how shutdown went, stderr. */
  processInfo(): ProcessInfo | undefined;
}
