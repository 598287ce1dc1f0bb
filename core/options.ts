/**
 * Options a suite (or the run) declares once: the CLI flag, the config key, the config schema entry and the library
 * option all come from, or are checked against, this declaration (test/options.test.ts).
 */
export interface OptionDef<T = unknown> {
  /** CLI flag without dashes, kebab-case, e.g. 'unknown-tool-code'. */
  flag: string;
  /** Config file key and library option name, camelCase, e.g. 'unknownToolCode'. */
  key: string;
  type: 'integer' | 'number' | 'string' | 'boolean' | 'string[]';
  /** For a string: the values allowed. */
  choices?: readonly string[];
  default?: T;
  /** One line for --help and the config schema. */
  help: string;
  /** When the value is put into report.options under `key` (default: when set). */
  inReport?: 'always' | 'when-set' | 'never';
  /**
   * The member of report.options the entry goes in (default: report.options itself); e.g. 'suiteOptions' for the
   * compat and quality options, which the report contract keeps together there.
   */
  reportIn?: string;
  /** Applied to a given value before it is checked (e.g. split a comma-separated list, drop duplicates). */
  normalize?(value: T): T;
  /**
   * The option's own check, in place of the check by type: the whole message when the value does not fit (`name` is
   * how the option is named to the user: '--flag' on the command line, the key in the library), else undefined.
   */
  validate?(value: unknown, name: string): string | undefined;
}

export type OptionValues = Readonly<Record<string, unknown>>;

/** Check a value given for an option (config file or library): a message when it does not fit, else undefined. */
export function optionProblem(o: OptionDef, v: unknown): string | undefined {
  if (v === undefined) return undefined;
  switch (o.type) {
    case 'integer':
      return Number.isInteger(v) ? undefined : 'must be an integer';
    case 'number':
      return typeof v === 'number' && Number.isFinite(v) ? undefined : 'must be a number';
    case 'boolean':
      return typeof v === 'boolean' ? undefined : 'must be true or false';
    case 'string':
      if (typeof v !== 'string') return 'must be a string';
      return o.choices && !o.choices.includes(v) ? `"${v}" is not one of ${o.choices.join(', ')}` : undefined;
    case 'string[]':
      return Array.isArray(v) && v.every((x) => typeof x === 'string') ? undefined : 'must be a list of strings';
  }
}

/** The message for a value given for an option (after normalize), naming it `name`; undefined when it fits. */
export function optionMessage(o: OptionDef, v: unknown, name: string): string | undefined {
  if (v === undefined) return undefined;
  if (o.validate) return o.validate(v, name);
  const p = optionProblem(o, v);
  return p && `${name} ${p}`;
}

/** A given value as the option takes it (its normalize hook applied to a value of the right type). */
export function normalizeOption(o: OptionDef, v: unknown): unknown {
  return v === undefined || !o.normalize || optionProblem(o, v) ? v : o.normalize(v);
}

/** The JSON Schema of an option's value (config.schema.json is checked against it). */
export function optionSchema(o: OptionDef): Record<string, unknown> {
  const t = o.type === 'string[]' ? { type: 'array', items: { type: 'string' } } : { type: o.type };
  return { description: o.help, ...t, ...(o.choices ? { enum: [...o.choices] } : {}) };
}
