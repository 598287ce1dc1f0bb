/**
 * report.json: the whole report, the machine-readable contract documented in docs/report.md. One target: the report
 * itself. Several targets (a config file): `{ tool, reportVersion, startedAt, durationMs, exitCode, summary, runs }`.
 *
 * Written piece by piece: a large run's message log is never turned into one string (that string, and the buffer it
 * is copied into, used to be the peak of a run's memory). The bytes are exactly those of
 * `JSON.stringify(doc, null, 2) + '\n'`.
 */
import { closeSync, openSync, writeSync } from 'node:fs';
import { mkdir } from 'node:fs/promises';
import { join } from 'node:path';
import { combine, type Reporter } from './types.js';
import { envSecretRedactor } from '../core/secrets.js';
import { messageWithBodies, type ReportBodies } from '../core/log.js';
import type { Report } from '../core/results.js';

export const jsonReporter: Reporter = {
  name: 'json',
  writesFiles: true,
  // While the server ends (nothing else to do then), the log's messages are rendered as report.json will hold them.
  onSessionEnd: (messages) => prerenderMessages(messages),
  async onFinished(set, { outDir }) {
    await mkdir(outDir, { recursive: true });
    const file = join(outDir, 'report.json');
    const runs = set.runs.map(withReportBodies);
    const doc = runs.length === 1 && !set.shard ? runs[0] : combine({ ...set, runs });
    await writeJsonFile(file, doc);
    return file;
  },
};

/**
 * A run as report.json carries it: under --report-bodies truncated or none (report.options.reportBodies) a shallow
 * copy whose messages have their bodies cut or left out (core/log.ts messageWithBodies); else the run itself.
 */
export function withReportBodies(r: Report): Report {
  const mode = (r.options as { reportBodies?: ReportBodies } | undefined)?.reportBodies;
  if (!mode || mode === 'full' || !Array.isArray(r.messages)) return r;
  return { ...r, messages: r.messages.map((m) => messageWithBodies(m, mode)) as Report['messages'] };
}

/**
 * Log messages rendered ahead of the report (prerenderMessages): by message, the text PieceWalker would write for it
 * as an item of report.messages (indent: the items' own, that of a one-target report), and its own fields as they
 * were then. A message whose fields have changed since (none should: see RunOptions.onSessionEnd) is rendered again.
 */
const ready = new WeakMap<object, { indent: string; fields: unknown[]; text: string }>();
/** The indent of report.messages' items in a one-target report.json. */
const MESSAGE_INDENT = '    ';
/** Logs whose messages' texts are longer in all are not rendered ahead (the texts would all be held at once). */
const PRERENDER_MAX_CHARS = 8 * 1024 * 1024;
/** CPU time a step of prerenderMessages takes at most before the event loop gets its turn (the server's end is awaited). */
const PRERENDER_STEP_MS = 2;

/** The message's own fields and their values (identities), in order. */
function fieldsOf(m: object): unknown[] {
  const out: unknown[] = [];
  for (const k of Object.keys(m)) out.push(k, (m as Record<string, unknown>)[k]);
  return out;
}

/**
 * Renders the messages of a log, now and in steps between other work, as report.json's messages array holds them, so
 * that the report need not do it after the run: called once the session has sent its last message, while the server
 * ends. Not for a log longer than PRERENDER_MAX_CHARS (held in memory until written), nor for messages that crossed
 * HTTP (their HTTP record is completed when the answer's status line comes).
 */
export function prerenderMessages(messages: readonly object[]): void {
  let chars = 0;
  for (const m of messages) {
    const raw = (m as { raw?: unknown }).raw;
    chars += typeof raw === 'string' ? raw.length : 0;
    if (chars > PRERENDER_MAX_CHARS) return;
  }
  const todo = messages.slice();
  let i = 0;
  const step = () => {
    const until = performance.now() + PRERENDER_STEP_MS;
    while (i < todo.length && performance.now() < until) {
      const m = todo[i++]!;
      if (
        m === null ||
        typeof m !== 'object' ||
        'http' in m ||
        typeof (m as { toJSON?: unknown }).toJSON === 'function' ||
        ready.has(m)
      )
        continue;
      ready.set(m, { indent: MESSAGE_INDENT, fields: fieldsOf(m), text: stringifyAt(m, MESSAGE_INDENT) });
    }
    if (i < todo.length) setImmediate(step);
  };
  // After what the caller does next in this turn (closing the server's stdin).
  setImmediate(step);
}

