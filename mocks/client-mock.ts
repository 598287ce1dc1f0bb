/**
 * The mock a client under test talks to (`mcp-conform client`): a fixture served with a scenario — what the mock does
 * to the client — and a recording of everything that crossed, both directions, with the HTTP exchanges (headers the
 * client sent, statuses the mock answered). The recording is graded afterwards by the client suites.
 *
 * Over stdio the mock is a separate `serve` process the client starts (`{server}`): it appends the recording to a
 * file, one JSON line an entry, so that nothing is lost when the client kills it. Over HTTP the mock runs inside the
 * `client` command and records in memory.
 */
import { appendFileSync, existsSync } from 'node:fs';
import { fileURLToPath } from 'node:url';
import {
  errorResponse,
  parseJson,
  sleep,
  type MockSession,
  type MockSource,
  type Outgoing,
  type ReceiveContext,
} from './engine.js';
import { EraSource, isModernRequest, META, type EraSession } from './era.js';
import { FAIL_MESSAGE } from './faults.js';
import { readFixture, type Fixture } from '../core/formats/fixture.js';
import { FixtureSource } from './fixture.js';
import { StreamableHttpMock, type PlainRequest, type PlainResponse } from './http.js';
import { AUTH_SCENARIOS } from './auth/scenarios.js';
import { remoteRefTool, schemaTool } from './schema-tools.js';
import { isObject as isObj } from '../core/objects.js';

export type ClientTransport = 'stdio' | 'streamable-http' | 'sse';

export interface ScenarioDef {
  name: string;
  /** What the mock does, in plain words (shown by --help and in reports). */
  description: string;
  transports: ClientTransport[];
  /** Played only when named with --scenario (a fault: a conformant client may still be ended at --timeout). */
  optIn?: boolean;
  /** A client-auth scenario (mocks/auth/scenarios.ts): the mock is protected; played with --suite client-auth or when named. */
  auth?: boolean;
}

const ALL: ClientTransport[] = ['stdio', 'streamable-http', 'sse'];

export const SCENARIOS: ScenarioDef[] = [
  {
    name: 'pages',
    description: 'serves the fixture as it is: tools listed a page at a time (nextCursor), a resource, a prompt',
    transports: ALL,
  },
  {
    name: 'ping',
    description:
      'sends the client a ping (with its answer to the first request after initialization) and waits for the answer',
    transports: ALL,
  },
  {
    name: 'list-changed',
    description:
      'declares tools.listChanged and sends notifications/tools/list_changed with the last page of the first listing',
    transports: ALL,
  },
  {
    name: 'unknown-tool',
    description: 'answers every tools/call with the JSON-RPC error of an unknown tool (-32602)',
    transports: ALL,
  },
  {
    name: 'session-expired',
    description:
      'expires the first session after two requests (initialize included): everything after gets HTTP 404; a fresh session lives',
    transports: ['streamable-http'],
  },
  {
    name: 'server-error',
    description:
      'fails the first tools/list: HTTP 503 over Streamable HTTP, a JSON-RPC -32603 error over stdio and SSE (as serve --fail-rate does)',
    transports: ALL,
    optIn: true,
  },
  {
    name: 'dropped-answer',
    description:
      'never answers the first tools/call (as serve --drop does); a client should time out and send notifications/cancelled',
    transports: ALL,
    optIn: true,
  },
  {
    name: 'server-requests',
    description:
      'asks the client for what it declared (roots/list, sampling/createMessage, elicitation/create in form and url mode) at its first tools/call: before 2026-07-28 as requests of the mock, in 2026-07-28 as an input_required answer (inputRequests, requestState) to retry',
    transports: ALL,
  },
  {
    name: 'tool-schemas',
    description:
      'lists one more tool, plot, whose inputSchema and outputSchema use JSON Schema 2020-12 keywords ($defs reached by a pointer and by an $anchor, prefixItems, dependentRequired, if/then/else, unevaluatedProperties); a call gets structuredContent valid under its outputSchema',
    transports: ALL,
  },
  {
    name: 'remote-ref',
    description:
      'lists one more tool, locate, whose inputSchema and outputSchema $ref a schema at an http:// URL on 127.0.0.1 (a listener of the mock that records every request it gets); a call gets structuredContent',
    transports: ALL,
  },
  {
    name: 'stream-resume',
    description:
      'ends the SSE stream of the first request after initialization early, after an event with an id and before the answer; the answer waits for a GET with Last-Event-ID',
    transports: ['streamable-http'],
  },
  ...AUTH_SCENARIOS.map(
    (a): ScenarioDef => ({
      name: a.name,
      description: a.description,
      transports: ['streamable-http', 'sse'],
      auth: true,
    }),
  ),
];

