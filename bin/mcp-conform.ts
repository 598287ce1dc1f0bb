#!/usr/bin/env node
/**
 * The command line: `run` tests a server, `list` prints the case catalogue. This entry answers --version and starts
 * the server of a `run --stdio` early (bin/early.ts); the commands themselves are in bin/cli.ts, loaded after that so
 * that --version stays fast and the server starts before the harness loads its modules.
 */
import { VERSION } from '../core/version.js';
import { earlyStdioArgv } from './early.js';
import { COMMANDS, type CommandName } from './command-names.js';

function write(stream: NodeJS.WriteStream, s: string): Promise<void> {
  return new Promise((res) => stream.write(s, () => res()));
}

/**
 * The modules a command line needs beyond yargs: yargs runs the builder of the command named only, so the first word
 * names what to load; a command line that names no command at all (`--help`) needs none, and anything else (an option
 * before the command) loads them all, as before.
 */
function commandOf(args: string[]): { cmd?: CommandName; needs: (...c: CommandName[]) => boolean } {
  const named = args.filter((a) => (COMMANDS as readonly string[]).includes(a));
  const cmd = (COMMANDS as readonly string[]).includes(args[0] ?? '') ? (args[0] as CommandName) : undefined;
  return { cmd, needs: (...c) => (cmd ? c.includes(cmd) : named.length > 0) };
}
export async function main(args: string[]): Promise<number> {
  // --version loads nothing else: it is what CI scripts call to check the tool is there.
  if (args.length === 1 && args[0] === '--version') {
    await write(process.stdout, `${VERSION}\n`);
    return 0;
  }
  const { cmd, needs } = commandOf(args);
  // `run --stdio CMD`: the server starts now, while the modules below load (it takes a Python or Node server about as
  // long to start as the harness to load); the run takes it over, anything else ends it.
  const early = cmd === 'run' ? await earlyStdioArgv(args, process.cwd()) : undefined;
  const processes = early ? await import('../core/processes.js') : undefined;
  if (early && processes) {
    // The handlers first: a signal that comes as soon as the server is started (before the next line) would otherwise
    // end the CLI by the default action, without a report and without ending the server.
    processes.deferSignals(); // a signal before the run begins stops the run when it begins (or ends the server)
    processes.earlyStart(early);
  }
  try {
    const { dispatch } = await import('./cli.js');
    const code = await dispatch(args, needs);
    return processes?.deferredSignalCode() ?? code;
  } finally {
    processes?.endEarlyStart();
  }
}

// A reader that stops early (`mcp-conform tools --format gemini … | head -3`): the rest of the output has nowhere to
// go, which is no error of ours; the command ends with the exit code its work gives.
for (const out of [process.stdout, process.stderr]) {
  out.on('error', (e: NodeJS.ErrnoException) => {
    if (e.code === 'EPIPE' || e.code === 'ERR_STREAM_DESTROYED') return;
    throw e;
  });
}

// A bug that escapes everything above is an internal error: exit 3 (the 'exit' hook of core/processes.ts ends
// every server process group still running).
for (const event of ['uncaughtException', 'unhandledRejection'] as const) {
  process.on(event, (e: unknown) => {
    process.stderr.write(`mcp-conform: internal error: ${(e as Error)?.stack ?? String(e)}\n`);
    process.exit(3);
  });
}

/**
 * The command is done: the process exits as soon as stdout and stderr have handed their last bytes to the system,
 * rather than when the event loop runs dry. Node would first run the tasks V8 still has queued (a garbage collection
 * it scheduled while the report was written: ~25 ms after a small run) and tear the heap down. Whatever the command
 * waits for is over when main resolves (servers ended, files written); the 'exit' hooks still run.
 */
function exitWhenFlushed(code: number): void {
  const pending = [process.stdout, process.stderr].filter((s) => s.writableLength > 0);
  let left = pending.length;
  if (!left) {
    process.exit(code);
    return;
  }
  for (const s of pending)
    s.once('drain', () => {
      if (--left === 0) process.exit(code);
    });
  setTimeout(() => process.exit(code), 50).unref(); // a reader that stopped reading holds nothing up for long
}

main(process.argv.slice(2)).then(
  // what yargs' hideBin gives under node
  (code) => {
    process.exitCode = code;
    exitWhenFlushed(code);
  },
  (e) => {
    process.stderr.write(`mcp-conform: internal error: ${(e as Error).stack ?? String(e)}\n`);
    process.exit(3);
  },
);
