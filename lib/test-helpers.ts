/**
 * What a test-runner integration needs besides connect() (lib/connect.ts) and runConformance (lib/conformance.ts):
 * the case-id slug of a title and the subset comparison of expectation files, and the report types. mcp-conform/vitest
 * is built on these alone; another runner's integration can be as thin.
 */
export { slugOf } from '../suites/expect/format.js';
export { subsetDiff, type Difference } from '../suites/expect/paths.js';
export type { CaseResult, Report } from '../core/results.js';
