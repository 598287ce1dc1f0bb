/**
 * The config file: `mcp-conform.config.json` / `.yaml` / `.yml` in the current directory, or `--config FILE`.
 * It holds targets (servers to test), suites, policies, reporters and a baseline; command-line flags override it.
 * Validated against `config.schema.json` (shipped in the package).
 *
 * planRuns() turns the config and the flags into one option record per target, in the shape of the `run` command's
 * parsed flags (kebab-case keys), so every target goes through the same checks as a command line does.
 */
import { existsSync, readFileSync } from 'node:fs';
import { dirname, isAbsolute, resolve } from 'node:path';
import { fileURLToPath } from 'node:url';
import { schemaErrorLines } from '../core/schema-words.js';
import { Ajv, type ErrorObject } from 'ajv';
import { parse as parseYaml } from 'yaml';
import { ALL_SUITES } from '../suites/index.js';
import { declaredOptions } from '../core/run.js';

export class ConfigError extends Error {}

export const CONFIG_FILE_NAMES = ['mcp-conform.config.json', 'mcp-conform.config.yaml', 'mcp-conform.config.yml'];

/**
 * Config keys (camelCase) and the `run` flag each one stands for; the declared options (the call policy and every
 * suite's own, see Suite.options) come from their declarations.
 */
const FLAG_OF: Record<string, string> = {
  ...Object.fromEntries(declaredOptions(ALL_SUITES).map((o) => [o.key, o.flag])),
  stdio: 'stdio',
  cwd: 'cwd',
  env: 'env',
  suites: 'suite',
  cases: 'case',
  timeout: 'timeout',
  strict: 'strict',
  protocolVersion: 'protocol-version',
  clientCapabilities: 'client-capabilities',
  roots: 'root',
  shutdownGrace: 'shutdown-grace',
  maxDuration: 'max-duration',
  maxMessageBytes: 'max-message-bytes',
  http: 'http',
  sse: 'sse',
  url: 'url',
  serverJson: 'server-json',
  serverJsonEntry: 'server-json-entry',
  manifest: 'manifest',
  userConfig: 'user-config',
  header: 'header',
  start: 'start',
  startTimeout: 'start-timeout',
  authServer: 'auth-server',
  authServerScope: 'auth-server-scope',
  reporters: 'reporter',
  outDir: 'out-dir',
  concurrency: 'concurrency',
  baseline: 'baseline',
  verbose: 'verbose',
  quiet: 'quiet',
  allVersions: 'all-versions',
  schema: 'schema',
  snapshot: 'snapshot',
  baselineSnapshot: 'baseline-snapshot',
  oauth: 'oauth',
  oauthGrant: 'oauth-grant',
  clientId: 'client-id',
  clientSecret: 'client-secret',
  clientMetadataUrl: 'client-metadata-url',
  oauthScope: 'oauth-scope',
  oauthTimeout: 'oauth-timeout',
};
/** Flags that say which server to test: given on the command line, they replace the config's targets. */
const TARGET_FLAGS = ['stdio', 'http', 'sse', 'url', 'server-json', 'manifest'];
/** Values that are paths, resolved against the config file's directory. */
const PATH_KEYS = new Set([
  'cwd',
  'outDir',
  'baseline',
  'schema',
  'snapshot',
  'baselineSnapshot',
  'expect',
  'serverJson',
  'manifest',
]);

export interface ConfigFile {
  file: string;
  dir: string;
  config: Record<string, unknown>;
}

export interface PlannedTarget {
  /** The target's name (config), if any. */
  name?: string;
  /** Options for this run, keyed like the parsed flags of `run` (kebab-case, and camelCase twins). */
  argv: Record<string, unknown>;
}

export interface RunPlan {
  /** The config file used, if any. */
  configFile?: string;
  targets: PlannedTarget[];
  /** Options that are the same for the whole invocation: reporters, out-dir, baseline, verbose, quiet, strict... */
  shared: Record<string, unknown>;
}

let schemaValidator: (((x: unknown) => boolean) & { errors?: ErrorObject[] | null }) | undefined;

