/**
 * The provider rule table: what each model provider's tool configuration accepts, as data. Every rule names the
 * provider's own error wording where it is known, the sources it was checked against and the date of that check.
 * Rules change: RULES_VERSION is the date of the last review of the whole table; bump it (and the `checked` dates)
 * when a rule is re-checked. `mcp-conform list --rules` prints this table; docs/compat.md carries it (generated).
 *
 * kind: 'reject' — the provider refuses the whole request (every conversation with the server attached fails);
 *       'degrade' — a client or API variant drops the tool or changes it, or the sources disagree on rejection.
 * A rule whose sources disagree or that could not be confirmed says so in `note` and is a 'degrade' (warn, never
 * fail, even under --providers).
 */

export const RULES_VERSION = '2026-11-26';

export type ProviderId = 'openai' | 'anthropic' | 'bedrock' | 'gemini' | 'openai-strict' | 'gemini-json';

export interface Rule {
  id: string;
  /** What the rule demands, in plain words. */
  summary: string;
  kind: 'reject' | 'degrade';
  /** The provider's error message as users reported it; {tool}, {index}, {path}, {key}, {value}, {count} are filled in. */
  wording?: string;
  sources: string[];
  checked: string;
  note?: string;
}

export interface Profile {
  id: ProviderId;
  title: string;
  /** Where the tool list goes in the provider's request. */
  shape: string;
  /** On by default (the others are opt-in with --providers). */
  default: boolean;
  rules: string[];
}

const C = '2026-11-26';

