/**
 * Hidden and look-alike characters in the text a model reads: what the poisoning rules (suites/security/poisoning-
 * rules.ts) decode and quote. A person reading a tool's description in a client sees none of these; the model reads
 * every one. Small, documented tables of our own (docs/security.md): no dependency.
 */

/** Unicode tag characters U+E0000–U+E007F: each of U+E0020–U+E007E mirrors one ASCII character, invisibly. */
export const isTag = (cp: number) => cp >= 0xe0000 && cp <= 0xe007f;
/** Variation selectors supplement U+E0100–U+E01EF: 240 invisible code points, enough to carry a byte each. */
export const isVsSupplement = (cp: number) => cp >= 0xe0100 && cp <= 0xe01ef;
/** Bidirectional embedding, override and isolate controls: they reorder what is shown (Trojan Source, CVE-2021-42574). */
export const isBidiControl = (cp: number) => (cp >= 0x202a && cp <= 0x202e) || (cp >= 0x2066 && cp <= 0x2069);
/** Zero-width and invisible formatting characters (ZWSP, ZWNJ, ZWJ, word joiner, invisible operators, BOM, MVS, soft hyphen). */
export const isZeroWidth = (cp: number) =>
  cp === 0x200b ||
  cp === 0x200c ||
  cp === 0x200d ||
  (cp >= 0x2060 && cp <= 0x2064) ||
  cp === 0xfeff ||
  cp === 0x180e ||
  cp === 0x00ad;

/** A pictograph (emoji) code point, roughly: ZWJ between two of them and VS16 after one are ordinary emoji sequences. */
const isPictograph = (cp: number) =>
  (cp >= 0x1f000 && cp <= 0x1faff) ||
  (cp >= 0x2600 && cp <= 0x27bf) ||
  (cp >= 0x2300 && cp <= 0x23ff) ||
  (cp >= 0x2b00 && cp <= 0x2bff);

export interface HiddenRun {
  kind: 'tag' | 'variation-selector' | 'bidi' | 'zero-width';
  /** Index (in code points) of the run's first character. */
  at: number;
  codePoints: number[];
  /** What the run spells: the ASCII of tag characters, the bytes of supplement selectors; undefined for the others. */
  decoded?: string;
}

/**
 * The runs of hidden characters in a text. Left out as ordinary: ZWJ between two pictographs (👨‍👩‍👧), the tag
 * sequence of a subdivision flag (🏴 followed by a few lowercase tag letters and CANCEL TAG), a BOM at the start.
 */
export function hiddenRuns(text: string): HiddenRun[] {
  const cps = [...text].map((c) => c.codePointAt(0)!);
  const runs: HiddenRun[] = [];
  let i = 0;
  while (i < cps.length) {
    const cp = cps[i]!;
    const kind: HiddenRun['kind'] | undefined = isTag(cp)
      ? 'tag'
      : isVsSupplement(cp)
        ? 'variation-selector'
        : isBidiControl(cp)
          ? 'bidi'
          : isZeroWidth(cp)
            ? 'zero-width'
            : undefined;
    if (!kind) {
      i++;
      continue;
    }
    const same =
      kind === 'tag'
        ? isTag
        : kind === 'variation-selector'
          ? isVsSupplement
          : kind === 'bidi'
            ? isBidiControl
            : isZeroWidth;
    let j = i;
    while (j < cps.length && same(cps[j]!)) j++;
    const run = cps.slice(i, j);
    const prev = i > 0 ? cps[i - 1]! : undefined;
    const next = j < cps.length ? cps[j]! : undefined;
    const ordinary =
      (kind === 'zero-width' &&
        run.length === 1 &&
        run[0] === 0x200d &&
        prev !== undefined &&
        next !== undefined &&
        isPictograph(prev) &&
        isPictograph(next)) ||
      (kind === 'zero-width' && run.length === 1 && run[0] === 0xfeff && i === 0) ||
      (kind === 'tag' &&
        prev === 0x1f3f4 &&
        run.length <= 8 &&
        run[run.length - 1] === 0xe007f &&
        run.slice(0, -1).every((c) => (c >= 0xe0061 && c <= 0xe007a) || (c >= 0xe0030 && c <= 0xe0039)));
    if (!ordinary) {
      const decoded =
        kind === 'tag'
          ? run
              .filter((c) => c >= 0xe0020 && c <= 0xe007e)
              .map((c) => String.fromCharCode(c - 0xe0000))
              .join('')
          : kind === 'variation-selector'
            ? Buffer.from(run.map((c) => (c - 0xe0100 + 16) & 0xff)).toString('latin1')
            : undefined;
      runs.push({ kind, at: i, codePoints: run, ...(decoded !== undefined ? { decoded } : {}) });
    }
    i = j;
  }
  return runs;
}

