/** `diff` output: text for a terminal, Markdown for a PR comment or a step summary. */
import type { Change, SurfaceDiff } from './diff.js';
import type { Severity } from './rules.js';

const LABEL: Record<Severity, string> = { breaking: 'Breaking', compatible: 'Compatible', cosmetic: 'Cosmetic' };

function where(c: Change): string {
  return `${c.kind} ${c.name}${c.path ? ` ${c.path}` : ''}`;
}

function charsLine(d: SurfaceDiff): string | undefined {
  const t = d.toolListChars;
  if (!t || t.before === t.after) return undefined;
  const delta = t.after - t.before;
  return `tool list size (name, description, inputSchema as JSON): ${t.before} → ${t.after} characters (${delta > 0 ? '+' : ''}${delta}; characters, not tokens)`;
}

export function diffText(d: SurfaceDiff, labels: { old: string; new: string }): string {
  const out: string[] = [];
  const s = d.summary;
  out.push(
    `${labels.old} → ${labels.new}: ${d.changes.length ? `${s.breaking} breaking, ${s.compatible} compatible, ${s.cosmetic} cosmetic` : 'no changes'}`,
  );
  for (const sev of ['breaking', 'compatible', 'cosmetic'] as const) {
    const cs = d.changes.filter((c) => c.severity === sev);
    if (!cs.length) continue;
    out.push('', `${LABEL[sev]} (${cs.length}):`);
    for (const c of cs) out.push(`  ${where(c)}: ${c.message}  [${c.rule}]`);
  }
  const chars = charsLine(d);
  if (chars) out.push('', chars);
  if (d.notes.length) out.push('', 'Not compared:', ...d.notes.map((n) => `  ${n}`));
  return out.join('\n') + '\n';
}

/** Markdown text from a server: no HTML, no table breaks, no emphasis it did not mean. */
function md(s: string, max = 300): string {
  const one = s.replace(/\s+/g, ' ').trim();
  const cut = one.length > max ? `${one.slice(0, max)}…` : one;
  return cut
    .replace(/&/g, '&amp;')
    .replace(/</g, '&lt;')
    .replace(/>/g, '&gt;')
    .replace(/([\\`*_[\]|#!~])/g, '\\$1');
}

const code = (s: string) => (s ? `\`${s.replace(/`/g, "'").replace(/\|/g, '\\|')}\`` : '');

function table(cs: Change[], max: number): string[] {
  const out = ['| kind | name | path | change | rule |', '|---|---|---|---|---|'];
  for (const c of cs.slice(0, max))
    out.push(`| ${c.kind} | ${code(c.name)} | ${code(c.path)} | ${md(c.message)} | ${code(c.rule)} |`);
  if (cs.length > max) out.push(`| | … ${cs.length - max} more | | | |`);
  return out;
}

/**
 * The diff as a PR comment (GitHub-flavoured Markdown): a headline, the breaking and compatible changes as tables,
 * cosmetic ones folded away. `heading` sets the level of the headline (2: a comment; 3: inside a step summary).
 */
export function diffMarkdown(d: SurfaceDiff, labels: { old: string; new: string }, heading = 2, max = 200): string {
  const s = d.summary;
  const h = '#'.repeat(heading);
  const out: string[] = [];
  const verdict = s.breaking
    ? `❌ ${s.breaking} breaking change${s.breaking === 1 ? '' : 's'}`
    : d.changes.length
      ? '✅ no breaking changes'
      : '✅ no changes';
  out.push(`${h} MCP surface: ${verdict}`, '');
  out.push(`${md(labels.old, 200)} → ${md(labels.new, 200)}`, '');
  if (d.changes.length)
    out.push(
      '| breaking | compatible | cosmetic |',
      '|---:|---:|---:|',
      `| ${s.breaking} | ${s.compatible} | ${s.cosmetic} |`,
      '',
    );
  for (const sev of ['breaking', 'compatible'] as const) {
    const cs = d.changes.filter((c) => c.severity === sev);
    if (!cs.length) continue;
    out.push(`**${LABEL[sev]}**`, '', ...table(cs, max), '');
  }
  const cosmetic = d.changes.filter((c) => c.severity === 'cosmetic');
  if (cosmetic.length)
    out.push(
      `<details><summary>Cosmetic (${cosmetic.length})</summary>`,
      '',
      ...table(cosmetic, max),
      '',
      '</details>',
      '',
    );
  const chars = charsLine(d);
  if (chars) out.push(`${md(chars)}`, '');
  if (d.notes.length) out.push('Not compared:', '', ...d.notes.map((n) => `- ${md(n)}`), '');
  return out.join('\n');
}
