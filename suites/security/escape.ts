/**
 * Files outside the served folder: security/resource-escape (resources/read of file:// URIs) and security/path-escape
 * (read-only tools that take a path). The harness makes canary files of its own just outside the folder
 * (core/canaries.ts: a sibling whose name starts with the folder's, a folder reached by `..`, a symlink inside the
 * folder pointing out), asks for them, and looks for their tokens in the answers. The bug classes are those of
 * CVE-2025-53110 (containment checked by string prefix) and CVE-2025-53109 (symlinks followed out of the folder),
 * both in @modelcontextprotocol/server-filesystem before 2025.7.1. docs/security.md says what each case sends.
 */
import { basename, dirname } from 'node:path';
import { pathToFileURL } from 'node:url';
import { CanaryError, makeCanaries, type CanarySet } from '../../core/canaries.js';
import { callPlan, callTool, callToolOption } from '../../core/call-policy.js';
import {
  commonFolder,
  existingDir,
  filePath,
  foldersFromCommandLine,
  foldersFromRoots,
  foldersInText,
  localServer,
  rootsInput,
  targetInput,
  type Folder,
} from '../../core/served-folder.js';
import { resourceListing, resourceTemplateListing } from '../../core/surface.js';
import type { CaseContext, CaseDef, Outcome } from '../../core/suite.js';
import { tools, type Tool } from '../../core/tools.js';
import { brief, isObject } from '../helpers.js';
import { answerHolds, pathParam, probeArguments, probeRefusal, type ParamOf } from './params.js';

/** Most folders probed in one run, and most tools per folder: a bounded number of requests. */
export const MAX_FOLDERS = 3;
export const MAX_PATH_TOOLS = 8;

/** One request for a canary, and what it would show. */
interface Probe {
  /** What the request names (a URI, a path). */
  value: string;
  /** The form, in words for the finding. */
  form: string;
  /** Tokens whose presence in the answer is the finding. */
  tokens: string[];
  /** A canary folder asked for (a listing tool): the canary file's name in the answer is the finding. */
  listing?: boolean;
}

const PREFIX_WHY =
  "a sibling folder whose name starts with the served folder's: the server checks containment by string prefix (the bug class of CVE-2025-53110)";
const DOTDOT_WHY = 'a path through `..`: the server does not resolve `..` before its check';
const LINK_WHY =
  'a symlink inside the folder pointing out: the server follows links out of its folder (the bug class of CVE-2025-53109)';

/** The canary paths of a set in the forms a probe sends: absolute paths, `..` from the folder, the link. */
function pathForms(c: CanarySet, directory: boolean): Probe[] {
  const outName = basename(c.outsideDir);
  const target = (dir: string) => (directory ? dir : `${dir}/${c.fileName}`);
  const token = (f: { token: string }) => (directory ? c.fileName : f.token);
  const listing = directory ? { listing: true } : {};
  const out: Probe[] = [
    { value: target(c.prefixDir), form: PREFIX_WHY, tokens: [token(c.prefix)], ...listing },
    { value: `${c.root}/../${target(outName)}`, form: DOTDOT_WHY, tokens: [token(c.outside)], ...listing },
    {
      value: `../${target(outName)}`,
      form: `${DOTDOT_WHY} (relative to the folder)`,
      tokens: [token(c.outside)],
      ...listing,
    },
  ];
  if (c.link && !directory) {
    out.push({ value: c.link, form: LINK_WHY, tokens: [c.outside.token] });
    out.push({
      value: basename(c.link),
      form: `${LINK_WHY} (named relative to the folder)`,
      tokens: [c.outside.token],
    });
  }
  return out;
}

/** Make the canaries next to a folder; a CanaryError's message when that is impossible. */
function canariesFor(folder: string): CanarySet | string {
  try {
    return makeCanaries(folder);
  } catch (e) {
    if (e instanceof CanaryError) return e.message;
    throw e;
  }
}

/** A canary's content in an answer: what answered, what was asked, the form, and the exchange (request and answer). */
interface Finding {
  what: string;
  value: string;
  form: string;
  /** A listing of a canary folder, not a canary file's content. */
  listing?: boolean;
  mids: number[];
}

