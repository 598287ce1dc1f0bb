/**
 * MCP 2024-11-05: the first published version, and the base the later versions derive from.
 * Messages are described without their JSON-RPC envelope (`{ method, params }`), except the JSONRPC* types.
 */
import {
  type Defs,
  type Schema,
  JSONRPC,
  any,
  anyRecord,
  arr,
  bool,
  commonDefs,
  fmt,
  int,
  lit,
  meta,
  num,
  obj,
  oneOfStr,
  openObj,
  record,
  ref,
  str,
  strs,
  union,
  unit,
  uri,
} from './base.js';

// ---- builders for the envelope-less message style of 2024-11-05 .. 2025-06-18 -------------------------

/** A request `{ method, params }`; `params` is required when `paramsRequired`. */
export function legacyRequest(method: string, params: Schema, paramsRequired: boolean): Schema {
  return obj({ method: lit(method), params }, paramsRequired ? ['method', 'params'] : ['method']);
}

/** A notification `{ method, params }`; `params` is required when `paramsRequired`. */
export function legacyNotification(method: string, params: Schema, paramsRequired: boolean): Schema {
  return legacyRequest(method, params, paramsRequired);
}

/** Params of a request with no parameters of its own: an open object with the optional progress token in _meta. */
export function progressParams(metaIsOpen: boolean): Schema {
  const m = obj({ progressToken: ref('ProgressToken') });
  return obj({ _meta: metaIsOpen ? { ...m, additionalProperties: {} } : m }, [], { additionalProperties: {} });
}

/** Params of a notification with no parameters of its own. */
export const emptyNotificationParams = (): Schema => obj({ _meta: meta() }, [], { additionalProperties: {} });

/** Params of the paginated list requests. */
export const cursorParams = (): Schema => obj({ cursor: str() });

/** The annotations object (inline in 2024-11-05, a definition of its own later). */
export const annotationsObj = (): Schema => obj({ audience: arr(ref('Role')), priority: unit() });

const listResult = (key: string, item: string): Schema =>
  obj({ _meta: meta(), nextCursor: str(), [key]: arr(ref(item)) }, [key]);

/** The input schema of a tool (the object-shaped JSON Schema subset). */
export const toolInputSchema = (): Schema =>
  obj({ properties: record(openObj()), required: strs(), type: lit('object') }, ['type']);

