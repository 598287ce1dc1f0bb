/**
 * `mcp-conform client`: grade an MCP client. The client is started once per scenario (its own process group, bounded
 * by --timeout and --max-duration, ended with its children); the mock it talks to plays the scenario and records the
 * session; the client suites grade the recording; the reports, --strict, baselines and exit codes are those of `run`.
 *
 *   mcp-conform client --stdio "python my_client.py --server {server}"   # {server}: the mock's command line, one argument
 *   mcp-conform client --http  "node my-client.js {url}"                   # {url}: the mock's Streamable HTTP endpoint
 *   mcp-conform client --sse   "node my-client.js {url}"                   # {url}: the mock's legacy SSE endpoint
 */
import { spawn } from 'node:child_process';
import { existsSync, mkdtempSync, readFileSync, rmSync, statSync } from 'node:fs';
import { availableParallelism, tmpdir } from 'node:os';
import { join, resolve } from 'node:path';
import { fileURLToPath } from 'node:url';
import type { Argv } from 'yargs';
import { disown, endGroup, own, signalGroup } from '../../core/processes.js';
import type { Report } from '../../core/results.js';
import { shellWords, shellQuote } from '../../core/shell-words.js';
import { CLIENT_SUITES } from '../../clients/suites/index.js';
import type { ClientSuite } from '../../clients/suites/helpers.js';
import { MockInputError } from '../../core/formats/cassette.js';
import { gradeClientRun } from '../../clients/grade.js';
import {
  ClientHttpMock,
  ClientRecorder,
  defaultFixtureFile,
  readRecording,
  SCENARIOS,
  scenarioFixture,
  ScenarioSource,
  scenariosFor,
  type ClientTransport,
} from '../../mocks/client-mock.js';
import { readFixture } from '../../core/formats/fixture.js';
import { erasOf, LEGACY_VERSIONS, MODERN_VERSION } from '../../mocks/era.js';

const PROTOCOL_VERSION_LIST = [MODERN_VERSION, ...LEGACY_VERSIONS].join(', ');
import { startHttpMock } from '../../mocks/http.js';
import { startRefHost } from '../../mocks/schema-tools.js';
import { authScenario, startAuthMock, type RunningAuthMock } from '../../mocks/auth/scenarios.js';
import { pairs } from '../target-options.js';

function list(v: unknown): string[] {
  const a = Array.isArray(v) ? v : v === undefined ? [] : [v];
  return a
    .flatMap((x) => String(x).split(','))
    .map((x) => x.trim())
    .filter(Boolean);
}

export { shellQuote };

/** The client's argv: the placeholder replaced in every word that has it, or the value appended as the last argument. */
export function substitute(words: string[], placeholder: string, value: string): string[] {
  return words.some((w) => w.includes(placeholder))
    ? words.map((w) => w.split(placeholder).join(value))
    : [...words, value];
}

