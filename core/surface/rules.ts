/**
 * The rule table of `diff`: every change it can report, with its severity and the reason, thought through as a
 * client (code that calls the server) and as a model whose prompt was built from the old list. The diff code only
 * names a rule; the severity comes from here. The table of docs/snapshots.md is this one (test/surface-diff.test.ts keeps
 * them equal).
 *
 * Inputs (inputSchema, prompt arguments) and outputs (outputSchema) go in opposite directions: a change that lets
 * fewer argument values through breaks callers; a change that lets more result values through breaks readers.
 */
export type Severity = 'breaking' | 'compatible' | 'cosmetic';
export type ChangeKind = 'tool' | 'prompt' | 'resource' | 'template' | 'capability' | 'server';

export interface Rule {
  severity: Severity;
  kind: ChangeKind;
  /** What changed, in plain words. */
  change: string;
  /** Why it has this severity. */
  reason: string;
}

export const RULES = {
  // --- tools -------------------------------------------------------------------------------------------------
  'tool.removed': {
    severity: 'breaking',
    kind: 'tool',
    change: 'a tool removed (a rename is a removal and an addition)',
    reason: 'Clients and models built from the old list call it by name; the call now fails as an unknown tool.',
  },
  'tool.added': {
    severity: 'compatible',
    kind: 'tool',
    change: 'a tool added',
    reason: 'Nobody calls it yet; the old calls still work.',
  },
  'tool.text': {
    severity: 'cosmetic',
    kind: 'tool',
    change: 'title, description or icons of a tool (annotations.title too)',
    reason:
      'Read by people and models, never by a validator: no call changes shape. The model may choose differently, so the size of the tool list is reported.',
  },
  'tool.read-only-lost': {
    severity: 'breaking',
    kind: 'tool',
    change: 'annotations.readOnlyHint true → false or absent',
    reason:
      'A client that runs read-only tools without asking would now run a tool that may change things: its safety policy no longer fits.',
  },
  'tool.destructive-gained': {
    severity: 'breaking',
    kind: 'tool',
    change:
      'destructiveHint becomes true on a tool that is not read-only (set to true, or false → absent, since absent means true)',
    reason:
      'Clients ask for confirmation or refuse destructive tools: a tool that was run freely now needs a person, or is not run at all.',
  },
  'tool.idempotent-lost': {
    severity: 'breaking',
    kind: 'tool',
    change: 'annotations.idempotentHint true → false or absent (tool not read-only)',
    reason:
      'A client that retries idempotent calls after a timeout would now repeat a call whose repetition has effects.',
  },
  'tool.open-world-gained': {
    severity: 'breaking',
    kind: 'tool',
    change: 'annotations.openWorldHint false → true or absent (absent means true)',
    reason: 'A client that lets closed-world tools run freely would now let a tool reach external systems.',
  },
  'tool.hints-relaxed': {
    severity: 'compatible',
    kind: 'tool',
    change:
      'the opposite moves: readOnlyHint gained, destructiveHint lost, idempotentHint gained, openWorldHint false; or an annotation the spec does not define',
    reason: 'The tool claims to be safer: a client policy may ask less, no call breaks.',
  },
  'tool.task-support-narrowed': {
    severity: 'breaking',
    kind: 'tool',
    change:
      'execution.taskSupport loses a way of calling: optional → forbidden or required, forbidden (or absent) → required, required → forbidden',
    reason: 'A client calling it the old way (with or without a task) is refused.',
  },
  'tool.task-support-widened': {
    severity: 'compatible',
    kind: 'tool',
    change: 'execution.taskSupport gains a way of calling: forbidden (or absent) → optional, required → optional',
    reason: 'Every old way of calling still works.',
  },
  'tool.execution-changed': {
    severity: 'breaking',
    kind: 'tool',
    change: 'another change under execution (a key this table does not know)',
    reason: 'Unknown effect on how the tool must be called: reported as breaking so that it is looked at.',
  },
  // --- inputSchema -------------------------------------------------------------------------------------------
  'input.required-added': {
    severity: 'breaking',
    kind: 'tool',
    change: 'a new required parameter, or an optional one made required',
    reason: 'Calls built from the old schema leave it out and are refused.',
  },
  'input.property-added': {
    severity: 'compatible',
    kind: 'tool',
    change: 'a new optional parameter',
    reason: 'Old calls do not send it and stay valid.',
  },
  'input.property-removed-closed': {
    severity: 'breaking',
    kind: 'tool',
    change: 'a parameter removed while additionalProperties is false',
    reason: 'Calls that still send it are refused as having an unknown argument.',
  },
  'input.property-removed-open': {
    severity: 'compatible',
    kind: 'tool',
    change: 'a parameter removed while other properties are allowed',
    reason: 'Calls that send it stay valid; the server may ignore the value (the message says so).',
  },
  'input.required-removed': {
    severity: 'compatible',
    kind: 'tool',
    change: 'a required parameter made optional',
    reason: 'Old calls send it and stay valid.',
  },
  'input.type-narrowed': {
    severity: 'breaking',
    kind: 'tool',
    change:
      'a type narrowed or changed (number → integer, string → number, a type removed from a type list, a schema that allowed anything now typed)',
    reason: 'Values the old schema accepted (2.5, "abc") are refused.',
  },
  'input.type-widened': {
    severity: 'compatible',
    kind: 'tool',
    change: 'a type widened (integer → number, a type added to a type list, type removed)',
    reason: 'Every old value is still accepted.',
  },
  'input.enum-narrowed': {
    severity: 'breaking',
    kind: 'tool',
    change: 'an enum value removed, a const changed, or an enum/const introduced',
    reason: 'A model prompted with the old values sends one that is now refused.',
  },
  'input.enum-widened': {
    severity: 'compatible',
    kind: 'tool',
    change: 'an enum value added, or the enum/const dropped',
    reason: 'Every old value is still accepted.',
  },
  'input.bound-stricter': {
    severity: 'breaking',
    kind: 'tool',
    change:
      'a stricter bound: maxLength, maxItems, maxProperties, maximum, exclusiveMaximum lowered or added; minLength, minItems, minProperties, minimum, exclusiveMinimum raised or added; multipleOf, pattern or format added or changed; uniqueItems turned on',
    reason:
      'Values inside the old bounds can fall outside the new ones and are refused. (A changed pattern is not compared as a language: it counts as stricter.)',
  },
  'input.bound-looser': {
    severity: 'compatible',
    kind: 'tool',
    change: 'a looser bound: the opposite moves, or the bound removed',
    reason: 'Every old value is still accepted.',
  },
  'input.union-branch-removed': {
    severity: 'breaking',
    kind: 'tool',
    change: 'a branch of anyOf/oneOf removed',
    reason: 'Values that matched only that branch are refused.',
  },
  'input.union-branch-added': {
    severity: 'compatible',
    kind: 'tool',
    change: 'a branch of anyOf/oneOf added (a oneOf branch that overlaps an old one is not detected)',
    reason: 'Every old value still matches a branch.',
  },
  'input.closed': {
    severity: 'breaking',
    kind: 'tool',
    change: 'additionalProperties set to false, or narrowed to a schema',
    reason: 'Calls with extra arguments, which a model may send, are refused.',
  },
  'input.opened': {
    severity: 'compatible',
    kind: 'tool',
    change: 'additionalProperties false removed or widened',
    reason: 'Every old call is still accepted.',
  },
  'input.default-changed': {
    severity: 'compatible',
    kind: 'tool',
    change: 'the default of a parameter changed',
    reason:
      'No call is refused, but a call that leaves the parameter out now means something else (the message says so).',
  },
  'input.text': {
    severity: 'cosmetic',
    kind: 'tool',
    change:
      'title, description, examples, $comment, deprecated, readOnly/writeOnly, $schema or x-… keywords inside the schema',
    reason: 'Annotations: they change no validation result.',
  },
  'input.undecided': {
    severity: 'breaking',
    kind: 'tool',
    change:
      'a change this comparison cannot classify (not, if/then/else, patternProperties, dependencies, an unresolvable or too deep $ref, anyOf ↔ oneOf, a tuple whose length changed…)',
    reason:
      'Unknown is treated as breaking so that a person looks at it; the message says the comparison could not decide.',
  },
  // --- outputSchema ------------------------------------------------------------------------------------------
  'output.schema-removed': {
    severity: 'breaking',
    kind: 'tool',
    change: 'outputSchema removed',
    reason: 'Clients that read structuredContent by the schema (or generated types from it) lose their contract.',
  },
  'output.schema-added': {
    severity: 'compatible',
    kind: 'tool',
    change: 'outputSchema added',
    reason: 'Old clients read the content as before.',
  },
  'output.property-removed': {
    severity: 'breaking',
    kind: 'tool',
    change: 'a property of the output removed',
    reason: 'Clients that read it find nothing.',
  },
  'output.property-added': {
    severity: 'compatible',
    kind: 'tool',
    change: 'a property of the output added',
    reason: 'Clients ignore keys they do not read.',
  },
  'output.required-removed': {
    severity: 'breaking',
    kind: 'tool',
    change: 'a required output property made optional',
    reason: 'Clients that count on it may not get it.',
  },
  'output.required-added': {
    severity: 'compatible',
    kind: 'tool',
    change: 'an optional output property made required',
    reason: 'Clients get what they already handled.',
  },
  'output.type-changed': {
    severity: 'breaking',
    kind: 'tool',
    change: 'an output type widened or changed (integer → number, null added, string → number)',
    reason: 'Clients typed against the old schema meet values they do not expect.',
  },
  'output.type-narrowed': {
    severity: 'compatible',
    kind: 'tool',
    change: 'an output type narrowed (number → integer, a type removed from a list)',
    reason: 'Every value that can come was already possible.',
  },
  'output.enum-widened': {
    severity: 'breaking',
    kind: 'tool',
    change: 'an output enum value added, or the enum/const dropped',
    reason: 'A client that handles each old value meets one it does not know.',
  },
  'output.enum-narrowed': {
    severity: 'compatible',
    kind: 'tool',
    change: 'an output enum value removed, or an enum/const introduced',
    reason: 'Every value that can come was already possible.',
  },
  'output.bound-looser': {
    severity: 'breaking',
    kind: 'tool',
    change: 'a looser bound on output values (maxLength raised, minimum lowered, pattern removed…)',
    reason: 'Values outside what clients were told to expect can come.',
  },
  'output.bound-stricter': {
    severity: 'compatible',
    kind: 'tool',
    change: 'a stricter bound on output values',
    reason: 'Every value that can come was already possible.',
  },
  'output.union-branch-added': {
    severity: 'breaking',
    kind: 'tool',
    change: 'a branch of anyOf/oneOf added to the output',
    reason: 'Clients meet a shape they do not handle.',
  },
  'output.union-branch-removed': {
    severity: 'compatible',
    kind: 'tool',
    change: 'a branch of anyOf/oneOf removed from the output',
    reason: 'Every shape that can come was already possible.',
  },
  'output.additional-properties': {
    severity: 'compatible',
    kind: 'tool',
    change: 'additionalProperties of the output opened or closed',
    reason: 'Clients ignore keys they do not read.',
  },
  'output.text': {
    severity: 'cosmetic',
    kind: 'tool',
    change: 'annotation keywords inside the output schema (title, description, examples, default…)',
    reason: 'They change no value that can come.',
  },
  'output.undecided': {
    severity: 'breaking',
    kind: 'tool',
    change: 'an output change this comparison cannot classify',
    reason: 'Unknown is treated as breaking so that a person looks at it.',
  },
  // --- prompts -----------------------------------------------------------------------------------------------
  'prompt.removed': {
    severity: 'breaking',
    kind: 'prompt',
    change: 'a prompt removed (a rename is a removal and an addition)',
    reason: 'Clients that offer it (a slash command) get an error from prompts/get.',
  },
  'prompt.added': { severity: 'compatible', kind: 'prompt', change: 'a prompt added', reason: 'Nothing uses it yet.' },
  'prompt.argument-required-added': {
    severity: 'breaking',
    kind: 'prompt',
    change: 'a new required argument, or an optional one made required',
    reason: 'prompts/get without it is refused.',
  },
  'prompt.argument-added': {
    severity: 'compatible',
    kind: 'prompt',
    change: 'a new optional argument',
    reason: 'Old requests stay valid.',
  },
  'prompt.argument-removed': {
    severity: 'breaking',
    kind: 'prompt',
    change: 'an argument removed',
    reason:
      'Clients still send it; servers that check arguments refuse the request, the others drop what the user typed.',
  },
  'prompt.argument-optional': {
    severity: 'compatible',
    kind: 'prompt',
    change: 'a required argument made optional',
    reason: 'Old requests send it and stay valid.',
  },
  'prompt.text': {
    severity: 'cosmetic',
    kind: 'prompt',
    change: 'title, description or icons of a prompt or an argument',
    reason: 'Shown to people; no request changes.',
  },
  // --- resources and templates -------------------------------------------------------------------------------
  'resource.removed': {
    severity: 'breaking',
    kind: 'resource',
    change: 'a resource removed (keyed by uri: a new uri is a removal and an addition)',
    reason: 'Clients that read or subscribe to the uri get an error.',
  },
  'resource.added': {
    severity: 'compatible',
    kind: 'resource',
    change: 'a resource added',
    reason: 'Nothing reads it yet.',
  },
  'resource.mime-type-changed': {
    severity: 'breaking',
    kind: 'resource',
    change: 'the mimeType of a resource changed, added or removed',
    reason: 'Clients decode the content by its type.',
  },
  'resource.text': {
    severity: 'cosmetic',
    kind: 'resource',
    change: 'name, title, description, icons or annotations (audience, priority) of a resource',
    reason: 'Clients address resources by uri; these only change how it is shown or ranked.',
  },
  'template.removed': {
    severity: 'breaking',
    kind: 'template',
    change: 'a resource template removed (keyed by uriTemplate: a changed template is a removal and an addition)',
    reason: 'Clients that expand it build uris the server no longer resolves.',
  },
  'template.added': {
    severity: 'compatible',
    kind: 'template',
    change: 'a resource template added',
    reason: 'Nothing expands it yet.',
  },
  'template.mime-type-changed': {
    severity: 'breaking',
    kind: 'template',
    change: 'the mimeType of a template changed, added or removed',
    reason: 'Clients decode the content by its type.',
  },
  'template.text': {
    severity: 'cosmetic',
    kind: 'template',
    change: 'name, title, description, icons or annotations of a template',
    reason: 'Only how it is shown changes.',
  },
  // --- capabilities and server ---------------------------------------------------------------------------------
  'capability.removed': {
    severity: 'breaking',
    kind: 'capability',
    change:
      'a capability or a capability flag removed (true → false or absent: tools, prompts.listChanged, resources.subscribe, logging, completions…)',
    reason: 'Clients that use it get method-not-found, or wait for notifications that no longer come.',
  },
  'capability.added': {
    severity: 'compatible',
    kind: 'capability',
    change: 'a capability or flag added',
    reason: 'Clients that do not know it ignore it.',
  },
  'capability.changed': {
    severity: 'breaking',
    kind: 'capability',
    change: 'a capability value changed that is not a flag (a string, a number, a list)',
    reason: 'Unknown effect: reported as breaking so that a person looks at it.',
  },
  'server.protocol-older': {
    severity: 'breaking',
    kind: 'server',
    change: 'the negotiated protocol version is older than before',
    reason:
      'The server no longer agrees to the version it used to: clients that speak only the newer one cannot connect, and features of it are gone.',
  },
  'server.protocol-newer': {
    severity: 'compatible',
    kind: 'server',
    change: 'the negotiated protocol version is newer than before',
    reason:
      'Clients offering it get it. (Whether older versions are still accepted is not in a snapshot: see run --all-versions.)',
  },
  'server.info': {
    severity: 'cosmetic',
    kind: 'server',
    change: 'serverInfo (name, title, version, description, websiteUrl, icons) or instructions',
    reason:
      'Clients identify a server by their own configuration; instructions are read by the model, like descriptions.',
  },
} as const satisfies Record<string, Rule>;

export type RuleId = keyof typeof RULES;

/** The rule table as Markdown (docs/snapshots.md's table between <!-- surface-rules:start/end -->, written by scripts/docs-generate.mjs). */
export function rulesMarkdown(): string {
  const cell = (s: string) => s.replace(/\|/g, '\\|');
  const rows = Object.entries(RULES).map(
    ([id, r]) => `| \`${id}\` | ${r.severity} | ${cell(r.change)} | ${cell(r.reason)} |`,
  );
  return ['| rule | severity | change | why |', '|---|---|---|---|', ...rows, ''].join('\n');
}
