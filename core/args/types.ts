/** The results the argument generator hands out, and the shapes it works on. */
export interface GeneratedArguments {
  /** Arguments for `tools/call`. */
  value: Record<string, unknown>;
  /** What could not be honoured (a pattern that could not be satisfied, a contradiction, a limit hit...). */
  notes: string[];
  /** True when the value is believed to satisfy the schema (then `notes` is empty). */
  confident: boolean;
}

export interface InvalidArguments {
  /** Arguments that are valid except for `property`. */
  value: Record<string, unknown>;
  /** e.g. `argument "a" left out (required)`. */
  description: string;
  /** The top-level property that makes the arguments invalid. */
  property: string;
}

export type SchemaObject = Record<string, unknown>;
export type Dialect = 'draft-07' | '2020-12' | 'unknown';
export type PathPart = string | number;
