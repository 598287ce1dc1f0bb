/**
 * subscriptions/listen (2026-07-28): open a subscription, collect what belongs to it, and end it as the spec says —
 * over Streamable HTTP by closing its response stream, over stdio with notifications/cancelled naming its id.
 * The request is sent as a probe (no timeout of its own: a listen is answered only when the subscription ends); the
 * caller bounds every wait, and whatever is still open is ended by cancel(), or by the transport's close at the end
 * of the run (which aborts every open HTTP exchange).
 * https://modelcontextprotocol.io/specification/2026-07-28/basic/patterns/subscriptions
 */
import type { LoggedMessage } from './log.js';
import type { Probe } from './probe.js';
import type { Session } from './session.js';
import type { StreamableHttpTransport } from './transport/http.js';
import { META } from './wire.js';

/** The `_meta` key every message of a subscription carries: the JSON-RPC id of its subscriptions/listen request. */
export const SUBSCRIPTION_ID = META.subscriptionId;
export const ACKNOWLEDGED = 'notifications/subscriptions/acknowledged';

/** The notification each field of a SubscriptionFilter opts in to (2026-07-28; extensions may add fields). */
export const FILTER_METHODS: Readonly<Record<string, string>> = {
  toolsListChanged: 'notifications/tools/list_changed',
  promptsListChanged: 'notifications/prompts/list_changed',
  resourcesListChanged: 'notifications/resources/list_changed',
  resourceSubscriptions: 'notifications/resources/updated',
};

/** The change notifications that exist only on subscription streams in 2026-07-28. */
export const CHANGE_NOTIFICATIONS: ReadonlySet<string> = new Set(Object.values(FILTER_METHODS));

export type SubscriptionFilter = Record<string, unknown>;

/** What openListen needs: the session, and the Streamable HTTP transport when the run has one. */
export interface ListenContext {
  session: Session;
  http?: StreamableHttpTransport;
}

/** The subscriptionId a notification carries in params._meta (undefined when none). */
export function subscriptionIdOf(m: LoggedMessage): unknown {
  const p = (m.json as { params?: { _meta?: Record<string, unknown> } } | undefined)?.params;
  const meta = p && typeof p === 'object' ? p._meta : undefined;
  return meta && typeof meta === 'object' ? meta[SUBSCRIPTION_ID] : undefined;
}

/** The params of a notification (an object, or {}). */
function paramsOf(m: LoggedMessage): Record<string, unknown> {
  const p = (m.json as { params?: unknown } | undefined)?.params;
  return p !== null && typeof p === 'object' && !Array.isArray(p) ? (p as Record<string, unknown>) : {};
}

/** One open subscriptions/listen: what came for it, and how to end it. */
export class Subscription {
  /**
   * Notifications that belong to it, in order: over HTTP every notification on its response stream; over stdio
   * (one shared channel) those whose _meta subscriptionId is its id.
   */
  readonly messages: LoggedMessage[] = [];
  /** Every notifications/subscriptions/acknowledged that came while it was open (whatever subscriptionId it carried). */
  readonly acks: LoggedMessage[] = [];
  /** Over stdio: change notifications with no subscriptionId that came while it was open (they belong to no stream). */
  readonly unattributed: LoggedMessage[] = [];
  /** Over stdio: the notifications/cancelled by which the server ended it (its way to tear a subscription down there). */
  serverCancelled?: LoggedMessage;
  /** Set by cancel(): when, the notifications/cancelled sent (stdio), whether a response stream was still open (HTTP). */
  cancelled?: { t: number; note?: LoggedMessage; streamWasOpen?: boolean };
  private readonly waiters = new Set<() => void>();
  private unwatch?: () => void;

  constructor(
    private readonly ctx: ListenContext,
    readonly id: number,
    readonly filter: SubscriptionFilter,
    readonly probe: Probe,
  ) {
    this.unwatch = ctx.session.watch((m) => this.see(m));
  }

  /** The subscriptions/listen request as sent. */
  get request(): LoggedMessage {
    return this.probe.sent[0]!;
  }

  /** Its answer (a SubscriptionsListenResult when the server ended it, or an error), if one came. */
  get answer(): LoggedMessage | undefined {
    return this.probe.answers[0];
  }

  /** Over HTTP: the transport carries it (its notifications are those on its response stream). */
  get overHttp(): boolean {
    return this.ctx.http !== undefined && this.request.http !== undefined;
  }

  /** Over HTTP: the exchange of its POST (status, headers, body or SSE events), once the request was sent. */
  get exchange():
    | {
        status?: number;
        statusText?: string;
        responseBody?: string;
        error?: string;
        ms?: number;
        responseHeaders?: Record<string, unknown>;
      }
    | undefined {
    const n = this.request.http?.exchange;
    return n === undefined ? undefined : (this.ctx.http?.exchanges[n] as Subscription['exchange']);
  }

  /** Over HTTP: its POST has ended (the server closed the response, or the harness did). */
  get streamEnded(): boolean {
    return this.overHttp && this.exchange?.ms !== undefined;
  }

  /** The acknowledgement of this subscription: the first notification of its own that is one. */
  get ack(): LoggedMessage | undefined {
    return this.messages.find((m) => m.method === ACKNOWLEDGED);
  }

