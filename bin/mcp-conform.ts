#!/usr/bin/env node
/**
 * The command line: `run` tests a server, `list` prints the case catalogue. Heavy modules are imported inside the
 * handlers so that --help and --version stay fast.
 */
import yargs, { type Argv } from 'yargs';
import { hideBin } from 'yargs/helpers';
import { PROTOCOL_VERSIONS } from '../core/schema/versions.js';
import { VERSION } from '../core/version.js';

/** A usage or configuration error: exit code 2. */
export class UsageError extends Error {}

const SUITE_IDS = ['lifecycle', 'listing', 'calling', 'unknown-tool', 'invalid-params', 'is-error', 'stdio', 'schema'];

function list(v: unknown): string[] {
  const a = Array.isArray(v) ? v : v === undefined ? [] : [v];
  return a.flatMap((x) => String(x).split(',')).map((x) => x.trim()).filter(Boolean);
}

function runOptions(y: Argv) {
  return y
    .option('stdio', { type: 'string', describe: 'Command that starts the server over stdio; split as a shell would (quotes respected)' })
    .option('cwd', { type: 'string', describe: 'Working directory for the server command' })
    .option('env', { type: 'string', array: true, describe: 'KEY=VALUE added to the server environment (repeatable)' })
    .option('suite', { type: 'string', array: true, describe: `Suites to run, comma-separated or repeated (${SUITE_IDS.join(', ')})` })
    .option('case', { type: 'string', array: true, describe: 'Case ids or id prefixes to run (repeatable), e.g. lifecycle/ping or calling/tool/add' })
    .option('timeout', { type: 'number', default: 30000, describe: 'Timeout of each request (ms)' })
    .option('strict', { type: 'boolean', default: false, describe: 'Turn every warn into a fail' })
    .option('call-tools', { choices: ['safe', 'all', 'none'], default: 'safe', describe: 'Which tools to call: safe leaves out tools annotated destructiveHint: true (unless readOnlyHint: true)' })
    .option('unknown-tool-code', { type: 'number', describe: 'Demand exactly this JSON-RPC error code for an unknown tool' })
    .option('reporter', { type: 'string', array: true, describe: 'console, json, junit (repeatable; default: console and json; console is on unless --quiet)' })
    .option('out-dir', { type: 'string', default: 'mcp-conform-report', describe: 'Directory for report files' })
    .option('protocol-version', { choices: [...PROTOCOL_VERSIONS], describe: 'Speak only this protocol version (default: offer 2025-11-25 and accept what the server answers)' })
    .option('shutdown-grace', { type: 'number', default: 2000, describe: 'How long each shutdown step waits for the server to exit (ms)' })
    .option('quiet', { type: 'boolean', default: false, describe: 'No console report' })
    .example('$0 run --stdio "python3 fixtures/servers/calc.py"', 'Test the bundled demo server')
    .example('$0 run --stdio "python server.py" --reporter json --reporter junit --out-dir reports-out', 'Write report.json and junit.xml for CI')
    .example('$0 run --stdio "npx -y @modelcontextprotocol/server-everything stdio" --suite lifecycle,listing', 'Only two suites')
    .example('$0 run --stdio "node server.js" --case calling/tool/add --strict', 'One case, warnings fail');
}

