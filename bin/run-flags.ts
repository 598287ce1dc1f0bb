/** The flags of `run` (yargs), built from the suites' and the run's declared options, which are loaded only for `run`. */
import type { Argv } from 'yargs';
import { PROTOCOL_VERSIONS } from '../core/schema/versions.js';
import type { OptionDef } from '../core/options.js';
import { targetOptions } from './target-options.js';

/**
 * What `run` needs to build its flags: the suite ids and the declared options (the run's own and every suite's),
 * loaded only for `run` so that the other commands stay fast.
 */
export interface Catalogue {
  suiteIds: string[];
  options: readonly OptionDef[];
}

export async function loadCatalogue(): Promise<Catalogue> {
  const [{ ALL_SUITES }, { RUN_OPTIONS }] = await Promise.all([import('../suites/index.js'), import('../core/run.js')]);
  return {
    suiteIds: ALL_SUITES.map((s) => s.id),
    options: [...RUN_OPTIONS, ...ALL_SUITES.flatMap((s) => s.options ?? [])],
  };
}

/** A declared option as a yargs option. */
export function yargsOption(o: OptionDef): Record<string, unknown> {
  const t =
    o.type === 'string[]'
      ? { type: 'string', array: true }
      : o.choices
        ? { choices: [...o.choices] }
        : { type: o.type === 'integer' ? 'number' : o.type };
  return {
    ...t,
    describe: o.help,
    ...(o.default !== undefined && o.type !== 'string[]' ? { default: o.default } : {}),
  };
}

export function list(v: unknown): string[] {
  const a = Array.isArray(v) ? v : v === undefined ? [] : [v];
  return a
    .flatMap((x) => String(x).split(','))
    .map((x) => x.trim())
    .filter(Boolean);
}

