/** A JSON object (not null, not an array): the one test for it in the project (suites/helpers.ts re-exports it). */
export function isObject(v: unknown): v is Record<string, unknown> {
  return v !== null && typeof v === 'object' && !Array.isArray(v);
}

/** The value when it is a JSON object, else undefined (for chains such as `asObject(asObject(x)?.params)?._meta`). */
export function asObject(v: unknown): Record<string, unknown> | undefined {
  return isObject(v) ? v : undefined;
}
