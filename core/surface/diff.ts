/**
 * The diff of two surface snapshots: every change with its severity (from the rule table, rules.ts), kind, name,
 * JSON pointer into the definition and a message in plain words.
 */
import { RULES, type ChangeKind, type RuleId, type Severity } from './rules.js';
import { canon, compareSchemas, esc } from './schema-diff.js';
import { byCodePoint, isObject, type Snapshot } from './snapshot.js';

export interface Change {
  severity: Severity;
  kind: ChangeKind;
  /** The tool, prompt, resource uri, template uriTemplate, capability path or server field. */
  name: string;
  /** JSON pointer into the definition ('' = the whole definition). */
  path: string;
  /** The rule of the table (rules.ts, docs/snapshots.md) that classified it. */
  rule: RuleId;
  message: string;
  before?: unknown;
  after?: unknown;
}

export interface SurfaceDiff {
  diffVersion: 1;
  summary: { breaking: number; compatible: number; cosmetic: number };
  /** Parts that were not compared, and why (a report.json whose run did not list prompts…). */
  notes: string[];
  /**
   * Size of the tool list as a model provider gets it (name, description and inputSchema of every tool, as JSON), in
   * characters: what the descriptions and schemas cost in every request. Characters, not tokens.
   */
  toolListChars?: { before: number; after: number };
  changes: Change[];
}

const SEVERITY_ORDER: Severity[] = ['breaking', 'compatible', 'cosmetic'];

function keyedBy(
  list: Record<string, unknown>[] | undefined,
  key: string,
  notes?: { side: string; what: string; out: string[] },
): Map<string, Record<string, unknown>> | undefined {
  if (!list) return undefined;
  const m = new Map<string, Record<string, unknown>>();
  const twice = new Set<string>();
  for (const x of list) {
    if (typeof x[key] !== 'string') continue;
    if (m.has(x[key] as string)) twice.add(x[key] as string);
    else m.set(x[key] as string, x);
  }
  if (twice.size && notes)
    notes.out.push(
      `${notes.side} lists ${notes.what} more than once (only the first of each is compared): ${[...twice].slice(0, 10).join(', ')}`,
    );
  return m;
}

/** Effective annotation values with the spec's defaults (2025-03-26 tools#tool-annotations). */
function hints(t: Record<string, unknown>): {
  readOnly: boolean;
  destructive: boolean;
  explicitDestructive: boolean;
  idempotent: boolean;
  openWorld: boolean;
} {
  const a = isObject(t.annotations) ? t.annotations : {};
  const readOnly = a.readOnlyHint === true;
  return {
    readOnly,
    destructive: !readOnly && a.destructiveHint !== false,
    explicitDestructive: !readOnly && a.destructiveHint === true,
    idempotent: !readOnly && a.idempotentHint === true,
    openWorld: a.openWorldHint !== false,
  };
}

function taskSupport(t: Record<string, unknown>): unknown {
  const e = isObject(t.execution) ? t.execution : {};
  return e.taskSupport ?? 'forbidden';
}

function toolListChars(tools: Record<string, unknown>[]): number {
  return JSON.stringify(tools.map((t) => ({ name: t.name, description: t.description, inputSchema: t.inputSchema })))
    .length;
}

