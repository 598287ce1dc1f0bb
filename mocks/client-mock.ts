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
import { errorResponse, parseJson, sleep, type MockSession, type MockSource, type Outgoing } from './engine.js';
import { FAIL_MESSAGE } from './faults.js';
import { readFixture, type Fixture } from '../core/formats/fixture.js';
import { FixtureSource } from './fixture.js';
import { StreamableHttpMock, type PlainRequest, type PlainResponse } from './http.js';

export type ClientTransport = 'stdio' | 'streamable-http' | 'sse';

export interface ScenarioDef {
  name: string;
  /** What the mock does, in plain words (shown by --help and in reports). */
  description: string;
  transports: ClientTransport[];
  /** Played only when named with --scenario (a fault: a conformant client may still be ended at --timeout). */
  optIn?: boolean;
}

const ALL: ClientTransport[] = ['stdio', 'streamable-http', 'sse'];

export const SCENARIOS: ScenarioDef[] = [
  { name: 'pages', description: 'serves the fixture as it is: tools listed a page at a time (nextCursor), a resource, a prompt', transports: ALL },
  { name: 'ping', description: 'sends the client a ping (with its answer to the first request after initialization) and waits for the answer', transports: ALL },
  { name: 'list-changed', description: 'declares tools.listChanged and sends notifications/tools/list_changed with the last page of the first listing', transports: ALL },
  { name: 'unknown-tool', description: 'answers every tools/call with the JSON-RPC error of an unknown tool (-32602)', transports: ALL },
  { name: 'session-expired', description: 'expires the first session after two requests (initialize included): everything after gets HTTP 404; a fresh session lives', transports: ['streamable-http'] },
  { name: 'server-error', description: 'fails the first tools/list: HTTP 503 over Streamable HTTP, a JSON-RPC -32603 error over stdio and SSE (as serve --fail-rate does)', transports: ALL, optIn: true },
  { name: 'dropped-answer', description: 'never answers the first tools/call (as serve --drop does); a client should time out and send notifications/cancelled', transports: ALL, optIn: true },
  { name: 'stream-resume', description: 'ends the SSE stream of the first request after initialization early, after an event with an id and before the answer; the answer waits for a GET with Last-Event-ID', transports: ['streamable-http'] },
];

/** The scenarios of a transport (default: those played without --scenario). */
export function scenariosFor(t: ClientTransport, all = false): string[] {
  return SCENARIOS.filter((s) => s.transports.includes(t) && (all || !s.optIn)).map((s) => s.name);
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
}

const GRADED_HEADERS = ['accept', 'content-type', 'mcp-session-id', 'mcp-protocol-version', 'last-event-id', 'origin'];

export class ClientRecorder {
  readonly entries: RecordedEntry[] = [];
  readonly exchanges: ClientExchange[] = [];

  /** file: append each entry there as a JSON line (the stdio mock, a process of its own). */
  constructor(private readonly file?: string) {}

  add(dir: RecordedEntry['dir'], raw: string, ex?: number): void {
    const e: RecordedEntry = { t: Date.now(), dir, raw, ...(ex !== undefined ? { ex } : {}) };
    this.entries.push(e);
    if (this.file) {
      try { appendFileSync(this.file, JSON.stringify(e) + '\n'); } catch { /* the grader reports a missing log */ }
    }
  }

