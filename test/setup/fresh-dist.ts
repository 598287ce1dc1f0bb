/**
 * Vitest global setup of the `cli` and `peers` projects: their tests drive the built CLI (dist/), so a dist/ older
 * than the sources would test yesterday's code. `npm run test:cli`, `test:peers` and `npm test` build first; a bare
 * `npx vitest run test/x.test.ts` of such a file stops here, before any test, with what to run — unless dist/ is at
 * least as new as every source file and build script.
 */
import { existsSync, readdirSync, statSync } from 'node:fs';
import { join, relative, resolve } from 'node:path';

const ROOT = resolve(import.meta.dirname, '..', '..');
/** What the build reads: tsc's inputs (tsconfig.json `include`) and the scripts of `npm run build`. */
const SOURCES = [
  'index.ts',
  'bin',
  'core',
  'suites',
  'reports',
  'mocks',
  'clients',
  'lib',
  'vitest',
  'tsconfig.json',
  ...['precompile-schemas.mjs', 'precompile-tokenizer.mjs', 'bundle.mjs', 'make-executable.mjs'].map((f) =>
    join('scripts', f),
  ),
];

/** The newest source file and its modification time. */
export function newestSource(root = ROOT): { file: string; mtimeMs: number } {
  let newest = { file: '', mtimeMs: 0 };
  const visit = (path: string) => {
    const st = statSync(path, { throwIfNoEntry: false });
    if (!st) return;
    if (st.isDirectory()) {
      for (const name of readdirSync(path)) visit(join(path, name));
    } else if (/\.(ts|mts|mjs|cjs|js|json)$/.test(path) && !path.endsWith('.d.ts') && st.mtimeMs > newest.mtimeMs) {
      newest = { file: relative(root, path), mtimeMs: st.mtimeMs };
    }
  };
  for (const s of SOURCES) visit(join(root, s));
  return newest;
}

/** Why dist/ cannot be trusted, or undefined when it is as new as the sources. */
export function staleDist(root = ROOT): string | undefined {
  // the last file `npm run build` writes (scripts/bundle.mjs; make-executable.mjs only sets its mode)
  const built = join(root, 'dist', 'bin', 'mcp-conform.js');
  if (!existsSync(built)) return 'dist/ is missing: these tests run the built CLI';
  const builtAt = statSync(built).mtimeMs;
  const src = newestSource(root);
  if (src.mtimeMs > builtAt) {
    return `dist/ is older than the sources (${src.file} changed ${Math.round((src.mtimeMs - builtAt) / 1000)} s after the last build): these tests run the built CLI`;
  }
  return undefined;
}

export default function setup(): void {
  if (process.env.MCP_CONFORM_STALE_DIST_OK === '1') return;
  const why = staleDist();
  if (why) {
    throw new Error(
      `${why}.\nRun \`npm run build\` first (npm test, npm run test:cli and npm run test:peers do), ` +
        'or `npm run test:unit` for the tests that need no build. (MCP_CONFORM_STALE_DIST_OK=1 runs them anyway.)',
    );
  }
}
