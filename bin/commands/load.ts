/**
 * `mcp-conform load`: many concurrent clients against one server (lib/load.ts): throughput, latency percentiles,
 * errors by kind, answers that reached the wrong client, memory of a server it started. Registered in bin/cli.ts.
 * Console: a progress line (rewritten on a TTY, plain lines otherwise), then a summary; reports json, junit, html.
 */
import { mkdirSync, writeFileSync } from 'node:fs';
import { join, resolve } from 'node:path';
import type { Argv } from 'yargs';
import { targetConformanceOptions, targetOptions } from '../target-options.js';

export function loadOptions(y: Argv): Argv {
  return targetOptions(y)
    .option('sessions', {
      type: 'number',
      default: 8,
      describe:
        'Concurrent clients, each its own session or connection (over stdio: requests in flight on the one server process)',
    })
    .option('duration', {
      type: 'number',
      describe: 'Seconds the load lasts (default 10; with only --requests, until they are sent)',
    })
    .option('requests', {
      type: 'number',
      describe: 'Stop after this many requests (whichever of --duration and --requests ends first)',
    })
    .option('rate', {
      type: 'number',
      describe:
        'Open loop: requests per second over all clients, whatever is in flight (needs --duration); default: closed loop, each client sends its next request once the last is answered',
    })
    .option('ramp', { type: 'number', describe: 'Start the sessions over this many seconds (default: all at once)' })
    .option('mix', {
      type: 'string',
      describe:
        'Which requests, with weights: e.g. "ping=1,tools/list=1,tools/call:echo=5,resources/read=1,prompts/get:NAME=1" (default: ping, tools/list, the read-only tools with generated arguments, resources/read of listed resources, prompts/get)',
    })
    .option('call-tools', {
      choices: ['safe', 'safe-closed', 'all', 'none'],
      default: 'safe',
      describe: 'Which tools the mix may call, as for run: safe calls only tools annotated readOnlyHint: true',
    })
    .option('call-tool', {
      type: 'string',
      array: true,
      describe: 'Also call the tool of this name, whatever --call-tools says (repeatable)',
    })
    .option('allow-remote', {
      type: 'boolean',
      default: false,
      describe:
        'Allow a target that is not on the loopback range (a staging server of your own): without it load refuses with exit 2',
    })
    .option('max-error-rate', {
      type: 'string',
      default: '1%',
      describe:
        'Fail (exit 1) when more than this share of requests fail: a percentage (1%) or a fraction (0.01); tool results with isError do not count',
    })
    .option('max-p95', { type: 'number', describe: 'Fail (exit 1) when the p95 latency passes this many milliseconds' })
    .option('timeout', { type: 'number', default: 10000, describe: 'Timeout of each request (ms)' })
    .option('protocol-version', {
      type: 'string',
      describe: 'Speak only this protocol version (default: negotiated as run does)',
    })
    .option('reporter', {
      type: 'string',
      array: true,
      default: ['console', 'json'],
      describe:
        'console, json (report.json with a top-level load object), junit (cases load/crossed, load/error-rate, load/p95, load/memory), html',
    })
    .option('out-dir', { type: 'string', default: 'mcp-conform-report', describe: 'Directory for report files' })
    .option('config', {
      type: 'string',
      describe:
        'A config file (default: mcp-conform.config.json/.yaml in the current directory) whose target to load, when no --stdio/--http/--sse/--url is given',
    })
    .option('target', { type: 'string', describe: 'With a config of several targets: the name of the one to load' })
    .example(
      '$0 load --http http://127.0.0.1:3000/mcp --sessions 16 --duration 30',
      'Sixteen sessions for thirty seconds',
    )
    .example(
      '$0 load --start "node server.js" --http http://127.0.0.1:3000/mcp --rate 200 --duration 20 --max-p95 50',
      'An open loop of 200 requests/s; fail over 50 ms p95',
    )
    .example(
      '$0 load --stdio "python3 fixtures/servers/calc.py" --sessions 4 --requests 2000',
      'Four requests in flight on a stdio server',
    );
}

function errorRateOf(v: unknown, usage: (m: string) => Error): number {
  const s = String(v).trim();
  const n = s.endsWith('%') ? Number(s.slice(0, -1)) / 100 : Number(s);
  if (!Number.isFinite(n) || n < 0 || n > 1)
    throw usage(`--max-error-rate: "${s}" is not a percentage (1%) or a fraction from 0 to 1`);
  return n;
}

