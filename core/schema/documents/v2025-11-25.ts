/**
 * MCP 2025-11-25, derived from 2025-06-18 (and written in JSON Schema 2020-12).
 *
 * - Every request and notification now carries its JSON-RPC envelope (`jsonrpc`, and `id` for requests),
 *   and the params of most messages became definitions of their own (`...RequestParams`, `...NotificationParams`).
 * - JSONRPCResponse is now the union of JSONRPCResultResponse and JSONRPCErrorResponse (the old JSONRPCError);
 *   the error response's `id` is optional.
 * - Tasks (tasks/get, tasks/result, tasks/cancel, tasks/list, task-augmented requests, status notifications).
 * - Sampling with tools (ToolUseContent, ToolResultContent, ToolChoice, content arrays).
 * - URL-mode elicitation, the enum schema family, defaults in form fields.
 * - Icons on implementations, prompts, resources and tools; tool execution hints.
 */
import {
  type Defs,
  type Schema,
  JSONRPC,
  allOf,
  anyOf,
  anyRecord,
  arr,
  bool,
  int,
  intLit,
  lit,
  meta,
  modify,
  num,
  obj,
  oneOfStr,
  openObj,
  prop,
  record,
  ref,
  remove,
  str,
  strs,
  types,
  union,
  uri,
  withProps,
  withRequired,
} from './base.js';
import { defs20250618, requestedSchema } from './v2025-06-18.js';

// ---- builders for the enveloped message style of 2025-11-25 and later ------------------------------------

/** A request with its envelope: `{ jsonrpc, id, method, params }`, `params` given as a schema or a definition name. */
export function rpcRequest(method: string, params: string | Schema, paramsRequired: boolean): Schema {
  return obj(
    {
      id: ref('RequestId'),
      jsonrpc: JSONRPC(),
      method: lit(method),
      params: typeof params === 'string' ? ref(params) : params,
    },
    paramsRequired ? ['id', 'jsonrpc', 'method', 'params'] : ['id', 'jsonrpc', 'method'],
  );
}

/** A notification with its envelope: `{ jsonrpc, method, params }`. */
export function rpcNotification(method: string, params: string | Schema, paramsRequired: boolean): Schema {
  return obj(
    { jsonrpc: JSONRPC(), method: lit(method), params: typeof params === 'string' ? ref(params) : params },
    paramsRequired ? ['jsonrpc', 'method', 'params'] : ['jsonrpc', 'method'],
  );
}

/** `_meta` of request params: open, with the optional progress token. */
const requestMeta = (): Schema => obj({ progressToken: ref('ProgressToken') }, [], { additionalProperties: {} });

/** Request params: `_meta` plus the given properties. */
const requestParams = (props: { [name: string]: Schema } = {}, required: string[] = []): Schema =>
  obj({ _meta: requestMeta(), ...props }, required);

/** Notification params: `_meta` plus the given properties. */
const notificationParams = (props: { [name: string]: Schema } = {}, required: string[] = []): Schema =>
  obj({ _meta: meta(), ...props }, required);

const taskIdParams = (): Schema => obj({ taskId: str() }, ['taskId']);
const flag = openObj;

/** The JSON Schema of a tool's input or output (2025-11-25 adds `$schema`). */
const toolSchema = (): Schema =>
  obj({ $schema: str(), properties: record(openObj()), required: strs(), type: lit('object') }, ['type']);

/** Content of a sampling message or result: one block or an array of blocks. */
const samplingContent = (): Schema =>
  anyOf(
    ref('TextContent'),
    ref('ImageContent'),
    ref('AudioContent'),
    ref('ToolUseContent'),
    ref('ToolResultContent'),
    arr(ref('SamplingMessageContentBlock')),
  );

/** The common fields of the form-field schemas. */
const fieldBase = (): { [name: string]: Schema } => ({ description: str(), title: str() });
const titledOption = (): Schema => obj({ const: str(), title: str() }, ['const', 'title']);

