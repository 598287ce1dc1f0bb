import { PROTOCOL_VERSIONS } from '../core/schema/versions.js';
import type { Report } from '../core/results.js';
import type { Reporter } from '../reports/types.js';
import type { RunOptions } from '../core/run.js';
import { availableParallelism } from 'node:os';
import { VERSION } from '../core/version.js';
import { withInput } from '../core/inputs.js';
import { pairs, targetConformanceOptions, targetOptions } from './target-options.js';
import { COMMANDS, type CommandName } from './command-names.js';
import { explainUnknown, helpHint, unknownCommand } from './typos.js';
import { list, loadCatalogue, runOptions, type Catalogue } from './run-flags.js';

/** A usage or configuration error: exit code 2. */
export class UsageError extends Error {}

/** The options of a command line (or of one config target), as the library takes them (lib/conformance.ts). */
function conformanceOptions(
  argv: Record<string, unknown>,
  cat: Catalogue,
  name?: string,
): import('../lib/conformance.js').ConformanceOptions {
  // Every declared option (the suites' and the call policy) by its key; the library checks the values.
  const declared: Record<string, unknown> = {};
  for (const o of cat.options) {
    const v = argv[o.flag];
    if (v !== undefined) declared[o.key] = o.type === 'string[]' ? (Array.isArray(v) ? v : [v]).map(String) : v;
  }
  const str = (k: string) => (argv[k] === undefined ? undefined : String(argv[k]));
  return {
    ...targetConformanceOptions(argv),
    name,
    suites: list(argv.suite),
    cases: list(argv.case),
    timeout: argv.timeout as number,
    strict: argv.strict === true,
    ...declared,
    clientCapabilities: list(argv['client-capabilities']),
    roots: argv.root === undefined ? undefined : list(argv.root),
    protocolVersion: argv['protocol-version'] as (typeof PROTOCOL_VERSIONS)[number] | undefined,
    allVersions: argv['all-versions'] === true,
    schema: str('schema'),
    shutdownGrace: argv['shutdown-grace'] as number,
    maxDuration: argv['max-duration'] as number,
    maxMessageBytes: argv['max-message-bytes'] as number,
  };
}

/**
 * --server-json FILE / --manifest FILE: the server the file describes, written into the library's options (the
 * target, its environment, headers, working directory); returns what the suites registry/manifest judge.
 */
async function publishedTarget(
  argv: Record<string, unknown>,
  options: import('../lib/conformance.js').ConformanceOptions,
): Promise<import('../core/published/types.js').PublishedRunOptions> {
  const { resolve } = await import('node:path');
  const { PublishedError } = await import('../core/published/server-json.js');
  const { shellQuote } = await import('../core/shell-words.js');
  const flag = argv['server-json'] !== undefined ? '--server-json' : '--manifest';
  if (argv['server-json'] !== undefined && argv.manifest !== undefined)
    throw new UsageError('give --server-json or --manifest, not both');
  const direct = ['stdio', 'http', 'sse', 'url', 'start'].find((k) => argv[k] !== undefined);
  if (direct) throw new UsageError(`${flag} says how to start or reach the server: leave out --${direct}`);
  try {
    let target: import('../core/published/server-json.js').PublishedTarget & { cwd?: string };
    let published: import('../core/published/types.js').PublishedRunOptions;
    if (argv['server-json'] !== undefined) {
      const { envMap, serverJsonTarget } = await import('../core/published/server-json.js');
      const r = serverJsonTarget(resolve(String(argv['server-json'])), {
        entry: argv['server-json-entry'] === undefined ? undefined : String(argv['server-json-entry']),
        env: pairs(argv.env),
      });
      target = r.target;
      published = { serverJson: r.run };
      if (target.fetch) {
        // The package into npx's cache first, so that the server's start is not a download (core/published/fetch.ts).
        const { fetchPackage } = await import('../core/published/fetch.js');
        const env = { ...process.env, ...Object.fromEntries(envMap(target.env ?? [])) };
        const f = await fetchPackage(target.fetch, {
          cwd: typeof argv.cwd === 'string' ? resolve(argv.cwd) : undefined,
          env,
        });
        if (f.code !== 0)
          (r.run.notes ??= []).push(
            `fetching the package with npx first ${f.timedOut ? `was stopped after ${Math.round(f.ms / 1000)} s` : `failed (exit ${f.code ?? 'none'}): ${f.output.trim().split('\n').at(-1) ?? ''}`}; the server was started anyway`,
          );
      }
    } else {
      const { manifestTarget } = await import('../core/published/manifest.js');
      const r = manifestTarget(resolve(String(argv.manifest)), {
        userConfig: pairs(argv['user-config']),
        env: pairs(argv.env),
      });
      target = r.target;
      published = { manifest: r.run };
    }
    options.stdio = target.stdio;
    options.http = target.http;
    options.sse = target.sse;
    options.start = target.start && shellQuote(target.start);
    if (target.headers) options.headers = [...target.headers, ...((options.headers as string[] | undefined) ?? [])];
    // A started server gets the file's environment and --env; a remote one none (--env filled its placeholders).
    options.env = target.stdio || target.start ? target.env : undefined;
    if (target.cwd && argv.cwd === undefined) options.cwd = target.cwd;
    if (!target.stdio && !target.start) options.cwd = undefined;
    return published;
  } catch (e) {
    // A server.json read and checked before the error keeps its schema verdict (registry/server-json) in the message.
    throw e instanceof PublishedError
      ? new UsageError(
          e.schemaVerdict ? `${e.message}\n  registry/server-json (the file itself): ${e.schemaVerdict}` : e.message,
        )
      : e;
  }
}