export const RULES: Record<string, Rule> = {
  // ---------------------------------------------------------------- OpenAI (Chat Completions / Responses, non-strict)
  'openai/name-pattern': {
    id: 'openai/name-pattern',
    summary: 'tool name only of a-z, A-Z, 0-9, underscore and dash (no dots, colons, slashes, spaces)',
    kind: 'reject',
    wording:
      "Invalid 'tools[{index}].function.name': string does not match pattern. Expected a string that matches the pattern '^[a-zA-Z0-9_-]+$'.",
    sources: [
      'https://platform.openai.com/docs/api-reference/chat/create (function.name: "Must be a-z, A-Z, 0-9, or contain underscores and dashes, with a maximum length of 64"; quoted by https://docs.rs/crate/openai-client-base/0.12.0/source/docs/ChatCompletionFunctions.md)',
      'https://github.com/openai/codex/issues/8174',
      'https://github.com/modelcontextprotocol/csharp-sdk/issues/679',
    ],
    checked: C,
  },
  'openai/name-length': {
    id: 'openai/name-length',
    summary: 'tool name at most 64 characters',
    kind: 'reject',
    wording:
      "Invalid 'tools[{index}].function.name': string too long. Expected a string with maximum length 64, but got a string with length {count} instead.",
    sources: [
      'https://docs.rs/crate/openai-client-base/0.12.0/source/docs/ChatCompletionFunctions.md',
      'https://github.com/mrexodia/ida-pro-mcp/issues/129',
    ],
    checked: C,
    note: "The wording quoted was reported through an OpenAI-compatible API (DeepSeek); the 64 limit itself is in OpenAI's API reference.",
  },
  'openai/description-length': {
    id: 'openai/description-length',
    summary: 'tool description at most 1024 characters',
    kind: 'reject',
    wording:
      "Invalid 'tools[{index}].function.description': string too long. Expected a string with maximum length 1024, but got a string with length {count} instead.",
    sources: [
      'https://github.com/getsentry/sentry-mcp/issues/106',
      'https://github.com/microsoft/genaiscript/issues/1381',
      'https://github.com/OpenHands/OpenHands/issues/4838',
    ],
    checked: C,
  },
  'openai/array-items': {
    id: 'openai/array-items',
    summary: 'every array schema has items',
    kind: 'reject',
    wording: "Invalid schema for function '{tool}': In context=({path}), array schema missing items.",
    sources: [
      'https://github.com/sigoden/aichat/pull/1049',
      'https://github.com/mark3labs/mcphost/issues/35',
      'https://github.com/gumloop/guMCP/pull/136',
    ],
    checked: C,
  },
  'openai/parameters-object': {
    id: 'openai/parameters-object',
    summary: 'parameters is a JSON Schema of type "object"',
    kind: 'reject',
    wording:
      "Invalid schema for function '{tool}': schema must be a JSON Schema of 'type: \"object\"', got 'type: \"{value}\"'.",
    sources: ['https://github.com/browserbase/stagehand/issues/1159'],
    checked: C,
  },
  'openai/top-level-combinator': {
    id: 'openai/top-level-combinator',
    summary: 'no oneOf, anyOf, allOf, enum or not at the top level of parameters',
    kind: 'degrade',
    wording:
      "Invalid schema for function '{tool}': schema must have type 'object' and not have 'oneOf'/'anyOf'/'allOf'/'enum'/'not' at the top level.",
    sources: ['https://github.com/chatanywhere/GPT_API_free/issues/403'],
    checked: C,
    note: 'One report, through an OpenAI relay; not confirmed against the OpenAI API itself, so graded warn only. The structured-outputs guide states the same for strict mode (root must be an object, not anyOf).',
  },
  'openai/tool-count': {
    id: 'openai/tool-count',
    summary: 'at most 128 tools in one request',
    kind: 'reject',
    wording:
      "Invalid 'tools': array too long. Expected an array with maximum length 128, but got an array with length {count} instead.",
    sources: [
      'https://github.com/zed-industries/zed/issues/32946',
      'https://github.com/vishalmysore/Tools4AI/issues/16',
      'https://github.com/anomalyco/opencode/issues/4909',
    ],
    checked: C,
    note: "The limit counts every tool of the request: other servers and the client's own tools add to this server's.",
  },
  // ---------------------------------------------------------------- OpenAI strict mode (opt-in)
  'openai-strict/additional-properties': {
    id: 'openai-strict/additional-properties',
    summary: 'every object schema sets additionalProperties: false',
    kind: 'reject',
    wording:
      "Invalid schema for function '{tool}': In context=({path}), 'additionalProperties' is required to be supplied and to be false.",
    sources: [
      'https://platform.openai.com/docs/guides/structured-outputs#supported-schemas',
      'https://github.com/lastmile-ai/openai-agents-mcp/issues/2',
      'https://github.com/spring-projects/spring-ai/pull/6865',
    ],
    checked: C,
  },
  'openai-strict/all-required': {
    id: 'openai-strict/all-required',
    summary: 'every property of every object is listed in required (optional ones are made nullable instead)',
    kind: 'reject',
    sources: [
      'https://platform.openai.com/docs/guides/structured-outputs#all-fields-must-be-required',
      'https://github.com/Lambdua/openai4j/pull/74',
    ],
    checked: C,
    note: "OpenAI's exact error text for this rule was not found in a report; the rule is from the structured-outputs guide.",
  },
  'openai-strict/keyword': {
    id: 'openai-strict/keyword',
    summary: 'no oneOf, allOf, not, if/then/else, dependentRequired, dependentSchemas or patternProperties',
    kind: 'reject',
    wording: "Invalid schema for function '{tool}': In context=({path}), '{key}' is not permitted.",
    sources: [
      'https://platform.openai.com/docs/guides/structured-outputs#supported-schemas',
      "https://github.com/ai-dynamo/dynamo/pull/15153 (quotes the answer for oneOf: \"In context=('properties', 'data'), 'oneOf' is not permitted.\")",
    ],
    checked: C,
    note: 'The wording was reported for a response_format schema; strict function parameters go through the same structured-outputs validator.',
  },
  'openai-strict/format': {
    id: 'openai-strict/format',
    summary: 'string format only date-time, time, date, duration, email, hostname, ipv4, ipv6 or uuid',
    kind: 'reject',
    wording: "Invalid schema for function '{tool}': In context=({path}), '{value}' is not a valid format.",
    sources: [
      'https://github.com/cyanheads/git-mcp-server/issues/47',
      'https://github.com/can1357/oh-my-pi/issues/206',
      'https://github.com/pydantic/pydantic-ai/pull/2420',
    ],
    checked: C,
  },
  'openai-strict/type-required': {
    id: 'openai-strict/type-required',
    summary: 'every parameter and array item schema has a type (or anyOf / $ref)',
    kind: 'reject',
    wording: "Invalid schema for function '{tool}': In context=({path}), schema must have a 'type' key.",
    sources: ['https://github.com/can1357/oh-my-pi/pull/210'],
    checked: C,
  },
  'openai-strict/unlisted-keyword': {
    id: 'openai-strict/unlisted-keyword',
    summary:
      'no keyword strict mode does not list (minLength, maxLength, minProperties, maxProperties, uniqueItems, contains, propertyNames, unevaluated…)',
    kind: 'degrade',
    sources: [
      'https://github.com/pydantic/pydantic-ai/blob/main/pydantic_ai_slim/pydantic_ai/profiles/openai.py (_STRICT_INCOMPATIBLE_KEYS)',
      'https://platform.openai.com/docs/guides/structured-outputs#supported-properties',
    ],
    checked: C,
    note: 'Client libraries (pydantic-ai) move these into the description or turn strict off; no API error report was found, so warn only.',
  },
  'openai-strict/limits': {
    id: 'openai-strict/limits',
    summary: 'at most 10 levels of nesting and 5000 object properties in one schema',
    kind: 'degrade',
    sources: [
      'https://platform.openai.com/docs/guides/structured-outputs#objects-have-limitations-on-nesting-depth-and-size',
    ],
    checked: C,
    note: 'Limits as the guide states them (earlier versions said 5 levels and 100 properties); not confirmed by an error report, so graded warn only.',
  },
  // ---------------------------------------------------------------- Anthropic Messages API
  'anthropic/name-pattern': {
    id: 'anthropic/name-pattern',
    summary: 'tool name 1-128 characters of a-z, A-Z, 0-9, underscore and dash',
    kind: 'reject',
    wording: "tools.{index}.custom.name: String should match pattern '^[a-zA-Z0-9_-]{1,128}$'",
    sources: [
      'https://github.com/IlyaGulya/gradle-mcp-server/issues/2',
      'https://github.com/github/copilot-cli/issues/1879',
      'https://github.com/danny-avila/LibreChat/issues/12678',
    ],
    checked: C,
  },
  'anthropic/name-length-64': {
    id: 'anthropic/name-length-64',
    summary: 'tool name at most 64 characters for Claude Desktop / claude.ai connectors',
    kind: 'degrade',
    wording: "tools.{index}.FrontendRemoteMcpToolDefinition.name: String should match pattern '^[a-zA-Z0-9_-]{1,64}$'",
    sources: [
      'https://github.com/API-200/api200/issues/14',
      'https://github.com/NetApp/netapp-dataops-toolkit/issues/38',
      'https://github.com/inngest/agent-kit/pull/108',
    ],
    checked: C,
    note: 'The Messages API accepts 128 characters; Claude Desktop / claude.ai remote connectors (and the API before mid-2025) check 1-64.',
  },
  'anthropic/top-level-combinator': {
    id: 'anthropic/top-level-combinator',
    summary: 'no oneOf, allOf or anyOf at the top level of input_schema',
    kind: 'reject',
    wording: 'tools.{index}.custom.input_schema: input_schema does not support oneOf, allOf, or anyOf at the top level',
    sources: [
      'https://github.com/anthropics/claude-code/issues/5319',
      'https://github.com/mobile-next/mobile-mcp/issues/344',
      'https://github.com/zereight/gitlab-mcp/pull/551',
    ],
    checked: C,
  },
  'anthropic/property-key': {
    id: 'anthropic/property-key',
    summary: 'top-level property names 1-64 characters of a-z, A-Z, 0-9, underscore, dot and dash',
    kind: 'reject',
    wording:
      "tools.{index}.custom.input_schema.properties: Property keys should match pattern '^[a-zA-Z0-9_.-]{1,64}$'",
    sources: [
      'https://github.com/anthropics/claude-code/issues/79418',
      'https://github.com/ComposioHQ/composio/issues/3500',
      'https://github.com/beautyfree/appstore-connect-mcp/issues/2',
    ],
    checked: C,
    note: 'Reported for the keys of input_schema.properties; keys of nested objects are not checked here (no report found).',
  },
  'anthropic/input-schema-object': {
    id: 'anthropic/input-schema-object',
    summary: 'input_schema.type is "object"',
    kind: 'reject',
    wording: 'tools.{index}.custom.input_schema.type: Field required',
    sources: [
      'https://docs.anthropic.com/en/docs/build-with-claude/tool-use (input_schema: a JSON Schema object)',
      'https://github.com/lidge-jun/opencodex/issues/75',
      'https://github.com/BerriAI/litellm/pull/31527 (also: $schema is tolerated when type is present)',
    ],
    checked: C,
    note: 'The wording is the one for a missing type; a type other than "object" is refused too (LiteLLM coerces it), with a wording not found in a report.',
  },
  // ---------------------------------------------------------------- Amazon Bedrock Converse
  'bedrock/name-pattern': {
    id: 'bedrock/name-pattern',
    summary: 'tool name 1-64 characters of a-z, A-Z, 0-9, underscore and dash',
    kind: 'reject',
    wording:
      "Value '{value}' at 'toolConfig.tools.{index}.member.toolSpec.name' failed to satisfy constraint: Member must satisfy regular expression pattern: [a-zA-Z0-9_-]+",
    sources: [
      'https://docs.aws.amazon.com/bedrock/latest/APIReference/API_runtime_ToolSpecification.html',
      'https://github.com/RooCodeInc/Roo-Code/pull/10022',
      'https://github.com/aws-samples/remote-swe-agents/pull/457',
    ],
    checked: C,
    note: 'A name over 64 characters gets the same form of error with the length constraint.',
  },
  'bedrock/description-empty': {
    id: 'bedrock/description-empty',
    summary: 'a description, when given, has at least 1 character',
    kind: 'reject',
    wording:
      "Value '' at 'toolConfig.tools.{index}.member.toolSpec.description' failed to satisfy constraint: Member must have length greater than or equal to 1",
    sources: [
      'https://docs.aws.amazon.com/bedrock/latest/APIReference/API_runtime_ToolSpecification.html',
      'https://github.com/danny-avila/LibreChat/issues/13209',
      'https://github.com/vercel/ai/pull/10260',
    ],
    checked: C,
  },
  'bedrock/description-missing': {
    id: 'bedrock/description-missing',
    summary: 'a tool without a description is sent by many clients as description ""',
    kind: 'degrade',
    sources: [
      'https://github.com/danny-avila/LibreChat/pull/13217',
      'https://github.com/aws-samples/bedrock-access-gateway/issues/213',
    ],
    checked: C,
    note: 'Bedrock itself accepts a missing description (optional); clients that map a missing one to "" are rejected.',
  },
  'bedrock/int-range': {
    id: 'bedrock/int-range',
    summary: 'integers in the schema (bounds, defaults, enum values) within the 32-bit range',
    kind: 'degrade',
    wording: 'tools.{index}.custom.input_schema: int too big to convert',
    sources: [
      'https://github.com/tailcallhq/forgecode/issues/3307',
      'https://github.com/tailcallhq/forgecode/pull/3308',
      'https://github.com/windmill-labs/windmill/pull/9116',
    ],
    checked: C,
    note: 'Seen with 9007199254740991 (Number.MAX_SAFE_INTEGER, e.g. zod maxLength); the exact bound is not documented (forgecode clamps to i32, which is used here).',
  },
  'bedrock/input-schema-object': {
    id: 'bedrock/input-schema-object',
    summary: 'inputSchema.json.type is "object"',
    kind: 'reject',
    wording:
      'The value at toolConfig.tools.{index}.toolSpec.inputSchema.json.type must be one of the following: object.',
    sources: ['https://github.com/aaif-goose/goose/pull/5064', 'https://github.com/kirodotdev/Kiro/issues/11026'],
    checked: C,
  },
  // ---------------------------------------------------------------- Gemini (functionDeclarations[].parameters: OpenAPI 3.0 subset)
  'gemini/name-pattern': {
    id: 'gemini/name-pattern',
    summary:
      'name starts with a letter or underscore, then letters, digits, underscore, dot, colon or dash; at most 64',
    kind: 'reject',
    wording:
      'GenerateContentRequest.tools[0].function_declarations[{index}].name: Invalid function name. Must start with a letter or an underscore. Must be alphameric (a-z, A-Z, 0-9), underscores (_), dots (.), colons (:), or dashes (-), with a maximum length of 64.',
    sources: [
      'https://github.com/google-gemini/gemini-cli/issues/7878',
      'https://github.com/kaitranntt/ccs/issues/219',
      'https://pub.dev/documentation/google_cloud_aiplatform_v1beta1/latest/aiplatform/FunctionDeclaration/name.html',
    ],
    checked: C,
  },
  'gemini/name-colon': {
    id: 'gemini/name-colon',
    summary: 'no colon in the name for older API versions',
    kind: 'degrade',
    sources: [
      'https://github.com/google-gemini/gemini-cli/issues/6704',
      'https://github.com/decolua/9router/issues/369',
    ],
    checked: C,
    note: 'Errors from 2025 list underscores, dots and dashes only; those from 2026 add colons. Vertex AI documents 128 characters with colons.',
  },
  'gemini/parameters-object': {
    id: 'gemini/parameters-object',
    summary: 'parameters is a schema of type object',
    kind: 'reject',
    wording: 'Unable to submit request because {tool} functionDeclaration parameters schema should be of type OBJECT',
    sources: [
      'https://github.com/diegosouzapw/OmniRoute/pull/3360',
      'https://github.com/spring-projects/spring-ai/issues/1373',
    ],
    checked: C,
    note: "The wording is Vertex AI's; the Gemini Developer API refuses it with INVALID_ARGUMENT.",
  },
  'gemini/type-required': {
    id: 'gemini/type-required',
    summary: 'every parameter and array item schema has a type, unless it uses anyOf',
    kind: 'reject',
    wording:
      'GenerateContentRequest.tools[0].function_declarations[{index}].parameters{path}.type: must be specified when not using one_of, any_of or all_of fields',
    sources: [
      'https://github.com/danny-avila/LibreChat/issues/6971',
      'https://github.com/google-gemini/gemini-cli/pull/5330',
    ],
    checked: C,
  },
  'gemini/keyword': {
    id: 'gemini/keyword',
    summary:
      "only keywords of Gemini's Schema object (type, format, description, nullable, enum, items, properties, required, anyOf, min/max bounds, pattern, title, default, example, propertyOrdering)",
    kind: 'reject',
    wording:
      'Invalid JSON payload received. Unknown name "{key}" at \'tools[0].function_declarations[{index}].parameters{path}\': Cannot find field.',
    sources: [
      'https://ai.google.dev/api/caching#Schema',
      'https://github.com/promptfoo/promptfoo/issues/6902',
      'https://github.com/router-for-me/CLIProxyAPI/issues/97 (Unknown name "$schema")',
      'https://github.com/zed-industries/zed/issues/45552',
      'https://github.com/nanbingxyz/5ire/issues/42',
      'https://github.com/pydantic/pydantic-ai/blob/main/pydantic_ai_slim/pydantic_ai/profiles/google.py (GoogleJsonSchemaTransformer strips $schema, const, exclusiveMinimum…)',
    ],
    checked: C,
    note: 'Applies to clients that pass the MCP schema through as `parameters` (the reports: promptfoo, Zed, 5ire, gptel); pydantic-ai (profiles/google.py) and the Vercel AI SDK (packages/google/src/convert-json-schema-to-openapi-schema.ts) rebuild the schema from the keys Gemini knows, and the Gemini CLI sends parametersJsonSchema (profile gemini-json).',
  },
  'gemini/format': {
    id: 'gemini/format',
    summary: "string format only 'enum' or 'date-time'",
    kind: 'reject',
    wording:
      "GenerateContentRequest.tools[0].function_declarations[{index}].parameters{path}.format: only 'enum' and 'date-time' are supported for STRING type",
    sources: [
      'https://github.com/google-gemini/gemini-cli/issues/3178',
      'https://github.com/enechange/collmbo/pull/195',
      'https://firebase.google.com/docs/reference/js/ai.schemashared',
      'https://github.com/vercel/ai/blob/main/packages/google/src/convert-json-schema-to-openapi-schema.ts',
    ],
    checked: C,
    note: 'Vertex AI documents more string formats (email, byte…); the Gemini Developer API rejects them. The Vercel AI SDK passes format through (its users hit this); pydantic-ai moves it into the description.',
  },
  'gemini/array-items': {
    id: 'gemini/array-items',
    summary: 'every array schema has items',
    kind: 'reject',
    wording: 'GenerateContentRequest.tools[0].function_declarations[{index}].parameters{path}.items: missing field.',
    sources: ['https://github.com/cline/cline/issues/7339', 'https://github.com/jackmusick/bifrost/pull/225'],
    checked: C,
  },
  'gemini/enum-string': {
    id: 'gemini/enum-string',
    summary: 'enum only on string schemas, with string values',
    kind: 'reject',
    wording: 'function declaration enum only allowed for STRING type',
    sources: ['https://github.com/decolua/9router/issues/359', 'https://github.com/microsoft/vscode/pull/328147'],
    checked: C,
  },
  'gemini/type-array': {
    id: 'gemini/type-array',
    summary: 'type is one name, not a list such as ["string", "null"] (nullable: true instead)',
    kind: 'reject',
    wording:
      'Invalid JSON payload received. Unknown name "type" at \'tools[0].function_declarations[{index}].parameters{path}\': Proto field is not repeating, cannot start list.',
    sources: [
      'https://github.com/WordPress/ai-provider-for-google/issues/33',
      'https://github.com/taylorwilsdon/google_workspace_mcp/issues/1099',
    ],
    checked: C,
  },
  'gemini/tool-count': {
    id: 'gemini/tool-count',
    summary: 'at most 512 function declarations',
    kind: 'reject',
    wording: 'tools[0].function_declarations: [FIELD_INVALID] At most 512 function declarations can be specified.',
    sources: [
      'https://github.com/google-gemini/gemini-cli/issues/19083',
      'https://github.com/google-gemini/gemini-cli/pull/26869',
    ],
    checked: C,
  },
  // ---------------------------------------------------------------- Gemini parametersJsonSchema (opt-in; the Gemini CLI's path)
  'gemini-json/root-object': {
    id: 'gemini-json/root-object',
    summary: 'parametersJsonSchema describes an object',
    kind: 'reject',
    sources: [
      'https://ai.google.dev/api/generate-content#v1beta.FunctionDeclaration (parametersJsonSchema: "The schema must describe an object")',
      'https://github.com/tetsuo-ai/agenc-core/issues/1904',
    ],
    checked: C,
  },
  'gemini-json/missing-types': {
    id: 'gemini-json/missing-types',
    summary: 'every parameter schema names a type (the Gemini CLI skips tools whose schema has one without)',
    kind: 'degrade',
    wording:
      "Skipping tool '{tool}' from MCP server '<server>' because it has missing types in its parameter schema. Please file an issue with the owner of the MCP server.",
    sources: [
      'https://github.com/google-gemini/gemini-cli/pull/5330',
      'https://github.com/cyanheads/obsidian-mcp-server/issues/19',
    ],
    checked: C,
    note: 'A client-side check of the Gemini CLI, not an API rejection: the tool is left out, the rest of the list works.',
  },
  'gemini-json/schema-keyword': {
    id: 'gemini-json/schema-keyword',
    summary: 'no $schema keyword in parametersJsonSchema',
    kind: 'degrade',
    sources: [
      'https://github.com/google-gemini/gemini-cli/pull/21963',
      'https://github.com/GetStream/Vision-Agents/pull/513',
    ],
    checked: C,
    note: 'Reported as rejected or handled inconsistently; the Gemini CLI strips it. Not confirmed as a hard rejection.',
  },
};