function elicitationDefs(): Defs {
  return {
    StringSchema: obj(
      {
        ...fieldBase(),
        default: str(),
        format: oneOfStr('date', 'date-time', 'email', 'uri'),
        maxLength: int(),
        minLength: int(),
        type: lit('string'),
      },
      ['type'],
    ),
    NumberSchema: obj(
      { ...fieldBase(), default: num(), maximum: num(), minimum: num(), type: oneOfStr('integer', 'number') },
      ['type'],
    ),
    UntitledSingleSelectEnumSchema: obj({ ...fieldBase(), default: str(), enum: strs(), type: lit('string') }, [
      'enum',
      'type',
    ]),
    TitledSingleSelectEnumSchema: obj(
      { ...fieldBase(), default: str(), oneOf: arr(titledOption()), type: lit('string') },
      ['oneOf', 'type'],
    ),
    UntitledMultiSelectEnumSchema: obj(
      {
        ...fieldBase(),
        default: strs(),
        items: obj({ enum: strs(), type: lit('string') }, ['enum', 'type']),
        maxItems: int(),
        minItems: int(),
        type: lit('array'),
      },
      ['items', 'type'],
    ),
    TitledMultiSelectEnumSchema: obj(
      {
        ...fieldBase(),
        default: strs(),
        items: obj({ anyOf: arr(titledOption()) }, ['anyOf']),
        maxItems: int(),
        minItems: int(),
        type: lit('array'),
      },
      ['items', 'type'],
    ),
    LegacyTitledEnumSchema: obj(
      { ...fieldBase(), default: str(), enum: strs(), enumNames: strs(), type: lit('string') },
      ['enum', 'type'],
    ),
    SingleSelectEnumSchema: union('UntitledSingleSelectEnumSchema', 'TitledSingleSelectEnumSchema'),
    MultiSelectEnumSchema: union('UntitledMultiSelectEnumSchema', 'TitledMultiSelectEnumSchema'),
    EnumSchema: union(
      'UntitledSingleSelectEnumSchema',
      'TitledSingleSelectEnumSchema',
      'UntitledMultiSelectEnumSchema',
      'TitledMultiSelectEnumSchema',
      'LegacyTitledEnumSchema',
    ),
    PrimitiveSchemaDefinition: union(
      'StringSchema',
      'NumberSchema',
      'BooleanSchema',
      'UntitledSingleSelectEnumSchema',
      'TitledSingleSelectEnumSchema',
      'UntitledMultiSelectEnumSchema',
      'TitledMultiSelectEnumSchema',
      'LegacyTitledEnumSchema',
    ),
  };
}

