/**
 * The house's structure holds: each top-level source folder imports only the layers below it (see
 * ../shared/docs/design.md and docs/developing.md), and no hand-written module grows past 800 lines.
 *
 *   bin/, index.ts   the commands and the library entry: may use everything
 *   lib/             composes the engine with suites, reporters, mocks and client grading (runConformance, config, validate)
 *   clients/         client grading (client suites, the grader): the engine and the mocks
 *   suites/          server cases: the engine only (never a reporter, a mock or client grading)
 *   reports/         readers of results: the engine only
 *   mocks/           replay and serve, judge nothing: the engine only
 *   core/            the engine: nothing above it
 *
 * Every import counts: static, `import type`, re-exports, dynamic `import()` and inline `import('…').Type`.
 */
import { describe, expect, it } from 'vitest';
import { readdirSync, readFileSync, statSync } from 'node:fs';
import { dirname, join, normalize, relative } from 'node:path';
import { ROOT } from './helpers/cli.js';

/** What each layer may import besides itself. A new top-level source folder must be added here, on purpose. */
export const LAYERS: Record<string, readonly string[]> = {
  core: [],
  mocks: ['core'],
  reports: ['core'],
  suites: ['core'],
  clients: ['core', 'mocks'],
  lib: ['core', 'suites', 'reports', 'mocks', 'clients'],
  vitest: ['core', 'suites', 'reports', 'lib', 'index.ts'],
  bin: ['core', 'suites', 'reports', 'mocks', 'clients', 'lib', 'index.ts'],
  'index.ts': ['core', 'suites', 'reports', 'mocks', 'clients', 'lib'],
};

const MAX_LINES = 800;
const IMPORT = /(?:\bfrom\s*|\bimport\s*\(\s*|\bimport\s+)['"](\.{1,2}\/[^'"]+)['"]/g;

function sourceFiles(dir: string): string[] {
  const out: string[] = [];
  for (const name of readdirSync(dir)) {
    const p = join(dir, name);
    if (statSync(p).isDirectory()) out.push(...sourceFiles(p));
    else if (/\.ts$/.test(name) && !/\.d\.ts$/.test(name)) out.push(p);
  }
  return out;
}

/** The source folders the build compiles (tsconfig.json `include`), as layer names. */
function compiledLayers(): string[] {
  const tsconfig = JSON.parse(readFileSync(join(ROOT, 'tsconfig.json'), 'utf8')) as { include: string[] };
  return tsconfig.include.map((g) => g.split('/')[0]!).filter((l, i, a) => a.indexOf(l) === i);
}

const layerOf = (file: string) => relative(ROOT, file).split('/')[0]!;

/** Every relative import of a file: [specifier, the layer it lands in]. */
export function importsOf(file: string, text = readFileSync(file, 'utf8')): { spec: string; layer: string }[] {
  return [...text.matchAll(IMPORT)].map((m) => ({ spec: m[1]!, layer: layerOf(normalize(join(dirname(file), m[1]!))) }));
}

function existingLayers(): string[] {
  return compiledLayers().filter((l) => { try { statSync(join(ROOT, l)); return true; } catch { return false; } });
}

function filesOf(layer: string): string[] {
  return layer.endsWith('.ts') ? [join(ROOT, layer)] : sourceFiles(join(ROOT, layer));
}

describe('layers', () => {
  it('every source folder the build compiles has a place in the layer table', () => {
    const unknown = compiledLayers().filter((l) => !(l in LAYERS));
    expect(unknown, `add these to LAYERS in test/layers.test.ts, with what they may import: ${unknown.join(', ')}`).toEqual([]);
  });

  it('no import points up: each layer imports only the layers below it', () => {
    const wrong: string[] = [];
    for (const layer of existingLayers()) {
      for (const file of filesOf(layer)) {
        for (const { spec, layer: to } of importsOf(file)) {
          if (to === layer || LAYERS[layer]?.includes(to)) continue;
          wrong.push(`${relative(ROOT, file)} imports ${spec} (${layer} → ${to})`);
        }
      }
    }
    expect(wrong, wrong.join('\n')).toEqual([]);
  });

  it(`no hand-written module is longer than ${MAX_LINES} lines`, () => {
    const long = existingLayers().flatMap(filesOf)
      .map((f) => ({ f: relative(ROOT, f), n: readFileSync(f, 'utf8').split('\n').length - 1 }))
      .filter(({ n }) => n > MAX_LINES)
      .map(({ f, n }) => `${f}: ${n} lines`);
    expect(long, long.join('\n')).toEqual([]);
  });

  it('the checker sees every kind of import (so that the rules above can fail)', () => {
    const file = join(ROOT, 'core', 'example.ts');
    const text = [
      "import { a } from '../suites/a.js';",
      "import type { B } from '../reports/b.js';",
      "export { c } from '../mocks/c.js';",
      "const d = await import('../bin/d.js');",
      "let e: import('../clients/e.js').E;",
      "import './side-effect.js';",
      "import { f } from 'node:fs';",
    ].join('\n');
    expect(importsOf(file, text).map((i) => i.layer)).toEqual(['suites', 'reports', 'mocks', 'bin', 'clients', 'core']);
  });
});