export function defs20241105(): Defs {
  return {
    ...commonDefs(),

    // ---- JSON-RPC ----
    JSONRPCRequest: obj({ id: ref('RequestId'), jsonrpc: JSONRPC(), method: str(), params: progressParams(false) }, [
      'id',
      'jsonrpc',
      'method',
    ]),
    JSONRPCNotification: obj({ jsonrpc: JSONRPC(), method: str(), params: emptyNotificationParams() }, [
      'jsonrpc',
      'method',
    ]),
    JSONRPCResponse: obj({ id: ref('RequestId'), jsonrpc: JSONRPC(), result: ref('Result') }, [
      'id',
      'jsonrpc',
      'result',
    ]),
    JSONRPCError: obj(
      {
        error: obj({ code: int(), data: any(), message: str() }, ['code', 'message']),
        id: ref('RequestId'),
        jsonrpc: JSONRPC(),
      },
      ['error', 'id', 'jsonrpc'],
    ),
    JSONRPCMessage: union('JSONRPCRequest', 'JSONRPCNotification', 'JSONRPCResponse', 'JSONRPCError'),

    // ---- base message shapes ----
    Request: obj({ method: str(), params: progressParams(false) }, ['method']),
    Notification: obj({ method: str(), params: emptyNotificationParams() }, ['method']),
    Result: obj({ _meta: meta() }, [], { additionalProperties: {} }),
    EmptyResult: ref('Result'),
    PaginatedRequest: obj({ method: str(), params: cursorParams() }, ['method']),
    PaginatedResult: obj({ _meta: meta(), nextCursor: str() }),

    // ---- lifecycle ----
    Implementation: obj({ name: str(), version: str() }, ['name', 'version']),
    ClientCapabilities: obj({
      experimental: record(openObj()),
      roots: obj({ listChanged: bool() }),
      sampling: openObj(),
    }),
    ServerCapabilities: obj({
      experimental: record(openObj()),
      logging: openObj(),
      prompts: obj({ listChanged: bool() }),
      resources: obj({ listChanged: bool(), subscribe: bool() }),
      tools: obj({ listChanged: bool() }),
    }),
    InitializeRequest: legacyRequest(
      'initialize',
      obj({ capabilities: ref('ClientCapabilities'), clientInfo: ref('Implementation'), protocolVersion: str() }, [
        'capabilities',
        'clientInfo',
        'protocolVersion',
      ]),
      true,
    ),
    InitializeResult: obj(
      {
        _meta: meta(),
        capabilities: ref('ServerCapabilities'),
        instructions: str(),
        protocolVersion: str(),
        serverInfo: ref('Implementation'),
      },
      ['capabilities', 'protocolVersion', 'serverInfo'],
    ),
    InitializedNotification: legacyNotification('notifications/initialized', emptyNotificationParams(), false),
    PingRequest: legacyRequest('ping', progressParams(false), false),

    // ---- utilities ----
    CancelledNotification: legacyNotification(
      'notifications/cancelled',
      obj({ reason: str(), requestId: ref('RequestId') }, ['requestId']),
      true,
    ),
    ProgressNotification: legacyNotification(
      'notifications/progress',
      obj({ progress: num(), progressToken: ref('ProgressToken'), total: num() }, ['progress', 'progressToken']),
      true,
    ),
    SetLevelRequest: legacyRequest('logging/setLevel', obj({ level: ref('LoggingLevel') }, ['level']), true),
    LoggingMessageNotification: legacyNotification(
      'notifications/message',
      obj({ data: any(), level: ref('LoggingLevel'), logger: str() }, ['data', 'level']),
      true,
    ),

    // ---- content ----
    Annotated: obj({ annotations: annotationsObj() }),
    TextContent: obj({ annotations: annotationsObj(), text: str(), type: lit('text') }, ['text', 'type']),
    ImageContent: obj({ annotations: annotationsObj(), data: fmt('byte'), mimeType: str(), type: lit('image') }, [
      'data',
      'mimeType',
      'type',
    ]),
    EmbeddedResource: obj(
      {
        annotations: annotationsObj(),
        resource: union('TextResourceContents', 'BlobResourceContents'),
        type: lit('resource'),
      },
      ['resource', 'type'],
    ),

    // ---- resources ----
    Resource: obj(
      { annotations: annotationsObj(), description: str(), mimeType: str(), name: str(), size: int(), uri: uri() },
      ['name', 'uri'],
    ),
    ResourceTemplate: obj(
      {
        annotations: annotationsObj(),
        description: str(),
        mimeType: str(),
        name: str(),
        uriTemplate: fmt('uri-template'),
      },
      ['name', 'uriTemplate'],
    ),
    ResourceContents: obj({ mimeType: str(), uri: uri() }, ['uri']),
    TextResourceContents: obj({ mimeType: str(), text: str(), uri: uri() }, ['text', 'uri']),
    BlobResourceContents: obj({ blob: fmt('byte'), mimeType: str(), uri: uri() }, ['blob', 'uri']),
    ListResourcesRequest: legacyRequest('resources/list', cursorParams(), false),
    ListResourcesResult: listResult('resources', 'Resource'),
    ListResourceTemplatesRequest: legacyRequest('resources/templates/list', cursorParams(), false),
    ListResourceTemplatesResult: listResult('resourceTemplates', 'ResourceTemplate'),
    ReadResourceRequest: legacyRequest('resources/read', obj({ uri: uri() }, ['uri']), true),
    ReadResourceResult: obj({ _meta: meta(), contents: arr(union('TextResourceContents', 'BlobResourceContents')) }, [
      'contents',
    ]),
    SubscribeRequest: legacyRequest('resources/subscribe', obj({ uri: uri() }, ['uri']), true),
    UnsubscribeRequest: legacyRequest('resources/unsubscribe', obj({ uri: uri() }, ['uri']), true),
    ResourceListChangedNotification: legacyNotification(
      'notifications/resources/list_changed',
      emptyNotificationParams(),
      false,
    ),
    ResourceUpdatedNotification: legacyNotification(
      'notifications/resources/updated',
      obj({ uri: uri() }, ['uri']),
      true,
    ),

    // ---- prompts ----
    Prompt: obj({ arguments: arr(ref('PromptArgument')), description: str(), name: str() }, ['name']),
    PromptArgument: obj({ description: str(), name: str(), required: bool() }, ['name']),
    PromptMessage: obj({ content: union('TextContent', 'ImageContent', 'EmbeddedResource'), role: ref('Role') }, [
      'content',
      'role',
    ]),
    ListPromptsRequest: legacyRequest('prompts/list', cursorParams(), false),
    ListPromptsResult: listResult('prompts', 'Prompt'),
    GetPromptRequest: legacyRequest('prompts/get', obj({ arguments: record(str()), name: str() }, ['name']), true),
    GetPromptResult: obj({ _meta: meta(), description: str(), messages: arr(ref('PromptMessage')) }, ['messages']),
    PromptListChangedNotification: legacyNotification(
      'notifications/prompts/list_changed',
      emptyNotificationParams(),
      false,
    ),

    // ---- tools ----
    Tool: obj({ description: str(), inputSchema: toolInputSchema(), name: str() }, ['inputSchema', 'name']),
    ListToolsRequest: legacyRequest('tools/list', cursorParams(), false),
    ListToolsResult: listResult('tools', 'Tool'),
    CallToolRequest: legacyRequest('tools/call', obj({ arguments: anyRecord(), name: str() }, ['name']), true),
    CallToolResult: obj(
      {
        _meta: meta(),
        content: arr(union('TextContent', 'ImageContent', 'EmbeddedResource')),
        isError: bool(),
      },
      ['content'],
    ),
    ToolListChangedNotification: legacyNotification(
      'notifications/tools/list_changed',
      emptyNotificationParams(),
      false,
    ),

    // ---- completion ----
    PromptReference: obj({ name: str(), type: lit('ref/prompt') }, ['name', 'type']),
    ResourceReference: obj({ type: lit('ref/resource'), uri: fmt('uri-template') }, ['type', 'uri']),
    CompleteRequest: legacyRequest(
      'completion/complete',
      obj(
        {
          argument: obj({ name: str(), value: str() }, ['name', 'value']),
          ref: union('PromptReference', 'ResourceReference'),
        },
        ['argument', 'ref'],
      ),
      true,
    ),
    CompleteResult: obj(
      {
        _meta: meta(),
        completion: obj({ hasMore: bool(), total: int(), values: strs() }, ['values']),
      },
      ['completion'],
    ),

    // ---- sampling ----
    SamplingMessage: obj({ content: union('TextContent', 'ImageContent'), role: ref('Role') }, ['content', 'role']),
    CreateMessageRequest: legacyRequest(
      'sampling/createMessage',
      obj(
        {
          includeContext: oneOfStr('allServers', 'none', 'thisServer'),
          maxTokens: int(),
          messages: arr(ref('SamplingMessage')),
          metadata: openObj(),
          modelPreferences: ref('ModelPreferences'),
          stopSequences: strs(),
          systemPrompt: str(),
          temperature: num(),
        },
        ['maxTokens', 'messages'],
      ),
      true,
    ),
    CreateMessageResult: obj(
      {
        _meta: meta(),
        content: union('TextContent', 'ImageContent'),
        model: str(),
        role: ref('Role'),
        stopReason: str(),
      },
      ['content', 'model', 'role'],
    ),

    // ---- roots ----
    Root: obj({ name: str(), uri: uri() }, ['uri']),
    ListRootsRequest: legacyRequest('roots/list', progressParams(false), false),
    ListRootsResult: obj({ _meta: meta(), roots: arr(ref('Root')) }, ['roots']),
    RootsListChangedNotification: legacyNotification(
      'notifications/roots/list_changed',
      emptyNotificationParams(),
      false,
    ),

    // ---- unions by direction ----
    ClientRequest: union(
      'InitializeRequest',
      'PingRequest',
      'ListResourcesRequest',
      'ListResourceTemplatesRequest',
      'ReadResourceRequest',
      'SubscribeRequest',
      'UnsubscribeRequest',
      'ListPromptsRequest',
      'GetPromptRequest',
      'ListToolsRequest',
      'CallToolRequest',
      'SetLevelRequest',
      'CompleteRequest',
    ),
    ClientNotification: union(
      'CancelledNotification',
      'InitializedNotification',
      'ProgressNotification',
      'RootsListChangedNotification',
    ),
    ClientResult: union('Result', 'CreateMessageResult', 'ListRootsResult'),
    ServerRequest: union('PingRequest', 'CreateMessageRequest', 'ListRootsRequest'),
    ServerNotification: union(
      'CancelledNotification',
      'ProgressNotification',
      'ResourceListChangedNotification',
      'ResourceUpdatedNotification',
      'PromptListChangedNotification',
      'ToolListChangedNotification',
      'LoggingMessageNotification',
    ),
    ServerResult: union(
      'Result',
      'InitializeResult',
      'ListResourcesResult',
      'ListResourceTemplatesResult',
      'ReadResourceResult',
      'ListPromptsResult',
      'GetPromptResult',
      'ListToolsResult',
      'CallToolResult',
      'CompleteResult',
    ),
  };
}
