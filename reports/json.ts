/**
 * report.json: the whole report, the machine-readable contract documented in the README. One target: the report
 * itself. Several targets (a config file): `{ tool, reportVersion, startedAt, durationMs, exitCode, summary, runs }`.
 *
 * Written as a stream: a large run's message log is never turned into one string (that string, and the buffer it
 * is copied into, used to be the peak of a run's memory). The bytes are exactly those of
 * `JSON.stringify(doc, null, 2) + '\n'`.
 */
import { createWriteStream } from 'node:fs';
import { mkdir } from 'node:fs/promises';
import { join } from 'node:path';
import { combine, type Reporter } from './types.js';

export const jsonReporter: Reporter = {
  name: 'json',
  async onFinished(set, outDir) {
    await mkdir(outDir, { recursive: true });
    const file = join(outDir, 'report.json');
    const doc = set.runs.length === 1 ? set.runs[0] : combine(set);
    await writeJsonFile(file, doc);
    return file;
  },
};

/** Writes `JSON.stringify(value, null, 2) + '\n'` to a file, piece by piece (arrays and objects near the top are walked). */
export async function writeJsonFile(file: string, value: unknown): Promise<void> {
  const out = createWriteStream(file);
  const failed = new Promise<never>((_, reject) => out.once('error', reject));
  failed.catch(() => undefined);
  let buf: string[] = [];
  let size = 0;
  const flush = async () => {
    if (!buf.length) return;
    const chunk = buf.join('');
    buf = [];
    size = 0;
    if (!out.write(chunk)) await Promise.race([new Promise<void>((r) => out.once('drain', () => r())), failed]);
  };
  const put = async (s: string) => {
    buf.push(s);
    size += s.length;
    if (size >= 1 << 20) await flush();
  };
  for (const piece of jsonPieces(value)) await put(piece);
  await put('\n');
  await flush();
  await Promise.race([new Promise<void>((r) => out.end(r)), failed]);
}

/** The text of JSON.stringify(value, null, 2), in pieces: containers up to `walkDepth` deep are walked, deeper values stringified whole. */
export function* jsonPieces(value: unknown, indent = '', walkDepth = 2): Generator<string> {
  const v = toJsonValue(value, '');
  if (walkDepth <= 0 || v === null || typeof v !== 'object') {
    const s = JSON.stringify(v, null, 2);
    yield indent ? s.replace(/\n/g, '\n' + indent) : s;
    return;
  }
  const inner = indent + '  ';
  if (Array.isArray(v)) {
    if (!v.length) { yield '[]'; return; }
    yield '[';
    for (let i = 0; i < v.length; i++) {
      yield (i ? ',\n' : '\n') + inner;
      const item = toJsonValue(v[i], String(i));
      if (item === undefined || typeof item === 'function' || typeof item === 'symbol') yield 'null';
      else yield* jsonPieces(item, inner, walkDepth - 1);
    }
    yield '\n' + indent + ']';
    return;
  }
  let first = true;
  for (const k of Object.keys(v)) {
    const item = toJsonValue((v as Record<string, unknown>)[k], k);
    if (item === undefined || typeof item === 'function' || typeof item === 'symbol') continue;
    yield (first ? '{\n' : ',\n') + inner + JSON.stringify(k) + ': ';
    first = false;
    yield* jsonPieces(item, inner, walkDepth - 1);
  }
  yield first ? '{}' : '\n' + indent + '}';
}

function toJsonValue(v: unknown, key: string): unknown {
  if (v !== null && typeof v === 'object' && typeof (v as { toJSON?: unknown }).toJSON === 'function') return (v as { toJSON(k: string): unknown }).toJSON(key);
  if (typeof v === 'bigint') return JSON.stringify(v); // throws as JSON.stringify does
  return v;
}