/**
 * The scenarios of a transport: default those played without --scenario (no fault, no authorization); all: every one
 * that applies; auth: the client-auth ones (played with --suite client-auth).
 */
export function scenariosFor(t: ClientTransport, all = false, auth = false): string[] {
  return SCENARIOS.filter((s) => s.transports.includes(t) && (auth ? s.auth : all || (!s.optIn && !s.auth))).map(
    (s) => s.name,
  );
}

/** The id of the ping the mock sends (scenario ping). */
export const MOCK_PING_ID = 'mcp-conform-ping-1';
/** Requests a session may have before it expires (scenario session-expired). */
export const EXPIRE_AFTER = 2;
/** How long the mock holds back its initialize answer (ms). */
export const INIT_HOLD_MS = 150;

/** One message as it crossed (t: Date.now() ms). `ex`: the HTTP exchange that carried a client message. */
export interface RecordedEntry {
  t: number;
  dir: 'to-server' | 'from-server';
  raw: string;
  ex?: number;
  /** The mock session (connection) the message belongs to: one per stdio process, per HTTP session, per SSE stream. */
  s?: string;
}

/** One HTTP request of the client and the mock's answer. */
export interface ClientExchange {
  n: number;
  t: number;
  method: string;
  url: string;
  /** The headers that matter for grading, as the client sent them (lower-case names). */
  headers: Record<string, string>;
  status?: number;
  contentType?: string;
  /** The JSON-RPC method of a POSTed request or notification, and its id. */
  rpcMethod?: string;
  rpcId?: string | number;
  /** Set by the mock: what it did on purpose (session expired, stream ended early). */
  fault?: string;
  /** The Mcp-Session-Id the answer issued (an initialize answer). */
  issuedSession?: string;
  /** The mock session the request reached (absent: refused before any session saw it). */
  session?: string;
}

/**
 * stream-resume: the `retry` (ms) the cut stream's priming event asks for; the client must wait that long before it
 * resumes (client-http/retry-respected). Long enough to tell from a client's own immediate reconnect, short enough
 * not to slow a run.
 */
export const RESUME_RETRY_MS = 1000;

/** Graded headers; Authorization is never kept, only whether it came and its scheme (`authorization`: 'Bearer …' → 'Bearer [redacted]'). */
const GRADED_HEADERS = [
  'accept',
  'content-type',
  'mcp-session-id',
  'mcp-protocol-version',
  'last-event-id',
  'origin',
  'mcp-method',
  'mcp-name',
];

export class ClientRecorder {
  readonly entries: RecordedEntry[] = [];
  readonly exchanges: ClientExchange[] = [];

  /** file: append each entry there as a JSON line (the stdio mock, a process of its own). */
  constructor(private readonly file?: string) {}

  add(dir: RecordedEntry['dir'], raw: string, ex?: number, session?: string, t = Date.now()): void {
    const e: RecordedEntry = {
      t,
      dir,
      raw,
      ...(ex !== undefined ? { ex } : {}),
      ...(session !== undefined ? { s: session } : {}),
    };
    this.entries.push(e);
    if (this.file) {
      try {
        appendFileSync(this.file, JSON.stringify(e) + '\n');
      } catch {
        /* the grader reports a missing log */
      }
    }
  }

  exchange(req: PlainRequest): ClientExchange {
    const headers: Record<string, string> = {};
    for (const h of GRADED_HEADERS) {
      const v = req.header(h);
      if (v !== undefined) headers[h] = v;
    }
    for (const h of req.headerNames?.() ?? []) {
      const v = req.header(h);
      if (h.startsWith('mcp-param-') && v !== undefined) headers[h] = v;
    }
    const auth = req.header('authorization');
    if (auth !== undefined) headers.authorization = `${auth.split(' ')[0]} [redacted]`;
    const p = req.method === 'POST' ? parseJson(req.body) : { ok: false as const };
    const m =
      p.ok && p.value && typeof p.value === 'object' && !Array.isArray(p.value)
        ? (p.value as Record<string, unknown>)
        : undefined;
    const ex: ClientExchange = {
      n: this.exchanges.length,
      t: Date.now(),
      method: req.method,
      url: req.url.href,
      headers,
      ...(typeof m?.method === 'string' ? { rpcMethod: m.method } : {}),
      ...(typeof m?.id === 'string' || typeof m?.id === 'number' ? { rpcId: m.id } : {}),
    };
    this.exchanges.push(ex);
    return ex;
  }
}

