/**
 * Suite expect: a server author's own expectations (run --expect FILE; docs/expectations.md), each one the case
 * expect/<slug of its name>, run in file order in the run's one session, among the built-in suites, in every report.
 *
 * A tool an expectation names is called whatever --call-tools says: the user asked for that call, with those
 * arguments (the call policy, core/call-policy.ts, is about the calls the harness makes up).
 */
import { resolve } from 'node:path';
import { performance } from 'node:perf_hooks';
import type { OptionDef } from '../core/options.js';
import { unanswered, type CaseContext, type ItemOutcome, type Outcome, type Suite } from '../core/suite.js';
import { tools, type ToolListing } from '../core/tools.js';
import type { Reply } from '../core/session.js';
import type { Service } from '../core/services.js';
import type { UpdatedFile } from '../core/results.js';
import { ids } from './helpers.js';
import { runChecks, shown, toolListChecks, type Answer, type CheckOutcome } from './expect/checks.js';
import { ExpectFileError, loadExpectFiles, type Expectation, type ExpectFile } from './expect/format.js';
import { ReferenceError_, substitute } from './expect/paths.js';
import { editsFor, writeEdits, type Edit } from './expect/update.js';
import { isMap, isScalar } from 'yaml';

/** --expect FILE (config key and library option `expect`): the expectation files, checked before the run starts. */
export const expectOption: OptionDef<string[]> = {
  flag: 'expect',
  key: 'expect',
  type: 'string[]',
  default: [],
  inReport: 'when-set',
  help: 'Expectation file (YAML or JSON; docs/expectations.md): each expectation is a case expect/<name>, run in file order in the same session; a tool it names is called whatever --call-tools says (repeatable)',
  normalize: (files) => files.map((f) => resolve(f)),
  validate(v, name) {
    if (!Array.isArray(v) || !v.every((x) => typeof x === 'string')) return `${name} must be a list of file names`;
    try {
      loadExpectFiles(v);
    } catch (e) {
      if (e instanceof ExpectFileError) return `${name}: ${e.message}`;
      throw e;
    }
    return undefined;
  },
};

/** --update-expect: rewrite the expected values of failing checks to what the server answered. */
export const updateExpectOption: OptionDef<boolean> = {
  flag: 'update-expect',
  key: 'updateExpect',
  type: 'boolean',
  inReport: 'when-set',
  help: 'With --expect: rewrite the expected values of failing checks in the expectation files to what the server answered (after an intended change; only those values change: order, layout and comments stay)',
};

/** What the expectation sends, in words (the start of its message). */
function sent(e: Expectation, target: string | undefined, args: unknown): string {
  switch (e.form) {
    case 'call':
      return `tools/call ${target} ${shown(args ?? {}, 100)}`;
    case 'request':
      return `${target}${args === undefined ? '' : ` ${shown(args, 100)}`}`;
    case 'read':
      return `resources/read ${target}`;
    case 'prompt':
      return `prompts/get ${target}${args === undefined ? '' : ` ${shown(args, 100)}`}`;
    case 'tools':
      return 'the tool list';
  }
}

/** Prompt arguments are strings: numbers and booleans given in the file are sent as text. */
function promptArguments(a: Record<string, unknown> | undefined): Record<string, unknown> | undefined {
  return (
    a &&
    Object.fromEntries(
      Object.entries(a).map(([k, v]) => [k, typeof v === 'number' || typeof v === 'boolean' ? String(v) : v]),
    )
  );
}

/** The request of an expectation (method and params), with the saved answers put in. */
function requestOf(
  e: Expectation,
  target: string,
  args: Record<string, unknown> | undefined,
): { method: string; params: Record<string, unknown> | undefined } {
  switch (e.form) {
    case 'call':
      return { method: 'tools/call', params: { name: target, arguments: args ?? {} } };
    case 'read':
      return { method: 'resources/read', params: { uri: target } };
    case 'prompt':
      return { method: 'prompts/get', params: { name: target, ...(args ? { arguments: promptArguments(args) } : {}) } };
    default:
      return { method: target, params: e.params === undefined ? undefined : args };
  }
}

