/**
 * The compat suite's commands and options: `lint FILE` (compat, quality, cost and the security suite's poisoning rules on a saved tool list, offline),
 * `tools --format PROVIDER` (the tool list as a provider's tool configuration, with what had to change) and
 * `list --rules` (the provider rule table). Registered by one line each in bin/mcp-conform.ts.
 */
import { readFileSync } from 'node:fs';
import { resolve } from 'node:path';
import type { Argv } from 'yargs';
import type { CaseResult, Report, SuiteResult } from '../../core/results.js';
import type { CaseContext, ItemOutcome, Outcome, Suite, ToolCallRecord } from '../../core/suite.js';
import type { Tool, ToolListing } from '../../core/tools.js';
import { normalizeOption, optionMessage, type OptionDef } from '../../core/options.js';
import type { Service } from '../../core/services.js';
import { PROFILES, PROVIDER_IDS, RULES, RULES_VERSION } from '../../suites/compat/rules.js';
import { TARGET_FLAGS, targetConformanceOptions } from '../target-options.js';

type Err = (m: string) => Error;

/**
 * --providers, --max-tool-tokens, --max-result-tokens of `lint`: the compat and quality suites' declared options
 * (`defs`), normalized and checked as a run checks them.
 */
export function compatOptions(
  argv: Record<string, unknown>,
  defs: readonly OptionDef[],
  err: Err,
): Record<string, unknown> {
  const out: Record<string, unknown> = {};
  for (const o of defs) {
    const raw = argv[o.flag];
    const v = normalizeOption(
      o,
      o.type === 'string[]' && raw !== undefined ? (Array.isArray(raw) ? raw : [raw]).map(String) : raw,
    );
    const problem = optionMessage(o, v, `--${o.flag}`);
    if (problem) throw err(problem);
    if (v !== undefined) out[o.key] = v;
  }
  return out;
}

// ------------------------------------------------------------------------------------------------ reading files
export interface SavedTools {
  tools: Tool[];
  calls: ToolCallRecord[];
  kind: string;
  serverName?: string;
  transport?:
    | 'stdio'
    | 'streamable-http'
    | 'sse' /** The server's instructions, where the file has them (security/poisoning reads them). */;
  instructions?: string;
}

function toolsOf(v: unknown): Tool[] | undefined {
  const ok = (a: unknown): a is Tool[] =>
    Array.isArray(a) && a.every((t) => t && typeof t === 'object' && typeof (t as Tool).name === 'string');
  if (ok(v)) return v;
  if (v && typeof v === 'object') {
    const o = v as Record<string, unknown>;
    if (ok(o.tools)) return o.tools;
    if (o.result && typeof o.result === 'object' && ok((o.result as Record<string, unknown>).tools))
      return (o.result as { tools: Tool[] }).tools;
  }
  return undefined;
}

/**
 * The tool lists and tool results in a sequence of JSON-RPC messages (a report's log or a cassette).
 *
 * Which tools/call results count as tool results (quality/result-size): `counted` says so for a request (a report:
 * the calls its calling/tool/* cases point to, as the run counted them). Without it (a cassette, which has no cases),
 * a result counts when its tool was listed, it is no error (isError: true) and the request was no probe nor a task.
 */