/** Reads the recording a stdio mock wrote (lines cut by a kill are left out). */
export function readRecording(text: string): RecordedEntry[] {
  const out: RecordedEntry[] = [];
  for (const line of text.split('\n')) {
    if (!line.trim()) continue;
    try {
      out.push(JSON.parse(line) as RecordedEntry);
    } catch {
      /* a line cut short */
    }
  }
  return out;
}

/** The built-in fixture (from dist/mocks/ when built, from mocks/ when the sources run). */
export function defaultFixtureFile(): string {
  const candidates = ['../../fixtures/mocks/client-default.yaml', '../fixtures/mocks/client-default.yaml'].map((p) =>
    fileURLToPath(new URL(p, import.meta.url)),
  );
  return candidates.find((c) => existsSync(c)) ?? candidates[0]!;
}

/**
 * The fixture served for a scenario (list-changed declares tools.listChanged; tool-schemas and remote-ref list one more
 * tool, the latter's schemas referring to `refUrl`).
 */
export function scenarioFixture(f: Fixture, scenario: string, refUrl?: string): Fixture {
  if (scenario === 'tool-schemas') return { ...f, tools: [...(f.tools ?? []), schemaTool()] };
  if (scenario === 'remote-ref')
    return {
      ...f,
      tools: [...(f.tools ?? []), remoteRefTool(refUrl ?? 'http://127.0.0.1:9/mcp-conform/schemas/point.json')],
    };
  if (scenario !== 'list-changed') return f;
  const caps = f.capabilities ?? {};
  return { ...f, capabilities: { ...caps, tools: { ...(isObj(caps.tools) ? caps.tools : {}), listChanged: true } } };
}

/** The id the mock gives its server-to-client requests (scenario server-requests), by method. */
export const MOCK_REQUEST_IDS: Record<string, string> = {
  'roots/list': 'mcp-conform-roots-1',
  'sampling/createMessage': 'mcp-conform-sampling-1',
  'elicitation/create': 'mcp-conform-elicit-1',
  'elicitation/create url': 'mcp-conform-elicit-url-1',
};
/** The requestState of the mock's input_required answer (scenario server-requests, 2026-07-28). */
export const MOCK_REQUEST_STATE = 'mcp-conform-state-1';

/** The server-to-client requests the mock makes of a client that declared these capabilities (any version). */
export function serverRequestsFor(
  caps: Record<string, unknown>,
): { key: string; method: string; params: Record<string, unknown> }[] {
  const out: { key: string; method: string; params: Record<string, unknown> }[] = [];
  if (caps.roots !== undefined) out.push({ key: 'roots', method: 'roots/list', params: {} });
  if (caps.sampling !== undefined)
    out.push({
      key: 'sampling',
      method: 'sampling/createMessage',
      params: {
        messages: [{ role: 'user', content: { type: 'text', text: 'Say "ok" (a request of the mcp-conform mock).' } }],
        maxTokens: 20,
      },
    });
  if (caps.elicitation !== undefined) {
    const e = isObj(caps.elicitation) ? caps.elicitation : {};
    const form = Object.keys(e).length === 0 || e.form !== undefined;
    if (form)
      out.push({
        key: 'elicitation',
        method: 'elicitation/create',
        params: {
          mode: 'form',
          message: 'Your name, please (a request of the mcp-conform mock).',
          requestedSchema: {
            type: 'object',
            properties: {
              name: { type: 'string', default: 'mock user' },
              color: { type: 'string', enum: ['red', 'green'], default: 'red' },
            },
            required: ['name'],
          },
        },
      });
    if (e.url !== undefined)
      out.push({
        key: 'elicitation-url',
        method: 'elicitation/create',
        params: {
          mode: 'url',
          message: 'Open this page (a request of the mcp-conform mock; nothing is there).',
          url: 'http://127.0.0.1:9/mcp-conform-elicitation',
          elicitationId: 'mcp-conform-elicitation-1',
        },
      });
  }
  return out;
}

