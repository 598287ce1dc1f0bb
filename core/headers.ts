/**
 * The one parser of "Name: value" headers given by the user: `--header` of `run`, `record` and `serve` (a config
 * file's `header` object becomes such lines too, lib/config.ts). Errors never quote the text: it may hold a secret.
 */

/** Parse "Name: value" (as given to --header). Throws with a plain message when it is not a header (never quoting
 * the text: it may hold a secret). */
export function parseHeader(s: string): [string, string] {
  const i = s.indexOf(':');
  if (i <= 0)
    throw new Error(
      `wants "Name: value" with a name before the colon (the text given is not shown: it may hold a secret)`,
    );
  const name = s.slice(0, i).trim();
  const value = s.slice(i + 1).trim();
  if (!/^[!#$%&'*+\-.^_`|~0-9A-Za-z]+$/.test(name))
    throw new Error(
      `the text before the first colon is not a valid header name (wants "Name: value"; not shown: it may hold a secret)`,
    );
  if (/[\r\n\0]/.test(value)) throw new Error(`the value of ${name} contains a line break or NUL`);
  return [name, value];
}

/** The headers of a repeated option, in order (a later header of the same name wins). Throws like parseHeader. */
export function parseHeaders(lines: readonly string[]): Record<string, string> {
  const out: Record<string, string> = {};
  for (const line of lines) {
    const [name, value] = parseHeader(line);
    out[name] = value;
  }
  return out;
}
