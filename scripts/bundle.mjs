// After tsc: bundle the CLI (dist/bin/mcp-conform.js and everything it imports, yargs, ajv and yaml included) into
// dist/cli/ in two parts, and make dist/bin/mcp-conform.js a two-line entry that loads it: the entry (dist/cli/
// mcp-conform.js, processes.js and a small chunk: --version, the early start of a `run --stdio` server) and the
// commands (dist/cli/cli.cjs, one CommonJS file, compiled with its V8 code cache by dist/cli/cli-loader.js, which the
// entry loads after that). A run loads a handful of files of dist/cli instead of ~400 (module resolution, file reads
// and the ESM linker were ~100 ms of CPU of a small run when it loaded tsc's output).
// The library (dist/index.js and the rest of dist/) stays as tsc wrote it.
//
// Left out of the bundle: gpt-tokenizer (2.4 MB of token ranks, loaded from node_modules when the quality suite
// counts tokens) and msw (only the ./msw export, not the CLI, uses it).
//
// Every file of the bundle lies two levels below the package root, as every file tsc writes does, so the paths the
// code resolves from import.meta.url (package.json, config.schema.json, fixtures/mocks/…, ../bin/mcp-conform.js) are
// the same.
import { build } from 'esbuild';
import { cpSync, mkdtempSync, readdirSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { createRequire } from 'node:module';
import { spawnSync } from 'node:child_process';
import { dirname, join, relative } from 'node:path';
import { fileURLToPath, pathToFileURL } from 'node:url';

const root = join(dirname(fileURLToPath(import.meta.url)), '..');
const entry = join(root, 'dist', 'bin', 'mcp-conform.js');
const outdir = join(root, 'dist', 'cli');

/**
 * yargs reads its messages in the user's language (LANG) from node_modules/yargs/locales, found relative to its own
 * file; in the bundle they are copied to dist/cli/yargs-locales and found relative to the chunk.
 */
const yargsDir = dirname(createRequire(import.meta.url).resolve('yargs'));
const yargsLocales = {
  name: 'yargs-locales',
  setup(b) {
    b.onLoad({ filter: /[\\/]yargs[\\/]lib[\\/]platform-shims[\\/]esm\.mjs$/, namespace: 'file' }, (args) => {
      const text = readFileSync(args.path, 'utf8');
      const from = "resolve(__dirname, '../../../locales')";
      if (!text.includes(from))
        throw new Error(`${args.path}: yargs no longer reads its locales from ${from}: update scripts/bundle.mjs`);
      return { contents: text.replace(from, "resolve(dirname(__dirname), 'yargs-locales')"), loader: 'js' };
    });
  },
};

/**
 * string-width (yargs' and cliui's, two versions) builds an Intl.Segmenter and several Unicode-property regular
 * expressions (\\p{RGI_Emoji} with the v flag…) when its module is evaluated: ~15–30 ms of CPU at every start, for a
 * function only --help and usage messages call. Each `import stringWidth from 'string-width'` gets a stand-in that
 * evaluates the real module (resolved from the same importer, so each keeps its own version) on its first call; esbuild
 * bundles a require() of an ES module as a lazily evaluated one.
 */
const lazyStringWidth = {
  name: 'lazy-string-width',
  setup(b) {
    b.onResolve({ filter: /^string-width$/ }, (args) => {
      if (args.namespace === 'lazy-string-width') return undefined; // the stand-in's own require: the real module
      return {
        path: relative(root, args.importer),
        namespace: 'lazy-string-width',
        pluginData: { resolveDir: args.resolveDir },
      };
    });
    b.onLoad({ filter: /.*/, namespace: 'lazy-string-width' }, (args) => ({
      contents:
        "let real;\nexport default function stringWidth(string, options) {\n  real ??= require('string-width').default;\n  return real(string, options);\n}\n",
      resolveDir: args.pluginData.resolveDir,
      loader: 'js',
    }));
  },
};

/** Gives a chunk the `require` its bundled CommonJS code calls (see dropUnusedBanners). */
const BANNER =
  "import { createRequire as __mcpConformRequire } from 'node:module'; const require = __mcpConformRequire(import.meta.url);";

/**
 * esbuild puts the banner on every chunk; a chunk whose code never names `require` does without (each createRequire
 * costs ~0.1 ms, and a run loads ~45 chunks). The test is textual and errs towards keeping it: any `require` not
 * written as a member (`x.require`) or part of a longer name counts.
 */
function dropUnusedBanners(dir) {
  for (const name of readdirSync(dir)) {
    if (!name.endsWith('.js')) continue;
    const file = join(dir, name);
    const text = readFileSync(file, 'utf8');
    const hashbang = /^#!.*\n/.exec(text)?.[0] ?? '';
    if (!text.startsWith(BANNER, hashbang.length))
      throw new Error(`${file} does not start with the banner: update scripts/bundle.mjs`);
    const rest = text.slice(hashbang.length + BANNER.length);
    if (!/(?<![\w$.])require(?![\w$])/.test(rest)) writeFileSync(file, hashbang + rest.replace(/^\n/, ''));
  }
}

const source = readFileSync(entry, 'utf8');
if (!source.includes('function main('))
  throw new Error(`${entry} is not tsc's output of bin/mcp-conform.ts: run tsc first`);
rmSync(outdir, { recursive: true, force: true });

const cliModule = join(root, 'dist', 'bin', 'cli.js');
/** The parameters of the function cli.cjs is (those of a CommonJS module, and import.meta's url and resolve). */
const CLI_PARAMS = 'exports, require, module, __filename, __dirname, __mcpImportMetaUrl, __mcpImportMetaResolve';
const processesModule = join(root, 'dist', 'core', 'processes.js');
/** The code-cache check and compile of core/schema/code-cache.ts, for cli-loader.js (written below). */
const codeCacheModule = join(root, 'dist', 'core', 'schema', 'code-cache.js');
/**
 * A module both parts share as one file of dist/cli/ (not a copy in each): core/processes.ts, whose state (the
 * early-started server, the signal handlers, the process groups to end at exit) the entry sets and the run uses; and,
 * from the entry, bin/cli.js, the second part itself.
 */
const shared = (files) => ({
  name: 'shared-modules',
  setup(b) {
    b.onResolve({ filter: /\.js$/ }, (args) => {
      if (args.kind === 'entry-point' || !args.path.startsWith('.')) return undefined;
      const file = join(args.resolveDir, args.path);
      return files[file] ? { path: files[file], external: true } : undefined;
    });
  },
});
/**
 * The version of the ajv bundled (the one dist/core/schema/ajv.js resolves, as esbuild does), baked into the bundle:
 * the precompiled validators' fingerprint names the compiler that made them, and in the CLI that is this copy, whatever
 * version node_modules holds later (core/schema/precompiled.ts).
 */
const bundledAjvVersion = createRequire(join(root, 'dist', 'core', 'schema', 'ajv.js'))('ajv/package.json').version;
const common = {
  outdir,
  define: { __MCP_CONFORM_BUNDLED_AJV_VERSION__: JSON.stringify(bundledAjvVersion) },
  bundle: true,
  format: 'esm',
  platform: 'node',
  target: 'node20',
  external: ['gpt-tokenizer', 'gpt-tokenizer/*', 'msw', 'msw/*'],
  // Some bundled dependencies are CommonJS and call require() (of node: modules): give the ESM chunks one.
  banner: { js: BANNER },
  // Less text for V8 to scan at every start (~10 ms of a run's CPU); names stay, so stack traces still name functions.
  minifyWhitespace: true,
  minifySyntax: true,
  logLevel: 'warning',
};
// The entry: --version, and the early start of `run --stdio` (bin/early.ts, core/processes.ts) before the rest loads.
await build({
  ...common,
  entryPoints: { 'mcp-conform': entry, processes: processesModule, 'code-cache': codeCacheModule },
  splitting: true,
  chunkNames: '[name]-[hash]',
  plugins: [shared({ [cliModule]: './cli-loader.js' })],
});
// The rest (bin/cli.ts and everything it imports, the modules a command loads lazily included) as one file: a run
// loads nearly all of it anyway, and one file instead of ~45 chunks saves ~25 ms of the ESM loader's work per module
// (resolving, reading, linking) at every start. A lazily imported module is still evaluated only when imported.
// CommonJS, so that cli-loader.js can compile it with V8's code cache (Node 20 has no code cache for ES modules):
// import.meta.url and import.meta.resolve become parameters the loader passes (those of a file in the same directory).
await build({
  ...common,
  entryPoints: { cli: cliModule },
  format: 'cjs',
  outExtension: { '.js': '.cjs' },
  // The function the loader calls, written round the code here (the loader would otherwise copy 1.3 MB to wrap it).
  banner: { js: `(function (${CLI_PARAMS}) {` },
  footer: { js: '})' },
  define: {
    ...common.define,
    'import.meta.url': '__mcpImportMetaUrl',
    'import.meta.resolve': '__mcpImportMetaResolve',
  },
  // import() becomes require() (of an ES module too: Node ≥ 20.19): code compiled from a V8 code cache loses the
  // dynamic-import callback a vm.Script is given (ERR_VM_DYNAMIC_IMPORT_CALLBACK_MISSING on Node 20).
  supported: { 'dynamic-import': false },
  splitting: false,
  plugins: [yargsLocales, lazyStringWidth, shared({ [processesModule]: './processes.js' })],
});
dropUnusedBanners(outdir);
const cliFile = join(outdir, 'cli.cjs');
const cliCode = readFileSync(cliFile, 'utf8');
// The only file of the bundle cli.cjs requires is the shared ES module the loader hands it (see cli-loader.js below).
for (const [, spec] of cliCode.matchAll(/\brequire\("(\.[^"]*)"\)/g)) {
  if (spec !== './processes.js')
    throw new Error(
      `dist/cli/cli.cjs requires ${spec}: the loader hands it only ./processes.js: update scripts/bundle.mjs`,
    );
}
// Tagged with a hash of its text, which names its code cache: cli.cjs.<tag>.v8-cache (dist/core/schema/code-cache.js).
const { tagSource, codeCachePath } = await import(pathToFileURL(codeCacheModule).href);
writeFileSync(cliFile, tagSource(cliCode));
const cacheFile = codeCachePath(cliFile, readFileSync(cliFile, 'utf8'));
/**
 * dist/cli/cli-loader.js: compiles cli.cjs with the code cache made below (the bytecode of what a start compiles:
 * ~20 ms less compiling at every start) and exports what cli.cjs exports. cli.cjs ends with a hash of its text, the
 * cache is named after it, and the loader takes only the cache its cli.cjs names (a cli.cjs of another build gets
 * none: core/schema/code-cache.ts); V8 itself rejects a cache made by another version or with other flags (then it
 * compiles as without one). cli.cjs has no import(): esbuild made its dynamic imports require() calls.
 *
 * The ES module cli.cjs shares with the entry (./processes.js) is imported here and handed to cli.cjs through its
 * `require`, so that nothing depends on Node's require() of ES modules (off with --no-experimental-require-module).
 */
writeFileSync(
  join(outdir, 'cli-loader.js'),
  `// Loads cli.cjs, the commands bundled by scripts/bundle.mjs (source: bin/cli.ts), with its V8 code cache.
import { createRequire } from 'node:module';
import { dirname } from 'node:path';
import { fileURLToPath, pathToFileURL } from 'node:url';
import { compileFunction, readCodeCache, readSource } from './code-cache.js';
import * as processes from './processes.js';
const file = fileURLToPath(new URL('./cli.cjs', import.meta.url));
const text = readSource(file);
// The cache this text of cli.cjs names (core/schema/code-cache.ts).
const cachedData = readCodeCache(file, text);
// cli.cjs is one function expression: (function (${CLI_PARAMS}) { … }), then its tag (a comment).
const { fn, script } = compileFunction(file, text, cachedData);
const module = { exports: {} };
// cli.cjs's require: ./processes.js is the module loaded above (the one the entry uses), the rest Node's require.
const nodeRequire = createRequire(file);
const require = Object.assign((id) => (id === './processes.js' ? processes : nodeRequire(id)), nodeRequire);
fn(module.exports, require, module, file, dirname(file), pathToFileURL(file).href, (specifier) => import.meta.resolve(specifier));
export const { dispatch, UsageError } = module.exports;
/** Whether cli.cjs was compiled from the code cache (false: no cache of this cli.cjs, or V8 rejected it). */
export const codeCacheUsed = cachedData !== undefined && script.cachedDataRejected === false;
/** The code cache of what has been compiled so far (scripts/bundle.mjs writes it after a warm-up). */
export const codeCache = () => script.createCachedData();
`,
);
cpSync(join(yargsDir, 'locales'), join(outdir, 'yargs-locales'), { recursive: true });
// The code cache: cli.cjs compiled in a fresh node with default V8 flags (NODE_OPTIONS cleared, no exec flags: V8
// accepts a cache only from the same flags, and the CLI normally runs without any), then the commands' set-up and
// option checks run (the `run` flags built and parsed, a usage error; `list`), then a whole run against the calc
// mock (`serve --fixture fixtures/mocks/calc.yaml`, started with tsc's entry, which is still there: every suite, the
// schema checks, the reports), so that the cache holds the bytecode of the functions a run calls, not only those of
// its start: V8 compiles the others on their first call (~35 ms of CPU of a small run, most of it while the server
// works). The output goes nowhere; the run's report goes to a temporary folder, removed after.
/** The warm-up's bound (it takes ~2 s). */
const WARM_UP_TIMEOUT_MS = 120_000;
const warmEnv = { ...process.env };
delete warmEnv.NODE_OPTIONS;
const warmOut = mkdtempSync(join(tmpdir(), 'mcp-conform-warm-up-'));
const warmMock = join(root, 'fixtures', 'mocks', 'calc.yaml');
const warmServer = [process.execPath, entry, 'serve', '--fixture', warmMock].map((a) => JSON.stringify(a)).join(' ');
const warm = spawnSync(
  process.execPath,
  [
    '--input-type=module',
    '-e',
    `
  import { existsSync, writeFileSync } from 'node:fs';
  const cli = await import(${JSON.stringify(pathToFileURL(join(outdir, 'cli-loader.js')).href)});
  await cli.dispatch(['run', '--stdio', 'true', '--suite', 'no-such-suite'], () => true);
  await cli.dispatch(['list', '--format', 'json'], () => true);
  if (existsSync(${JSON.stringify(warmMock)})) {
    await cli.dispatch(['run', '--stdio', ${JSON.stringify(warmServer)}, '--call-tools', 'all', '--out-dir', ${JSON.stringify(warmOut)}], () => true);
  }
  writeFileSync(${JSON.stringify(cacheFile)}, cli.codeCache());
`,
  ],
  { cwd: outdir, env: warmEnv, encoding: 'utf8', stdio: ['ignore', 'ignore', 'pipe'], timeout: WARM_UP_TIMEOUT_MS },
);
rmSync(warmOut, { recursive: true, force: true });
// Only a speed-up: without it the CLI compiles cli.cjs at every start (test/cli-bundle.test.ts checks it is made).
// A warm-up that fails or does not end within WARM_UP_TIMEOUT_MS (ended then with SIGTERM) leaves no cache, not half of one.
if (warm.status !== 0) {
  rmSync(cacheFile, { force: true });
  const why =
    warm.error?.code === 'ETIMEDOUT'
      ? `it did not end within ${WARM_UP_TIMEOUT_MS / 1000} s`
      : (warm.error?.message ?? (warm.stderr.trim() || `exit ${warm.status ?? warm.signal}`));
  process.stderr.write(`scripts/bundle.mjs: no code cache for dist/cli/cli.cjs (the warm-up failed: ${why})\n`);
}
writeFileSync(
  entry,
  "#!/usr/bin/env node\n// The CLI, bundled by scripts/bundle.mjs (source: bin/mcp-conform.ts).\nimport '../cli/mcp-conform.js';\n",
);