function fromMessages(
  msgs: { dir: string; json: unknown; seq?: number; probe?: boolean }[],
  counted?: (seq: number | undefined) => boolean,
): { tools: Tool[]; calls: ToolCallRecord[] } {
  const requests = new Map<
    string,
    { method: string; params: Record<string, unknown>; seq?: number; probe?: boolean }
  >();
  const tools: Tool[] = [];
  const seen = new Set<string>();
  const calls: ToolCallRecord[] = [];
  for (const m of msgs) {
    const j = m.json as Record<string, unknown> | undefined;
    if (!j || typeof j !== 'object' || Array.isArray(j)) continue;
    const key = `${String(j.id)}`;
    if (m.dir === 'sent' && typeof j.method === 'string' && j.id !== undefined)
      requests.set(key, {
        method: j.method,
        params: (j.params ?? {}) as Record<string, unknown>,
        seq: m.seq,
        probe: m.probe,
      });
    else if (m.dir === 'received' && j.id !== undefined && 'result' in j) {
      const req = requests.get(key);
      if (req?.method === 'tools/list')
        for (const t of toolsOf(j.result) ?? [])
          if (!seen.has(t.name)) {
            seen.add(t.name);
            tools.push(t);
          }
      if (req?.method === 'tools/call' && typeof req.params.name === 'string') {
        const result = j.result as Record<string, unknown>;
        if (req.params.task !== undefined || (counted ? !counted(req.seq) : req.probe || result?.isError === true))
          continue;
        // A reply stand-in with the fields the quality suite reads (no sequence numbers offline).
        calls.push({
          method: 'tools/call',
          caseId: 'calling/tool',
          tool: req.params.name,
          purpose: 'call',
          reply: { result, request: { seq: -1 }, response: { seq: -1 } } as unknown as ToolCallRecord['reply'],
        });
      }
    }
  }
  // A cassette: only the tools the server listed (an unknown-tool probe's name is not one).
  return { tools, calls: counted ? calls : calls.filter((c) => seen.has(c.tool)) };
}

export function readSavedTools(file: string): SavedTools {
  let text: string;
  try {
    text = readFileSync(file, 'utf8');
  } catch (e) {
    throw new Error(`cannot read ${file}: ${(e as NodeJS.ErrnoException).code ?? (e as Error).message}`);
  }
  const first = text.trimStart().split('\n', 1)[0] ?? '';
  if (/"mcp-conform-cassette"/.test(first)) {
    const lines = text
      .split('\n')
      .filter((l) => l.trim())
      .map((l) => {
        try {
          return JSON.parse(l) as Record<string, unknown>;
        } catch {
          return undefined;
        }
      });
    const header = lines[0] as
      | { server?: { serverInfo?: { name?: string }; instructions?: unknown }; transport?: SavedTools['transport'] }
      | undefined;
    const msgs = lines
      .filter((l) => l?.type === 'message')
      .map((l) => ({
        dir: l!.dir === 'to-server' ? 'sent' : 'received',
        json: l!.message,
        probe: l!.probe !== undefined,
      }));
    const got = fromMessages(msgs);
    if (!got.tools.length) throw new Error(`${file}: the cassette has no tools/list answer with tools`);
    return {
      ...got,
      kind: 'cassette',
      serverName: header?.server?.serverInfo?.name,
      transport: header?.transport,
      ...(typeof header?.server?.instructions === 'string' ? { instructions: header.server.instructions } : {}),
    };
  }
  let doc: unknown;
  try {
    doc = JSON.parse(text);
  } catch (e) {
    throw new Error(`${file} is neither JSON nor a cassette: ${(e as Error).message}`);
  }
  const direct = toolsOf(doc);
  const given = (doc as { instructions?: unknown } | null)?.instructions;
  if (direct)
    return {
      tools: direct,
      calls: [],
      kind: 'tools/list result',
      ...(typeof given === 'string' ? { instructions: given } : {}),
    };
  const multi = (doc as { runs?: unknown }).runs;
  if (Array.isArray(multi)) {
    // A report of several targets (a config file): lint reads one.
    if (multi.length !== 1)
      throw new Error(
        `${file} holds the reports of ${multi.length} targets; lint reads one (run each target into its own report, or lint a cassette)`,
      );
    doc = multi[0];
  }
  const r = doc as Partial<Report>;
  if (r && Array.isArray(r.messages)) {
    // The tool results the run counted: the calls of its calling/tool/* cases (not the invalid-params, reference,
    // unknown-tool or task calls), found through their messageIds.
    const callingIds = new Set(
      (r.suites ?? [])
        .flatMap((s) => s.cases)
        .filter((c) => c.id.startsWith('calling/tool/'))
        .flatMap((c) => c.messageIds ?? []),
    );
    const got = fromMessages(
      r.messages.map((m) => ({ dir: m.direction === 'to-server' ? 'sent' : 'received', json: m.json, seq: m.seq })),
      (seq) => seq !== undefined && callingIds.has(seq),
    );
    if (!got.tools.length) throw new Error(`${file}: the report has no tools/list answer with tools`);
    return {
      ...got,
      kind: 'report.json',
      serverName: r.server?.name,
      transport: r.target?.transport,
      ...(typeof r.server?.instructions === 'string' ? { instructions: r.server.instructions } : {}),
    };
  }
  throw new Error(`${file}: not a tools/list result ({"tools": [...]}), a report.json or a cassette`);
}

