/**
 * One conformance run from simple options — the path the library (`runConformance`, see index.ts) and the CLI's `run`
 * command share: the options are checked and turned into RunOptions (prepareRun), the suites run (executeRun), and
 * the report is finalized (finalizeReport) into the object report.json holds.
 *
 * The option names are those of the config file (camelCase: stdio, http, timeout, callTools…), except `headers`
 * (the config's `header`) and `suites`/`cases`, which may also hold your own Suite objects.
 */
import { CLIENT_CAPABILITY_NAMES } from '../core/client-capabilities.js';
import { statSync } from 'node:fs';
import { resolve } from 'node:path';
import { loadBaseline, BaselineError, type Baseline } from '../core/baseline.js';
import { finalizeReport } from '../core/finalize.js';
import type { Report } from '../core/results.js';
import { caseWanted, runAllVersions, runEras, type RunOptions } from '../core/run.js';
import {
  DEFAULT_OFFERED_VERSION,
  isProtocolVersion,
  PROTOCOL_VERSIONS,
  type ProtocolVersion,
} from '../core/schema/versions.js';
import { shellWords } from '../core/shell-words.js';
import type { Suite } from '../core/suite.js';
import type { CallToolsPolicy } from '../core/call-policy.js';
import { CALL_TOOLS_POLICIES } from '../core/call-policy.js';
import { normalizeOption, optionMessage, type OptionDef } from '../core/options.js';
import { reportBodiesOption } from '../core/log.js';
import { maxInFlightOption } from '../core/tools.js';
import { identifyAsOption } from '../core/client-info.js';
import { parseHeader } from '../core/headers.js';
import { headerCredentials, type Credentials } from '../core/auth/credentials.js';
import type { OAuthOptions } from '../core/auth/oauth.js';
import { ALL_SUITES } from '../suites/index.js';
import { updateExpectOption } from '../suites/expect.js';
import { createReporter, fanOut, ReporterError, type Reporter } from '../reports/index.js';
import { OptionsError, unknownKeysMessage } from './option-keys.js';
import { didYouMean } from '../core/suggest.js';
import { portOf } from '../core/urls.js';

export { OptionsError } from './option-keys.js';

/** Every key of ConformanceOptions (the compiler holds this list to the interface, both ways). */
export const CONFORMANCE_KEYS = [
  'stdio',
  'http',
  'sse',
  'url',
  'headers',
  'credentials',
  'authServer',
  'authServerScope',
  'oauth',
  'oauthGrant',
  'clientId',
  'clientSecret',
  'clientMetadataUrl',
  'oauthScope',
  'oauthTimeout',
  'start',
  'startTimeout',
  'cwd',
  'env',
  'name',
  'suites',
  'cases',
  'timeout',
  'strict',
  'callTools',
  'callTool',
  'unknownToolCode',
  'providers',
  'maxToolTokens',
  'maxResultTokens',
  'expect',
  'updateExpect',
  'reportBodies',
  'options',
  'clientCapabilities',
  'roots',
  'protocolVersion',
  'allVersions',
  'schema',
  'shutdownGrace',
  'maxDuration',
  'maxMessageBytes',
  'baseline',
  'signal',
  'reporters',
  'outDir',
] as const satisfies readonly (keyof ConformanceOptions)[];
type Missing = Exclude<keyof ConformanceOptions, (typeof CONFORMANCE_KEYS)[number]>;
// A key added to ConformanceOptions and not to the list above fails to compile here.
const complete: [Missing] extends [never] ? true : Missing = true;
void complete;

/** The keys runConformance takes: its own, and the options the suites declare (by key, at the top level). */
export function conformanceKeys(custom: readonly Suite[] = []): string[] {
  return [
    ...CONFORMANCE_KEYS,
    ...[
      reportBodiesOption as OptionDef,
      maxInFlightOption as OptionDef,
      ...[...ALL_SUITES, ...custom].flatMap((s) => s.options ?? []),
    ].map((d) => d.key),
  ];
}

/** Where the server is and how it is started: the keys every way of reaching a server shares (connect() too). */
export type ServerOptions = Pick<
  ConformanceOptions,
  'stdio' | 'http' | 'sse' | 'url' | 'headers' | 'start' | 'startTimeout' | 'cwd' | 'env'
>;

