/**
 * Grading a client run: the mock's recording becomes the message log (schema-checked with the validator `run` uses,
 * against the version the mock answered), the client suites read it, and the result is a Report of the same model as
 * `run`'s, so every reporter, --strict, baselines and exit codes apply unchanged.
 */
import { SchemaWorkbench } from '../core/jsonschema.js';
import { classify, type LoggedMessage } from '../core/log.js';
import { summarize, type CaseResult, type Report, type SuiteResult } from '../core/results.js';
import { MessageValidator, schemaDocumentFor } from '../core/schema/index.js';
import {
  DEFAULT_OFFERED_VERSION,
  dialectOf,
  isProtocolVersion,
  specUrl,
  type ProtocolVersion,
} from '../core/schema/versions.js';
import { VERSION } from '../core/version.js';
import { outsideVersionRange } from '../core/applies.js';
import {
  isModernMessage,
  metaVersion,
  type AuthRunRecord,
  type ClientCaseContext,
  type ClientCaseDef,
  type ClientRunInfo,
  type ClientSessionView,
  type ClientSuite,
} from './suites/helpers.js';
import type { ClientExchange, ClientTransport, RecordedEntry } from '../mocks/client-mock.js';
import type { Fixture } from '../core/formats/fixture.js';
import type { RefFetch } from '../mocks/schema-tools.js';
import { META } from '../core/wire.js';
import { isObject as isObj } from '../core/objects.js';

export interface ClientRunRecord {
  scenario: string;
  transport: ClientTransport;
  command: string;
  argv: string[];
  /** The mock's endpoint (HTTP) or command line (stdio). */
  mock: string;
  entries: RecordedEntry[];
  exchanges: ClientExchange[];
  startedAt: number;
  durationMs: number;
  client: ClientRunInfo & { pid?: number; output: string[]; outputTruncated?: boolean };
  fixture: Fixture;
  fixtureFile: string;
  timeoutMs: number;
  strict: boolean;
  suites: ClientSuite[];
  caseFilter?: string[];
  aborted?: string;
  /** A client-auth scenario: what the protected mock and its authorization server saw. */
  auth?: AuthRunRecord;
  /** Scenario remote-ref: the URL the tool schemas refer to, and every request its listener got. */
  refUrl?: string;
  refFetches?: RefFetch[];
}

/**
 * The recording as a message log: ordered, classified, responses linked to their requests, cut into sessions (one per
 * stdio process, HTTP session or SSE stream; modern HTTP requests have none and make one together), each message
 * schema-checked against the version of its era (a 2026-07-28 request and its answer against 2026-07-28, the rest
 * against the version the session's initialize settled).
 */
