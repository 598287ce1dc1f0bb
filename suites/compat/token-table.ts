/**
 * Counting o200k_base tokens from a table the build makes (scripts/precompile-tokenizer.mjs) out of gpt-tokenizer's
 * own data, so that a run does not load the package's encoder: that means parsing 2.4 MB of ranks and building a map
 * of 200,000 strings, ~150–250 ms of CPU in every run, on a machine whose cores the server under test needs at the
 * same moment. The table is read as it is stored (one file read, no parsing): a hash table of the tokens' UTF-8 bytes.
 *
 * The count is gpt-tokenizer's `countTokens(text, { disallowedSpecial: new Set() })`, computed the same way:
 *   - text that looks like a special token (`<|endoftext|>`…) is counted as ordinary text, as a model's API counts
 *     what a tool sends (gpt-tokenizer's default would refuse it: a server whose tool is about tokenizers would fail
 *     the quality suite with a harness error);
 *   - the text is split with the encoding's split pattern (taken from the package at build time);
 *   - a piece that is a token counts 1 (a piece with an unpaired surrogate is never one: the package looks pieces up
 *     as strings);
 *   - any other piece is encoded as UTF-8 and its bytes merged pair by pair, the pair of lowest rank first (the
 *     leftmost of equals), as long as a merged pair is a token; the parts left are the piece's tokens.
 * The build refuses to write a table whose counts differ from the package's on its sample texts, and
 * test/token-table.test.ts compares the two on many more; without a table the package itself counts.
 *
 * File layout (little-endian): "MCTT", u32 header length, the header (JSON, see TableHeader), zero padding to a
 * multiple of 4, then u32 offsets[count + 1] (token r's bytes are blob[offsets[r], offsets[r + 1])), u32
 * slots[slotCount] (rank + 1 of the token whose FNV-1a hash of its bytes leads there by linear probing, 0 = empty),
 * then the blob.
 */

const MAGIC = 'MCTT';
/** Pieces whose counts a table remembers at most (then it forgets them all and starts again). */
const MAX_COUNTED = 10_000;
/** A surrogate code unit that is not half of a pair (in a `u` pattern, paired ones read as one code point). */
const UNPAIRED_SURROGATE = /\p{Cs}/u;

export interface TableHeader {
  /** What the table was made from (the package, its version, the encoding); checked before use. */
  fingerprint: string;
  /** The split pattern's source and flags. */
  pattern: string;
  flags: string;
  count: number;
  slotCount: number;
}

/** FNV-1a (32 bits) of bytes[start, end). */
function fnv1a(bytes: Uint8Array, start: number, end: number): number {
  let h = 0x811c9dc5;
  for (let i = start; i < end; i++) {
    h ^= bytes[i]!;
    h = Math.imul(h, 0x01000193);
  }
  return h >>> 0;
}

/**
 * The table of a ranks array as gpt-tokenizer keeps it (index = rank; a string, or the bytes of a token that is no
 * valid UTF-8). `unreachable`: the tokens no lookup can find (gpt-tokenizer looks bytes that are valid UTF-8 up as a
 * string only, so a token kept as bytes that happen to be valid UTF-8, such as U+FEFF's, is never found): they keep
 * their rank but get no slot. Throws when the array is not what the table can stand for: a string token with an
 * unpaired surrogate (its UTF-8 would not be its bytes), or two findable tokens of the same bytes.
 */
export function buildTokenTable(
  ranks: (string | number[])[],
  header: Omit<TableHeader, 'count' | 'slotCount'>,
  unreachable: (rank: number) => boolean = () => false,
): Buffer {
  const enc = new TextEncoder();
  const tokens = ranks.map((v, r) => {
    if (typeof v === 'string') {
      if (UNPAIRED_SURROGATE.test(v)) throw new Error(`token ${r} is a string with an unpaired surrogate`);
      return enc.encode(v);
    }
    if (!Array.isArray(v)) throw new Error(`token ${r} is neither a string nor bytes`);
    return Uint8Array.from(v);
  });
  const count = tokens.length;
  let slotCount = 1;
  while (slotCount < count * 2) slotCount *= 2;
  const blobLength = tokens.reduce((n, t) => n + t.length, 0);
  const offsets = new Uint32Array(count + 1);
  const blob = new Uint8Array(blobLength);
  let at = 0;
  tokens.forEach((t, r) => {
    offsets[r] = at;
    blob.set(t, at);
    at += t.length;
  });
  offsets[count] = at;
  const slots = new Uint32Array(slotCount);
  const mask = slotCount - 1;
  tokens.forEach((t, r) => {
    if (unreachable(r)) return;
    for (let i = fnv1a(t, 0, t.length) & mask; ; i = (i + 1) & mask) {
      const s = slots[i]!;
      if (s === 0) {
        slots[i] = r + 1;
        return;
      }
      const o = tokens[s - 1]!;
      if (o.length === t.length && o.every((b, k) => b === t[k]))
        throw new Error(`tokens ${s - 1} and ${r} have the same bytes`);
    }
  });
  const head = Buffer.from(JSON.stringify({ ...header, count, slotCount } satisfies TableHeader));
  const headLength = Math.ceil((8 + head.length) / 4) * 4;
  const out = Buffer.alloc(headLength + offsets.byteLength + slots.byteLength + blob.byteLength);
  out.write(MAGIC, 0, 'latin1');
  out.writeUInt32LE(head.length, 4);
  head.copy(out, 8);
  Buffer.from(offsets.buffer).copy(out, headLength);
  Buffer.from(slots.buffer).copy(out, headLength + offsets.byteLength);
  Buffer.from(blob.buffer).copy(out, headLength + offsets.byteLength + slots.byteLength);
  return out;
}