/** How a run reaches its target (the flags of bin/target-options.ts): `run`, `load` and the other commands share them. */
export type TargetConformanceOptions = ServerOptions &
  Pick<
    ConformanceOptions,
    | 'oauth'
    | 'oauthGrant'
    | 'clientId'
    | 'clientSecret'
    | 'clientMetadataUrl'
    | 'oauthScope'
    | 'oauthTimeout'
    | 'authServer'
    | 'authServerScope'
  >;

/** What runConformance takes: one server (exactly one of stdio, http, sse, url) and how to test it. */
export interface ConformanceOptions {
  /** Command that starts the server over stdio: one string, split as a shell would (quotes respected), or the argv. */
  stdio?: string | string[];
  /** URL of a Streamable HTTP server (the MCP endpoint). */
  http?: string;
  /** URL of the SSE stream of an HTTP+SSE server (protocol 2024-11-05). */
  sse?: string;
  /** URL of an HTTP server: Streamable HTTP is tried first, then HTTP+SSE. */
  url?: string;
  /** HTTP headers sent with every request: `{ Authorization: 'Bearer …' }` or `['Authorization: Bearer …']`. Redacted in the report. */
  headers?: Record<string, string> | string[];
  /**
   * HTTP: what gets the run past a protected (OAuth) server, when you hold it yourself (core/auth/credentials.ts): its
   * token goes on every request. An `Authorization: Bearer …` in `headers` becomes such credentials (source 'header').
   */
  credentials?: Credentials;
  /**
   * With start: run the harness's own OAuth authorization server on loopback for the run. Its issuer URL reaches the
   * started server as the environment variable MCP_CONFORM_AUTH_ISSUER and as `{issuer}` in the start command; the
   * run's token is one it mints for the MCP URL, and the `auth` suite mints the invalid ones its checks need.
   */
  authServer?: boolean;
  /** With authServer: the scope of the run's valid token (default: the scope the server's 401 challenge names, else its metadata's scopes_supported). */
  authServerScope?: string;
  /**
   * HTTP: get into an OAuth-protected server as the spec tells a client to (discovery, registration, authorization
   * code with PKCE on a loopback redirect, or client_credentials), before the run; see docs/authorization-oauth.md.
   */
  oauth?: boolean;
  /** With oauth: 'authorization_code' (default) or 'client_credentials' (needs clientId and clientSecret). */
  oauthGrant?: 'authorization_code' | 'client_credentials';
  /** With oauth: a client registered beforehand (else a Client ID Metadata Document or dynamic registration). */
  clientId?: string;
  /** With oauth and clientId: its secret (never written anywhere). */
  clientSecret?: string;
  /** With oauth: the URL of your Client ID Metadata Document, used where the authorization server supports them. */
  clientMetadataUrl?: string;
  /** With oauth: the scope to ask for (default: the one the server's challenge names, else its scopes_supported). */
  oauthScope?: string;
  /** With oauth: how long a login that needs a person may take (ms, default 120000). */
  oauthTimeout?: number;
  /** With http/sse/url: a command that starts the server (its own process group), stopped at the end. */
  start?: string;
  /** How long `start` waits for the URL to accept connections (ms, default 15000). */
  startTimeout?: number;
  /** Working directory of a server the harness starts (stdio or start). */
  cwd?: string;
  /** Added to the environment of a server the harness starts: `{ KEY: 'value' }` or `['KEY=value']`. */
  env?: Record<string, string> | string[];
  /** Names the target in reports. */
  name?: string;
  /**
   * Suites to run: ids of built-in suites ('lifecycle', 'listing', …) and/or your own Suite objects. Default: every
   * built-in suite that applies to the transport.
   */
  suites?: (string | Suite)[];
  /** Case ids or id prefixes to run (default all), e.g. 'lifecycle/ping' or 'calling/tool/add'. */
  cases?: string[];
  /** Timeout of each request (ms, default 30000). */
  timeout?: number;
  /** Turn every warn into a fail. */
  strict?: boolean;
  /** Which tools to call (default 'safe': only those annotated readOnlyHint: true; 'safe-closed': those also annotated openWorldHint: false). */
  callTools?: CallToolsPolicy;
  /** Tools to call on top of the policy, by name (--call-tool). */
  callTool?: string[];
  /** Demand exactly this JSON-RPC error code for an unknown tool (the unknown-tool suite's option). */
  unknownToolCode?: number;
  /** compat: provider profiles to check; only these, and their rejections fail (the compat suite's option). */
  providers?: string[];
  /** quality/token-cost fails when the tool list costs more than this many tokens (the quality suite's option). */
  maxToolTokens?: number;
  /** quality/result-size fails when a tool result is longer than this many tokens (the quality suite's option). */
  maxResultTokens?: number;
  /** Expectation files (YAML or JSON, docs/expectations.md): each expectation is a case expect/<name> (suite expect's option). */
  expect?: string[];
  /** Rewrite the expected values of failing checks in the expectation files to what the server answered (suite expect's option). */
  updateExpect?: boolean;
  /** What report.json keeps of each message: 'full' (default), 'truncated' or 'none' (a run option: --report-bodies). */
  reportBodies?: 'full' | 'truncated' | 'none';
  /**
   * Options of suites (Suite.options) by key, also of your own suites; a built-in suite's option may be given at the
   * top level too (unknownToolCode).
   */
  options?: Record<string, unknown>;
  /** Client capabilities to declare: 'sampling', 'elicitation', 'roots' (their requests get canned answers). */
  clientCapabilities?: string[];
  /** Root URIs answered to roots/list when roots is declared. */
  roots?: string[];
  /** Speak only this protocol version. */
  protocolVersion?: ProtocolVersion;
  /** Run the suites once per published protocol version (a fresh server each); the report gets a `matrix`. */
  allVersions?: boolean;
  /** A JSON Schema file to validate messages with instead of the built-in schema of the version in force. */
  schema?: string;
  /** How long each shutdown step waits for the server to exit (ms, default 2000). */
  shutdownGrace?: number;
  /** Bound on the whole run (ms, default 600000): when it runs out the remaining cases are skipped. */
  maxDuration?: number;
  /** Longest message accepted from the server (bytes, default 64 MiB, at least 1024). */
  maxMessageBytes?: number;
  /** Known failures that do not fail the run: a baseline file (YAML) or one loaded with loadBaseline. */
  baseline?: string | Baseline;
  /** Stops the run: the report covers what ran so far (exitCode 143 when the reason is 'SIGTERM', else 130). */
  signal?: AbortSignal;
  /**
   * Reporters: names ('console', 'json', 'junit', 'html', 'github': see createReporter) or your own objects with
   * hooks (onRunStart, onSuiteDone for progress, onRunDone, onFinished once the report is final). Default: none —
   * nothing is written or printed.
   */
  reporters?: (string | Reporter)[];
  /** Where reporters write files (default mcp-conform-report, resolved against the current directory). */
  outDir?: string;
}

