/**
 * --update-expect: after an intended change, the expected values of failing checks are rewritten to what the server
 * answered (vitest's `-u` for expectation files). Only the values that were checked change: the file is edited in
 * place, text span by text span, so its order, layout, other values and comments stay as they were (a value written
 * anew is written inline: `{quotient: 3}`, `"6"`; JSON files stay JSON). Checks whose expected value cannot be
 * derived from an answer (textContains, textMatches, $-operators, maxMs) are left as they are, and keep failing.
 */
import { readFileSync, renameSync, writeFileSync } from 'node:fs';
import { basename, dirname, join } from 'node:path';
import { isCollection, isMap, isScalar, stringify, type Node, type Pair, type YAMLMap } from 'yaml';
import type { CheckOutcome } from './checks.js';
import type { ExpectFile } from './format.js';

/** What changed in one expectation, in words; and the failing checks left as they are. */
export interface UpdateNote {
  updated: string[];
  left: string[];
}

/** One edit of an expectation: a path inside it (['expect', 'text'], ['tools', 'exactly']…) set to a value, or deleted. */
export interface Edit {
  path: string[];
  value?: unknown;
  del?: boolean;
}

const RESULT_CHECKS = ['isError', 'text', 'textContains', 'textMatches', 'structuredContent', 'result', 'paths'];

/**
 * The edits that make the failing checks of one expectation expect what came. `answer` is the raw answer (for a
 * result that came where an error was expected, and the other way round); `present` the expect keys the file gives.
 */
export function editsFor(
  checks: readonly CheckOutcome[],
  answer: { result?: Record<string, unknown>; error?: { code: number; message: string } },
  present: readonly string[],
  tools: Record<string, string[] | undefined> = {},
): { edits: Edit[]; note: UpdateNote } {
  const edits: Edit[] = [];
  const note: UpdateNote = { updated: [], left: [] };
  for (const c of checks) {
    if (c.ok) continue;
    const [head, ...rest] = c.check.split('.');
    const sub = rest.join('.');
    if (head === 'error' && !sub && c.expected === 'a result' && answer.error) {
      // A result was expected and an error came: the checks of a result go, the error is expected.
      for (const k of RESULT_CHECKS) if (present.includes(k)) edits.push({ path: ['expect', k], del: true });
      edits.push({ path: ['expect', 'error'], value: { code: answer.error.code } });
      note.updated.push(`error {code: ${answer.error.code}} (the checks of a result removed)`);
    } else if (head === 'error' && !sub && answer.result) {
      edits.push({ path: ['expect', 'error'], del: true });
      if (!present.includes('isError'))
        edits.push({ path: ['expect', 'isError'], value: answer.result.isError === true });
      note.updated.push(
        `error removed${present.includes('isError') ? '' : `, isError ${answer.result.isError === true}`}`,
      );
    } else if (head === 'error' && (sub === 'code' || sub === 'message')) {
      edits.push({ path: ['expect', 'error', sub], value: c.actual });
      note.updated.push(`error.${sub} ${JSON.stringify(c.actual)} (was ${JSON.stringify(c.expected)})`);
    } else if (['isError', 'text', 'structuredContent', 'result'].includes(head!)) {
      if (c.actual === undefined) {
        note.left.push(`${c.check} (the answer has none)`);
        continue;
      }
      edits.push({ path: ['expect', head!], value: c.actual });
      note.updated.push(
        head === 'structuredContent' || head === 'result'
          ? `${head} (${(c.diff ?? []).map((d) => d.at || '/').join(', ')})`
          : `${head} ${JSON.stringify(c.actual)} (was ${JSON.stringify(c.expected)})`,
      );
    } else if (head === 'paths' && !isOperator(c.expected)) {
      if (c.actual === undefined) edits.push({ path: ['expect', 'paths', sub], del: true });
      else edits.push({ path: ['expect', 'paths', sub], value: c.actual });
      note.updated.push(
        c.actual === undefined
          ? `paths ${sub} removed (nothing is there now)`
          : `paths ${sub} ${JSON.stringify(c.actual)}`,
      );
    } else if (head === 'tools') {
      const names = c.actual as string[];
      const list = tools[sub] ?? [];
      edits.push({
        path: ['tools', sub],
        value:
          sub === 'exactly'
            ? [...names]
            : sub === 'includes'
              ? list.filter((n) => names.includes(n))
              : list.filter((n) => !names.includes(n)),
      });
      note.updated.push(`tools.${sub}`);
    } else note.left.push(c.check);
  }
  // Nothing left to check: the expect block goes (an empty one would not fit the format).
  const remaining = new Set(present);
  for (const e of edits)
    if (e.path[0] === 'expect' && e.path.length === 2) {
      if (e.del) remaining.delete(e.path[1]!);
      else remaining.add(e.path[1]!);
    }
  if (present.length && !remaining.size) return { edits: [{ path: ['expect'], del: true }], note };
  return { edits, note };
}