/** The text prerenderMessages made for this item at this indent, if its fields are still those it was made from. */
function prerendered(item: unknown, indent: string): string | undefined {
  if (item === null || typeof item !== 'object') return undefined;
  const r = ready.get(item);
  if (!r || r.indent !== indent) return undefined;
  const now = fieldsOf(item);
  if (now.length !== r.fields.length || now.some((v, k) => v !== r.fields[k])) return undefined;
  return r.text;
}

/** Characters gathered before a write: small enough that the joined chunk is an ordinary (young) heap object. */
const CHUNK_CHARS = 32 * 1024;
/** Characters written between two turns of the event loop. */
const YIELD_CHARS = 4 * 1024 * 1024;

/**
 * Writes `JSON.stringify(value, null, 2) + '\n'` to a file, piece by piece. Each chunk is written at once (a
 * synchronous write of a few kilobytes into the page cache), so nothing waits in a stream's queue: the memory a
 * large report needs is its largest single piece, not the report. Between chunks the event loop gets its turn now
 * and then.
 */
export async function writeJsonFile(file: string, value: unknown): Promise<void> {
  // The values of secret environment variables never reach the file (a server may print its environment): each
  // piece is a whole JSON token (a string is never cut), so a value is replaced wherever it appears.
  const redact = envSecretRedactor();
  const fd = openSync(file, 'w');
  try {
    let buf: string[] = [];
    let size = 0;
    let sinceYield = 0;
    const flush = () => {
      if (!buf.length) return;
      const chunk = buf.length === 1 ? buf[0]! : buf.join('');
      buf = [];
      size = 0;
      writeAll(fd, chunk);
      sinceYield += chunk.length;
    };
    const put = (piece: string) => {
      const s = redact(piece);
      if (s.length >= CHUNK_CHARS) {
        // A large piece goes on its own: no copy of it is made to join it with the others.
        flush();
        writeAll(fd, s);
        sinceYield += s.length;
        return;
      }
      buf.push(s);
      size += s.length;
      if (size >= CHUNK_CHARS) flush();
    };
    const walker = new PieceWalker(put);
    const v = toJsonValue(value, '');
    // Top-level containers are walked item by item, yielding to the event loop between items now and then.
    if (v !== null && typeof v === 'object' && !isBoxed(v)) {
      await walker.containerAsync(v as object, '', async () => {
        if (sinceYield >= YIELD_CHARS) {
          flush();
          sinceYield = 0;
          await new Promise<void>((r) => setImmediate(r));
        }
      });
    } else walker.value(v, '', 0);
    put('\n');
    flush();
  } finally {
    closeSync(fd);
  }
}

function writeAll(fd: number, s: string): void {
  const bytes = Buffer.byteLength(s);
  let written = writeSync(fd, s);
  if (written < bytes) {
    // A short write (rare on a file): write the rest from the encoded bytes.
    const b = Buffer.from(s);
    while (written < b.length) written += writeSync(fd, b, written, b.length - written);
  }
}

/**
 * Emits the text of JSON.stringify(value, null, 2) in pieces. Arrays are walked item by item (up to MAX_DEPTH), and
 * so are objects near the top or that hold a long array (a suite's cases); anything else is stringified whole.
 */
const MAX_DEPTH = 6;
const LONG_ARRAY = 32;

class PieceWalker {
  constructor(private readonly put: (s: string) => void) {}

  /** value: already passed through toJsonValue; depth: of the value (the document is 0). */
  value(v: unknown, indent: string, depth: number): void {
    if (v === null || typeof v !== 'object' || isBoxed(v) || !this.walks(v as object, depth)) {
      this.put(stringifyAt(v, indent));
      return;
    }
    this.container(v as object, indent, depth);
  }

