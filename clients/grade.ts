/**
 * Grading a client run: the mock's recording becomes the message log (schema-checked with the validator `run` uses,
 * against the version the mock answered), the client suites read it, and the result is a Report of the same model as
 * `run`'s, so every reporter, --strict, baselines and exit codes apply unchanged.
 */
import { SchemaWorkbench } from '../core/jsonschema.js';
import { classify, type LoggedMessage } from '../core/log.js';
import { summarize, type CaseResult, type Report, type SuiteResult } from '../core/results.js';
import { MessageValidator, schemaDocumentFor } from '../core/schema/index.js';
import { DEFAULT_OFFERED_VERSION, dialectOf, isProtocolVersion, PROTOCOL_VERSIONS, specUrl, type ProtocolVersion } from '../core/schema/versions.js';
import { VERSION } from '../core/version.js';
import type { ClientCaseContext, ClientCaseDef, ClientRunInfo, ClientSuite } from './suites/helpers.js';
import type { ClientExchange, ClientTransport, RecordedEntry } from '../mocks/client-mock.js';
import type { Fixture } from '../core/formats/fixture.js';

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
}

const isObj = (x: unknown): x is Record<string, unknown> => !!x && typeof x === 'object' && !Array.isArray(x);

/** The recording as a message log: ordered, classified, responses linked to their requests, schema-checked. */
export function logOf(entries: RecordedEntry[], startedAt: number, exchanges: ClientExchange[] = []): { log: LoggedMessage[]; version: ProtocolVersion } {
  const sorted = entries.map((e, i) => ({ e, i })).sort((a, b) => a.e.t - b.e.t || a.i - b.i).map((x) => x.e);
  const log: LoggedMessage[] = [];
  const open = { 'to-server': new Map<string, LoggedMessage>(), 'from-server': new Map<string, LoggedMessage>() };
  let version: ProtocolVersion | undefined;
  for (const e of sorted) {
    let json: unknown;
    let parsed = true;
    try { json = JSON.parse(e.raw); } catch { parsed = false; }
    const c = parsed ? classify(json) : { kind: 'invalid' as const, problem: 'not JSON' };
    const m: LoggedMessage = {
      seq: log.length, direction: e.dir, t: Math.max(0, e.t - startedAt), raw: e.raw, ...(parsed ? { json } : {}),
      kind: c.kind, ...(c.method ? { method: c.method } : {}), ...(c.id !== undefined ? { id: c.id } : {}), ...(c.problem ? { problem: c.problem } : {}),
      schema: { checked: false, valid: false, violations: [] },
    };
    const ex = e.ex !== undefined ? exchanges[e.ex] : undefined;
    if (ex) m.http = { exchange: ex.n, method: ex.method as 'POST', url: ex.url, status: ex.status, contentType: ex.contentType, sessionId: ex.headers['mcp-session-id'], protocolVersion: ex.headers['mcp-protocol-version'] };
    if (m.kind === 'request' && m.id !== undefined) open[e.dir].set(JSON.stringify(m.id), m);
    if ((m.kind === 'response' || m.kind === 'error') && m.id !== undefined && m.id !== null) {
      const other = e.dir === 'to-server' ? 'from-server' : 'to-server';
      const req = open[other].get(JSON.stringify(m.id));
      if (req) {
        open[other].delete(JSON.stringify(m.id));
        m.inReplyTo = req.seq;
        m.method = req.method;
        if (req.method === 'initialize' && m.kind === 'response' && !version && isObj(json) && isObj((json as Record<string, unknown>).result)) {
          const v = ((json as { result: Record<string, unknown> }).result).protocolVersion;
          if (isProtocolVersion(v)) version = v;
        }
      }
    }
    log.push(m);
  }
  const v = version ?? DEFAULT_OFFERED_VERSION;
  const { version: schemaVersion, document } = schemaDocumentFor(v);
  const validator = new MessageValidator(schemaVersion, document);
  for (const m of log) {
    if (m.json === undefined) {
      // A line that is not JSON: no message at all (from the client, a failure of client-requests/schema).
      m.schema = { checked: true, valid: false, definition: 'JSONRPCMessage', violations: [{ pointer: '', message: 'not JSON' }] };
      continue;
    }
    m.schema = validator.check({ direction: m.direction, kind: m.kind, method: m.method, json: m.json });
  }
  return { log, version: v };
}

function notApplicable(c: ClientCaseDef, ctx: ClientCaseContext): string | undefined {
  if (c.transports && !c.transports.includes(ctx.transport)) return `not run: about ${c.transports.join(', ')}; this client ran over ${ctx.transport}`;
  const at = PROTOCOL_VERSIONS.indexOf(ctx.version);
  if (c.from && at < PROTOCOL_VERSIONS.indexOf(c.from)) return `not run: the requirement exists from protocol ${c.from}; the session spoke ${ctx.version}`;
  if (c.until && at > PROTOCOL_VERSIONS.indexOf(c.until)) return `not run: the requirement exists until protocol ${c.until}; the session spoke ${ctx.version}`;
  if (c.scenarios && !c.scenarios.includes(ctx.scenario)) return `not run: checked in scenario ${c.scenarios.join(', ')} (this run: ${ctx.scenario})`;
  return undefined;
}