/** The verdict of a probe run over folders: a finding fails; none passes; nothing probed skips. */
function verdictOf(
  findings: Finding[],
  sent: number,
  folders: string[],
  problems: string[],
  mids: number[],
  what: string,
): Outcome {
  if (findings.length) {
    const f = findings[0]!;
    const more =
      findings.length > 1
        ? `; ${findings.length - 1} more: ${findings
            .slice(1, 4)
            .map((x) => `${x.what} ${JSON.stringify(x.value)}`)
            .join(', ')}`
        : '';
    return {
      verdict: 'fail',
      level: 'MUST',
      messageIds: findings.flatMap((x) => x.mids),
      message: `${f.what} ${f.listing ? 'listed a canary folder' : 'returned the content of a canary file'} the harness made outside the served folder ${folders.join(', ')}: asked for ${JSON.stringify(f.value)}, ${f.form}${more}. The canaries were removed.`,
      details: { findings: findings.map(({ mids: _m, ...x }) => x), folders },
    };
  }
  if (!sent)
    return { verdict: 'skip', message: `not run: ${problems.join('; ') || 'nothing to ask for'}`, messageIds: mids };
  return {
    verdict: 'pass',
    messageIds: mids,
    message: `${sent} ${what} for canary files just outside ${folders.join(', ')} (a prefix-named sibling, a path through \`..\`${problems.some((p) => p.includes('symlink')) ? '' : ', a symlink inside the folder'}) came back without their content${problems.length ? ` (${problems.join('; ')})` : ''}; the canaries were removed`,
    details: { folders },
  };
}

// ---- security/resource-escape ----

/** The folder a file:// template reads from: its literal part up to the first expression, when that is a folder here. */
function templateFolder(t: string): { folder: string; base: string } | undefined {
  const i = t.indexOf('{');
  if (i < 0) return undefined;
  const lit = t.slice(0, i);
  const cut = lit.lastIndexOf('/');
  if (cut < 0) return undefined;
  const base = lit.slice(0, cut + 1);
  const p = filePath(base);
  const d = p && existingDir(p);
  return d && d !== '/' ? { folder: d, base } : undefined;
}

async function resourceEscape(ctx: CaseContext): Promise<Outcome> {
  const local = localServer(ctx.input(targetInput));
  if (typeof local === 'string') return { verdict: 'skip', message: `not probed: ${local}` };
  const [res, tpl] = await Promise.all([
    ctx.service(resourceListing),
    ctx.service(resourceTemplateListing).catch(() => undefined),
  ]);
  const files = res.items.map((r) => filePath(r.uri)).filter((p): p is string => !!p);
  const templates = (tpl?.items ?? []).filter((t) => /^file:/i.test(t.uriTemplate));
  if (!files.length && !templates.length) {
    const other = res.items.length
      ? ` (its ${res.items.length} resource${res.items.length === 1 ? '' : 's'} are not file:// URIs, e.g. ${brief(res.items[0]!.uri, 60)})`
      : '';
    return {
      verdict: 'skip',
      notApplicable: true,
      message: `nothing to judge: the server lists no file:// resource or resource template${other}`,
      messageIds: res.messageIds,
    };
  }
  // The folders: where the listed files are (the deepest folder holding them all), and the templates' folders.
  const folders: { folder: string; base?: string }[] = [];
  const common = commonFolder(files.map((p) => (existingDir(p) ? p : dirname(p))));
  const fromFiles = common && existingDir(common);
  if (fromFiles && fromFiles !== '/') folders.push({ folder: fromFiles });
  for (const t of templates) {
    const f = templateFolder(t.uriTemplate);
    if (f && !folders.some((x) => x.folder === f.folder && x.base === f.base)) folders.push(f);
  }
  if (!folders.length)
    return {
      verdict: 'skip',
      message: `not probed: the file:// URIs the server lists name no folder on this machine (other than /), e.g. ${brief(files[0] ?? templates[0]?.uriTemplate, 80)}`,
      messageIds: res.messageIds,
    };
  const findings: Finding[] = [];
  const problems: string[] = [];
  const mids: number[] = [];
  const probed: string[] = [];
  let sent = 0;
  for (const f of folders.slice(0, MAX_FOLDERS)) {
    const c = canariesFor(f.folder);
    if (typeof c === 'string') {
      problems.push(c);
      continue;
    }
    try {
      probed.push(c.root);
      if (c.linkProblem) problems.push(`no symlink: ${c.linkProblem}`);
      for (const p of resourceProbes(c, f.base)) {
        const rec = await ctx.request('resources/read', { uri: p.value }, { purpose: 'resource-escape' });
        sent++;
        if (rec.reply) mids.push(rec.reply.request.seq, rec.reply.response.seq);
        const result = rec.reply?.result ?? rec.reply?.error;
        if (p.tokens.some((t) => answerHolds(result, t)))
          findings.push({
            what: 'resources/read',
            value: p.value,
            form: p.form,
            mids: rec.reply ? [rec.reply.request.seq, rec.reply.response.seq] : [],
          });
        if (rec.failure && !rec.reply) {
          problems.push(`resources/read of ${p.value} got no answer: ${rec.failure.message}`);
          break;
        }
      }
    } finally {
      c.remove();
    }
  }
  return verdictOf(findings, sent, [...new Set(probed)], problems, mids, 'resources/read requests');
}

