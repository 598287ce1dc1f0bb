/**
 * The mock commands of the CLI: `serve`, `record`, `check-secrets`, and the `--record` hook of `run`. bin/mcp-conform.ts
 * only registers them; they return an exit code (2 for a usage error: a bad flag, an unreadable cassette or fixture).
 */
import {
  AUTH_SCENARIOS,
  authScenario,
  PRE_REGISTERED_CLIENT_ID,
  type AuthScenarioDef,
} from '../../mocks/auth/scenarios.js';
import type { Argv } from 'yargs';
import { readFileSync } from 'node:fs';
import type { Report } from '../../core/results.js';
import { cassetteFromReport, MockInputError, readCassette, writeCassette } from '../../core/formats/cassette.js';
import type { MockSource } from '../../mocks/engine.js';
import { findSecrets, Redactor } from '../../core/redact.js';
import { parseHeader, parseHeaders } from '../../core/headers.js';
import { isSecretName } from '../../core/secrets.js';
export { clientOptions, clientCommand } from './client.js';
import { isRequestMethod } from '../../core/schema/validator.js';
import { FaultPlan, faultProblem, faultySource, hasFaults, type FaultOptions } from '../../mocks/faults.js';

function list(v: unknown): string[] {
  const a = Array.isArray(v) ? v : v === undefined ? [] : [v];
  return a.map(String).filter(Boolean);
}

function say(s: string): void {
  process.stderr.write(s.endsWith('\n') ? s : s + '\n');
}

export function redactOptions<T>(y: Argv<T>) {
  return y
    .option('redact', {
      type: 'string',
      array: true,
      describe: 'Regular expression whose matches are replaced by [redacted:N] in the cassette (repeatable)',
    })
    .option('redact-env', {
      type: 'string',
      array: true,
      describe: 'Environment variable whose value is replaced by [redacted:env:NAME] in the cassette (repeatable)',
    })
    .option('check-secrets', {
      type: 'boolean',
      default: false,
      describe: 'After writing the cassette, list anything in it that looks like a credential (exit 1 if any)',
    });
}

function redactorFrom(argv: Record<string, unknown>, headers: Record<string, string> = {}): Redactor {
  const secretHeaders = Object.entries(headers).filter(([k]) => isSecretName(k));
  const secrets = secretHeaders.flatMap(([k, v]) => {
    const bare = v.replace(/^(Bearer|Basic|Token)\s+/i, '');
    return [
      { value: v, placeholder: `[redacted:header:${k.toLowerCase()}]` },
      ...(bare !== v && bare.length >= 4 ? [{ value: bare, placeholder: `[redacted:header:${k.toLowerCase()}]` }] : []),
    ];
  });
  try {
    return new Redactor({
      patterns: list(argv.redact),
      envNames: list(argv['redact-env']),
      secrets,
      droppedHeaders: ['authorization', 'cookie', 'set-cookie', ...secretHeaders.map(([k]) => k)],
    });
  } catch (e) {
    throw new MockInputError((e as Error).message);
  }
}

function reportSecrets(file: string): number {
  const found = findSecrets(readFileSync(file, 'utf8'));
  if (!found.length) {
    say(`check-secrets: ${file}: nothing that looks like a credential`);
    return 0;
  }
  say(
    `check-secrets: ${file}: ${found.length} thing${found.length > 1 ? 's' : ''} that look${found.length > 1 ? '' : 's'} like a credential:`,
  );
  for (const f of found) say(`  ${file}:${f.line}: ${f.kind}: ${f.excerpt}`);
  return 1;
}

/** `run … --record FILE`: the harness's own session as a cassette (the report's message log is the source). */
export function recordRun(report: Report, argv: Record<string, unknown>): number {
  const file = String(argv.record);
  const headers = (report.target as { headers?: Record<string, string> }).headers ?? {};
  const redactor = redactorFrom(
    argv,
    Object.fromEntries(Object.entries(headers).filter(([, v]) => v !== '[redacted]')),
  );
  // The values of --header are secrets the report already hides; the raw values are only in argv.
  const raw = list(argv.header).flatMap((h) => {
    try {
      return [parseHeader(h)];
    } catch {
      return [];
    }
  });
  const r2 = raw.length ? redactorFrom(argv, Object.fromEntries(raw)) : redactor;
  writeCassette(file, cassetteFromReport(report, r2));
  say(`Cassette: ${file} (${report.messages.length} messages)`);
  return argv['check-secrets'] ? reportSecrets(file) : 0;
}