// ------------------------------------------------------------------------------------------------ lint
/** Runs the cases of suites that need only the tool list (and recorded results) without a server. */
export async function runOffline(
  suites: Suite[],
  saved: SavedTools,
  options: Record<string, unknown>,
  specUrl: (p: string) => string,
): Promise<SuiteResult[]> {
  const listing: ToolListing = { tools: saved.tools, pages: [], messageIds: [], malformed: [] };
  // Run services offline: the tool list is the saved one, the others are produced once as in a run; option values
  // are the lint's.
  const produced = new Map<Service<unknown>, Promise<unknown>>();
  const ctx = {
    exchanges: saved.calls,
    capabilities: { tools: {} },
    // The handshake as far as the saved file tells it: the server's instructions (security/poisoning reads them).
    init: {
      offered: '2025-11-25',
      ...(saved.instructions !== undefined ? { reply: { result: { instructions: saved.instructions } } } : {}),
    },
    service: (s: Service<unknown>) => {
      if (s.id === 'tools') return Promise.resolve(listing);
      if (!produced.has(s)) produced.set(s, s.produce(ctx));
      return produced.get(s)!;
    },
    option: (o: OptionDef) => options[o.key] ?? o.default,
    selected: () => true,
    spec: specUrl,
  } as unknown as CaseContext;
  const out: SuiteResult[] = [];
  for (const s of suites) {
    const t0 = performance.now();
    const cases: CaseResult[] = [];
    for (const c of s.cases) {
      const base = { title: c.title, level: c.level, spec: specUrl(c.spec), requirement: c.requirement };
      const push = (id: string, o: Outcome, title?: string) =>
        cases.push({
          id,
          ...base,
          title: title ?? base.title,
          level: o.level ?? c.level,
          verdict: o.verdict,
          message: o.message,
          durationMs: 0,
          messageIds: [],
          ...(o.details ? { details: o.details } : {}),
        });
      const o = await c.run(ctx);
      if (Array.isArray(o)) for (const item of o as ItemOutcome[]) push(`${c.id}/${item.item}`, item, item.title);
      else push(c.id, o);
    }
    out.push({ id: s.id, title: s.title, durationMs: Math.round(performance.now() - t0), cases });
  }
  return out;
}

export function lintOptions(y: Argv) {
  return y
    .positional('file', {
      type: 'string',
      describe: 'A tools/list result ({"tools": [...]}), a report.json or a cassette (.jsonl)',
    })
    .option('providers', {
      type: 'string',
      array: true,
      describe: `Provider profiles to check (${PROVIDER_IDS.join(', ')}); only these, and their rejections fail`,
    })
    .option('max-tool-tokens', {
      type: 'number',
      describe: 'Fail when the tool list costs more than N tokens (estimate)',
    })
    .option('max-result-tokens', {
      type: 'number',
      describe: 'Fail when a recorded tool result is longer than N tokens (estimate)',
    })
    .option('strict', { type: 'boolean', default: false, describe: 'Turn every warn into a fail' })
    .option('reporter', {
      type: 'string',
      array: true,
      describe: 'console, json, junit, html, sarif, github (default: console)',
    })
    .option('out-dir', { type: 'string', default: 'mcp-conform-report', describe: 'Directory for report files' })
    .option('quiet', { type: 'boolean', default: false, describe: 'No console report' })
    .option('verbose', { type: 'boolean', default: false, describe: 'Console: more detail' })
    .option('config', {
      type: 'string',
      describe:
        'Config file (JSON or YAML; default: mcp-conform.config.json or .yaml in the current directory): its providers, maxToolTokens, maxResultTokens, strict, reporters, outDir, quiet and verbose apply; flags override them',
    })
    .example(
      '$0 lint tools.json',
      'Check a saved tools/list result against the default provider profiles and the poisoning rules',
    )
    .example(
      '$0 lint report.json --reporter sarif',
      'The same findings as report.sarif for code scanning (security rules carry security-severity)',
    )
    .example(
      '$0 lint mcp-conform-report/report.json --providers openai,gemini',
      'Fail when OpenAI or Gemini would reject the tools of a recorded run',
    );
}