let sessionCounter = 0;

/**
 * A fixture with a scenario, recorded (every message both ways, with the session it belongs to and, over HTTP, the
 * exchange that carried it). The fixture is served dual-era (or one version: `protocolVersion`) by mocks/era.ts.
 */
export class ScenarioSource implements MockSource {
  readonly label: string;
  readonly protocolVersions: string[];
  readonly era: EraSource['era'];
  private readonly eras: EraSource;

  /** Streamable HTTP: the HTTP layer plays the faults server-error and dropped-answer (503, a request never answered). */
  readonly httpLayer: boolean;

  /** refUrl: where the remote-ref scenario's schemas point (the listener of mocks/schema-tools.ts). */
  constructor(
    fixture: Fixture,
    readonly scenario: string,
    readonly recorder: ClientRecorder,
    httpLayer = false,
    file?: string,
    protocolVersion?: string,
    refUrl?: string,
  ) {
    this.httpLayer = httpLayer;
    this.eras = new EraSource(new FixtureSource(scenarioFixture(fixture, scenario, refUrl), file), protocolVersion);
    this.label = `${this.eras.label}, scenario ${scenario}`;
    this.protocolVersions = this.eras.protocolVersions;
    this.era = this.eras.era;
  }

  static fromFile(
    file: string | undefined,
    scenario: string,
    recorder: ClientRecorder,
    httpLayer = false,
    protocolVersion?: string,
    refUrl?: string,
  ): ScenarioSource {
    const f = file ?? defaultFixtureFile();
    return new ScenarioSource(readFixture(f), scenario, recorder, httpLayer, f, protocolVersion, refUrl);
  }

  newSession(): ScenarioSession {
    return new ScenarioSession(this.eras.newSession(), this, `${process.pid}-${++sessionCounter}`);
  }
}

export class ScenarioSession implements MockSession {
  private initialized = false;
  private pingSent = false;
  private listChangedSent = false;
  private faulted = false;
  private asked = false;
  /** Client capabilities: declared in initialize (legacy) or in the _meta of each request (2026-07-28). */
  private legacyCaps: Record<string, unknown> = {};

  constructor(
    private readonly inner: EraSession,
    private readonly src: ScenarioSource,
    readonly key: string,
  ) {}

  closeListen(id: unknown): void {
    this.inner.closeListen(id);
  }

  end(): void {
    this.inner.end();
  }

