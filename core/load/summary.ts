/** The `load` object of a load report (report.json; docs/load.md), shared by lib/load.ts and the load reporters. */
import type { Percentiles } from './stats.js';

/** The `load` object of report.json (docs/load.md). */
export interface LoadSummary {
  requests: number;
  durationS: number;
  throughput: number;
  latencyMs: Percentiles;
  /** Per method or tool; `histogram`: its latencies encoded as `histogram.value` is (what `merge` adds up). */
  byMethod: Record<string, { requests: number; errors: number; latencyMs: Percentiles; histogram?: string }>;
  /** `merge`: how many load reports were joined into this one. */
  merged?: number;
  errors: Record<string, number>;
  errorRate: number;
  crossed: number;
  crossedExamples: { client: number; method: string; what: string; from: number[]; atS: number }[];
  sessions: { requested: number; opened: number; failed: number; endedCleanly: number; failures?: string[] };
  memory?: {
    startMb: number;
    peakMb: number;
    endMb: number;
    samples: [number, number][];
    growthMbPer1000Requests?: number;
    steady?: boolean;
  };
  timeline: { s: number; requests: number; errors: number; p95: number }[];
  histogram: { encoding: 'hdr-compressed-base64'; unit: 'us'; value: string; buckets: [number, number][] };
  mode: 'closed-loop' | 'open-loop';
  endedBy: string;
  unfinished: number;
  canary: { by: 'tool' | 'shape'; tool?: string };
  mix: string[];
  options: Record<string, unknown>;
}
