/**
 * What a load run sends: a weighted mix of requests. By default ping, tools/list, and the calls `run` would make
 * (read-only tools with valid generated arguments, under the call policy; resources/read of listed resources;
 * prompts/get of prompts without required arguments). `--mix ping=1,tools/list=2,tools/call:echo=5` picks and weighs.
 */
import { generateArguments } from '../args/index.js';
import { canary, type CanaryTool } from '../concurrency/canary.js';
import type { Tool } from '../tools.js';

export interface MixEntry {
  /** How the report names it: the method, or "tools/call NAME", "resources/read URI", "prompts/get NAME". */
  key: string;
  method: string;
  weight: number;
  /** The params of one request (client, sequence number: for a canary). */
  params(run: string, client: number, seq: number): Record<string, unknown> | undefined;
  /** Its answer echoes the canary in params (a tool shown to repeat it). */
  canary?: boolean;
  tool?: string;
}

export interface Surface {
  /** Tools the call policy lets the run call. */
  callable: Tool[];
  resources: { uri: string }[];
  prompts: { name: string; arguments?: { name: string; required?: boolean }[] }[];
  /** The tool that carries canaries, when it was shown to echo them. */
  canaryTool?: CanaryTool;
  methods: { tools: boolean; prompts: boolean; resources: boolean };
  /** The request that shows the server answers: ping, or server/discover from 2026-07-28 (which has no ping). */
  heartbeat: string;
}

/** Parse --mix: "key=weight" items, comma-separated. Throws an Error naming what is wrong. */
export function parseMix(text: string): { key: string; weight: number }[] {
  const out: { key: string; weight: number }[] = [];
  for (const part of text
    .split(',')
    .map((s) => s.trim())
    .filter(Boolean)) {
    const i = part.lastIndexOf('=');
    const key = (i > 0 ? part.slice(0, i) : part).trim();
    const weight = i > 0 ? Number(part.slice(i + 1)) : 1;
    if (!key) throw new Error(`--mix: "${part}" names no request`);
    if (!Number.isFinite(weight) || weight <= 0)
      throw new Error(`--mix: the weight of "${key}" must be a positive number`);
    out.push({ key, weight });
  }
  if (!out.length) throw new Error('--mix: no request named');
  return out;
}

const MAX_DEFAULT_ITEMS = 3;

function toolEntry(t: Tool, s: Surface, weight: number): MixEntry | undefined {
  if (s.canaryTool && s.canaryTool.tool.name === t.name) {
    const ct = s.canaryTool;
    return {
      key: `tools/call ${t.name}`,
      method: 'tools/call',
      weight,
      tool: t.name,
      canary: true,
      params: (run, c, q) => ({ name: t.name, arguments: ct.args(canary(run, c, q)) }),
    };
  }
  const gen = generateArguments(t.inputSchema ?? { type: 'object' });
  if (!gen.confident) return undefined;
  const args = gen.value;
  return {
    key: `tools/call ${t.name}`,
    method: 'tools/call',
    weight,
    tool: t.name,
    params: () => ({ name: t.name, arguments: args }),
  };
}

function promptArgs(p: Surface['prompts'][number]): Record<string, string> {
  const a: Record<string, string> = {};
  for (const x of p.arguments ?? []) if (x.required) a[x.name] = 'load';
  return a;
}

/** The default mix for a server's surface. */
export function defaultMix(s: Surface): MixEntry[] {
  const out: MixEntry[] = [{ key: s.heartbeat, method: s.heartbeat, weight: 1, params: () => undefined }];
  if (s.methods.tools) out.push({ key: 'tools/list', method: 'tools/list', weight: 1, params: () => undefined });
  // The tool that carries canaries first: its answers show crossing by content, not only by shape.
  const tools = s.canaryTool
    ? [s.canaryTool.tool, ...s.callable.filter((t) => t.name !== s.canaryTool!.tool.name)]
    : s.callable;
  for (const t of tools.slice(0, MAX_DEFAULT_ITEMS)) {
    const e = toolEntry(t, s, 1);
    if (e) out.push(e);
  }
  for (const r of s.resources.slice(0, MAX_DEFAULT_ITEMS))
    out.push({ key: `resources/read ${r.uri}`, method: 'resources/read', weight: 1, params: () => ({ uri: r.uri }) });
  for (const p of s.prompts.filter((x) => !(x.arguments ?? []).some((a) => a.required)).slice(0, MAX_DEFAULT_ITEMS))
    out.push({ key: `prompts/get ${p.name}`, method: 'prompts/get', weight: 1, params: () => ({ name: p.name }) });
  return out;
}