/** A loaded table: counts as gpt-tokenizer's countTokens does (see the top of this file). */
export class TokenTable {
  readonly header: TableHeader;
  private readonly offsets: Uint32Array;
  private readonly slots: Uint32Array;
  private readonly blob: Uint8Array;
  private readonly mask: number;
  private readonly split: RegExp;
  private readonly encoder = new TextEncoder();
  private buffer = new Uint8Array(256);
  /** The count of each piece met so far (a piece's count depends on nothing else; JSON repeats its pieces). */
  private readonly counted = new Map<string, number>();

  /** Reads a table file's bytes; throws when they are not one. */
  constructor(data: Uint8Array) {
    const view = Buffer.from(data.buffer, data.byteOffset, data.byteLength);
    if (view.toString('latin1', 0, 4) !== MAGIC) throw new Error('not a token table');
    const headBytes = view.readUInt32LE(4);
    const header = JSON.parse(view.toString('utf8', 8, 8 + headBytes)) as TableHeader;
    const headLength = Math.ceil((8 + headBytes) / 4) * 4;
    const { count, slotCount } = header;
    if (
      !Number.isInteger(count) ||
      !Number.isInteger(slotCount) ||
      slotCount < count ||
      (slotCount & (slotCount - 1)) !== 0
    )
      throw new Error('a token table with a broken header');
    // Typed arrays over the file's bytes need 4-byte alignment: copy once if the buffer is not aligned.
    const base = (data.byteOffset + headLength) % 4 === 0 ? data : data.slice();
    const start = base.byteOffset + headLength;
    this.offsets = new Uint32Array(base.buffer, start, count + 1);
    this.slots = new Uint32Array(base.buffer, start + 4 * (count + 1), slotCount);
    const blobAt = start + 4 * (count + 1) + 4 * slotCount;
    this.blob = new Uint8Array(base.buffer, blobAt, this.offsets[count]!);
    if (blobAt + this.blob.length > base.byteOffset + base.byteLength) throw new Error('a token table cut short');
    this.header = header;
    this.mask = slotCount - 1;
    this.split = new RegExp(header.pattern, header.flags.includes('g') ? header.flags : `${header.flags}g`);
  }

  /** The rank of the token whose bytes are bytes[start, end), or -1. */
  private rank(bytes: Uint8Array, start: number, end: number): number {
    const len = end - start;
    const { slots, offsets, blob, mask } = this;
    for (let i = fnv1a(bytes, start, end) & mask; ; i = (i + 1) & mask) {
      const s = slots[i]!;
      if (s === 0) return -1;
      const at = offsets[s - 1]!;
      if (offsets[s]! - at !== len) continue;
      let k = 0;
      while (k < len && blob[at + k] === bytes[start + k]) k++;
      if (k === len) return s - 1;
    }
  }

  /** The UTF-8 bytes of a piece, in a buffer reused from call to call, and their number. */
  private utf8(piece: string): number {
    if (this.buffer.length < piece.length * 3) this.buffer = new Uint8Array(piece.length * 3);
    return this.encoder.encodeInto(piece, this.buffer).written!;
  }

  /** The number of tokens of `text`, special-token lookalikes counted as ordinary text. */
  count(text: string): number {
    let n = 0;
    // The pieces matchAll would give, from this one RegExp object (matchAll makes a copy of it for every text, and the
    // copy's native code for this large Unicode pattern may have to be compiled again: milliseconds per count).
    const split = this.split;
    split.lastIndex = 0;
    for (let m = split.exec(text); m; m = split.exec(text)) {
      const piece = m[0];
      if (!piece.length) {
        // (The pattern matches no empty piece; were it to, move on by one code point as matchAll does.)
        split.lastIndex += (text.codePointAt(split.lastIndex) ?? 0) > 0xffff ? 2 : 1;
        continue;
      }
      const known = this.counted.get(piece);
      if (known !== undefined) {
        n += known;
        continue;
      }
      const len = this.utf8(piece);
      const bytes = this.buffer;
      const c =
        this.rank(bytes, 0, len) >= 0 && !UNPAIRED_SURROGATE.test(piece) ? 1 : this.mergedParts(bytes, len, piece);
      if (this.counted.size >= MAX_COUNTED) this.counted.clear();
      this.counted.set(piece, c);
      n += c;
    }
    return n;
  }

  /** How many tokens bytes[0, len) become by merging pairs, lowest rank first; throws on a part that is no token. */
  private mergedParts(bytes: Uint8Array, len: number, piece: string): number {
    const starts: number[] = [];
    const ranks: number[] = [];
    const pairRank = (i: number): number => {
      const end = starts[i + 2];
      if (end === undefined) return Infinity;
      const r = this.rank(bytes, starts[i]!, end);
      return r < 0 ? Infinity : r;
    };
    for (let i = 0; i <= len; i++) starts.push(i);
    for (let i = 0; i <= len; i++) ranks.push(i < len - 1 ? pairRank(i) : Infinity);
    while (starts.length > 1) {
      let lowest = Infinity;
      let at = -1;
      for (let i = 0; i < ranks.length - 1; i++) {
        if (ranks[i]! < lowest) {
          lowest = ranks[i]!;
          at = i;
        }
      }
      if (at < 0) break;
      starts.splice(at + 1, 1);
      ranks.splice(at, 1);
      ranks[at] = pairRank(at);
      if (at > 0) ranks[at - 1] = pairRank(at - 1);
    }
    for (let i = 0; i < starts.length - 1; i++) {
      if (this.rank(bytes, starts[i]!, starts[i + 1]!) < 0)
        throw new Error(
          `The byte-pair encoding does not contain a value for: ${bytes.subarray(starts[i]!, starts[i + 1]!).toString()} (in ${JSON.stringify(piece)})`,
        );
    }
    return starts.length - 1;
  }
}
