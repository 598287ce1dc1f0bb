/**
 * The plain request and response values the HTTP mock is written against (mocks/http.ts), so that node:http and msw
 * carry them alike; the 2026-07-28 path (mocks/http-modern.ts) answers with them too.
 */
import type { MockSession } from './engine.js';

export interface PlainRequest {
  method: string;
  url: URL;
  header(name: string): string | undefined;
  /** The names of the headers sent (lower case), where the carrier can say. */
  headerNames?(): string[];
  body: string;
  /** mcp-conform client: the number of the recorded exchange. */
  exchange?: number;
}

/** The session a modern (2026-07-28) request goes to: one for the endpoint, since that era has no sessions. */
export interface ModernSessionHost {
  modernSession?: MockSession;
}

export interface PlainResponse {
  status: number;
  headers: Record<string, string>;
  /** Absent: no body at all (a 202 must have none: msw on Node 20 hangs when a body is cancelled). */
  body?: string;
  /** Faults: no answer at all, the connection is closed (serve --disconnect-after). */
  hangUp?: boolean;
  /** Called once the answer has been sent (faults count answered requests here). */
  sent?: () => void;
  /**
   * A stream that stays open after the body (a 2026-07-28 subscriptions/listen): called once the head and body are
   * out, with a writer of more SSE text; returns what to do when the client goes away or the mock closes.
   */
  stream?: (write: (chunk: string) => void) => () => void;
}