/** Runs one target (the options of a command line, or of one config target) and returns its report. */
async function runTarget(
  argv: Record<string, unknown>,
  hooks: {
    reporters?: Reporter[];
    name?: string;
    cat?: Catalogue;
    extra?: Partial<RunOptions>;
    interrupt?: AbortController;
    stderr?: (s: string) => void;
  } = {},
): Promise<Report> {
  const { resolve } = await import('node:path');
  const { prepareRun, executeRun, OptionsError } = await import('../lib/conformance.js');
  let prepared: Awaited<ReturnType<typeof prepareRun>>;
  const cat = hooks.cat ?? (await loadCatalogue());
  const options = conformanceOptions(argv, cat, hooks.name);
  const published =
    argv['server-json'] !== undefined || argv.manifest !== undefined ? await publishedTarget(argv, options) : undefined;
  try {
    prepared = await prepareRun(options, { flags: true });
  } catch (e) {
    throw e instanceof OptionsError ? new UsageError(e.message) : e;
  }
  if (published) {
    // The suite that judges the file runs even when --suite names others.
    const { publishedInput } = await import('../core/published/types.js');
    prepared.run.inputs = withInput(prepared.run.inputs, publishedInput, published);
    const suites = prepared.run.suiteFilter;
    const id = published.manifest ? 'manifest' : 'registry';
    if (suites?.length && !suites.includes(id)) suites.push(id);
    if (prepared.run.caseFilter?.length) prepared.run.caseFilter = [...prepared.run.caseFilter, `${id}/`];
  }
  const outDir = resolve(String(argv['out-dir']));
  if (hooks.reporters?.some((r) => r.writesFiles)) {
    // Find out now, not after the run, that the reports cannot be written.
    const { mkdir, access, constants } = await import('node:fs/promises');
    try {
      await mkdir(outDir, { recursive: true });
      await access(outDir, constants.W_OK);
    } catch (e) {
      throw new UsageError(
        `--out-dir: cannot write reports to ${outDir}: ${(e as NodeJS.ErrnoException).code ?? (e as Error).message}`,
      );
    }
  }
  let surface: import('../core/surface/cli.js').SurfaceForRun | undefined;
  if (argv.snapshot !== undefined || argv['baseline-snapshot'] !== undefined) {
    const { surfaceForRun } = await import('../core/surface/cli.js');
    try {
      surface = surfaceForRun(argv);
    } catch (e) {
      throw new UsageError((e as Error).message);
    }
    const suites = prepared.run.suiteFilter;
    if (suites?.length && !suites.includes('surface')) suites.push('surface');
    if (surface && prepared.run.caseFilter?.length) prepared.run.caseFilter = [...prepared.run.caseFilter, 'surface/'];
    if (surface)
      prepared.run.inputs = withInput(
        prepared.run.inputs,
        (await import('../core/surface/snapshot.js')).surfaceInput,
        surface.options,
      );
  }
  const { inputs: extraInputs, ...extra } = hooks.extra ?? {};
  Object.assign(prepared.run, extra);
  if (extraInputs) prepared.run.inputs = new Map([...(prepared.run.inputs ?? []), ...extraInputs]);
  const { endOwnedOnSignals, takeDeferredSignal } = await import('../core/processes.js');
  // SIGINT/SIGTERM: the run stops, the server is shut down, the partial report is written; exit 130/143. Targets run
  // side by side (--concurrency) share the invocation's controller, set up once by runCommand.
  const interrupt = hooks.interrupt ?? new AbortController();
  const forceAfterMs = 4 * prepared.run.shutdownGraceMs! + 15_000;
  if (!hooks.interrupt) endOwnedOnSignals((sig) => interrupt.abort(sig), forceAfterMs);
  const early = hooks.interrupt ? undefined : takeDeferredSignal(forceAfterMs);
  if (early) {
    // The signal came while the CLI was starting, its server already started (bin/early.ts): the run takes that
    // server over first, so that its shutdown is the run's and the report describes it, then stops.
    const make = prepared.run.transportFactory ?? (await import('../core/transport/index.js')).createTransport;
    let first = true;
    prepared.run.transportFactory = (target, opts) => {
      const t = make(target, opts);
      if (first) {
        first = false;
        const start = t.start.bind(t);
        t.start = () => start().finally(() => interrupt.abort(early));
      }
      return t;
    };
  }
  // --record writes the run's session to a cassette: one session, so one era.
  const report = await executeRun(prepared, {
    signal: interrupt.signal,
    reporters: hooks.reporters ?? [],
    oneEra: argv.record !== undefined,
  });
  surface?.finish(report, hooks.stderr ?? ((s) => process.stderr.write(s)));
  return report;
}