/** The config file's top-level keys lint takes (lib/config.ts applyConfigTop). */
const LINT_CONFIG_KEYS = [
  'providers',
  'maxToolTokens',
  'maxResultTokens',
  'strict',
  'reporters',
  'outDir',
  'quiet',
  'verbose',
];

export async function lintCommand(
  argv: Record<string, unknown>,
  list: (v: unknown) => string[],
  err: Err,
  io: { stdout: (s: string) => Promise<void>; stderr: (s: string) => Promise<void> },
  rawArgs: string[] = [],
): Promise<number> {
  // The file is optional to yargs, so that an unknown flag in its place (`lint --bogus x`) is reported as such.
  if (typeof argv.file !== 'string' || !argv.file)
    throw err('lint: name the file to check (a tools/list result, a report.json or a cassette)');
  const { applyConfigTop, ConfigError } = await import('../../lib/config.js');
  try {
    applyConfigTop(argv, rawArgs, process.cwd(), LINT_CONFIG_KEYS);
  } catch (e) {
    throw e instanceof ConfigError ? err(e.message) : e;
  }
  const file = resolve(argv.file);
  const { compat } = await import('../../suites/compat.js');
  const { quality } = await import('../../suites/quality.js');
  const { offlineSecurity } = await import('../../suites/security.js');
  const options = compatOptions(
    argv,
    [compat, quality].flatMap((s) => s.options ?? []),
    err,
  );
  let saved: SavedTools;
  try {
    saved = readSavedTools(file);
  } catch (e) {
    throw err((e as Error).message);
  }
  const { specUrl } = await import('../../core/schema/versions.js');
  const { summarize } = await import('../../core/results.js');
  const { VERSION } = await import('../../core/version.js');
  const t0 = Date.now();
  const suites = await runOffline([compat, quality, offlineSecurity], saved, options, (p) => specUrl('2025-11-25', p));
  if (argv.strict === true)
    for (const s of suites)
      for (const c of s.cases)
        if (c.verdict === 'warn') {
          c.verdict = 'fail';
          c.strictFromWarn = true;
        }
  const summary = summarize(suites, []);
  const report: Report = {
    tool: { name: 'mcp-conform', version: VERSION },
    reportVersion: 1,
    startedAt: new Date(t0).toISOString(),
    durationMs: Date.now() - t0,
    exitCode: summary.fail > 0 ? 1 : 0,
    summary,
    server: { name: saved.serverName, toolCount: saved.tools.length },
    // lint reads a file: the target names it (transport is required by the report model; there was no session).
    target: { transport: saved.transport ?? 'stdio', command: file },
    process: { stderr: [] },
    options: {
      lint: { file, kind: saved.kind },
      strict: argv.strict === true,
      suites: suites.map((s) => s.id),
      ...(Object.keys(options).length ? { suiteOptions: options } : {}),
    },
    skippedTools: [],
    suites,
    messages: [],
  };
  const { prepareOutput, finishRuns, processIO } = await import('../../reports/index.js');
  const shared = {
    reporter: argv.reporter ?? ['console'],
    'out-dir': argv['out-dir'],
    quiet: argv.quiet,
    verbose: argv.verbose,
  };
  const output = await prepareOutput(shared, list, undefined, {
    ...processIO({ verbose: argv.verbose === true, quiet: argv.quiet === true }),
    stdout: io.stdout,
    stderr: io.stderr,
    progress: false,
  });
  for (const r of output.instances) r.onRunDone?.(report);
  return finishRuns([report], output, { stderr: io.stderr });
}

