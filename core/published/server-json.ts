/**
 * `run --server-json FILE`: the server an MCP registry server.json describes, as a target. The file is checked
 * against the registry's server.json schema (the result goes to case registry/server-json: a file that does not fit is
 * a failing case, not a crash), then one entry is turned into a target:
 *
 * - a `remotes` entry: its URL over its transport (streamable-http → --http, sse → --sse), `{placeholders}` in the URL
 *   and in header values filled from the transport's `variables` (value, else default), else from --env, else the
 *   environment; a placeholder nothing fills is a usage error naming it;
 * - a `packages` entry: started the way its registryType and runtimeHint say — npm: `npx [runtime args]
 *   identifier@version [package args]` (`--yes` added unless the runtime arguments say otherwise), pypi: `uvx [runtime
 *   args] identifier==version [package args]`, oci: `docker run -i --rm [runtime args] [-e NAME …] image [package
 *   args]` (docker reads each NAME's value from its own environment) — with its environmentVariables; a package whose transport is streamable-http or sse is started with
 *   --start and tested at its URL.
 *
 * Which entry (--server-json-entry): `packages[N]`, `remotes[N]`, a registryType (npm, pypi, oci), a transport type
 * (streamable-http, sse), or a package identifier / remote URL. Without it: the first package whose runner (npx, uvx,
 * docker) is on PATH, else the first remote, else the first package.
 */
import { existsSync, readFileSync } from 'node:fs';
import { delimiter, join } from 'node:path';
import type { ErrorObject } from 'ajv';
import { newAjv } from '../schema/ajv.js';
import { SERVER_JSON_SCHEMA_URL, SERVER_JSON_SCHEMA_VERSION, serverJsonSchema } from './server-json-schema.js';
import type { ServerJsonRun } from './types.js';
import { isObject as isObj } from '../objects.js';

/** A server.json that cannot be used at all (unreadable, not JSON, no entry to test): a usage error. */
export class PublishedError extends Error {
  /**
   * A server.json that was read and checked before the usage error: its registry/server-json verdict, so that the
   * error does not hide what the schema said of the file.
   */
  schemaVerdict?: string;
}

/** The target an entry gives, in the library's option names (core/conformance.ts). */
export interface PublishedTarget {
  stdio?: string[];
  http?: string;
  sse?: string;
  start?: string[];
  headers?: string[];
  /** KEY=VALUE for the server's environment (a started server only). */
  env?: string[];
  /**
   * An npm package run by npx: the command that puts it into npx's cache without starting the server, run before the
   * server is started (core/published/fetch.ts). A first `npx` of a large package takes a minute; the server's start-up
   * allowance ends when the process is idle, and npx waiting on the network is idle.
   */
  fetch?: string[];
}

type Obj = Record<string, unknown>;
const arr = (x: unknown): Obj[] => (Array.isArray(x) ? x.filter(isObj) : []);

/** Schema errors in plain words: where, and what is wrong. */
export function schemaProblems(errors: ErrorObject[] | null | undefined): string[] {
  const out = (errors ?? [])
    .filter((e) => !['anyOf', 'allOf', 'oneOf', 'if'].includes(e.keyword))
    .map((e) => {
      const at = e.instancePath || '(top level)';
      if (e.keyword === 'additionalProperties')
        return `${at}: unknown field "${String((e.params as { additionalProperty?: string }).additionalProperty)}"`;
      if (e.keyword === 'enum' || e.keyword === 'const')
        return `${at}: must be ${((e.params as { allowedValues?: unknown[]; allowedValue?: unknown }).allowedValues ?? [(e.params as { allowedValue?: unknown }).allowedValue]).map((v) => JSON.stringify(v)).join(' or ')}`;
      return `${at}: ${e.message ?? e.keyword}`;
    });
  return [...new Set(out)];
}

let validator: ReturnType<ReturnType<typeof newAjv>['compile']> | undefined;

/** Reads a JSON file, or says why not (a usage error). */
export function readJsonFile(file: string, what: string): unknown {
  let text: string;
  try {
    text = readFileSync(file, 'utf8');
  } catch (e) {
    throw new PublishedError(
      `cannot read the ${what} ${file}: ${(e as NodeJS.ErrnoException).code ?? (e as Error).message}`,
    );
  }
  try {
    return JSON.parse(text);
  } catch (e) {
    throw new PublishedError(`${file} is not valid JSON: ${(e as Error).message.split('\n')[0]}`);
  }
}

