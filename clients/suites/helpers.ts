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

export interface ClientRunInfo {
  exitCode: number | null;
  signal: string | null;
  /** The client was ended by the harness (it had not finished within --timeout or --max-duration). */
  endedByHarness?: string;
  durationMs: number;
}

export interface ClientCaseContext {
  /** Every message both ways, in order, schema-checked (to-server: what the client sent). */
  log: LoggedMessage[];
  /** Streamable HTTP: each request of the client, with the headers that are graded and the mock's status. */
  exchanges: ClientExchange[];
  transport: ClientTransport;
  scenario: string;
  /** The version in force: the one the mock answered initialize with. */
  version: ProtocolVersion;
  fixture: Fixture;
  client: ClientRunInfo;
  workbench: SchemaWorkbench;
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
  /** The last protocol version the requirement exists in. */
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
  const response = request ? ctx.log.find((m) => m.direction === 'from-server' && m.inReplyTo === request.seq) : undefined;
  return { request, response };
}

export function label(m: LoggedMessage): string {
  if (m.kind === 'request') return `${m.method} request (id ${JSON.stringify(m.id)})`;
  if (m.kind === 'notification') return `${m.method} notification`;
  if (m.kind === 'response' || m.kind === 'error') return `${m.kind === 'error' ? 'error' : 'response'} to id ${JSON.stringify(m.id)}`;
  return `a line that is no JSON-RPC message (${m.problem ?? 'invalid'})`;
}

/** How the client run ended, for messages: 'the client exited with code 0'. */
export function ending(ctx: ClientCaseContext): string {
  const c = ctx.client;
  if (c.endedByHarness) return `the client was ended by the harness (${c.endedByHarness})`;
  if (c.signal) return `the client ended by signal ${c.signal}`;
  return `the client exited with code ${c.exitCode}`;
}

export { isObject as isObj } from '../../core/objects.js';
