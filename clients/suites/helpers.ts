/**
 * What a client suite is: the Suite/CaseDef shape of core/suite.ts, with the recorded log as the input instead of a
 * live session. `mcp-conform client` grades the recording of one client run (one scenario) with every case.
 * Cases declare what they apply to (transports, first version, scenarios); the grader skips the others with a uniform
 * reason, so no case body checks a transport or a version itself.
 */
import type { LoggedMessage } from '../../core/log.js';
import type { Level } from '../../core/results.js';
import type { ProtocolVersion } from '../../core/schema/versions.js';
import type { Outcome } from '../../core/suite.js';
import type { SchemaWorkbench } from '../../core/jsonschema.js';
import type { ClientExchange, ClientTransport } from '../../mocks/client-mock.js';
import type { Fixture } from '../../core/formats/fixture.js';
import type { AuthScenarioDef } from '../../mocks/auth/scenarios.js';
import type { ResourceRequest } from '../../mocks/auth/protected.js';
import type { AuthServerRequest } from '../../mocks/auth/server.js';
import type { RefFetch } from '../../mocks/schema-tools.js';
import { META } from '../../core/wire.js';

/** What the protected mock and its authorization server saw in a client-auth scenario (no secret in it). */
export interface AuthRunRecord {
  def: AuthScenarioDef;
  /** The MCP URL the client was given, and its canonical form (the resource a token must be for). */
  mcpUrl: string;
  resource: string;
  issuer: string;
  /** Where the protected-resource metadata was served (the first is the one the challenge names, when it names one). */
  metadataUrls: { where: string; url: string }[];
  resourceRequests: ResourceRequest[];
  asRequests: AuthServerRequest[];
  /** The pre-registered client id handed to the client. */
  clientId?: string;
  /** The resource the protected-resource metadata publishes, as served (absent: no metadata in the scenario). */
  published?: string;
  /** --protocol-version: the one version the run's mock was told to speak. */
  forcedVersion?: string;
}

export interface ClientRunInfo {
  exitCode: number | null;
  signal: string | null;
  /** The client was ended by the harness (it had not finished within --timeout or --max-duration). */
  endedByHarness?: string;
  durationMs: number;
  /** What the client wrote (stderr; stdout lines prefixed [stdout]), as far as it was kept. */
  output?: string[];
}

/** One session of the client: a stdio process, an HTTP session, an SSE stream, or its 2026-07-28 HTTP requests. */
export interface ClientSessionView {
  /** The mock's key of it ('none': messages no session saw). */
  key: string;
  /** 1, 2, …: in the order of their first message. */
  n: number;
  /** legacy: opened with initialize (or without any 2026-07-28 request); modern: 2026-07-28 requests; probe: only a server/discover that fell back. */
  era: 'legacy' | 'modern' | 'probe';
  /** The version the session spoke (the initialize answer's; the _meta version of a modern one). */
  version?: ProtocolVersion;
  messages: LoggedMessage[];
  exchanges: ClientExchange[];
}

export interface ClientCaseContext {
  /** Every message both ways, in order, schema-checked (to-server: what the client sent). */
  log: LoggedMessage[];
  /** The log cut into the client's sessions. */
  sessions: ClientSessionView[];
  /** Why the run did not end normally (the client could not be started, or was ended by the harness). */
  aborted?: string;
  /** Streamable HTTP: each request of the client, with the headers that are graded and the mock's status. */
  exchanges: ClientExchange[];
  transport: ClientTransport;
  scenario: string;
  /** The version in force: the one the mock answered initialize with. */
  version: ProtocolVersion;
  fixture: Fixture;
  client: ClientRunInfo;
  workbench: SchemaWorkbench;
  /** A client-auth scenario: what the protected mock and its authorization server saw. */
  auth?: AuthRunRecord;
  /** Scenario remote-ref: the URL the tool schemas refer to, and every request the mock's listener there got. */
  ref?: { url: string; fetches: RefFetch[] };
}

export interface ClientCaseDef {
  id: string;
  title: string;
  level: Level;
  /** Section path in the spec; the version in force is put in front. */
  spec: string;
  requirement: string;
  /** The transports the case is about (absent: all). */
  transports?: ClientTransport[];
  /** The first protocol version the requirement exists in. */
  from?: ProtocolVersion;
  /** The first protocol version the requirement no longer exists in (exclusive, as for server cases: core/applies.ts). */
  until?: ProtocolVersion;
  /** The scenarios that provoke what the case checks (absent: every scenario). */
  scenarios?: string[];
  run(ctx: ClientCaseContext): Outcome;
}

