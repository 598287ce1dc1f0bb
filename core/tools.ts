/** The tool list of a server: every page of tools/list, followed with a bound and loop detection. */
import type { Reply, Session } from './session.js';
import type { OptionDef } from './options.js';
import { SessionError } from './session.js';
import type { Service } from './services.js';
import type { CaseContext, ToolCallRecord } from './suite.js';
import { MAX_PAGES, hasStringMember, listAll } from './listing.js';

export interface Tool {
  name: string;
  title?: string;
  description?: string;
  inputSchema?: unknown;
  outputSchema?: unknown;
  annotations?: Record<string, unknown>;
  [k: string]: unknown;
}

export interface ToolListing {
  tools: Tool[];
  /** Every page's reply, in order. */
  pages: Reply[];
  messageIds: number[];
  /** Set when listing did not complete: why, in plain words. */
  problem?: string;
  /** Entries of `tools` that were not objects with a string name (kept out of `tools`). */
  malformed: { page: number; index: number; value: unknown }[];
}

export { MAX_PAGES } from './listing.js';

export async function listAllTools(session: Session, maxPages = MAX_PAGES): Promise<ToolListing> {
  const l = await listAll<Tool>(session, 'tools/list', 'tools', hasStringMember('name'), maxPages);
  return {
    tools: l.items,
    pages: l.pages,
    messageIds: l.messageIds,
    malformed: l.malformed,
    ...(l.problem ? { problem: l.problem } : {}),
  };
}

/** The default of --max-in-flight: the requests of one batch (calls of different tools, per-tool probes) in flight at once. */
export const DEFAULT_MAX_IN_FLIGHT = 8;

/**
 * run --max-in-flight N (a run option): how many requests whose verdicts cannot depend on one another (calls of
 * different tools the policy allows, the per-tool invalid-params probes) may be in flight together; 1 sends them one
 * at a time. Probes whose verdict depends on order or on the server's state (lifecycle, robustness, tasks…) are sent
 * alone whatever it says.
 */
export const maxInFlightOption: OptionDef<number> = {
  flag: 'max-in-flight',
  key: 'maxInFlight',
  type: 'integer',
  default: DEFAULT_MAX_IN_FLIGHT,
  inReport: 'always',
  help: `Most independent requests in flight at once (calls of different tools, the per-tool invalid-params probes); 1 sends every request alone, as a serial run; probes whose verdict depends on order always go alone (default ${DEFAULT_MAX_IN_FLIGHT})`,
  validate: (v, name) =>
    Number.isInteger(v) && (v as number) >= 1 && (v as number) <= 256
      ? undefined
      : `${name} must be an integer from 1 to 256 (got ${JSON.stringify(v)})`,
};

export interface PipelineOptions<R> {
  /** Most calls in flight at once (default DEFAULT_MAX_IN_FLIGHT; a run passes --max-in-flight). */
  window?: number;
  /**
   * A call that takes longer than this (ms) turns pipelining off for the rest of the items (default: never). Slowness
   * alone is no reason: each call's timeout starts at its turn, so a server that serves one request at a time is not
   * failed for its queue, and one that serves them side by side (1 s per request, say) is not made to wait.
   */
  slowMs?: number;
  /** A result that means trouble (a failure, no answer): pipelining is off from then on. */
  isBad?: (r: R) => boolean;
  /** While the session is stalled (a request timed out), one call at a time, for good. */
  isStalled?: () => boolean;
}

/**
 * Runs fn over items with several calls in flight, results in the order of the items. Meant for requests whose
 * order does not matter (calling many tools): it hides the round-trip latency and the server's own time. Each
 * request keeps its own timeout (the session's), started as if the calls had gone one at a time: a request sent while
 * the call ahead of it is in flight starts its timeout only once that call has settled (fn gets that call's promise:
 * pass it on as the request's RequestOptions.timeoutFrom, callTool's `timeoutFrom`), so a server that handles one
 * request at a time, keeping the later ones in its queue, is not failed for the wait; a call that gets no answer
 * still fails within its timeout from its turn. Its reply's timedFrom (where its duration starts) is that turn as
 * well. It stays careful: as soon as one call fails or the session stalls, the rest go one at a time as they would
 * without it, so a hanging or dying server gets the same treatment as before (only the few calls already sent behind
 * the bad one wait for it, each within its own timeout from its turn).
 */
