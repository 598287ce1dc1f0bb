/**
 * The commands, in the order --help lists them: a module of its own, so that bin/cli.ts can read the list without
 * importing the entry point (bin/mcp-conform.ts runs the command line when it is loaded).
 */
export const COMMANDS = ['run', 'merge', 'list', 'validate', 'lint', 'tools', 'serve', 'client', 'record', 'snapshot', 'diff', 'check-secrets', 'expect'] as const;
export type CommandName = (typeof COMMANDS)[number];
