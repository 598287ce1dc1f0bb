/**
 * Typos on the command line: an unknown command or option gets "did you mean …" (edit distance over the commands, or
 * over the options of the command typed: core/suggest.ts), and every usage error points to that command's own help.
 */
import { nearest } from '../core/suggest.js';

/** The commands, for "did you mean" (bin/mcp-conform.ts lists them). */
export function unknownCommand(word: string, commands: readonly string[]): string {
  const near = nearest(word, commands);
  return `unknown command "${word}"${near ? `; did you mean ${near}?` : ''} (the commands: ${commands.join(', ')})`;
}

/**
 * yargs' "Unknown argument(s): a, b" in words that name each one as typed and suggest the nearest option of the
 * command (or command, for a stray word); other messages are returned as they are.
 */
export function explainUnknown(
  msg: string,
  args: readonly string[],
  options: readonly string[],
  command: string | undefined,
): string {
  const m = /^Unknown arguments?: (.+)$/.exec(msg);
  if (!m) return msg;
  const names = m[1]!
    .split(', ')
    .map((s) => s.trim())
    .filter(Boolean);
  const flags = options.filter((o) => o.length > 1 && !/[A-Z]/.test(o) && o !== '$0' && o !== '_');
  const lines = names.map((name) => {
    const typed = args.find((a) => a === `--${name}` || a.startsWith(`--${name}=`) || a === `-${name}`);
    if (typed || !args.includes(name)) {
      const near =
        name.length === 1
          ? ['quiet', 'verbose', 'out-dir', 'config', 'timeout', 'format'].find(
              (f) => f.startsWith(name) && flags.includes(f),
            )
          : nearest(name, flags);
      return `unknown option ${typed?.split('=')[0] ?? `--${name}`}${command ? ` of ${command}` : ''}${near ? `; did you mean --${near}?` : ''}`;
    }
    // A command given unquoted (--stdio python3 server.py) or without its flag (run server.py): say how to write it.
    const at = args.indexOf(name);
    const flag = args
      .slice(0, at)
      .reverse()
      .find((a) => a.startsWith('--'));
    const flagAt = flag ? args.lastIndexOf(flag, at) : -1;
    if (
      flag &&
      ['--stdio', '--start', '--upstream'].includes(flag) &&
      args.slice(flagAt + 1, at).every((a) => !a.startsWith('-'))
    ) {
      return `unexpected word "${name}": the command of ${flag} is one argument, quoted: ${flag} "${args.slice(flagAt + 1, at + 1).join(' ')}"`;
    }
    if (command === 'run' && flagAt < 0)
      return `unexpected word "${name}": name the server with --stdio "COMMAND" (e.g. --stdio "python3 ${name}"), --http URL, --sse URL or --url URL`;
    return `unexpected word "${name}"${command ? ` after ${command}` : ''} (an option's value with spaces needs quotes)`;
  });
  return lines.join('\n');
}

/** The help line that ends every usage error: the command's own help when there is a command. */
export function helpHint(command: string | undefined): string {
  return command
    ? `Run "mcp-conform ${command} --help" for its options.`
    : 'Run "mcp-conform --help" for the commands.';
}