/** Whether a command is on PATH. */
function onPath(cmd: string, env: NodeJS.ProcessEnv): boolean {
  return (env.PATH ?? '').split(delimiter).some((d) => d && existsSync(join(d, cmd)));
}

/** KEY=VALUE words as a map. */
export function envMap(list: string[]): Map<string, string> {
  const m = new Map<string, string>();
  for (const kv of list) {
    const i = kv.indexOf('=');
    if (i > 0) m.set(kv.slice(0, i), kv.slice(i + 1));
  }
  return m;
}

/** Fills {name} placeholders: from the input's variables, then --env, then the environment. */
function filler(given: Map<string, string>, env: NodeJS.ProcessEnv, where: string) {
  return (text: string, variables?: unknown): string =>
    text.replace(/\{([A-Za-z_][A-Za-z0-9_.-]*)\}/g, (_, name: string) => {
      const v = isObj(variables) && isObj(variables[name]) ? variables[name] : undefined;
      const fromVar = typeof v?.value === 'string' ? v.value : typeof v?.default === 'string' ? v.default : undefined;
      const value = fromVar ?? given.get(name) ?? (env[name] || undefined); // an empty variable of the environment gives nothing
      if (value === undefined)
        throw new PublishedError(
          `${where}: nothing fills the placeholder {${name}}: give it with --env ${name}=VALUE (or set ${name} in the environment)`,
        );
      return value;
    });
}

/** The value of an input: value, else default, else (required) --env/the environment by name, else undefined. */
function inputValue(
  i: Obj,
  fill: ReturnType<typeof filler>,
  name: string | undefined,
  given: Map<string, string>,
  env: NodeJS.ProcessEnv,
  where: string,
): string | undefined {
  const raw = typeof i.value === 'string' ? i.value : typeof i.default === 'string' ? i.default : undefined;
  if (raw !== undefined) return fill(raw, i.variables);
  const byName = name !== undefined ? (given.get(name) ?? (env[name] || undefined)) : undefined;
  if (byName !== undefined) return byName;
  if (i.isRequired === true)
    throw new PublishedError(
      `${where}: "${name ?? 'a value'}" is required and has no value: give it with --env ${name ?? 'NAME'}=VALUE`,
    );
  return undefined;
}

/**
 * Command-line words of a list of arguments. Positional: the value. Named (the schema's `--flag={value}`): `--flag=value`
 * when it has a value (its own, its default, or one given with --env under its valueHint or its name without the
 * dashes, e.g. --env apiKey=… for `--apiKey`); an optional one without a value is left out, as a client does that has
 * not asked the user for it (a bare `--flag` is not what the author declared: mongodb-mcp-server exits on a bare
 * `--transport`); a required one without a value is a usage error saying how to give it.
 */
function argumentWords(
  args: Obj[],
  fill: ReturnType<typeof filler>,
  given: Map<string, string>,
  env: NodeJS.ProcessEnv,
  where: string,
): string[] {
  const out: string[] = [];
  args.forEach((a, i) => {
    const w = `${where}[${i}]`;
    if (a.type === 'named' && typeof a.name === 'string') {
      const v = inputValue(
        a,
        fill,
        typeof a.valueHint === 'string' ? a.valueHint : a.name.replace(/^-+/, ''),
        given,
        env,
        w,
      );
      if (v !== undefined) out.push(`${a.name}=${v}`);
    } else {
      const v = inputValue(a, fill, typeof a.valueHint === 'string' ? a.valueHint : undefined, given, env, w);
      if (v !== undefined) out.push(v);
    }
  });
  return out;
}

function runnerOf(p: Obj): string {
  if (typeof p.runtimeHint === 'string' && p.runtimeHint) return p.runtimeHint;
  return (
    ({ npm: 'npx', pypi: 'uvx', oci: 'docker' } as Record<string, string>)[String(p.registryType)] ??
    String(p.registryType)
  );
}