  exchange(req: PlainRequest): ClientExchange {
    const headers: Record<string, string> = {};
    for (const h of GRADED_HEADERS) { const v = req.header(h); if (v !== undefined) headers[h] = v; }
    const p = req.method === 'POST' ? parseJson(req.body) : { ok: false as const };
    const m = p.ok && p.value && typeof p.value === 'object' && !Array.isArray(p.value) ? p.value as Record<string, unknown> : undefined;
    const ex: ClientExchange = {
      n: this.exchanges.length, t: Date.now(), method: req.method, url: req.url.href, headers,
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
    try { out.push(JSON.parse(line) as RecordedEntry); } catch { /* a line cut short */ }
  }
  return out;
}

/** The built-in fixture (from dist/mocks/ when built, from mocks/ when the sources run). */
export function defaultFixtureFile(): string {
  const candidates = ['../../fixtures/mocks/client-default.yaml', '../fixtures/mocks/client-default.yaml'].map((p) => fileURLToPath(new URL(p, import.meta.url)));
  return candidates.find((c) => existsSync(c)) ?? candidates[0]!;
}

const isObj = (x: unknown): x is Record<string, unknown> => !!x && typeof x === 'object' && !Array.isArray(x);

/** The fixture served for a scenario (list-changed declares tools.listChanged). */
export function scenarioFixture(f: Fixture, scenario: string): Fixture {
  if (scenario !== 'list-changed') return f;
  const caps = f.capabilities ?? {};
  return { ...f, capabilities: { ...caps, tools: { ...(isObj(caps.tools) ? caps.tools : {}), listChanged: true } } };
}

/**
 * A fixture with a scenario, recorded. `recordIncoming` false: the HTTP layer records what the client sent (with the
 * exchange), so that requests the mock refused before any session saw them (a 404) are in the log too.
 */
export class ScenarioSource implements MockSource {
  readonly label: string;
  readonly protocolVersions: string[];
  private readonly fixture: FixtureSource;

  /** Streamable HTTP: the HTTP layer records what the client sent, and fails with 503 (scenario server-error). */
  readonly httpLayer: boolean;

  constructor(fixture: Fixture, readonly scenario: string, readonly recorder: ClientRecorder, readonly recordIncoming = true, file?: string) {
    this.httpLayer = !recordIncoming;
    this.fixture = new FixtureSource(scenarioFixture(fixture, scenario), file);
    this.label = `${this.fixture.label}, scenario ${scenario}`;
    this.protocolVersions = this.fixture.protocolVersions;
  }

  static fromFile(file: string | undefined, scenario: string, recorder: ClientRecorder, recordIncoming = true): ScenarioSource {
    const f = file ?? defaultFixtureFile();
    return new ScenarioSource(readFixture(f), scenario, recorder, recordIncoming, f);
  }

  newSession(): MockSession {
    return new ScenarioSession(this.fixture.newSession(), this);
  }
}

class ScenarioSession implements MockSession {
  private initialized = false;
  private pingSent = false;
  private listChangedSent = false;
  private faulted = false;

  constructor(private readonly inner: MockSession, private readonly src: ScenarioSource) {}

