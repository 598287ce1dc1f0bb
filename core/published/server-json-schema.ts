/**
 * The MCP registry's server.json format, version 2025-12-11 (the current published one:
 * https://static.modelcontextprotocol.io/schemas/2025-12-11/server.schema.json), as a JSON Schema written here
 * from the format's facts: which fields there are, which are required, their types, patterns and bounds. Used by
 * `run --server-json` to check the file (case registry/server-json) before it starts the server the file describes.
 */
export const SERVER_JSON_SCHEMA_VERSION = '2025-12-11';
export const SERVER_JSON_SCHEMA_URL = `https://static.modelcontextprotocol.io/schemas/${SERVER_JSON_SCHEMA_VERSION}/server.schema.json`;

const str = { type: 'string' };
const flag = { type: 'boolean' };
const httpUrl = { type: 'string', pattern: '^https?://[^\\s]+$' };
const ref = (name: string) => ({ $ref: `#/definitions/${name}` });

export const serverJsonSchema = {
  $schema: 'http://json-schema.org/draft-07/schema#',
  $id: 'mcp-conform:server.json/2025-12-11',
  definitions: {
    /** An input a client fills in (an argument's, a header's or a variable's value). */
    input: {
      type: 'object',
      properties: {
        description: str,
        isRequired: flag,
        isSecret: flag,
        value: str,
        default: str,
        placeholder: str,
        format: { type: 'string', enum: ['string', 'number', 'boolean', 'filepath'] },
        choices: { type: 'array', items: str },
      },
    },
    /** An input whose value may hold {placeholders} filled from its variables. */
    inputWithVariables: {
      allOf: [
        ref('input'),
        { type: 'object', properties: { variables: { type: 'object', additionalProperties: ref('input') } } },
      ],
    },
    /** A header or an environment variable: a name and an input. */
    keyValue: { allOf: [ref('inputWithVariables'), { type: 'object', required: ['name'], properties: { name: str } }] },
    positional: {
      allOf: [
        ref('inputWithVariables'),
        {
          type: 'object',
          required: ['type'],
          anyOf: [{ required: ['valueHint'] }, { required: ['value'] }],
          properties: { type: { type: 'string', enum: ['positional'] }, valueHint: str, isRepeated: flag },
        },
      ],
    },
    named: {
      allOf: [
        ref('inputWithVariables'),
        {
          type: 'object',
          required: ['type', 'name'],
          properties: { type: { type: 'string', enum: ['named'] }, name: str, isRepeated: flag },
        },
      ],
    },
    argument: { anyOf: [ref('positional'), ref('named')] },
    stdio: { type: 'object', required: ['type'], properties: { type: { type: 'string', enum: ['stdio'] } } },
    streamableHttp: {
      type: 'object',
      required: ['type', 'url'],
      properties: {
        type: { type: 'string', enum: ['streamable-http'] },
        url: httpUrl,
        headers: { type: 'array', items: ref('keyValue') },
      },
    },
    sse: {
      type: 'object',
      required: ['type', 'url'],
      properties: {
        type: { type: 'string', enum: ['sse'] },
        url: httpUrl,
        headers: { type: 'array', items: ref('keyValue') },
      },
    },
    package: {
      type: 'object',
      required: ['registryType', 'identifier', 'transport'],
      properties: {
        registryType: str,
        registryBaseUrl: { type: 'string', format: 'uri' },
        identifier: str,
        version: { type: 'string', minLength: 1, not: { const: 'latest' } },
        fileSha256: { type: 'string', pattern: '^[a-f0-9]{64}$' },
        runtimeHint: str,
        transport: { anyOf: [ref('stdio'), ref('streamableHttp'), ref('sse')] },
        runtimeArguments: { type: 'array', items: ref('argument') },
        packageArguments: { type: 'array', items: ref('argument') },
        environmentVariables: { type: 'array', items: ref('keyValue') },
      },
    },
    remote: {
      allOf: [
        { anyOf: [ref('streamableHttp'), ref('sse')] },
        { type: 'object', properties: { variables: { type: 'object', additionalProperties: ref('input') } } },
      ],
    },
    icon: {
      type: 'object',
      required: ['src'],
      properties: {
        src: { type: 'string', format: 'uri', maxLength: 255 },
        mimeType: { type: 'string', enum: ['image/png', 'image/jpeg', 'image/jpg', 'image/svg+xml', 'image/webp'] },
        sizes: { type: 'array', items: { type: 'string', pattern: '^(\\d+x\\d+|any)$' } },
        theme: { type: 'string', enum: ['light', 'dark'] },
      },
    },
  },
  type: 'object',
  required: ['name', 'description', 'version'],
  properties: {
    $schema: { type: 'string', format: 'uri' },
    name: { type: 'string', minLength: 3, maxLength: 200, pattern: '^[a-zA-Z0-9.-]+/[a-zA-Z0-9._-]+$' },
    title: { type: 'string', minLength: 1, maxLength: 100 },
    description: { type: 'string', minLength: 1, maxLength: 100 },
    version: { type: 'string', maxLength: 255 },
    websiteUrl: { type: 'string', format: 'uri' },
    repository: {
      type: 'object',
      required: ['url', 'source'],
      properties: { url: { type: 'string', format: 'uri' }, source: str, id: str, subfolder: str },
    },
    icons: { type: 'array', items: ref('icon') },
    packages: { type: 'array', items: ref('package') },
    remotes: { type: 'array', items: ref('remote') },
    _meta: {
      type: 'object',
      properties: { 'io.modelcontextprotocol.registry/publisher-provided': { type: 'object' } },
    },
  },
};