export function serveOptions<T>(y: Argv<T>) {
  return redactOptions(y)
    .option('cassette', { type: 'string', describe: 'Replay this cassette (JSON Lines)' })
    .option('fixture', { type: 'string', describe: 'Serve this declarative fixture (YAML or JSON)' })
    .option('http', {
      type: 'number',
      describe: 'Serve Streamable HTTP at http://127.0.0.1:PORT/mcp (0 = a free port, printed)',
    })
    .option('sse', { type: 'number', describe: 'Serve HTTP+SSE at http://127.0.0.1:PORT/sse (POST /message)' })
    .option('host', { type: 'string', default: '127.0.0.1', describe: 'Address to bind HTTP to' })
    .option('allow-origin', {
      type: 'string',
      array: true,
      describe: 'Origin allowed besides the server\'s own ("*": any); others get 403',
    })
    .option('mode', {
      choices: ['replay', 'record-missing', 'passthrough'],
      default: 'replay',
      describe:
        'replay: the cassette only; record-missing: the upstream answers what the cassette lacks, appended to it; passthrough: the upstream only',
    })
    .option('upstream', {
      type: 'string',
      describe:
        'The real server for record-missing / passthrough: a command (stdio) or an http(s):// URL (Streamable HTTP)',
    })
    .option('header', {
      type: 'string',
      array: true,
      describe: '"Name: value" sent to an HTTP upstream (never recorded)',
    })
    .option('timeout', { type: 'number', default: 30000, describe: 'How long to wait for an upstream answer (ms)' })
    .option('latency', { type: 'number', describe: 'Faults: delay every answer by this many ms' })
    .option('jitter', { type: 'number', describe: 'Faults: add 0..N ms to each delay (from the --seed sequence)' })
    .option('drop', {
      type: 'string',
      array: true,
      describe: 'Faults: never answer requests of this method (repeatable)',
    })
    .option('fail-rate', {
      type: 'number',
      describe: 'Faults: fail this share of requests (0..1): JSON-RPC -32603 over stdio, HTTP 503 over HTTP',
    })
    .option('seed', {
      type: 'number',
      describe: 'Faults: seed of the sequence that picks failed requests and jitter (repeatable runs)',
    })
    .option('disconnect-after', {
      type: 'number',
      describe:
        'Faults: after answering N requests, go away (stdio: exit; HTTP: close every connection and stream, then hang up on each request)',
    })
    .option('client-scenario', {
      type: 'string',
      hidden: true,
      describe: 'mcp-conform client: the scenario this mock plays',
    })
    .option('client-log', {
      type: 'string',
      hidden: true,
      describe: 'mcp-conform client: where this mock appends its recording',
    })
    .option('client-ref-url', {
      type: 'string',
      hidden: true,
      describe: 'mcp-conform client, scenario remote-ref: the URL the tool schemas refer to',
    })
    .option('protocol-version', {
      type: 'string',
      describe:
        'The one protocol version the mock speaks (2026-07-28, 2025-11-25, 2025-06-18, 2025-03-26, 2024-11-05): a legacy one answers initialize only, 2026-07-28 answers no initialize. Default: dual-era, initialize and 2026-07-28 (server/discover, _meta) alike',
    })
    .option('expire-session-after', {
      type: 'number',
      describe: 'Faults (HTTP): after N requests in a session, answer 404 for it',
    })
    .option('auth', {
      type: 'boolean',
      describe:
        'HTTP and SSE: protect the mock with OAuth — a Bearer token for every request, protected-resource metadata, and an authorization server on loopback that approves at once (docs/client-auth.md)',
    })
    .option('auth-consent', {
      type: 'boolean',
      describe:
        'With --auth: the authorization endpoint shows a one-click consent page (for a person at a browser) instead of approving at once',
    })
    .option('auth-scenario', {
      type: 'string',
      describe:
        'With --auth: how the server is set up, one of the client-auth scenarios (default auth-basic; see mcp-conform client --help and docs/client-auth.md)',
    })
    .example('$0 serve --cassette calc.jsonl', 'Replay over stdio')
    .example('$0 serve --cassette calc.jsonl --http 3000', 'Replay over Streamable HTTP at http://127.0.0.1:3000/mcp')
    .example('$0 serve --fixture fixtures/mocks/calc.yaml', 'A declarative mock over stdio')
    .example(
      '$0 serve --fixture fixtures/mocks/calc.yaml --http 0 --fail-rate 0.2 --seed 7 --latency 200',
      'A flaky, slow HTTP mock (the same failures on every run)',
    )
    .example(
      '$0 serve --fixture fixtures/mocks/calc.yaml --http 3000 --auth --auth-consent',
      'A mock behind OAuth, with a consent page for a person',
    );
}

