/**
 * The early start of `run --stdio CMD` (see core/processes.ts earlyStart): which command lines may start their server
 * before the CLI has loaded its modules and parsed its flags. Kept small: bin/mcp-conform.ts imports it first.
 */

/** Config files `run` reads from the current directory (lib/config.ts CONFIG_FILE_NAMES, which imports ajv and yaml; test/early-start.test.ts checks they agree). */
export const EARLY_CONFIG_NAMES = ['mcp-conform.config.json', 'mcp-conform.config.yaml', 'mcp-conform.config.yml'];

/**
 * `run --stdio CMD`: the server command to start before the harness loads its modules, or undefined when the command
 * line may start something else or nothing (a config file, --cwd, --env, another target, --help, --version, the
 * command given twice). The run takes the process only if its resolved target is this very command (see
 * core/processes.ts takeEarlyStart); a usage error ends it.
 */
export async function earlyStdioArgv(args: string[], cwd: string): Promise<string[] | undefined> {
  if (args[0] !== 'run') return undefined;
  let command: string | undefined;
  let count = 0;
  for (let i = 1; i < args.length; i++) {
    const a = args[i]!;
    if (a === '--') return undefined;
    const m = /^--?([^=]+)(?:=([\s\S]*))?$/.exec(a);
    if (!m) continue;
    const name = m[1]!;
    if (
      [
        'config',
        'cwd',
        'env',
        'start',
        'http',
        'sse',
        'url',
        'shard',
        'server-json',
        'manifest',
        'help',
        'h',
        'version',
      ].includes(name)
    )
      return undefined;
    if (name === 'stdio') {
      count++;
      command = m[2] ?? args[i + 1];
      if (m[2] === undefined) i++;
    }
  }
  if (count !== 1 || command === undefined || !command.trim() || command.startsWith('-')) return undefined;
  const { existsSync } = await import('node:fs');
  const { join } = await import('node:path');
  if (EARLY_CONFIG_NAMES.some((f) => existsSync(join(cwd, f)))) return undefined;
  const { shellWords } = await import('../core/shell-words.js');
  try {
    const words = shellWords(command);
    return words.length ? words : undefined;
  } catch {
    return undefined;
  }
}