/**
 * `run`: the targets of the command line, or of a config file (flags override it), one after another; then the
 * baseline, and the reporters (report files, GitHub annotations, the console report), once for all of them.
 */
async function runCommand(argv: Record<string, unknown>, rawArgs: string[], cat: Catalogue): Promise<number> {
  const { planRuns, ConfigError } = await import('../lib/config.js');
  const { BaselineError } = await import('../core/baseline.js');
  const { prepareOutput, finishRuns, ReporterError } = await import('../reports/index.js');
  let plan: ReturnType<typeof planRuns>;
  let output: Awaited<ReturnType<typeof prepareOutput>>;
  const { parseShard, selectShard, ShardError } = await import('../core/shard.js');
  try {
    plan = planRuns(argv, rawArgs, process.cwd());
    const shard = argv.shard === undefined ? undefined : parseShard(String(argv.shard));
    if (shard && plan.shared['update-baseline'] !== undefined)
      throw new ShardError(
        '--shard with --update-baseline: a shard sees only its own targets; update the baseline from a run over the whole config',
      );
    output = await prepareOutput(plan.shared, list, plan.configFile);
    if (shard) {
      const picked = selectShard(plan.targets, shard);
      plan.targets = picked.targets;
      output.shard = picked.info;
    }
  } catch (e) {
    if (e instanceof ConfigError || e instanceof BaselineError || e instanceof ReporterError || e instanceof ShardError)
      throw new UsageError(e.message);
    throw e;
  }
  const snapshots = plan.targets.map((t) => t.argv.snapshot).filter((f) => typeof f === 'string');
  if (new Set(snapshots).size < snapshots.length)
    throw new UsageError('snapshot: several targets would write the same snapshot file; set snapshot per target');
  let concurrency: number;
  try {
    concurrency = parseConcurrency(plan.shared.concurrency);
  } catch (e) {
    throw new UsageError((e as Error).message);
  }
  let reports: Report[] = [];
  let recordFailed = false;
  // Several targets: the token counts' table is read once for all of them, and let go before the reports are written.
  const several = plan.targets.length > 1;
  const unhold = several ? (await import('../suites/compat/cost.js')).holdTokenizer() : undefined;
  try {
    if (concurrency > 1 && several) {
      reports = await runSideBySide(plan.targets, concurrency, output.instances, cat);
    } else {
      for (const t of plan.targets) {
        const report = await runTarget(t.argv, { name: t.name, reporters: output.instances, cat });
        reports.push(report);
        if (argv.record !== undefined && reports.length === 1) {
          const { recordRun } = await import('./commands/mocks.js');
          recordFailed = recordRun(report, argv) !== 0;
        }
        if (report.exitCode > 1) break; // interrupted: the remaining targets do not run
      }
    }
  } finally {
    unhold?.();
  }
  // The invocation's baseline, over all its targets (--update-baseline: written first), in the one final step.
  const { finalizeInvocation } = await import('../core/finalize.js');
  const problem = await finalizeInvocation(reports, output);
  if (problem) {
    await write(process.stderr, `mcp-conform: ${problem}\n`);
    return 2;
  }
  // --record --check-secrets found a credential in the cassette: the run fails (whatever the baseline says).
  if (recordFailed && reports[0].exitCode === 0) reports[0].exitCode = 1;
  const code = await finishRuns(reports, output, { stderr: (s) => write(process.stderr, s) });
  // --call-tool NAME that the server does not list: a usage error (exit 2), said once the listing showed it — the
  // reports are written all the same (report.unknownCallTools names it).
  const unknown = [...new Set(reports.flatMap((r) => r.unknownCallTools ?? []))];
  if (unknown.length && code < 2) {
    await write(
      process.stderr,
      `mcp-conform: --call-tool ${unknown.join(', ')}: the server lists no tool of ${unknown.length === 1 ? 'that name' : 'those names'} (a usage error: exit 2)\n`,
    );
    return 2;
  }
  return code;
}

