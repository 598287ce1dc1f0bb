/**
 * A target that never came up: the command was not found, the process exited before the handshake, the connection was
 * refused, DNS or TLS failed, the endpoint answered 404 (or another HTTP error), it asked for authorization the run
 * does not have, it wrote only text that is not JSON-RPC, or it answered nothing at all. The server never gave one
 * JSON-RPC answer, so nothing about it can be judged: the run records one cause (report.startFailure), the case that
 * fits fails with it (lifecycle/initialize, or the first case selected; none for a server that asks for
 * authorization: that is no fault), every other case is skipped with it, and nothing passes. The console prints a
 * paragraph instead of the cases (reports/console.ts). Issue: a server that never started was failed twice and given
 * passes for what it never sent.
 */
import type { CaseResult, StartFailure, SuiteResult } from './results.js';
import type { Session } from './session.js';
import { SessionError } from './session.js';
import type { Handshake } from './negotiate.js';
import type { Suite } from './suite.js';
import type { Target } from './transport/index.js';
import type { Transport } from './transport/types.js';
import { authRefusal, HOW_TO_GET_IN } from './auth/required.js';
import { caseWanted, phaseOf } from './run-cases.js';
import { specUrl, type ProtocolVersion } from './schema/versions.js';
import { nearest } from './suggest.js';

export type { StartFailure, StartFailureKind } from './results.js';

/** Commands a server is commonly started with: a misspelt one gets "did you mean". */
const COMMON_COMMANDS = [
  'python3',
  'python',
  'node',
  'npx',
  'uvx',
  'uv',
  'docker',
  'deno',
  'bun',
  'bunx',
  'pnpm',
  'yarn',
  'npm',
  'pipx',
  'java',
  'go',
  'cargo',
  'dotnet',
  'ruby',
  'php',
];

/** The first line of text that is not JSON-RPC, quoted short. */
function quote(s: string, max = 120): string {
  const t = s.length > max ? `${s.slice(0, max)}…` : s;
  return `'${t}'`;
}

/** The innermost reason of a failure message: "initialize (id 1) not answered: the server cannot be reached: X" → X. */
function innermost(msg: string): string {
  let m = msg.replace(/^(?:initialize|negotiation) failed: /, '');
  m = m.replace(/^[\w/]+ \(id [^)]*\) not answered: /, '');
  m = m.replace(/^the server cannot be reached: /, '');
  return m;
}

/** Whether the server ever gave a JSON-RPC answer (to the handshake, before a restart included). */
function answeredOnce(session: Session, init: Handshake): boolean {
  if (session.log.some((m) => m.direction === 'from-server' && (m.kind === 'response' || m.kind === 'error')))
    return true;
  return (init.negotiation?.steps ?? []).some(
    (s) => s.exchange?.received !== undefined && /"(?:result|error)"\s*:/.test(s.exchange.received),
  );
}

/**
 * Why the target never came up, or undefined when it did (it gave at least one JSON-RPC answer) or the run's
 * handshake went through. `aborted`: why nothing could run after the handshake (core/run.ts); `authRequired`: the
 * server asked for authorization the run does not have.
 */