/**
 * The mix --mix names: ping, tools/list, prompts/list, resources/list, tools/call:NAME (a tool the call policy allows),
 * resources/read:URI, prompts/get:NAME, or tools/call, resources/read, prompts/get for all the default ones. Throws
 * an Error for a request it cannot make.
 */
export function chosenMix(items: { key: string; weight: number }[], s: Surface): MixEntry[] {
  const out: MixEntry[] = [];
  const defaults = defaultMix(s);
  for (const { key, weight } of items) {
    const [method, name] = key.includes(':')
      ? [key.slice(0, key.indexOf(':')), key.slice(key.indexOf(':') + 1)]
      : [key, undefined];
    if (
      ['ping', 'server/discover', 'tools/list', 'prompts/list', 'resources/list', 'resources/templates/list'].includes(
        method!,
      ) &&
      name === undefined
    ) {
      out.push({ key: method!, method: method!, weight, params: () => undefined });
      continue;
    }
    if (method === 'tools/call') {
      const tools = name === undefined ? s.callable : s.callable.filter((t) => t.name === name);
      if (!tools.length)
        throw new Error(
          name === undefined
            ? '--mix: tools/call: the call policy lets the run call no tool of this server'
            : `--mix: tools/call:${name}: no tool of that name that the call policy lets the run call (--call-tool ${name} opts one in)`,
        );
      for (const t of tools) {
        const e = toolEntry(t, s, weight);
        if (!e) throw new Error(`--mix: tools/call:${t.name}: no valid arguments could be made for its inputSchema`);
        out.push(e);
      }
      continue;
    }
    if (method === 'resources/read') {
      if (name !== undefined) {
        out.push({ key: `resources/read ${name}`, method, weight, params: () => ({ uri: name }) });
        continue;
      }
      const d = defaults.filter((e) => e.method === method);
      if (!d.length) throw new Error('--mix: resources/read: the server lists no resources');
      out.push(...d.map((e) => ({ ...e, weight })));
      continue;
    }
    if (method === 'prompts/get') {
      const p = name === undefined ? s.prompts : s.prompts.filter((x) => x.name === name);
      if (!p.length)
        throw new Error(
          name === undefined
            ? '--mix: prompts/get: the server lists no prompts'
            : `--mix: prompts/get:${name}: the server lists no prompt of that name`,
        );
      for (const x of p)
        out.push({
          key: `prompts/get ${x.name}`,
          method,
          weight,
          params: () => ({ name: x.name, arguments: promptArgs(x) }),
        });
      continue;
    }
    throw new Error(
      `--mix: "${key}" is not a request load makes (ping, server/discover, tools/list, prompts/list, resources/list, tools/call[:NAME], resources/read[:URI], prompts/get[:NAME])`,
    );
  }
  return out;
}

/** The mix as a deterministic cycle: each entry as often as its weight (weights rounded, at least 1). */
export function mixCycle(mix: readonly MixEntry[]): MixEntry[] {
  const min = Math.min(...mix.map((m) => m.weight));
  const cycle: MixEntry[] = [];
  const counts = mix.map((m) => Math.max(1, Math.round(m.weight / min)));
  const total = counts.reduce((a, b) => a + b, 0);
  // Interleaved (smooth weighted round robin), so that a cycle cut short still has a fair share of each.
  const current = mix.map(() => 0);
  for (let n = 0; n < Math.min(total, 1000); n++) {
    let best = 0;
    for (let i = 0; i < mix.length; i++) {
      current[i]! += counts[i]!;
      if (current[i]! > current[best]!) best = i;
    }
    current[best]! -= total;
    cycle.push(mix[best]!);
  }
  return cycle;
}
