/** Bounds that keep argument generation finite whatever a server's schema says. */
export const ARGUMENT_LIMITS = {
  /** Arrays never get more items than this (a larger minItems is capped, with a note). */
  maxItems: 50,
  /** Strings never get longer than this (a larger minLength is capped, with a note). */
  maxStringLength: 1000,
  /** Object properties added to satisfy minProperties, at most. */
  maxProperties: 100,
  /** Rough budget of generated JSON nodes per call. */
  maxNodes: 5000,
  /** Values nested deeper than this are generated minimally (required properties, minItems only). */
  minimalDepth: 8,
  /** Values nested deeper than this are not generated at all. */
  maxDepth: 16,
  /** The same `$ref` entered this many times on one path means a cycle: generation gives up. */
  maxRefRepeats: 3,
  /** anyOf/oneOf branch attempts per call. */
  maxBranchAttempts: 400,
  /** Validator steps per call. */
  maxValidationSteps: 1_000_000,
} as const;

/** Thrown when a bound of ARGUMENT_LIMITS is hit in the middle of the work; generation gives up with a note. */
export class LimitError extends Error {}