  walks(v: object, depth: number): boolean {
    if (depth >= MAX_DEPTH) return false;
    if (Array.isArray(v)) return depth < 2 || v.length > LONG_ARRAY;
    if (depth < 2) return true;
    for (const k in v) {
      if (!Object.hasOwn(v, k)) continue;
      const x = (v as Record<string, unknown>)[k];
      if (Array.isArray(x) && x.length > LONG_ARRAY) return true;
    }
    return false;
  }

  private container(v: object, indent: string, depth: number): void {
    const inner = indent + '  ';
    if (Array.isArray(v)) {
      if (!v.length) {
        this.put('[]');
        return;
      }
      this.put('[');
      for (let i = 0; i < v.length; ) i = this.items(v, i, indent, depth + 1);
      this.put('\n' + indent + ']');
      return;
    }
    let first = true;
    for (const k of Object.keys(v)) {
      const item = toJsonValue((v as Record<string, unknown>)[k], k);
      if (item === undefined || typeof item === 'function' || typeof item === 'symbol') continue;
      this.put((first ? '{\n' : ',\n') + inner + JSON.stringify(k) + ': ');
      first = false;
      this.value(item, inner, depth + 1);
    }
    this.put(first ? '{}' : '\n' + indent + '}');
  }

  /**
   * Items of the array a (indent: the array's) from index i, at depth: a run of consecutive items that would each be
   * stringified whole (see batchEnd) is stringified in one call, as the items of a slice of a whose brackets are cut
   * off (one JSON.stringify of a few hundred log messages costs about half as much as one per message); else item i
   * alone. Returns the index of the next item.
   */
  items(a: unknown[], i: number, indent: string, depth: number): number {
    const inner = indent + '  ';
    const rendered = prerendered(a[i], inner);
    if (rendered !== undefined) {
      this.put((i ? ',\n' : '\n') + inner);
      this.put(rendered);
      return i + 1;
    }
    const end = batchEnd(a, i, depth, (x) => this.walks(x, depth), inner);
    this.put((i ? ',\n' : '\n') + inner);
    if (end > i + 1) {
      const s = stringifyAt(a.slice(i, end), indent);
      this.put(s.slice(2 + inner.length, s.length - indent.length - 2));
      return end;
    }
    this.item(toJsonValue(a[i], String(i)), inner, depth, 'null');
    return i + 1;
  }

  /** The top-level container, with an await between its items (see writeJsonFile). */
  async containerAsync(v: object, indent: string, between: () => Promise<void>): Promise<void> {
    const inner = indent + '  ';
    if (Array.isArray(v)) {
      if (!v.length) {
        this.put('[]');
        return;
      }
      this.put('[');
      for (let i = 0; i < v.length; i++) {
        await between();
        this.put((i ? ',\n' : '\n') + inner);
        await this.itemAsync(toJsonValue(v[i], String(i)), inner, between, 'null');
      }
      this.put('\n' + indent + ']');
      return;
    }
    let first = true;
    for (const k of Object.keys(v)) {
      const item = toJsonValue((v as Record<string, unknown>)[k], k);
      if (item === undefined || typeof item === 'function' || typeof item === 'symbol') continue;
      await between();
      this.put((first ? '{\n' : ',\n') + inner + JSON.stringify(k) + ': ');
      first = false;
      await this.itemAsync(item, inner, between);
    }
    this.put(first ? '{}' : '\n' + indent + '}');
  }

  /** An array item or member one level below the top: a long array there (the message log) is walked with awaits. */
  private async itemAsync(
    item: unknown,
    indent: string,
    between: () => Promise<void>,
    missing?: string,
  ): Promise<void> {
    if (missing !== undefined && (item === undefined || typeof item === 'function' || typeof item === 'symbol')) {
      this.put(missing);
      return;
    }
    if (Array.isArray(item) && item.length) {
      this.put('[');
      for (let i = 0, next = 0; i < item.length; ) {
        if (i >= next) {
          await between();
          next = i + 64;
        }
        i = this.items(item, i, indent, 2);
      }
      this.put('\n' + indent + ']');
      return;
    }
    this.value(item, indent, 1);
  }