async function runCommand(argv: Record<string, unknown>): Promise<number> {
  const { resolve } = await import('node:path');
  const { statSync } = await import('node:fs');
  const { shellWords } = await import('../core/shell-words.js');
  if (typeof argv.stdio !== 'string' || !argv.stdio.trim()) throw new UsageError('run needs a server: --stdio "<command>"');
  let words: string[];
  try { words = shellWords(argv.stdio); } catch (e) { throw new UsageError(`--stdio: ${(e as Error).message}`); }
  if (!words.length) throw new UsageError('--stdio: the command is empty');
  const cwd = typeof argv.cwd === 'string' ? resolve(argv.cwd) : undefined;
  if (cwd) {
    let isDir = false;
    try { isDir = statSync(cwd).isDirectory(); } catch { /* reported below */ }
    if (!isDir) throw new UsageError(`--cwd: ${cwd} is not a directory`);
  }
  const env: Record<string, string> = {};
  for (const kv of list(argv.env)) {
    const i = kv.indexOf('=');
    if (i <= 0) throw new UsageError(`--env wants KEY=VALUE, got "${kv}"`);
    env[kv.slice(0, i)] = kv.slice(i + 1);
  }
  const suites = list(argv.suite);
  for (const s of suites) if (!SUITE_IDS.includes(s)) throw new UsageError(`--suite: unknown suite "${s}" (known: ${SUITE_IDS.join(', ')})`);
  const timeout = argv.timeout as number;
  if (!Number.isFinite(timeout) || timeout <= 0) throw new UsageError('--timeout must be a positive number of milliseconds');
  const grace = argv['shutdown-grace'] as number;
  if (!Number.isFinite(grace) || grace < 0) throw new UsageError('--shutdown-grace must be a number of milliseconds');
  const utc = argv['unknown-tool-code'];
  if (utc !== undefined && !Number.isInteger(utc)) throw new UsageError('--unknown-tool-code must be an integer');
  const { FILE_REPORTERS, REPORTER_NAMES } = await import('../reports/index.js');
  const reporters = argv.reporter === undefined ? ['console', 'json'] : list(argv.reporter);
  for (const r of reporters) if (!REPORTER_NAMES.includes(r)) throw new UsageError(`--reporter: unknown reporter "${r}" (known: ${REPORTER_NAMES.join(', ')})`);
  const quiet = argv.quiet === true;

  const { runConformance } = await import('../core/run.js');
  const { ALL_SUITES } = await import('../suites/index.js');
  const { endOwnedOnSignals } = await import('../core/processes.js');
  endOwnedOnSignals();
  const report = await runConformance({
    target: { transport: 'stdio', command: argv.stdio, argv: words, cwd, env },
    suites: ALL_SUITES,
    suiteFilter: suites,
    caseFilter: list(argv.case),
    timeoutMs: timeout,
    strict: argv.strict === true,
    callTools: argv['call-tools'] as 'safe' | 'all' | 'none',
    unknownToolCode: utc as number | undefined,
    protocolVersion: argv['protocol-version'] as (typeof PROTOCOL_VERSIONS)[number] | undefined,
    shutdownGraceMs: grace,
  });
  const outDir = resolve(String(argv['out-dir']));
  const written: string[] = [];
  for (const r of reporters) {
    const rep = FILE_REPORTERS[r];
    if (!rep) continue;
    try {
      const file = await rep.onFinished(report, outDir);
      if (file) written.push(file);
    } catch (e) {
      process.stderr.write(`mcp-conform: could not write the ${r} report to ${outDir}: ${(e as Error).message}\n`);
      return 2;
    }
  }
  if (!quiet) {
    const { renderConsole, useColor } = await import('../reports/console.js');
    await write(process.stdout, renderConsole(report, written, useColor(process.stdout)));
  }
  return report.exitCode;
}

async function listCommand(argv: Record<string, unknown>): Promise<number> {
  const { ALL_SUITES } = await import('../suites/index.js');
  const { specUrl } = await import('../core/schema/versions.js');
  const version = (argv['protocol-version'] as (typeof PROTOCOL_VERSIONS)[number] | undefined) ?? '2025-11-25';
  const rows = ALL_SUITES.map((s) => ({
    id: s.id,
    title: s.title,
    cases: s.cases.map((c) => ({ id: c.perItem ? `${c.id}/<${c.perItem}>` : c.id, title: c.title, level: c.level, spec: specUrl(version, c.spec), requirement: c.requirement })),
  }));
  if (argv.format === 'json') {
    await write(process.stdout, JSON.stringify({ protocolVersion: version, suites: rows }, null, 2) + '\n');
    return 0;
  }
  const out: string[] = [];
  for (const s of rows) {
    out.push(`${s.id} — ${s.title}`);
    for (const c of s.cases) out.push(`  ${c.id.padEnd(44)} ${c.level.padEnd(6)} ${c.spec}\n  ${''.padEnd(44)} ${c.title}`);
    out.push('');
  }
  await write(process.stdout, out.join('\n'));
  return 0;
}

function write(stream: NodeJS.WriteStream, s: string): Promise<void> {
  return new Promise((res) => stream.write(s, () => res()));
}

export async function main(args: string[]): Promise<number> {
  let code = 0;
  let usage: string | undefined;
  const cli = yargs(args)
    .scriptName('mcp-conform')
    .usage('$0 <command> [options]\n\nConformance tests for MCP servers.')
    .command('run', 'Test a server: start it, run the suites, report', runOptions, async (a) => { code = await runCommand(a); })
    .command('list', 'List every suite and case with its id, level and spec link', (y) => y
      .option('format', { choices: ['text', 'json'], default: 'text', describe: 'Output format' })
      .option('protocol-version', { choices: [...PROTOCOL_VERSIONS], describe: 'Spec links for this version (default 2025-11-25)' }), async (a) => { code = await listCommand(a); })
    .demandCommand(1, 'Name a command: run or list')
    .strict()
    .version(VERSION)
    .help()
    .alias('h', 'help')
    .wrap(Math.min(110, process.stdout.columns || 110))
    .exitProcess(false)
    .fail((msg, err) => {
      if (err && !(err instanceof UsageError)) throw err;
      usage = msg ?? err?.message;
    })
    .epilogue('Exit codes: 0 no failing case, 1 a failing case (or a server that would not start, crashed or stopped answering), 2 a usage or configuration error.\nDocs: README.md');
  try {
    await cli.parseAsync();
  } catch (e) {
    if (e instanceof UsageError) usage = e.message;
    else throw e;
  }
  if (usage) {
    process.stderr.write(`mcp-conform: ${usage}\nRun "mcp-conform --help" for usage.\n`);
    return 2;
  }
  return code;
}

main(hideBin(process.argv)).then(
  (code) => { process.exitCode = code; setTimeout(() => process.exit(code), 50).unref(); },
  (e) => { process.stderr.write(`mcp-conform: internal error: ${(e as Error).stack ?? String(e)}\n`); process.exit(3); },
);