export interface ClientSuite {
  id: string;
  title: string;
  description: string;
  cases: ClientCaseDef[];
  /** Why none of the suite's cases can be graded for this client (each is then skipped with it), or undefined. */
  notGraded?(ctx: ClientCaseContext): string | undefined;
}

export const fromClient = (ctx: ClientCaseContext) => ctx.log.filter((m) => m.direction === 'to-server');

export function firstInitialize(ctx: ClientCaseContext): { request?: LoggedMessage; response?: LoggedMessage } {
  const request = ctx.log.find((m) => m.direction === 'to-server' && m.kind === 'request' && m.method === 'initialize');
  const response = request
    ? ctx.log.find((m) => m.direction === 'from-server' && m.inReplyTo === request.seq)
    : undefined;
  return { request, response };
}

export function label(m: LoggedMessage): string {
  if (m.kind === 'request') return `${m.method} request (id ${JSON.stringify(m.id)})`;
  if (m.kind === 'notification') return `${m.method} notification`;
  if (m.kind === 'response' || m.kind === 'error')
    return `${m.kind === 'error' ? 'error' : 'response'} to id ${JSON.stringify(m.id)}`;
  return `a line that is no JSON-RPC message (${m.problem ?? 'invalid'})`;
}

/** How the client run ended, for messages: 'the client exited with code 0'. */
export function ending(ctx: ClientCaseContext): string {
  const c = ctx.client;
  if (c.endedByHarness) return `the client was ended by the harness (${c.endedByHarness})`;
  if (c.signal) return `the client ended by signal ${c.signal}`;
  return `the client exited with code ${c.exitCode}`;
}

import { isObject } from '../../core/objects.js';
export { isObject as isObj } from '../../core/objects.js';

/**
 * A case body run on each session of an era by itself (its messages and exchanges only), the outcomes combined: the
 * worst verdict wins; with more than one session the message names each session that did not pass.
 */
export function perSession(
  ctx: ClientCaseContext,
  eras: ClientSessionView['era'][],
  body: (c: ClientCaseContext) => Outcome,
  none?: string,
): Outcome {
  // A client that sent nothing has no session: the body says so in its own words.
  if (!ctx.sessions.some((s) => s.messages.some((m) => m.direction === 'to-server'))) return body(ctx);
  const ss = ctx.sessions.filter((s) => eras.includes(s.era));
  if (!ss.length)
    return { verdict: 'skip', message: none ?? `the client opened no ${eras.join(' or ')} session; ${ending(ctx)}` };
  if (ss.length === 1 && ctx.sessions.length === 1) return body(ctx);
  const outs = ss.map((s) => ({
    s,
    o: body({ ...ctx, log: s.messages, exchanges: s.exchanges, ...(s.version ? { version: s.version } : {}) }),
  }));
  const rank: Record<string, number> = { fail: 4, warn: 3, info: 2, pass: 1, skip: 0 };
  const worst = outs.reduce((a, b) => (rank[b.o.verdict]! > rank[a.o.verdict]! ? b : a));
  const name = (s: ClientSessionView) => `session ${s.n} of ${ctx.sessions.length}`;
  if (worst.o.verdict === 'skip')
    return { ...worst.o, message: outs.map(({ s, o }) => `${name(s)}: ${o.message}`).join(' | ') };
  const shown =
    worst.o.verdict === 'pass'
      ? outs.filter((x) => x.o.verdict === 'pass')
      : outs.filter((x) => x.o.verdict === worst.o.verdict);
  return {
    verdict: worst.o.verdict,
    ...(worst.o.level ? { level: worst.o.level } : {}),
    message: shown.map(({ s, o }) => `${name(s)}: ${o.message}`).join(' | '),
    messageIds: shown.flatMap((x) => x.o.messageIds ?? []).slice(0, 20),
  };
}

const PV = META.protocolVersion;
/** The protocol version a 2026-07-28 request names in `_meta`. */
export const metaVersion = (json: unknown): unknown => {
  const p = isObject(json) && isObject(json.params) ? json.params : undefined;
  return p && isObject(p._meta) ? p._meta[PV] : undefined;
};
/** A 2026-07-28 request: server/discover, or the version in `_meta`. */
export const isModernMessage = (m: LoggedMessage): boolean =>
  m.direction === 'to-server' &&
  m.kind === 'request' &&
  (m.method === 'server/discover' || metaVersion(m.json) !== undefined);