function isOperator(v: unknown): boolean {
  return v !== null && typeof v === 'object' && !Array.isArray(v) && Object.keys(v).some((k) => k.startsWith('$'));
}

/** A value written inline: JSON in a JSON file, flow YAML (a multi-line string double-quoted) in a YAML file. */
export function inline(v: unknown, json: boolean): string {
  if (json) return JSON.stringify(v);
  const s = stringify(v, { collectionStyle: 'flow', flowCollectionPadding: false, lineWidth: 0 }).trimEnd();
  return /^[|>]/.test(s) || s.includes('\n') ? JSON.stringify(v) : s;
}

interface Splice {
  start: number;
  end: number;
  text: string /** A deleted block-map member: its indentation. */;
  indent?: string;
}

function pairOf(map: YAMLMap, key: string): Pair<Node, Node | null> | undefined {
  return map.items.find((p) => isScalar(p.key) && String(p.key.value) === key) as Pair<Node, Node | null> | undefined;
}

/** The splices of the edits of one expectation (its map node in the document) on the file's text. */
function splicesFor(text: string, f: ExpectFile, entry: YAMLMap, edits: readonly Edit[]): Splice[] {
  const out: Splice[] = [];
  const keyText = (k: string) => (f.json ? JSON.stringify(k) : /^[A-Za-z_$][\w$-]*$/.test(k) ? k : JSON.stringify(k));
  const lineStart = (i: number) => text.lastIndexOf('\n', i - 1) + 1;
  const lineEnd = (i: number) => {
    const n = text.indexOf('\n', i);
    return n < 0 ? text.length : n;
  };
  // Deletions of a map, in order: a later insertion into the same map takes the place of the first one.
  const freed = new Map<YAMLMap, Splice[]>();
  for (const e of edits.filter((x) => x.del)) {
    const { map, key } = locate(entry, e.path);
    const pair = map && pairOf(map, key);
    if (!map || !pair) continue;
    const ks = (pair.key as Node).range![0];
    const ve = pair.value?.range?.[1] ?? (pair.key as Node).range![1];
    let s: Splice;
    if (map.flow || f.json) {
      // `key: value` with the comma after it (or, for the last one, before it).
      const after = /^\s*,\s*/.exec(text.slice(ve));
      if (after) s = { start: ks, end: ve + after[0].length, text: '' };
      else {
        const before = /,\s*$/.exec(text.slice(0, ks));
        s = { start: before ? before.index : ks, end: ve, text: '' };
      }
    } else
      s = {
        start: lineStart(ks),
        end: Math.min(text.length, lineEnd(ve) + 1),
        text: '',
        indent: text.slice(lineStart(ks), ks),
      };
    out.push(s);
    freed.set(map, [...(freed.get(map) ?? []), s]);
  }
  for (const e of edits.filter((x) => !x.del)) {
    const { map, key, missing } = locate(entry, e.path);
    if (!map) continue;
    if (missing.length) {
      // The map on the way is not there (no expect block): it is added with the value inside.
      let v: unknown = e.value;
      for (const k of [...missing.slice(1)].reverse()) v = { [k]: v };
      insert(map, missing[0]!, { [key]: v });
      continue;
    }
    const pair = pairOf(map, key);
    const v = pair?.value;
    if (v?.range && isCollection(v) && !v.flow && !f.json) {
      // A block collection becomes an inline one on the key's line (comments inside it go with it).
      const colon = text.indexOf(':', (pair!.key as Node).range![1]);
      out.push({ start: colon + 1, end: v.range[1], text: ` ${inline(e.value, f.json)}` });
    } else if (v?.range) out.push({ start: v.range[0], end: v.range[1], text: inline(e.value, f.json) });
    else if (pair)
      out.push({
        start: (pair.key as Node).range![1],
        end: (pair.key as Node).range![1],
        text: ` ${inline(e.value, f.json)}`,
      });
    else insert(map, key, e.value);
  }
  return out;

  function insert(map: YAMLMap, key: string, value: unknown): void {
    const reuse = freed.get(map)?.shift();
    if (reuse) {
      // Where a deleted member of the same map was: the new one takes its place (and its comma, in a flow map).
      const gone = text.slice(reuse.start, reuse.end);
      const member = `${keyText(key)}: ${inline(value, f.json)}`;
      if (map.flow || f.json)
        reuse.text = gone.trimStart().startsWith(',')
          ? `, ${member}`
          : gone.trimEnd().endsWith(',')
            ? `${member}, `
            : member;
      else reuse.text = `${reuse.indent ?? ''}${member}\n`;
      return;
    }
    if (map.flow || f.json) {
      const close = text.lastIndexOf('}', map.range![1]);
      const empty = !map.items.length;
      out.push({ start: close, end: close, text: `${empty ? '' : ', '}${keyText(key)}: ${inline(value, f.json)}` });
      return;
    }
    const last = map.items.at(-1)! as Pair<Node, Node | null>;
    const first = map.items[0]!;
    const indent = text
      .slice(lineStart((first.key as Node).range![0]), (first.key as Node).range![0])
      .replace(/[^ ]/g, ' ');
    const at = lineEnd(last.value?.range?.[1] ?? (last.key as Node).range![1]);
    out.push({ start: at, end: at, text: `\n${indent}${keyText(key)}: ${inline(value, f.json)}` });
  }
}