/** The URIs asked for: file:// URIs of each form, and, for a template, its literal folder part with a relative path. */
function resourceProbes(c: CanarySet, base?: string): Probe[] {
  const outName = basename(c.outsideDir);
  const rootUri = pathToFileURL(c.root).href;
  const out: Probe[] = [];
  if (base) {
    // Through the template's own folder part: `<base>../<root>-<rand>/…`, `<base>../.mcp-conform-canary-…/…`.
    out.push({
      value: `${base}../${basename(c.prefixDir)}/${c.fileName}`,
      form: `${PREFIX_WHY}, through the resource template`,
      tokens: [c.prefix.token],
    });
    out.push({
      value: `${base}../${outName}/${c.fileName}`,
      form: `${DOTDOT_WHY}, through the resource template`,
      tokens: [c.outside.token],
    });
    out.push({
      value: `${base}%2e%2e/${outName}/${c.fileName}`,
      form: `${DOTDOT_WHY} (percent-encoded), through the resource template`,
      tokens: [c.outside.token],
    });
    if (c.link)
      out.push({
        value: `${base}${basename(c.link)}`,
        form: `${LINK_WHY}, through the resource template`,
        tokens: [c.outside.token],
      });
    return out;
  }
  out.push({ value: pathToFileURL(`${c.prefixDir}/${c.fileName}`).href, form: PREFIX_WHY, tokens: [c.prefix.token] });
  out.push({ value: `${rootUri}/../${outName}/${c.fileName}`, form: DOTDOT_WHY, tokens: [c.outside.token] });
  out.push({
    value: `${rootUri}/%2e%2e/${outName}/${c.fileName}`,
    form: `${DOTDOT_WHY} (percent-encoded)`,
    tokens: [c.outside.token],
  });
  if (c.link) out.push({ value: pathToFileURL(c.link).href, form: LINK_WHY, tokens: [c.outside.token] });
  return out;
}

// ---- security/path-escape ----

/** A tool that names the folders the server may read (list_allowed_directories and the like), with no required input. */
function isFolderListing(t: Tool): boolean {
  if (
    !/(?:allowed|permitted|accessible|root|workspace|served).*(?:dir|director|folder|root|path)|list_?roots|get_?roots/i.test(
      t.name,
    )
  )
    return false;
  const s = t.inputSchema;
  return !isObject(s) || !Array.isArray(s.required) || s.required.length === 0;
}

/** The folders the server serves, from what the user gave the run and what the server says (bounded). */
async function servedFolders(
  ctx: CaseContext,
  listed: Tool[],
  allow: readonly string[],
  local: Exclude<ReturnType<typeof localServer>, string>,
  mids: number[],
): Promise<{ folders: Folder[]; notes: string[] }> {
  const folders: Folder[] = [...foldersFromCommandLine(local), ...foldersFromRoots(ctx.input(rootsInput))];
  const notes: string[] = [];
  const plan = await ctx.service(callPlan);
  for (const t of listed.filter(isFolderListing).slice(0, 2)) {
    const why = probeRefusal(t, plan, allow);
    if (why) {
      notes.push(`${t.name} not called (${why})`);
      continue;
    }
    const rec = await callTool(ctx, t.name, {}, 'served-folders');
    if (rec.reply) mids.push(rec.reply.request.seq, rec.reply.response.seq);
    const r = rec.reply?.result;
    if (!isObject(r)) continue;
    const text =
      (Array.isArray(r.content) ? r.content : [])
        .map((b) => (isObject(b) && typeof b.text === 'string' ? b.text : ''))
        .join('\n') + (r.structuredContent ? `\n${JSON.stringify(r.structuredContent)}` : '');
    for (const f of foldersInText(text, `tool ${t.name}`)) if (!folders.some((x) => x.path === f.path)) folders.push(f);
  }
  return { folders, notes };
}