export function runOptions(y: Argv, cat: Catalogue) {
  y = targetOptions(y)
    .option('suite', {
      type: 'string',
      array: true,
      describe: `Suites to run, comma-separated or repeated (${cat.suiteIds.join(', ')})`,
    })
    .option('case', {
      type: 'string',
      array: true,
      describe: 'Case ids or id prefixes to run (repeatable), e.g. lifecycle/ping or calling/tool/add',
    })
    .option('timeout', { type: 'number', default: 30000, describe: 'Timeout of each request (ms)' })
    .option('strict', { type: 'boolean', default: false, describe: 'Turn every warn into a fail' });
  // The call policy and the suites' own options, from their declarations (Suite.options, core/call-policy.ts).
  for (const o of cat.options) y = y.option(o.flag, yargsOption(o));
  return y
    .option('client-capabilities', {
      type: 'string',
      array: true,
      describe:
        "Client capabilities to declare, comma-separated (sampling, elicitation, roots); the server's requests for them, and in 2026-07-28 the input requests of its input_required results, get canned answers (see docs/run.md)",
    })
    .option('root', {
      type: 'string',
      array: true,
      describe:
        'With --client-capabilities roots: a root URI answered to roots/list (repeatable; default file:///mcp-conform/root)',
    })
    .option('reporter', {
      type: 'string',
      array: true,
      describe:
        'console, json, junit, html, sarif, github (repeatable; default: console and json; console is on unless --quiet; github is on by itself when GITHUB_ACTIONS=true)',
    })
    .option('config', {
      type: 'string',
      describe:
        'Config file (JSON or YAML; default: mcp-conform.config.json or .yaml in the current directory); flags override it',
    })
    .option('baseline', {
      type: 'string',
      describe:
        'YAML file of known failures: listed failing cases do not fail the run; entries that match no failure are reported stale',
    })
    .option('update-baseline', {
      type: 'string',
      describe:
        'Write the failures of this run to this baseline file (keeping reasons of entries still in use), then apply it',
    })
    .option('verbose', {
      type: 'boolean',
      default: false,
      describe:
        'Console: list every case (by default passes and skips that do not apply are only counted), with the exchange of each failing case, every duration and more server stderr',
    })
    .option('out-dir', { type: 'string', default: 'mcp-conform-report', describe: 'Directory for report files' })
    .option('protocol-version', {
      choices: [...PROTOCOL_VERSIONS],
      describe:
        'Speak only this protocol version (default: server/discover for 2026-07-28, else initialize offering 2025-11-25, accepting any published version the server answers)',
    })
    .option('all-versions', {
      type: 'boolean',
      describe:
        'Run the suites once per published protocol version (a fresh server each); report.json gets a matrix, the console a version × suite table',
    })
    .option('schema', {
      type: 'string',
      describe:
        'Validate messages with this JSON Schema file instead of the built-in schema of the version in force (dialect from its $schema)',
    })
    .option('shutdown-grace', {
      type: 'number',
      default: 2000,
      describe: 'How long each shutdown step waits for the server to exit (ms)',
    })
    .option('max-duration', {
      type: 'number',
      default: 600000,
      describe:
        'Bound on the whole run (ms): when it runs out, the remaining cases are skipped, the server is stopped and the report written (exit 1)',
    })
    .option('max-message-bytes', {
      type: 'number',
      default: 64 * 1024 * 1024,
      describe: 'Longest message accepted from the server (bytes); a longer one is cut there and reported',
    })
    .option('quiet', { type: 'boolean', default: false, describe: 'No console report' })
    .option('record', {
      type: 'string',
      describe: 'Write the session of this run to a cassette (JSON Lines) for `serve --cassette`',
    })
    .option('redact', {
      type: 'string',
      array: true,
      describe: 'With --record: regular expression whose matches the cassette replaces by [redacted:N] (repeatable)',
    })
    .option('redact-env', {
      type: 'string',
      array: true,
      describe:
        'With --record: environment variable whose value the cassette replaces by [redacted:env:NAME] (repeatable)',
    })
    .option('check-secrets', {
      type: 'boolean',
      default: false,
      describe: 'With --record: list anything in the cassette that looks like a credential (exit 1 if any)',
    })
    .option('server-json', {
      type: 'string',
      describe:
        'Test the server an MCP registry server.json describes: a remote over its transport, or a package started as its registryType says (npm via npx, pypi via uvx, oci via docker); the file is checked against the registry schema (case registry/server-json)',
    })
    .option('server-json-entry', {
      type: 'string',
      describe:
        'With --server-json: the entry to test — packages[N], remotes[N], a registryType (npm, pypi, oci), a transport (streamable-http, sse), or an identifier or URL (default: the first package whose runner is on PATH, else the first remote)',
    })
    .option('manifest', {
      type: 'string',
      describe:
        'Test the server of an unpacked MCPB bundle, started from its manifest.json mcp_config (${__dirname} and user_config substituted), and check the tools and prompts it declares against those the server lists (suite manifest)',
    })
    .option('user-config', {
      type: 'string',
      array: true,
      describe:
        'With --manifest: KEY=VALUE for the manifest\'s user_config (once per key, repeated for a "multiple" one; the value is taken whole, commas included; default: the manifest\'s defaults)',
    })
    .option('concurrency', {
      type: 'string',
      describe:
        "Targets of a config tested at once (their servers started side by side): a number, or auto for the number of cores; each target's verdicts are those of a serial run, its console output printed whole (default 1)",
    })
    .option('shard', {
      type: 'string',
      describe:
        "Run only shard INDEX/COUNT of the config's targets (e.g. 2/3), split by a hash of each target's name (or command/URL): the same target is always in the same shard; join the shards' report.json files with `mcp-conform merge`",
    })
    .option('snapshot', {
      type: 'string',
      describe:
        'Also write the surface snapshot (tools, prompts, resources, capabilities) of this run to this file (see the snapshot command)',
    })
    .option('baseline-snapshot', {
      type: 'string',
      describe: 'Snapshot file to compare the surface with: case surface/compatible fails on a breaking change',
    })
    .example('$0 run --stdio "python3 fixtures/servers/calc.py"', 'Test the bundled demo server')
    .example(
      '$0 run --stdio "python server.py" --reporter json --reporter junit --out-dir reports-out',
      'Write report.json and junit.xml for CI',
    )
    .example(
      '$0 run --stdio "npx -y @modelcontextprotocol/server-everything stdio" --suite lifecycle,listing',
      'Only two suites',
    )
    .example('$0 run --stdio "node server.js" --case calling/tool/add --strict', 'One case, warnings fail')
    .example(
      '$0 run --stdio "python server.py" --reporter html --baseline known-failures.yaml',
      'An HTML report; known failures do not fail the run',
    )
    .example('$0 run --config mcp-conform.config.yaml', 'The targets and options of a config file')
    .example(
      '$0 run --http https://example.test/mcp --header "Authorization: Bearer $TOKEN"',
      'A Streamable HTTP server',
    )
    .example(
      '$0 run --start "python server.py --port 8000" --http http://127.0.0.1:8000/mcp',
      'Start an HTTP server, test it, stop it',
    );
}
