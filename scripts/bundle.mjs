// After tsc: bundle the CLI (dist/bin/mcp-conform.js and everything it imports, yargs, ajv and yaml included) into
// dist/cli/, one chunk per group of lazily imported modules, and make dist/bin/mcp-conform.js a two-line entry that
// loads it. A run loads ~15 files instead of ~400 (module resolution, file reads and the ESM linker were ~100 ms of
// CPU of a small run); the modules a command does not use are still not loaded (the dynamic imports stay chunks).
// The library (dist/index.js and the rest of dist/) stays as tsc wrote it.
//
// Left out of the bundle: gpt-tokenizer (2.4 MB of token ranks, loaded from node_modules when the quality suite
// counts tokens) and msw (only the ./msw export, not the CLI, uses it).
//
// Every file of the bundle lies two levels below the package root, as every file tsc writes does, so the paths the
// code resolves from import.meta.url (package.json, config.schema.json, fixtures/mocks/…, ../bin/mcp-conform.js) are
// the same.
import { build } from 'esbuild';
import { cpSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import { createRequire } from 'node:module';
import { dirname, join, relative } from 'node:path';
import { fileURLToPath } from 'node:url';

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
      if (!text.includes(from)) throw new Error(`${args.path}: yargs no longer reads its locales from ${from}: update scripts/bundle.mjs`);
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
      return { path: relative(root, args.importer), namespace: 'lazy-string-width', pluginData: { resolveDir: args.resolveDir } };
    });
    b.onLoad({ filter: /.*/, namespace: 'lazy-string-width' }, (args) => ({
      contents: "let real;\nexport default function stringWidth(string, options) {\n  real ??= require('string-width').default;\n  return real(string, options);\n}\n",
      resolveDir: args.pluginData.resolveDir,
      loader: 'js',
    }));
  },
};

const source = readFileSync(entry, 'utf8');
if (!source.includes('function main(')) throw new Error(`${entry} is not tsc's output of bin/mcp-conform.ts: run tsc first`);
rmSync(outdir, { recursive: true, force: true });
await build({
  entryPoints: { 'mcp-conform': entry },
  outdir,
  bundle: true,
  splitting: true,
  format: 'esm',
  platform: 'node',
  target: 'node20',
  external: ['gpt-tokenizer', 'gpt-tokenizer/*', 'msw', 'msw/*'],
  // Some bundled dependencies are CommonJS and call require() (of node: modules): give the ESM chunks one.
  banner: { js: "import { createRequire as __mcpConformRequire } from 'node:module'; const require = __mcpConformRequire(import.meta.url);" },
  chunkNames: '[name]-[hash]',
  // Less text for V8 to scan at every start (~10 ms of a run's CPU); names stay, so stack traces still name functions.
  minifyWhitespace: true,
  minifySyntax: true,
  logLevel: 'warning',
  plugins: [yargsLocales, lazyStringWidth],
});
cpSync(join(yargsDir, 'locales'), join(outdir, 'yargs-locales'), { recursive: true });
writeFileSync(entry, "#!/usr/bin/env node\n// The CLI, bundled by scripts/bundle.mjs (source: bin/mcp-conform.ts).\nimport '../cli/mcp-conform.js';\n");