  async receive(raw: string, emit: (m: Outgoing) => void, ctx?: ReceiveContext): Promise<void> {
    const rec = this.src.recorder;
    const ex = ctx?.http?.exchange;
    rec.add('to-server', raw, ex, this.key);
    if (ex !== undefined && rec.exchanges[ex]) rec.exchanges[ex]!.session = this.key;
    const out = (m: Outgoing) => {
      rec.add('from-server', JSON.stringify(m), undefined, this.key);
      emit(m);
    };
    const p = parseJson(raw);
    const m = p.ok && isObj(p.value) ? p.value : undefined;
    const method = typeof m?.method === 'string' ? m.method : undefined;
    const isRequest = !!method && m !== undefined && 'id' in m;
    const params = isObj(m?.params) ? m!.params : {};
    if (method === 'notifications/initialized') this.initialized = true;
    if (isRequest && method === 'initialize') {
      this.legacyCaps = isObj(params.capabilities) ? params.capabilities : {};
      // The answer is held back a little, so that a client that does not wait for it shows (client-lifecycle).
      await sleep(INIT_HOLD_MS);
    }
    const modern = this.inner.era === 'modern' || (!!m && isModernRequest(m));
    const scenario = this.src.scenario;
    if (
      isRequest &&
      this.initialized &&
      !modern &&
      method !== 'ping' &&
      method !== 'initialize' &&
      scenario === 'ping' &&
      !this.pingSent
    ) {
      this.pingSent = true;
      out({ jsonrpc: '2.0', id: MOCK_PING_ID, method: 'ping' });
    }
    if (isRequest && method === 'tools/call' && scenario === 'dropped-answer' && !this.faulted && !this.src.httpLayer) {
      this.faulted = true;
      return; // never answered
    }
    if (isRequest && method === 'tools/list' && scenario === 'server-error' && !this.faulted && !this.src.httpLayer) {
      this.faulted = true;
      out(errorResponse(m!.id, -32603, FAIL_MESSAGE));
      return;
    }
    if (isRequest && method === 'tools/call' && scenario === 'unknown-tool') {
      const name = params.name;
      out(
        errorResponse(
          m!.id,
          -32602,
          `Unknown tool: ${typeof name === 'string' ? name : JSON.stringify(name)} (the mock answers every call this way: scenario unknown-tool)`,
        ),
      );
      return;
    }
    if (isRequest && method === 'tools/call' && scenario === 'server-requests' && !this.asked) {
      this.asked = true;
      if (modern) {
        // 2026-07-28: the first call is answered with input_required; the retry (inputResponses, requestState) is served.
        const meta = isObj(params._meta) ? params._meta : {};
        const caps = isObj(meta[META.clientCapabilities])
          ? (meta[META.clientCapabilities] as Record<string, unknown>)
          : {};
        const inputRequests = Object.fromEntries(
          serverRequestsFor(caps).map((r) => [r.key, { method: r.method, params: r.params }]),
        );
        out({
          jsonrpc: '2.0',
          id: m!.id,
          result: {
            resultType: 'input_required',
            ...(Object.keys(inputRequests).length ? { inputRequests } : {}),
            requestState: MOCK_REQUEST_STATE,
          },
        });
        return;
      }
      // Before 2026-07-28: requests of their own, sent with the call's answer (which does not wait for theirs).
      for (const r of serverRequestsFor(this.legacyCaps))
        out({
          jsonrpc: '2.0',
          id: MOCK_REQUEST_IDS[r.key === 'elicitation-url' ? 'elicitation/create url' : r.method],
          method: r.method,
          params: r.params,
        });
    }
    if (isRequest && method === 'tools/list' && scenario === 'list-changed' && !this.listChangedSent) {
      const held: Outgoing[] = [];
      await this.inner.receive(raw, (o) => held.push(o));
      const last = held.find((o) => 'result' in o && isObj(o.result) && !('nextCursor' in o.result));
      if (last) {
        // 2026-07-28: on the client's open subscriptions/listen stream (none open: nothing to send it on).
        if (modern) this.listChangedSent = this.inner.notify('notifications/tools/list_changed');
        else {
          this.listChangedSent = true;
          out({ jsonrpc: '2.0', method: 'notifications/tools/list_changed' });
        }
      }
      for (const o of held) out(o);
      return;
    }
    await this.inner.receive(raw, out);
  }
}

/**
 * Streamable HTTP for the client scenarios: the mock's own HTTP layer, with the client's requests recorded (headers
 * too), session-expired (404 after EXPIRE_AFTER requests) and stream-resume (the first request's SSE stream ends after a
 * priming event with an id; GET with that Last-Event-ID gets the rest).
 */
export class ClientHttpMock {
  private readonly inner: StreamableHttpMock;
  private readonly stash = new Map<string, { primeId: string; body: string }>();
  private cut = false;
  private faulted = false;
  private initialized = new Set<string>();

  constructor(private readonly source: ScenarioSource) {
    this.inner = new StreamableHttpMock(source);
  }

  /** session-expired: requests per session (initialize included), and the one session that expired. */
  private counts = new Map<string, number>();
  private expired?: string;
  /** Mcp-Session-Id → the key of the mock session it names (for requests no session saw). */
  private keys = new Map<string, string>();

