/**
 * MCP 2026-07-28, derived from 2025-11-25: the stateless protocol.
 *
 * - No initialize handshake, ping, logging/setLevel, resource subscribe/unsubscribe or tasks: the client
 *   sends its protocol version, capabilities and info in the `_meta` of every request (RequestMetaObject,
 *   now required), and may ask `server/discover`.
 * - Server-to-client requests (sampling, roots, elicitation) are no longer JSON-RPC messages of their own:
 *   a server answers with an InputRequiredResult carrying `inputRequests`, and the client retries the
 *   original request with `inputResponses` (and the opaque `requestState`).
 * - Every result has a `resultType`; list and read results are cacheable (`cacheScope`, `ttlMs`).
 * - Notifications are delivered on a `subscriptions/listen` stream.
 * - Typed `_meta` objects, JSON value types for capability payloads, named JSON-RPC error shapes and
 *   response envelopes per method.
 */
import {
  type Defs,
  type Schema,
  JSONRPC,
  allOf,
  anyOf,
  arr,
  bool,
  int,
  intLit,
  lit,
  modify,
  obj,
  oneOfStr,
  record,
  ref,
  remove,
  str,
  strs,
  types,
  union,
  withProps,
  withRequired,
  withoutProps,
} from './base.js';
import { legacyRequest } from './v2024-11-05.js';
import { defs20251125, rpcNotification, rpcRequest } from './v2025-11-25.js';

const MCP = 'io.modelcontextprotocol/';

/** `_meta` and `resultType` of every result. */
const resultBase = (): { [name: string]: Schema } => ({ _meta: ref('ResultMetaObject'), resultType: str() });
/** The caching fields of cacheable results. */
const cacheFields = (): { [name: string]: Schema } => ({
  cacheScope: oneOfStr('private', 'public'),
  ttlMs: { type: 'integer', minimum: 0 },
});
const CACHE_REQUIRED = ['cacheScope', 'resultType', 'ttlMs'];

/** A cacheable paginated list result holding `key`: an array of `item`. */
const cachedList = (key: string, item: string): Schema =>
  obj({ ...resultBase(), ...cacheFields(), nextCursor: str(), [key]: arr(ref(item)) }, [...CACHE_REQUIRED, key]);

/** A successful JSON-RPC response whose result is `result`. */
const resultResponse = (result: Schema): Schema =>
  obj({ id: ref('RequestId'), jsonrpc: JSONRPC(), result }, ['id', 'jsonrpc', 'result']);

/** A JSON-RPC error object with a fixed code. */
const errorWithCode = (code: number): Schema =>
  obj({ code: intLit(code), data: {}, message: str() }, ['code', 'message']);

/** A JSON-RPC error response whose error is an Error with the given code and (optionally) data. */
const errorResponse = (code: number, data?: Schema): Schema =>
  obj(
    {
      error: allOf(
        ref('Error'),
        obj(data ? { code: intLit(code), data } : { code: intLit(code) }, data ? ['code', 'data'] : ['code']),
      ),
      id: ref('RequestId'),
      jsonrpc: JSONRPC(),
    },
    ['error', 'jsonrpc'],
  );

