/**
 * MCP 2025-06-18, derived from 2025-03-26: elicitation, resource links and the ContentBlock union,
 * structured tool output, `title`s (BaseMetadata) and `_meta` on most entities; JSON-RPC batches removed;
 * ResourceReference renamed ResourceTemplateReference.
 */
import {
  type Defs,
  type Schema,
  anyRecord,
  arr,
  bool,
  fmt,
  int,
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
  withProps,
} from './base.js';
import { defs20250326 } from './v2025-03-26.js';
import { legacyRequest, progressParams, toolInputSchema } from './v2024-11-05.js';

/** The schema a form elicitation asks for: a flat object of primitive-typed properties. */
export const requestedSchema = (): Schema =>
  obj({ properties: record(ref('PrimitiveSchemaDefinition')), required: strs(), type: lit('object') }, [
    'properties',
    'type',
  ]);

/** Property schemas of an elicitation form (2025-06-18 shapes). */
export function primitiveSchemaDefs(): Defs {
  return {
    StringSchema: obj(
      {
        description: str(),
        format: oneOfStr('date', 'date-time', 'email', 'uri'),
        maxLength: int(),
        minLength: int(),
        title: str(),
        type: lit('string'),
      },
      ['type'],
    ),
    NumberSchema: obj(
      { description: str(), maximum: num(), minimum: num(), title: str(), type: oneOfStr('integer', 'number') },
      ['type'],
    ),
    BooleanSchema: obj({ default: bool(), description: str(), title: str(), type: lit('boolean') }, ['type']),
    EnumSchema: obj({ description: str(), enum: strs(), enumNames: strs(), title: str(), type: lit('string') }, [
      'enum',
      'type',
    ]),
    PrimitiveSchemaDefinition: union('StringSchema', 'NumberSchema', 'BooleanSchema', 'EnumSchema'),
  };
}

export function defs20250618(): Defs {
  const d = defs20250326();

  remove(d, 'JSONRPCBatchRequest', 'JSONRPCBatchResponse', 'ResourceReference');
  d.JSONRPCMessage = union('JSONRPCRequest', 'JSONRPCNotification', 'JSONRPCResponse', 'JSONRPCError');

  // `_meta` of request params is now an open object
  modify(d, ['JSONRPCRequest', 'Request', 'PingRequest', 'ListRootsRequest'], (x) =>
    withProps(x, { params: progressParams(true) }),
  );

  // `_meta` and `title` on entities
  modify(
    d,
    [
      'AudioContent',
      'BlobResourceContents',
      'EmbeddedResource',
      'ImageContent',
      'Prompt',
      'Resource',
      'ResourceContents',
      'ResourceTemplate',
      'Root',
      'TextContent',
      'TextResourceContents',
      'Tool',
    ],
    (x) => withProps(x, { _meta: meta() }),
  );
  modify(
    d,
    ['Implementation', 'Prompt', 'PromptArgument', 'PromptReference', 'Resource', 'ResourceTemplate', 'Tool'],
    (x) => withProps(x, { title: str() }),
  );
  d.BaseMetadata = obj({ name: str(), title: str() }, ['name']);
  d.Annotations = withProps(d.Annotations, { lastModified: str() });

  // content blocks and resource links
  d.ResourceLink = withProps(d.Resource, { type: lit('resource_link') }, ['type']);
  d.ContentBlock = union('TextContent', 'ImageContent', 'AudioContent', 'ResourceLink', 'EmbeddedResource');
  d.PromptMessage = withProps(d.PromptMessage, { content: ref('ContentBlock') });

  // tools: structured output
  d.CallToolResult = withProps(d.CallToolResult, { content: arr(ref('ContentBlock')), structuredContent: anyRecord() });
  d.Tool = withProps(d.Tool, { outputSchema: toolInputSchema() });

  // completion: context, and the renamed template reference
  d.ResourceTemplateReference = obj({ type: lit('ref/resource'), uri: fmt('uri-template') }, ['type', 'uri']);
  const completeParams = prop(d.CompleteRequest, 'params');
  d.CompleteRequest = withProps(d.CompleteRequest, {
    params: withProps(completeParams, {
      context: obj({ arguments: record(str()) }),
      ref: union('PromptReference', 'ResourceTemplateReference'),
    }),
  });

  // elicitation
  Object.assign(d, primitiveSchemaDefs());
  d.ElicitRequest = legacyRequest(
    'elicitation/create',
    obj({ message: str(), requestedSchema: requestedSchema() }, ['message', 'requestedSchema']),
    true,
  );
  d.ElicitResult = obj(
    {
      _meta: meta(),
      action: oneOfStr('accept', 'cancel', 'decline'),
      content: record(types('string', 'integer', 'boolean')),
    },
    ['action'],
  );
  d.ClientCapabilities = withProps(d.ClientCapabilities, { elicitation: openObj() });
  d.ClientResult = union('Result', 'CreateMessageResult', 'ListRootsResult', 'ElicitResult');
  d.ServerRequest = union('PingRequest', 'CreateMessageRequest', 'ListRootsRequest', 'ElicitRequest');

  return d;
}
