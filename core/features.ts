/**
 * What each protocol version has: the one table cases consult (`ctx.features.x`) and the runner applies (a case's
 * `requires.feature`), so that no case compares version strings.
 * https://modelcontextprotocol.io/specification/2025-11-25/changelog
 * https://modelcontextprotocol.io/specification/2026-07-28/changelog
 */
import { PROTOCOL_VERSIONS, type ProtocolVersion } from './schema/versions.js';

export interface VersionFeatures {
  /** How a session starts: the initialize handshake, or server/discover (2026-07-28, stateless). */
  handshake: 'initialize' | 'server/discover';
  /** The initialize request exists (gone in 2026-07-28). */
  initialize: boolean;
  /** notifications/initialized follows the initialize result. */
  initializedNotification: boolean;
  /** The ping utility (removed in 2026-07-28: probes that need a heartbeat send server/discover). */
  ping: boolean;
  /** The request a probe sends to see that the server still answers: ping, or server/discover where ping is gone. */
  heartbeat: 'ping' | 'server/discover';
  /** JSON-RPC batches (2025-03-26 only). */
  batches: boolean;
  /** Streamable HTTP (2025-03-26 on; 2024-11-05 has HTTP+SSE only). */
  streamableHttp: boolean;
  /** MCP-Protocol-Version header on every HTTP request after the handshake (2025-06-18 on). */
  protocolVersionHeader: boolean;
  /** A present, invalid Origin is answered 403 Forbidden (2025-11-25 on; before, "servers must validate Origin"). */
  origin403: boolean;
  /** Mcp-Session-Id sessions over Streamable HTTP (gone in 2026-07-28). */
  sessions: boolean;
  /** The GET stream for server-initiated messages (gone in 2026-07-28). */
  getStream: boolean;
  /** Resumable SSE streams (Last-Event-ID) (gone in 2026-07-28). */
  resumableStreams: boolean;
  /** SSE polling (2025-11-25): a priming event (an id, empty data), the connection closed early with a retry field, resumption. */
  ssePolling: boolean;
  /** Every request carries protocol version, client info and capabilities in _meta (2026-07-28). */
  requestMeta: boolean;
  /** Mcp-Method and related request headers; unknown methods and header mismatches answered with HTTP statuses (2026-07-28). */
  requestHeaders: boolean;
  /** A request whose headers disagree with its body is refused with -32020 (2026-07-28). */
  headerMismatchCode?: number;
  /** A notification the server cannot accept over HTTP is refused with an HTTP error status (2026-07-28). */
  notificationRefusalByStatus: boolean;
  /** Over Streamable HTTP a request is cancelled by closing its response stream, not notifications/cancelled (2026-07-28). */
  cancelByStreamClose: boolean;
  /** Results carry resultType (2026-07-28). */
  resultType: boolean;
  /** Tools may declare outputSchema and answer structuredContent (2025-06-18 on). */
  structuredContent: boolean;
  /** SEP-1303: input validation errors should be tool results with isError: true, not -32602 (2025-11-25 on). */
  validationAsToolError: boolean;
  /** The tool name rule (1–128 of A–Z a–z 0–9 _ - .) is a SHOULD (2025-11-25 on; before, only advice). */
  toolNameRule: boolean;
  /** Task-augmented tools/call (2025-11-25 in the core; later the io.modelcontextprotocol/tasks extension). */
  tasks: 'core' | 'extension' | false;
  /** JSON-RPC code the spec names for a resources/read of an unknown URI (-32002; -32602 from 2026-07-28). */
  resourceNotFoundCode: number;
  /** How strongly: a SHOULD up to 2025-11-25, a MUST (and no empty contents) from 2026-07-28 (SEP-2164). */
  resourceNotFoundStrength: 'SHOULD' | 'MUST';
  /** resources/subscribe and resources/unsubscribe exist (2026-07-28 replaced them by subscriptions/listen). */
  resourceSubscribe: boolean;
  /** subscriptions/listen: one long-lived request per subscription carries change notifications (2026-07-28). */
  subscriptionsListen: boolean;
  /** logging/setLevel exists (removed in 2026-07-28). */
  setLevel: boolean;
  /** The `completions` server capability exists (2025-03-26 on; 2024-11-05 had completion/complete without it). */
  completionsCapability: boolean;
  /** completion/complete takes `context.arguments` (2025-06-18 on). */
  completionContext: boolean;
  /** Cacheable results carry ttlMs and cacheScope (2026-07-28). */
  cacheHints: boolean;
  /** The extensions capability (identifiers such as io.modelcontextprotocol/tasks mapped to settings) (2026-07-28). */
  extensions: boolean;
  /**
   * Server-to-client requests go through input_required results (multi round-trip requests, 2026-07-28): a server
   * MUST NOT send sampling/createMessage, elicitation/create or roots/list as requests of its own.
   */
  mrtr: boolean;
  /** elicitation/create: a server MUST only ask a client that declared elicitation (2025-11-25 on; before, SHOULD). */
  elicitationMust: boolean;
  /** The authorization specification for HTTP transports (2025-03-26 on). */
  authorization: boolean;
  /** 2025-03-26 only: authorization-server metadata at the MCP URL's origin, else default endpoints /authorize, /token, /register. */
  originAuthorizationMetadata: boolean;
  /** Protected-resource metadata (RFC 9728) naming the authorization servers, and resource indicators / audience checks (2025-06-18 on). */
  protectedResourceMetadata: boolean;
  /** resource_metadata in the 401 challenge or the well-known URL, either one (2025-11-25 on; 2025-06-18 wants the challenge). */
  resourceMetadataEitherWay: boolean;
  /** scope in the 401 challenge and 403 insufficient_scope for too narrow a token, as SHOULDs (2025-11-25 on). */
  challengeScope: boolean;
  /** Clients must refuse an authorization server that lists no S256 (2025-11-25 on); Client ID Metadata Documents. */
  s256Required: boolean;
  /** Protected resources should not advertise offline_access; authorization servers should advertise iss in responses (2026-07-28). */
  offlineAccessAdvice: boolean;
}