/** The entry to test: by --server-json-entry, else the first package whose runner is on PATH, else a remote. */
function chooseEntry(
  doc: Obj,
  pick: string | undefined,
  env: NodeJS.ProcessEnv,
  file: string,
): { kind: 'packages' | 'remotes'; index: number; entry: Obj } {
  const packages = arr(doc.packages);
  const remotes = arr(doc.remotes);
  const all = [
    ...packages.map((entry, index) => ({ kind: 'packages' as const, index, entry })),
    ...remotes.map((entry, index) => ({ kind: 'remotes' as const, index, entry })),
  ];
  const names = () =>
    all
      .map(
        (e) =>
          `${e.kind}[${e.index}] (${e.kind === 'packages' ? `${String(e.entry.registryType)} ${String(e.entry.identifier)}` : `${String((e.entry as { type?: unknown }).type)} ${String(e.entry.url)}`})`,
      )
      .join(', ');
  if (!all.length) throw new PublishedError(`${file} has neither packages nor remotes: nothing to start or reach`);
  if (pick !== undefined) {
    const m = /^(packages|remotes)\[(\d+)\]$/.exec(pick);
    const found = m
      ? all.find((e) => e.kind === m[1] && e.index === Number(m[2]))
      : all.find(
          (e) =>
            e.entry.registryType === pick ||
            e.entry.type === pick ||
            e.entry.identifier === pick ||
            e.entry.url === pick,
        );
    if (!found) throw new PublishedError(`--server-json-entry ${pick}: ${file} has no such entry (it has ${names()})`);
    return found;
  }
  const startable = all.find((e) => e.kind === 'packages' && onPath(runnerOf(e.entry), env));
  return startable ?? all.find((e) => e.kind === 'remotes') ?? all[0];
}

/** How a package is started: its command words, and its environment. */
function packageCommand(
  p: Obj,
  fill: ReturnType<typeof filler>,
  given: Map<string, string>,
  env: NodeJS.ProcessEnv,
  where: string,
): { words: string[]; env: string[]; fetch?: string[] } {
  const id = String(p.identifier);
  const version = typeof p.version === 'string' ? p.version : undefined;
  const runtime = argumentWords(arr(p.runtimeArguments), fill, given, env, `${where}.runtimeArguments`);
  const pkgArgs = argumentWords(arr(p.packageArguments), fill, given, env, `${where}.packageArguments`);
  const envs: string[] = [];
  arr(p.environmentVariables).forEach((e, i) => {
    if (typeof e.name !== 'string') return;
    const v = inputValue(e, fill, e.name, given, env, `${where}.environmentVariables[${i}]`);
    if (v !== undefined) envs.push(`${e.name}=${v}`);
  });
  const runner = runnerOf(p);
  const type = String(p.registryType);
  // npx asks before it installs a package: --yes (unless the runtime arguments answer it); another runner (bun…) as given.
  if (type === 'npm') {
    const spec = version ? `${id}@${version}` : id;
    const yes = runner !== 'npx' || runtime.some((w) => w === '-y' || w === '--yes') ? [] : ['--yes'];
    // `npx --package SPEC -- node -e 0` fills the same cache entry as `npx SPEC` (its key is the list of packages).
    return {
      words: [runner, ...yes, ...runtime, spec, ...pkgArgs],
      env: envs,
      ...(runner === 'npx' ? { fetch: [runner, ...yes, ...runtime, '--package', spec, '--', 'node', '-e', '0'] } : {}),
    };
  }
  if (type === 'pypi')
    return { words: [runner, ...runtime, version ? `${id}==${version}` : id, ...pkgArgs], env: envs };
  if (type === 'oci') {
    const tagged = /[:@][^/]*$/.test(id) || !version ? id : `${id}:${version}`;
    // `-e NAME` without its value: docker takes it from its own environment (the value never is on a command line).
    return {
      words: [
        runner,
        'run',
        '-i',
        '--rm',
        ...runtime,
        ...envs.flatMap((kv) => ['-e', kv.slice(0, kv.indexOf('='))]),
        tagged,
        ...pkgArgs,
      ],
      env: envs,
    };
  }
  throw new PublishedError(
    `${where}: registryType "${type}" is not one mcp-conform can start (npm, pypi, oci)${type === 'mcpb' ? ': unpack the bundle and use --manifest' : ''}; choose another entry with --server-json-entry`,
  );
}