export function defs20251125(): Defs {
  const prev = defs20250618();
  const d: Defs = { ...prev };

  // ---- JSON-RPC and base shapes ----
  remove(d, 'JSONRPCError');
  Object.assign(d, {
    JSONRPCRequest: obj({ id: ref('RequestId'), jsonrpc: JSONRPC(), method: str(), params: anyRecord() }, [
      'id',
      'jsonrpc',
      'method',
    ]),
    JSONRPCNotification: obj({ jsonrpc: JSONRPC(), method: str(), params: anyRecord() }, ['jsonrpc', 'method']),
    JSONRPCResultResponse: prev.JSONRPCResponse,
    Error: obj({ code: int(), data: {}, message: str() }, ['code', 'message']),
    JSONRPCErrorResponse: obj({ error: ref('Error'), id: ref('RequestId'), jsonrpc: JSONRPC() }, ['error', 'jsonrpc']),
    JSONRPCResponse: union('JSONRPCResultResponse', 'JSONRPCErrorResponse'),
    JSONRPCMessage: union('JSONRPCRequest', 'JSONRPCNotification', 'JSONRPCResultResponse', 'JSONRPCErrorResponse'),
    Request: obj({ method: str(), params: anyRecord() }, ['method']),
    Notification: obj({ method: str(), params: anyRecord() }, ['method']),
    PaginatedRequest: obj(
      { id: ref('RequestId'), jsonrpc: JSONRPC(), method: str(), params: ref('PaginatedRequestParams') },
      ['id', 'jsonrpc', 'method'],
    ),
    RequestParams: requestParams(),
    NotificationParams: notificationParams(),
    PaginatedRequestParams: requestParams({ cursor: str() }),
    TaskAugmentedRequestParams: requestParams({ task: ref('TaskMetadata') }),
  });

  // ---- lifecycle ----
  d.Icon = obj({ mimeType: str(), sizes: strs(), src: uri(), theme: oneOfStr('dark', 'light') }, ['src']);
  d.Icons = obj({ icons: arr(ref('Icon')) });
  d.Implementation = withProps(d.Implementation, { description: str(), icons: arr(ref('Icon')), websiteUrl: uri() });
  d.ClientCapabilities = withProps(d.ClientCapabilities, {
    elicitation: obj({ form: flag(), url: flag() }),
    sampling: obj({ context: flag(), tools: flag() }),
    tasks: obj({
      cancel: flag(),
      list: flag(),
      requests: obj({
        elicitation: obj({ create: flag() }),
        sampling: obj({ createMessage: flag() }),
      }),
    }),
  });
  d.ServerCapabilities = withProps(d.ServerCapabilities, {
    tasks: obj({ cancel: flag(), list: flag(), requests: obj({ tools: obj({ call: flag() }) }) }),
  });
  d.InitializeRequestParams = requestParams(
    { capabilities: ref('ClientCapabilities'), clientInfo: ref('Implementation'), protocolVersion: str() },
    ['capabilities', 'clientInfo', 'protocolVersion'],
  );
  d.InitializeRequest = rpcRequest('initialize', 'InitializeRequestParams', true);
  d.InitializedNotification = rpcNotification('notifications/initialized', 'NotificationParams', false);
  d.PingRequest = rpcRequest('ping', 'RequestParams', false);

  // ---- utilities ----
  d.CancelledNotificationParams = notificationParams({ reason: str(), requestId: ref('RequestId') });
  d.CancelledNotification = rpcNotification('notifications/cancelled', 'CancelledNotificationParams', true);
  d.ProgressNotificationParams = notificationParams(
    { message: str(), progress: num(), progressToken: ref('ProgressToken'), total: num() },
    ['progress', 'progressToken'],
  );
  d.ProgressNotification = rpcNotification('notifications/progress', 'ProgressNotificationParams', true);
  d.SetLevelRequestParams = requestParams({ level: ref('LoggingLevel') }, ['level']);
  d.SetLevelRequest = rpcRequest('logging/setLevel', 'SetLevelRequestParams', true);
  d.LoggingMessageNotificationParams = notificationParams({ data: {}, level: ref('LoggingLevel'), logger: str() }, [
    'data',
    'level',
  ]);
  d.LoggingMessageNotification = rpcNotification('notifications/message', 'LoggingMessageNotificationParams', true);

  // ---- icons on entities ----
  modify(d, ['Prompt', 'Resource', 'ResourceLink', 'ResourceTemplate', 'Tool'], (x) =>
    withProps(x, { icons: arr(ref('Icon')) }),
  );

  // ---- resources ----
  const uriParams = (): Schema => requestParams({ uri: uri() }, ['uri']);
  d.ResourceRequestParams = uriParams();
  d.ReadResourceRequestParams = uriParams();
  d.SubscribeRequestParams = uriParams();
  d.UnsubscribeRequestParams = uriParams();
  d.ListResourcesRequest = rpcRequest('resources/list', 'PaginatedRequestParams', false);
  d.ListResourceTemplatesRequest = rpcRequest('resources/templates/list', 'PaginatedRequestParams', false);
  d.ReadResourceRequest = rpcRequest('resources/read', 'ReadResourceRequestParams', true);
  d.SubscribeRequest = rpcRequest('resources/subscribe', 'SubscribeRequestParams', true);
  d.UnsubscribeRequest = rpcRequest('resources/unsubscribe', 'UnsubscribeRequestParams', true);
  d.ResourceListChangedNotification = rpcNotification(
    'notifications/resources/list_changed',
    'NotificationParams',
    false,
  );
  d.ResourceUpdatedNotificationParams = notificationParams({ uri: uri() }, ['uri']);
  d.ResourceUpdatedNotification = rpcNotification(
    'notifications/resources/updated',
    'ResourceUpdatedNotificationParams',
    true,
  );

  // ---- prompts ----
  d.ListPromptsRequest = rpcRequest('prompts/list', 'PaginatedRequestParams', false);
  d.GetPromptRequestParams = requestParams({ arguments: record(str()), name: str() }, ['name']);
  d.GetPromptRequest = rpcRequest('prompts/get', 'GetPromptRequestParams', true);
  d.PromptListChangedNotification = rpcNotification('notifications/prompts/list_changed', 'NotificationParams', false);

  // ---- tools ----
  d.ToolExecution = obj({ taskSupport: oneOfStr('forbidden', 'optional', 'required') });
  d.Tool = withProps(d.Tool, {
    execution: ref('ToolExecution'),
    inputSchema: toolSchema(),
    outputSchema: toolSchema(),
  });
  d.ListToolsRequest = rpcRequest('tools/list', 'PaginatedRequestParams', false);
  d.CallToolRequestParams = requestParams({ arguments: anyRecord(), name: str(), task: ref('TaskMetadata') }, ['name']);
  d.CallToolRequest = rpcRequest('tools/call', 'CallToolRequestParams', true);
  d.ToolListChangedNotification = rpcNotification('notifications/tools/list_changed', 'NotificationParams', false);

  // ---- completion ----
  d.CompleteRequestParams = requestParams(
    {
      argument: obj({ name: str(), value: str() }, ['name', 'value']),
      context: obj({ arguments: record(str()) }),
      ref: union('PromptReference', 'ResourceTemplateReference'),
    },
    ['argument', 'ref'],
  );
  d.CompleteRequest = rpcRequest('completion/complete', 'CompleteRequestParams', true);

  // ---- sampling (with tools) ----
  d.ToolUseContent = obj({ _meta: meta(), id: str(), input: anyRecord(), name: str(), type: lit('tool_use') }, [
    'id',
    'input',
    'name',
    'type',
  ]);
  d.ToolResultContent = obj(
    {
      _meta: meta(),
      content: arr(ref('ContentBlock')),
      isError: bool(),
      structuredContent: anyRecord(),
      toolUseId: str(),
      type: lit('tool_result'),
    },
    ['content', 'toolUseId', 'type'],
  );
  d.SamplingMessageContentBlock = union(
    'TextContent',
    'ImageContent',
    'AudioContent',
    'ToolUseContent',
    'ToolResultContent',
  );
  d.SamplingMessage = withProps(d.SamplingMessage, { _meta: meta(), content: samplingContent() });
  d.CreateMessageResult = withProps(d.CreateMessageResult, { content: samplingContent() });
  d.ToolChoice = obj({ mode: oneOfStr('auto', 'none', 'required') });
  d.CreateMessageRequestParams = withProps(
    requestParams(),
    {
      ...(prop(prev.CreateMessageRequest, 'params').properties as { [name: string]: Schema }),
      task: ref('TaskMetadata'),
      toolChoice: ref('ToolChoice'),
      tools: arr(ref('Tool')),
    },
    ['maxTokens', 'messages'],
  );
  d.CreateMessageRequest = rpcRequest('sampling/createMessage', 'CreateMessageRequestParams', true);

  // ---- roots ----
  d.ListRootsRequest = rpcRequest('roots/list', 'RequestParams', false);
  d.RootsListChangedNotification = rpcNotification('notifications/roots/list_changed', 'NotificationParams', false);

  // ---- elicitation (form and URL modes) ----
  Object.assign(d, elicitationDefs());
  d.ElicitRequestFormParams = requestParams(
    {
      message: str(),
      mode: lit('form'),
      requestedSchema: withProps(requestedSchema(), { $schema: str() }),
      task: ref('TaskMetadata'),
    },
    ['message', 'requestedSchema'],
  );
  d.ElicitRequestURLParams = requestParams(
    { elicitationId: str(), message: str(), mode: lit('url'), task: ref('TaskMetadata'), url: uri() },
    ['elicitationId', 'message', 'mode', 'url'],
  );
  d.ElicitRequestParams = union('ElicitRequestURLParams', 'ElicitRequestFormParams');
  d.ElicitRequest = rpcRequest('elicitation/create', 'ElicitRequestParams', true);
  d.ElicitResult = withProps(d.ElicitResult, {
    content: record(anyOf(strs(), types('string', 'integer', 'boolean'))),
  });
  d.ElicitationCompleteNotification = rpcNotification(
    'notifications/elicitation/complete',
    obj({ elicitationId: str() }, ['elicitationId']),
    true,
  );
  d.URLElicitationRequiredError = obj(
    {
      error: allOf(
        ref('Error'),
        obj(
          {
            code: intLit(-32042),
            data: obj({ elicitations: arr(ref('ElicitRequestURLParams')) }, ['elicitations'], {
              additionalProperties: {},
            }),
          },
          ['code', 'data'],
        ),
      ),
      id: ref('RequestId'),
      jsonrpc: JSONRPC(),
    },
    ['error', 'jsonrpc'],
  );

  // ---- tasks ----
  d.TaskStatus = oneOfStr('cancelled', 'completed', 'failed', 'input_required', 'working');
  d.Task = obj(
    {
      createdAt: str(),
      lastUpdatedAt: str(),
      pollInterval: int(),
      status: ref('TaskStatus'),
      statusMessage: str(),
      taskId: str(),
      ttl: types('integer', 'null'),
    },
    ['createdAt', 'lastUpdatedAt', 'status', 'taskId', 'ttl'],
  );
  d.TaskMetadata = obj({ ttl: int() });
  d.RelatedTaskMetadata = obj({ taskId: str() }, ['taskId']);
  d.CreateTaskResult = obj({ _meta: meta(), task: ref('Task') }, ['task']);
  d.GetTaskRequest = rpcRequest('tasks/get', taskIdParams(), true);
  d.GetTaskResult = allOf(ref('Result'), ref('Task'));
  d.GetTaskPayloadRequest = rpcRequest('tasks/result', taskIdParams(), true);
  d.GetTaskPayloadResult = prev.Result;
  d.CancelTaskRequest = rpcRequest('tasks/cancel', taskIdParams(), true);
  d.CancelTaskResult = allOf(ref('Result'), ref('Task'));
  d.ListTasksRequest = rpcRequest('tasks/list', 'PaginatedRequestParams', false);
  d.ListTasksResult = withRequired(withProps(d.PaginatedResult, { tasks: arr(ref('Task')) }), ['tasks']);
  d.TaskStatusNotificationParams = allOf(ref('NotificationParams'), ref('Task'));
  d.TaskStatusNotification = rpcNotification('notifications/tasks/status', 'TaskStatusNotificationParams', true);

  // ---- unions by direction ----
  d.ClientRequest = union(
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
    'GetTaskRequest',
    'GetTaskPayloadRequest',
    'CancelTaskRequest',
    'ListTasksRequest',
    'SetLevelRequest',
    'CompleteRequest',
  );
  d.ClientNotification = union(
    'CancelledNotification',
    'InitializedNotification',
    'ProgressNotification',
    'TaskStatusNotification',
    'RootsListChangedNotification',
  );
  d.ClientResult = union(
    'Result',
    'GetTaskResult',
    'GetTaskPayloadResult',
    'CancelTaskResult',
    'ListTasksResult',
    'CreateMessageResult',
    'ListRootsResult',
    'ElicitResult',
  );
  d.ServerRequest = union(
    'PingRequest',
    'GetTaskRequest',
    'GetTaskPayloadRequest',
    'CancelTaskRequest',
    'ListTasksRequest',
    'CreateMessageRequest',
    'ListRootsRequest',
    'ElicitRequest',
  );
  d.ServerNotification = union(
    'CancelledNotification',
    'ProgressNotification',
    'ResourceListChangedNotification',
    'ResourceUpdatedNotification',
    'PromptListChangedNotification',
    'ToolListChangedNotification',
    'TaskStatusNotification',
    'LoggingMessageNotification',
    'ElicitationCompleteNotification',
  );
  d.ServerResult = union(
    'Result',
    'InitializeResult',
    'ListResourcesResult',
    'ListResourceTemplatesResult',
    'ReadResourceResult',
    'ListPromptsResult',
    'GetPromptResult',
    'ListToolsResult',
    'CallToolResult',
    'GetTaskResult',
    'GetTaskPayloadResult',
    'CancelTaskResult',
    'ListTasksResult',
    'CompleteResult',
  );

  return d;
}