export function clientOptions<T>(y: Argv<T>) {
  return y
    .option('stdio', {
      type: 'string',
      describe:
        "The client command; {server} becomes the mock's command line (one argument, quoted as a shell would), else it is appended",
    })
    .option('http', {
      type: 'string',
      describe: "The client command; {url} becomes the mock's Streamable HTTP endpoint, else it is appended",
    })
    .option('sse', {
      type: 'string',
      describe: "The client command; {url} becomes the mock's legacy HTTP+SSE endpoint (GET /sse), else it is appended",
    })
    .option('scenario', {
      type: 'string',
      array: true,
      describe: `What the mock does to the client, comma-separated or repeated (${SCENARIOS.filter((s) => !s.auth)
        .map((s) => s.name)
        .join(
          ', ',
        )}; default: every one that applies to the transport, except the faults server-error and dropped-answer). The authorization scenarios (auth-…, see docs/client-auth.md) are played with --suite client-auth`,
    })
    .option('fixture', {
      type: 'string',
      describe: 'The fixture the mock serves (default: a built-in one: three tools two per page, a resource, a prompt)',
    })
    .option('protocol-version', {
      type: 'string',
      describe: `The one protocol version the mock speaks (${PROTOCOL_VERSION_LIST}); a legacy one makes it a server without 2026-07-28, so that a client's fallback is graded. Default: dual-era (initialize and 2026-07-28 alike)`,
    })
    .option('suite', {
      type: 'string',
      array: true,
      describe: `Client suites to grade with (${CLIENT_SUITES.map((s) => s.id).join(', ')})`,
    })
    .option('case', { type: 'string', array: true, describe: 'Case ids or id prefixes to grade (repeatable)' })
    .option('timeout', {
      type: 'number',
      default: 30000,
      describe:
        'Bound on each client run (ms): a client still running then is ended with its process group, and the run is reported',
    })
    .option('max-duration', {
      type: 'number',
      default: 600000,
      describe: 'Bound on the whole command (ms): scenarios not started by then are left out, the report says so',
    })
    .option('concurrency', {
      type: 'string',
      describe:
        'Scenarios played at once (each its own mock and client process): a whole number, or auto; the verdicts are those of one after another. Default: the number of cores',
    })
    .option('shutdown-grace', {
      type: 'number',
      default: 2000,
      describe: 'How long an ended client gets between SIGTERM and SIGKILL (ms)',
    })
    .option('cwd', { type: 'string', describe: 'Working directory of the client' })
    .option('env', { type: 'string', array: true, describe: 'KEY=VALUE added to the client environment (repeatable)' })
    .option('strict', { type: 'boolean', default: false, describe: 'Turn every warn into a fail' })
    .option('reporter', {
      type: 'string',
      array: true,
      describe: 'console, json, junit, html, github (repeatable; default: console and json)',
    })
    .option('baseline', { type: 'string', describe: 'YAML file of known failures (as for run)' })
    .option('update-baseline', {
      type: 'string',
      describe: 'Write the failures of this command to this baseline file, then apply it',
    })
    .option('verbose', { type: 'boolean', default: false, describe: 'Console: the exchange of each failing case' })
    .option('out-dir', { type: 'string', default: 'mcp-conform-report', describe: 'Directory for report files' })
    .option('quiet', { type: 'boolean', default: false, describe: 'No console report' })
    .example(
      '$0 client --stdio "python my_client.py --server {server}"',
      'A stdio client that starts the server it is given',
    )
    .example(
      '$0 client --http "node my-client.js {url}" --scenario session-expired',
      'A Streamable HTTP client, one scenario',
    )
    .example('$0 client --sse "node my-client.js {url}" --reporter junit', 'A legacy HTTP+SSE client');
}

/** The mock of the stdio scenarios: this CLI's `serve`, with the scenario and a log file (hidden options). */
function mockCommand(
  fixtureFile: string,
  scenario: string,
  logFile: string,
  protocolVersion?: string,
  refUrl?: string,
): string[] {
  // Bundled (dist/cli/cli.cjs) this module's URL is one of dist/cli/; built by tsc alone, of dist/bin/commands/.
  const cli =
    ['../bin/mcp-conform.js', '../mcp-conform.js']
      .map((p) => fileURLToPath(new URL(p, import.meta.url)))
      .find((f) => existsSync(f)) ?? fileURLToPath(new URL('../bin/mcp-conform.js', import.meta.url));
  return [
    process.execPath,
    cli,
    'serve',
    '--fixture',
    fixtureFile,
    '--client-scenario',
    scenario,
    '--client-log',
    logFile,
    ...(protocolVersion ? ['--protocol-version', protocolVersion] : []),
    ...(refUrl ? ['--client-ref-url', refUrl] : []),
  ];
}

interface Plan {
  transport: ClientTransport;
  command: string;
  words: string[];
  fixtureFile: string;
  timeoutMs: number;
  graceMs: number;
  strict: boolean;
  suites: ClientSuite[];
  caseFilter: string[];
  cwd?: string;
  env: Record<string, string>;
  /** --protocol-version: the mock speaks this version only (absent: dual-era). */
  protocolVersion?: string;
  /** --concurrency: scenarios played at once. */
  concurrency: number;
}

const MAX_OUTPUT_LINES = 200;

/** One client run (playScenario); the folder of a stdio mock's log is removed whatever happens. */
async function runScenario(plan: Plan, scenario: string, boundMs: number, signal?: AbortSignal): Promise<Report> {
  const temp: { dir?: string } = {};
  try {
    return await playScenario(plan, scenario, boundMs, temp, signal);
  } finally {
    if (temp.dir) rmSync(temp.dir, { recursive: true, force: true });
  }
}

