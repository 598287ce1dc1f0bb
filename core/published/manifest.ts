/**
 * `run --manifest manifest.json`: the server of an MCPB bundle (an unpacked .mcpb: manifest.json beside the server's
 * files), started from the manifest's `server.mcp_config` — command, args and env, with the platform override for
 * this platform — where `${__dirname}` is the bundle's directory, `${user_config.KEY}` the value given with
 * --user-config KEY=VALUE (else the manifest's default for KEY; a required one without either is a usage error),
 * `${HOME}` the home directory and `${/}` / `${pathSeparator}` the path separator.
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

type Obj = Record<string, unknown>;
const isObj = (x: unknown): x is Obj => typeof x === 'object' && x !== null && !Array.isArray(x);

const MCPB_PACKAGE = '@anthropic-ai/mcpb';

/** The published schema of a manifest_version, from @anthropic-ai/mcpb (installed beside mcp-conform or in the project). */
function mcpbSchema(version: string, cwd: string): { file: string; schema: Obj } | { unavailable: string } {
  for (const from of [import.meta.url, join(cwd, 'package.json')]) {
    try {
      // One schema file the package exports gives its folder, where every version's schema is.
      const known = createRequire(from).resolve(`${MCPB_PACKAGE}/mcpb-manifest-v0.3.schema.json`);
      const file = join(dirname(known), `mcpb-manifest-v${version}.schema.json`);
      if (!/^\d+\.\d+$/.test(version) || !existsSync(file)) return { unavailable: `${MCPB_PACKAGE} (${dirname(dirname(known))}) has no schema for manifest_version ${version}` };
      return { file: `${MCPB_PACKAGE}/mcpb-manifest-v${version}.schema.json`, schema: JSON.parse(readFileSync(file, 'utf8')) as Obj };
    } catch { /* not there: the next place */ }
  }
  return { unavailable: `the MCPB manifest schema comes with the npm package ${MCPB_PACKAGE}, which is not installed (npm install --save-dev ${MCPB_PACKAGE})` };
}

/** Replaces ${…} variables of MCPB in a string. */
function substitute(text: string, vars: Map<string, string>, where: string): string {
  return text.replace(/\$\{([^}]+)\}/g, (whole, name: string) => {
    const v = vars.get(name);
    if (v === undefined) {
      if (name.startsWith('user_config.')) throw new PublishedError(`${where}: ${whole} has no value: give it with --user-config ${name.slice('user_config.'.length)}=VALUE`);
      return whole; // not an MCPB variable: left as written
    }
    return v;
  });
}

/** Reads an MCPB manifest.json, checks it, and makes its server a target. */
export function manifestTarget(file: string, o: { userConfig?: string[]; env?: string[]; cwd?: string } = {}): { target: PublishedTarget & { cwd: string }; run: ManifestRun } {
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
  if (!base || typeof base.command !== 'string') throw new PublishedError(`${file}: server.mcp_config.command is missing: the manifest does not say how to start its server`);
  const platform = isObj(base.platform_overrides) && isObj(base.platform_overrides[process.platform]) ? base.platform_overrides[process.platform] as Obj : {};
  const config = { ...base, ...platform };
  // The variables: the bundle's directory, the user's configuration (given, else the manifest's default), paths.
  const vars = new Map<string, string>([['__dirname', dir], ['HOME', homedir()], ['/', sep], ['pathSeparator', sep]]);
  const given = new Map<string, string>();
  for (const kv of o.userConfig ?? []) {
    const i = kv.indexOf('=');
    if (i <= 0) throw new PublishedError(`--user-config ${kv}: expected KEY=VALUE`);
    given.set(kv.slice(0, i), kv.slice(i + 1));
  }
  const declared = isObj(doc.user_config) ? doc.user_config : {};
  for (const k of given.keys()) if (!(k in declared)) throw new PublishedError(`--user-config ${k}: ${file} declares no user_config "${k}" (it declares ${Object.keys(declared).join(', ') || 'none'})`);
  for (const [k, spec] of Object.entries(declared)) {
    const d = isObj(spec) ? spec.default : undefined;
    const v = given.get(k) ?? (Array.isArray(d) ? d.map(String).join(',') : d !== undefined ? String(d) : undefined);
    if (v !== undefined) vars.set(`user_config.${k}`, substitute(v, vars, `${file} user_config.${k}`));
    else if (isObj(spec) && spec.required === true) throw new PublishedError(`${file}: user_config "${k}" is required: give it with --user-config ${k}=VALUE`);
  }
  const where = `${file} server.mcp_config`;
  const words = [substitute(String(config.command), vars, where), ...(Array.isArray(config.args) ? config.args.map((a) => substitute(String(a), vars, where)) : [])];
  const env = isObj(config.env) ? Object.entries(config.env).map(([k, v]) => `${k}=${substitute(String(v), vars, where)}`) : [];
  const names = (x: unknown) => (Array.isArray(x) ? x.filter(isObj).map((t) => String(t.name)) : undefined);
  return {
    target: { stdio: words, env: [...env, ...(o.env ?? [])], cwd: dir },
    run: {
      file, schema: schemaName, problems, ...(unavailable ? { schemaUnavailable: unavailable } : {}), ...(notes.length ? { notes } : {}),
      ...(names(doc.tools) ? { tools: names(doc.tools) } : {}),
      ...(names(doc.prompts) ? { prompts: names(doc.prompts) } : {}),
      ...(doc.tools_generated === true ? { toolsGenerated: true } : {}),
      ...(doc.prompts_generated === true ? { promptsGenerated: true } : {}),
    },
  };
}
