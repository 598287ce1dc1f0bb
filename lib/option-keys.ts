/**
 * The library's options are checked by key, as the config file is: a misspelt key (`suits`, `timout`) is an error
 * naming it and the nearest known key, not an option silently left out (a run of all 22 suites with the default
 * timeout). runConformance, vitest's conformance() and validateLog call it.
 */
import { nearest } from '../core/suggest.js';

/** Options that are wrong (a usage error: exit code 2 in the CLI); `name` is 'OptionsError' (an unknown key among them). */
export class OptionsError extends Error {
  override name = 'OptionsError';
}

/**
 * Why the options object has keys that are not options (each with the nearest known key), or undefined. `known`: the
 * keys taken; `what`: whose options, for the message (e.g. 'runConformance').
 */
export function unknownKeysMessage(o: object, known: Iterable<string>, what: string): string | undefined {
  const knownList = [...known];
  const bad = Object.keys(o).filter((k) => !knownList.includes(k));
  if (!bad.length) return undefined;
  const each = bad.map((k) => {
    const near = nearest(k, knownList);
    return `"${k}"${near ? ` (did you mean ${near}?)` : ''}`;
  });
  return `${what}: unknown option${bad.length === 1 ? '' : 's'} ${each.join(', ')}`;
}