  private see(m: LoggedMessage): void {
    if (m.direction !== 'from-server') return;
    if (m.kind !== 'notification') {
      for (const w of [...this.waiters]) w();
      return;
    }
    if (m.method === ACKNOWLEDGED) this.acks.push(m);
    if (m.method === 'notifications/cancelled' && paramsOf(m).requestId === this.id && !this.serverCancelled)
      this.serverCancelled = m;
    const exchange = this.request.http?.exchange;
    const mine = this.overHttp ? m.http?.exchange === exchange : subscriptionIdOf(m) === this.id;
    if (mine) this.messages.push(m);
    else if (
      !this.overHttp &&
      m.method !== undefined &&
      CHANGE_NOTIFICATIONS.has(m.method) &&
      subscriptionIdOf(m) === undefined
    )
      this.unattributed.push(m);
    for (const w of [...this.waiters]) w();
  }

  /** Resolves once pred() holds (true), or after ms, or when it was answered or the connection ended (pred() then). */
  until(pred: () => boolean, ms: number): Promise<boolean> {
    const over = () =>
      pred() ||
      this.answer !== undefined ||
      this.ctx.session.closed ||
      this.streamEnded ||
      this.serverCancelled !== undefined;
    if (over()) return Promise.resolve(pred());
    return new Promise((resolve) => {
      let finished = false;
      const done = () => {
        if (finished) return;
        finished = true;
        clearTimeout(timer);
        clearInterval(poll);
        this.waiters.delete(check);
        resolve(pred());
      };
      const check = () => {
        if (over()) done();
      };
      const timer = setTimeout(done, Math.max(0, ms));
      // The end of an HTTP exchange is recorded after its last frame: looked at now and then.
      const poll = setInterval(check, 100);
      this.waiters.add(check);
      // An answer or the end of the connection wakes the probe, not the watcher.
      void this.probe.waitForAnswers(ms).then(() => {
        if (!finished) check();
      });
    });
  }

  /** Wait (bounded) for its acknowledgement; true when it came. */
  async waitForAck(ms: number): Promise<boolean> {
    return this.until(() => this.ack !== undefined, ms);
  }

  /** Watch it for ms (or until it is answered or the connection ends). */
  async watchFor(ms: number): Promise<void> {
    await this.until(() => false, ms);
  }

  /**
   * End it as a client does: over Streamable HTTP close its response stream; over stdio send notifications/cancelled
   * with its id. Watching goes on (later messages still land here) until close().
   * https://modelcontextprotocol.io/specification/2026-07-28/basic/patterns/subscriptions
   */
  cancel(reason = 'mcp-conform: the subscription is no longer needed'): NonNullable<Subscription['cancelled']> {
    if (this.cancelled) return this.cancelled;
    const s = this.ctx.session;
    if (this.overHttp) {
      this.cancelled = { t: s.now(), streamWasOpen: this.ctx.http!.closeRequestStream(this.id) };
    } else {
      const note = s.notify('notifications/cancelled', { requestId: this.id, reason });
      this.cancelled = { t: note.t, note };
    }
    return this.cancelled;
  }

  /** Stop watching (cancel first if it is still open). */
  close(): void {
    if (!this.cancelled && !this.answer && !this.serverCancelled && !this.ctx.session.closed) this.cancel();
    this.unwatch?.();
    this.unwatch = undefined;
    this.probe.close();
    for (const w of [...this.waiters]) w();
  }

  /** Every message of the exchange, for messageIds: the request, its notifications, its answer, the cancellation. */
  seqs(): number[] {
    const all = [
      this.request,
      ...this.messages,
      ...this.unattributed,
      ...(this.answer ? [this.answer] : []),
      ...(this.cancelled?.note ? [this.cancelled.note] : []),
      ...(this.serverCancelled ? [this.serverCancelled] : []),
    ];
    return [...new Set(all.map((m) => m.seq))].sort((a, b) => a - b);
  }

  /** The params.notifications of its acknowledgement (undefined when none or not an object). */
  acknowledged(): SubscriptionFilter | undefined {
    const ack = this.ack;
    const n = ack ? paramsOf(ack).notifications : undefined;
    return n !== null && typeof n === 'object' && !Array.isArray(n) ? (n as SubscriptionFilter) : undefined;
  }
}

/**
 * Send subscriptions/listen with this filter and start collecting what belongs to it. Every wait on the result is
 * the caller's to bound (until, waitForAck, watchFor); end it with cancel() and close().
 *
 * Reusable for any filter field, e.g. an extension's: `openListen(ctx, { taskIds: ['t1'] })`.
 */
export function openListen(ctx: ListenContext, filter: SubscriptionFilter): Subscription {
  const s = ctx.session;
  const id = s.newId();
  const probe = s.probe([{ jsonrpc: '2.0', id, method: 'subscriptions/listen', params: { notifications: filter } }], {
    id,
  });
  return new Subscription(ctx, id, filter, probe);
}

/** The filter fields (and, for resourceSubscriptions, URIs) a notification answers to, or undefined when none. */
export function filterFieldOf(m: LoggedMessage): string | undefined {
  for (const [field, method] of Object.entries(FILTER_METHODS)) if (m.method === method) return field;
  return undefined;
}

/** Whether a notification is one the filter asked for (resources/updated: of a URI it names). */
export function requested(filter: SubscriptionFilter, m: LoggedMessage): boolean {
  const field = filterFieldOf(m);
  if (!field) return false;
  if (field === 'resourceSubscriptions') {
    const uris = filter.resourceSubscriptions;
    const uri = paramsOf(m).uri;
    // The spec lets the URI be a sub-resource of the one subscribed to: a prefix match is accepted.
    return (
      Array.isArray(uris) &&
      typeof uri === 'string' &&
      uris.some((u) => typeof u === 'string' && (uri === u || uri.startsWith(u)))
    );
  }
  return filter[field] === true;
}