const at = (v: ProtocolVersion, from: ProtocolVersion) =>
  PROTOCOL_VERSIONS.indexOf(v) >= PROTOCOL_VERSIONS.indexOf(from);

function build(v: ProtocolVersion): VersionFeatures {
  const stateless = at(v, '2026-07-28');
  return {
    handshake: stateless ? 'server/discover' : 'initialize',
    initialize: !stateless,
    initializedNotification: !stateless,
    ping: !stateless,
    heartbeat: stateless ? 'server/discover' : 'ping',
    batches: v === '2025-03-26',
    streamableHttp: at(v, '2025-03-26'),
    protocolVersionHeader: at(v, '2025-06-18'),
    origin403: at(v, '2025-11-25'),
    sessions: !stateless,
    getStream: !stateless,
    resumableStreams: !stateless,
    ssePolling: v === '2025-11-25',
    requestMeta: stateless,
    requestHeaders: stateless,
    ...(stateless ? { headerMismatchCode: -32020 } : {}),
    notificationRefusalByStatus: stateless,
    cancelByStreamClose: stateless,
    resultType: stateless,
    structuredContent: at(v, '2025-06-18'),
    validationAsToolError: at(v, '2025-11-25'),
    toolNameRule: at(v, '2025-11-25'),
    tasks: v === '2025-11-25' ? 'core' : stateless ? 'extension' : false,
    resourceNotFoundCode: stateless ? -32602 : -32002,
    resourceNotFoundStrength: stateless ? 'MUST' : 'SHOULD',
    resourceSubscribe: !stateless,
    subscriptionsListen: stateless,
    setLevel: !stateless,
    completionsCapability: at(v, '2025-03-26'),
    completionContext: at(v, '2025-06-18'),
    cacheHints: stateless,
    extensions: stateless,
    mrtr: stateless,
    elicitationMust: at(v, '2025-11-25'),
    authorization: at(v, '2025-03-26'),
    originAuthorizationMetadata: v === '2025-03-26',
    protectedResourceMetadata: at(v, '2025-06-18'),
    resourceMetadataEitherWay: at(v, '2025-11-25'),
    challengeScope: at(v, '2025-11-25'),
    s256Required: at(v, '2025-11-25'),
    offlineAccessAdvice: stateless,
  };
}