export const PROFILES: Profile[] = [
  {
    id: 'openai',
    title: 'OpenAI (function tools)',
    shape: 'tools[].function {name, description, parameters}',
    default: true,
    rules: [
      'openai/tool-count',
      'openai/name-pattern',
      'openai/name-length',
      'openai/description-length',
      'openai/parameters-object',
      'openai/top-level-combinator',
      'openai/array-items',
    ],
  },
  {
    id: 'anthropic',
    title: 'Anthropic Messages API',
    shape: 'tools[] {name, description, input_schema}',
    default: true,
    rules: [
      'anthropic/name-pattern',
      'anthropic/name-length-64',
      'anthropic/input-schema-object',
      'anthropic/top-level-combinator',
      'anthropic/property-key',
    ],
  },
  {
    id: 'bedrock',
    title: 'Amazon Bedrock Converse',
    shape: 'toolConfig.tools[].toolSpec {name, description, inputSchema.json}',
    default: true,
    rules: [
      'bedrock/name-pattern',
      'bedrock/description-empty',
      'bedrock/description-missing',
      'bedrock/input-schema-object',
      'bedrock/int-range',
    ],
  },
  {
    id: 'gemini',
    title: 'Google Gemini (parameters, OpenAPI subset)',
    shape: 'tools[0].functionDeclarations[] {name, description, parameters}',
    default: true,
    rules: [
      'gemini/tool-count',
      'gemini/name-pattern',
      'gemini/name-colon',
      'gemini/parameters-object',
      'gemini/keyword',
      'gemini/type-array',
      'gemini/type-required',
      'gemini/format',
      'gemini/enum-string',
      'gemini/array-items',
    ],
  },
  {
    id: 'openai-strict',
    title: 'OpenAI strict mode (strict: true)',
    shape: 'tools[].function {name, description, parameters, strict: true}',
    default: false,
    rules: [
      'openai/tool-count',
      'openai/name-pattern',
      'openai/name-length',
      'openai/description-length',
      'openai/parameters-object',
      'openai/top-level-combinator',
      'openai/array-items',
      'openai-strict/additional-properties',
      'openai-strict/all-required',
      'openai-strict/keyword',
      'openai-strict/type-required',
      'openai-strict/format',
      'openai-strict/unlisted-keyword',
      'openai-strict/limits',
    ],
  },
  {
    id: 'gemini-json',
    title: 'Google Gemini (parametersJsonSchema)',
    shape: 'tools[0].functionDeclarations[] {name, description, parametersJsonSchema}',
    default: false,
    rules: [
      'gemini/tool-count',
      'gemini/name-pattern',
      'gemini/name-colon',
      'gemini-json/root-object',
      'gemini-json/schema-keyword',
      'gemini-json/missing-types',
    ],
  },
];

export const PROVIDER_IDS = PROFILES.map((p) => p.id);
export const DEFAULT_PROVIDERS = PROFILES.filter((p) => p.default).map((p) => p.id);

export function profileById(id: string): Profile | undefined {
  return PROFILES.find((p) => p.id === id);
}
