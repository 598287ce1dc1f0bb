/** Text shortened for messages and reports: the one place that decides how (model layer; imports nothing). */

/** The text cut to at most `max` characters, with '…' where it was cut. */
export function cut(s: string, max: number): string {
  return s.length > max ? s.slice(0, max) + '…' : s;
}

/** A value as JSON text (String() when it has none), cut to at most `max` characters. */
export function brief(v: unknown, max: number): string {
  let s: string;
  try {
    s = JSON.stringify(v) ?? String(v);
  } catch {
    s = String(v);
  }
  return cut(s, max);
}
