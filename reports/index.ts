import { jsonReporter } from './json.js';
import { junitReporter } from './junit.js';
import type { Reporter } from './types.js';

/** File reporters by name; 'console' is handled by the CLI itself (it prints). */
export const FILE_REPORTERS: Record<string, Reporter> = { json: jsonReporter, junit: junitReporter };
export const REPORTER_NAMES = ['console', ...Object.keys(FILE_REPORTERS)];
export type { Reporter };
