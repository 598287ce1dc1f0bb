/**
 * The protocol eras a mock speaks. Legacy (2024-11-05 … 2025-11-25): the `initialize` handshake opens a session.
 * Modern (2026-07-28): no handshake; every request carries its version, capabilities and client info in `_meta`,
 * `server/discover` says what the server supports, results carry `resultType` (and cache hints where cacheable),
 * `subscriptions/listen` opens a notification stream, an unsupported version is -32022.
 * https://modelcontextprotocol.io/specification/2026-07-28/basic/versioning
 *
 * `EraSource` wraps any source that answers the legacy way (a fixture, a cassette) and makes it dual-era (the
 * default: it answers `initialize` and modern requests alike), legacy only, or modern only (`--protocol-version V`).
 * A modern request is answered by an inner session the layer initialized itself (at the newest legacy version the
 * source speaks), its answer reshaped for 2026-07-28. The HTTP-only rules (request-metadata headers, 404 for an
 * unknown method, no sessions) are in http.ts, which asks `modern` of the source.
 */
import { errorResponse, parseJson, type MockSession, type MockSource, type Outgoing } from './engine.js';
import { isObject as isObj } from '../core/objects.js';
import { ERROR_CODE, META } from '../core/wire.js';

export const MODERN_VERSION = '2026-07-28';
export const LEGACY_VERSIONS = ['2025-11-25', '2025-06-18', '2025-03-26', '2024-11-05'];
export { META };

/** 2026-07-28 error codes (https://modelcontextprotocol.io/specification/2026-07-28/basic/index#error-codes). */
export const HEADER_MISMATCH = ERROR_CODE.headerMismatch;
export const UNSUPPORTED_VERSION = ERROR_CODE.unsupportedVersion;

/** Results that carry cache hints (https://modelcontextprotocol.io/specification/2026-07-28/server/utilities/caching). */
const CACHEABLE = [
  'server/discover',
  'tools/list',
  'prompts/list',
  'resources/list',
  'resources/templates/list',
  'resources/read',
];
/** Methods of the legacy era that 2026-07-28 no longer has. */
const REMOVED = [
  'initialize',
  'ping',
  'logging/setLevel',
  'resources/subscribe',
  'resources/unsubscribe',
  'tasks/get',
  'tasks/result',
  'tasks/list',
  'tasks/cancel',
];
/** The change notifications a subscriptions/listen filter can ask for, and the capability each needs. */
const FILTERS: Record<string, { method: string; cap: string }> = {
  toolsListChanged: { method: 'notifications/tools/list_changed', cap: 'tools' },
  promptsListChanged: { method: 'notifications/prompts/list_changed', cap: 'prompts' },
  resourcesListChanged: { method: 'notifications/resources/list_changed', cap: 'resources' },
};
/** How long a client may keep a cacheable result fresh (ms), the hint the mock gives. */
export const CACHE_TTL_MS = 60_000;

/** What http.ts needs to know of a source's eras. */
export interface EraInfo {
  /** It answers `initialize` (legacy versions). */
  legacy: boolean;
  /** The modern versions it answers (empty: none). */
  modernVersions: string[];
  /** The tools as listed (for the x-mcp-header check over HTTP). */
  tools(): Promise<Record<string, unknown>[]>;
}

/** The era of a message: a modern request carries the version in `_meta` (server/discover is modern by its name). */
export function isModernRequest(m: Record<string, unknown>): boolean {
  if (m.method === 'server/discover') return true;
  const meta = isObj(m.params) && isObj(m.params._meta) ? m.params._meta : undefined;
  return !!meta && META.protocolVersion in meta;
}

/** What `--protocol-version V` makes of the eras: undefined = dual-era. A usage problem is thrown as Error. */
export function erasOf(
  protocolVersion: string | undefined,
  legacyVersions: string[],
): { legacy: string[]; modern: string[] } {
  if (protocolVersion === undefined) return { legacy: legacyVersions, modern: [MODERN_VERSION] };
  if (protocolVersion === MODERN_VERSION) return { legacy: [], modern: [MODERN_VERSION] };
  if (LEGACY_VERSIONS.includes(protocolVersion)) return { legacy: [protocolVersion], modern: [] };
  throw new Error(
    `--protocol-version: ${protocolVersion} is not a protocol version the mock speaks (${[MODERN_VERSION, ...LEGACY_VERSIONS].join(', ')})`,
  );
}