// ------------------------------------------------------------------------------------------------ list --rules
export function rulesText(format: string): string {
  if (format === 'json')
    return JSON.stringify({ rulesVersion: RULES_VERSION, profiles: PROFILES, rules: RULES }, null, 2) + '\n';
  const out: string[] = [];
  if (format === 'markdown') {
    out.push(
      `Rule table version ${RULES_VERSION}. kind: reject = the provider refuses the whole request; degrade = a client drops or alters the tool, or the sources disagree (warn only).`,
      '',
    );
    for (const p of PROFILES) {
      out.push(
        `**${p.id}** — ${p.title}${p.default ? '' : ' (opt-in: `--providers`)'}: \`${p.shape}\``,
        '',
        '| rule | kind | what | provider says | sources (checked) |',
        '| --- | --- | --- | --- | --- |',
      );
      for (const id of p.rules) {
        const r = RULES[id]!;
        const cell = (s: string) => s.replace(/\|/g, '\\|').replace(/\n/g, ' ');
        out.push(
          `| \`${id}\` | ${r.kind} | ${cell(r.summary)}${r.note ? `. *${cell(r.note)}*` : ''} | ${r.wording ? `\`${cell(r.wording)}\`` : '—'} | ${r.sources.map((s) => cell(s)).join('<br>')} (${r.checked}) |`,
        );
      }
      out.push('');
    }
    return out.join('\n');
  }
  out.push(`Provider rule table, version ${RULES_VERSION}`, '');
  for (const p of PROFILES) {
    out.push(`${p.id} — ${p.title}${p.default ? '' : ' (opt-in: --providers)'}  [${p.shape}]`);
    for (const id of p.rules) {
      const r = RULES[id]!;
      out.push(`  ${id.padEnd(38)} ${r.kind.padEnd(8)} ${r.summary}`);
      if (r.wording) out.push(`  ${''.padEnd(47)} says: ${r.wording}`);
      if (r.note) out.push(`  ${''.padEnd(47)} note: ${r.note}`);
      out.push(
        `  ${''.padEnd(47)} source: ${r.sources[0]}${r.sources.length > 1 ? ` (+${r.sources.length - 1})` : ''}, checked ${r.checked}`,
      );
    }
    out.push('');
  }
  return out.join('\n');
}

// ------------------------------------------------------------------------------------------------ tools --format
/** Options of `tools` besides the target options (bin/target-options.ts adds those, as for `run`). */
export function toolsOptions<T>(y: Argv<T>) {
  return y
    .positional('file', {
      type: 'string',
      describe:
        'Read the tool list from this file (tools/list result, report.json or cassette) instead of a server, as lint does; --file FILE says the same',
    })
    .option('format', {
      choices: ['openai', 'openai-strict', 'anthropic', 'bedrock', 'gemini', 'gemini-json'],
      demandOption: true,
      describe:
        "The provider whose tool configuration to print (openai-strict: OpenAI strict mode, every object closed and every property required; gemini-json: Gemini's parametersJsonSchema, JSON Schema as it is)",
    })
    .option('file', {
      type: 'string',
      describe: 'Read the tool list from a file (tools/list result, report.json or cassette) instead of a server',
    })
    .option('timeout', { type: 'number', default: 30000, describe: 'Timeout of each request (ms)' })
    .example('$0 tools --format openai --stdio "node server.js"', "The server's tools as an OpenAI `tools` array")
    .example('$0 tools --format gemini tools.json', 'A saved tool list as Gemini functionDeclarations');
}

export async function toolsCommand(
  argv: Record<string, unknown>,
  err: Err,
  io: { stdout: (s: string) => Promise<void>; stderr: (s: string) => Promise<void> },
): Promise<number> {
  const format = String(argv.format) as import('../../suites/compat/convert.js').Format;
  const given = (['file', ...TARGET_FLAGS] as const).filter((k) => argv[k] !== undefined);
  if (given.length !== 1)
    throw err(
      given.length
        ? `give only one of FILE (or --file FILE), --stdio, --http, --sse, --url (got ${given.map((g) => `--${g}`).join(', ')})`
        : 'tools needs a tool list: --file FILE, --stdio "<command>", --http URL, --sse URL or --url URL',
    );
  let tools: Tool[];
  let where: string;
  if (argv.file !== undefined) {
    const file = resolve(String(argv.file));
    try {
      tools = readSavedTools(file).tools;
    } catch (e) {
      throw err((e as Error).message);
    }
    where = file;
  } else {
    const via = given[0] as (typeof TARGET_FLAGS)[number];
    const timeout = argv.timeout as number;
    // The target as run takes it (the same checks and messages): lib/conformance.ts prepareRun.
    const { prepareRun, runCredentials, withAuthServer, OptionsError } = await import('../../lib/conformance.js');
    let prepared: Awaited<ReturnType<typeof prepareRun>>;
    try {
      prepared = await prepareRun({ ...targetConformanceOptions(argv), timeout }, { flags: true });
    } catch (e) {
      throw e instanceof OptionsError ? err(e.message) : e;
    }
    let listing: ToolListing | undefined;
    const { tools: toolList } = await import('../../core/tools.js');
    const grab: Suite = {
      id: 'tools',
      title: 'tools/list',
      description: 'fetch the tool list',
      cases: [
        {
          id: 'tools/list',
          title: 'tools/list',
          level: 'MUST',
          spec: 'server/tools#listing-tools',
          requirement: 'fetch the tool list',
          async run(ctx) {
            listing = await ctx.service(toolList);
            return { verdict: 'info', message: '' };
          },
        },
      ],
    };
    const { runSuites } = await import('../../core/run.js');
    const { target, timeoutMs, shutdownGraceMs, maxMessageBytes } = prepared.run;
    const credentials = await runCredentials(prepared);
    const opts: import('../../core/run.js').RunOptions = {
      target,
      suites: [grab],
      timeoutMs,
      shutdownGraceMs,
      maxMessageBytes,
      callTools: 'none',
      ...(credentials ? { credentials } : {}),
      maxDurationMs: Math.max(60_000, timeout * 4 + ((argv['start-timeout'] as number) ?? 0)),
    };
    // --auth-server: the harness's authorization server runs while the tool list is fetched, its token on the requests.
    const report = await withAuthServer(prepared, opts, () => runSuites(opts));
    const l = listing as ToolListing | undefined;
    if (!l || (l.problem && !l.tools.length)) {
      await io.stderr(`mcp-conform: could not get the tool list: ${l?.problem ?? report.aborted ?? 'no answer'}\n`);
      return 1;
    }
    tools = l.tools;
    where = via === 'stdio' ? String(argv.stdio) : String(argv[via]);
  }
  const { convertTools } = await import('../../suites/compat/convert.js');
  const c = convertTools(tools, format);
  await io.stdout(JSON.stringify(c.config, null, 2) + '\n');
  const lines = [
    `mcp-conform: ${tools.length} tool${tools.length === 1 ? '' : 's'} from ${where} as ${format} tool configuration; ${c.changes.length ? `${c.changes.length} change${c.changes.length === 1 ? '' : 's'} to fit its rules:` : 'nothing had to change.'}`,
  ];
  for (const ch of c.changes) lines.push(`  ${ch.tool} ${ch.pointer}: ${ch.change}`);
  if (c.remaining.length) {
    lines.push(`still refused by ${format} (needs a change in the server):`);
    for (const f of c.remaining) lines.push(`  ${f.tool ?? '(list)'} ${f.pointer}: ${f.rule}: ${f.message}`);
  }
  await io.stderr(lines.join('\n') + '\n');
  return c.remaining.length ? 1 : 0;
}
