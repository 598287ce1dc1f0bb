/** A tiny generator of strings for simple regular expressions (the `pattern` keyword); the caller checks each string. */
import { regex, type Ctx } from './context.js';
import { hasOwn } from './json.js';
import { ARGUMENT_LIMITS } from './limits.js';

export type RNode =
  | { t: 'seq'; items: RNode[] }
  | { t: 'alt'; alts: RNode[] }
  | { t: 'rep'; node: RNode; min: number; max: number }
  | { t: 'lit'; ch: string }
  | { t: 'set'; src: string }
  | { t: 'empty' };

export class RegexParser {
  private i = 0;
  constructor(private readonly s: string) {}

  parse(): RNode {
    const node = this.alt();
    if (this.i < this.s.length) throw new Error('unbalanced');
    return node;
  }

  private alt(): RNode {
    const alts = [this.seq()];
    while (this.s[this.i] === '|') {
      this.i++;
      alts.push(this.seq());
    }
    return alts.length === 1 ? alts[0] : { t: 'alt', alts };
  }

  private seq(): RNode {
    const items: RNode[] = [];
    while (this.i < this.s.length && this.s[this.i] !== '|' && this.s[this.i] !== ')') {
      if (items.length > 1000) throw new Error('too long');
      items.push(this.quantifier(this.atom()));
    }
    return { t: 'seq', items };
  }

  private atom(): RNode {
    const s = this.s;
    const c = s[this.i];
    if (c === '^' || c === '$') {
      this.i++;
      return { t: 'empty' };
    }
    if (c === '(') {
      this.i++;
      let lookaround = false;
      if (s.startsWith('?=', this.i) || s.startsWith('?!', this.i)) {
        this.i += 2;
        lookaround = true;
      } else if (s.startsWith('?<=', this.i) || s.startsWith('?<!', this.i)) {
        this.i += 3;
        lookaround = true;
      } else if (s.startsWith('?:', this.i)) {
        this.i += 2;
      } else if (s.startsWith('?<', this.i)) {
        const end = s.indexOf('>', this.i);
        if (end < 0) throw new Error('bad group');
        this.i = end + 1;
      } else if (s[this.i] === '?') {
        throw new Error('unsupported group');
      }
      const inner = this.alt();
      if (s[this.i] !== ')') throw new Error('unbalanced');
      this.i++;
      return lookaround ? { t: 'empty' } : inner;
    }
    if (c === '[') {
      let j = this.i + 1;
      while (j < s.length && s[j] !== ']') j += s[j] === '\\' ? 2 : 1;
      if (j >= s.length) throw new Error('bad class');
      const src = s.slice(this.i, j + 1);
      this.i = j + 1;
      return { t: 'set', src };
    }
    if (c === '.') {
      this.i++;
      return { t: 'set', src: '.' };
    }
    if (c === '\\') return this.escape();
    const cp = s.codePointAt(this.i) ?? 0;
    const ch = String.fromCodePoint(cp);
    this.i += ch.length;
    return { t: 'lit', ch };
  }

  private escape(): RNode {
    const s = this.s;
    this.i++;
    const c = s[this.i];
    if (c === undefined) throw new Error('trailing backslash');
    if ('dDwWsS'.includes(c)) {
      this.i++;
      return { t: 'set', src: `\\${c}` };
    }
    if ((c === 'p' || c === 'P') && s[this.i + 1] === '{') {
      const end = s.indexOf('}', this.i);
      if (end < 0) throw new Error('bad property escape');
      const src = `\\${s.slice(this.i, end + 1)}`;
      this.i = end + 1;
      return { t: 'set', src };
    }
    if (c === 'b' || c === 'B') {
      this.i++;
      return { t: 'empty' };
    }
    if (/[1-9]/.test(c)) {
      while (/\d/.test(s[this.i] ?? '')) this.i++;
      return { t: 'empty' }; // backreference: not supported, the final check decides
    }
    if (c === 'k' && s[this.i + 1] === '<') {
      const end = s.indexOf('>', this.i);
      this.i = end < 0 ? s.length : end + 1;
      return { t: 'empty' };
    }
    const simple: Record<string, string> = { t: '\t', n: '\n', r: '\r', f: '\f', v: '\v', '0': '\0' };
    if (hasOwn(simple, c)) {
      this.i++;
      return { t: 'lit', ch: simple[c] };
    }
    if (c === 'x') {
      const hex = s.slice(this.i + 1, this.i + 3);
      this.i += 3;
      return { t: 'lit', ch: String.fromCharCode(parseInt(hex, 16) || 0) };
    }
    if (c === 'u') {
      if (s[this.i + 1] === '{') {
        const end = s.indexOf('}', this.i);
        const cp = parseInt(s.slice(this.i + 2, end), 16);
        this.i = end + 1;
        return { t: 'lit', ch: String.fromCodePoint(Number.isFinite(cp) && cp <= 0x10ffff ? cp : 0x3f) };
      }
      const hex = s.slice(this.i + 1, this.i + 5);
      this.i += 5;
      return { t: 'lit', ch: String.fromCharCode(parseInt(hex, 16) || 0) };
    }
    if (c === 'c') {
      const letter = s[this.i + 1] ?? 'A';
      this.i += 2;
      return { t: 'lit', ch: String.fromCharCode(letter.charCodeAt(0) % 32) };
    }
    const cp = s.codePointAt(this.i) ?? 0;
    const ch = String.fromCodePoint(cp);
    this.i += ch.length;
    return { t: 'lit', ch };
  }