export class EraSource implements MockSource {
  readonly label: string;
  readonly protocolVersions: string[];
  readonly modernVersions: string[];
  readonly legacyVersions: string[];
  readonly era: EraInfo;
  private toolList?: Promise<Record<string, unknown>[]>;

  /** protocolVersion: one version only (`--protocol-version`); absent: every version (dual-era). */
  constructor(
    readonly inner: MockSource,
    protocolVersion?: string,
  ) {
    const legacyOfInner = inner.protocolVersions.length
      ? inner.protocolVersions.filter((v) => LEGACY_VERSIONS.includes(v))
      : LEGACY_VERSIONS;
    const eras = erasOf(protocolVersion, legacyOfInner.length ? legacyOfInner : LEGACY_VERSIONS);
    this.legacyVersions = eras.legacy;
    this.modernVersions = eras.modern;
    this.protocolVersions = [...eras.modern, ...eras.legacy];
    const speaks = protocolVersion
      ? `protocol ${protocolVersion} only`
      : `dual-era (${MODERN_VERSION} and ${this.legacyVersions[0] ?? '-'} …)`;
    this.label = `${inner.label}, ${speaks}`;
    this.era = { legacy: eras.legacy.length > 0, modernVersions: eras.modern, tools: () => this.tools() };
  }

  newSession(): EraSession {
    return new EraSession(this);
  }

  /** The tools, every page, as a fresh modern session lists them (once). */
  tools(): Promise<Record<string, unknown>[]> {
    this.toolList ??= (async () => {
      const s = this.newSession();
      const out: Record<string, unknown>[] = [];
      let cursor: unknown;
      for (let page = 0; page < 100; page++) {
        let answer: Outgoing | undefined;
        await s.receive(
          JSON.stringify({
            jsonrpc: '2.0',
            id: `mcp-conform-tools-${page}`,
            method: 'tools/list',
            params: {
              ...(cursor ? { cursor } : {}),
              _meta: {
                [META.protocolVersion]: this.modernVersions[0] ?? MODERN_VERSION,
                [META.clientCapabilities]: {},
              },
            },
          }),
          (m) => {
            if ('result' in m || 'error' in m) answer = m;
          },
        );
        const r = answer && isObj(answer.result) ? answer.result : undefined;
        if (!r || !Array.isArray(r.tools)) break;
        out.push(...r.tools.filter(isObj));
        cursor = r.nextCursor;
        if (typeof cursor !== 'string') break;
      }
      return out;
    })();
    return this.toolList;
  }
}

/**
 * One connection's session. `era` is what the client chose: 'legacy' once it sent initialize, 'modern' once it sent
 * a modern request (a dual-era client may probe modern and then fall back to legacy on another connection).
 */
export class EraSession implements MockSession {
  era?: 'legacy' | 'modern';
  private legacySession?: MockSession;
  private modernInner?: Promise<{ session: MockSession; init: Record<string, unknown> }>;
  /** Open subscriptions/listen requests: id → the notification methods agreed. */
  readonly listens = new Map<string, { id: unknown; methods: string[]; emit: (m: Outgoing) => void }>();

  constructor(private readonly src: EraSource) {}

  private legacy(): MockSession {
    this.legacySession ??= this.src.inner.newSession();
    return this.legacySession;
  }

  /** The inner session modern requests go to, initialized by the layer itself. */
  private modern(): Promise<{ session: MockSession; init: Record<string, unknown> }> {
    this.modernInner ??= (async () => {
      const session = this.src.inner.newSession();
      let init: Record<string, unknown> = {};
      const version = this.src.inner.protocolVersions.find((v) => LEGACY_VERSIONS.includes(v)) ?? LEGACY_VERSIONS[0];
      await session.receive(
        JSON.stringify({
          jsonrpc: '2.0',
          id: 'mcp-conform-era-init',
          method: 'initialize',
          params: { protocolVersion: version, capabilities: {}, clientInfo: { name: 'mcp-conform-era', version: '1' } },
        }),
        (m) => {
          if (isObj(m.result)) init = m.result;
        },
      );
      await session.receive(JSON.stringify({ jsonrpc: '2.0', method: 'notifications/initialized' }), () => undefined);
      return { session, init };
    })();
    return this.modernInner;
  }