/** The fault options of serve (undefined when none is given); a usage error when one is malformed. */
export function faultsOf(argv: Record<string, unknown>): FaultOptions | undefined {
  const num = (k: string) => (argv[k] === undefined ? undefined : Number(argv[k]));
  const o: FaultOptions = {
    latency: num('latency'),
    jitter: num('jitter'),
    drop: list(argv.drop),
    failRate: num('fail-rate'),
    seed: num('seed'),
    disconnectAfter: num('disconnect-after'),
    expireSessionAfter: num('expire-session-after'),
  };
  if (argv.drop !== undefined && (!o.drop?.length || o.drop.some((m) => !m.trim())))
    throw new MockInputError('--drop: name the method whose requests are never answered (e.g. --drop tools/call)');
  // A typo drops nothing: say so, but serve (a method of a newer draft may be meant).
  for (const m of o.drop ?? [])
    if (!isRequestMethod(m))
      say(
        `mcp-conform serve: warning: --drop ${m}: not a method of an MCP request (e.g. tools/call, resources/read); no request will be dropped by it`,
      );
  const problem = faultProblem(o);
  if (problem) throw new MockInputError(problem);
  if (o.seed !== undefined && !o.failRate && !o.jitter)
    throw new MockInputError('--seed goes with --fail-rate or --jitter');
  return hasFaults(o) ? o : undefined;
}

function headersOf(argv: Record<string, unknown>): Record<string, string> {
  try {
    return parseHeaders(list(argv.header));
  } catch (e) {
    throw new MockInputError(`--header: ${(e as Error).message}`);
  }
}

async function serveOn(
  source: MockSource & { close?: () => Promise<void> },
  argv: Record<string, unknown>,
): Promise<number> {
  const { endAllUpstreams, signalAllUpstreams } = await import('../../mocks/proxy.js');
  const stop = async () => {
    await source.close?.();
    await endAllUpstreams();
  };
  const faultOptions = faultsOf(argv);
  const faults = faultOptions ? new FaultPlan(faultOptions) : undefined;
  if (argv.http !== undefined || argv.sse !== undefined) {
    if (argv.http !== undefined && argv.sse !== undefined)
      throw new MockInputError('give one of --http PORT and --sse PORT');
    const port = Number(argv.http ?? argv.sse);
    if (!Number.isInteger(port) || port < 0 || port > 65535)
      throw new MockInputError('--http / --sse: a port number (0 for a free one)');
    const { startHttpMock } = await import('../../mocks/http.js');
    const auth = authOptionsOf(argv);
    let running;
    let authNote = '';
    try {
      const o = {
        port,
        host: String(argv.host ?? '127.0.0.1'),
        kind: argv.http !== undefined ? ('streamable-http' as const) : ('sse' as const),
        allowOrigins: list(argv['allow-origin']),
        faults,
      };
      if (auth) {
        const { startAuthMock } = await import('../../mocks/auth/scenarios.js');
        const a = await startAuthMock(source, auth.def, {
          ...o,
          consent: auth.consent,
          ...(auth.clientSecret ? { clientSecret: auth.clientSecret } : {}),
        });
        running = a;
        authNote = ` (protected: scenario ${auth.def.name}; authorization server ${a.as.issuer}${auth.consent ? ', consent page' : ', approving at once'}${a.client ? `; pre-registered client id ${a.client.clientId}, its secret the MCP_CONFORM_CLIENT_SECRET you gave` : ''})`;
      } else {
        running = await startHttpMock(source, o);
      }
    } catch (e) {
      throw new MockInputError(
        `cannot listen on ${String(argv.host)}:${port}: ${(e as NodeJS.ErrnoException).code ?? (e as Error).message}`,
      );
    }
    say(`mcp-conform serve: ${source.label} at ${running.url}${authNote}`);
    await new Promise<void>((resolve) => {
      const end = () => resolve();
      process.once('SIGINT', end);
      process.once('SIGTERM', end);
    });
    await running.close();
    await stop();
    return 0;
  }
  if (faultOptions?.expireSessionAfter !== undefined)
    throw new MockInputError(
      '--expire-session-after applies to HTTP (--http PORT or --sse PORT): stdio has no sessions to expire',
    );
  if (argv.auth)
    throw new MockInputError(
      "--auth applies to HTTP (--http PORT or --sse PORT): stdio has no authorization (the spec leaves a stdio server's credentials to its environment)",
    );
  const { serveStdio } = await import('../../mocks/stdio.js');
  // Serving ends when stdin ends, or on SIGINT/SIGTERM: then at once, the upstreams signalled too; either way the
  // cassette is written and the final line printed. A second signal ends the process the default way.
  const signalled = new AbortController();
  const onSignal = (sig: NodeJS.Signals) => {
    signalAllUpstreams(sig);
    signalled.abort();
  };
  process.once('SIGINT', onSignal);
  process.once('SIGTERM', onSignal);
  // --disconnect-after: the mock goes away once N requests are answered (the answers already written): it exits.
  faults?.whenDisconnected(() => {
    say(`mcp-conform serve: disconnecting after ${faults.answered} answered requests (--disconnect-after)`);
    signalled.abort();
    process.stdin.destroy();
  });
  try {
    await serveStdio(faults ? faultySource(source, faults) : source, process.stdin, process.stdout, {
      signal: signalled.signal,
    });
    await stop();
  } finally {
    process.off('SIGINT', onSignal);
    process.off('SIGTERM', onSignal);
  }
  return 0;
}