/** Schema violations of the expectation's own messages (the schema suite reports every message; this names them here). */
function violations(reply: Reply): string[] {
  return [reply.request, reply.response].flatMap((m) =>
    m.schema.checked && !m.schema.valid && !m.schema.expectedInvalid
      ? m.schema.violations
          .slice(0, 3)
          .map((v) => `${m.direction === 'to-server' ? 'request' : 'answer'} ${v.pointer || '(message)'} ${v.message}`)
      : [],
  );
}

interface Ran {
  outcome: ItemOutcome;
  checks: CheckOutcome[];
  answer: Answer;
  e: Expectation;
  file: ExpectFile;
}

async function runOne(ctx: CaseContext, f: ExpectFile, e: Expectation, saved: Map<string, unknown>): Promise<Ran> {
  const t0 = performance.now();
  const where = `${f.file.split(/[\\/]/).pop()}:${e.line}`;
  const base = { item: e.slug, title: e.name };
  const done = (o: Outcome, checks: CheckOutcome[] = [], answer: Answer = {}): Ran => ({
    outcome: { ...base, ...o, durationMs: Math.round((performance.now() - t0) * 1000) / 1000 },
    checks,
    answer,
    e,
    file: f,
  });
  let target: string | undefined;
  let args: Record<string, unknown> | undefined;
  let checks: Expectation['expect'];
  try {
    target = e.target === undefined ? undefined : String(substitute(e.target, saved));
    args = substitute(e.form === 'request' ? e.params : e.arguments, saved) as Record<string, unknown> | undefined;
    checks = substitute(e.expect, saved) as Expectation['expect'];
  } catch (x) {
    if (x instanceof ReferenceError_)
      return done({ verdict: 'fail', message: `${x.message} (${where})`, details: { file: f.file, line: e.line } });
    throw x;
  }
  const what = sent(e, target, e.form === 'prompt' ? promptArguments(args) : args);
  let answer: Answer;
  let mids: number[] = [];
  let schemaNote: string[] = [];
  let req: ReturnType<typeof requestOf> | undefined;
  if (e.form === 'tools') {
    let l: ToolListing;
    try {
      l = await ctx.service(tools);
    } catch (x) {
      const o = unanswered(x as Error);
      return done({ ...o, message: `${what}: ${o.message} (${where})` });
    }
    mids = l.messageIds;
    if (l.problem) return done({ verdict: 'fail', message: `${what}: ${l.problem} (${where})`, messageIds: mids });
    const names = l.tools.map((t) => t.name);
    answer = { result: { tools: l.tools } };
    const out = [...toolListChecks(e.tools!, names), ...runChecks('tools', { ...checks, maxMs: undefined }, answer)];
    return finish(out);
  }
  req = requestOf(e, target!, args);
  const rec = await ctx.request(req.method, req.params, {
    purpose: 'expect',
    ...(e.form === 'call' ? { tool: target } : {}),
  });
  if (rec.failure) {
    const o = unanswered(rec.failure);
    return done({
      ...o,
      message: `${what}: ${o.message} (${where})`,
      details: { file: f.file, line: e.line, sent: req },
    });
  }
  const reply = rec.reply!;
  mids = ids(reply.request, reply.response);
  answer = {
    ...(reply.error ? { error: reply.error } : { result: reply.result ?? {} }),
    durationMs: reply.response.t - (reply.timedFrom ?? reply.request.t),
  };
  schemaNote = violations(reply);
  if (e.save) saved.set(e.save, reply.error ? { error: reply.error } : reply.result);
  return finish(runChecks(e.form, checks, answer));

  function finish(out: CheckOutcome[]): Ran {
    const failed = out.filter((c) => !c.ok);
    const details = {
      file: f.file,
      line: e.line,
      ...(req ? { sent: req } : {}),
      checks: out.map((c) => ({
        check: c.check,
        ok: c.ok,
        expected: c.expected,
        actual: c.actual,
        ...(c.diff ? { diff: c.diff } : {}),
      })),
    };
    if (failed.length)
      return done(
        {
          verdict: 'fail',
          message: `${what}: ${failed.map((c) => c.say).join('; ')} (${where})`,
          messageIds: mids,
          details,
        },
        out,
        answer,
      );
    const said = out.map((c) => c.say);
    if (schemaNote.length) {
      return done(
        {
          verdict: 'warn',
          message: `${what}: ${said.length ? `${said.join(', ')} as expected, but` : 'answered, but'} the exchange breaks the schema: ${schemaNote.join('; ')} (see the schema suite)`,
          messageIds: mids,
          details,
        },
        out,
        answer,
      );
    }
    return done(
      {
        verdict: 'pass',
        message: `${what}: ${said.length ? said.join(', ') : answer.error ? `JSON-RPC error ${answer.error.code}` : 'a result'}${said.length ? ' as expected' : ' (no checks given)'}`,
        messageIds: mids,
        details,
      },
      out,
      answer,
    );
  }
}

