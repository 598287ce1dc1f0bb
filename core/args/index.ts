/**
 * Generation of tool-call arguments from an MCP tool's `inputSchema`: valid arguments for `tools/call`, and invalid
 * variants (one required property left out, one property of the wrong type) for the invalid-params suite.
 *
 * The schema comes from an arbitrary server, so nothing about it is trusted: every keyword is read defensively (own
 * properties only, type-checked), `$ref` cycles are cut by a depth limit, and the size of the output and the work
 * spent are bounded (limits.ts). Nothing here throws: problems become `notes`. Generation is deterministic (no
 * randomness), and every generated value is checked before it is reported as confident.
 *
 * The files of this folder, by job:
 * - arguments.ts: valid arguments from the root schema (`generateArguments`); invalid.ts: the invalid variants;
 * - generate.ts: a value for a set of schemas (branches, type choice, preferred values), with numbers.ts,
 *   strings.ts (and regex.ts for `pattern`), objects.ts and arrays.ts for each type;
 * - ajv-check.ts: the final check of the arguments by ajv; validate.ts: the generator's own check of the values it
 *   makes up (sub-schemas, one property disregarded); refs.ts: `$ref` resolution; context.ts: per-call state and budgets;
 * - memo.ts: results remembered per schema; json.ts: helpers for untrusted JSON; types.ts, limits.ts.
 */
export type { GeneratedArguments, InvalidArguments } from './types.js';
export { ARGUMENT_LIMITS } from './limits.js';
export { generateArguments } from './arguments.js';
export { missingRequiredArguments, wrongTypeArguments } from './invalid.js';
