/**
 * The house's structure holds: each top-level source folder imports only the layers below it (see
 * ../shared/docs/design.md and docs/developing.md), and no hand-written module grows past 800 lines.
 *
 *   bin/, index.ts   the commands and the library entry: may use everything
 *   vitest/          the vitest integration: lib/ and the library entry only (a thin layer over what any runner needs)
 *   lib/             composes the engine with suites, reporters, mocks and client grading (runConformance, config, validate)
 *   clients/         client grading (client suites, the grader): the engine and the mocks
 *   suites/          server cases: the engine only (never a reporter, a mock or client grading)
 *   reports/         readers of results: the engine only
 *   mocks/           replay and serve, judge nothing: the engine only
 *   core/            the engine: nothing above it
 *
 * Inside core/ the same holds between its layers (CORE_LAYERS below; docs/developing.md explains them), and nowhere in
 * the source does an import cycle close, type imports included.
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
  vitest: ['lib', 'index.ts'],
  bin: ['core', 'suites', 'reports', 'mocks', 'clients', 'lib', 'index.ts'],
  'index.ts': ['core', 'suites', 'reports', 'mocks', 'clients', 'lib'],
};

/**
 * The layers inside core/, bottom first: a file imports only files of its own layer or a lower one. Each entry lists
 * path prefixes under core/ (a folder ends with '/'); every file of core/ must match exactly one.
 */
export const CORE_LAYERS: readonly { layer: string; files: readonly string[] }[] = [
  {
    layer: 'model',
    files: [
      'results.ts',
      'text.ts',
      'log.ts',
      'options.ts',
      'inputs.ts',
      'objects.ts',
      'schema-keywords.ts',
      'urls.ts',
      'wire.ts',
      'version.ts',
      'schema/versions.ts',
      'features.ts',
      'client-capabilities.ts',
      'client-info.ts',
      'transport/types.ts',
      'headers.ts',
      'redact.ts',
      'secrets.ts',
      'shell-words.ts',
      'shard.ts',
      'pool.ts',
      'param-headers.ts',
      'published/types.ts',
      'suggest.ts',
    ],
  },
  {
    layer: 'checks',
    files: [
      'schema/',
      'schema-words.ts',
      'jsonschema.ts',
      'args/',
      'surface/snapshot.ts',
      'surface/diff.ts',
      'surface/rules.ts',
      'surface/schema-diff.ts',
      'surface/render.ts',
    ],
  },
  {
    layer: 'io',
    files: [
      'processes.ts',
      'start.ts',
      'url-sink.ts',
      'transport/',
      'auth/',
      'formats/',
      'published/',
      'baseline.ts',
      'canaries.ts',
      'canary-listener.ts',
      'served-folder.ts',
    ],
  },
  {
    layer: 'protocol',
    files: [
      'session.ts',
      'session-types.ts',
      'probe.ts',
      'negotiate.ts',
      'listing.ts',
      'listen.ts',
      'tasks.ts',
      'input-answers.ts',
    ],
  },
  { layer: 'case-api', files: ['suite.ts', 'applies.ts', 'services.ts', 'environment.ts'] },
  {
    layer: 'run-services',
    files: ['tools.ts', 'call-policy.ts', 'mrtr.ts', 'surface.ts', 'surface/collect.ts', 'concurrency/', 'load/'],
  },
  {
    layer: 'engine',
    files: ['context.ts', 'run-options.ts', 'run-cases.ts', 'run.ts', 'eras.ts', 'finalize.ts', 'start-failure.ts'],
  },
  { layer: 'commands', files: ['surface/cli.ts'] },
];

/** The core layer of a file (a path under core/, relative to it), by the longest prefix that matches. */
export function coreLayerOf(path: string): number {
  let best = -1;
  let len = -1;
  CORE_LAYERS.forEach((l, i) => {
    for (const f of l.files)
      if ((f.endsWith('/') ? path.startsWith(f) : path === f) && f.length > len) {
        best = i;
        len = f.length;
      }
  });
  return best;
}

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

/** The files (relative to ROOT, .ts) a file's relative imports name, where such a source file exists. */
function importedFiles(file: string, text = readFileSync(file, 'utf8')): string[] {
  return [...text.matchAll(IMPORT)].flatMap((m) => {
    const base = normalize(join(dirname(file), m[1]!)).replace(/\.js$/, '');
    const found = [`${base}.ts`, join(base, 'index.ts')].find((f) => {
      try {
        return statSync(f).isFile();
      } catch {
        return false;
      }
    });
    return found ? [relative(ROOT, found)] : [];
  });
}