export async function loadCommand(
  a: Record<string, unknown>,
  rawArgs: string[],
  usage: (m: string) => Error,
): Promise<number> {
  const { runLoadTest } = await import('../../lib/load.js');
  const { OptionsError } = await import('../../lib/conformance.js');
  const { renderLoadConsole, progressLine } = await import('../../reports/load-console.js');
  const reporters = (a.reporter as string[])
    .flatMap((r) => String(r).split(','))
    .map((r) => r.trim())
    .filter(Boolean);
  for (const r of reporters)
    if (!['console', 'json', 'junit', 'html'].includes(r))
      throw usage(`--reporter: "${r}" is not one of console, json, junit, html`);
  const given = (k: string) => rawArgs.some((x) => x === `--${k}` || x.startsWith(`--${k}=`));
  const num = (k: string) => (a[k] === undefined ? undefined : Number(a[k]));
  const tty = !!process.stderr.isTTY;
  const ac = new AbortController();
  const onSignal = (sig: NodeJS.Signals) => {
    if (!ac.signal.aborted) ac.abort(sig);
  };
  process.on('SIGINT', onSignal);
  process.on('SIGTERM', onSignal);
  let lastLine = 0;
  let report;
  // The target: the flags, or a config file's (its one target, or the one --target names).
  let t: Record<string, unknown> = a;
  if (!['stdio', 'http', 'sse', 'url'].some(given)) {
    const { planRuns, ConfigError } = await import('../../lib/config.js');
    let plan: ReturnType<typeof planRuns>;
    try {
      plan = planRuns(a, rawArgs.slice(1), process.cwd());
    } catch (e) {
      if (e instanceof ConfigError) throw usage(e.message);
      throw e;
    }
    if (plan.configFile) {
      const named = typeof a.target === 'string' ? plan.targets.filter((x) => x.name === a.target) : plan.targets;
      if (typeof a.target === 'string' && !named.length)
        throw usage(
          `--target: ${plan.configFile} has no target named "${a.target}" (it has: ${plan.targets.map((x) => x.name ?? '(unnamed)').join(', ')})`,
        );
      if (named.length > 1)
        throw usage(
          `${plan.configFile} has ${named.length} targets: name the one to load with --target NAME (${plan.targets.map((x) => x.name ?? '(unnamed)').join(', ')})`,
        );
      t = named[0]!.argv;
    }
  } else if (a.target !== undefined)
    throw usage('--target names a target of a config file: leave out --stdio/--http/--sse/--url');
  try {
    report = await runLoadTest({
      ...targetConformanceOptions(t),
      sessions: num('sessions'),
      durationS: num('duration'),
      requests: num('requests'),
      rate: num('rate'),
      rampS: num('ramp'),
      mix: typeof a.mix === 'string' ? a.mix : undefined,
      callTools: (given('call-tools') ? a['call-tools'] : (t['call-tools'] ?? a['call-tools'])) as 'safe',
      callTool:
        (t['call-tool'] ?? a['call-tool']) === undefined
          ? undefined
          : ((t['call-tool'] ?? a['call-tool']) as unknown[]).map(String),
      allowRemote: a['allow-remote'] === true,
      maxErrorRate: errorRateOf(a['max-error-rate'], usage),
      maxP95Ms: num('max-p95'),
      timeoutMs: num('timeout'),
      ...(given('protocol-version') ? { protocolVersion: String(a['protocol-version']) as 'unknown' as never } : {}),
      signal: ac.signal,
      onProgress: reporters.includes('console')
        ? (p) => {
            const line = progressLine(p);
            if (tty) process.stderr.write(`\r${line.padEnd(lastLine)}`);
            else process.stderr.write(`${line}\n`);
            lastLine = line.length;
          }
        : undefined,
    });
  } catch (e) {
    if (e instanceof OptionsError) throw usage(e.message);
    throw e;
  } finally {
    process.off('SIGINT', onSignal);
    process.off('SIGTERM', onSignal);
    if (tty && lastLine) process.stderr.write('\n');
  }
  const fails = report.suites.flatMap((s) => s.cases).filter((c) => c.verdict === 'fail').length;
  report.exitCode = ac.signal.aborted ? (ac.signal.reason === 'SIGTERM' ? 143 : 130) : fails || report.aborted ? 1 : 0;
  const outDir = resolve(String(a['out-dir']));
  const written: string[] = [];
  if (reporters.some((r) => r !== 'console')) mkdirSync(outDir, { recursive: true });
  if (reporters.includes('json')) {
    const f = join(outDir, 'report.json');
    writeFileSync(f, JSON.stringify(report, null, 2));
    written.push(f);
  }
  if (reporters.includes('junit')) {
    const { renderJunit } = await import('../../reports/junit.js');
    const f = join(outDir, 'junit.xml');
    writeFileSync(f, renderJunit(report));
    written.push(f);
  }
  if (reporters.includes('html')) {
    const { renderLoadHtml } = await import('../../reports/load-html.js');
    const f = join(outDir, 'report.html');
    writeFileSync(f, renderLoadHtml(report));
    written.push(f);
  }
  if (reporters.includes('console')) process.stdout.write(renderLoadConsole(report, written));
  return report.exitCode;
}