/** Options checked and resolved: what executeRun needs. */
export interface PreparedRun {
  run: RunOptions;
  /** How progress names the target: its name, else the command or URL as given. */
  label: string;
  allVersions: boolean;
  name?: string;
  baseline?: Baseline;
  /** authServer: the harness's authorization server is started for the run (executeRun), with this scope. */
  authServer?: { scope?: string };
  /** --oauth: how to get in (done by executeRun before the run, once for --all-versions). */
  oauth?: Omit<OAuthOptions, 'mcpUrl' | 'protocolVersion' | 'headers' | 'signal'>;
}

const DEFAULTS = {
  startTimeout: 15_000,
  timeout: 30_000,
  shutdownGrace: 2_000,
  maxDuration: 600_000,
  maxMessageBytes: 64 * 1024 * 1024,
};
/** Option names in messages: the library's keys, or (the CLI) its flags. */
const KEY_OF: Record<string, string> = { header: 'headers', suite: 'suites', case: 'cases' };
const camel = (s: string) => s.replace(/-([a-z])/g, (_, c: string) => c.toUpperCase());

function asList(v: unknown): string[] {
  return (Array.isArray(v) ? v : v === undefined ? [] : [v]).map(String);
}

/**
 * Checks the options and turns them into the options of runSuites. `flags`: name options as the CLI's flags in
 * messages (`--timeout`), else as keys (`timeout`). Throws OptionsError.
 */
