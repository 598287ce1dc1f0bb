/** A JSON object (not null, not an array): the one test for it in core/ (suites/helpers.ts re-exports it). */
export function isObject(v: unknown): v is Record<string, unknown> {
  return v !== null && typeof v === 'object' && !Array.isArray(v);
}