/** What --update-expect did to each expectation file of the run (report.updatedFiles). */
const updates: Service<UpdatedFile[]> = {
  id: 'expect-updates',
  async produce() {
    return [];
  },
  report(report, value) {
    if (value?.length) report.updatedFiles = [...(report.updatedFiles ?? []), ...value];
  },
};

/** --update-expect: rewrites what the failing checks expected, per file; the expectations updated pass, naming what changed. */
function update(ran: Ran[], files: readonly ExpectFile[], out: UpdatedFile[]): void {
  const byFile = new Map<ExpectFile, Map<number, Edit[]>>();
  for (const r of ran) {
    if (r.outcome.verdict !== 'fail' || !r.checks.some((c) => !c.ok)) continue;
    const given = r.file.doc.getIn(['expectations', r.e.index, 'expect']);
    const present = isMap(given) ? given.items.map((p) => String(isScalar(p.key) ? p.key.value : p.key)) : [];
    const { edits, note } = editsFor(
      r.checks,
      r.answer as Parameters<typeof editsFor>[1],
      present,
      r.e.tools as Record<string, string[] | undefined> | undefined,
    );
    if (!edits.length) continue;
    let m = byFile.get(r.file);
    if (!m) byFile.set(r.file, (m = new Map()));
    m.set(r.e.index, edits);
    const where = `${r.file.file}:${r.e.line}`;
    r.outcome = note.left.length
      ? {
          ...r.outcome,
          message: `${r.outcome.message}; updated in ${where}: ${note.updated.join(', ')}; left as they are (not derived from an answer): ${note.left.join(', ')}`,
        }
      : {
          ...r.outcome,
          verdict: 'pass',
          message: `updated in ${where}: ${note.updated.join(', ')} — was: ${r.outcome.message}`,
        };
  }
  for (const [f, edits] of byFile) writeEdits(f, edits);
  for (const f of files) {
    const changed = ran.filter((r) => r.file === f && byFile.get(f)?.has(r.e.index));
    out.push({
      file: f.file,
      by: 'update-expect',
      written: changed.length > 0,
      changed: changed.length,
      unit: changed.length === 1 ? 'expectation' : 'expectations',
      details: changed.map((r) => r.e.name ?? r.e.slug),
    });
  }
}

export const expectSuite: Suite = {
  id: 'expect',
  title: 'Expectations',
  description: "the server answers as the user's expectation files say (run --expect FILE)",
  options: [expectOption as OptionDef, updateExpectOption as OptionDef],
  services: [updates as Service<unknown>],
  selectedWhen: (sel) => (sel.option(expectOption)?.length ?? 0) > 0,
  cases: [
    {
      id: 'expect',
      title: 'the server answers as the expectation says',
      level: 'MUST',
      spec: 'server/tools#calling-tools',
      requirement:
        "Each expectation of the --expect files, in file order, in one session: its request is answered as its expect block says (the user's own requirement; the file and line are in the message).",
      perItem: 'expectation',
      async run(ctx) {
        const files = ctx.option(expectOption);
        if (!files.length) return { verdict: 'skip', message: 'no expectation file was given (--expect FILE)' };
        const loaded = loadExpectFiles(files);
        const saved = new Map<string, unknown>();
        const ran: Ran[] = [];
        for (const f of loaded) {
          for (const e of f.expectations) {
            if (!ctx.selected(`expect/${e.slug}`)) continue;
            ran.push(await runOne(ctx, f, e, saved));
          }
        }
        if (ctx.option(updateExpectOption)) update(ran, loaded, await ctx.service(updates));
        return ran.map((r) => r.outcome);
      },
    },
  ],
};