async function pathEscape(ctx: CaseContext): Promise<Outcome> {
  const local = localServer(ctx.input(targetInput));
  if (typeof local === 'string') return { verdict: 'skip', message: `not probed: ${local}` };
  const l = await ctx.service(tools);
  const withPath = l.tools.map(pathParam).filter((p): p is ParamOf => !!p);
  if (!withPath.length)
    return {
      verdict: 'skip',
      notApplicable: true,
      message: 'no tool declares a parameter named or described as a path, file or directory: nothing to probe',
      messageIds: l.messageIds,
    };
  const plan = await ctx.service(callPlan);
  const allow = ctx.option(callToolOption);
  const callable = withPath.filter((p) => !probeRefusal(p.tool, plan, allow));
  if (!callable.length) {
    const refused = withPath
      .slice(0, 4)
      .map((p) => `${p.tool.name} (${probeRefusal(p.tool, plan, allow)})`)
      .join('; ');
    return {
      verdict: 'skip',
      message: `not run: ${withPath.length} tool(s) take a path, and the call policy lets the probe call none of them: ${refused}`,
    };
  }
  const mids: number[] = [];
  const { folders, notes } = await servedFolders(ctx, l.tools, allow, local, mids);
  if (!folders.length) {
    return {
      verdict: 'skip',
      messageIds: mids,
      message: `not run: which folder the server serves is unknown: no directory on its command line${local.cwd ? '' : ' and no --cwd'}, no roots with --client-capabilities roots --root file:///DIR${notes.length ? `, ${notes.join('; ')}` : ''}`,
    };
  }
  const findings: Finding[] = [];
  const problems: string[] = [];
  const probed: string[] = [];
  let sent = 0;
  const refusedTools = withPath.filter((p) => probeRefusal(p.tool, plan, allow)).map((p) => p.tool.name);
  const guessed = callable.filter((p) => p.guessed).map((p) => `${p.tool.name} (${p.param})`);
  if (guessed.length)
    problems.push(`inputSchema declares no properties, so the parameter's usual name was used: ${guessed.join(', ')}`);
  if (refusedTools.length)
    problems.push(
      `not called under the call policy: ${refusedTools.slice(0, 6).join(', ')}${refusedTools.length > 6 ? '…' : ''}`,
    );
  outer: for (const f of folders.slice(0, MAX_FOLDERS)) {
    const c = canariesFor(f.path);
    if (typeof c === 'string') {
      problems.push(c);
      continue;
    }
    try {
      probed.push(`${c.root} (from ${f.from})`);
      if (c.linkProblem) problems.push(`no symlink: ${c.linkProblem}`);
      for (const p of callable.slice(0, MAX_PATH_TOOLS)) {
        for (const probe of pathForms(c, !!p.directory)) {
          const rec = await callTool(ctx, p.tool.name, probeArguments(p, probe.value), 'path-escape');
          sent++;
          if (rec.reply) mids.push(rec.reply.request.seq, rec.reply.response.seq);
          if (rec.failure && !rec.reply) {
            problems.push(`${p.tool.name} got no answer: ${rec.failure.message}`);
            break outer;
          }
          const answer = rec.reply?.result ?? rec.reply?.error;
          if (probe.tokens.some((t) => answerHolds(answer, t)))
            findings.push({
              what: `tool ${p.tool.name} (${p.param}${p.guessed ? ', a name guessed: its inputSchema declares no properties' : ''})`,
              value: probe.value,
              form: probe.form,
              ...(probe.listing ? { listing: true } : {}),
              mids: rec.reply ? [rec.reply.request.seq, rec.reply.response.seq] : [],
            });
        }
      }
    } finally {
      c.remove();
    }
  }
  if (callable.length > MAX_PATH_TOOLS)
    problems.push(`${callable.length - MAX_PATH_TOOLS} more path tools not probed (at most ${MAX_PATH_TOOLS})`);
  return verdictOf(
    findings,
    sent,
    probed,
    problems,
    mids,
    `calls of ${callable
      .slice(0, MAX_PATH_TOOLS)
      .map((p) => p.tool.name)
      .join(', ')}`,
  );
}

export const escapeCases: CaseDef[] = [
  {
    id: 'security/resource-escape',
    title: 'resources/read serves no file outside the served folder',
    level: 'MUST',
    spec: 'server/resources#security-considerations',
    requirement:
      "A server that serves file:// resources validates the URIs it reads: a sibling folder whose name starts with the served folder's, a path through `..`, or a symlink inside the folder pointing out must not give the content of a file outside it (CVE-2025-53110, CVE-2025-53109). Probed with canary files the harness makes and removes, on local servers only.",
    requires: { capability: 'resources' },
    run: resourceEscape,
  },
  {
    id: 'security/path-escape',
    title: 'tools that take a path read no file outside the served folder',
    level: 'MUST',
    spec: 'server/tools#security-considerations',
    requirement:
      "A read-only tool that takes a path validates it: a sibling folder whose name starts with the served folder's, a path through `..`, or a symlink inside the folder pointing out must not give the content of a file outside it (CVE-2025-53110, CVE-2025-53109). Only tools the call policy allows (readOnlyHint: true, or named with --call-tool), with canary files the harness makes and removes, on local servers only.",
    run: pathEscape,
  },
];