  /** The server's capabilities as a modern client sees them (from the inner initialize). */
  async capabilities(): Promise<Record<string, unknown>> {
    const { init } = await this.modern();
    return isObj(init.capabilities) ? init.capabilities : {};
  }

  /** Sends a change notification on every open listen that agreed to it; true when one was sent. */
  notify(method: string, params: Record<string, unknown> = {}): boolean {
    let sent = false;
    for (const l of this.listens.values()) {
      if (!l.methods.includes(method)) continue;
      l.emit({ jsonrpc: '2.0', method, params: { ...params, _meta: { [META.subscriptionId]: l.id } } });
      sent = true;
    }
    return sent;
  }

  /** The client went away from a subscription (HTTP: it closed the stream). */
  closeListen(id: unknown): void {
    this.listens.delete(JSON.stringify(id));
  }

  end(): void {
    this.legacySession?.end?.();
    void this.modernInner?.then((m) => m.session.end?.());
  }

  async receive(raw: string, emit: (m: Outgoing) => void): Promise<void> {
    const p = parseJson(raw);
    const m = p.ok && isObj(p.value) ? p.value : undefined;
    const method = typeof m?.method === 'string' ? m.method : undefined;
    const isRequest = !!m && !!method && 'id' in m;
    if (!m || !method) {
      // Not a request or notification (a response to a server request, or junk): the session in use answers it.
      return (this.era === 'modern' ? (await this.modern()).session : this.legacy()).receive(raw, emit);
    }
    if (method === 'initialize' && isRequest) {
      if (!this.src.legacyVersions.length) {
        const asked = isObj(m.params) ? m.params.protocolVersion : undefined;
        emit(
          errorResponse(
            m.id,
            UNSUPPORTED_VERSION,
            `Unsupported protocol version: this server speaks ${this.src.modernVersions.join(', ')} only (no initialize handshake; send requests with _meta)`,
            { supported: this.src.modernVersions, requested: typeof asked === 'string' ? asked : String(asked) },
          ),
        );
        return;
      }
      this.era = 'legacy';
      const pinned = this.src.legacyVersions.length === 1 ? this.src.legacyVersions[0] : undefined;
      const forwarded =
        pinned && isObj(m.params) ? JSON.stringify({ ...m, params: { ...m.params, protocolVersion: pinned } }) : raw;
      return this.legacy().receive(forwarded, emit);
    }
    const modern = isModernRequest(m) || (this.era === 'modern' && method === 'notifications/cancelled');
    if (this.era === 'legacy' || !this.src.modernVersions.length || (!modern && this.src.legacyVersions.length))
      return this.legacy().receive(raw, emit);
    if (!isRequest) {
      // notifications/cancelled on stdio ends a request or a subscription.
      if (method === 'notifications/cancelled' && isObj(m.params)) {
        const key = JSON.stringify(m.params.requestId);
        const l = this.listens.get(key);
        if (l) {
          this.listens.delete(key);
          return;
        }
      }
      return (await this.modern()).session.receive(raw, emit);
    }
    this.era ??= 'modern';
    return this.modernRequest(m, method, raw, emit);
  }

