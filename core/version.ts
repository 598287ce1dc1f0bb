import { createRequire } from 'node:module';

const require = createRequire(import.meta.url);
/** The package version, read from package.json (two levels up from dist/core, one from core). */
export const VERSION: string = (() => {
  for (const p of ['../../package.json', '../package.json']) {
    try {
      const pkg = require(p) as { name?: string; version?: string };
      if (pkg.name === 'mcp-conform' && pkg.version) return pkg.version;
    } catch {
      /* try the next */
    }
  }
  return '0.0.0';
})();