export function startFailureOf(a: {
  target: Target;
  transport: Transport;
  session: Session;
  init: Handshake;
  aborted: string;
  authRequired?: string;
  timeoutMs: number;
  hasCredentials: boolean;
}): StartFailure | undefined {
  const { target, transport, session, init } = a;
  if (answeredOnce(session, init)) return undefined;
  const command = target.transport === 'stdio' ? target.command : target.start?.command;
  const cwd = target.transport === 'stdio' ? target.cwd : target.start?.cwd;
  const url = target.transport === 'stdio' ? undefined : target.url;
  const base = { ...(command ? { command } : {}), ...(cwd ? { cwd } : {}), ...(url ? { url: redact(url) } : {}) };
  const closeInfo = transport.closeInfo ?? (init.failure instanceof SessionError ? init.failure.closeInfo : undefined);
  const stderrAll = transport.processInfo()?.stderr ?? closeInfo?.stderrTail ?? [];
  const stderr = stderrAll.filter((l) => l.trim()).slice(-5);
  const noise = session.log
    .filter((m) => m.direction === 'from-server' && m.kind === 'invalid')
    .map((m) => m.raw)
    .filter((r) => r.trim());
  const exit =
    closeInfo && (closeInfo.exitCode !== undefined || closeInfo.signal)
      ? { exitCode: closeInfo.exitCode ?? null, ...(closeInfo.signal ? { signal: closeInfo.signal } : {}) }
      : {};
  const raw = init.failure?.message ?? a.aborted;
  const why = innermost(raw);

  if (a.authRequired) {
    const r = authRefusal(transport);
    const cause = a.authRequired.replace(`; ${HOW_TO_GET_IN}`, '').replace(/^the server requires authorization: /, '');
    return {
      kind: 'auth-required',
      cause,
      ...base,
      ...(r ? { status: r.status } : {}),
      stderr,
      hint: a.hasCredentials
        ? 'check the token the run gives (--header "Authorization: Bearer …", or what --oauth obtained) and the scope it carries'
        : `${HOW_TO_GET_IN}; to judge how it refuses a request without a token: --suite auth`,
    };
  }
  // A server that started an HTTP listener instead of speaking stdio ("listening on port 3001"): say how to test that.
  const listening =
    target.transport === 'stdio'
      ? [...noise, ...stderrAll]
          .map((l) =>
            /(https?:\/\/(?:127\.0\.0\.1|localhost|0\.0\.0\.0|\[::1?\])(?::\d+)?[^\s'"]*)|\b(?:listening|running|started|serving)\b[^\n]*?\bport\s+(\d{2,5})\b/i.exec(
              l,
            ),
          )
          .find(Boolean)
      : undefined;
  const asHttp = listening
    ? ` — it seems to serve HTTP instead (${listening[0]}): test it so with --start "${command}" --http ${listening[1] ? listening[1].replace('0.0.0.0', '127.0.0.1') : `http://127.0.0.1:${listening[2]}/mcp`}`
    : '';
  if (noise.length) {
    const cause = `the server wrote text that is not JSON-RPC on stdout: ${quote(noise[0]!)}${noise.length > 1 ? ` (and ${noise.length - 1} more line${noise.length === 2 ? '' : 's'})` : ''}, and never a JSON-RPC answer (stdout is for protocol messages; log to stderr)`;
    return {
      kind: 'not-json-rpc',
      cause,
      ...base,
      ...exit,
      stdout: noise.slice(0, 3),
      stderr,
      hint: command
        ? `make the server write its banner and logs to stderr; check that "${command}" starts an MCP server over stdio (some need an argument such as "stdio" or "--transport stdio")${asHttp}`
        : 'check that the URL is an MCP endpoint',
    };
  }
  const spawn =
    /^could not start the server \(.*?\): (.*)$/.exec(raw) ?? /^--start: could not start .*?: (.*)$/.exec(raw);
  if (spawn) {
    const what = spawn[1]!;
    const notFound = /^command not found: (.*)$/.exec(what);
    if (notFound) {
      const cmd = notFound[1]!;
      const near = nearest(
        cmd,
        COMMON_COMMANDS.filter((c) => c !== cmd),
      );
      return {
        kind: 'command-not-found',
        cause: what,
        ...base,
        stderr,
        hint: `${near ? `did you mean ${near}? ` : ''}check the spelling of "${cmd}" and that it is installed and on PATH (\`which ${cmd}\`)${cwd ? '' : '; a path is relative to the current directory (--cwd to change it)'}`,
      };
    }
    return {
      kind: 'spawn-failed',
      cause: what,
      ...base,
      stderr,
      hint: /permission denied/.test(what)
        ? 'make the file executable (chmod +x), or run it through its interpreter (e.g. "python3 server.py")'
        : `run the command by hand to see why it does not start: ${command ?? ''}`,
    };
  }
  if (target.transport === 'stdio' || /^--start: the server /.test(raw)) {
    if ((closeInfo && (closeInfo.exitCode !== undefined || closeInfo.signal)) || /^--start: the server /.test(raw)) {
      // The line of stderr that names the error (a traceback's last line, Node's "Error: …"), in the cause itself.
      // npm and npx name the error on their "npm error code …" line (ENOTCACHED, E404…), before the details.
      const npmCode = stderrAll.find((l) => /^\s*npm (?:error|ERR!) code\b/.test(l));
      const named =
        npmCode ??
        [...stderrAll]
          .reverse()
          .find(
            (l) =>
              /^\s*(?:Uncaught\s+)?[A-Za-z_.]*(?:Error|Exception)\b[^:]{0,40}:\s*\S/.test(l) ||
              /^\s*(?:fatal|error|panic|usage)\b/i.test(l) ||
              /can't open file|No such file or directory|Cannot find module/.test(l),
          );
      const reason =
        (/^--start: /.test(raw)
          ? raw.replace(/; last stderr lines: .*$/, '')
          : `${closeInfo!.reason} before answering anything`) + (named ? `: ${named.trim().slice(0, 200)}` : '');
      // A package that is not installed (a bare module name), as opposed to a script path that is wrong.
      const missing = stderrAll.find(
        (l) =>
          /ModuleNotFoundError|ImportError|No module named|Cannot find (?:module|package) '[^./]|ERR_MODULE_NOT_FOUND/.test(
            l,
          ) && !/Cannot find module '[./]/.test(l),
      );
      return {
        kind: 'exited',
        cause: reason,
        ...base,
        ...exit,
        stderr,
        hint: missing
          ? "a module is missing: install the server's dependencies (or activate its virtual environment), then run the command by hand to check"
          : named && /can't open file|No such file or directory|Cannot find module/.test(named) && !missing
            ? `a file of the command is not there: check its path (relative to ${cwd ?? 'the current directory'}; --cwd changes it)`
            : named && /^\s*usage\b/i.test(named)
              ? 'the server wants other arguments: its usage line is above (pass them in the command, quoted as one --stdio argument)'
              : `run the command by hand to see why it stops${command ? `: ${command}` : ''}`,
      };
    }
  }
  if (/connection refused/.test(why))
    return {
      kind: 'refused',
      cause: why,
      ...base,
      stderr,
      hint: 'start the server first (or let mcp-conform start and stop it: --start "COMMAND" with the URL), and check the host and port',
    };
  if (/DNS lookup/.test(why))
    return { kind: 'dns', cause: why, ...base, stderr, hint: 'check the host name in the URL' };
  if (/TLS|SSL|EPROTO|certificate|CERT_/i.test(why)) {
    const plain = /wrong version number|EPROTO|packet length too long/i.test(why);
    return {
      kind: 'tls',
      cause: plain
        ? `TLS failed: ${why
            .replace(/\n|\\n/g, ' ')
            .replace(/\s+/g, ' ')
            .slice(0, 200)}`
        : why,
      ...base,
      stderr,
      hint: plain
        ? 'the server does not speak TLS there: try http:// instead of https://'
        : "the server's certificate is not trusted: give its CA with NODE_EXTRA_CA_CERTS=ca.pem",
    };
  }
  const status = /HTTP (\d{3})\b/.exec(why);
  if (status && !/^HTTP 2/.test(status[0])) {
    const n = Number(status[1]);
    if (target.transport === 'sse' && (n === 404 || n === 405))
      return {
        kind: 'http-status',
        cause: why,
        ...base,
        status: n,
        stderr,
        hint: 'no HTTP+SSE stream at this URL: for a Streamable HTTP server use --http (or --url to detect which it is); an HTTP+SSE stream is often at /sse',
      };
    return {
      kind: 'http-status',
      cause: why,
      ...base,
      status: n,
      stderr,
      hint:
        n === 404
          ? "check the URL's path: the MCP endpoint is often /mcp (Streamable HTTP) or /sse (HTTP+SSE: --sse); --url tries both"
          : n === 405
            ? 'the URL does not take POST: for an HTTP+SSE server use --sse (or --url to detect)'
            : "check the URL; the server's answers are in report.json (http.exchanges)",
    };
  }
  if (
    url &&
    /unreachable|timed out|reset the connection|could not be reached|neither transport answers|SSE stream/.test(why)
  )
    return { kind: 'unreachable', cause: why, ...base, stderr, hint: 'check the URL and that the server is running' };
  if (/not answered within|no answer within|got no answer/.test(raw)) {
    return {
      kind: 'silent',
      cause: `the server answered nothing within ${a.timeoutMs} ms (${why})${target.transport === 'stdio' ? ' and wrote nothing on stdout' : ''}`,
      ...base,
      stderr,
      hint:
        target.transport === 'stdio'
          ? `check that the command starts an MCP server over stdio (some need an argument such as "stdio"); a slow start: --timeout${asHttp}`
          : 'check that the URL is the MCP endpoint; a slow server: --timeout',
    };
  }
  if (url)
    return { kind: 'unreachable', cause: why, ...base, stderr, hint: 'check the URL and that the server is running' };
  return undefined;
}