/** One client run: start the mock and the client, wait (bounded), end the client's group, grade. */
async function playScenario(
  plan: Plan,
  scenario: string,
  boundMs: number,
  temp: { dir?: string },
  signal?: AbortSignal,
): Promise<Report> {
  const fixture = readFixture(plan.fixtureFile);
  const startedAt = Date.now();
  const t0 = performance.now();
  let recorder = new ClientRecorder();
  let mock: string;
  let closeMock = async () => undefined as void;
  let authMock: RunningAuthMock | undefined;
  let logFile: string | undefined;
  let dir: string | undefined;
  const env: Record<string, string> = { MCP_CONFORM_SCENARIO: scenario };
  // remote-ref: the listener that serves (and records each fetch of) the schema the mock's tool refers to.
  const refHost = scenario === 'remote-ref' ? await startRefHost() : undefined;
  if (plan.transport === 'stdio') {
    dir = temp.dir = mkdtempSync(join(tmpdir(), 'mcp-conform-client-'));
    logFile = join(dir, 'session.jsonl');
    mock = shellQuote(mockCommand(plan.fixtureFile, scenario, logFile, plan.protocolVersion, refHost?.url));
    env.MCP_CONFORM_SERVER = mock;
  } else {
    const authDef = authScenario(scenario);
    const source = new ScenarioSource(
      fixture,
      scenario,
      recorder,
      plan.transport === 'streamable-http',
      plan.fixtureFile,
      plan.protocolVersion ?? authDef?.protocolVersion,
      refHost?.url,
    );
    const o = {
      port: 0,
      kind: plan.transport,
      ...(plan.transport === 'streamable-http' ? { handler: new ClientHttpMock(source) } : {}),
    };
    if (authDef) {
      const running = await startAuthMock(source, authDef, o);
      authMock = running;
      mock = running.url;
      closeMock = () => running.close();
      if (running.client) {
        env.MCP_CONFORM_CLIENT_ID = running.client.clientId;
        env.MCP_CONFORM_CLIENT_SECRET = running.client.clientSecret;
      }
    } else {
      const running = await startHttpMock(source, o);
      mock = running.url;
      closeMock = () => running.close();
    }
    env.MCP_CONFORM_URL = mock;
  }
  // {client_id} / {client_secret}: the pre-registered credentials (empty where the scenario has none).
  const creds = (w: string[], secret: string) =>
    w.map((x) =>
      x
        .split('{client_id}')
        .join(env.MCP_CONFORM_CLIENT_ID ?? '')
        .split('{client_secret}')
        .join(secret),
    );
  const words = creds(plan.words, env.MCP_CONFORM_CLIENT_SECRET ?? '');
  const argv = substitute(words, plan.transport === 'stdio' ? '{server}' : '{url}', mock);
  const shownArgv = substitute(
    creds(plan.words, env.MCP_CONFORM_CLIENT_SECRET ? '[redacted: client secret]' : ''),
    plan.transport === 'stdio' ? '{server}' : '{url}',
    mock,
  );
  const output: string[] = [];
  let truncated = false;
  const info: { exitCode: number | null; signal: string | null; endedByHarness?: string; pid?: number } = {
    exitCode: null,
    signal: null,
  };
  let aborted: string | undefined;
  await new Promise<void>((done) => {
    const child = spawn(argv[0]!, argv.slice(1), {
      cwd: plan.cwd,
      env: { ...process.env, ...plan.env, ...env },
      stdio: ['ignore', 'pipe', 'pipe'],
      detached: true,
    });
    info.pid = child.pid;
    own(child);
    const take = (prefix: string) => {
      let rest = '';
      return (b: Buffer) => {
        rest += b.toString('utf8');
        const lines = rest.split('\n');
        rest = lines.pop()!;
        for (const l of lines) {
          if (output.length < MAX_OUTPUT_LINES) output.push(prefix + l);
          else truncated = true;
        }
      };
    };
    child.stdout!.on('data', take('[stdout] '));
    child.stderr!.on('data', take(''));
    let killTimer: NodeJS.Timeout | undefined;
    const end = (why: string) => {
      if (info.endedByHarness) return;
      info.endedByHarness = why;
      if (child.pid) signalGroup(child.pid, 'SIGTERM');
      killTimer = setTimeout(() => {
        if (child.pid) signalGroup(child.pid, 'SIGKILL');
      }, plan.graceMs);
    };
    const bound = setTimeout(() => end(`it had not finished within ${boundMs} ms`), boundMs);
    const onAbort = () => end(`mcp-conform was interrupted by ${String(signal?.reason ?? 'a signal')}`);
    if (signal?.aborted) onAbort();
    else signal?.addEventListener('abort', onAbort, { once: true });
    child.once('error', (e) => {
      clearTimeout(bound);
      signal?.removeEventListener('abort', onAbort);
      aborted = `the client could not be started: ${(e as NodeJS.ErrnoException).code ?? e.message} (${argv[0]})`;
      done();
    });
    child.once('close', (code, sig) => {
      clearTimeout(bound);
      clearTimeout(killTimer);
      signal?.removeEventListener('abort', onAbort);
      info.exitCode = code;
      info.signal = sig;
      done();
    });
  });
  // The client's helpers (over stdio: the mock it started, if it left it running) end with its group.
  if (info.pid) {
    await endGroup(info.pid, plan.graceMs);
    disown(info.pid);
  }
  await closeMock();
  await refHost?.close();
  if (logFile) {
    let text = '';
    try {
      text = readFileSync(logFile, 'utf8');
    } catch {
      /* the client never started the mock */
    }
    recorder = new ClientRecorder();
    recorder.entries.push(...readRecording(text));
  }
  if (info.endedByHarness && !aborted)
    aborted = `the client was ended: ${info.endedByHarness}${signal?.aborted ? '' : ' (--timeout)'}`;
  const auth = authMock
    ? {
        def: authScenario(scenario)!,
        mcpUrl: mock,
        resource: authMock.protected.resource,
        issuer: authMock.as.issuer,
        metadataUrls: authMock.protected.metadataUrls(),
        resourceRequests: authMock.protected.requests,
        asRequests: authMock.as.requests,
        ...(authMock.client ? { clientId: authMock.client.clientId } : {}),
        ...(authMock.protected.config.metadataAt.length
          ? { published: String(authMock.protected.metadata().resource) }
          : {}),
        ...(plan.protocolVersion ? { forcedVersion: plan.protocolVersion } : {}),
      }
    : undefined;
  return gradeClientRun({
    scenario,
    transport: plan.transport,
    command: plan.command,
    argv: shownArgv,
    mock,
    entries: recorder.entries,
    exchanges: recorder.exchanges,
    ...(auth ? { auth } : {}),
    startedAt,
    durationMs: performance.now() - t0,
    client: {
      exitCode: info.exitCode,
      signal: info.signal,
      endedByHarness: info.endedByHarness,
      durationMs: performance.now() - t0,
      pid: info.pid,
      output,
      outputTruncated: truncated,
    },
    // What the mock served: the fixture with the scenario's changes (tools added, capabilities).
    fixture: scenarioFixture(fixture, scenario, refHost?.url),
    fixtureFile: plan.fixtureFile,
    timeoutMs: boundMs,
    strict: plan.strict,
    suites: plan.suites,
    caseFilter: plan.caseFilter,
    aborted,
    ...(refHost ? { refFetches: refHost.fetches, refUrl: refHost.url } : {}),
  });
}