export function diffSnapshots(before: Snapshot, after: Snapshot, notes: string[] = []): SurfaceDiff {
  const changes: Change[] = [];
  const add = (rule: RuleId, name: string, path: string, message: string, b?: unknown, a?: unknown) => {
    const r = RULES[rule];
    changes.push({
      severity: r.severity,
      kind: r.kind,
      name,
      path,
      rule,
      message,
      ...(b !== undefined ? { before: b } : {}),
      ...(a !== undefined ? { after: a } : {}),
    });
  };
  const out: SurfaceDiff = {
    diffVersion: 1,
    summary: { breaking: 0, compatible: 0, cosmetic: 0 },
    notes: [...notes],
    changes,
  };

  // --- server -----------------------------------------------------------------------------------------------
  const serverName = (after.server.name ?? before.server.name ?? 'server') as string;
  if (before.protocolVersion !== after.protocolVersion && before.protocolVersion && after.protocolVersion) {
    const older = after.protocolVersion < before.protocolVersion;
    add(
      older ? 'server.protocol-older' : 'server.protocol-newer',
      serverName,
      '/protocolVersion',
      `protocol version ${before.protocolVersion} → ${after.protocolVersion}`,
      before.protocolVersion,
      after.protocolVersion,
    );
  }
  for (const k of new Set([...Object.keys(before.server), ...Object.keys(after.server)])) {
    const b = (before.server as Record<string, unknown>)[k];
    const a = (after.server as Record<string, unknown>)[k];
    if (canon(b) !== canon(a))
      add(
        'server.info',
        serverName,
        `/server/${esc(k)}`,
        `${k === 'instructions' ? 'instructions' : `serverInfo.${k}`} ${b === undefined ? 'added' : a === undefined ? 'removed' : 'changed'}${typeof a === 'string' && typeof b === 'string' && k !== 'instructions' && k !== 'description' ? `: ${b} → ${a}` : ''}`,
        b,
        a,
      );
  }

  // --- capabilities -----------------------------------------------------------------------------------------
  const caps = (b: unknown, a: unknown, path: string) => {
    const walk = (x: unknown, y: unknown, p: string): void => {
      if (canon(x) === canon(y)) return;
      const name = p.slice(1).split('/').join('.');
      const on = (v: unknown) => v !== undefined && v !== false && v !== null;
      if (isObject(x) && isObject(y)) {
        for (const k of [...new Set([...Object.keys(x), ...Object.keys(y)])].sort(byCodePoint))
          walk(x[k], y[k], `${p}/${esc(k)}`);
      } else if (on(x) && !on(y)) add('capability.removed', name, p, `capability ${name} removed`, x, y);
      else if (!on(x) && on(y)) add('capability.added', name, p, `capability ${name} added`, x, y);
      else if (isObject(x) || isObject(y) || typeof x === 'boolean' || typeof y === 'boolean') {
        // {} ↔ true: the same "on"; an object turned into something else: compare as removed + added flags.
        if (isObject(x) && y === true) return;
        if (x === true && isObject(y)) return;
        add(
          'capability.changed',
          name,
          p,
          `capability ${name} changed from ${JSON.stringify(x)} to ${JSON.stringify(y)}`,
          x,
          y,
        );
      } else
        add(
          'capability.changed',
          name,
          p,
          `capability ${name} changed from ${JSON.stringify(x)} to ${JSON.stringify(y)}`,
          x,
          y,
        );
    };
    walk(b, a, path);
  };
  caps(before.capabilities, after.capabilities, '');

  // --- tools --------------------------------------------------------------------------------------------------
  const tb = keyedBy(before.tools, 'name', { side: 'OLD', what: 'tool names', out: out.notes });
  const ta = keyedBy(after.tools, 'name', { side: 'NEW', what: 'tool names', out: out.notes });
  if (tb && ta) {
    for (const [name] of tb)
      if (!ta.has(name)) add('tool.removed', name, '', `tool "${name}" removed: calls to it fail`);
    for (const [name] of ta) if (!tb.has(name)) add('tool.added', name, '', `tool "${name}" added`);
    for (const [name, o] of tb) {
      const n = ta.get(name);
      if (n) diffTool(name, o, n, add);
    }
    out.toolListChars = { before: toolListChars(before.tools!), after: toolListChars(after.tools!) };
  } else if (tb || ta) out.notes.push(`tools not compared: ${tb ? 'NEW' : 'OLD'} does not hold a tool listing`);

  // --- prompts ----------------------------------------------------------------------------------------------
  const pb = keyedBy(before.prompts, 'name', { side: 'OLD', what: 'prompt names', out: out.notes });
  const pa = keyedBy(after.prompts, 'name', { side: 'NEW', what: 'prompt names', out: out.notes });
  if (pb && pa) {
    for (const [name] of pb) if (!pa.has(name)) add('prompt.removed', name, '', `prompt "${name}" removed`);
    for (const [name] of pa) if (!pb.has(name)) add('prompt.added', name, '', `prompt "${name}" added`);
    for (const [name, o] of pb) {
      const n = pa.get(name);
      if (n) diffPrompt(name, o, n, add);
    }
  } else if (pb || pa) out.notes.push(`prompts not compared: ${pb ? 'NEW' : 'OLD'} does not hold a prompt listing`);

  // --- resources and templates ------------------------------------------------------------------------------
  for (const [section, key, kind] of [
    ['resources', 'uri', 'resource'],
    ['resourceTemplates', 'uriTemplate', 'template'],
  ] as const) {
    const rb = keyedBy(before[section], key, { side: 'OLD', what: `${kind} ${key}s`, out: out.notes });
    const ra = keyedBy(after[section], key, { side: 'NEW', what: `${kind} ${key}s`, out: out.notes });
    if (!(rb && ra)) {
      if (rb || ra) out.notes.push(`${section} not compared: ${rb ? 'NEW' : 'OLD'} does not hold a ${kind} listing`);
      continue;
    }
    for (const [id] of rb) if (!ra.has(id)) add(`${kind}.removed`, id, '', `${kind} ${id} removed`);
    for (const [id] of ra) if (!rb.has(id)) add(`${kind}.added`, id, '', `${kind} ${id} added`);
    for (const [id, o] of rb) {
      const n = ra.get(id);
      if (!n) continue;
      for (const k of [...new Set([...Object.keys(o), ...Object.keys(n)])].sort(byCodePoint)) {
        if (k === key || canon(o[k]) === canon(n[k])) continue;
        if (k === 'mimeType')
          add(
            `${kind}.mime-type-changed`,
            id,
            '/mimeType',
            `mimeType ${JSON.stringify(o[k]) ?? 'absent'} → ${JSON.stringify(n[k]) ?? 'absent'}: clients decode the content by it`,
            o[k],
            n[k],
          );
        else
          add(
            `${kind}.text`,
            id,
            `/${esc(k)}`,
            `${k} ${o[k] === undefined ? 'added' : n[k] === undefined ? 'removed' : 'changed'}`,
            o[k],
            n[k],
          );
      }
    }
  }

  changes.sort(
    (x, y) =>
      SEVERITY_ORDER.indexOf(x.severity) - SEVERITY_ORDER.indexOf(y.severity) ||
      byCodePoint(x.kind, y.kind) ||
      byCodePoint(x.name, y.name) ||
      byCodePoint(x.path, y.path),
  );
  for (const c of changes) out.summary[c.severity]++;
  return out;
}