export function logOf(
  entries: RecordedEntry[],
  startedAt: number,
  exchanges: ClientExchange[] = [],
): { log: LoggedMessage[]; version: ProtocolVersion; sessions: ClientSessionView[] } {
  const sorted = entries
    .map((e, i) => ({ e, i }))
    .sort((a, b) => a.e.t - b.e.t || a.i - b.i)
    .map((x) => x.e);
  const log: LoggedMessage[] = [];
  const keyOf: string[] = [];
  const open = new Map<string, LoggedMessage>();
  const modernSeqs = new Set<number>();
  for (const e of sorted) {
    let json: unknown;
    let parsed = true;
    try {
      json = JSON.parse(e.raw);
    } catch {
      parsed = false;
    }
    const c = parsed ? classify(json) : { kind: 'invalid' as const, problem: 'not JSON' };
    const m: LoggedMessage = {
      seq: log.length,
      direction: e.dir,
      t: Math.max(0, e.t - startedAt),
      raw: e.raw,
      ...(parsed ? { json } : {}),
      kind: c.kind,
      ...(c.method ? { method: c.method } : {}),
      ...(c.id !== undefined ? { id: c.id } : {}),
      ...(c.problem ? { problem: c.problem } : {}),
      schema: { checked: false, valid: false, violations: [] },
    };
    const ex = e.ex !== undefined ? exchanges[e.ex] : undefined;
    if (ex)
      m.http = {
        exchange: ex.n,
        method: ex.method as 'POST',
        url: ex.url,
        status: ex.status,
        contentType: ex.contentType,
        sessionId: ex.headers['mcp-session-id'],
        protocolVersion: ex.headers['mcp-protocol-version'],
      };
    const key = e.s ?? 'none';
    if (m.kind === 'request' && m.id !== undefined) open.set(`${key} ${e.dir} ${JSON.stringify(m.id)}`, m);
    if ((m.kind === 'response' || m.kind === 'error') && m.id !== undefined && m.id !== null) {
      const k = `${key} ${e.dir === 'to-server' ? 'from-server' : 'to-server'} ${JSON.stringify(m.id)}`;
      const req = open.get(k);
      if (req) {
        open.delete(k);
        m.inReplyTo = req.seq;
        m.method = req.method;
        if (modernSeqs.has(req.seq)) modernSeqs.add(m.seq);
      }
    }
    if (isModernMessage(m)) modernSeqs.add(m.seq);
    keyOf.push(key);
    log.push(m);
  }
  // Sessions, in order of their first message.
  const byKey = new Map<string, ClientSessionView>();
  for (const m of log) {
    const key = keyOf[m.seq]!;
    let s = byKey.get(key);
    if (!s) {
      s = { key, n: byKey.size + 1, era: 'legacy', messages: [], exchanges: [] };
      byKey.set(key, s);
    }
    s.messages.push(m);
  }
  for (const e of exchanges) {
    const s = byKey.get(e.session ?? 'none');
    if (s) s.exchanges.push(e);
  }
  for (const s of byKey.values()) {
    const init = s.messages.find(
      (m) => m.direction === 'to-server' && m.kind === 'request' && m.method === 'initialize',
    );
    const answer = init ? s.messages.find((m) => m.inReplyTo === init.seq && m.kind === 'response') : undefined;
    const v =
      answer && isObj(answer.json) && isObj(answer.json.result) ? answer.json.result.protocolVersion : undefined;
    const modern = s.messages.filter((m) => modernSeqs.has(m.seq) && m.direction === 'to-server');
    if (init) {
      s.era = 'legacy';
      if (isProtocolVersion(v)) s.version = v;
    } else if (
      modern.length &&
      modern.every((m) => m.method === 'server/discover') &&
      !s.messages.some((m) => m.direction === 'to-server' && !modernSeqs.has(m.seq) && m.kind === 'request')
    ) {
      // Only probes: modern if one was answered with a result (the client then spoke 2026-07-28), else a probe that fell back.
      s.era = s.messages.some((m) => m.inReplyTo !== undefined && m.kind === 'response' && modernSeqs.has(m.seq))
        ? 'modern'
        : 'probe';
    } else if (modern.length) s.era = 'modern';
    if (s.era === 'modern') {
      const mv = modern.map((m) => metaVersion(m.json)).find(isProtocolVersion);
      s.version = mv ?? '2026-07-28';
    }
  }
  const sessions = [...byKey.values()];
  // The version in force: that of the era the client did most of its work in.
  const work = (e: ClientSessionView['era']) =>
    sessions
      .filter((s) => s.era === e)
      .reduce((n, s) => n + s.messages.filter((m) => m.direction === 'to-server' && m.kind === 'request').length, 0);
  const legacyVersion = sessions.find((s) => s.era === 'legacy' && s.version)?.version;
  const version: ProtocolVersion =
    work('modern') > work('legacy')
      ? (sessions.find((s) => s.era === 'modern')?.version ?? '2026-07-28')
      : (legacyVersion ?? DEFAULT_OFFERED_VERSION);
  const validators = new Map<ProtocolVersion, MessageValidator>();
  const validatorFor = (v: ProtocolVersion) => {
    let val = validators.get(v);
    if (!val) {
      const { version: sv, document } = schemaDocumentFor(v);
      val = new MessageValidator(sv, document);
      validators.set(v, val);
    }
    return val;
  };
  for (const m of log) {
    if (m.json === undefined) {
      // A line that is not JSON: no message at all (from the client, a failure of client-requests/schema).
      m.schema = {
        checked: true,
        valid: false,
        definition: 'JSONRPCMessage',
        violations: [{ pointer: '', message: 'not JSON' }],
      };
      continue;
    }
    const s = byKey.get(keyOf[m.seq]!)!;
    const v: ProtocolVersion =
      modernSeqs.has(m.seq) || s.era === 'modern'
        ? s.era === 'modern' && s.version
          ? s.version
          : '2026-07-28'
        : (s.version ?? legacyVersion ?? DEFAULT_OFFERED_VERSION);
    m.schema = validatorFor(v).check({ direction: m.direction, kind: m.kind, method: m.method, json: m.json });
  }
  return { log, version, sessions };
}