class UsageProblem extends Error {}

function planOf(argv: Record<string, unknown>): { plan: Plan; scenarios: string[] } {
  const given = (['stdio', 'http', 'sse'] as const).filter((k) => argv[k] !== undefined);
  if (given.length !== 1)
    throw new UsageProblem(
      given.length
        ? `give only one of --stdio, --http, --sse (got ${given.map((g) => `--${g}`).join(', ')})`
        : 'client needs the client command: --stdio "CMD {server}", --http "CMD {url}" or --sse "CMD {url}"',
    );
  const via = given[0]!;
  const transport: ClientTransport = via === 'http' ? 'streamable-http' : via;
  const command = String(argv[via]);
  let words: string[];
  try {
    words = shellWords(command);
  } catch (e) {
    throw new UsageProblem(`--${via}: ${(e as Error).message}`);
  }
  if (!words.length) throw new UsageProblem(`--${via}: the command is empty`);
  const applicable = scenariosFor(transport);
  const scenarios = list(argv.scenario);
  for (const s of scenarios) {
    if (!SCENARIOS.some((d) => d.name === s))
      throw new UsageProblem(`--scenario: unknown scenario "${s}" (known: ${SCENARIOS.map((d) => d.name).join(', ')})`);
    if (!scenariosFor(transport, true).includes(s))
      throw new UsageProblem(
        `--scenario ${s} applies to ${SCENARIOS.find((d) => d.name === s)!.transports.join(', ')}, not ${transport}`,
      );
  }
  const suiteIds = list(argv.suite);
  for (const s of suiteIds)
    if (!CLIENT_SUITES.some((x) => x.id === s))
      throw new UsageProblem(
        `--suite: unknown client suite "${s}" (known: ${CLIENT_SUITES.map((x) => x.id).join(', ')})`,
      );
  const wantsAuth = suiteIds.includes('client-auth');
  if (wantsAuth && transport === 'stdio')
    throw new UsageProblem(
      '--suite client-auth grades authorization over HTTP: give --http "CMD {url}" or --sse "CMD {url}" (stdio has no authorization)',
    );
  // --suite client-auth alone: the authorization scenarios; with other suites too: both sets.
  const defaults = wantsAuth
    ? [...(suiteIds.length > 1 ? applicable : []), ...scenariosFor(transport, false, true)]
    : applicable;
  const played = scenarios.length ? scenarios : defaults;
  const anyAuth = played.some((s) => SCENARIOS.find((d) => d.name === s)?.auth);
  // Without --suite, client-http only where it applies, client-auth only when an authorization scenario is played.
  const suites = suiteIds.length
    ? CLIENT_SUITES.filter((s) => suiteIds.includes(s.id))
    : CLIENT_SUITES.filter(
        (s) => (s.id !== 'client-http' || transport === 'streamable-http') && (s.id !== 'client-auth' || anyAuth),
      );
  const timeoutMs = Number(argv.timeout);
  if (!Number.isFinite(timeoutMs) || timeoutMs <= 0)
    throw new UsageProblem('--timeout must be a positive number of milliseconds');
  const graceMs = Number(argv['shutdown-grace']);
  if (!Number.isFinite(graceMs) || graceMs < 0)
    throw new UsageProblem('--shutdown-grace must be a number of milliseconds');
  const fixtureFile = argv.fixture !== undefined ? resolve(String(argv.fixture)) : defaultFixtureFile();
  readFixture(fixtureFile); // a bad fixture is a usage error now, not a failed scenario later
  const cwd = typeof argv.cwd === 'string' ? resolve(argv.cwd) : undefined;
  if (cwd) {
    let ok = false;
    try {
      ok = statSync(cwd).isDirectory();
    } catch {
      /* below */
    }
    if (!ok) throw new UsageProblem(`--cwd: ${cwd} is not a directory`);
  }
  const env: Record<string, string> = {};
  for (const kv of pairs(argv.env)) {
    const i = kv.indexOf('=');
    if (i <= 0) throw new UsageProblem(`--env wants KEY=VALUE, got "${kv}"`);
    env[kv.slice(0, i)] = kv.slice(i + 1);
  }
  const protocolVersion = argv['protocol-version'] === undefined ? undefined : String(argv['protocol-version']);
  if (protocolVersion !== undefined) {
    try {
      erasOf(protocolVersion, LEGACY_VERSIONS);
    } catch (e) {
      throw new UsageProblem((e as Error).message);
    }
  }
  const concurrency = concurrencyOf(argv.concurrency);
  return {
    plan: {
      transport,
      command,
      words,
      fixtureFile,
      timeoutMs,
      graceMs,
      strict: argv.strict === true,
      suites,
      caseFilter: list(argv.case),
      cwd,
      env,
      protocolVersion,
      concurrency,
    },
    scenarios: played,
  };
}