  private quantifier(atom: RNode): RNode {
    const s = this.s;
    const c = s[this.i];
    let min: number;
    let max: number;
    if (c === '*') [min, max] = [0, Infinity];
    else if (c === '+') [min, max] = [1, Infinity];
    else if (c === '?') [min, max] = [0, 1];
    else if (c === '{') {
      const m = /^\{(\d+)(,(\d*))?\}/.exec(s.slice(this.i));
      if (!m) return atom;
      min = Number(m[1]);
      max = m[2] === undefined ? min : m[3] === '' ? Infinity : Number(m[3]);
      this.i += m[0].length - 1;
    } else return atom;
    this.i++;
    if (s[this.i] === '?') this.i++;
    return { t: 'rep', node: atom, min, max };
  }
}

export const LOWER = 'example';
export const UPPER = 'EXAMPLE';
export const FALLBACK_CHARS = [
  ...'abcdefghijklmnopqrstuvwxyzABCDEFGHIJKLMNOPQRSTUVWXYZ0123456789',
  ...'-_. @:/+~!#$%&*=?,;()[]{}<>|^`\'"\\\t\n',
  'é',
  'ß',
  'α',
  'ж',
  '中',
  'あ',
  '😀',
];

export function pickChar(src: string, k: number, ctx: Ctx): string {
  const re = regex(ctx, `^(?:${src})$`);
  if (!re) throw new Error('bad atom');
  const preferred = [LOWER[k % LOWER.length], UPPER[k % UPPER.length], String((k + 1) % 10)];
  for (const ch of preferred) if (re.test(ch)) return ch;
  for (const ch of FALLBACK_CHARS) if (re.test(ch)) return ch;
  throw new Error('no character matches');
}

export function renderRegex(
  node: RNode,
  rep: number | undefined,
  seed: number,
  pos: { n: number; len: number },
  ctx: Ctx,
): string {
  if (pos.len > ARGUMENT_LIMITS.maxStringLength) throw new Error('too long');
  switch (node.t) {
    case 'empty':
      return '';
    case 'lit':
      pos.n++;
      pos.len += node.ch.length;
      return node.ch;
    case 'set': {
      const ch = pickChar(node.src, pos.n + seed, ctx);
      pos.n++;
      pos.len += ch.length;
      return ch;
    }
    case 'seq':
      return node.items.map((x) => renderRegex(x, rep, seed, pos, ctx)).join('');
    case 'alt':
      return renderRegex(node.alts[seed % node.alts.length], rep, seed, pos, ctx);
    case 'rep': {
      const dflt = node.min > 0 ? node.min : node.max >= 1 ? 1 : 0;
      const count = Math.min(
        rep === undefined ? dflt : Math.min(Math.max(rep, node.min), node.max),
        ARGUMENT_LIMITS.maxStringLength,
      );
      let out = '';
      for (let i = 0; i < count; i++) out += renderRegex(node.node, rep, seed, pos, ctx);
      return out;
    }
  }
}

export const parsedPatterns = new Map<string, RNode | null>();

/** Strings generated from a pattern with different repetition counts (checked by the caller). */
export function patternStrings(pattern: string, ctx: Ctx, minLen: number, maxLen: number, seed: number): string[] {
  let node = parsedPatterns.get(pattern);
  if (node === undefined) {
    try {
      node = new RegexParser(pattern).parse();
    } catch {
      node = null;
    }
    if (parsedPatterns.size < 1000) parsedPatterns.set(pattern, node);
  }
  if (!node) return [];
  const reps: (number | undefined)[] = [
    undefined,
    1,
    2,
    3,
    4,
    6,
    8,
    12,
    16,
    32,
    64,
    minLen,
    Number.isFinite(maxLen) ? maxLen : undefined,
  ];
  const out: string[] = [];
  for (const rep of [...new Set(reps)]) {
    try {
      const text = renderRegex(node, rep, seed, { n: 0, len: 0 }, ctx);
      if (!out.includes(text)) out.push(text);
    } catch {
      /* this variant could not be rendered */
    }
  }
  return out;
}