/** The URL without a password or query values (reports never show them). */
function redact(u: string): string {
  try {
    const x = new URL(u);
    if (x.password) x.password = '***';
    for (const k of [...x.searchParams.keys()]) x.searchParams.set(k, '***');
    return x.href;
  } catch {
    return u;
  }
}

/** The one-line message the cases carry. */
export function startFailureMessage(f: StartFailure): string {
  return `${f.kind === 'auth-required' ? 'the server requires authorization' : 'the server never came up'}: ${f.cause}`;
}

/**
 * The results of a run whose target never came up: every selected case is skipped with the cause, except the case that
 * fits the failure (lifecycle/initialize when it was selected, else the first case that needs the server), which
 * fails with it — unless the server only asked for authorization (no fault: nothing fails).
 */
export function startFailureResults(
  suites: Suite[],
  filter: string[] | undefined,
  f: StartFailure,
  version: ProtocolVersion,
): SuiteResult[] {
  const message = startFailureMessage(f);
  const out: SuiteResult[] = [];
  const all: CaseResult[] = [];
  for (const s of suites) {
    const cases: CaseResult[] = [];
    for (const c of s.cases) {
      if (!caseWanted(c, filter)) continue;
      // Case ids stay unique in the report: a per-item case shares its stem with the list-level case
      // (compat/openai and compat/openai/<tool>); one skip under that id says it for both.
      if (cases.some((x) => x.id === c.id)) continue;
      const r: CaseResult = {
        id: c.id,
        title: c.title,
        verdict: 'skip',
        level: c.level,
        spec: specUrl(version, c.spec),
        requirement: c.requirement,
        message,
        durationMs: 0,
        messageIds: [],
      };
      cases.push(r);
      if (phaseOf(c) === 'session') all.push(r);
    }
    out.push({ id: s.id, title: s.title, durationMs: 0, cases });
  }
  if (f.kind !== 'auth-required') {
    const failing = all.find((c) => c.id === 'lifecycle/initialize') ?? all[0] ?? out.flatMap((s) => s.cases)[0];
    if (failing) failing.verdict = 'fail';
  }
  return out;
}
