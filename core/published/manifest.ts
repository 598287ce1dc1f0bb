/**
 * `run --manifest manifest.json`: the server of an MCPB bundle (an unpacked .mcpb: manifest.json beside the server's
 * files), started from the manifest's `server.mcp_config` — command, args and env, with the platform override for
 * this platform — where `${__dirname}` is the bundle's directory, `${user_config.KEY}` the value given with
 * --user-config KEY=VALUE (else the manifest's default for KEY), `${HOME}`, `${DESKTOP}`, `${DOCUMENTS}` and
 * `${DOWNLOADS}` the user's folders, and `${/}` / `${pathSeparator}` the path separator. It follows what MCPB's own
 * reference code (@anthropic-ai/mcpb, getMcpConfigForManifest) does for a host: a required user_config without a
 * value (none, "", an empty list) is a usage error, naming every one; an optional one without a value leaves its
 * `${user_config.KEY}` as written (said in manifest/schema's message); the values of a `multiple` user_config (the
 * key given several times, or a list default) become separate arguments where an argument is exactly
 * `${user_config.KEY}`, and are left as written inside a longer string.
 *
 * The manifest is checked against the JSON Schema the MCPB project publishes for its manifest_version (in the npm
 * package @anthropic-ai/mcpb: a devDependency here, an optional peer for users; without it case manifest/schema says it
 * could not check). What it declares (tools, prompts) goes to the suite `manifest`.
 */
import { createRequire } from 'node:module';
import { existsSync, readFileSync } from 'node:fs';
import { homedir } from 'node:os';
import { dirname, join, resolve, sep } from 'node:path';
import { newAjv } from '../schema/ajv.js';
import { PublishedError, readJsonFile, schemaProblems, type PublishedTarget } from './server-json.js';
import type { ManifestRun } from './types.js';
import { isObject as isObj } from '../objects.js';

type Obj = Record<string, unknown>;

const MCPB_PACKAGE = '@anthropic-ai/mcpb';

/** The published schema of a manifest_version, from @anthropic-ai/mcpb (installed beside mcp-conform or in the project). */
function mcpbSchema(version: string, cwd: string): { file: string; schema: Obj } | { unavailable: string } {
  for (const from of [import.meta.url, join(cwd, 'package.json')]) {
    try {
      // One schema file the package exports gives its folder, where every version's schema is.
      const known = createRequire(from).resolve(`${MCPB_PACKAGE}/mcpb-manifest-v0.3.schema.json`);
      const file = join(dirname(known), `mcpb-manifest-v${version}.schema.json`);
      if (!/^\d+\.\d+$/.test(version) || !existsSync(file))
        return {
          unavailable: `${MCPB_PACKAGE} (${dirname(dirname(known))}) has no schema for manifest_version ${version}`,
        };
      return {
        file: `${MCPB_PACKAGE}/mcpb-manifest-v${version}.schema.json`,
        schema: JSON.parse(readFileSync(file, 'utf8')) as Obj,
      };
    } catch {
      /* not there: the next place */
    }
  }
  return {
    unavailable: `the MCPB manifest schema comes with the npm package ${MCPB_PACKAGE}, which is not installed (npm install --save-dev ${MCPB_PACKAGE})`,
  };
}

type Value = string | string[];

/** What substitution could not fill: optional user_config without a value, list values inside a longer string. */
interface Unfilled {
  noValue: Set<string>;
  listInString: Set<string>;
}

/** Replaces the ${…} variables of MCPB in a string; a variable without a (single) value is left as written. */
function substitute(text: string, vars: Map<string, Value>, unfilled: Unfilled): string {
  return text.replace(/\$\{([^}]+)\}/g, (whole, name: string) => {
    const v = vars.get(name);
    if (v === undefined) {
      if (name.startsWith('user_config.')) unfilled.noValue.add(name.slice('user_config.'.length));
      return whole; // an optional user_config without a value, or not an MCPB variable: left as written
    }
    if (Array.isArray(v)) {
      unfilled.listInString.add(name.slice('user_config.'.length));
      return whole;
    }
    return v;
  });
}

/** An argument: exactly `${user_config.KEY}` of a list value becomes one argument per item; else substituted. */
function substituteArg(arg: string, vars: Map<string, Value>, unfilled: Unfilled): string[] {
  const m = /^\$\{(user_config\.[^}]+)\}$/.exec(arg);
  const v = m ? vars.get(m[1]!) : undefined;
  return Array.isArray(v) ? v : [substitute(arg, vars, unfilled)];
}

/** A user_config value is missing when it is absent, empty, an empty list, or a list with an empty item. */
const missing = (v: Value | undefined) =>
  v === undefined || v === '' || (Array.isArray(v) && (!v.length || v.some((x) => x === '')));

