/**
 * What a client suite is: the Suite/CaseDef shape of core/suite.ts, with the recorded log as the input instead of a
 * live session. `mcp-conform client` grades the recording of one client run (one scenario) with every case.
 * Cases declare what they apply to (transports, first version, scenarios); the grader skips the others with a uniform
 * reason, so no case body checks a transport or a version itself.
 */
import type { LoggedMessage } from '../core/log.js';
import type { Level } from '../core/results.js';
import type { ProtocolVersion } from '../core/schema/versions.js';
import type { Outcome } from '../core/suite.js';
import type { SchemaWorkbench } from '../core/jsonschema.js';
import type { ClientExchange, ClientTransport } from '../mocks/client-mock.js';
import type { Fixture } from '../core/formats/fixture.js';
import type { AuthScenarioDef } from '../mocks/auth/scenarios.js';
import type { ResourceRequest } from '../mocks/auth/protected.js';
import type { AuthServerRequest } from '../mocks/auth/server.js';
import type { RefFetch } from '../mocks/schema-tools.js';

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