export function pipelined<T, R>(
  items: readonly T[],
  fn: (item: T, index: number, after: Promise<unknown> | undefined) => Promise<R>,
  opts: PipelineOptions<R> = {},
): Promise<R[]> {
  const window = Math.max(1, opts.window ?? DEFAULT_MAX_IN_FLIGHT);
  const slowMs = opts.slowMs ?? Infinity;
  const results = new Array<R>(items.length);
  const started = new Map<number, number>();
  /** The promise of the call launched last (the one ahead of the next). */
  let ahead: Promise<R> | undefined;
  let next = 0;
  let done = 0;
  let sequential = window === 1;
  if (!items.length) return Promise.resolve(results);
  return new Promise<R[]>((resolve, reject) => {
    const launch = (): void => {
      while (next < items.length) {
        if (!sequential) {
          if (opts.isStalled?.()) sequential = true;
          else {
            const now = performance.now();
            for (const t of started.values())
              if (now - t > slowMs) {
                sequential = true;
                break;
              }
          }
        }
        if (started.size >= (sequential ? 1 : window)) return;
        const i = next++;
        let p: Promise<R>;
        // Still in flight, the call ahead of it keeps this one waiting (in the server's queue, perhaps): its timeout
        // starts once that one has settled.
        const behind = started.has(i - 1) ? ahead : undefined;
        started.set(i, performance.now());
        try {
          p = fn(items[i]!, i, behind);
        } catch (e) {
          reject(e);
          return;
        }
        ahead = p;
        p.then((r) => {
          const t0 = started.get(i)!;
          started.delete(i);
          results[i] = r;
          done++;
          if (performance.now() - t0 > slowMs || opts.isBad?.(r)) sequential = true;
          if (done === items.length) resolve(results);
          else launch();
        }, reject);
      }
    };
    launch();
  });
}

/**
 * After pipelined tool calls: a call that was already in flight when the server went away (it died on an earlier
 * call of the same batch) is treated as a call made after it was gone — not judged (skip), as it would have been
 * had the calls gone one at a time. The first call that met the end keeps its failure. So is a call given up on
 * because the server stopped answering altogether (Session.unresponsive): the call that timed out keeps its failure.
 */
export function notJudgedAfterCrash(recs: readonly { failure?: Error }[]): void {
  let gone = false;
  for (const rec of recs) {
    const e = rec.failure;
    // Given up on because the server answered nothing any more (a call timed out, then the liveness ping did too):
    // the call that timed out carries the verdict; the ones given up on with it are not judged.
    if (e instanceof SessionError && e.kind === 'unresponsive' && !e.afterClose) {
      const n = new SessionError(
        'unresponsive',
        `${e.message} (it was already sent when the server stopped answering: not judged)`,
        e.request,
        e.closeInfo,
        true,
      );
      n.waitedMs = e.waitedMs;
      rec.failure = n;
      continue;
    }
    if (!(e instanceof SessionError) || e.kind !== 'closed' || e.afterClose) continue;
    if (!gone) {
      gone = true;
      continue;
    }
    rec.failure = new SessionError(
      'closed',
      `${e.message} (it was already sent, with earlier calls still in flight, when the server went away: not judged)`,
      e.request,
      e.closeInfo,
      true,
    );
  }
}

/**
 * The tool list of the run (a run service): every page of tools/list, fetched once and shared by listing, calling,
 * unknown-tool, invalid-params, robustness… It fills report.server.toolCount.
 */
export const tools: Service<ToolListing> = {
  id: 'tools',
  produce: (ctx) => listAllTools(ctx.session),
  report(report, listing) {
    report.server.toolCount = listing?.tools.length;
  },
};

/**
 * The first tools/call of a tool, in the order made, whose purpose is one of purposes: what
 * `toolCallsOf(ctx).find((c) => c.tool === tool && purposes.includes(c.purpose))` gives, through an index of the
 * run's exchanges by tool, brought up to date from where it stopped (exchanges are only appended, and a record's
 * method, tool and purpose are set when it is made). A scan of every exchange per tool was quadratic at 5,000 tools.
 */
export function firstToolCall(
  ctx: Pick<CaseContext, 'exchanges'>,
  tool: string,
  purposes: readonly string[],
): ToolCallRecord | undefined {
  let ix = callIndexes.get(ctx.exchanges);
  if (!ix) callIndexes.set(ctx.exchanges, (ix = { seen: 0, byTool: new Map() }));
  const all = ctx.exchanges;
  for (; ix.seen < all.length; ix.seen++) {
    const e = all[ix.seen]!;
    if (e.method !== 'tools/call' || typeof e.tool !== 'string') continue;
    let list = ix.byTool.get(e.tool);
    if (!list) ix.byTool.set(e.tool, (list = []));
    list.push(e as ToolCallRecord);
  }
  return ix.byTool.get(tool)?.find((c) => purposes.includes(c.purpose));
}
const callIndexes = new WeakMap<readonly unknown[], { seen: number; byTool: Map<string, ToolCallRecord[]> }>();

/** The tools/call exchanges of the run so far, in the order made. */
export function toolCallsOf(ctx: Pick<CaseContext, 'exchanges'>): ToolCallRecord[] {
  return ctx.exchanges.filter((e): e is ToolCallRecord => e.method === 'tools/call' && typeof e.tool === 'string');
}