/** The JSON Schema of the config file (config.schema.json at the package root). */
export function configSchema(): Record<string, unknown> {
  const here = dirname(fileURLToPath(import.meta.url));
  for (const p of [resolve(here, '..', '..', 'config.schema.json'), resolve(here, '..', 'config.schema.json')]) {
    if (existsSync(p)) return JSON.parse(readFileSync(p, 'utf8')) as Record<string, unknown>;
  }
  throw new Error('config.schema.json is missing from the package');
}

function validate(config: unknown, file: string): void {
  if (!schemaValidator) {
    const ajv = new Ajv({ allErrors: true, strict: false, verbose: true });
    schemaValidator = ajv.compile(configSchema());
  }
  if (schemaValidator(config)) return;
  // In words, at most three lines: an unknown key with the nearest known one, no oneOf dump (core/schema-words.ts).
  throw new ConfigError(
    `${file} does not fit the config schema:\n  ${schemaErrorLines(schemaValidator.errors ?? [], 3).join('\n  ')}`,
  );
}

/** Reads and checks a config file. */
export function loadConfig(file: string): ConfigFile {
  const abs = resolve(file);
  let text: string;
  try {
    text = readFileSync(abs, 'utf8');
  } catch (e) {
    throw new ConfigError(
      `cannot read the config file ${abs}: ${(e as NodeJS.ErrnoException).code ?? (e as Error).message}`,
    );
  }
  let config: unknown;
  try {
    config = /\.json$/i.test(abs) ? JSON.parse(text) : parseYaml(text);
  } catch (e) {
    throw new ConfigError(
      `${abs} is not valid ${/\.json$/i.test(abs) ? 'JSON' : 'YAML'}: ${(e as Error).message.split('\n')[0]}`,
    );
  }
  validate(config, abs);
  return { file: abs, dir: dirname(abs), config: config as Record<string, unknown> };
}

/** `--config FILE`, or the config file in `cwd`; undefined when there is none. Two candidates at once is an error. */
export function findConfig(cwd: string, explicit?: string): ConfigFile | undefined {
  if (explicit) return loadConfig(resolve(cwd, explicit));
  const found = CONFIG_FILE_NAMES.map((n) => resolve(cwd, n)).filter((p) => existsSync(p));
  if (found.length > 1) throw new ConfigError(`found ${found.join(' and ')}: keep one, or choose with --config`);
  return found.length ? loadConfig(found[0]) : undefined;
}

const kebab = (s: string) => s.replace(/[A-Z]/g, (c) => `-${c.toLowerCase()}`);
const camel = (s: string) => s.replace(/-([a-z])/g, (_, c: string) => c.toUpperCase());

/** The option names given on the command line (kebab-case), read from the raw arguments. */
export function explicitFlags(args: string[]): Set<string> {
  const out = new Set<string>();
  for (const a of args) {
    if (a === '--') break;
    const m = /^--([^=]+)/.exec(a);
    if (!m) continue;
    const name = kebab(m[1]);
    out.add(name.startsWith('no-') ? name.slice(3) : name);
  }
  return out;
}

/** A config value as the parsed flag would be. */
function asFlag(key: string, value: unknown, dir: string): unknown {
  if (PATH_KEYS.has(key) && typeof value === 'string') return isAbsolute(value) ? value : resolve(dir, value);
  if (PATH_KEYS.has(key) && Array.isArray(value))
    return value.map((v) => (typeof v === 'string' && !isAbsolute(v) ? resolve(dir, v) : v));
  // A userConfig list (an MCPB user_config with multiple: true) is the key given once per item.
  if ((key === 'env' || key === 'userConfig') && value && typeof value === 'object')
    return Object.entries(value as Record<string, unknown>).flatMap(([k, v]) =>
      (key === 'userConfig' && Array.isArray(v) ? v : [v]).map((x) => `${k}=${String(x)}`),
    );
  if (key === 'header' && value && typeof value === 'object' && !Array.isArray(value))
    return Object.entries(value as Record<string, unknown>).map(([k, v]) => `${k}: ${String(v)}`);
  return value;
}