type Add = (rule: RuleId, name: string, path: string, message: string, b?: unknown, a?: unknown) => void;

function diffTool(name: string, o: Record<string, unknown>, n: Record<string, unknown>, add: Add): void {
  for (const k of ['title', 'description', 'icons']) {
    if (canon(o[k]) !== canon(n[k]))
      add(
        'tool.text',
        name,
        `/${k}`,
        `${k} ${o[k] === undefined ? 'added' : n[k] === undefined ? 'removed' : 'changed'}`,
        o[k],
        n[k],
      );
  }
  // Annotations: the hints with the spec's defaults, the direction decides.
  const ao = isObject(o.annotations) ? o.annotations : {};
  const an = isObject(n.annotations) ? n.annotations : {};
  if (canon(ao) !== canon(an)) {
    const ho = hints(o);
    const hn = hints(n);
    const p = (k: string) => `/annotations/${k}`;
    const was = (k: string) => `${k} ${JSON.stringify(ao[k]) ?? 'absent'} → ${JSON.stringify(an[k]) ?? 'absent'}`;
    if (canon(ao.title) !== canon(an.title))
      add('tool.text', name, p('title'), 'annotations.title changed', ao.title, an.title);
    if (ho.readOnly && !hn.readOnly)
      add(
        'tool.read-only-lost',
        name,
        p('readOnlyHint'),
        `${was('readOnlyHint')}: the tool no longer says it only reads`,
        ao.readOnlyHint,
        an.readOnlyHint,
      );
    else if (!ho.readOnly && hn.readOnly)
      add(
        'tool.hints-relaxed',
        name,
        p('readOnlyHint'),
        `${was('readOnlyHint')}: the tool says it only reads now`,
        ao.readOnlyHint,
        an.readOnlyHint,
      );
    if (canon(ao.destructiveHint) !== canon(an.destructiveHint) || ho.destructive !== hn.destructive) {
      if ((!ho.destructive && hn.destructive) || (!ho.explicitDestructive && hn.explicitDestructive))
        add(
          'tool.destructive-gained',
          name,
          p('destructiveHint'),
          `${was('destructiveHint')}: the tool may now destroy (absent means true when not read-only)`,
          ao.destructiveHint,
          an.destructiveHint,
        );
      else if (canon(ao.destructiveHint) !== canon(an.destructiveHint))
        add(
          'tool.hints-relaxed',
          name,
          p('destructiveHint'),
          was('destructiveHint'),
          ao.destructiveHint,
          an.destructiveHint,
        );
    }
    if (canon(ao.idempotentHint) !== canon(an.idempotentHint)) {
      if (ho.idempotent && !hn.idempotent)
        add(
          'tool.idempotent-lost',
          name,
          p('idempotentHint'),
          `${was('idempotentHint')}: repeating a call may have effects now`,
          ao.idempotentHint,
          an.idempotentHint,
        );
      else
        add(
          'tool.hints-relaxed',
          name,
          p('idempotentHint'),
          was('idempotentHint'),
          ao.idempotentHint,
          an.idempotentHint,
        );
    }
    if (canon(ao.openWorldHint) !== canon(an.openWorldHint)) {
      if (!ho.openWorld && hn.openWorld)
        add(
          'tool.open-world-gained',
          name,
          p('openWorldHint'),
          `${was('openWorldHint')}: the tool may reach external systems now (absent means true)`,
          ao.openWorldHint,
          an.openWorldHint,
        );
      else
        add('tool.hints-relaxed', name, p('openWorldHint'), was('openWorldHint'), ao.openWorldHint, an.openWorldHint);
    }
    for (const k of new Set([...Object.keys(ao), ...Object.keys(an)])) {
      if (
        ['title', 'readOnlyHint', 'destructiveHint', 'idempotentHint', 'openWorldHint'].includes(k) ||
        canon(ao[k]) === canon(an[k])
      )
        continue;
      add('tool.hints-relaxed', name, p(esc(k)), `annotation ${k} (not defined by the spec) changed`, ao[k], an[k]);
    }
  }
  // execution.taskSupport (2025-11-25): which ways of calling the tool are allowed.
  if (canon(o.execution) !== canon(n.execution)) {
    const so = taskSupport(o);
    const sn = taskSupport(n);
    const ways = (s: unknown) =>
      new Set(s === 'optional' ? ['plain', 'task'] : s === 'required' ? ['task'] : s === 'forbidden' ? ['plain'] : []);
    if (so !== sn) {
      const wo = ways(so);
      const wn = ways(sn);
      const msg = `execution.taskSupport ${JSON.stringify(so)} → ${JSON.stringify(sn)}`;
      if (!wo.size || !wn.size)
        add(
          'tool.execution-changed',
          name,
          '/execution/taskSupport',
          `${msg}: a value this comparison does not know`,
          so,
          sn,
        );
      else if ([...wo].some((w) => !wn.has(w)))
        add(
          'tool.task-support-narrowed',
          name,
          '/execution/taskSupport',
          `${msg}: ${wo.has('task') && !wn.has('task') ? 'calls as a task' : 'plain calls (without a task)'} are refused now`,
          so,
          sn,
        );
      else add('tool.task-support-widened', name, '/execution/taskSupport', msg, so, sn);
    }
    const eo = isObject(o.execution) ? o.execution : {};
    const en = isObject(n.execution) ? n.execution : {};
    for (const k of new Set([...Object.keys(eo), ...Object.keys(en)])) {
      if (k !== 'taskSupport' && canon(eo[k]) !== canon(en[k]))
        add('tool.execution-changed', name, `/execution/${esc(k)}`, `execution.${k} changed`, eo[k], en[k]);
    }
  }
  const emit = (rule: RuleId, path: string, message: string, b?: unknown, a?: unknown) =>
    add(rule, name, path, message, b, a);
  if (canon(o.inputSchema) !== canon(n.inputSchema))
    compareSchemas('input', o.inputSchema ?? {}, n.inputSchema ?? {}, '/inputSchema', emit);
  if (o.outputSchema !== undefined && n.outputSchema === undefined)
    add(
      'output.schema-removed',
      name,
      '/outputSchema',
      'outputSchema removed: clients lose the shape of structuredContent',
      o.outputSchema,
      undefined,
    );
  else if (o.outputSchema === undefined && n.outputSchema !== undefined)
    add('output.schema-added', name, '/outputSchema', 'outputSchema added', undefined, n.outputSchema);
  else if (canon(o.outputSchema) !== canon(n.outputSchema))
    compareSchemas('output', o.outputSchema, n.outputSchema, '/outputSchema', emit);
}

