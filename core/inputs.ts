/**
 * Values a run is given for one feature — the surface baseline (run --baseline-snapshot), the published file a server
 * was started from (run --server-json, --manifest), the credentials that get it past a protected server — carried by
 * the engine without knowing what they are. A feature declares its RunInput next to its own code; whoever starts the
 * run puts the value in RunOptions.inputs; the feature's suites read it with ctx.input(…) and in selectedWhen.
 * Model layer: imports nothing.
 */
export interface RunInput<T> {
  /** Unique name (for messages and debugging). */
  readonly id: string;
  /** True when a run given this value is judged in one protocol era only (it compares one version's answers). */
  oneEra?(value: T): boolean;
  /** The entries the value adds to report.options. */
  reportOptions?(value: T): Record<string, unknown>;
}

/** The values given to a run, by the input they are for. */
// biome-ignore lint/suspicious/noExplicitAny: each input's own value type; inputValue() gives it back typed
export type RunInputs = ReadonlyMap<RunInput<any>, unknown>;

/** The value given for an input, if any. */
export function inputValue<T>(inputs: RunInputs | undefined, input: RunInput<T>): T | undefined {
  return inputs?.get(input) as T | undefined;
}

/** The inputs with one more value (a new map; the old one is left as it was). */
export function withInput<T>(inputs: RunInputs | undefined, input: RunInput<T>, value: T): RunInputs {
  return new Map(inputs ?? []).set(input, value);
}