  private async modernRequest(
    m: Record<string, unknown>,
    method: string,
    raw: string,
    emit: (m: Outgoing) => void,
  ): Promise<void> {
    const id = m.id;
    const params = isObj(m.params) ? m.params : {};
    const meta = isObj(params._meta) ? params._meta : {};
    const v = meta[META.protocolVersion];
    if (typeof v !== 'string')
      return emit(
        errorResponse(id, -32602, `Invalid params: _meta["${META.protocolVersion}"] is required on every request`),
      );
    if (!this.src.modernVersions.includes(v)) {
      return emit(
        errorResponse(id, UNSUPPORTED_VERSION, `Unsupported protocol version ${v}`, {
          supported: this.src.protocolVersions,
          requested: v,
        }),
      );
    }
    if (!isObj(meta[META.clientCapabilities]))
      return emit(
        errorResponse(
          id,
          -32602,
          `Invalid params: _meta["${META.clientCapabilities}"] (an object) is required on every request`,
        ),
      );
    if (method === 'server/discover') {
      const { init } = await this.modern();
      const serverInfo = isObj(init.serverInfo) ? init.serverInfo : { name: 'mcp-conform-mock', version: '0' };
      return emit({
        jsonrpc: '2.0',
        id,
        result: {
          resultType: 'complete',
          supportedVersions: this.src.protocolVersions,
          capabilities: await this.capabilities(),
          ...(typeof init.instructions === 'string' ? { instructions: init.instructions } : {}),
          _meta: { [META.serverInfo]: serverInfo },
          ttlMs: CACHE_TTL_MS,
          cacheScope: 'public',
        },
      });
    }
    if (REMOVED.includes(method))
      return emit(errorResponse(id, -32601, `Method not found: ${method} (not part of protocol ${v})`));
    if (method === 'subscriptions/listen') return this.listen(id, params, emit);
    const { session } = await this.modern();
    await session.receive(raw, (o) => emit(reshape(o, method, id)));
  }

  private async listen(id: unknown, params: Record<string, unknown>, emit: (m: Outgoing) => void): Promise<void> {
    const caps = await this.capabilities();
    const asked = isObj(params.notifications) ? params.notifications : {};
    const agreed: Record<string, unknown> = {};
    const methods: string[] = [];
    for (const [k, f] of Object.entries(FILTERS))
      if (asked[k] === true && caps[f.cap] !== undefined) {
        agreed[k] = true;
        methods.push(f.method);
      }
    if (Array.isArray(asked.resourceSubscriptions) && caps.resources !== undefined) {
      agreed.resourceSubscriptions = asked.resourceSubscriptions.filter((u) => typeof u === 'string');
      methods.push('notifications/resources/updated');
    }
    this.listens.set(JSON.stringify(id), { id, methods, emit });
    emit({
      jsonrpc: '2.0',
      method: 'notifications/subscriptions/acknowledged',
      params: { _meta: { [META.subscriptionId]: id }, notifications: agreed },
    });
    // No response: the stream stays open until the client cancels it or the connection ends.
  }
}

/** A legacy answer made a 2026-07-28 one: resultType, cache hints, -32602 for a resource not found. */
export function reshape(o: Outgoing, method: string, id: unknown): Outgoing {
  if (o.id !== id) return o; // a notification on the way
  if (isObj(o.result)) {
    const r: Record<string, unknown> = { ...o.result };
    r.resultType ??= 'complete';
    if (CACHEABLE.includes(method) && r.resultType === 'complete') {
      r.ttlMs ??= CACHE_TTL_MS;
      r.cacheScope ??= 'public';
    }
    return { ...o, result: r };
  }
  if (isObj(o.error) && o.error.code === -32002) return { ...o, error: { ...o.error, code: -32602 } };
  return o;
}

/** The source with its eras: a source that already speaks 2026-07-28 by itself (a cassette of one) is left as it is. */
export function withEras(source: MockSource, protocolVersion?: string, speaksModern = false): MockSource {
  if (speaksModern && protocolVersion === undefined) return source;
  return new EraSource(source, protocolVersion);
}

/** A cassette recorded from a 2026-07-28 server already answers server/discover: it is replayed as it is. */
export function cassetteSpeaksModern(c: { messages: { dir: string; message?: unknown }[] }): boolean {
  return c.messages.some((m) => m.dir === 'to-server' && isObj(m.message) && m.message.method === 'server/discover');
}

/** The era information of a source, when it has some. */
export function eraInfoOf(source: MockSource): EraInfo | undefined {
  return (source as { era?: EraInfo }).era;
}