  async receive(raw: string, emit: (m: Outgoing) => void): Promise<void> {
    const rec = this.src.recorder;
    if (this.src.recordIncoming) rec.add('to-server', raw);
    const out = (m: Outgoing) => { rec.add('from-server', JSON.stringify(m)); emit(m); };
    const p = parseJson(raw);
    const m = p.ok && isObj(p.value) ? p.value : undefined;
    const method = typeof m?.method === 'string' ? m.method : undefined;
    const isRequest = !!method && m !== undefined && 'id' in m;
    if (method === 'notifications/initialized') this.initialized = true;
    if (isRequest && method === 'initialize') {
      // The answer is held back a little, so that a client that does not wait for it shows (client-lifecycle).
      await sleep(INIT_HOLD_MS);
    }
    const scenario = this.src.scenario;
    if (isRequest && this.initialized && method !== 'ping' && method !== 'initialize' && scenario === 'ping' && !this.pingSent) {
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
      const name = isObj(m!.params) ? m!.params.name : undefined;
      out(errorResponse(m!.id, -32602, `Unknown tool: ${typeof name === 'string' ? name : JSON.stringify(name)} (the mock answers every call this way: scenario unknown-tool)`));
      return;
    }
    if (isRequest && method === 'tools/list' && scenario === 'list-changed' && !this.listChangedSent) {
      const held: Outgoing[] = [];
      await this.inner.receive(raw, (o) => held.push(o));
      const last = held.find((o) => 'result' in o && isObj(o.result) && !('nextCursor' in o.result));
      if (last) {
        this.listChangedSent = true;
        out({ jsonrpc: '2.0', method: 'notifications/tools/list_changed' });
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

  /** session-expired: the first session issued, and how many requests it has had. */
  private firstSession?: { id: string; requests: number };

  async handle(req: PlainRequest): Promise<PlainResponse> {
    const rec = this.source.recorder;
    const ex = rec.exchange(req);
    if (req.method === 'POST') rec.add('to-server', req.body, ex.n);
    const sid = req.header('mcp-session-id');
    let r: PlainResponse;
    const lastEventId = req.header('last-event-id');
    if (req.method === 'GET' && lastEventId !== undefined && this.source.scenario === 'stream-resume') {
      const s = sid ? this.stash.get(sid) : undefined;
      if (s && s.primeId === lastEventId) {
        this.stash.delete(sid!);
        r = { status: 200, headers: { 'content-type': 'text/event-stream', 'cache-control': 'no-cache' }, body: s.body };
        ex.fault = 'stream resumed: the rest of the ended stream sent';
      } else {
        r = { status: 404, headers: { 'content-type': 'application/json' }, body: JSON.stringify(errorResponse(null, -32001, `no stream to resume from event ${lastEventId}`)) };
      }
    } else if (this.source.scenario === 'session-expired' && sid && sid === this.firstSession?.id && (this.firstSession.requests >= EXPIRE_AFTER || (ex.rpcId !== undefined && ++this.firstSession.requests > EXPIRE_AFTER))) {
      this.firstSession.requests = EXPIRE_AFTER;
      // Only the first session expires: the fresh one a conformant client opens then lives.
      r = { status: 404, headers: { 'content-type': 'application/json' }, body: JSON.stringify(errorResponse(ex.rpcId ?? null, -32001, 'Session not found (expired on purpose: scenario session-expired)')) };
      ex.fault = 'session expired on purpose';
    } else if (this.source.scenario === 'server-error' && !this.faulted && ex.rpcMethod === 'tools/list' && ex.rpcId !== undefined) {
      this.faulted = true;
      r = { status: 503, headers: { 'content-type': 'application/json', 'retry-after': '0' }, body: JSON.stringify(errorResponse(ex.rpcId, -32603, `Service Unavailable: ${FAIL_MESSAGE}`)) };
      ex.fault = 'failed on purpose: HTTP 503';
    } else if (this.source.scenario === 'dropped-answer' && !this.faulted && ex.rpcMethod === 'tools/call' && ex.rpcId !== undefined) {
      this.faulted = true;
      ex.fault = 'never answered on purpose';
      return new Promise<PlainResponse>(() => undefined); // the connection is closed when the mock closes
    } else {
      r = await this.inner.handle(req);
      if (!this.firstSession && r.headers['mcp-session-id']) this.firstSession = { id: r.headers['mcp-session-id'], requests: 1 };
    }
    if (ex.rpcMethod === 'notifications/initialized' && sid) this.initialized.add(sid);
    if (this.source.scenario === 'stream-resume' && !this.cut && req.method === 'POST' && sid && this.initialized.has(sid)
      && ex.rpcId !== undefined && ex.rpcMethod !== 'ping' && r.status === 200 && r.body) {
      this.cut = true;
      const events = r.headers['content-type']?.startsWith('text/event-stream') ? r.body : `event: message\ndata: ${r.body}\n\n`;
      const primeId = `resume-${ex.n}`;
      // Ids of the rest: after the priming event's.
      let k = 0;
      const body = events.split('\n\n').filter((e) => e.trim()).map((e) => `${e.split('\n').filter((l) => !l.startsWith('id:')).join('\n')}\nid: ${primeId}-${++k}\n\n`).join('');
      this.stash.set(sid, { primeId, body });
      r = { status: 200, headers: { 'content-type': 'text/event-stream', 'cache-control': 'no-cache' }, body: `id: ${primeId}\nretry: 100\ndata: \n\n` };
      ex.fault = 'stream ended early after a priming event with an id, before the answer';
    }
    ex.status = r.status;
    if (r.headers['mcp-session-id']) ex.issuedSession = r.headers['mcp-session-id'];
    ex.contentType = r.headers['content-type'];
    return r;
  }
}