function wanted(id: string, filter?: string[]): boolean {
  return !filter?.length || filter.some((f) => id.startsWith(f));
}

export function gradeClientRun(r: ClientRunRecord): Report {
  const { log, version } = logOf(r.entries, r.startedAt, r.exchanges);
  const ctx: ClientCaseContext = {
    log, exchanges: r.exchanges, transport: r.transport, scenario: r.scenario, version, fixture: r.fixture, client: r.client,
    workbench: new SchemaWorkbench(dialectOf(version)),
  };
  const suites: SuiteResult[] = [];
  for (const s of r.suites) {
    const t0 = performance.now();
    const cases: CaseResult[] = [];
    const suiteSkip = s.notGraded?.(ctx);
    for (const c of s.cases) {
      if (!wanted(c.id, r.caseFilter)) continue;
      const ct0 = performance.now();
      const skip = suiteSkip ?? notApplicable(c, ctx);
      let o;
      try {
        o = skip ? { verdict: 'skip' as const, message: skip } : c.run(ctx);
      } catch (e) {
        o = { verdict: 'fail' as const, message: `harness error while grading this case: ${(e as Error).stack ?? (e as Error).message}` };
      }
      cases.push({
        id: c.id, title: c.title, verdict: o.verdict, level: o.level ?? c.level, spec: specUrl(version, c.spec), message: o.message,
        durationMs: Math.round((performance.now() - ct0) * 1000) / 1000, messageIds: o.messageIds ?? [], requirement: c.requirement,
        ...(o.details ? { details: o.details } : {}),
      });
    }
    if (cases.length) suites.push({ id: s.id, title: s.title, durationMs: Math.round((performance.now() - t0) * 1000) / 1000, cases });
  }
  if (r.strict) for (const s of suites) for (const c of s.cases) if (c.verdict === 'warn') { c.verdict = 'fail'; c.strictFromWarn = true; }
  const summary = summarize(suites, log);
  const init = log.find((m) => m.direction === 'to-server' && m.method === 'initialize' && m.kind === 'request');
  const ip = init && isObj(init.json) && isObj((init.json as Record<string, unknown>).params) ? (init.json as { params: Record<string, unknown> }).params : {};
  const ci = isObj(ip.clientInfo) ? ip.clientInfo : {};
  const initAnswer = init ? log.find((m) => m.inReplyTo === init.seq) : undefined;
  const caps = initAnswer && isObj(initAnswer.json) && isObj((initAnswer.json as Record<string, unknown>).result) ? ((initAnswer.json as { result: Record<string, unknown> }).result.capabilities as Record<string, unknown>) : undefined;
  const str = (v: unknown) => (typeof v === 'string' ? v : undefined);
  const report: Report = {
    tool: { name: 'mcp-conform', version: VERSION },
    reportVersion: 1,
    startedAt: new Date(r.startedAt).toISOString(),
    durationMs: Math.round(r.durationMs),
    exitCode: summary.fail > 0 || r.aborted ? 1 : 0,
    ...(r.aborted ? { aborted: r.aborted } : {}),
    summary,
    server: { name: r.fixture.server.name, version: r.fixture.server.version, protocolVersion: version, ...(caps ? { capabilities: caps } : {}) },
    target: { name: `scenario ${r.scenario}`, transport: r.transport, command: r.command, argv: r.argv, ...(r.transport !== 'stdio' ? { url: r.mock } : {}) },
    process: {
      pid: r.client.pid, exitCode: r.client.exitCode, signal: r.client.signal,
      shutdown: r.client.endedByHarness ? (r.client.signal === 'SIGKILL' ? 'SIGKILL' : 'SIGTERM') : 'exited',
      stderr: r.client.output, ...(r.client.outputTruncated ? { stderrTruncated: true } : {}),
    },
    options: {
      mode: 'client', scenario: r.scenario, fixture: r.fixtureFile, mock: r.mock, timeoutMs: r.timeoutMs, strict: r.strict,
      protocolVersionInForce: version, suites: suites.map((s) => s.id), cases: r.caseFilter ?? [],
    },
    client: { name: str(ci.name), version: str(ci.version), protocolVersion: str(ip.protocolVersion), capabilities: isObj(ip.capabilities) ? ip.capabilities : undefined },
    skippedTools: [],
    suites,
    messages: log,
    ...(r.transport === 'streamable-http' ? { http: { exchanges: r.exchanges } } : {}),
  };
  return report;
}
