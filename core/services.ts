/**
 * Run services: facts produced once per run by the suite (or module) that owns them, memoized, read by the others —
 * the tool list (core/tools.ts), the call plan (core/call-policy.ts), later resources, prompts… The core knows none
 * by name: a service is a value with an id and a produce function, and may contribute fields to the report.
 */
import type { Report } from './results.js';
import type { CaseContext, Service } from './suite.js';

export type { Service } from './suite.js';

interface Entry {
  promise: Promise<unknown>;
  value?: unknown;
  done: boolean;
}

/** The per-run store behind ctx.service(). */
export class ServiceStore {
  private readonly entries = new Map<Service<unknown>, Entry>();
  /** whenProduced() calls made before anything asked for their service: settled as its production settles. */
  private readonly waiting = new Map<
    Service<unknown>,
    { promise: Promise<unknown>; settle: (p: Promise<unknown>) => void }
  >();
  /** Services whose report hook runs even when nothing used them (the run's own, and those suites declare). */
  private readonly declared = new Set<Service<unknown>>();

  declare(s: Service<unknown>): void {
    this.declared.add(s);
  }

  get<T>(s: Service<T>, ctx: CaseContext): Promise<T> {
    const key = s as Service<unknown>;
    let e = this.entries.get(key);
    if (!e) {
      const entry: Entry = { promise: Promise.resolve(), done: false };
      entry.promise = s.produce(ctx).then((v) => {
        entry.value = v;
        entry.done = true;
        return v;
      });
      this.entries.set(key, entry);
      e = entry;
      this.waiting.get(key)?.settle(entry.promise);
      this.waiting.delete(key);
    }
    return e.promise as Promise<T>;
  }

  /** The value once something has asked for the service (get) and it has been produced; never produces it. */
  whenProduced<T>(s: Service<T>): Promise<T> {
    const key = s as Service<unknown>;
    const e = this.entries.get(key);
    if (e) return e.promise as Promise<T>;
    let w = this.waiting.get(key);
    if (!w) {
      let settle!: (p: Promise<unknown>) => void;
      const promise = new Promise<unknown>((resolve) => {
        settle = resolve;
      });
      w = { promise, settle };
      this.waiting.set(key, w);
    }
    return w.promise as Promise<T>;
  }

  /** The value, when it has been produced. */
  peek<T>(s: Service<T>): T | undefined {
    const e = this.entries.get(s as Service<unknown>);
    return e?.done ? (e.value as T) : undefined;
  }

  /** Let every declared or used service add its report fields. */
  contribute(report: Report): void {
    for (const s of new Set([...this.declared, ...this.entries.keys()])) s.report?.(report, this.peek(s));
  }
}
