/**
 * Probes: messages a case sends to see what the server makes of them (malformed on purpose, or watched for answers
 * that must not come), collected by the session without a timeout; and leadingId, the id of a message cut at the
 * size bound. Used by core/session.ts, which routes answers to the open probes.
 */
import type { LoggedMessage } from './log.js';

export interface ProbeOptions {
  /** The message is malformed on purpose: marks it in the log; its schema violations are expected. Say why. */
  expectInvalid?: string;
  /** Send the text as it is (for probes that are not JSON at all). */
  rawText?: boolean;
  /** Answers with this id belong to the probe (they are not id anomalies). */
  id?: string | number;
  /** How many answers with that id are expected (more are duplicate answers). Default 1. */
  expectAnswers?: number;
  /**
   * While the probe is open, every answer that matches nothing awaited (id null or absent, unknown id) belongs to it.
   * Only one catch-all probe may be open on a session at a time (Session.catchAllIdle waits for the open one to close).
   */
  catchAll?: boolean;
  /**
   * The catch-all probe stays open while other cases send on the session (an early watch window, CaseDef.early):
   * an answer that matches nothing is the probe's only while nothing else has been sent since the probe's own
   * messages (its values, and what Session.claimLastSent gave it). One that comes later cannot be told apart from a
   * wrong answer to another message: it is left as it would be without the probe (an id anomaly, say) and listed in
   * Probe.unattributed, so that the case can repeat its probe alone.
   */
  overlapped?: boolean;
}

/**
 * A message sent to see what the server makes of it, without a timeout: the caller bounds the wait (typically by a
 * ping sent after it). Answers are collected as they come, for the whole session.
 */
export class Probe {
  readonly sent: LoggedMessage[] = [];
  readonly answers: LoggedMessage[] = [];
  /** Overlapped probes: answers that matched nothing but came after other messages were sent (not claimed). */
  readonly unattributed: LoggedMessage[] = [];
  /** seq of the probe's last own message (see ProbeOptions.overlapped). */
  lastOwnSeq = -1;
  /**
   * Set when the connection ended while the probe was open: when (ms since the session began), and whether other
   * messages had been sent since the probe's own (then the end cannot be laid on the probe: ProbeOptions.overlapped).
   */
  connectionLost?: { t: number; othersSent: boolean };
  open = true;
  private readonly waiters = new Set<() => void>();

  constructor(readonly opts: ProbeOptions) {}

  /** Resolves true once `count` answers have come, false after ms or when the connection ends (or the probe is closed). Never rejects. */
  waitForAnswers(ms: number, count = 1): Promise<boolean> {
    if (this.answers.length >= count) return Promise.resolve(true);
    if (!this.open) return Promise.resolve(false); // closed already (the connection ended, or the run was abandoned): nothing to wait for
    return new Promise((resolve) => {
      const done = (v: boolean) => {
        clearTimeout(timer);
        this.waiters.delete(check);
        resolve(v);
      };
      const check = () => {
        if (this.answers.length >= count) done(true);
        else if (!this.open) done(false);
      };
      const timer = setTimeout(() => done(false), Math.max(0, ms));
      this.waiters.add(check);
    });
  }

  /** Resolves once the probe is closed (never rejects). */
  whenClosed(): Promise<void> {
    if (!this.open) return Promise.resolve();
    return new Promise((resolve) => {
      const check = () => {
        if (!this.open) {
          this.waiters.delete(check);
          resolve();
        }
      };
      this.waiters.add(check);
    });
  }

  /** Stop collecting answers that match nothing (answers with the probe's id still belong to it). */
  close(): void {
    this.open = false;
    this.wake();
  }

  /** @internal */
  take(entry: LoggedMessage): void {
    this.answers.push(entry);
    this.wake();
  }

  /** @internal */
  wake(): void {
    for (const w of [...this.waiters]) w();
  }
}

/**
 * The id of a JSON-RPC message from the start of its text, for a line that was cut at the size bound and so cannot
 * be parsed: the top-level "id" member, if it comes before the cut. undefined when there is none (never throws).
 */
export function leadingId(raw: string, limit = 4096): string | number | undefined {
  const s = raw.length > limit ? raw.slice(0, limit) : raw;
  let i = 0;
  const ws = () => {
    while (i < s.length && ' \t\r\n'.includes(s[i]!)) i++;
  };
  const str = (): string | undefined => {
    if (s[i] !== '"') return undefined;
    const start = i++;
    while (i < s.length && s[i] !== '"') i += s[i] === '\\' ? 2 : 1;
    if (i >= s.length) return undefined;
    i++;
    try {
      return JSON.parse(s.slice(start, i)) as string;
    } catch {
      return undefined;
    }
  };
  /** Skip one value; returns it when it is a string or a number, undefined otherwise (or when cut). */
  const value = (): { ok: boolean; v?: string | number } => {
    ws();
    const c = s[i];
    if (c === '"') {
      const v = str();
      return { ok: v !== undefined, v };
    }
    if (c === '{' || c === '[') {
      let depth = 0;
      while (i < s.length) {
        const d = s[i]!;
        if (d === '"') {
          if (str() === undefined) return { ok: false };
          continue;
        }
        if (d === '{' || d === '[') depth++;
        else if (d === '}' || d === ']') {
          depth--;
          if (depth === 0) {
            i++;
            return { ok: true };
          }
        }
        i++;
      }
      return { ok: false };
    }
    const m = /^-?\d+(\.\d+)?([eE][+-]?\d+)?|^(true|false|null)/.exec(s.slice(i, i + 400));
    if (!m) return { ok: false };
    i += m[0].length;
    if (i >= s.length) return { ok: false }; // a number cut at the bound may be longer
    return { ok: true, v: m[3] ? undefined : Number(m[0]) };
  };
  ws();
  if (s[i] !== '{') return undefined;
  i++;
  for (;;) {
    ws();
    const key = str();
    if (key === undefined) return undefined;
    ws();
    if (s[i] !== ':') return undefined;
    i++;
    const v = value();
    if (!v.ok) return undefined;
    if (key === 'id') return v.v;
    ws();
    if (s[i] !== ',') return undefined;
    i++;
  }
}