export const FEATURES: Readonly<Record<ProtocolVersion, Readonly<VersionFeatures>>> = Object.freeze(
  Object.fromEntries(PROTOCOL_VERSIONS.map((v) => [v, Object.freeze(build(v))])) as Record<
    ProtocolVersion,
    VersionFeatures
  >,
);

export function featuresOf(v: ProtocolVersion): Readonly<VersionFeatures> {
  return FEATURES[v];
}

/** The boolean features, by name: what a case may name in `requires.feature`. */
export type FeatureFlag = {
  [K in keyof VersionFeatures]-?: VersionFeatures[K] extends boolean ? K : never;
}[keyof VersionFeatures];

/** The words a skip uses for a feature a version lacks ("protocol X has no …"). */
export const FEATURE_WORDS: Record<FeatureFlag, string> = {
  initialize: 'initialize (the handshake is server/discover)',
  initializedNotification: 'initialize handshake, so no notifications/initialized',
  ping: 'ping (2026-07-28 removed ping: that the server answers is shown by server/discover and the robustness probes, which use it instead)',
  batches: 'JSON-RPC batches',
  streamableHttp: 'Streamable HTTP',
  protocolVersionHeader: 'MCP-Protocol-Version header',
  origin403: '403 rule for a foreign Origin',
  sessions: 'sessions',
  getStream: 'GET stream',
  resumableStreams: 'resumable streams',
  ssePolling:
    'SSE polling (priming events and server-closed connections came in 2025-11-25; 2026-07-28 has no resumable streams)',
  requestMeta: 'per-request _meta',
  requestHeaders: 'request metadata headers (Mcp-Method)',
  notificationRefusalByStatus: 'HTTP refusal of notifications',
  cancelByStreamClose: 'cancellation by closing the stream',
  resultType: 'resultType (it arrived in 2026-07-28)',
  structuredContent: 'structured tool output',
  validationAsToolError: 'SEP-1303 rule (input validation errors as tool results)',
  toolNameRule: 'tool name rule',
  resourceSubscribe: 'resources/subscribe (subscriptions/listen replaces it: see the subscriptions suite)',
  subscriptionsListen:
    'subscriptions/listen (it came in 2026-07-28; before it, resources/subscribe and the GET stream)',
  setLevel: 'logging/setLevel',
  completionsCapability: 'completions capability',
  completionContext: 'completion context arguments',
  cacheHints: 'ttlMs/cacheScope (they came in 2026-07-28)',
  extensions: 'extensions capability (it came in 2026-07-28)',
  mrtr: 'input_required results (they came in 2026-07-28)',
  elicitationMust: 'MUST rule for elicitation/create',
  authorization: 'authorization specification (it came in 2025-03-26)',
  originAuthorizationMetadata:
    'authorization metadata at the MCP origin (only 2025-03-26 had it; later versions use protected-resource metadata)',
  protectedResourceMetadata: 'protected-resource metadata (it came in 2025-06-18)',
  resourceMetadataEitherWay: 'choice between the challenge and the well-known URL (it came in 2025-11-25)',
  challengeScope: 'scope rules for challenges (they came in 2025-11-25)',
  s256Required: 'S256 requirement on clients (it came in 2025-11-25)',
  offlineAccessAdvice: 'offline_access and iss-parameter advice (it came in 2026-07-28)',
};

/** Versions not before `from` and before `until`. */
export function versionInRange(v: ProtocolVersion, from?: ProtocolVersion, until?: ProtocolVersion): boolean {
  return (!from || at(v, from)) && (!until || !at(v, until));
}