export async function prepareRun(o: ConformanceOptions, how: { flags?: boolean } = {}): Promise<PreparedRun> {
  const n = (flag: string) => (how.flags ? `--${flag}` : (KEY_OF[flag] ?? camel(flag)));
  const given = (['stdio', 'http', 'sse', 'url'] as const).filter((k) => o[k] !== undefined);
  if (given.length !== 1) {
    throw new OptionsError(
      given.length
        ? `give only one of ${['stdio', 'http', 'sse', 'url'].map(n).join(', ')} (got ${given.map(n).join(', ')})`
        : how.flags
          ? 'run needs a server: --stdio "<command>", --http URL, --sse URL or --url URL'
          : 'runConformance needs a server: stdio (a command), http, sse or url (a URL)',
    );
  }
  const via = given[0]!;
  if (via !== 'stdio' && o.start === undefined && (o.cwd !== undefined || o.env !== undefined))
    throw new OptionsError(
      `${n('cwd')} and ${n('env')} apply to a server the harness starts: ${n('stdio')} or ${n('start')}`,
    );
  if (via === 'stdio' && o.start !== undefined)
    throw new OptionsError(
      `${n('start')} goes with ${n('http')}, ${n('sse')} or ${n('url')} (${n('stdio')} starts its server itself)`,
    );
  if (via === 'stdio' && o.credentials !== undefined)
    throw new OptionsError(`credentials go with ${n('http')}, ${n('sse')} or ${n('url')}`);
  if (o.authServer === true) {
    if (o.start === undefined)
      throw new OptionsError(
        `${n('auth-server')} needs ${n('start')}: the harness hands its issuer to a server it starts (MCP_CONFORM_AUTH_ISSUER, {issuer})`,
      );
    if (o.credentials !== undefined)
      throw new OptionsError(`${n('auth-server')} makes the run's token: leave out credentials`);
    if (o.oauth === true) throw new OptionsError(`${n('auth-server')} makes the run's token: leave out ${n('oauth')}`);
    const auth = Array.isArray(o.headers)
      ? o.headers.some((h) => /^\s*authorization\s*:/i.test(String(h)))
      : Object.keys(o.headers ?? {}).some((k) => k.toLowerCase() === 'authorization');
    if (auth)
      throw new OptionsError(`${n('auth-server')} makes the run's token: leave out ${n('header')} Authorization`);
  } else if (o.authServerScope !== undefined)
    throw new OptionsError(`${n('auth-server-scope')} goes with ${n('auth-server')}`);
  if (o.authServer !== undefined && typeof o.authServer !== 'boolean')
    throw new OptionsError(`${n('auth-server')} is true or false`);
  if (via === 'stdio' && o.headers !== undefined)
    throw new OptionsError(`${n('header')} goes with ${n('http')}, ${n('sse')} or ${n('url')}`);
  const commandGiven = via === 'stdio' ? o.stdio : o.start;
  const flag = via === 'stdio' ? n('stdio') : n('start');
  let words: string[] = [];
  let commandText = '';
  if (commandGiven !== undefined) {
    if (Array.isArray(commandGiven)) {
      words = commandGiven.map(String);
      commandText = words.map((w) => (/^[\w@%+=:,./-]+$/.test(w) ? w : `'${w.replace(/'/g, `'\\''`)}'`)).join(' ');
    } else {
      if (typeof commandGiven !== 'string' || !commandGiven.trim())
        throw new OptionsError(`${flag}: the command is empty`);
      commandText = commandGiven;
      try {
        words = shellWords(commandGiven);
      } catch (e) {
        throw new OptionsError(`${flag}: ${(e as Error).message}`);
      }
    }
    if (!words.length) throw new OptionsError(`${flag}: the command is empty`);
  }
  let url: URL | undefined;
  if (via !== 'stdio') {
    try {
      url = new URL(String(o[via]));
    } catch {
      throw new OptionsError(
        `${n(via)}: "${String(o[via])}" is not a URL${/^[\w.-]+(:\d+)?(\/|$)/.test(String(o[via])) ? `; did you mean http://${String(o[via])}?` : ''}`,
      );
    }
    if (!/^https?:$/.test(url.protocol))
      throw new OptionsError(
        `${n(via)}: ${String(o[via])} is not an http:// or https:// URL${/^[\w.-]+:\d+(\/|$)/.test(String(o[via])) ? `; did you mean http://${String(o[via])}?` : ''}`,
      );
  }
  const headers: Record<string, string> = {};
  if (o.headers !== undefined) {
    const lines =
      Array.isArray(o.headers) || typeof o.headers !== 'object'
        ? asList(o.headers)
        : Object.entries(o.headers).map(([k, v]) => `${k}: ${String(v)}`);
    for (const h of lines) {
      try {
        const [k, v] = parseHeader(h);
        headers[k] = v;
      } catch (e) {
        throw new OptionsError(`${n('header')}: ${(e as Error).message}`);
      }
    }
  }
  const startTimeout = o.startTimeout ?? DEFAULTS.startTimeout;
  if (!Number.isFinite(startTimeout) || startTimeout <= 0)
    throw new OptionsError(`${n('start-timeout')} must be a positive number of milliseconds`);
  const cwd = typeof o.cwd === 'string' ? resolve(o.cwd) : undefined;
  if (cwd) {
    let isDir = false;
    try {
      isDir = statSync(cwd).isDirectory();
    } catch {
      /* reported below */
    }
    if (!isDir) throw new OptionsError(`${n('cwd')}: ${cwd} is not a directory`);
  }
  const env: Record<string, string> = {};
  if (o.env !== undefined && !Array.isArray(o.env) && typeof o.env === 'object') {
    for (const [k, v] of Object.entries(o.env)) env[k] = String(v);
  } else {
    for (const kv of asList(o.env)) {
      const i = kv.indexOf('=');
      if (i <= 0) throw new OptionsError(`${n('env')} wants KEY=VALUE, got "${kv}"`);
      env[kv.slice(0, i)] = kv.slice(i + 1);
    }
  }
  const custom = (o.suites ?? []).filter((s): s is Suite => typeof s === 'object' && s !== null);
  const suiteIds = (o.suites ?? []).filter((s): s is string => typeof s === 'string');
  const known = ALL_SUITES.map((s) => s.id);
  for (const s of suiteIds)
    if (!known.includes(s))
      throw new OptionsError(`${n('suite')}: unknown suite "${s}"${didYouMean(s, known)} (known: ${known.join(', ')})`);
  for (const s of custom) {
    if (typeof s.id !== 'string' || !Array.isArray(s.cases))
      throw new OptionsError(`${n('suite')}: a suite is an id or an object with id, title and cases`);
    if (known.includes(s.id) || custom.filter((x) => x.id === s.id).length > 1)
      throw new OptionsError(`${n('suite')}: two suites have the id "${s.id}"`);
  }
  // A --case that selects nothing would run nothing and pass: a usage error, with the nearest case id.
  const allCases = [...ALL_SUITES, ...custom].flatMap((s) => s.cases);
  for (const f of asList(o.cases)) {
    if (!allCases.some((c) => caseWanted(c, [f])))
      throw new OptionsError(
        `${n('case')} ${f}: no case has this id or id prefix${didYouMean(
          f,
          allCases.map((c) => c.id),
        )} (\`mcp-conform list\` lists every case)`,
      );
  }
  const timeout = o.timeout ?? DEFAULTS.timeout;
  if (!Number.isFinite(timeout) || timeout <= 0)
    throw new OptionsError(
      `${n('timeout')} must be a positive number of milliseconds (e.g. ${n('timeout')} 5000 for 5 s)`,
    );
  const grace = o.shutdownGrace ?? DEFAULTS.shutdownGrace;
  if (!Number.isFinite(grace) || grace < 0)
    throw new OptionsError(`${n('shutdown-grace')} must be a number of milliseconds`);
  const maxDuration = o.maxDuration ?? DEFAULTS.maxDuration;
  if (!Number.isFinite(maxDuration) || maxDuration <= 0)
    throw new OptionsError(`${n('max-duration')} must be a positive number of milliseconds`);
  const maxMessageBytes = o.maxMessageBytes ?? DEFAULTS.maxMessageBytes;
  if (!Number.isInteger(maxMessageBytes) || maxMessageBytes < 1024)
    throw new OptionsError(`${n('max-message-bytes')} must be a whole number of bytes, at least 1024`);
  // The suites' own options (Suite.options), --report-bodies, --max-in-flight and --identify-as: each read by its key, checked against its declaration.
  const optionValues: Record<string, unknown> = {};
  for (const d of [
    reportBodiesOption as OptionDef,
    maxInFlightOption as OptionDef,
    identifyAsOption as OptionDef,
    ...[...ALL_SUITES, ...custom].flatMap((s) => s.options ?? []),
  ]) {
    const v = normalizeOption(d, (o as Record<string, unknown>)[d.key] ?? o.options?.[d.key]);
    const problem = optionMessage(d, v, n(d.flag));
    if (problem) throw new OptionsError(problem);
    if (v !== undefined) optionValues[d.key] = v;
  }
  const callTools = o.callTools ?? 'safe';
  if (!(CALL_TOOLS_POLICIES as readonly string[]).includes(callTools))
    throw new OptionsError(
      `${n('call-tools')}: "${String(callTools)}" is not one of ${CALL_TOOLS_POLICIES.join(', ')}`,
    );
  const callToolNames = asList(o.callTool);
  const clientCapabilities = asList(o.clientCapabilities)
    .flatMap((s) => s.split(','))
    .map((s) => s.trim())
    .filter(Boolean);
  for (const cc of clientCapabilities)
    if (!(CLIENT_CAPABILITY_NAMES as readonly string[]).includes(cc))
      throw new OptionsError(
        `${n('client-capabilities')}: "${cc}" is not one of ${CLIENT_CAPABILITY_NAMES.join(', ')}`,
      );
  const roots = o.roots === undefined ? undefined : asList(o.roots).map((uri) => ({ uri }));
  if (o.protocolVersion !== undefined && !isProtocolVersion(o.protocolVersion))
    throw new OptionsError(
      `${n('protocol-version')}: "${String(o.protocolVersion)}" is not one of ${PROTOCOL_VERSIONS.join(', ')}`,
    );

  let schema: RunOptions['schema'];
  if (o.schema !== undefined) {
    const { loadSchemaFile, InputError } = await import('./validate.js');
    try {
      schema = loadSchemaFile(resolve(String(o.schema)));
    } catch (e) {
      throw e instanceof InputError ? new OptionsError(e.message) : e;
    }
  }
  if (o.allVersions === true && o.protocolVersion !== undefined)
    throw new OptionsError(`${n('all-versions')} tries every version: leave out ${n('protocol-version')}`);
  let baseline: Baseline | undefined;
  if (typeof o.baseline === 'string') {
    try {
      baseline = await loadBaseline(resolve(o.baseline));
    } catch (e) {
      throw e instanceof BaselineError ? new OptionsError(e.message) : e;
    }
  } else if (o.baseline !== undefined) baseline = o.baseline;

  const oauth = oauthOptions(o, via, headers, n);
  const command = via === 'stdio' ? commandText : String(o.start);
  // A Bearer token given as a header is the run's credentials (the header itself is still shown, redacted, in the report).
  const credentials = via === 'stdio' ? undefined : (o.credentials ?? headerCredentials(headers));
  return {
    run: {
      target:
        via === 'stdio'
          ? { transport: 'stdio', command, argv: words, cwd, env }
          : {
              transport: via === 'http' ? 'streamable-http' : via === 'sse' ? 'sse' : 'auto',
              url: url!.href,
              headers,
              ...(o.start !== undefined ? { start: { command, argv: words, cwd, env, timeoutMs: startTimeout } } : {}),
            },
      ...(credentials ? { credentials } : {}),
      suites: [...ALL_SUITES, ...custom],
      suiteFilter: [...suiteIds, ...custom.map((s) => s.id)],
      caseFilter: asList(o.cases),
      timeoutMs: timeout,
      strict: o.strict === true,
      callTools,
      callToolNames,
      optionValues,
      clientCapabilities,
      ...(roots ? { roots } : {}),
      protocolVersion: o.protocolVersion,
      shutdownGraceMs: grace,
      maxDurationMs: maxDuration,
      maxMessageBytes,
      schema,
    },
    allVersions: o.allVersions === true,
    label: o.name ?? (via === 'stdio' ? commandText : String(o[via])),
    ...(o.name !== undefined ? { name: o.name } : {}),
    ...(baseline ? { baseline } : {}),
    ...(o.authServer === true
      ? { authServer: o.authServerScope !== undefined ? { scope: String(o.authServerScope) } : {} }
      : {}),
    ...(oauth ? { oauth } : {}),
  };
}

const OAUTH_KEYS = [
  'oauthGrant',
  'clientId',
  'clientSecret',
  'clientMetadataUrl',
  'oauthScope',
  'oauthTimeout',
] as const;
const FLAG_OF_KEY: Record<(typeof OAUTH_KEYS)[number], string> = {
  oauthGrant: 'oauth-grant',
  clientId: 'client-id',
  clientSecret: 'client-secret',
  clientMetadataUrl: 'client-metadata-url',
  oauthScope: 'oauth-scope',
  oauthTimeout: 'oauth-timeout',
};

/** The --oauth options, checked (OptionsError: a usage error), or undefined without --oauth. */
function oauthOptions(
  o: ConformanceOptions,
  via: string,
  headers: Record<string, string>,
  n: (flag: string) => string,
): PreparedRun['oauth'] {
  const given = OAUTH_KEYS.filter((k) => o[k] !== undefined);
  if (o.oauth !== true) {
    if (given.length)
      throw new OptionsError(
        `${given.map((k) => n(FLAG_OF_KEY[k])).join(', ')} go${given.length === 1 ? 'es' : ''} with ${n('oauth')}`,
      );
    return undefined;
  }
  if (via === 'stdio')
    throw new OptionsError(
      `${n('oauth')} goes with ${n('http')}, ${n('sse')} or ${n('url')} (a stdio server has no authorization)`,
    );
  if (o.credentials !== undefined || Object.keys(headers).some((k) => k.toLowerCase() === 'authorization'))
    throw new OptionsError(
      `${n('oauth')} gets the token itself: leave out the Authorization ${n('header')}${o.credentials !== undefined ? ' and credentials' : ''}`,
    );
  const grant = o.oauthGrant ?? 'authorization_code';
  if (grant !== 'authorization_code' && grant !== 'client_credentials')
    throw new OptionsError(
      `${n('oauth-grant')}: "${String(grant)}" is not one of authorization_code, client_credentials`,
    );
  for (const k of ['clientId', 'clientSecret', 'clientMetadataUrl', 'oauthScope'] as const)
    if (o[k] !== undefined && (typeof o[k] !== 'string' || !o[k]))
      throw new OptionsError(`${n(FLAG_OF_KEY[k])} must be a non-empty string`);
  if (o.clientSecret !== undefined && o.clientId === undefined)
    throw new OptionsError(`${n('client-secret')} goes with ${n('client-id')}`);
  if (grant === 'client_credentials' && (o.clientId === undefined || o.clientSecret === undefined))
    throw new OptionsError(`${n('oauth-grant')} client_credentials needs ${n('client-id')} and ${n('client-secret')}`);
  if (o.clientMetadataUrl !== undefined) {
    let u: URL | undefined;
    try {
      u = new URL(o.clientMetadataUrl);
    } catch {
      /* below */
    }
    if (u?.protocol !== 'https:' || u.pathname === '/')
      throw new OptionsError(
        `${n('client-metadata-url')} must be an https URL with a path (a Client ID Metadata Document's URL is the client_id)`,
      );
  }
  const timeout = o.oauthTimeout ?? 120_000;
  if (!Number.isFinite(timeout) || timeout <= 0)
    throw new OptionsError(`${n('oauth-timeout')} must be a positive number of milliseconds`);
  return {
    grant,
    ...(o.clientId !== undefined ? { clientId: o.clientId } : {}),
    ...(o.clientSecret !== undefined ? { clientSecret: o.clientSecret } : {}),
    ...(o.clientMetadataUrl !== undefined ? { clientMetadataUrl: o.clientMetadataUrl } : {}),
    ...(o.oauthScope !== undefined ? { scope: o.oauthScope } : {}),
    timeoutMs: timeout,
  };
}

/**
 * The credentials of a prepared run: those given (credentials, a Bearer header), else --oauth's, which get in once
 * the server is up (core/auth/oauth.ts). For commands that run suites of their own on a prepared target.
 */
export async function runCredentials(p: PreparedRun, signal?: AbortSignal): Promise<Credentials | undefined> {
  const target = p.run.target;
  if (p.run.credentials || !p.oauth || target.transport === 'stdio') return p.run.credentials;
  const { oauthCredentials } = await import('../core/auth/oauth.js');
  const print =
    p.oauth.print ??
    ((line: string) => {
      process.stderr.write(`${line}\n`);
    });
  return oauthCredentials({
    ...p.oauth,
    print,
    mcpUrl: target.url,
    protocolVersion: p.run.protocolVersion ?? DEFAULT_OFFERED_VERSION,
    headers: target.headers ?? {},
    ...(signal ? { signal } : {}),
  });
}

/**
 * Runs the suites of a prepared run (every version with allVersions) and finalizes the report (but for the baseline,
 * which an invocation applies across all its targets: see runConformance). The reporters' hooks see the run go.
 */
export async function executeRun(
  p: PreparedRun,
  extra: { signal?: AbortSignal; reporters?: Reporter[]; oneEra?: boolean } = {},
): Promise<Report> {
  const hooks = fanOut(extra.reporters ?? []);
  const opts: RunOptions = {
    ...p.run,
    onSuite: hooks.onSuiteDone,
    onSessionEnd: hooks.onSessionEnd,
    ...(extra.signal ? { signal: extra.signal } : {}),
  };
  hooks.onRunStart({ label: p.label });
  if (p.oauth && !p.run.credentials) opts.credentials = p.run.credentials = await runCredentials(p, extra.signal);
  // A dual-era server is judged in both eras (core/eras.ts), but not when the run writes files from what the server
  // answered: --update-expect (a second era would rewrite the expectations) and `run --record` (oneEra: one session).
  const oneEra = extra.oneEra || opts.optionValues?.[updateExpectOption.key] === true;
  const report = await withAuthServer(p, opts, () =>
    p.allVersions ? runAllVersions(opts) : runEras(opts, { eras: !oneEra }),
  );
  if (p.name !== undefined) report.target.name = p.name;
  finalizeReport(report, { signal: opts.signal });
  hooks.onRunDone(report);
  return report;
}

/**
 * --auth-server: the harness's authorization server (mocks/auth) runs for the whole run, --all-versions included; its
 * issuer goes into the started server's environment (MCP_CONFORM_AUTH_ISSUER) and command ({issuer}), and the run's
 * credentials are its tokens for the MCP URL. Loaded only for such a run. For commands that run suites of their own
 * on a prepared target (tools) too: `opts` gets the target and credentials the run then uses.
 */
export async function withAuthServer<T>(p: PreparedRun, opts: RunOptions, run: () => Promise<T>): Promise<T> {
  if (!p.authServer || opts.target.transport === 'stdio' || !opts.target.start) return run();
  const { startAuthServer, authServerCredentials } = await import('../mocks/auth/index.js');
  const as = await startAuthServer({}, portOf(new URL(opts.target.url)));
  try {
    const issuer = as.issuer;
    const start = opts.target.start;
    opts.target = {
      ...opts.target,
      start: {
        ...start,
        command: start.command.split('{issuer}').join(issuer),
        argv: start.argv.map((w) => w.split('{issuer}').join(issuer)),
        env: { ...start.env, MCP_CONFORM_AUTH_ISSUER: issuer },
      },
    };
    opts.credentials = authServerCredentials(as, {
      resource: opts.target.url,
      scope: p.authServer.scope,
      timeoutMs: Math.min(opts.timeoutMs ?? 30_000, 5000),
    });
    return await run();
  } finally {
    await as.close();
  }
}

/**
 * Tests one server and resolves to its report: the object report.json holds, finalized as the CLI does it
 * (--strict, the baseline, an interrupted run, the exit code in `report.exitCode`). Rejects with OptionsError for
 * wrong options; a server that fails, crashes or hangs gives a report (with failing cases), not a rejection.
 * Reporters given get their hooks, and onFinished once the report is final.
 */
export async function runConformance(options: ConformanceOptions): Promise<Report> {
  if (options === null || typeof options !== 'object')
    throw new OptionsError('runConformance takes an options object: { stdio: "python server.py" }, { http: url }, …');
  const custom = (Array.isArray(options.suites) ? options.suites : []).filter(
    (s): s is Suite => typeof s === 'object' && s !== null,
  );
  const unknown = unknownKeysMessage(options, conformanceKeys(custom), 'runConformance');
  if (unknown) throw new OptionsError(unknown);
  let reporters: Reporter[];
  try {
    reporters = (options.reporters ?? []).map((r) => (typeof r === 'string' ? createReporter(r) : r));
  } catch (e) {
    throw e instanceof ReporterError ? new OptionsError(e.message.replace(/^--reporter/, 'reporters')) : e;
  }
  const prepared = await prepareRun(options);
  const report = await executeRun(prepared, { signal: options.signal, reporters });
  if (prepared.baseline) finalizeReport(report, { baseline: prepared.baseline, signal: options.signal });
  const ctx = { outDir: resolve(options.outDir ?? 'mcp-conform-report'), written: [] as string[] };
  for (const r of reporters)
    for (const f of [(await r.onFinished?.({ runs: [report] }, ctx)) ?? []].flat()) ctx.written.push(f);
  return report;
}