export function notApplicable(
  c: ClientCaseDef,
  ctx: Pick<ClientCaseContext, 'transport' | 'version' | 'scenario'>,
): string | undefined {
  if (c.transports && !c.transports.includes(ctx.transport))
    return `not run: about ${c.transports.join(', ')}; this client ran over ${ctx.transport}`;
  const outside = outsideVersionRange(ctx.version, c);
  if (outside) return `not run: ${outside}`;
  if (c.scenarios && !c.scenarios.includes(ctx.scenario)) {
    return c.scenarios.length > 4
      ? `not run: checked in ${c.scenarios.length} other scenarios, not in ${ctx.scenario}`
      : `not run: checked in scenario ${c.scenarios.join(', ')} (this run: ${ctx.scenario})`;
  }
  return undefined;
}

/**
 * A client-auth scenario in which no message of the client got past the protected mock (it refused to authorize, as
 * it must there, or never got a token): the session suites have nothing to grade; client-process and client-auth do.
 */
function nothingReached(s: ClientSuite, ctx: ClientCaseContext): string | undefined {
  if (
    !ctx.auth ||
    s.id === 'client-process' ||
    s.id === 'client-auth' ||
    ctx.log.some((m) => m.direction === 'to-server')
  )
    return undefined;
  return `not run: no message of the client got past the protected mock in scenario ${ctx.scenario} (it did not get a token): nothing of a session to grade; see client-auth`;
}

function wanted(id: string, filter?: string[]): boolean {
  return !filter?.length || filter.some((f) => id.startsWith(f));
}

