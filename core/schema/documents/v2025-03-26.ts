/**
 * MCP 2025-03-26, derived from 2024-11-05: audio content, JSON-RPC batches, tool annotations, the
 * `Annotations` definition (replacing `Annotated`), progress messages and the `completions` capability.
 */
import {
  type Defs,
  type Schema,
  arr,
  bool,
  fmt,
  lit,
  modify,
  obj,
  openObj,
  prop,
  ref,
  remove,
  str,
  union,
  withProps,
} from './base.js';
import { annotationsObj, defs20241105 } from './v2024-11-05.js';

export function defs20250326(): Defs {
  const d = defs20241105();

  remove(d, 'Annotated');
  d.Annotations = annotationsObj();
  modify(d, ['TextContent', 'ImageContent', 'EmbeddedResource', 'Resource', 'ResourceTemplate'], (x) =>
    withProps(x, { annotations: ref('Annotations') }),
  );
  d.AudioContent = obj({ annotations: ref('Annotations'), data: fmt('byte'), mimeType: str(), type: lit('audio') }, [
    'data',
    'mimeType',
    'type',
  ]);

  // audio joins the content unions
  d.CallToolResult = withProps(d.CallToolResult, {
    content: arr(union('TextContent', 'ImageContent', 'AudioContent', 'EmbeddedResource')),
  });
  d.PromptMessage = withProps(d.PromptMessage, {
    content: union('TextContent', 'ImageContent', 'AudioContent', 'EmbeddedResource'),
  });
  modify(d, ['CreateMessageResult', 'SamplingMessage'], (x) =>
    withProps(x, { content: union('TextContent', 'ImageContent', 'AudioContent') }),
  );

  // JSON-RPC batches
  const batchRequest = (): Schema => arr(union('JSONRPCRequest', 'JSONRPCNotification'));
  const batchResponse = (): Schema => arr(union('JSONRPCResponse', 'JSONRPCError'));
  d.JSONRPCBatchRequest = batchRequest();
  d.JSONRPCBatchResponse = batchResponse();
  d.JSONRPCMessage = {
    anyOf: [
      ref('JSONRPCRequest'),
      ref('JSONRPCNotification'),
      batchRequest(),
      ref('JSONRPCResponse'),
      ref('JSONRPCError'),
      batchResponse(),
    ],
  };

  d.ProgressNotification = withProps(d.ProgressNotification, {
    params: withProps(prop(d.ProgressNotification, 'params'), { message: str() }),
  });
  d.ServerCapabilities = withProps(d.ServerCapabilities, { completions: openObj() });

  d.ToolAnnotations = obj({
    destructiveHint: bool(),
    idempotentHint: bool(),
    openWorldHint: bool(),
    readOnlyHint: bool(),
    title: str(),
  });
  d.Tool = withProps(d.Tool, { annotations: ref('ToolAnnotations') });

  return d;
}