/** --auth, --auth-consent, --auth-scenario (a usage error when they do not fit). */
function authOptionsOf(
  argv: Record<string, unknown>,
): { def: AuthScenarioDef; consent: boolean; clientSecret?: string } | undefined {
  if (!argv.auth) {
    if (argv['auth-consent'] || argv['auth-scenario'] !== undefined)
      throw new MockInputError('--auth-consent and --auth-scenario go with --auth');
    return undefined;
  }
  const name = argv['auth-scenario'] === undefined ? 'auth-basic' : String(argv['auth-scenario']);
  const def = authScenario(name);
  if (!def)
    throw new MockInputError(
      `--auth-scenario: unknown scenario "${name}" (known: ${AUTH_SCENARIOS.map((d) => d.name).join(', ')})`,
    );
  const clientSecret = process.env.MCP_CONFORM_CLIENT_SECRET;
  // The harness never prints a secret: a pre-registered client's secret is the one the user gives.
  if (def.registration === 'pre-registered' && !clientSecret)
    throw new MockInputError(
      `--auth-scenario ${name} has a pre-registered client: give its secret in MCP_CONFORM_CLIENT_SECRET (the client id is ${PRE_REGISTERED_CLIENT_ID})`,
    );
  return {
    def,
    consent: argv['auth-consent'] === true,
    ...(def.registration === 'pre-registered' ? { clientSecret } : {}),
  };
}

export async function serveCommand(argv: Record<string, unknown>): Promise<number> {
  try {
    const mode = String(argv.mode ?? 'replay');
    const { ReplaySource } = await import('../../mocks/replay.js');
    const { FixtureSource } = await import('../../mocks/fixture.js');
    if (argv.cassette !== undefined && argv.fixture !== undefined)
      throw new MockInputError('give one of --cassette and --fixture');
    const headers = headersOf(argv);
    const upstream =
      argv.upstream === undefined
        ? undefined
        : { spec: String(argv.upstream), headers, timeoutMs: Number(argv.timeout) };
    if (mode !== 'replay' && !upstream)
      throw new MockInputError(`--mode ${mode} needs --upstream "<command>" or --upstream URL`);
    if (mode === 'passthrough') {
      const { ProxySource } = await import('../../mocks/proxy.js');
      return await serveOn(new ProxySource(upstream!), argv);
    }
    if (mode === 'record-missing') {
      if (argv.cassette === undefined)
        throw new MockInputError('--mode record-missing needs --cassette FILE (created when missing)');
      const file = String(argv.cassette);
      const { existsSync } = await import('node:fs');
      const { RecordMissingSource } = await import('../../mocks/proxy.js');
      const { newHeader } = await import('../../core/formats/cassette.js');
      const redactor = redactorFrom(argv, headers);
      const c = existsSync(file)
        ? readCassette(file)
        : {
            header: newHeader(
              'record-missing',
              /^https?:/.test(upstream!.spec) ? 'streamable-http' : 'stdio',
              redactor,
            ),
            messages: [],
          };
      return await serveOn(new RecordMissingSource(c, file, upstream!, redactor), argv);
    }
    if (argv['protocol-version'] !== undefined && argv['client-scenario'] === undefined && mode !== 'replay')
      throw new MockInputError('--protocol-version applies to a cassette or fixture served in replay mode');
    const { clientServeSource } = await import('./client.js');
    const scenario = clientServeSource(argv);
    if (scenario) return await serveOn(scenario, argv);
    const { withEras, erasOf, cassetteSpeaksModern, LEGACY_VERSIONS } = await import('../../mocks/era.js');
    const pv = argv['protocol-version'] === undefined ? undefined : String(argv['protocol-version']);
    if (pv !== undefined) {
      try {
        erasOf(pv, LEGACY_VERSIONS);
      } catch (e) {
        throw new MockInputError((e as Error).message);
      }
    }
    if (argv.cassette !== undefined) {
      const r = ReplaySource.fromFile(String(argv.cassette));
      return await serveOn(withEras(r, pv, cassetteSpeaksModern(r.cassette)), argv);
    }
    if (argv.fixture !== undefined)
      return await serveOn(withEras(FixtureSource.fromFile(String(argv.fixture)), pv), argv);
    throw new MockInputError('serve needs --cassette FILE or --fixture FILE (or --mode passthrough --upstream …)');
  } catch (e) {
    if (e instanceof MockInputError) {
      say(`mcp-conform: ${e.message}`);
      return 2;
    }
    throw e;
  }
}