export function gradeClientRun(r: ClientRunRecord): Report {
  const { log, version, sessions } = logOf(r.entries, r.startedAt, r.exchanges);
  const ctx: ClientCaseContext = {
    log,
    sessions,
    aborted: r.aborted,
    exchanges: r.exchanges,
    transport: r.transport,
    scenario: r.scenario,
    version,
    fixture: r.fixture,
    client: r.client,
    workbench: new SchemaWorkbench(dialectOf(version)),
    ...(r.auth ? { auth: r.auth } : {}),
    ...(r.refUrl ? { ref: { url: r.refUrl, fetches: r.refFetches ?? [] } } : {}),
  };
  const suites: SuiteResult[] = [];
  for (const s of r.suites) {
    const t0 = performance.now();
    const cases: CaseResult[] = [];
    const suiteSkip = s.notGraded?.(ctx) ?? nothingReached(s, ctx);
    for (const c of s.cases) {
      if (!wanted(c.id, r.caseFilter)) continue;
      const ct0 = performance.now();
      const skip = suiteSkip ?? notApplicable(c, ctx);
      let o;
      try {
        o = skip ? { verdict: 'skip' as const, message: skip } : c.run(ctx);
      } catch (e) {
        o = {
          verdict: 'fail' as const,
          message: `harness error while grading this case: ${(e as Error).stack ?? (e as Error).message}`,
        };
      }
      cases.push({
        id: c.id,
        title: c.title,
        verdict: o.verdict,
        level: o.level ?? c.level,
        spec: specUrl(version, c.spec),
        message: o.message,
        durationMs: Math.round((performance.now() - ct0) * 1000) / 1000,
        messageIds: o.messageIds ?? [],
        requirement: c.requirement,
        ...(o.details ? { details: o.details } : {}),
      });
    }
    if (cases.length)
      suites.push({ id: s.id, title: s.title, durationMs: Math.round((performance.now() - t0) * 1000) / 1000, cases });
  }
  if (r.strict)
    for (const s of suites)
      for (const c of s.cases)
        if (c.verdict === 'warn') {
          c.verdict = 'fail';
          c.strictFromWarn = true;
        }
  const summary = summarize(suites, log);
  const init = log.find((m) => m.direction === 'to-server' && m.method === 'initialize' && m.kind === 'request');
  // A 2026-07-28 client has no initialize: what it says of itself is in the _meta of its requests.
  const modern = init ? undefined : log.find(isModernMessage);
  const mm =
    modern && isObj(modern.json) && isObj(modern.json.params) && isObj(modern.json.params._meta)
      ? modern.json.params._meta
      : {};
  const ip =
    init && isObj(init.json) && isObj((init.json as Record<string, unknown>).params)
      ? (init.json as { params: Record<string, unknown> }).params
      : {
          clientInfo: mm[META.clientInfo],
          protocolVersion: mm[META.protocolVersion],
          capabilities: mm[META.clientCapabilities],
        };
  const ci = isObj(ip.clientInfo) ? ip.clientInfo : {};
  const initAnswer = init ? log.find((m) => m.inReplyTo === init.seq) : undefined;
  const caps =
    initAnswer && isObj(initAnswer.json) && isObj((initAnswer.json as Record<string, unknown>).result)
      ? ((initAnswer.json as { result: Record<string, unknown> }).result.capabilities as Record<string, unknown>)
      : undefined;
  const str = (v: unknown) => (typeof v === 'string' ? v : undefined);
  const report: Report = {
    tool: { name: 'mcp-conform', version: VERSION },
    reportVersion: 1,
    startedAt: new Date(r.startedAt).toISOString(),
    durationMs: Math.round(r.durationMs),
    exitCode: summary.fail > 0 || r.aborted ? 1 : 0,
    ...(r.aborted ? { aborted: r.aborted } : {}),
    summary,
    server: {
      name: r.fixture.server.name,
      version: r.fixture.server.version,
      protocolVersion: version,
      ...(caps ? { capabilities: caps } : {}),
    },
    target: {
      name: `scenario ${r.scenario}`,
      transport: r.transport,
      command: r.command,
      argv: r.argv,
      ...(r.transport !== 'stdio' ? { url: r.mock } : {}),
    },
    process: {
      pid: r.client.pid,
      exitCode: r.client.exitCode,
      signal: r.client.signal,
      shutdown: r.client.endedByHarness ? (r.client.signal === 'SIGKILL' ? 'SIGKILL' : 'SIGTERM') : 'exited',
      stderr: r.client.output,
      ...(r.client.outputTruncated ? { stderrTruncated: true } : {}),
    },
    options: {
      mode: 'client',
      scenario: r.scenario,
      fixture: r.fixtureFile,
      mock: r.mock,
      timeoutMs: r.timeoutMs,
      strict: r.strict,
      protocolVersionInForce: version,
      suites: suites.map((s) => s.id),
      cases: r.caseFilter ?? [],
    },
    client: {
      name: str(ci.name),
      version: str(ci.version),
      protocolVersion: str(ip.protocolVersion),
      capabilities: isObj(ip.capabilities) ? ip.capabilities : undefined,
    },
    skippedTools: [],
    suites,
    messages: log,
    ...(r.transport === 'streamable-http' ? { http: { exchanges: r.exchanges } } : {}),
  };
  return report;
}