/** --concurrency: a whole number ≥ 1, or `auto` (the number of cores). */
function parseConcurrency(v: unknown): number {
  if (v === undefined || v === null || v === '') return 1;
  if (String(v).trim() === 'auto') return availableParallelism();
  const n = Number(v);
  if (!Number.isInteger(n) || n < 1)
    throw new Error(
      `--concurrency ${String(v)}: expected a whole number of targets at once (1 or more), or auto (the number of cores)`,
    );
  return n;
}

/**
 * --concurrency N: up to N targets at once (their servers started side by side), each with its own run as a serial
 * run would do it. The reporters' live hooks of a target are kept and replayed whole when it ends (progress lines
 * never interleave); the reports come back in config order. SIGINT/SIGTERM stops every running target (the others
 * do not start); a target that hangs is bounded by its own limits and holds no other up.
 */
async function runSideBySide(
  targets: { name?: string; argv: Record<string, unknown> }[],
  concurrency: number,
  reporters: Reporter[],
  cat: Catalogue,
): Promise<Report[]> {
  const { endOwnedOnSignals } = await import('../core/processes.js');
  const { bufferHooks } = await import('../reports/index.js');
  const { mapPool } = await import('../core/pool.js');
  const interrupt = new AbortController();
  const grace = Math.max(...targets.map((t) => Number(t.argv['shutdown-grace']) || 2000));
  endOwnedOnSignals((sig) => interrupt.abort(sig), 4 * grace + 15_000);
  return mapPool(
    targets,
    concurrency,
    async (t) => {
      const buffer = bufferHooks(reporters);
      try {
        return await runTarget(t.argv, {
          name: t.name,
          reporters: [buffer.reporter],
          cat,
          interrupt,
          stderr: buffer.stderr,
        });
      } finally {
        await buffer.flush((s) => write(process.stderr, s));
      }
    },
    { stop: interrupt.signal },
  );
}

/** `merge REPORT…`: the report.json files of a config's shards joined, written by every reporter asked for. */
async function mergeCommand(argv: Record<string, unknown>): Promise<number> {
  const { mergeReportFiles, MergeError } = await import('../reports/merge.js');
  const { prepareOutput, finishRuns, ReporterError } = await import('../reports/index.js');
  let set: Awaited<ReturnType<typeof mergeReportFiles>>;
  let output: Awaited<ReturnType<typeof prepareOutput>>;
  try {
    set = await mergeReportFiles(list(argv.report), VERSION);
    output = await prepareOutput(
      { reporter: argv.reporter, 'out-dir': argv['out-dir'], quiet: argv.quiet, verbose: argv.verbose },
      list,
      set.configFile,
    );
  } catch (e) {
    if (e instanceof MergeError || e instanceof ReporterError) throw new UsageError(e.message);
    throw e;
  }
  return finishRuns(set.runs, output, { stderr: (s) => write(process.stderr, s) });
}