function setFlag(argv: Record<string, unknown>, flag: string, value: unknown): void {
  argv[flag] = value;
  argv[camel(flag)] = value;
}

/**
 * A command other than `run` that takes some of the config file's top-level keys (lint: providers, maxToolTokens,
 * maxResultTokens, strict, reporters, outDir, quiet, verbose): `--config FILE` or the config in `cwd`, each of those
 * keys set as its flag unless the flag was given. Returns the file used, if any.
 */
export function applyConfigTop(
  argv: Record<string, unknown>,
  rawArgs: string[],
  cwd: string,
  keys: readonly string[],
): string | undefined {
  const cfg = findConfig(cwd, typeof argv.config === 'string' ? argv.config : undefined);
  if (!cfg) return undefined;
  const given = explicitFlags(rawArgs);
  for (const k of keys) {
    const flag = FLAG_OF[k];
    if (!flag || cfg.config[k] === undefined || given.has(flag)) continue;
    setFlag(argv, flag, asFlag(k, cfg.config[k], cfg.dir));
  }
  return cfg.file;
}

/**
 * Merges config and command line. Precedence, low to high: the flag defaults, the config's top level, the target,
 * the flags given on the command line. Flags that name a server (--stdio …) replace the config's targets with that one
 * server; `env` entries add up (later ones win per variable).
 */
export function planRuns(argv: Record<string, unknown>, rawArgs: string[], cwd: string): RunPlan {
  const given = explicitFlags(rawArgs);
  const cfg = findConfig(cwd, typeof argv.config === 'string' ? argv.config : undefined);
  const cliEnv = Array.isArray(argv.env) ? (argv.env as unknown[]).map(String) : [];
  const base: Record<string, unknown> = { ...argv };
  const top = cfg?.config ?? {};
  // The top level of the config, under the flags given.
  for (const [k, v] of Object.entries(top)) {
    const flag = FLAG_OF[k];
    if (!flag || k === 'env' || given.has(flag)) continue;
    setFlag(base, flag, asFlag(k, v, cfg!.dir));
  }
  const topEnv = (asFlag('env', top.env, cfg?.dir ?? cwd) as string[] | undefined) ?? [];
  const shared: Record<string, unknown> = {};
  for (const f of ['reporter', 'out-dir', 'baseline', 'update-baseline', 'verbose', 'quiet', 'strict', 'concurrency'])
    shared[f] = base[f];

  const cliTarget = TARGET_FLAGS.some((f) => given.has(f));
  const configTargets = (top.targets as Record<string, unknown>[] | undefined) ?? [];
  if (cliTarget || !configTargets.length) {
    const one = { ...base };
    const env = [...topEnv, ...cliEnv];
    if (env.length) setFlag(one, 'env', env);
    return { configFile: cfg?.file, targets: [{ argv: one }], shared };
  }
  const targets: PlannedTarget[] = configTargets.map((t) => {
    const one: Record<string, unknown> = { ...base };
    for (const [k, v] of Object.entries(t)) {
      const flag = FLAG_OF[k];
      if (!flag || k === 'env' || given.has(flag)) continue;
      setFlag(one, flag, asFlag(k, v, cfg!.dir));
    }
    // A server the harness starts runs in the config file's directory unless the target says otherwise (or --cwd).
    if (
      !given.has('cwd') &&
      t.cwd === undefined &&
      (t.stdio !== undefined || t.start !== undefined || t.serverJson !== undefined)
    )
      setFlag(one, 'cwd', cfg!.dir);
    const env = [...topEnv, ...((asFlag('env', t.env, cfg!.dir) as string[] | undefined) ?? []), ...cliEnv];
    if (env.length) setFlag(one, 'env', env);
    return { name: typeof t.name === 'string' ? t.name : undefined, argv: one };
  });
  const names = targets.map((t, i) => t.name ?? `#${i + 1}`);
  const dup = names.find((n, i) => names.indexOf(n) !== i);
  if (dup) throw new ConfigError(`${cfg!.file}: two targets are named "${dup}"`);
  return { configFile: cfg?.file, targets, shared };
}