/** Every import cycle among the given files (relative paths → the files they import): each as its files, sorted. */
export function importCycles(graph: ReadonlyMap<string, readonly string[]>): string[][] {
  // Tarjan's strongly connected components; a component of more than one file, or a file importing itself, is a cycle.
  let next = 0;
  const index = new Map<string, number>();
  const low = new Map<string, number>();
  const stack: string[] = [];
  const onStack = new Set<string>();
  const cycles: string[][] = [];
  const visit = (v: string) => {
    index.set(v, next);
    low.set(v, next++);
    stack.push(v);
    onStack.add(v);
    for (const w of graph.get(v) ?? []) {
      if (!graph.has(w)) continue;
      if (!index.has(w)) {
        visit(w);
        low.set(v, Math.min(low.get(v)!, low.get(w)!));
      } else if (onStack.has(w)) low.set(v, Math.min(low.get(v)!, index.get(w)!));
    }
    if (low.get(v) === index.get(v)) {
      const c: string[] = [];
      let w: string;
      do {
        w = stack.pop()!;
        onStack.delete(w);
        c.push(w);
      } while (w !== v);
      if (c.length > 1 || (graph.get(v) ?? []).includes(v)) cycles.push(c.sort());
    }
  };
  for (const v of graph.keys()) if (!index.has(v)) visit(v);
  return cycles;
}

/** Every relative import of a file: [specifier, the layer it lands in]. */
export function importsOf(file: string, text = readFileSync(file, 'utf8')): { spec: string; layer: string }[] {
  return [...text.matchAll(IMPORT)].map((m) => ({
    spec: m[1]!,
    layer: layerOf(normalize(join(dirname(file), m[1]!))),
  }));
}

function existingLayers(): string[] {
  return compiledLayers().filter((l) => {
    try {
      statSync(join(ROOT, l));
      return true;
    } catch {
      return false;
    }
  });
}

function filesOf(layer: string): string[] {
  return layer.endsWith('.ts') ? [join(ROOT, layer)] : sourceFiles(join(ROOT, layer));
}

describe('layers', () => {
  it('every source folder the build compiles has a place in the layer table', () => {
    const unknown = compiledLayers().filter((l) => !(l in LAYERS));
    expect(
      unknown,
      `add these to LAYERS in test/layers.test.ts, with what they may import: ${unknown.join(', ')}`,
    ).toEqual([]);
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

  it('no import cycle anywhere in the source, type imports included', () => {
    const graph = new Map(
      existingLayers()
        .flatMap(filesOf)
        .map((f) => [relative(ROOT, f), importedFiles(f)] as const),
    );
    const cycles = importCycles(graph).map((c) => {
      const inCycle = new Set(c);
      const edges = c.flatMap((f) =>
        graph
          .get(f)!
          .filter((t) => inCycle.has(t))
          .map((t) => `  ${f} → ${t}`),
      );
      return `a cycle of ${c.length} files:\n${edges.join('\n')}`;
    });
    expect(cycles, cycles.join('\n')).toEqual([]);
  });

  it('inside core/, every file has a layer and imports only its own layer or lower ones', () => {
    const unplaced: string[] = [];
    const wrong: string[] = [];
    for (const file of filesOf('core')) {
      const from = relative(join(ROOT, 'core'), file);
      const mine = coreLayerOf(from);
      if (mine < 0) {
        unplaced.push(`core/${from}`);
        continue;
      }
      for (const to of importedFiles(file)) {
        if (!to.startsWith('core/')) continue;
        const theirs = coreLayerOf(to.slice('core/'.length));
        if (theirs > mine)
          wrong.push(`core/${from} (${CORE_LAYERS[mine]!.layer}) imports ${to} (${CORE_LAYERS[theirs]!.layer})`);
      }
    }
    expect(unplaced, `give these files a layer in CORE_LAYERS (test/layers.test.ts): ${unplaced.join(', ')}`).toEqual(
      [],
    );
    expect(wrong, wrong.join('\n')).toEqual([]);
  });

  it('the cycle and core-layer checks can fail', () => {
    const graph = new Map<string, string[]>([
      ['a.ts', ['b.ts']],
      ['b.ts', ['c.ts']],
      ['c.ts', ['a.ts']],
      ['d.ts', ['a.ts']],
      ['e.ts', ['e.ts']],
    ]);
    expect(importCycles(graph)).toEqual([['a.ts', 'b.ts', 'c.ts'], ['e.ts']]);
    expect(
      importCycles(
        new Map([
          ['a.ts', ['b.ts']],
          ['b.ts', []],
        ]),
      ),
    ).toEqual([]);
    expect(coreLayerOf('session.ts')).toBeLessThan(coreLayerOf('suite.ts'));
    expect(coreLayerOf('transport/http.ts')).toBe(CORE_LAYERS.findIndex((l) => l.layer === 'io'));
    expect(coreLayerOf('no-such-file.ts')).toBe(-1);
  });

  it(`no hand-written module is longer than ${MAX_LINES} lines`, () => {
    const long = existingLayers()
      .flatMap(filesOf)
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