/** Reads a server.json, checks it, chooses an entry and makes it a target. */
export function serverJsonTarget(
  file: string,
  o: { entry?: string; env?: string[]; processEnv?: NodeJS.ProcessEnv } = {},
): { target: PublishedTarget; run: ServerJsonRun } {
  const doc = readJsonFile(file, 'server.json');
  if (!isObj(doc)) throw new PublishedError(`${file} is not a server.json: not a JSON object`);
  validator ??= newAjv('draft-07', { allErrors: true, strict: false }).compile(serverJsonSchema);
  const problems = validator(doc) ? [] : schemaProblems(validator.errors);
  const notes: string[] = [];
  const declared = typeof doc.$schema === 'string' ? doc.$schema : undefined;
  if (declared && !declared.includes(SERVER_JSON_SCHEMA_VERSION))
    notes.push(`it names the schema ${declared}; checked against the current one, ${SERVER_JSON_SCHEMA_VERSION}`);
  try {
    return entryTarget(doc, file, problems, notes, o);
  } catch (e) {
    if (e instanceof PublishedError)
      e.schemaVerdict = problems.length
        ? `fail: it does not fit ${SERVER_JSON_SCHEMA_URL}: ${problems.slice(0, 3).join('; ')}${problems.length > 3 ? `; and ${problems.length - 3} more` : ''}`
        : `pass: it fits ${SERVER_JSON_SCHEMA_URL}`;
    throw e;
  }
}

function entryTarget(
  doc: Obj,
  file: string,
  problems: string[],
  notes: string[],
  o: { entry?: string; env?: string[]; processEnv?: NodeJS.ProcessEnv },
): { target: PublishedTarget; run: ServerJsonRun } {
  const env = o.processEnv ?? process.env;
  const given = envMap(o.env ?? []);
  const chosen = chooseEntry(doc, o.entry, env, file);
  const where = `${file} ${chosen.kind}[${chosen.index}]`;
  const fill = filler(given, env, where);
  const e = chosen.entry;
  let target: PublishedTarget;
  let how: string;
  if (chosen.kind === 'remotes') {
    const type = String(e.type);
    if (type !== 'streamable-http' && type !== 'sse')
      throw new PublishedError(`${where}: transport type "${type}" is not streamable-http or sse`);
    const url = fill(String(e.url), e.variables);
    const headers = arr(e.headers).flatMap((h, i) => {
      if (typeof h.name !== 'string') return [];
      const v = inputValue(h, fill, h.name, given, env, `${where}.headers[${i}]`);
      return v === undefined ? [] : [`${h.name}: ${v}`];
    });
    target = { [type === 'sse' ? 'sse' : 'http']: url, ...(headers.length ? { headers } : {}) };
    how = `${type} ${url}${headers.length ? ` with header${headers.length === 1 ? '' : 's'} ${headers.map((h) => h.split(':')[0]).join(', ')}` : ''}`;
  } else {
    const cmd = packageCommand(e, fill, given, env, where);
    const transport = isObj(e.transport) ? e.transport : {};
    const t = String(transport.type ?? 'stdio');
    if (t === 'stdio') {
      target = { stdio: cmd.words, env: [...cmd.env, ...(o.env ?? [])], ...(cmd.fetch ? { fetch: cmd.fetch } : {}) };
      how = `started as ${cmd.words.join(' ')}`;
    } else {
      const url = fill(String(transport.url), undefined);
      target = {
        start: cmd.words,
        [t === 'sse' ? 'sse' : 'http']: url,
        env: [...cmd.env, ...(o.env ?? [])],
        ...(cmd.fetch ? { fetch: cmd.fetch } : {}),
      };
      how = `started as ${cmd.words.join(' ')}, tested at ${url}`;
    }
  }
  return {
    target,
    run: {
      file,
      schema: SERVER_JSON_SCHEMA_URL,
      problems,
      ...(notes.length ? { notes } : {}),
      entry: `${chosen.kind}[${chosen.index}]`,
      how,
    },
  };
}
