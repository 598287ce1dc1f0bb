/**
 * V8 code caches of the build's ahead-of-time artefacts: the precompiled validators (./precompiled.ts) and the bundled
 * CLI's commands (dist/cli/cli.cjs, loaded by the cli-loader.js that scripts/bundle.mjs writes; the bundle makes this
 * module dist/cli/code-cache.js for it). One module for the build scripts and both loaders.
 *
 * V8 checks that a cache was made by the same V8 with the same flags and of a source of the same length, nothing more:
 * given with another source of that length it is accepted, and runs the bytecode of the other text. So the build ends
 * each source with a tag, a hash of its text, and names the cache after it (`<file>.<tag>.v8-cache`, beside it): a
 * loader reads the source anyway, takes the tag from its end and uses only the cache of that name. A source of
 * another build (files of two builds mixed, a partial copy) finds no cache, at the cost of no more than before (no
 * hashing at start-up, no stat; file times are no help: `npm install` gives every file the time it was unpacked). Not
 * caught: an edit of the file in place that keeps its length and its tag.
 */
import { createHash } from 'node:crypto';
import { isAscii } from 'node:buffer';
import { readFileSync } from 'node:fs';
import { basename, dirname, join } from 'node:path';
import { Script } from 'node:vm';

const TAG = '\n//# mcp-conform-code-cache=';

/** The text with its tag (a comment): the hash of the text that names its code cache. */
export function tagSource(text: string): string {
  return `${text}${TAG}${createHash('sha256').update(text).digest('hex').slice(0, 16)}\n`;
}

/** The text without its tag. */
export function untagSource(text: string): string {
  const i = text.lastIndexOf(TAG);
  return i < 0 ? text : text.slice(0, i);
}

/** The code cache file of the source file `path` whose text is `text` (tagged), or undefined without a tag. */
export function codeCachePath(path: string, text: string): string | undefined {
  const i = text.lastIndexOf(TAG);
  const tag = i < 0 ? '' : text.slice(i + TAG.length).trim();
  return /^[0-9a-f]{16}$/.test(tag) ? join(dirname(path), `${basename(path)}.${tag}.v8-cache`) : undefined;
}

/**
 * The text of a source file the build made (a bundle, a generated module): decoded as latin1 when it is all ASCII
 * (the same string; ~0.5 ms for 1.5 MB instead of the ~3–5 ms of UTF-8 decoding), else as UTF-8.
 */
export function readSource(path: string): string {
  const bytes = readFileSync(path);
  return bytes.toString(isAscii(bytes) ? 'latin1' : 'utf8');
}

/** The code cache made for this text of `path`, or undefined when there is none. */
export function readCodeCache(path: string, text: string): Buffer | undefined {
  const cache = codeCachePath(path, text);
  if (!cache) return undefined;
  try {
    return readFileSync(cache);
  } catch {
    return undefined;
  }
}

/**
 * Compiles `text` (the source of the file `path`, one function expression) with `cachedData` where given, and returns
 * the function and the script (V8 rejects a cache of another V8 or other flags, `script.cachedDataRejected`, and then
 * compiles the source).
 */
export function compileFunction(
  path: string,
  text: string,
  cachedData: Buffer | undefined,
): { fn: (...args: unknown[]) => unknown; script: Script } {
  const script = new Script(text, { filename: path, cachedData });
  return { fn: script.runInThisContext() as (...args: unknown[]) => unknown, script };
}