export function recordOptions<T>(y: Argv<T>) {
  return redactOptions(y)
    .option('stdio', {
      type: 'string',
      describe: 'The real server: a command; mcp-conform acts as a stdio server for the client in front of it',
    })
    .option('http', { type: 'string', describe: 'The real server: a Streamable HTTP URL (with --listen-http PORT)' })
    .option('listen-http', {
      type: 'number',
      describe: 'Port for the client to reach the HTTP proxy at http://127.0.0.1:PORT/mcp',
    })
    .option('header', {
      type: 'string',
      array: true,
      describe: '"Name: value" sent upstream; never recorded, and its value is redacted wherever it appears',
    })
    .option('out', {
      type: 'string',
      demandOption: true,
      describe: 'The cassette to write (atomically, as the session goes)',
    })
    .option('timeout', { type: 'number', default: 30000, describe: 'How long to wait for an upstream answer (ms)' })
    .example('$0 record --stdio "python server.py" --out calc.jsonl', 'Sit between a stdio client and the server')
    .example('$0 record --http http://127.0.0.1:8000/mcp --listen-http 3000 --out calc.jsonl', 'An HTTP proxy');
}

export async function recordCommand(argv: Record<string, unknown>): Promise<number> {
  try {
    const { CassetteRecorder, ProxySource } = await import('../../mocks/proxy.js');
    if ((argv.stdio === undefined) === (argv.http === undefined))
      throw new MockInputError('record needs one of --stdio "<command>" and --http URL');
    if (argv.http !== undefined && argv['listen-http'] === undefined)
      throw new MockInputError('record --http URL needs --listen-http PORT');
    const headers = headersOf(argv);
    const redactor = redactorFrom(argv, headers);
    const file = String(argv.out);
    const recorder = new CassetteRecorder(
      file,
      argv.stdio !== undefined ? 'record-stdio' : 'record-http',
      argv.stdio !== undefined ? 'stdio' : 'streamable-http',
      redactor,
    );
    recorder.flush(); // the header at once: an interrupted recording still leaves a readable cassette
    const source = new ProxySource(
      { spec: String(argv.stdio ?? argv.http), headers, timeoutMs: Number(argv.timeout) },
      recorder,
    );
    const code = await serveOn(
      source,
      argv.http !== undefined ? { ...argv, http: argv['listen-http'] } : { ...argv, http: undefined },
    );
    recorder.flush();
    say(`Cassette: ${file} (${recorder.cassette.messages.length} messages)`);
    return argv['check-secrets'] ? Math.max(code, reportSecrets(file)) : code;
  } catch (e) {
    if (e instanceof MockInputError) {
      say(`mcp-conform: ${e.message}`);
      return 2;
    }
    throw e;
  }
}

export async function checkSecretsCommand(argv: Record<string, unknown>): Promise<number> {
  let code = 0;
  for (const f of list(argv.file)) {
    try {
      readCassette(f);
    } catch (e) {
      if (e instanceof MockInputError) {
        say(`mcp-conform: ${e.message}`);
        return 2;
      }
      throw e;
    }
    code = Math.max(code, reportSecrets(f));
  }
  return code;
}
