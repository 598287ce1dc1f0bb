/**
 * report.html: one self-contained page (inline CSS and JS, nothing fetched; a Content-Security-Policy forbids
 * anything else) that works opened from disk. Summary at the top, verdict filters, a section per suite, and per case
 * the requirement, the spec link, the verdict message and the exchange it is based on, pretty-printed, with schema
 * violations highlighted at their JSON pointer. Every string that reaches the page is escaped: server names,
 * messages, tool names and whole messages come from the server under test.
 */
import { createHash } from 'node:crypto';
import { mkdir, writeFile } from 'node:fs/promises';
import { join } from 'node:path';
import type { LoggedMessage, SchemaViolation } from '../core/log.js';
import type { CaseResult, Report, Summary, Verdict } from '../core/results.js';
import { partialNewest, partialNewestText, sharedCauses, type SharedCause } from './causes.js';
import { combine, runLabel, totalSummary, type Reporter, type ReportSet } from './types.js';
import { envSecretRedactor } from '../core/secrets.js';

/** Bounds that keep the page usable whatever the server sent. */
export const HTML_LIMITS = {
  /** Messages shown with a case (the rest are in the message log). */
  messagesPerCase: 30,
  /** Characters of pretty-printed JSON per message. */
  jsonChars: 60_000,
  /** Messages in the message log section. */
  logMessages: 5_000,
  /** Characters of a raw line in the message log. */
  rawChars: 2_000,
  /** Characters of a verdict message. */
  messageChars: 20_000,
  /** Nesting shown before the rest of a value is printed on one line. */
  depth: 60,
};

const ESC: Record<string, string> = { '&': '&amp;', '<': '&lt;', '>': '&gt;', '"': '&quot;', "'": '&#39;' };