/** `validate FILE`: every message of a report.json or a cassette against one version's schema, offline. */
async function validateCommand(argv: Record<string, unknown>): Promise<number> {
  const { resolve } = await import('node:path');
  const { validateLog, validationText, loadSchemaFile, InputError } = await import('../lib/validate.js');
  try {
    const schema = argv.schema !== undefined ? loadSchemaFile(resolve(String(argv.schema))) : undefined;
    const v = await validateLog(String(argv.file), {
      protocolVersion: argv['protocol-version'] as (typeof PROTOCOL_VERSIONS)[number] | undefined,
      schema,
    });
    if (argv.format === 'json') await write(process.stdout, JSON.stringify(v, null, 2) + '\n');
    else if (!argv.quiet) await write(process.stdout, validationText(v));
    return v.invalid ? 1 : 0;
  } catch (e) {
    if (e instanceof InputError) throw new UsageError(e.message);
    throw e;
  }
}

async function listCommand(argv: Record<string, unknown>): Promise<number> {
  if (argv.rules === true)
    return write(process.stdout, (await import('./commands/compat.js')).rulesText(String(argv.format))).then(() => 0);
  const { ALL_SUITES } = await import('../suites/index.js');
  const { CLIENT_SUITES } = await import('../clients/suites/index.js');
  const { specUrl } = await import('../core/schema/versions.js');
  const { catalogueVersion } = await import('../core/applies.js');
  const version = (argv['protocol-version'] as (typeof PROTOCOL_VERSIONS)[number] | undefined) ?? '2025-11-25';
  const rows = [
    ...ALL_SUITES,
    ...CLIENT_SUITES.map((s) => ({
      ...s,
      cases: s.cases.map((c) => ({
        ...c,
        perItem: undefined as string | undefined,
        requires: { from: c.from, until: c.until && PROTOCOL_VERSIONS[PROTOCOL_VERSIONS.indexOf(c.until) + 1] },
      })),
    })),
  ].map((s) => ({
    id: s.id,
    title: s.title,
    cases: s.cases.map((c) => ({
      id: c.perItem ? `${c.id}/<${c.perItem}>` : c.id,
      title: c.title,
      level: c.level,
      spec: specUrl(catalogueVersion(c, version), c.spec),
      requirement: c.requirement,
    })),
  }));
  if (argv.format === 'json') {
    await write(process.stdout, JSON.stringify({ protocolVersion: version, suites: rows }, null, 2) + '\n');
    return 0;
  }
  if (argv.format === 'markdown') {
    const { casesMarkdown } = await import('../reports/catalogue.js');
    await write(process.stdout, casesMarkdown(rows));
    return 0;
  }
  const out: string[] = [];
  for (const s of rows) {
    out.push(`${s.id} — ${s.title}`);
    for (const c of s.cases)
      out.push(`  ${c.id.padEnd(44)} ${c.level.padEnd(6)} ${c.spec}\n  ${''.padEnd(44)} ${c.title}`);
    out.push('');
  }
  await write(process.stdout, out.join('\n'));
  return 0;
}

function write(stream: NodeJS.WriteStream, s: string): Promise<void> {
  return new Promise((res) => stream.write(s, () => res()));
}