const hex = (cp: number) => `U+${cp.toString(16).toUpperCase().padStart(4, '0')}`;

/** A text with every hidden character shown as ⟦U+XXXX⟧ (a tag run as ⟦tags: "…"⟧), so that a report can quote it. */
export function revealHidden(text: string): string {
  const cps = [...text];
  let out = '';
  let i = 0;
  for (const r of hiddenRuns(text)) {
    out += cps.slice(i, r.at).join('');
    out +=
      r.decoded !== undefined
        ? `⟦${r.kind === 'tag' ? 'tags' : 'selectors'}: ${JSON.stringify(r.decoded)}⟧`
        : r.codePoints.map((c) => `⟦${hex(c)}⟧`).join('');
    i = r.at + r.codePoints.length;
  }
  return out + cps.slice(i).join('');
}

/** The text without its hidden characters, tag runs replaced by what they spell (so that the word rules read it too). */
export function withoutHidden(text: string): string {
  const cps = [...text];
  let out = '';
  let i = 0;
  for (const r of hiddenRuns(text)) {
    out += cps.slice(i, r.at).join('') + (r.kind === 'tag' && r.decoded ? ` ${r.decoded} ` : '');
    i = r.at + r.codePoints.length;
  }
  return out + cps.slice(i).join('');
}

export const describeCodePoint = hex;

/**
 * Characters that look like a Latin letter or digit, with the one they imitate: the Cyrillic and Greek letters that
 * are drawn the same in common fonts, a few Latin look-alikes, and (handled apart) the fullwidth forms U+FF01–FF5E.
 * A small table of the common ones, not Unicode's whole confusables data: what impersonates a tool name in practice.
 */
export const CONFUSABLES: Readonly<Record<string, string>> = {
  // Cyrillic
  а: 'a',
  в: 'b',
  е: 'e',
  ё: 'e',
  і: 'i',
  ї: 'i',
  ј: 'j',
  к: 'k',
  м: 'm',
  н: 'h',
  о: 'o',
  р: 'p',
  с: 'c',
  т: 't',
  у: 'y',
  х: 'x',
  ѕ: 's',
  һ: 'h',
  ԁ: 'd',
  ӏ: 'l',
  ԛ: 'q',
  ԝ: 'w',
  ɡ: 'g',
  А: 'A',
  В: 'B',
  Е: 'E',
  К: 'K',
  М: 'M',
  Н: 'H',
  О: 'O',
  Р: 'P',
  С: 'C',
  Т: 'T',
  Х: 'X',
  Ѕ: 'S',
  І: 'I',
  Ј: 'J',
  // Greek
  α: 'a',
  ο: 'o',
  ρ: 'p',
  ν: 'v',
  ι: 'i',
  κ: 'k',
  υ: 'u',
  ε: 'e',
  τ: 't',
  χ: 'x',
  Α: 'A',
  Β: 'B',
  Ε: 'E',
  Ζ: 'Z',
  Η: 'H',
  Ι: 'I',
  Κ: 'K',
  Μ: 'M',
  Ν: 'N',
  Ο: 'O',
  Ρ: 'P',
  Τ: 'T',
  Υ: 'Y',
  Χ: 'X',
  // Latin look-alikes
  ı: 'i',
  ȷ: 'j',
  ℓ: 'l',
  ʟ: 'L',
  ɑ: 'a',
  ǀ: 'l',
};

/** The non-ASCII characters of a name that imitate ASCII ones: [character, what it imitates]. */
export function lookAlikes(name: string): [string, string][] {
  const out: [string, string][] = [];
  for (const ch of name) {
    const cp = ch.codePointAt(0)!;
    if (CONFUSABLES[ch]) out.push([ch, CONFUSABLES[ch]!]);
    else if (cp >= 0xff01 && cp <= 0xff5e) out.push([ch, String.fromCharCode(cp - 0xfee0)]);
  }
  return out;
}

/**
 * The skeleton of a name: look-alike characters mapped to what they imitate, lowercased, then the ASCII pairs that
 * read alike folded (rn→m, vv→w, 1/I/|→l, 0→o). Two names with one skeleton look the same to a reader.
 */
export function skeleton(name: string): string {
  let s = '';
  for (const ch of name) {
    const cp = ch.codePointAt(0)!;
    s += CONFUSABLES[ch] ?? (cp >= 0xff01 && cp <= 0xff5e ? String.fromCharCode(cp - 0xfee0) : ch);
  }
  return s.replace(/[I|1]/g, 'l').toLowerCase().replace(/rn/g, 'm').replace(/vv/g, 'w').replace(/0/g, 'o');
}
