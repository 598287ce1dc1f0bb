/**
 * What a load run measures: latencies in HDR histograms (hdr-histogram-js, as autocannon uses: percentiles without
 * sorting, and encoded histograms that merge honestly), overall, per method or tool, and per second; errors by kind;
 * answers that crossed to the wrong client.
 */
import * as hdr from 'hdr-histogram-js';

/** Latencies are recorded in microseconds, from 1 µs to one hour, 3 significant digits. */
function histogram(): hdr.Histogram {
  return hdr.build({
    lowestDiscernibleValue: 1,
    highestTrackableValue: 3_600_000_000,
    numberOfSignificantValueDigits: 3,
  });
}

export interface Percentiles {
  p50: number;
  p90: number;
  p95: number;
  p99: number;
  max: number;
}

export function percentilesOf(h: hdr.Histogram): Percentiles {
  const ms = (us: number) => Math.round(us) / 1000;
  if (h.totalCount === 0) return { p50: 0, p90: 0, p95: 0, p99: 0, max: 0 };
  return {
    p50: ms(h.getValueAtPercentile(50)),
    p90: ms(h.getValueAtPercentile(90)),
    p95: ms(h.getValueAtPercentile(95)),
    p99: ms(h.getValueAtPercentile(99)),
    max: ms(h.maxValue),
  };
}

/** An error kind: timeout, http-NNN, jsonrpc-CODE, connection-reset, invalid-message, tool-error, … */
export type ErrorKind = string;

export interface CrossedExample {
  client: number;
  method: string;
  what: string;
  from: number[];
  atS: number;
}

interface Second {
  requests: number;
  errors: number;
  h: hdr.Histogram;
}

export class LoadStats {
  /** Requests sent. */
  sent = 0;
  /** Requests answered (a result or a JSON-RPC error) in time. */
  answered = 0;
  readonly overall = histogram();
  readonly byMethod = new Map<string, { requests: number; errors: number; h: hdr.Histogram }>();
  readonly errors: Record<ErrorKind, number> = {};
  crossed = 0;
  readonly crossedExamples: CrossedExample[] = [];
  private readonly seconds: Second[] = [];

  constructor(readonly t0: number) {}

  private second(at: number): Second {
    const i = Math.max(0, Math.floor((at - this.t0) / 1000));
    while (this.seconds.length <= i) this.seconds.push({ requests: 0, errors: 0, h: histogram() });
    return this.seconds[i]!;
  }

  private method(key: string) {
    let m = this.byMethod.get(key);
    if (!m) this.byMethod.set(key, (m = { requests: 0, errors: 0, h: histogram() }));
    return m;
  }

  /** An answer came (latency in ms, at: performance.now() when it came). `error`: its kind when it counts as one. */
  answer(key: string, latencyMs: number, at: number, error?: ErrorKind): void {
    const us = Math.max(1, Math.round(latencyMs * 1000));
    this.answered++;
    this.overall.recordValue(us);
    const m = this.method(key);
    m.requests++;
    m.h.recordValue(us);
    const s = this.second(at);
    s.requests++;
    s.h.recordValue(us);
    if (error) this.error(key, error, at, false);
  }

  /** A request that failed: no answer (time-out, HTTP status, connection lost) or an answer counted as an error. */
  error(key: string, kind: ErrorKind, at: number, unanswered = true): void {
    this.errors[kind] = (this.errors[kind] ?? 0) + 1;
    const m = this.method(key);
    m.errors++;
    if (unanswered) m.requests++;
    this.second(at).errors++;
  }

  cross(e: CrossedExample): void {
    this.crossed++;
    if (this.crossedExamples.length < 20) this.crossedExamples.push(e);
  }

  /** Errors that count against --max-error-rate: every kind but tool-error (a tool's own isError result). */
  get failedRequests(): number {
    return Object.entries(this.errors)
      .filter(([k]) => k !== 'tool-error')
      .reduce((a, [, n]) => a + n, 0);
  }

  /** p95 of the last complete second (the progress line). */
  lastP95(): number {
    const x = this.seconds.at(-2) ?? this.seconds.at(-1);
    return x ? percentilesOf(x.h).p95 : 0;
  }

  timeline(): { s: number; requests: number; errors: number; p95: number }[] {
    return this.seconds.map((x, i) => ({
      s: i + 1,
      requests: x.requests,
      errors: x.errors,
      p95: percentilesOf(x.h).p95,
    }));
  }

  /** The overall histogram, encoded (compressed base64): what `merge` adds up. */
  encoded(): string {
    return hdr.encodeIntoCompressedBase64(this.overall);
  }

  /** Latency histogram as buckets for plots: [upper bound ms, count], on a log scale (factor 1.5 from 0.1 ms). */
  buckets(): [number, number][] {
    const h = this.overall as unknown as {
      recordedValuesIterator?: {
        reset(): void;
        hasNext(): boolean;
        next(): { valueIteratedTo: number; countAtValueIteratedTo: number };
      };
    };
    const it = h.recordedValuesIterator;
    if (!it || this.overall.totalCount === 0) return [];
    const bounds: number[] = [];
    for (let ub = 0.1; bounds.length < 60; ub *= 1.5) {
      bounds.push(Math.round(ub * 1000) / 1000);
      if (ub * 1000 >= this.overall.maxValue) break;
    }
    const counts = bounds.map(() => 0);
    it.reset();
    while (it.hasNext()) {
      const v = it.next();
      const ms = v.valueIteratedTo / 1000;
      let i = bounds.findIndex((b) => ms <= b);
      if (i < 0) i = bounds.length - 1;
      counts[i]! += v.countAtValueIteratedTo;
    }
    return bounds.map((b, i) => [b, counts[i]!]);
  }
}

/** A histogram, encoded (compressed base64). */
export function encodeHistogram(h: hdr.Histogram): string {
  return hdr.encodeIntoCompressedBase64(h);
}

/** The sum of encoded histograms, encoded again (a merged report can be merged once more). */
export function sumEncoded(list: readonly string[]): string {
  const total = histogram();
  for (const e of list) total.add(hdr.decodeFromCompressedBase64(e));
  return hdr.encodeIntoCompressedBase64(total);
}

/** Merge encoded histograms (several load reports): the sum, decoded. */
export function mergeEncoded(list: readonly string[]): Percentiles {
  const total = histogram();
  for (const e of list) total.add(hdr.decodeFromCompressedBase64(e));
  return percentilesOf(total);
}