export async function dispatch(args: string[], needs: (...c: CommandName[]) => boolean): Promise<number> {
  // Each command's module is loaded only for that command (its options and its handler); the suites and their
  // options for `run` only (its flags come from them).
  const [{ default: yargs }, mockCli, compatCli, surfaceCli, cat, , expectCli, loadCli] = await Promise.all([
    import('yargs'),
    needs('serve', 'client', 'record', 'check-secrets') ? import('./commands/mocks.js') : undefined,
    needs('lint', 'tools') ? import('./commands/compat.js') : undefined,
    needs('snapshot', 'diff') ? import('../core/surface/cli.js') : undefined,
    args.includes('run') ? loadCatalogue() : { suiteIds: [], options: [] },
    // What `run` imports after parsing (runCommand, runTarget), fetched and compiled in the same batch as the above.
    needs('run')
      ? Promise.all([
          import('../lib/config.js'),
          import('../reports/index.js'),
          import('../lib/conformance.js'),
          import('../core/finalize.js'),
        ])
      : undefined,
    needs('expect') ? import('./commands/expect.js') : undefined,
    needs('load') ? import('./commands/load.js') : undefined,
  ]);
  const io = { stdout: (s: string) => write(process.stdout, s), stderr: (s: string) => write(process.stderr, s) };
  // The command typed (the first word), for "did you mean" and the help line of a usage error.
  const command = (COMMANDS as readonly string[]).includes(args[0] ?? '') ? args[0] : undefined;
  if (args[0] !== undefined && !args[0].startsWith('-') && !command) {
    process.stderr.write(`mcp-conform: ${unknownCommand(args[0], COMMANDS)}\n${helpHint(undefined)}\n`);
    return 2;
  }
  const surfaceCommand = async (f: () => Promise<number>) => {
    try {
      return await f();
    } catch (e) {
      throw e instanceof surfaceCli!.SurfaceInputError ? new UsageError(e.message) : e;
    }
  };
  let code = 0;
  let usage: string | undefined;
  const cli = yargs(args)
    .scriptName('mcp-conform')
    .usage('$0 <command> [options]\n\nConformance tests for MCP servers.')
    .command(
      'run',
      'Test a server: start it, run the suites, report',
      (y) => runOptions(y, cat),
      async (a) => {
        code = await runCommand(a, args, cat);
      },
    )
    .command(
      'merge <report..>',
      'Join the report.json files of the shards of a config (run --shard i/n) into one report, with the exit code one run over every target would have had',
      (y) =>
        y
          .positional('report', {
            type: 'string',
            array: true,
            demandOption: true,
            describe: 'report.json of each shard (any order)',
          })
          .option('reporter', {
            type: 'string',
            array: true,
            describe:
              'console, json, junit, html, sarif, github (repeatable; default: console and json; console is on unless --quiet; github is on by itself when GITHUB_ACTIONS=true)',
          })
          .option('out-dir', {
            type: 'string',
            default: 'mcp-conform-report',
            describe: 'Directory for the merged report files',
          })
          .option('verbose', {
            type: 'boolean',
            default: false,
            describe: 'Console: print the exchange of each failing case, durations and more server stderr',
          })
          .option('quiet', { type: 'boolean', default: false, describe: 'No console report' })
          .example(
            '$0 merge shard-*/report.json --reporter json --reporter html --reporter junit',
            'One report of three shards',
          ),
      async (a) => {
        code = await mergeCommand(a);
      },
    )
    .command(
      'list',
      'List every suite and case with its id, level and spec link',
      (y) =>
        y
          .option('format', {
            choices: ['text', 'json', 'markdown'],
            default: 'text',
            describe: 'Output format (markdown: the table of cases in docs/suites.md)',
          })
          .option('protocol-version', {
            choices: [...PROTOCOL_VERSIONS],
            describe: 'Spec links for this version (default 2025-11-25)',
          })
          .option('rules', {
            type: 'boolean',
            default: false,
            describe: 'Show the provider rule table of the compat suite (with sources and dates) instead of the cases',
          }),
      async (a) => {
        code = await listCommand(a);
      },
    )
    .command(
      'validate <file>',
      'Check every message of a recorded log (a report.json or a cassette), or what a mock fixture serves, against a protocol version, offline',
      (y) =>
        y
          .positional('file', {
            type: 'string',
            demandOption: true,
            describe: 'report.json, cassette (.jsonl) or mock fixture (.yaml, .json)',
          })
          .option('protocol-version', {
            choices: [...PROTOCOL_VERSIONS],
            describe: 'Check against this version (default: the version recorded in the file)',
          })
          .option('schema', {
            type: 'string',
            describe: 'Check against this JSON Schema file instead of the built-in one',
          })
          .option('format', { choices: ['text', 'json'], default: 'text', describe: 'Output format' })
          .option('quiet', { type: 'boolean', default: false, describe: 'No output; only the exit code' })
          .example('$0 validate mcp-conform-report/report.json', 'Re-check a run with the schema of its version')
          .example('$0 validate session.cassette.jsonl --protocol-version 2025-06-18', 'A cassette against 2025-06-18'),
      async (a) => {
        code = await validateCommand(a);
      },
    )
    .command(
      'lint [file]',
      'Check a saved tool list (tools/list result, report.json or cassette) for provider compatibility, quality, context cost and poisoned descriptions (security/poisoning), offline',
      (y) => compatCli!.lintOptions(y),
      async (a) => {
        code = await compatCli!.lintCommand(
          a,
          list,
          (m) => new UsageError(m),
          { stdout: (s) => write(process.stdout, s), stderr: (s) => write(process.stderr, s) },
          args,
        );
      },
    )
    .command(
      'tools [file]',
      "Print the tool list (of a server or a file) as a provider's tool configuration, with what had to change",
      (y) => compatCli!.toolsOptions(targetOptions(y)),
      async (a) => {
        code = await compatCli!.toolsCommand(a, (m) => new UsageError(m), {
          stdout: (s) => write(process.stdout, s),
          stderr: (s) => write(process.stderr, s),
        });
      },
    )
    .command(
      'serve',
      'Serve a mock MCP server: replay a cassette or a declarative fixture (stdio, --http PORT, --sse PORT)',
      (y) => mockCli!.serveOptions(y),
      async (a) => {
        code = await mockCli!.serveCommand(a);
      },
    )
    .command(
      'client',
      'Grade an MCP client: it talks to a mock that plays scenarios (--stdio "CMD {server}", --http "CMD {url}", --sse "CMD {url}")',
      (y) => mockCli!.clientOptions(y),
      async (a) => {
        code = await mockCli!.clientCommand(a);
      },
    )
    .command(
      'record',
      'Record a real session: a stdio or HTTP proxy between a client and a server, writing a cassette',
      (y) => mockCli!.recordOptions(y),
      async (a) => {
        code = await mockCli!.recordCommand(a);
      },
    )
    .command(
      'snapshot',
      'Write the surface of a server (tools, prompts, resources, capabilities), normalised, as JSON: the file diff compares',
      (y) => surfaceCli!.snapshotOptions(targetOptions(y)),
      async (a) => {
        code = await surfaceCommand(() => surfaceCli!.snapshotCommand(a, runTarget, io));
      },
    )
    .command(
      'diff <old> <new>',
      'Compare two surface snapshots (or report.json files): breaking, compatible and cosmetic changes',
      (y) => surfaceCli!.diffOptions(y),
      async (a) => {
        code = await surfaceCommand(() => surfaceCli!.diffCommand(a, io));
      },
    )
    .command(
      'expect',
      'Write an expectation file (for run --expect) of what the server answered in a recorded session: a cassette or a report.json',
      (y) => expectCli!.expectOptions(y),
      async (a) => {
        code = await expectCli!.expectCommand(a, io, (m) => new UsageError(m));
      },
    )
    .command(
      'load',
      'Hold a server under many concurrent clients: throughput, latency percentiles, errors by kind, answers that reached the wrong client, memory (docs/load.md)',
      (y) => loadCli!.loadOptions(y),
      async (a) => {
        code = await loadCli!.loadCommand(a, args, (m) => new UsageError(m));
      },
    )
    .command(
      'check-secrets <file..>',
      'List anything in cassettes that looks like a credential (exit 1 if any)',
      (y) => y.positional('file', { type: 'string', array: true }),
      async (a) => {
        code = await mockCli!.checkSecretsCommand(a);
      },
    )
    .demandCommand(
      1,
      'Name a command: run, merge, list, validate, lint, tools, serve, client, record, check-secrets, snapshot, diff, expect or load',
    )
    .strict()
    .version(VERSION)
    .help()
    .alias('h', 'help')
    .wrap(Math.min(110, process.stdout.columns || 110))
    .exitProcess(false)
    .fail((msg, err) => {
      if (err && !(err instanceof UsageError)) throw err;
      // The options of the command being parsed (yargs holds them on the instance while it parses that command).
      const known = Object.keys(
        (cli as unknown as { getOptions(): { key: Record<string, unknown> } }).getOptions().key,
      );
      throw new UsageError(explainUnknown(msg ?? err?.message ?? 'usage error', args, known, command));
    })
    .epilogue(
      'Exit codes: 0 no failing case, 1 a failing case (or a server that would not start, crashed or stopped answering), 2 a usage or configuration error, 3 an internal error, 130/143 interrupted by SIGINT/SIGTERM (partial report written).\nDocs: README.md and docs/*.md',
    );
  // yargs renders the whole help text of a command right after starting its handler (to show it should the handler
  // fail later: ~50 ms of CPU for run, in the middle of the run); this CLI never shows it then.
  const usageInstance = (
    cli as unknown as { getInternalMethods?: () => { getUsageInstance?: () => { cacheHelpMessage?: () => void } } }
  )
    .getInternalMethods?.()
    .getUsageInstance?.();
  if (typeof usageInstance?.cacheHelpMessage === 'function') usageInstance.cacheHelpMessage = () => undefined;
  try {
    await cli.parseAsync();
  } catch (e) {
    if (e instanceof UsageError) usage = e.message;
    else throw e;
  }
  if (usage) {
    const [head, ...rest] = usage.split('\n');
    process.stderr.write(
      `${[`mcp-conform${command ? ` ${command}` : ''}: ${head}`, ...rest].join('\n')}\n${helpHint(command)}\n`,
    );
    return 2;
  }
  return code;
}
