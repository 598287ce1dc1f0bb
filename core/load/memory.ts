/**
 * Memory of the server a load run started: the resident set size (RSS) of its process and every descendant, read
 * from /proc (Linux) once a second, and whether it climbed steadily over the run.
 */
import { readFileSync } from 'node:fs';
import { descendants } from '../processes.js';

/** RSS of one process in MB (from /proc/PID/status VmRSS); undefined where unreadable. */
function rssMb(pid: number): number | undefined {
  try {
    const m = /VmRSS:\s+(\d+)\s+kB/.exec(readFileSync(`/proc/${pid}/status`, 'utf8'));
    return m ? Number(m[1]) / 1024 : undefined;
  } catch {
    return undefined;
  }
}

/** RSS of a process tree in MB; undefined where /proc cannot tell (not Linux, or the process is gone). */
export function treeRssMb(root: number): number | undefined {
  const own = rssMb(root);
  if (own === undefined) return undefined;
  let total = own;
  for (const d of descendants(root)) total += rssMb(d.pid) ?? 0;
  return Math.round(total * 10) / 10;
}

export interface MemorySample {
  s: number;
  mb: number;
  requests: number;
}

export class MemorySampler {
  readonly samples: MemorySample[] = [];
  private timer?: NodeJS.Timeout;

  constructor(
    private readonly pid: number,
    private readonly t0: number,
    private readonly requests: () => number,
  ) {}

  start(everyMs = 1000): void {
    this.sample();
    this.timer = setInterval(() => this.sample(), everyMs);
    this.timer.unref();
  }

  sample(): void {
    const mb = treeRssMb(this.pid);
    if (mb !== undefined)
      this.samples.push({ s: Math.round((performance.now() - this.t0) / 100) / 10, mb, requests: this.requests() });
  }

  stop(): void {
    if (this.timer) clearInterval(this.timer);
    this.timer = undefined;
    this.sample();
  }
}

export interface MemoryGrowth {
  /** MB the RSS grew per 1,000 requests (least squares over the samples). */
  mbPer1000: number;
  /** How much of the variation the straight line explains (0–1). */
  r2: number;
  /** Grew steadily: a fit that explains most samples, and growth worth naming. */
  steady: boolean;
}

/**
 * The trend of RSS against requests answered. Steady growth: at least 4 samples, a line that explains ≥ 80 % of the
 * variation, and a rise of at least 5 MB and 10 % over the run (allocator warm-up and caches stay under it).
 */
export function memoryGrowth(samples: readonly MemorySample[]): MemoryGrowth | undefined {
  if (samples.length < 3) return undefined;
  const xs = samples.map((x) => x.requests);
  const ys = samples.map((x) => x.mb);
  const n = xs.length;
  const mx = xs.reduce((a, b) => a + b, 0) / n;
  const my = ys.reduce((a, b) => a + b, 0) / n;
  let sxy = 0,
    sxx = 0,
    syy = 0;
  for (let i = 0; i < n; i++) {
    sxy += (xs[i]! - mx) * (ys[i]! - my);
    sxx += (xs[i]! - mx) ** 2;
    syy += (ys[i]! - my) ** 2;
  }
  if (sxx === 0) return undefined;
  const slope = sxy / sxx;
  const r2 = syy === 0 ? 0 : (sxy * sxy) / (sxx * syy);
  const rise = ys[n - 1]! - ys[0]!;
  const steady = n >= 4 && r2 >= 0.8 && slope > 0 && rise >= 5 && rise >= 0.1 * ys[0]!;
  return { mbPer1000: Math.round(slope * 1000 * 100) / 100, r2: Math.round(r2 * 100) / 100, steady };
}