  private item(item: unknown, indent: string, depth: number, missing: string): void {
    if (item === undefined || typeof item === 'function' || typeof item === 'symbol') this.put(missing);
    else this.value(item, indent, depth);
  }
}

/** The text of JSON.stringify(value, null, 2), in pieces (the same walk as writeJsonFile). */
export function jsonPieces(value: unknown): string[] {
  const out: string[] = [];
  new PieceWalker((s) => out.push(s)).value(toJsonValue(value, ''), '', 0);
  return out;
}

const wrappers = new Map<string, { pre: number; post: number }>();

/**
 * JSON.stringify(v, null, 2) with every line after the first indented by `indent`, in one pass: v is stringified
 * inside as many arrays as the indent has levels, whose brackets are then cut off (no second pass to indent it).
 */
function stringifyAt(v: unknown, indent: string): string {
  if (!indent || v === null || typeof v !== 'object') return JSON.stringify(v, null, 2);
  const levels = indent.length >> 1;
  let w = wrappers.get(indent);
  if (!w) {
    let pre = 0;
    let post = 0;
    for (let k = 1; k <= levels; k++) {
      pre += 2 + 2 * k;
      post += 2 + 2 * (k - 1);
    }
    w = { pre, post };
    wrappers.set(indent, w);
  }
  let wrapped: unknown = v;
  for (let k = 0; k < levels; k++) wrapped = [wrapped];
  const s = JSON.stringify(wrapped, null, 2);
  return s.slice(w.pre, s.length - w.post);
}

/**
 * Items in one batch (PieceWalker.items) at most, and characters of their `raw` strings (a log message's text). Small
 * enough that a batch's text stays an ordinary young heap object (tens of kilobytes): JSON.stringify builds a long
 * result as a chain of parts, which cutting off the wrapper's brackets (stringifyAt) copies into one flat string, and
 * a string of hundreds of kilobytes is given fresh pages each time (256 items and 64 KiB of raw text made ~15,000 of a
 * 5,000-tool run's ~81,000 page faults, and ~6% of its CPU time).
 */
const BATCH_ITEMS = 32;
const BATCH_RAW_CHARS = 8 * 1024;

/**
 * The end of the batch of items of a that starts at i: consecutive items that PieceWalker.value would stringify whole
 * (primitives, and objects it does not walk into) and that have no toJSON (JSON.stringify would pass it the index in
 * the slice, not in a). Bounded in count, and by the length of the items' `raw` strings (the log's messages: their
 * text bounds their size), so that the batch's string stays a small piece of the report; an item with a long raw goes
 * on its own. Returns i + 1 or less when no batch starts at i.
 */
function batchEnd(a: unknown[], i: number, depth: number, walks: (v: object) => boolean, indent: string): number {
  let raw = 0;
  let j = i;
  for (; j < a.length && j - i < BATCH_ITEMS; j++) {
    const x = a[j];
    if (typeof x === 'bigint') break;
    if (x !== null && typeof x === 'object') {
      if (typeof (x as { toJSON?: unknown }).toJSON === 'function' || isBoxed(x) || (depth < MAX_DEPTH && walks(x)))
        break;
      if (j > i && prerendered(x, indent) !== undefined) break; // written as it was rendered
      const r = (x as { raw?: unknown }).raw;
      if (typeof r === 'string') {
        raw += r.length;
        if (raw > BATCH_RAW_CHARS) {
          if (j === i) j++;
          break;
        }
      }
    }
  }
  return j;
}

function isBoxed(v: object): boolean {
  return v instanceof Number || v instanceof String || v instanceof Boolean;
}

function toJsonValue(v: unknown, key: string): unknown {
  if (v !== null && typeof v === 'object' && typeof (v as { toJSON?: unknown }).toJSON === 'function')
    return (v as { toJSON(k: string): unknown }).toJSON(key);
  if (typeof v === 'bigint') return JSON.stringify(v); // throws as JSON.stringify does
  return v;
}