/** The map an edit's path ends in, the last key, and the keys of maps missing on the way. */
function locate(entry: YAMLMap, path: readonly string[]): { map?: YAMLMap; key: string; missing: string[] } {
  let map: YAMLMap = entry;
  for (let i = 0; i < path.length - 1; i++) {
    const next = pairOf(map, path[i]!)?.value;
    if (next === undefined || next === null) return { map, key: path.at(-1)!, missing: path.slice(i, -1) as string[] };
    if (!isMap(next)) return { key: path.at(-1)!, missing: [] };
    map = next;
  }
  return { map, key: path.at(-1)!, missing: [] };
}

/**
 * Writes the edits into the file (by index of expectation), from the text the file was read from (it is read again
 * and must not have changed meanwhile), through a temporary file.
 */
export function writeEdits(f: ExpectFile, byIndex: ReadonlyMap<number, readonly Edit[]>): void {
  const text = readFileSync(f.file, 'utf8');
  if (text !== f.text) throw new Error(`${f.file} changed while the run went on: not updated`);
  const splices: Splice[] = [];
  for (const [i, edits] of byIndex) {
    const entry = f.doc.getIn(['expectations', i], true);
    if (isMap(entry)) splices.push(...splicesFor(text, f, entry, edits));
  }
  let out = text;
  for (const s of splices.sort((a, b) => b.start - a.start || b.end - a.end))
    out = out.slice(0, s.start) + s.text + out.slice(s.end);
  const tmp = join(dirname(f.file), `.${basename(f.file)}.${process.pid}.tmp`);
  writeFileSync(tmp, out);
  renameSync(tmp, f.file);
}