  async handle(plainReq: PlainRequest): Promise<PlainResponse> {
    const rec = this.source.recorder;
    const ex = rec.exchange(plainReq);
    const req: PlainRequest = { ...plainReq, exchange: ex.n };
    const sid = req.header('mcp-session-id');
    let r: PlainResponse;
    const lastEventId = req.header('last-event-id');
    // session-expired: the first session that makes more than EXPIRE_AFTER requests expires (the one the client works
    // in, not a probe session it opened and left); a fresh one then lives.
    if (
      this.source.scenario === 'session-expired' &&
      sid &&
      !this.expired &&
      ex.rpcId !== undefined &&
      ex.rpcMethod !== undefined &&
      this.counts.has(sid)
    ) {
      const n = this.counts.get(sid)! + 1;
      this.counts.set(sid, n);
      if (n > EXPIRE_AFTER) this.expired = sid;
    }
    if (req.method === 'GET' && lastEventId !== undefined && this.source.scenario === 'stream-resume') {
      const s = sid ? this.stash.get(sid) : undefined;
      if (s && s.primeId === lastEventId) {
        this.stash.delete(sid!);
        r = {
          status: 200,
          headers: { 'content-type': 'text/event-stream', 'cache-control': 'no-cache' },
          body: s.body,
        };
        ex.fault = 'stream resumed: the rest of the ended stream sent';
      } else {
        r = {
          status: 404,
          headers: { 'content-type': 'application/json' },
          body: JSON.stringify(errorResponse(null, -32001, `no stream to resume from event ${lastEventId}`)),
        };
      }
    } else if (this.source.scenario === 'session-expired' && sid && sid === this.expired) {
      r = {
        status: 404,
        headers: { 'content-type': 'application/json' },
        body: JSON.stringify(
          errorResponse(ex.rpcId ?? null, -32001, 'Session not found (expired on purpose: scenario session-expired)'),
        ),
      };
      ex.fault = 'session expired on purpose';
    } else if (
      this.source.scenario === 'server-error' &&
      !this.faulted &&
      ex.rpcMethod === 'tools/list' &&
      ex.rpcId !== undefined
    ) {
      this.faulted = true;
      r = {
        status: 503,
        headers: { 'content-type': 'application/json', 'retry-after': '0' },
        body: JSON.stringify(errorResponse(ex.rpcId, -32603, `Service Unavailable: ${FAIL_MESSAGE}`)),
      };
      ex.fault = 'failed on purpose: HTTP 503';
    } else if (
      this.source.scenario === 'dropped-answer' &&
      !this.faulted &&
      ex.rpcMethod === 'tools/call' &&
      ex.rpcId !== undefined
    ) {
      this.faulted = true;
      ex.fault = 'never answered on purpose';
      ex.session = sid ? this.keys.get(sid) : undefined;
      rec.add('to-server', req.body, ex.n, ex.session, ex.t);
      return new Promise<PlainResponse>(() => undefined); // the connection is closed when the mock closes
    } else {
      r = await this.inner.handle(req);
      if (r.headers['mcp-session-id']) this.counts.set(r.headers['mcp-session-id'], 1);
    }
    if (r.headers['mcp-session-id'] && ex.session) this.keys.set(r.headers['mcp-session-id'], ex.session);
    if (sid && !ex.session) {
      const k = this.keys.get(sid);
      if (k) ex.session = k;
    }
    // A POST no session saw (refused by the HTTP layer, or failed on purpose) is recorded here.
    if (req.method === 'POST' && !rec.entries.some((e) => e.ex === ex.n))
      rec.add('to-server', req.body, ex.n, ex.session, ex.t);
    if (ex.rpcMethod === 'notifications/initialized' && sid) this.initialized.add(sid);
    if (
      this.source.scenario === 'stream-resume' &&
      !this.cut &&
      req.method === 'POST' &&
      sid &&
      this.initialized.has(sid) &&
      ex.rpcId !== undefined &&
      ex.rpcMethod !== 'ping' &&
      r.status === 200 &&
      r.body
    ) {
      this.cut = true;
      const events = r.headers['content-type']?.startsWith('text/event-stream')
        ? r.body
        : `event: message\ndata: ${r.body}\n\n`;
      const primeId = `resume-${ex.n}`;
      // Ids of the rest: after the priming event's.
      let k = 0;
      const body = events
        .split('\n\n')
        .filter((e) => e.trim())
        .map(
          (e) =>
            `${e
              .split('\n')
              .filter((l) => !l.startsWith('id:'))
              .join('\n')}\nid: ${primeId}-${++k}\n\n`,
        )
        .join('');
      this.stash.set(sid, { primeId, body });
      r = {
        status: 200,
        headers: { 'content-type': 'text/event-stream', 'cache-control': 'no-cache' },
        body: `id: ${primeId}\nretry: ${RESUME_RETRY_MS}\ndata: \n\n`,
      };
      ex.fault = 'stream ended early after a priming event with an id, before the answer';
    }
    ex.status = r.status;
    if (r.headers['mcp-session-id']) ex.issuedSession = r.headers['mcp-session-id'];
    ex.contentType = r.headers['content-type'];
    return r;
  }
}