/** --concurrency: a whole number ≥ 1, or auto; absent: the number of cores. */
function concurrencyOf(v: unknown): number {
  if (v === undefined || v === null || v === '' || String(v).trim() === 'auto') return availableParallelism();
  const n = Number(v);
  if (!Number.isInteger(n) || n < 1)
    throw new UsageProblem(
      `--concurrency ${String(v)}: expected a whole number of scenarios at once (1 or more), or auto (the number of cores)`,
    );
  return n;
}

export async function clientCommand(argv: Record<string, unknown>): Promise<number> {
  const say = (s: string) => process.stderr.write(`mcp-conform: ${s}\n`);
  const { prepareOutput, finishRuns, ReporterError } = await import('../../reports/index.js');
  let planned: ReturnType<typeof planOf>;
  let output: Awaited<ReturnType<typeof prepareOutput>>;
  try {
    planned = planOf(argv);
    const maxDuration = Number(argv['max-duration']);
    if (!Number.isFinite(maxDuration) || maxDuration <= 0)
      throw new UsageProblem('--max-duration must be a positive number of milliseconds');
    output = await prepareOutput(argv, list);
  } catch (e) {
    if (e instanceof UsageProblem || e instanceof MockInputError || e instanceof ReporterError) {
      say(e.message);
      return 2;
    }
    const { BaselineError } = await import('../../core/baseline.js');
    if (e instanceof BaselineError) {
      say(e.message);
      return 2;
    }
    throw e;
  }
  const { plan, scenarios } = planned;
  const deadline = Date.now() + Number(argv['max-duration']);
  const reports: Report[] = [];
  const { endOwnedOnSignals } = await import('../../core/processes.js');
  // SIGINT/SIGTERM: the client in progress is ended with its group, the partial reports written; exit 130/143.
  const interrupt = new AbortController();
  endOwnedOnSignals((sig) => interrupt.abort(sig), 4 * plan.graceMs + 15_000);
  // Scenarios side by side (--concurrency), each with its own mock on its own port and its own client process group;
  // the reports in scenario order, as one after another would give them.
  const slots: (Report | undefined)[] = scenarios.map(() => undefined);
  const late: number[] = [];
  let next = 0;
  const worker = async () => {
    while (next < scenarios.length && !interrupt.signal.aborted) {
      const i = next++;
      const left = deadline - Date.now();
      if (left <= plan.graceMs) {
        late.push(i);
        continue;
      }
      slots[i] = await runScenario(
        plan,
        scenarios[i]!,
        Math.min(plan.timeoutMs, left - plan.graceMs),
        interrupt.signal,
      );
    }
  };
  await Promise.all(Array.from({ length: Math.min(plan.concurrency, scenarios.length) }, worker));
  for (const [i, r] of slots.entries()) {
    if (r) {
      reports.push(r);
      continue;
    }
    if (!late.includes(i)) continue;
    const last = reports[reports.length - 1];
    const note = `not run: --max-duration ran out before scenario ${scenarios[i]}`;
    if (last) {
      last.aborted = last.aborted ? `${last.aborted}; ${note}` : note;
      if (last.exitCode === 0) last.exitCode = 1;
    } else say(note);
  }
  if (!reports.length) return interrupt.signal.aborted ? (interrupt.signal.reason === 'SIGTERM' ? 143 : 130) : 1;
  // The command's baseline, over all its scenarios (--update-baseline: written first), in the one final step.
  const { finalizeInvocation } = await import('../../core/finalize.js');
  const problem = await finalizeInvocation(reports, output);
  if (problem) {
    say(problem);
    return 2;
  }
  const code = await finishRuns(reports, output, {
    stderr: (s) => new Promise<void>((r) => process.stderr.write(s, () => r())),
  });
  return interrupt.signal.aborted ? (interrupt.signal.reason === 'SIGTERM' ? 143 : 130) : code;
}

/** The hidden `serve` options of the stdio mock: `--client-scenario NAME --client-log FILE [--client-ref-url URL]`. */
export function clientServeSource(argv: Record<string, unknown>): ScenarioSource | undefined {
  if (argv['client-scenario'] === undefined) return undefined;
  const scenario = String(argv['client-scenario']);
  if (!SCENARIOS.some((d) => d.name === scenario))
    throw new MockInputError(`--client-scenario: unknown scenario "${scenario}"`);
  const file = argv.fixture !== undefined ? String(argv.fixture) : undefined;
  const pv = argv['protocol-version'] === undefined ? undefined : String(argv['protocol-version']);
  const refUrl = argv['client-ref-url'] === undefined ? undefined : String(argv['client-ref-url']);
  return ScenarioSource.fromFile(
    file,
    scenario,
    new ClientRecorder(argv['client-log'] !== undefined ? String(argv['client-log']) : undefined),
    false,
    pv,
    refUrl,
  );
}
