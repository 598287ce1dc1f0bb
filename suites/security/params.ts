/**
 * Which tools the security suite's file and URL probes may call, and with which parameter: a parameter named or
 * described as a path, file or directory (security/path-escape), or as a URL (security/ssrf); and the rule that keeps
 * those probes safe on top of the call policy.
 */
import { generateArguments } from '../../core/args/index.js';
import { policyRefusal, type CallPlan } from '../../core/call-policy.js';
import type { Tool } from '../../core/tools.js';
import { isObject } from '../helpers.js';

export interface ParamOf {
  tool: Tool;
  /** The top-level property the probe fills. */
  param: string;
  /** The property takes an array of strings (read_multiple_files' `paths`): the probe sends one. */
  array: boolean;
  /** For a path: it is described as a directory (a listing tool), not a file. */
  directory?: boolean;
  /** The schema declares no properties: the parameter name is the usual one, guessed from the tool's name. */
  guessed?: boolean;
}

const PATH_NAME =
  /^(?:paths?|files?|filenames?|filepaths?|dirs?|directory|directories|folders?|root)$|[_-](?:path|file|filename|dir|directory|folder)s?$/i;
const PATH_CAMEL = /[a-z](?:Path|File|Filename|Dir|Directory|Folder)s?$/;
const PATH_WORDS = /\b(?:path|paths|file ?path|directory|folder)\b/i;
const URL_NAME = /^(?:urls?|uris?|hrefs?|links?|endpoint|website|webpage)$|[_-](?:url|uri|href)s?$/i;
const URL_CAMEL = /[a-z](?:Url|Uri|URL|URI|Href)s?$/;
const URL_WORDS = /\b(?:url|urls|uri|web address|web ?page)\b|https?:\/\//i;
const DIR_WORDS = /\b(?:director(?:y|ies)|folders?|dir)\b/i;

const isPathName = (n: string) => PATH_NAME.test(n) || PATH_CAMEL.test(n);

function stringish(s: Record<string, unknown>): { ok: boolean; array: boolean } {
  const t = s.type;
  if (t === 'string' || (Array.isArray(t) && t.includes('string'))) return { ok: true, array: false };
  if (
    t === 'array' &&
    isObject(s.items) &&
    (s.items.type === 'string' || (Array.isArray(s.items.type) && s.items.type.includes('string')))
  )
    return { ok: true, array: true };
  return { ok: false, array: false };
}

function props(tool: Tool): [string, Record<string, unknown>][] {
  const s = tool.inputSchema;
  if (!isObject(s) || !isObject(s.properties)) return [];
  return Object.entries(s.properties).filter((e): e is [string, Record<string, unknown>] => isObject(e[1]));
}

function isUrlProp(name: string, s: Record<string, unknown>): boolean {
  const fmt =
    typeof s.format === 'string'
      ? s.format
      : isObject(s.items) && typeof s.items.format === 'string'
        ? s.items.format
        : '';
  return (
    URL_NAME.test(name) ||
    URL_CAMEL.test(name) ||
    /^(?:uri|url|iri)$/.test(fmt) ||
    (typeof s.description === 'string' && URL_WORDS.test(s.description) && !isPathName(name))
  );
}

/**
 * The parameter of the tool that takes a path, or undefined. A tool whose inputSchema declares no properties at all
 * (server-filesystem 2025.7.1 lists `{}` schemas when its zod-to-json-schema meets zod 4) but whose name says it reads
 * a file or folder (read_file, list_directory, get_file_info) is given `path`, the usual name, marked as guessed.
 */
export function pathParam(tool: Tool): ParamOf | undefined {
  if (
    !props(tool).length &&
    !/allowed|roots?\b|_roots|workspace/i.test(tool.name) &&
    /(?:file|dir|directory|folder|path)/i.test(tool.name) &&
    /(?:read|get|cat|open|view|list|show|tree|info|stat)/i.test(tool.name)
  ) {
    return {
      tool,
      param: /multiple|_files$|Files$/.test(tool.name) ? 'paths' : 'path',
      array: /multiple|_files$|Files$/.test(tool.name),
      directory: /dir|folder|tree/i.test(tool.name) && !/file/i.test(tool.name),
      guessed: true,
    };
  }
  for (const [name, s] of props(tool)) {
    const k = stringish(s);
    if (!k.ok || isUrlProp(name, s)) continue;
    const desc = typeof s.description === 'string' ? s.description : '';
    if (isPathName(name) || PATH_WORDS.test(desc)) {
      return {
        tool,
        param: name,
        array: k.array,
        // A folder, not a file: said by the parameter, or by a listing tool's name (list_directory, directory_tree).
        directory:
          DIR_WORDS.test(name) ||
          (!/files?/i.test(name) && DIR_WORDS.test(desc) && !/\bfiles?\b/i.test(desc)) ||
          (!/files?/i.test(name) && /dir|folder|tree/i.test(tool.name) && !/file/i.test(tool.name)),
      };
    }
  }
  return undefined;
}

/** The parameter of the tool that takes a URL, or undefined. */
export function urlParam(tool: Tool): ParamOf | undefined {
  for (const [name, s] of props(tool)) {
    const k = stringish(s);
    if (k.ok && isUrlProp(name, s)) return { tool, param: name, array: k.array };
  }
  return undefined;
}

/**
 * Whether a probe may call the tool, or why not. Under the call policy, and stricter: a tool that may write
 * (not annotated readOnlyHint: true) is probed only when the user named it with --call-tool — `--call-tools all` alone
 * does not hand a write tool the harness's canary paths or URLs.
 */
export function probeRefusal(tool: Tool, plan: CallPlan, allow: readonly string[]): string | undefined {
  if (!plan.call.some((t) => t.name === tool.name))
    return (
      plan.skipped.find((s) => s.name === tool.name)?.reason ??
      policyRefusal(tool, { mode: 'none', allow }) ??
      'the call policy does not call it'
    );
  const a = tool.annotations;
  if (isObject(a) && a.readOnlyHint === true) return undefined;
  if (allow.includes(tool.name)) return undefined;
  return 'not annotated readOnlyHint: true: the security probes call such a tool only when it is named with --call-tool NAME';
}

/** Arguments for the probe: generated from the schema (other required parameters filled), the parameter set to value. */
export function probeArguments(p: ParamOf, value: string): Record<string, unknown> {
  const g = generateArguments(p.tool.inputSchema ?? { type: 'object' });
  return { ...g.value, [p.param]: p.array ? [value] : value };
}

/** Whether an answer carries a token: anywhere in its JSON, or inside a base64 blob or data member. */
export function answerHolds(result: unknown, token: string): boolean {
  const text = JSON.stringify(result ?? null);
  if (text.includes(token)) return true;
  let found = false;
  const walk = (v: unknown, depth: number): void => {
    if (found || depth > 12) return;
    if (Array.isArray(v)) {
      for (const x of v) walk(x, depth + 1);
      return;
    }
    if (!isObject(v)) return;
    for (const [k, x] of Object.entries(v)) {
      if ((k === 'blob' || k === 'data') && typeof x === 'string' && x.length >= 16) {
        try {
          if (Buffer.from(x, 'base64').toString('latin1').includes(token)) {
            found = true;
            return;
          }
        } catch {
          /* not base64 */
        }
      } else walk(x, depth + 1);
    }
  };
  walk(result, 0);
  return found;
}
