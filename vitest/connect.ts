/** connect() for vitest: the runner-independent client of lib/connect.ts, as mcp-conform/vitest exports it. */
export * from '../lib/connect.js';