function diffPrompt(name: string, o: Record<string, unknown>, n: Record<string, unknown>, add: Add): void {
  for (const k of ['title', 'description', 'icons']) {
    if (canon(o[k]) !== canon(n[k]))
      add(
        'prompt.text',
        name,
        `/${k}`,
        `${k} ${o[k] === undefined ? 'added' : n[k] === undefined ? 'removed' : 'changed'}`,
        o[k],
        n[k],
      );
  }
  const args = (p: Record<string, unknown>) =>
    (Array.isArray(p.arguments) ? p.arguments : []).filter(isObject).filter((a) => typeof a.name === 'string');
  const ao = args(o);
  const an = args(n);
  const idx = (list: Record<string, unknown>[], nm: string) => list.findIndex((a) => a.name === nm);
  for (const [i, a] of ao.entries()) {
    const j = idx(an, a.name as string);
    if (j < 0)
      add(
        'prompt.argument-removed',
        name,
        `/arguments/${i}`,
        `argument "${a.name}" removed: clients that still send it may be refused`,
        a,
        undefined,
      );
  }
  for (const [j, b] of an.entries()) {
    const i = idx(ao, b.name as string);
    if (i < 0) {
      if (b.required === true)
        add(
          'prompt.argument-required-added',
          name,
          `/arguments/${j}`,
          `new required argument "${b.name}": prompts/get without it is refused`,
          undefined,
          b,
        );
      else add('prompt.argument-added', name, `/arguments/${j}`, `new optional argument "${b.name}"`, undefined, b);
      continue;
    }
    const a = ao[i]!;
    if (a.required !== true && b.required === true)
      add(
        'prompt.argument-required-added',
        name,
        `/arguments/${j}/required`,
        `argument "${b.name}" is required now`,
        a.required,
        b.required,
      );
    else if (a.required === true && b.required !== true)
      add(
        'prompt.argument-optional',
        name,
        `/arguments/${j}/required`,
        `argument "${b.name}" is optional now`,
        a.required,
        b.required,
      );
    for (const k of ['title', 'description']) {
      if (canon(a[k]) !== canon(b[k]))
        add(
          'prompt.text',
          name,
          `/arguments/${j}/${k}`,
          `${k} of argument "${b.name}" ${a[k] === undefined ? 'added' : b[k] === undefined ? 'removed' : 'changed'}`,
          a[k],
          b[k],
        );
    }
  }
}

/** The exit code `diff` gives: 1 when a change reaches the --fail-on level, else 0. */
export function diffExitCode(d: SurfaceDiff, failOn: 'breaking' | 'compatible' = 'breaking'): number {
  if (failOn === 'compatible') return d.changes.length ? 1 : 0;
  return d.summary.breaking ? 1 : 0;
}
