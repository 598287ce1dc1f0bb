/** The commands of the command line, in the order --help lists them (bin/mcp-conform.ts loads by the first word). */
export const COMMANDS = [
  'run',
  'merge',
  'list',
  'validate',
  'lint',
  'tools',
  'serve',
  'client',
  'record',
  'snapshot',
  'diff',
  'check-secrets',
  'expect',
  'load',
] as const;
export type CommandName = (typeof COMMANDS)[number];