export function defs20260728(): Defs {
  const prev = defs20251125();
  const d: Defs = { ...prev };

  remove(
    d,
    // the handshake and per-session features
    'InitializeRequest',
    'InitializeRequestParams',
    'InitializeResult',
    'InitializedNotification',
    'PingRequest',
    'SetLevelRequest',
    'SetLevelRequestParams',
    'SubscribeRequest',
    'SubscribeRequestParams',
    'UnsubscribeRequest',
    'UnsubscribeRequestParams',
    'RootsListChangedNotification',
    'ElicitationCompleteNotification',
    'URLElicitationRequiredError',
    'ServerRequest',
    // tasks
    'Task',
    'TaskMetadata',
    'TaskStatus',
    'RelatedTaskMetadata',
    'TaskAugmentedRequestParams',
    'CreateTaskResult',
    'GetTaskRequest',
    'GetTaskResult',
    'GetTaskPayloadRequest',
    'GetTaskPayloadResult',
    'CancelTaskRequest',
    'CancelTaskResult',
    'ListTasksRequest',
    'ListTasksResult',
    'TaskStatusNotification',
    'TaskStatusNotificationParams',
    'ToolExecution',
  );

  // ---- JSON values ----
  d.JSONValue = anyOf(ref('JSONObject'), arr(ref('JSONValue')), types('string', 'integer', 'boolean'));
  d.JSONObject = record(ref('JSONValue'));
  d.JSONArray = arr(ref('JSONValue'));

  // ---- typed _meta objects ----
  d.MetaObject = { type: 'object' };
  d.RequestMetaObject = obj(
    {
      [`${MCP}clientCapabilities`]: ref('ClientCapabilities'),
      [`${MCP}clientInfo`]: ref('Implementation'),
      [`${MCP}logLevel`]: ref('LoggingLevel'),
      [`${MCP}protocolVersion`]: str(),
      progressToken: ref('ProgressToken'),
    },
    [`${MCP}clientCapabilities`, `${MCP}protocolVersion`],
  );
  d.ResultMetaObject = obj({ [`${MCP}serverInfo`]: ref('Implementation') });
  d.NotificationMetaObject = obj({ [`${MCP}subscriptionId`]: ref('RequestId') });
  d.SubscriptionsListenResultMetaObject = obj(
    { [`${MCP}serverInfo`]: ref('Implementation'), [`${MCP}subscriptionId`]: ref('RequestId') },
    [`${MCP}subscriptionId`],
  );

  modify(
    d,
    [
      'AudioContent',
      'BlobResourceContents',
      'CreateMessageResult',
      'EmbeddedResource',
      'ImageContent',
      'Prompt',
      'Resource',
      'ResourceContents',
      'ResourceLink',
      'ResourceTemplate',
      'Root',
      'SamplingMessage',
      'TextContent',
      'TextResourceContents',
      'Tool',
      'ToolResultContent',
      'ToolUseContent',
    ],
    (x) => withProps(x, { _meta: ref('MetaObject') }),
  );
  modify(
    d,
    [
      'NotificationParams',
      'CancelledNotificationParams',
      'LoggingMessageNotificationParams',
      'ProgressNotificationParams',
      'ResourceUpdatedNotificationParams',
    ],
    (x) => withProps(x, { _meta: ref('NotificationMetaObject') }),
  );
  d.CancelledNotificationParams = withRequired(d.CancelledNotificationParams, ['requestId']);

  // ---- request params: required _meta; multi-round-trip input responses ----
  modify(
    d,
    [
      'RequestParams',
      'PaginatedRequestParams',
      'ResourceRequestParams',
      'ReadResourceRequestParams',
      'GetPromptRequestParams',
      'CallToolRequestParams',
      'CompleteRequestParams',
    ],
    (x) => withProps(x, { _meta: ref('RequestMetaObject') }, ['_meta']),
  );
  modify(d, ['ReadResourceRequestParams', 'GetPromptRequestParams', 'CallToolRequestParams'], (x) =>
    withProps(x, { inputResponses: ref('InputResponses'), requestState: str() }),
  );
  d.CallToolRequestParams = withoutProps(d.CallToolRequestParams, 'task');
  d.InputResponseRequestParams = obj(
    { _meta: ref('RequestMetaObject'), inputResponses: ref('InputResponses'), requestState: str() },
    ['_meta'],
  );

  // paginated requests now always carry params (for their _meta)
  modify(
    d,
    [
      'PaginatedRequest',
      'ListPromptsRequest',
      'ListResourceTemplatesRequest',
      'ListResourcesRequest',
      'ListToolsRequest',
    ],
    (x) => withRequired(x, ['id', 'jsonrpc', 'method', 'params']),
  );

  // ---- results ----
  d.ResultType = str();
  d.Result = withProps(d.Result, resultBase(), ['resultType']);
  d.PaginatedResult = withProps(d.PaginatedResult, resultBase(), ['resultType']);
  d.CacheableResult = obj({ ...resultBase(), ...cacheFields() }, CACHE_REQUIRED);
  d.CallToolResult = withProps(d.CallToolResult, { ...resultBase(), structuredContent: {} }, ['resultType']);
  d.CompleteResult = withProps(
    d.CompleteResult,
    {
      ...resultBase(),
      completion: obj({ hasMore: bool(), total: int(), values: { ...strs(), maxItems: 100 } }, ['values']),
    },
    ['resultType'],
  );
  d.GetPromptResult = withProps(d.GetPromptResult, resultBase(), ['resultType']);
  d.ReadResourceResult = withProps(d.ReadResourceResult, { ...resultBase(), ...cacheFields() }, CACHE_REQUIRED);
  d.ListPromptsResult = cachedList('prompts', 'Prompt');
  d.ListResourcesResult = cachedList('resources', 'Resource');
  d.ListResourceTemplatesResult = cachedList('resourceTemplates', 'ResourceTemplate');
  d.ListToolsResult = cachedList('tools', 'Tool');
  d.ListRootsResult = withoutProps(d.ListRootsResult, '_meta');
  d.ElicitResult = withoutProps(d.ElicitResult, '_meta');

  // ---- discovery ----
  d.DiscoverRequest = rpcRequest('server/discover', 'RequestParams', true);
  d.DiscoverResult = obj(
    {
      ...resultBase(),
      ...cacheFields(),
      capabilities: ref('ServerCapabilities'),
      instructions: str(),
      supportedVersions: strs(),
    },
    [...CACHE_REQUIRED, 'capabilities', 'supportedVersions'],
  );

  // ---- capabilities: JSON objects, extensions; no tasks, no roots.listChanged ----
  d.ClientCapabilities = obj({
    elicitation: obj({ form: ref('JSONObject'), url: ref('JSONObject') }),
    experimental: record(ref('JSONObject')),
    extensions: record(ref('JSONObject')),
    roots: obj({}),
    sampling: obj({ context: ref('JSONObject'), tools: ref('JSONObject') }),
  });
  d.ServerCapabilities = withoutProps(
    withProps(d.ServerCapabilities, {
      completions: ref('JSONObject'),
      experimental: record(ref('JSONObject')),
      extensions: record(ref('JSONObject')),
      logging: ref('JSONObject'),
    }),
    'tasks',
  );

  // ---- tools: open input/output schemas ----
  d.Tool = withoutProps(
    withProps(d.Tool, {
      inputSchema: obj({ $schema: str(), type: lit('object') }, ['type'], { additionalProperties: {} }),
      outputSchema: obj({ $schema: str() }, [], { additionalProperties: {} }),
    }),
    'execution',
  );
  d.ToolResultContent = withProps(d.ToolResultContent, { structuredContent: {} });

  // ---- input requests (sampling, roots, elicitation) embedded in results ----
  d.CreateMessageRequest = legacyRequest('sampling/createMessage', ref('CreateMessageRequestParams'), true);
  d.CreateMessageRequestParams = withProps(withoutProps(d.CreateMessageRequestParams, '_meta', 'task'), {
    metadata: ref('JSONObject'),
  });
  d.ListRootsRequest = legacyRequest('roots/list', obj({ _meta: ref('MetaObject') }), false);
  d.ElicitRequest = legacyRequest('elicitation/create', ref('ElicitRequestParams'), true);
  d.ElicitRequestFormParams = withoutProps(d.ElicitRequestFormParams, '_meta', 'task');
  d.ElicitRequestURLParams = withoutProps(d.ElicitRequestURLParams, '_meta', 'task', 'elicitationId');
  d.ElicitRequestParams = union('ElicitRequestFormParams', 'ElicitRequestURLParams');
  d.InputRequest = union('CreateMessageRequest', 'ListRootsRequest', 'ElicitRequest');
  d.InputRequests = record(ref('InputRequest'));
  d.InputResponse = union('CreateMessageResult', 'ListRootsResult', 'ElicitResult');
  d.InputResponses = record(ref('InputResponse'));
  d.InputRequiredResult = obj({ ...resultBase(), inputRequests: ref('InputRequests'), requestState: str() }, [
    'resultType',
  ]);

  // ---- subscriptions ----
  d.SubscriptionFilter = obj({
    promptsListChanged: bool(),
    resourceSubscriptions: strs(),
    resourcesListChanged: bool(),
    toolsListChanged: bool(),
  });
  d.SubscriptionsListenRequestParams = obj(
    { _meta: ref('RequestMetaObject'), notifications: ref('SubscriptionFilter') },
    ['_meta', 'notifications'],
  );
  d.SubscriptionsListenRequest = rpcRequest('subscriptions/listen', 'SubscriptionsListenRequestParams', true);
  d.SubscriptionsListenResult = obj({ _meta: ref('SubscriptionsListenResultMetaObject'), resultType: str() }, [
    '_meta',
    'resultType',
  ]);
  d.SubscriptionsAcknowledgedNotificationParams = obj(
    { _meta: ref('NotificationMetaObject'), notifications: ref('SubscriptionFilter') },
    ['notifications'],
  );
  d.SubscriptionsAcknowledgedNotification = rpcNotification(
    'notifications/subscriptions/acknowledged',
    'SubscriptionsAcknowledgedNotificationParams',
    true,
  );

  // ---- response envelopes per method ----
  d.CallToolResultResponse = resultResponse(union('InputRequiredResult', 'CallToolResult'));
  d.GetPromptResultResponse = resultResponse(union('InputRequiredResult', 'GetPromptResult'));
  d.ReadResourceResultResponse = resultResponse(union('InputRequiredResult', 'ReadResourceResult'));
  d.CompleteResultResponse = resultResponse(ref('CompleteResult'));
  d.DiscoverResultResponse = resultResponse(ref('DiscoverResult'));
  d.ListPromptsResultResponse = resultResponse(ref('ListPromptsResult'));
  d.ListResourcesResultResponse = resultResponse(ref('ListResourcesResult'));
  d.ListResourceTemplatesResultResponse = resultResponse(ref('ListResourceTemplatesResult'));
  d.ListToolsResultResponse = resultResponse(ref('ListToolsResult'));
  d.SubscriptionsListenResultResponse = resultResponse(ref('SubscriptionsListenResult'));

  // ---- errors ----
  d.ParseError = errorWithCode(-32700);
  d.InvalidRequestError = errorWithCode(-32600);
  d.MethodNotFoundError = errorWithCode(-32601);
  d.InvalidParamsError = errorWithCode(-32602);
  d.InternalError = errorWithCode(-32603);
  d.HeaderMismatchError = errorResponse(-32020);
  d.MissingRequiredClientCapabilityError = errorResponse(
    -32021,
    obj({ requiredCapabilities: ref('ClientCapabilities') }, ['requiredCapabilities']),
  );
  d.UnsupportedProtocolVersionError = errorResponse(
    -32022,
    obj({ requested: str(), supported: strs() }, ['requested', 'supported']),
  );

  // ---- unions by direction ----
  d.ClientRequest = union(
    'DiscoverRequest',
    'ListResourcesRequest',
    'ListResourceTemplatesRequest',
    'ReadResourceRequest',
    'SubscriptionsListenRequest',
    'ListPromptsRequest',
    'GetPromptRequest',
    'ListToolsRequest',
    'CallToolRequest',
    'CompleteRequest',
  );
  // a union of one member: the official schema spells it out as the cancelled notification itself
  d.ClientNotification = rpcNotification('notifications/cancelled', 'CancelledNotificationParams', true);
  d.ClientResult = ref('Result');
  d.ServerNotification = union(
    'CancelledNotification',
    'ProgressNotification',
    'ResourceListChangedNotification',
    'SubscriptionsAcknowledgedNotification',
    'ResourceUpdatedNotification',
    'PromptListChangedNotification',
    'ToolListChangedNotification',
    'LoggingMessageNotification',
  );
  d.ServerResult = union(
    'Result',
    'InputRequiredResult',
    'DiscoverResult',
    'ListResourcesResult',
    'ListResourceTemplatesResult',
    'ReadResourceResult',
    'SubscriptionsListenResult',
    'ListPromptsResult',
    'GetPromptResult',
    'ListToolsResult',
    'CallToolResult',
    'CompleteResult',
  );

  return d;
}