/** Escapes text for HTML content and (quoted) attribute values. */
export function esc(v: unknown): string {
  return String(v)
    .replace(/[&<>"']/g, (c) => ESC[c])
    .replace(/[\u0000-\u0008\u000B\u000C\u000E-\u001F\u007F]/g, '\uFFFD');
}

function cutForPage(s: string, n: number): string {
  return s.length > n ? `${s.slice(0, n)}… (${s.length - n} more characters in report.json)` : s;
}

const VERDICT_ORDER: Verdict[] = ['fail', 'warn', 'pass', 'skip', 'info'];
type Category = Verdict | 'baselined';
const CATEGORIES: Category[] = ['fail', 'baselined', 'warn', 'pass', 'skip', 'info'];

function categoryOf(c: CaseResult): Category {
  return c.verdict === 'fail' && c.baselined ? 'baselined' : c.verdict;
}

function counts(s: Summary): Record<Category, number> {
  return {
    fail: s.fail - (s.baselined ?? 0),
    baselined: s.baselined ?? 0,
    warn: s.warn,
    pass: s.pass,
    skip: s.skip,
    info: s.info,
  };
}

// ---------------------------------------------------------------------------------------------------------------
// JSON, pretty-printed, with violations marked at their pointer
// ---------------------------------------------------------------------------------------------------------------

const ptrPart = (k: string | number) => String(k).replace(/~/g, '~0').replace(/\//g, '~1');

interface JsonCtx {
  marks: Map<string, string[]>;
  expected: boolean;
  budget: number;
  found: Set<string>;
}

function jsonHtml(v: unknown, ptr: string, indent: string, depth: number, ctx: JsonCtx): string {
  let body: string;
  if (ctx.budget <= 0) return '<span class="j-cut">…</span>';
  if (v === null || typeof v !== 'object') {
    const text = JSON.stringify(v) ?? String(v);
    ctx.budget -= text.length;
    const cls = v === null ? 'null' : typeof v === 'string' ? 'str' : typeof v === 'number' ? 'num' : 'bool';
    body = `<span class="j-${cls}">${esc(text.length > 4000 ? `${text.slice(0, 4000)}…"` : text)}</span>`;
  } else if (depth >= HTML_LIMITS.depth) {
    let text: string;
    try {
      text = JSON.stringify(v);
    } catch {
      text = '…';
    }
    ctx.budget -= text.length;
    body = esc(cutForPage(text, 2000));
  } else if (Array.isArray(v)) {
    if (!v.length) body = '[]';
    else {
      const inner = indent + '  ';
      const items: string[] = [];
      for (let i = 0; i < v.length; i++) {
        if (ctx.budget <= 0) {
          items.push(`${inner}<span class="j-cut">… ${v.length - i} more items</span>`);
          break;
        }
        items.push(inner + jsonHtml(v[i], `${ptr}/${i}`, inner, depth + 1, ctx));
      }
      body = `[\n${items.join(',\n')}\n${indent}]`;
    }
  } else {
    const keys = Object.keys(v as object);
    if (!keys.length) body = '{}';
    else {
      const inner = indent + '  ';
      const items: string[] = [];
      for (let i = 0; i < keys.length; i++) {
        if (ctx.budget <= 0) {
          items.push(`${inner}<span class="j-cut">… ${keys.length - i} more properties</span>`);
          break;
        }
        const k = keys[i];
        ctx.budget -= k.length + 4;
        items.push(
          `${inner}<span class="j-key">${esc(JSON.stringify(k))}</span>: ${jsonHtml((v as Record<string, unknown>)[k], `${ptr}/${ptrPart(k)}`, inner, depth + 1, ctx)}`,
        );
      }
      body = `{\n${items.join(',\n')}\n${indent}}`;
    }
  }
  const mark = ctx.marks.get(ptr);
  if (mark) {
    ctx.found.add(ptr);
    const cls = ctx.expected ? 'viol expected' : 'viol';
    body = `<mark class="${cls}" title="${esc(mark.join('; '))}">${body}</mark><span class="viol-note"> ⟵ ${esc(mark.join('; '))}</span>`;
  }
  return body;
}

/** A message pretty-printed as HTML, violations marked; exported for tests. */
export function messageJsonHtml(json: unknown, violations: SchemaViolation[], expected = false): string {
  const marks = new Map<string, string[]>();
  for (const v of violations) {
    const list = marks.get(v.pointer) ?? [];
    list.push(v.message);
    marks.set(v.pointer, list);
  }
  return jsonHtml(json, '', '', 0, { marks, expected, budget: HTML_LIMITS.jsonChars, found: new Set() });
}

function messageHtml(m: LoggedMessage, runIdx: number): string {
  const dir = m.direction === 'to-server' ? '→ to server' : '← from server';
  const what = [m.kind, m.method, m.id !== undefined ? `id ${JSON.stringify(m.id)}` : undefined]
    .filter((x) => x !== undefined)
    .join(' ');
  const http = m.http
    ? ` · HTTP ${esc(m.http.method)}${m.http.status !== undefined ? ` ${esc(m.http.status)}` : ''}${m.http.sseEvent ? ` · SSE ${esc(m.http.sseEvent)}${m.http.sseId ? ` #${esc(m.http.sseId)}` : ''}` : ''}`
    : '';
  const sc = m.schema;
  const schema = !sc.checked
    ? '<span class="bad">not a JSON message</span>'
    : sc.valid
      ? `<span class="ok">valid${sc.definition ? ` (${esc(sc.definition)})` : ''}</span>`
      : sc.expectedInvalid
        ? `<span class="expected">malformed on purpose: ${esc(sc.expectedInvalid)}</span>`
        : `<span class="bad">${sc.violations.length} schema violation${sc.violations.length === 1 ? '' : 's'}${sc.definition ? ` (${esc(sc.definition)})` : ''}</span>`;
  const head = `<div class="msg-head"><a href="#r${runIdx}-m${m.seq}">#${m.seq}</a> ${dir} · ${esc(what)} · ${esc(m.t.toFixed(1))} ms${http} · ${schema}</div>`;
  let body: string;
  if (m.json !== undefined)
    body = `<pre class="json">${messageJsonHtml(m.json, sc.violations, !!sc.expectedInvalid)}</pre>`;
  else body = `<pre class="raw">${esc(cutForPage(m.raw, HTML_LIMITS.jsonChars))}</pre>`;
  const problem = m.problem ? `<div class="problem">${esc(m.problem)}</div>` : '';
  const viol = sc.violations.length
    ? `<ul class="violations${sc.expectedInvalid ? ' expected' : ''}">${sc.violations
        .slice(0, 50)
        .map(
          (v) =>
            `<li><code>${esc(v.pointer || '(the whole message)')}</code> ${esc(v.message)}${v.keyword ? ` <span class="dim">[${esc(v.keyword)}]</span>` : ''}</li>`,
        )
        .join('')}${sc.violations.length > 50 ? `<li>… ${sc.violations.length - 50} more</li>` : ''}</ul>`
    : '';
  return `<div class="msg ${m.direction}">${head}${problem}${viol}${body}</div>`;
}

// ---------------------------------------------------------------------------------------------------------------
// The page
// ---------------------------------------------------------------------------------------------------------------

function chips(s: Summary): string {
  const c = counts(s);
  return `<div class="chips">${CATEGORIES.map((k) => `<span class="chip v-${k}${c[k] ? '' : ' zero'}"><b>${c[k]}</b> ${k}</span>`).join('')}</div>`;
}

function resultLine(r: {
  exitCode: number;
  summary: Summary;
  aborted?: string;
  startFailure?: Report['startFailure'];
}): string {
  const c = counts(r.summary);
  if (r.startFailure)
    return `<p class="result bad">Result: ${r.startFailure.kind === 'auth-required' ? 'not run: the server asks for authorization' : 'the server never came up'} (exit code ${esc(r.exitCode)})</p>`;
  if (r.exitCode === 0) {
    const extra = c.baselined ? ` (${c.baselined} known failure${c.baselined === 1 ? '' : 's'} in the baseline)` : '';
    return `<p class="result ok">Result: no failures${extra}</p>`;
  }
  const why = c.fail
    ? `${c.fail} failing case${c.fail === 1 ? '' : 's'}`
    : r.aborted
      ? 'the run ended early'
      : 'stale baseline entries (--strict)';
  return `<p class="result bad">Result: ${esc(why)}</p>`;
}

function caseHtml(
  c: CaseResult,
  _r: Report,
  runIdx: number,
  n: number,
  bySeq: Map<number, LoggedMessage>,
  cause?: number,
): string {
  const cat = categoryOf(c);
  const open = cat === 'fail' || cat === 'warn' ? ' open' : '';
  const spec = /^https?:\/\//.test(c.spec)
    ? `<a href="${esc(c.spec)}" rel="noopener noreferrer">${esc(c.spec)}</a>`
    : esc(c.spec);
  const rows: string[] = [];
  if (c.requirement) rows.push(`<dt>Requirement</dt><dd>${esc(c.requirement)}</dd>`);
  rows.push(`<dt>Level</dt><dd>${esc(c.level)}</dd>`, `<dt>Spec</dt><dd>${spec}</dd>`);
  rows.push(`<dt>Verdict</dt><dd class="message">${esc(cutForPage(c.message, HTML_LIMITS.messageChars))}</dd>`);
  if (cause)
    rows.push(
      `<dt>Shared cause</dt><dd><a href="#r${runIdx}-cause-${cause}">cause ${cause}</a>: other failing cases rest on answers with the same schema violation</dd>`,
    );
  if (c.strictFromWarn) rows.push('<dt>Strict</dt><dd>a warn, made a fail by --strict</dd>');
  if (c.baselined)
    rows.push(
      `<dt>Baseline</dt><dd>known failure (entry <code>${esc(c.baselineEntry ?? c.id)}</code>)${c.baselineReason ? `: ${esc(c.baselineReason)}` : ''}</dd>`,
    );
  rows.push(`<dt>Duration</dt><dd>${esc(c.durationMs.toFixed(1))} ms</dd>`);
  let details = '';
  if (c.details && Object.keys(c.details).length) {
    details = `<details class="extra"><summary>Details</summary><pre class="json">${messageJsonHtml(c.details, [])}</pre></details>`;
  }
  const ids = c.messageIds ?? [];
  let exchange = '';
  if (ids.length) {
    const shown = ids
      .slice(0, HTML_LIMITS.messagesPerCase)
      .map((id) => bySeq.get(id))
      .filter((m): m is LoggedMessage => !!m);
    const more =
      ids.length > shown.length
        ? `<p class="dim">… ${ids.length - shown.length} more message${ids.length - shown.length === 1 ? '' : 's'} in the message log below</p>`
        : '';
    exchange = `<div class="exchange"><h4>Exchange (${ids.length} message${ids.length === 1 ? '' : 's'})</h4>${shown.map((m) => messageHtml(m, runIdx)).join('')}${more}</div>`;
  }
  const badge = cat === 'baselined' ? 'fail · baselined' : c.verdict + (c.strictFromWarn ? ' (strict)' : '');
  return (
    `<details class="case v-${cat}" data-cat="${cat}" data-id="${esc(c.id.toLowerCase())}" id="r${runIdx}-c${n}"${open}>` +
    `<summary><span class="badge v-${cat}">${esc(badge)}</span> <code class="cid">${esc(c.id)}</code>${c.protocolVersion ? ` <span class="dim">[${esc(c.protocolVersion)}]</span>` : ''}${cause ? ` <span class="cause">cause ${cause}</span>` : ''} <span class="ctitle">${esc(c.title)}</span> <span class="dur">${esc(fmtMs(c.durationMs))}</span></summary>` +
    `<dl>${rows.join('')}</dl>${details}${exchange}</details>`
  );
}

/**
 * What failed, at the top of a run: every fail (then every known failure of the baseline), then every warn, each a
 * link to its case below with its message; a run with none says so. The suites follow.
 */
function findingsHtml(
  r: Report,
  runIdx: number,
  anchorOf: Map<CaseResult, number>,
  causeOf: Map<CaseResult, number>,
): string {
  const all = r.suites.flatMap((s) => s.cases);
  const groups: [Category, string][] = [
    ['fail', 'Failing'],
    ['baselined', 'Known failures (baseline)'],
    ['warn', 'Warnings'],
  ];
  const parts = groups
    .map(([cat, title]) => {
      const list = all.filter((c) => categoryOf(c) === cat);
      if (!list.length) return '';
      const items = list.map((c) => {
        const msg = c.message.length > 300 ? `${c.message.slice(0, 300)}…` : c.message;
        const cause = causeOf.get(c);
        return `<li><a href="#r${runIdx}-c${anchorOf.get(c)}"><code class="cid">${esc(c.id)}</code></a>${c.protocolVersion ? ` <span class="dim">[${esc(c.protocolVersion)}]</span>` : ''} <span class="dim">${esc(c.level)}</span>${cause ? ` <span class="cause">cause ${cause}</span>` : ''} — ${esc(msg)}</li>`;
      });
      return `<div class="findings-group v-${cat}"><b>${esc(title)} (${list.length})</b><ol>${items.join('')}</ol></div>`;
    })
    .filter(Boolean);
  if (!parts.length)
    return `<div class="box note findings"><b>Nothing failed and nothing was warned at.</b> The suites below list every case; passes are collapsed.</div>`;
  const failed = all.some((c) => c.verdict === 'fail');
  return `<div class="box findings"><h3 class="findings-title">${failed ? 'What failed' : 'Nothing failed; what was warned at'}</h3>${parts.join('')}</div>`;
}

/** The failures that share a cause (reports/causes.ts), linked, and the advice when the newest version looks partial. */
function causesHtml(r: Report, causes: SharedCause[], runIdx: number, anchorOf: Map<CaseResult, number>): string {
  const items = causes.map((k, i) => {
    const links = k.cases
      .map((c) => `<a href="#r${runIdx}-c${anchorOf.get(c)}"><code>${esc(c.id)}</code></a>`)
      .join(', ');
    return `<li id="r${runIdx}-cause-${i + 1}"><b>Cause ${i + 1}</b>: ${k.cases.length} failing cases rest on answers with one schema violation, <code>${esc(k.pointer || '(the whole message)')}</code> ${esc(k.message)}, in ${k.messages.length} message${k.messages.length === 1 ? '' : 's'} (${esc(k.methods.join(', '))}): ${links}</li>`;
  });
  const p = partialNewest(r, causes);
  const advice = p
    ? `<p>${esc(
        partialNewestText(
          p,
          causes.filter((k) => k.methods.length >= 2).reduce((n, k) => n + k.cases.length, 0),
        ),
      )}</p>`
    : '';
  return `<div class="box bad causes"><b>Failures that share a cause</b><ul>${items.join('')}</ul>${advice}</div>`;
}

function fmtMs(ms: number): string {
  return ms >= 1000 ? `${(ms / 1000).toFixed(1)} s` : `${Math.round(ms)} ms`;
}

function serverLine(r: Report): string {
  const s = r.server;
  const who = s.name ? `${s.name}${s.version ? ` ${s.version}` : ''}` : '(no serverInfo)';
  const how = r.target.command ?? r.target.url ?? '';
  return `<p class="server"><span class="server-name">${esc(who)}</span>${s.title ? ` <span class="dim">“${esc(s.title)}”</span>` : ''} · over ${esc(r.target.transport)}${s.protocolVersion ? ` · protocol ${esc(s.protocolVersion)}` : ''}${how ? ` · <code>${esc(how)}</code>` : ''}</p>`;
}

function runHtml(r: Report, runIdx: number, multi: boolean): string {
  const out: string[] = [];
  const bySeq = new Map(r.messages.map((m) => [m.seq, m]));
  out.push(`<section class="run" id="run-${runIdx}">`);
  if (multi)
    out.push(`<h2 class="run-title">${esc(runLabel(r, runIdx))}</h2>`, serverLine(r), chips(r.summary), resultLine(r));
  const f = r.startFailure;
  if (f) {
    const facts = [
      f.command
        ? `command as run: <code>${esc(f.command)}</code>${f.cwd ? ` (in <code>${esc(f.cwd)}</code>)` : ''}`
        : '',
      f.url ? `URL: <code>${esc(f.url)}</code>${f.status ? ` · HTTP ${esc(f.status)}` : ''}` : '',
      f.exitCode !== undefined
        ? f.exitCode === null
          ? `ended by ${esc(f.signal ?? 'a signal')}`
          : `exited with code ${esc(f.exitCode)}`
        : '',
    ].filter(Boolean);
    const stderr = f.stderr.length ? `<pre class="raw">${esc(f.stderr.join('\n'))}</pre>` : '';
    out.push(
      `<div class="box bad start-failure"><b>${f.kind === 'auth-required' ? 'The server asks for authorization the run does not have' : 'The server never came up'}:</b> ${esc(f.cause)}${facts.length ? `<p>${facts.join(' · ')}</p>` : ''}${stderr}<p><b>Try:</b> ${esc(f.hint)}</p><p class="dim">Nothing was judged: every case is skipped with this cause${f.kind === 'auth-required' ? '' : ', but the one that fails with it'}.</p></div>`,
    );
  } else if (r.aborted) out.push(`<div class="box bad"><b>Run ended early:</b> ${esc(r.aborted)}</div>`);
  const findingsAt = out.length;
  const b = r.baseline;
  if (b) {
    const stale = b.stale.length
      ? `<p><b>${b.stale.length} stale entr${b.stale.length === 1 ? 'y' : 'ies'}</b> (no failure matches them any more: remove them from the baseline):</p><ul>${b.stale.map((s) => `<li><code>${esc(s.entry)}</code> — ${esc(s.why)}${s.reason ? ` <span class="dim">(reason was: ${esc(s.reason)})</span>` : ''}</li>`).join('')}</ul>`
      : '';
    out.push(
      `<div class="box ${b.stale.length ? 'warn' : 'note'}"><b>Baseline</b> <code>${esc(b.file)}</code> (${esc(b.format)}): ${b.entries} entr${b.entries === 1 ? 'y' : 'ies'}, ${b.used.length} excusing failures${b.unchecked.length ? `, ${b.unchecked.length} not checked in this run` : ''}.${stale}</div>`,
    );
  }
  if (r.skippedTools.length)
    out.push(
      `<div class="box note"><b>Tools not called</b> (--call-tools ${esc(r.options.callTools)}): ${r.skippedTools.map((t) => `<code>${esc(t.name)}</code>`).join(', ')}</div>`,
    );
  const causes = sharedCauses(r);
  const causeOf = new Map(causes.flatMap((k, i) => k.cases.map((c) => [c, i + 1] as const)));
  const anchorOf = new Map<CaseResult, number>();
  // Anchors in page order (suites in order, each suite's cases fails first), known before the page is written: the
  // list of what failed at the top links to them.
  const ordered = r.suites.map((s) =>
    [...s.cases].sort((a, b2) => VERDICT_ORDER.indexOf(a.verdict) - VERDICT_ORDER.indexOf(b2.verdict)),
  );
  let n = 0;
  for (const list of ordered) for (const c of list) anchorOf.set(c, n++);
  out.splice(findingsAt, 0, findingsHtml(r, runIdx, anchorOf, causeOf));
  const causeAt = out.length;
  n = 0;
  r.suites.forEach((s, si) => {
    const sc: Record<Category, number> = { fail: 0, baselined: 0, warn: 0, pass: 0, skip: 0, info: 0 };
    for (const c of s.cases) sc[categoryOf(c)]++;
    const tally = CATEGORIES.filter((k) => sc[k])
      .map((k) => `<span class="tally v-${k}">${sc[k]} ${k}</span>`)
      .join(' ');
    out.push(
      `<section class="suite" id="r${runIdx}-s-${esc(s.id)}"><h3><code>${esc(s.id)}</code> ${esc(s.title)} <span class="tallies">${tally}</span> <span class="dur">${esc(fmtMs(s.durationMs))}</span></h3>`,
    );
    if (!s.cases.length) out.push('<p class="dim">no cases ran</p>');
    // Passes collapsed under one line (opened with a click, or by "Expand all"); everything else shown.
    const passes = ordered[si]!.filter((c) => c.verdict === 'pass');
    for (const c of ordered[si]!) {
      if (c.verdict === 'pass' && c === passes[0])
        out.push(
          `<details class="passes"><summary class="dim">${passes.length} pass${passes.length === 1 ? '' : 'es'}</summary>`,
        );
      out.push(caseHtml(c, r, runIdx, n++, bySeq, causeOf.get(c)));
      if (c.verdict === 'pass' && c === passes.at(-1)) out.push('</details>');
    }
    out.push('</section>');
  });
  if (causes.length) out.splice(causeAt, 0, causesHtml(r, causes, runIdx, anchorOf));
  // Reference material: the log, stderr, options.
  const log = r.messages
    .slice(0, HTML_LIMITS.logMessages)
    .map((m) => {
      const arrow = m.direction === 'to-server' ? '→' : '←';
      const bad =
        m.schema.checked && !m.schema.valid && !m.schema.expectedInvalid ? ' bad' : !m.schema.checked ? ' bad' : '';
      return `<div class="logline${bad}" id="r${runIdx}-m${m.seq}"><span class="dim">#${m.seq} ${esc(m.t.toFixed(1))} ms ${arrow}</span> <code>${esc(cutForPage(m.raw, HTML_LIMITS.rawChars))}</code></div>`;
    })
    .join('');
  const more =
    r.messages.length > HTML_LIMITS.logMessages
      ? `<p class="dim">… ${r.messages.length - HTML_LIMITS.logMessages} more in report.json</p>`
      : '';
  out.push(
    `<details class="ref"><summary>Message log (${r.messages.length} message${r.messages.length === 1 ? '' : 's'}, ${r.summary.messagesValidated} validated)</summary><div class="log">${log}${more}</div></details>`,
  );
  const err = r.process.stderr ?? [];
  if (err.length)
    out.push(
      `<details class="ref"><summary>Server stderr (${err.length} line${err.length === 1 ? '' : 's'}${r.process.stderrTruncated ? ', the newest' : ''})</summary><pre class="raw">${esc(err.join('\n'))}</pre></details>`,
    );
  const proc = r.process;
  const facts = {
    target: r.target,
    process: { pid: proc.pid, exitCode: proc.exitCode, signal: proc.signal, shutdown: proc.shutdown },
    options: r.options,
    server: { capabilities: r.server.capabilities, instructions: r.server.instructions, toolCount: r.server.toolCount },
  };
  out.push(
    `<details class="ref"><summary>Target, options and server</summary><pre class="json">${messageJsonHtml(facts, [])}</pre></details>`,
  );
  out.push('</section>');
  return out.join('\n');
}

const STYLE = `
:root{--fail:#c62828;--warn:#b26a00;--pass:#2e7d32;--skip:#6b7280;--info:#0277bd;--baselined:#7b1fa2;--bg:#fff;--fg:#1f2328;--dim:#6b7280;--line:#d0d7de;--soft:#f6f8fa}
*{box-sizing:border-box}body{margin:0;font:14px/1.45 system-ui,-apple-system,"Segoe UI",Roboto,Helvetica,Arial,sans-serif;color:var(--fg);background:var(--bg)}
header{position:sticky;top:0;z-index:2;background:var(--bg);border-bottom:1px solid var(--line);padding:12px 24px}
main{padding:8px 24px 48px;max-width:1400px}
h1{font-size:20px;margin:0 0 4px}h2.run-title{font-size:18px;margin:28px 0 4px;border-top:3px solid var(--line);padding-top:12px}
h3{font-size:15px;margin:22px 0 6px;padding-bottom:4px;border-bottom:1px solid var(--line)}h4{margin:10px 0 4px;font-size:13px}
code,pre{font-family:ui-monospace,SFMono-Regular,Menlo,Consolas,monospace;font-size:12.5px}
.server{margin:2px 0}.server-name{font-weight:600}.dim,.dur{color:var(--dim)}.dur{font-size:12px;margin-left:6px}
.chips{display:flex;gap:6px;flex-wrap:wrap;margin:6px 0}.chip{border:1px solid currentColor;border-radius:12px;padding:1px 10px;font-size:13px}.chip.zero{opacity:.45}
.v-fail{color:var(--fail)}.v-warn{color:var(--warn)}.v-pass{color:var(--pass)}.v-skip{color:var(--skip)}.v-info{color:var(--info)}.v-baselined{color:var(--baselined)}
.result{font-weight:600;margin:4px 0}.result.ok{color:var(--pass)}.result.bad{color:var(--fail)}
.filters{display:flex;gap:12px;flex-wrap:wrap;align-items:center;margin-top:6px}.filters label{cursor:pointer;user-select:none}
.filters input[type=search]{padding:3px 8px;border:1px solid var(--line);border-radius:6px;min-width:220px}
details.case{border:1px solid var(--line);border-left:4px solid currentColor;border-radius:6px;margin:6px 0;background:var(--bg)}
details.case>summary{cursor:pointer;padding:6px 10px;color:var(--fg);list-style-position:inside}
details.case>dl,details.case>.exchange,details.case>details{margin:0 12px 10px;color:var(--fg)}
.badge{display:inline-block;min-width:44px;text-align:center;font-size:12px;font-weight:600;border-radius:4px;padding:0 6px;color:#fff}
.badge.v-fail{background:var(--fail)}.badge.v-warn{background:var(--warn)}.badge.v-pass{background:var(--pass)}.badge.v-skip{background:var(--skip)}.badge.v-info{background:var(--info)}.badge.v-baselined{background:var(--baselined)}
.cid{font-weight:600}.ctitle{color:var(--dim)}.cause{font-size:12px;color:var(--fail);border:1px solid currentColor;border-radius:4px;padding:0 4px}
dl{display:grid;grid-template-columns:110px 1fr;gap:2px 12px}dt{color:var(--dim)}dd{margin:0;overflow-wrap:anywhere}dd.message{white-space:pre-wrap}
.msg{border:1px solid var(--line);border-radius:6px;margin:6px 0;background:var(--soft)}.msg.from-server{border-left:3px solid #57606a}.msg.to-server{border-left:3px solid #8c959f}
.msg-head{padding:4px 8px;font-size:12px;border-bottom:1px solid var(--line)}.msg pre{margin:0;padding:6px 8px;overflow:auto;max-height:480px}
.ok{color:var(--pass)}.bad{color:var(--fail)}.expected{color:var(--dim)}
mark.viol{background:#ffd7d5;color:inherit;outline:1px solid var(--fail);border-radius:2px}mark.viol.expected{background:#eaeef2;outline-color:var(--skip)}
.viol-note{color:var(--fail);font-weight:600}mark.expected+.viol-note{color:var(--dim)}
ul.violations{margin:4px 0;padding:0 8px 0 28px;font-size:12.5px;color:var(--fail)}ul.violations.expected{color:var(--dim)}
.problem{padding:4px 8px;color:var(--fail);font-size:12.5px}
.j-key{color:#0550ae}.j-str{color:#0a3069}.j-num{color:#953800}.j-bool,.j-null{color:#8250df}.j-cut{color:var(--dim)}
.box{border:1px solid var(--line);border-radius:6px;padding:8px 12px;margin:10px 0}.box.bad{border-color:var(--fail);background:#fff5f5}.box.warn{border-color:var(--warn);background:#fff8e6}.box.note{background:var(--soft)}
details.ref{margin:14px 0}details.ref>summary{cursor:pointer;font-weight:600}
.log{max-height:600px;overflow:auto;border:1px solid var(--line);border-radius:6px;padding:4px 8px}.logline{white-space:pre-wrap;overflow-wrap:anywhere;font-size:12px;padding:1px 0}.logline.bad code{color:var(--fail)}
.logline:target{background:#fff8c5}
table.runs{border-collapse:collapse;margin:8px 0}table.runs td,table.runs th{border:1px solid var(--line);padding:3px 10px;text-align:left}
footer{color:var(--dim);font-size:12px;padding:12px 24px;border-top:1px solid var(--line)}
.findings ol{margin:4px 0 8px;padding-left:26px}.findings li{margin:2px 0;overflow-wrap:anywhere}.findings-title{margin:0 0 6px;border:0}
.findings-group>b{display:block;margin-top:4px}details.passes{margin:6px 0}details.passes>summary{cursor:pointer}
`;

const SCRIPT = `
(function(){
  var hidden={};var q='';
  function apply(){
    var cases=document.querySelectorAll('details.case');
    for(var i=0;i<cases.length;i++){var c=cases[i];c.hidden=!!hidden[c.getAttribute('data-cat')]||(q!==''&&c.getAttribute('data-id').indexOf(q)<0);}
    var suites=document.querySelectorAll('section.suite');
    for(var j=0;j<suites.length;j++){suites[j].hidden=suites[j].querySelector('details.case:not([hidden])')===null&&suites[j].querySelector('details.case')!==null;}
  }
  var boxes=document.querySelectorAll('input[data-cat]');
  for(var k=0;k<boxes.length;k++){boxes[k].addEventListener('change',function(e){var t=e.target;hidden[t.getAttribute('data-cat')]=!t.checked;apply();});}
  var s=document.getElementById('search');if(s){s.addEventListener('input',function(){q=s.value.trim().toLowerCase();apply();});}
  var ex=document.getElementById('expand');if(ex){ex.addEventListener('click',function(){var open=ex.getAttribute('data-open')!=='1';var d=document.querySelectorAll('details.case,details.passes');for(var i=0;i<d.length;i++){if(!d[i].hidden)d[i].open=open;}ex.setAttribute('data-open',open?'1':'0');ex.textContent=open?'Collapse all':'Expand all';});}
  document.documentElement.className+=' js';
})();
`;

const sha256 = (s: string) => `'sha256-${createHash('sha256').update(s, 'utf8').digest('base64')}'`;

export function renderHtml(set: ReportSet): string {
  const runs = set.runs;
  const multi = runs.length > 1;
  const total = multi ? combine(set) : undefined;
  const summary = multi ? totalSummary(runs) : runs[0].summary;
  const exitCode = multi ? total!.exitCode : runs[0].exitCode;
  const first = runs[0];
  const c = counts(summary);
  const name = multi ? `${runs.length} targets` : runLabel(first);
  const title = `mcp-conform · ${name} · ${exitCode === 0 ? 'no failures' : c.fail ? `${c.fail} failing` : 'failed'}`;
  const started = multi ? total!.startedAt : first.startedAt;
  const duration = multi ? total!.durationMs : first.durationMs;
  const head: string[] = [];
  head.push(`<h1>mcp-conform report${multi ? ` · ${runs.length} targets` : ''}</h1>`);
  if (!multi) head.push(serverLine(first));
  head.push(
    `<p class="dim">mcp-conform ${esc(first.tool.version)} · started ${esc(started)} · ${esc(fmtMs(duration))} · ${summary.total} cases · ${summary.messagesValidated} messages validated${set.configFile ? ` · config <code>${esc(set.configFile)}</code>` : ''}</p>`,
  );
  head.push(
    chips(summary),
    resultLine({
      exitCode,
      summary,
      aborted: multi ? undefined : first.aborted,
      startFailure: multi ? undefined : first.startFailure,
    }),
  );
  head.push(
    `<div class="filters"><span class="dim">Show:</span>${CATEGORIES.map((k) => `<label class="v-${k}"><input type="checkbox" data-cat="${k}" checked> ${k} (${c[k]})</label>`).join('')}<input type="search" id="search" placeholder="filter by case id" aria-label="filter by case id"><button type="button" id="expand">Expand all</button></div>`,
  );
  const body: string[] = [];
  if (multi) {
    body.push(
      '<table class="runs"><tr><th>target</th><th>server</th><th>result</th><th>fail</th><th>warn</th><th>pass</th><th>skip</th><th>baselined</th></tr>',
    );
    runs.forEach((r, i) => {
      const rc = counts(r.summary);
      body.push(
        `<tr><td><a href="#run-${i}">${esc(runLabel(r, i))}</a></td><td>${esc(r.server.name ?? '')} ${esc(r.server.version ?? '')}</td><td class="${r.exitCode ? 'bad' : 'ok'}">${r.exitCode ? 'failed' : 'passed'}</td><td>${rc.fail}</td><td>${rc.warn}</td><td>${rc.pass}</td><td>${rc.skip}</td><td>${rc.baselined}</td></tr>`,
      );
    });
    body.push('</table>');
  }
  runs.forEach((r, i) => body.push(runHtml(r, i, multi)));
  const csp = `default-src 'none'; style-src ${sha256(STYLE)}; script-src ${sha256(SCRIPT)}; img-src data:; base-uri 'none'; form-action 'none'`;
  return `<!DOCTYPE html>
<html lang="en">
<head>
<meta charset="utf-8">
<meta http-equiv="Content-Security-Policy" content="${csp}">
<meta name="viewport" content="width=device-width, initial-scale=1">
<meta name="generator" content="mcp-conform ${esc(first.tool.version)}">
<title>${esc(title)}</title>
<style>${STYLE}</style>
</head>
<body>
<header>
${head.join('\n')}
</header>
<main>
${body.join('\n')}
</main>
<footer>Generated by mcp-conform ${esc(first.tool.version)} (report version ${first.reportVersion}). Every string from the server is shown as text; the full data is in report.json.</footer>
<script>${SCRIPT}</script>
</body>
</html>
`;
}

export const htmlReporter: Reporter = {
  name: 'html',
  writesFiles: true,
  async onFinished(set, { outDir }) {
    await mkdir(outDir, { recursive: true });
    const file = join(outDir, 'report.html');
    // The values of secret environment variables never reach the file (a server may print its environment).
    await writeFile(file, envSecretRedactor()(renderHtml(set)));
    return file;
  },
};