/** Reads an MCPB manifest.json, checks it, and makes its server a target. */
export function manifestTarget(
  file: string,
  o: { userConfig?: string[]; env?: string[]; cwd?: string } = {},
): { target: PublishedTarget & { cwd: string }; run: ManifestRun } {
  const abs = resolve(file);
  const dir = dirname(abs);
  const doc = readJsonFile(abs, 'manifest');
  if (!isObj(doc)) throw new PublishedError(`${file} is not an MCPB manifest: not a JSON object`);
  const version = String(doc.manifest_version ?? doc.dxt_version ?? '');
  const notes: string[] = [];
  let problems: string[] = [];
  let schemaName = `the MCPB manifest schema ${version || '(no manifest_version)'}`;
  let unavailable: string | undefined;
  if (!version) problems.push('(top level): manifest_version is missing');
  else {
    const s = mcpbSchema(version, o.cwd ?? process.cwd());
    if ('unavailable' in s) unavailable = s.unavailable;
    else {
      schemaName = s.file;
      const { $schema: _drop, ...schema } = s.schema;
      const validate = newAjv('draft-07', { allErrors: true, strict: false }).compile(schema);
      if (!validate(doc)) problems = schemaProblems(validate.errors);
    }
  }
  const server = isObj(doc.server) ? doc.server : undefined;
  const base = isObj(server?.mcp_config) ? server.mcp_config : undefined;
  if (!base || typeof base.command !== 'string')
    throw new PublishedError(
      `${file}: server.mcp_config.command is missing: the manifest does not say how to start its server${server?.type === 'uv' ? ' (a "uv" server may leave mcp_config out: its host runs entry_point with uv; mcp-conform starts only what mcp_config says — test it with --stdio "uv run …" instead)' : ''}`,
    );
  const platform =
    isObj(base.platform_overrides) && isObj(base.platform_overrides[process.platform])
      ? (base.platform_overrides[process.platform] as Obj)
      : {};
  const config = { ...base, ...platform };
  // The variables: the bundle's directory, the user's folders, the path separator, then the user's configuration
  // (given, else the manifest's default; a default may use the variables before it).
  const home = homedir();
  const vars = new Map<string, Value>([
    ['__dirname', dir],
    ['HOME', home],
    ['DESKTOP', join(home, 'Desktop')],
    ['DOCUMENTS', join(home, 'Documents')],
    ['DOWNLOADS', join(home, 'Downloads')],
    ['/', sep],
    ['pathSeparator', sep],
  ]);
  const unfilled: Unfilled = { noValue: new Set(), listInString: new Set() };
  const given = new Map<string, string[]>();
  for (const kv of o.userConfig ?? []) {
    const i = kv.indexOf('=');
    if (i <= 0) throw new PublishedError(`--user-config ${kv}: expected KEY=VALUE`);
    const k = kv.slice(0, i);
    given.set(k, [...(given.get(k) ?? []), kv.slice(i + 1)]);
  }
  const declared = isObj(doc.user_config) ? doc.user_config : {};
  for (const k of given.keys())
    if (!(k in declared))
      throw new PublishedError(
        `--user-config ${k}: ${file} declares no user_config "${k}" (it declares ${Object.keys(declared).join(', ') || 'none'})`,
      );
  const lacking: string[] = [];
  for (const [k, spec] of Object.entries(declared)) {
    const multiple = isObj(spec) && spec.multiple === true;
    const g = given.get(k);
    if (g && g.length > 1 && !multiple)
      throw new PublishedError(
        `--user-config ${k} is given ${g.length} times, but user_config "${k}" takes one value (it is not "multiple")`,
      );
    const d = isObj(spec) ? spec.default : undefined;
    const raw: Value | undefined = g
      ? multiple
        ? g
        : g[0]!
      : Array.isArray(d)
        ? d.map(String)
        : d !== undefined
          ? String(d)
          : undefined;
    const v = Array.isArray(raw)
      ? raw.map((x) => substitute(x, vars, unfilled))
      : raw !== undefined
        ? substitute(raw, vars, unfilled)
        : undefined;
    if (isObj(spec) && spec.required === true && missing(v)) lacking.push(k);
    else if (v !== undefined) vars.set(`user_config.${k}`, v);
  }
  if (lacking.length)
    throw new PublishedError(
      `${file}: ${lacking.length === 1 ? `user_config "${lacking[0]}" is required` : `user_config ${lacking.map((k) => `"${k}"`).join(', ')} are required`} and ${lacking.length === 1 ? 'has' : 'have'} no value: give ${lacking.map((k) => `--user-config ${k}=VALUE`).join(' ')}`,
    );
  const words = [
    substitute(String(config.command), vars, unfilled),
    ...(Array.isArray(config.args) ? config.args.flatMap((a) => substituteArg(String(a), vars, unfilled)) : []),
  ];
  const env = isObj(config.env)
    ? Object.entries(config.env).map(([k, v]) => `${k}=${substitute(String(v), vars, unfilled)}`)
    : [];
  for (const k of unfilled.noValue)
    notes.push(
      k in declared
        ? `user_config "${k}" has no value (optional, no default): \${user_config.${k}} is left as written, as MCPB hosts do; give one with --user-config ${k}=VALUE`
        : `\${user_config.${k}} names no user_config the manifest declares: left as written`,
    );
  for (const k of unfilled.listInString)
    notes.push(
      `user_config "${k}" has several values: \${user_config.${k}} inside a longer string is left as written, as MCPB hosts do (only an argument that is exactly \${user_config.${k}} takes them, one argument each)`,
    );
  const names = (x: unknown) => (Array.isArray(x) ? x.filter(isObj).map((t) => String(t.name)) : undefined);
  return {
    target: { stdio: words, env: [...env, ...(o.env ?? [])], cwd: dir },
    run: {
      file,
      schema: schemaName,
      problems,
      ...(unavailable ? { schemaUnavailable: unavailable } : {}),
      ...(notes.length ? { notes } : {}),
      ...(names(doc.tools) ? { tools: names(doc.tools) } : {}),
      ...(names(doc.prompts) ? { prompts: names(doc.prompts) } : {}),
      ...(doc.tools_generated === true ? { toolsGenerated: true } : {}),
      ...(doc.prompts_generated === true ? { promptsGenerated: true } : {}),
    },
  };
}
