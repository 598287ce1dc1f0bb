/**
 * Provider compatibility, tool-definition quality and context cost: the rule table, the checker on fixtures (one per
 * error class, each flagged for exactly the providers that reject it), `lint`, `tools --format`, `list --rules`, and
 * the suites in a run on real servers.
 */
import { describe, expect, it } from 'vitest';
import { mkdtempSync, readFileSync, readdirSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import type { Tool } from '../core/tools.js';
import { checkProfile, implementedRules, listQuality, toolQuality } from '../suites/compat/check.js';
import { convertTools } from '../suites/compat/convert.js';
import { toolCosts } from '../suites/compat/cost.js';
import { PROFILES, PROVIDER_IDS, RULES, RULES_VERSION, type ProviderId } from '../suites/compat/rules.js';
import { compat as compatSuite } from '../suites/compat.js';
import { quality as qualitySuite } from '../suites/quality.js';
import { BIN, FILESYSTEM_SERVER, ROOT, cli, run } from './helpers/cli.js';

const DIR = join(ROOT, 'fixtures', 'compat');
interface Fixture {
  description: string;
  expect: Partial<Record<ProviderId, string[]>>;
  tools: Tool[];
}
const fixtures = Object.fromEntries(
  readdirSync(DIR)
    .filter((f) => f.endsWith('.json'))
    .map((f) => [f.replace(/\.json$/, ''), JSON.parse(readFileSync(join(DIR, f), 'utf8')) as Fixture]),
);
const ruleSet = (tools: Tool[], p: ProviderId) => [...new Set(checkProfile(tools, p).map((f) => f.rule))].sort();

describe('the rule table', () => {
  it('every rule has a source, a date checked and a checker; every profile names known rules', () => {
    expect(RULES_VERSION).toMatch(/^\d{4}-\d{2}-\d{2}$/);
    for (const r of Object.values(RULES)) {
      expect(r.sources.length, r.id).toBeGreaterThan(0);
      for (const s of r.sources) expect(s, r.id).toMatch(/^https:\/\//);
      expect(r.checked, r.id).toMatch(/^\d{4}-\d{2}-\d{2}$/);
    }
    expect(implementedRules().sort()).toEqual(Object.keys(RULES).sort());
    for (const p of PROFILES) for (const id of p.rules) expect(RULES[id], `${p.id}: ${id}`).toBeDefined();
    expect(PROFILES.filter((p) => p.default).map((p) => p.id)).toEqual(['openai', 'anthropic', 'bedrock', 'gemini']);
  });
});

describe('fixtures: each error class is flagged for exactly the providers that reject it', () => {
  for (const [name, fx] of Object.entries(fixtures)) {
    it(name, () => {
      for (const p of PROVIDER_IDS) expect(ruleSet(fx.tools, p), `${name} × ${p}`).toEqual((fx.expect[p] ?? []).sort());
    });
  }
  it('every provider message is filled in: no {placeholder} left', () => {
    for (const [name, fx] of Object.entries(fixtures)) {
      for (const p of PROVIDER_IDS)
        for (const f of checkProfile(fx.tools, p))
          expect(f.providerMessage ?? '', `${name} × ${f.rule}`).not.toMatch(/\{[a-z]+\}/);
    }
  });
  it('together they cover every rule of the table', () => {
    const covered = new Set(Object.values(fixtures).flatMap((f) => Object.values(f.expect).flat()));
    expect(Object.keys(RULES).filter((r) => !covered.has(r))).toEqual([]);
  });
  it("findings name the rule, the tool, a JSON pointer into it and the provider's own wording", () => {
    const [f] = checkProfile(fixtures['name-dot']!.tools, 'openai');
    expect(f).toMatchObject({
      rule: 'openai/name-pattern',
      tool: 'weather.get',
      pointer: '/name',
      severity: 'warn',
      kind: 'reject',
    });
    expect(f!.providerMessage).toBe(
      "Invalid 'tools[0].function.name': string does not match pattern. Expected a string that matches the pattern '^[a-zA-Z0-9_-]+$'.",
    );
    const [g] = checkProfile(fixtures['array-no-items']!.tools, 'gemini');
    expect(g!.pointer).toBe('/inputSchema/properties/p');
    expect(g!.providerMessage).toBe(
      'GenerateContentRequest.tools[0].function_declarations[0].parameters.properties[p].items: missing field.',
    );
    const [o] = checkProfile(fixtures['array-no-items']!.tools, 'openai');
    expect(o!.providerMessage).toBe(
      "Invalid schema for function 'get_weather': In context=('properties', 'p'), array schema missing items.",
    );
    // Named with --providers, a rejection fails; a degrade stays a warn.
    expect(checkProfile(fixtures['name-dot']!.tools, 'openai', { enforce: true })[0]!.severity).toBe('fail');
    expect(checkProfile(fixtures['description-missing']!.tools, 'bedrock', { enforce: true })[0]!.severity).toBe(
      'warn',
    );
  });
  it('bedrock/int-range points at every integer outside 32 bits, however deep (arrays, examples, escaped keys), and at nothing else (-2147483648 is inside)', () => {
    const tools: Tool[] = [
      {
        name: 'sizes',
        description: 'Sizes.',
        inputSchema: {
          type: 'object',
          properties: {
            n: {
              type: 'integer',
              maximum: 4294967296,
              minimum: -2147483648,
              exclusiveMinimum: -2147483649,
              enum: [1, 3000000000, 'x', null, [5, 9007199254740991]],
            },
            'a/b~c': { type: 'number', default: 2147483648.5, examples: [{ deep: -3000000000 }] },
          },
          required: ['n'],
        },
      },
    ];
    expect(checkProfile(tools, 'bedrock').map((f) => f.pointer)).toEqual([
      '/inputSchema/properties/n/maximum',
      '/inputSchema/properties/n/exclusiveMinimum',
      '/inputSchema/properties/n/enum/1',
      '/inputSchema/properties/n/enum/4/1',
      '/inputSchema/properties/a~1b~0c/examples/0/deep',
    ]);
  });
});

describe('quality and cost', () => {
  const tool = (over: Partial<Tool>): Tool => ({
    name: 'get_weather',
    description: 'Get the weather for a city.',
    inputSchema: { type: 'object', properties: { city: { type: 'string', description: 'City' } }, required: ['city'] },
    ...over,
  });
  const rules = (t: Tool) => toolQuality(t).map((f) => `${f.rule}:${f.severity}`);
  it('a clean tool has no finding; each defect its own', () => {
    expect(toolQuality(tool({}))).toEqual([]);
    expect(rules(tool({ description: undefined }))).toEqual(['quality/description-missing:warn']);
    expect(rules(tool({ description: 'Weather' }))).toEqual(['quality/description-short:info']);
    expect(rules(tool({ inputSchema: { type: 'object', properties: { city: { type: 'string' } } } }))).toEqual([
      'quality/param-description:info',
    ]);
    expect(
      rules(
        tool({
          inputSchema: {
            type: 'object',
            properties: { city: { type: 'string', description: 'c' } },
            required: ['city', 'zip'],
          },
        }),
      ),
    ).toEqual(['quality/required-unknown:warn']);
    expect(
      rules(
        tool({ inputSchema: { type: 'object', properties: { unit: { type: 'string', description: 'u', enum: [] } } } }),
      ),
    ).toEqual(['quality/enum-empty:warn']);
  });
  it('framework context objects leaking into inputSchema are parameters the model cannot fill', () => {
    const ctx = toolQuality(
      tool({
        inputSchema: {
          type: 'object',
          properties: { city: { type: 'string', description: 'c' }, ctx: { type: 'object', description: 'Context' } },
        },
      }),
    );
    expect(ctx.map((f) => f.rule)).toEqual(['quality/context-param']);
    expect(ctx[0]!.pointer).toBe('/inputSchema/properties/ctx');
    const wrapper = toolQuality(
      tool({
        inputSchema: {
          type: 'object',
          properties: { state: { type: 'object', description: 'The runtime wrapper injected by the framework' } },
        },
      }),
    );
    expect(wrapper.map((f) => f.rule)).toEqual(['quality/context-param']);
    // A text parameter called "context" is a real parameter: no finding.
    expect(
      toolQuality(
        tool({
          inputSchema: {
            type: 'object',
            properties: { context: { type: 'string', description: 'Extra context for the search' } },
          },
        }),
      ),
    ).toEqual([]);
  });
  it('names that differ only by case or separator; mixed conventions', () => {
    const l = listQuality([tool({ name: 'get_user' }), tool({ name: 'get-user' }), tool({ name: 'listItems' })]);
    expect(l.map((f) => `${f.rule}:${f.severity}`)).toEqual([
      'quality/name-collision:warn',
      'quality/naming-convention:info',
    ]);
    expect(l[0]!.message).toMatch(/"get_user" and "get-user"/);
    expect(listQuality([tool({ name: 'get_user' }), tool({ name: 'list_items' }), tool({ name: 'ping' })])).toEqual([]);
  });
  it('token cost with a real tokenizer (o200k_base): grows with the definition', async () => {
    const small = await toolCosts([tool({})]);
    const big = await toolCosts([tool({ description: 'Get the weather for a city. '.repeat(50) })]);
    expect(small.total).toBeGreaterThan(20);
    expect(small.total).toBeLessThan(80);
    expect(big.total - small.total).toBeGreaterThan(250); // 50 × the 7-token sentence
  });
});

describe('tools --format: the provider tool configuration, changed to fit', () => {
  it('openai: dotted names renamed, arrays given items, long descriptions cut; the result passes the profile', () => {
    const tools = [
      ...fixtures['name-dot']!.tools,
      ...fixtures['array-no-items']!.tools.map((t) => ({ ...t, name: 'tagged' })),
      ...fixtures['description-1025']!.tools.map((t) => ({ ...t, name: 'long' })),
    ];
    const c = convertTools(tools, 'openai');
    expect(c.remaining).toEqual([]);
    const cfg = c.config as {
      type: string;
      function: { name: string; description?: string; parameters: Record<string, unknown> };
    }[];
    expect(cfg.map((x) => x.function.name)).toEqual(['weather_get', 'tagged', 'long']);
    expect(cfg[2]!.function.description!.length).toBe(1024);
    expect(c.changes.map((x) => `${x.tool} ${x.pointer}`)).toEqual([
      'weather.get /name',
      'tagged /inputSchema/properties/p/items',
      'long /description',
    ]);
  });
  it('gemini: unknown keywords dropped, type lists become nullable, formats dropped, enums made strings', () => {
    const tools = [
      'dollar-schema',
      'type-list',
      'format-uri',
      'enum-integer',
      'const',
      'additional-properties',
    ].flatMap((k, i) => fixtures[k]!.tools.map((t) => ({ ...t, name: `t${i}` })));
    const c = convertTools(tools, 'gemini');
    expect(c.remaining).toEqual([]);
    expect(
      ruleSet(
        (c.config as { functionDeclarations: { name: string; parameters: unknown }[] }[])[0]!.functionDeclarations.map(
          (d) => ({ name: d.name, inputSchema: d.parameters }),
        ),
        'gemini',
      ),
    ).toEqual([]);
  });
  it('openai-strict: objects closed, optional properties required and nullable, refused keywords dropped; the result passes the strict profile', () => {
    const tool = {
      name: 'search',
      description: 'Search.',
      inputSchema: {
        type: 'object',
        properties: {
          q: { type: 'string', minLength: 1 },
          limit: { type: 'integer' },
          site: { type: 'string', format: 'uri' },
          filter: { type: 'object', properties: { lang: { type: 'string' } } },
          mode: { oneOf: [{ const: 'a' }, { const: 'b' }] },
        },
        required: ['q'],
      },
    };
    const c = convertTools([tool], 'openai-strict');
    expect(c.remaining).toEqual([]);
    const fn = (c.config as { function: { strict: boolean; parameters: Record<string, any> } }[])[0]!.function;
    expect(fn.strict).toBe(true);
    expect(fn.parameters.additionalProperties).toBe(false);
    expect(fn.parameters.required).toEqual(['q', 'limit', 'site', 'filter', 'mode']);
    expect(fn.parameters.properties.limit.type).toEqual(['integer', 'null']);
    expect(fn.parameters.properties.filter).toMatchObject({
      type: ['object', 'null'],
      additionalProperties: false,
      required: ['lang'],
    });
    expect(fn.parameters.properties.q.minLength).toBeUndefined();
    expect(fn.parameters.properties.site.format).toBeUndefined();
    expect(c.changes.map((x) => x.change)).toContain(
      'optional "limit" became required and nullable (strict mode has every property required: the model sends null for "not given", which the client drops before calling)',
    );
    expect(
      ruleSet(
        (c.config as { function: { name: string; parameters: unknown } }[]).map((x) => ({
          name: x.function.name,
          inputSchema: x.function.parameters,
        })),
        'openai-strict',
      ),
    ).toEqual([]);
  });
  it('gemini-json: JSON Schema kept as it is under parametersJsonSchema, only $schema dropped', () => {
    const tools = ['dollar-schema', 'type-list', 'format-uri', 'enum-integer'].flatMap((k, i) =>
      fixtures[k]!.tools.map((t) => ({ ...t, name: `t${i}` })),
    );
    const c = convertTools(tools, 'gemini-json');
    expect(c.remaining).toEqual([]);
    const decls = (
      c.config as { functionDeclarations: { name: string; parametersJsonSchema: Record<string, unknown> }[] }[]
    )[0]!.functionDeclarations;
    expect(decls.map((d) => d.name)).toEqual(['t0', 't1', 't2', 't3']);
    expect(JSON.stringify(decls)).not.toContain('$schema');
    expect(c.changes.every((x) => /\$schema/.test(x.change))).toBe(true);
    expect(decls[1]!.parametersJsonSchema).toEqual(fixtures['type-list']!.tools[0]!.inputSchema);
  });
  it('anthropic: a property name it refuses cannot be fixed by the client: listed as still refused', () => {
    const c = convertTools(fixtures['property-key-brackets']!.tools, 'anthropic');
    expect(c.remaining.map((f) => f.rule)).toEqual(['anthropic/property-key']);
  });
  it('from a live server (--stdio): server-everything as OpenAI tools, nothing to change', async () => {
    const r = await cli(['tools', '--format', 'openai', '--stdio', `${join(BIN, 'mcp-server-everything')} stdio`]);
    expect(r.code, r.stderr).toBe(0);
    const cfg = JSON.parse(r.stdout) as { type: string; function: { name: string } }[];
    expect(cfg.length).toBeGreaterThan(10);
    expect(cfg.every((t) => t.type === 'function' && /^[a-zA-Z0-9_-]+$/.test(t.function.name))).toBe(true);
    expect(r.stderr).toMatch(/as openai tool configuration; nothing had to change/);
  }, 60_000);
  it('takes every target option run takes: --start with --url, --env (and --cwd) for the server it starts', async () => {
    const { freePort } = await import('./http-helpers.js');
    const port = await freePort();
    const CLI = join(ROOT, 'dist', 'bin', 'mcp-conform.js');
    // --start + --url: the mock started on a free port, detected as Streamable HTTP; --env and --cwd reach it.
    const r = await cli(
      [
        'tools',
        '--format',
        'anthropic',
        '--start',
        `sh -c 'exec node ${CLI} serve --fixture "$FIXTURE" --http ${port}'`,
        '--env',
        'FIXTURE=calc.yaml',
        '--cwd',
        join(ROOT, 'fixtures', 'mocks'),
        '--url',
        `http://127.0.0.1:${port}/mcp`,
        '--start-timeout',
        '20000',
      ],
      { timeoutMs: 60_000 },
    );
    expect(r.code, r.stderr).toBe(0);
    expect((JSON.parse(r.stdout) as { name: string }[]).map((t) => t.name)).toContain('add');
    // The same rules as run: --cwd/--env without a server the harness starts is a usage error.
    const bad = await cli(['tools', '--format', 'openai', '--http', `http://127.0.0.1:${port}/mcp`, '--env', 'A=1']);
    expect(bad.code).toBe(2);
    expect(bad.stderr).toMatch(/--cwd and --env apply to a server the harness starts/);
  }, 90_000);
  it('run, snapshot and tools declare the target options once: the same flags with the same help text', async () => {
    const help = async (cmd: string) => (await cli([cmd, '--help'])).stdout.replace(/\s+/g, ' ');
    const [run_, snapshot, tools] = await Promise.all([help('run'), help('snapshot'), help('tools')]);
    for (const [flag, text] of [
      ['--stdio', 'Command that starts the server over stdio'],
      ['--url', 'Streamable HTTP is tried first'],
      ['--header', 'secret values are redacted'],
      ['--start', 'Command that starts the HTTP server'],
      ['--start-timeout', 'How long --start waits'],
      ['--cwd', 'Working directory'],
      ['--env', 'KEY=VALUE'],
    ] as const) {
      for (const [cmd, h] of [
        ['run', run_],
        ['snapshot', snapshot],
        ['tools', tools],
      ] as const) {
        expect(h, `${cmd} ${flag}`).toContain(`${flag} `);
        expect(h, `${cmd} ${flag}`).toContain(text);
      }
    }
  }, 30_000);
  it('from a Streamable HTTP server (--http): the mock serving fixtures/mocks/calc.yaml, as Anthropic tools', async () => {
    const { spawn } = await import('node:child_process');
    const serve = spawn(
      process.execPath,
      [
        join(ROOT, 'dist', 'bin', 'mcp-conform.js'),
        'serve',
        '--fixture',
        join(ROOT, 'fixtures', 'mocks', 'calc.yaml'),
        '--http',
        '0',
      ],
      { stdio: ['ignore', 'pipe', 'pipe'] },
    );
    try {
      const url = await new Promise<string>((res, rej) => {
        let out = '';
        const timer = setTimeout(() => rej(new Error(`serve printed no URL: ${out}`)), 15_000);
        const on = (b: Buffer) => {
          out += b;
          const m = /http:\/\/127\.0\.0\.1:\d+\/mcp/.exec(out);
          if (m) {
            clearTimeout(timer);
            res(m[0]);
          }
        };
        serve.stdout.on('data', on);
        serve.stderr.on('data', on);
      });
      const r = await cli(['tools', '--format', 'anthropic', '--http', url]);
      expect(r.code, r.stderr).toBe(0);
      const cfg = JSON.parse(r.stdout) as { name: string; input_schema: { type: string } }[];
      expect(cfg.map((t) => t.name)).toContain('add');
      expect(cfg.every((t) => t.input_schema.type === 'object')).toBe(true);
    } finally {
      serve.kill('SIGTERM');
    }
  }, 60_000);
  it('the CLI prints the configuration on stdout and the changes on stderr', async () => {
    const r = await cli(['tools', '--format', 'bedrock', '--file', join(DIR, 'description-empty.json')]);
    expect(r.code).toBe(0);
    const cfg = JSON.parse(r.stdout) as { tools: { toolSpec: Record<string, unknown> }[] };
    expect(cfg.tools[0]!.toolSpec.description).toBeUndefined();
    expect(r.stderr).toMatch(/left out the empty description/);
  });
});

describe('lint: the suites on a saved tool list, offline', () => {
  it('a clean list gets all pass (the opt-in profiles are not checked)', async () => {
    const out = mkdtempSync(join(tmpdir(), 'mcp-conform-lint-'));
    const r = await cli(['lint', join(DIR, 'clean.json'), '--reporter', 'json', '--out-dir', out, '--quiet']);
    expect(r.code, r.stderr).toBe(0);
    const rep = JSON.parse(readFileSync(join(out, 'report.json'), 'utf8')) as import('../core/results.js').Report;
    const cases = rep.suites.flatMap((s) => s.cases);
    const v = Object.fromEntries(cases.map((c) => [c.id, c.verdict]));
    expect(v).toEqual({
      'compat/openai': 'pass',
      'compat/anthropic': 'pass',
      'compat/bedrock': 'pass',
      'compat/gemini': 'pass',
      'quality/tools': 'pass',
      'quality/token-cost': 'info',
      'quality/result-size': 'skip',
      'security/poisoning': 'pass', // lint runs the security suite's poisoning rules too
    });
    expect(cases.find((c) => c.id === 'quality/token-cost')!.message).toMatch(/≈\d+ tokens \(o200k_base/);
  });
  it("warns by default; --providers makes the named profiles' rejections fail (exit 1) and leaves the others out", async () => {
    const file = join(DIR, 'name-dot.json');
    const d = await cli(['lint', file]);
    expect(d.code).toBe(0);
    expect(d.stdout).toMatch(/warn\s+compat\/openai\/weather\.get/);
    const out = mkdtempSync(join(tmpdir(), 'mcp-conform-lint-'));
    const p = await cli([
      'lint',
      file,
      '--providers',
      'openai,gemini',
      '--reporter',
      'json',
      '--out-dir',
      out,
      '--quiet',
    ]);
    expect(p.code).toBe(1);
    const cases = (
      JSON.parse(readFileSync(join(out, 'report.json'), 'utf8')) as import('../core/results.js').Report
    ).suites.flatMap((s) => s.cases);
    const v = Object.fromEntries(cases.filter((c) => c.id.startsWith('compat/')).map((c) => [c.id, c.verdict]));
    expect(v).toEqual({
      'compat/openai': 'fail',
      'compat/openai/weather.get': 'fail',
      'compat/gemini': 'pass',
    });
    expect(cases.find((c) => c.id === 'compat/openai/weather.get')!.message).toContain(
      "Expected a string that matches the pattern '^[a-zA-Z0-9_-]+$'",
    );
  });
  it("reads the config file (the current directory's, or --config): its providers and token bound apply, flags override them", async () => {
    const dir = mkdtempSync(join(tmpdir(), 'mcp-conform-lint-config-'));
    writeFileSync(
      join(dir, 'mcp-conform.config.yaml'),
      'targets:\n  - stdio: node server.js\nproviders: [openai]\nmaxToolTokens: 1\nreporters: [json]\noutDir: out\nquiet: true\n',
    );
    const file = join(DIR, 'name-dot.json');
    const r = await cli(['lint', file], { cwd: dir });
    expect(r.code).toBe(1);
    const v = (o: string) =>
      Object.fromEntries(
        (JSON.parse(readFileSync(join(o, 'report.json'), 'utf8')) as import('../core/results.js').Report).suites
          .flatMap((s) => s.cases)
          .map((c) => [c.id, c.verdict]),
      );
    expect(v(join(dir, 'out'))).toMatchObject({ 'compat/openai': 'fail', 'quality/token-cost': 'fail' });
    expect(Object.keys(v(join(dir, 'out')))).not.toContain('compat/gemini');
    // A flag given wins over the config; --config names another file.
    const other = join(dir, 'other.json');
    writeFileSync(
      other,
      JSON.stringify({
        targets: [{ stdio: 'node server.js' }],
        providers: ['gemini'],
        reporters: ['json'],
        outDir: 'out2',
        quiet: true,
      }),
    );
    const o = await cli(['lint', file, '--config', other, '--max-tool-tokens', '100000'], { cwd: dir });
    expect(o.code, o.stderr).toBe(0);
    expect(v(join(dir, 'out2'))).toMatchObject({ 'compat/gemini': 'pass', 'quality/token-cost': 'info' });
    expect(Object.keys(v(join(dir, 'out2')))).not.toContain('compat/openai');
    // A broken config file is a usage error.
    writeFileSync(join(dir, 'bad.json'), '{');
    expect((await cli(['lint', file, '--config', join(dir, 'bad.json')], { cwd: dir })).code).toBe(2);
  });
  it('reads the tools and the tool results of a recorded run: a cassette and a report.json', async () => {
    const dir = mkdtempSync(join(tmpdir(), 'mcp-conform-lint-'));
    const rec = await run(`python3 ${join(ROOT, 'fixtures', 'servers', 'calc.py')}`, [
      '--suite',
      'calling',
      '--record',
      join(dir, 'calc.jsonl'),
    ]);
    expect(rec.code).toBe(0);
    for (const file of [join(dir, 'calc.jsonl'), join(rec.outDir, 'report.json')]) {
      const out = mkdtempSync(join(tmpdir(), 'mcp-conform-lint-'));
      const r = await cli(['lint', file, '--reporter', 'json', '--out-dir', out]);
      expect(r.code, r.stderr).toBe(0);
      expect(r.stdout).toMatch(/calc \(lint: a saved tool list, no server\)/);
      const rep = JSON.parse(readFileSync(join(out, 'report.json'), 'utf8')) as import('../core/results.js').Report;
      expect(rep.server.toolCount).toBe(10);
      const size = rep.suites.flatMap((s) => s.cases).find((c) => c.id === 'quality/result-size')!;
      expect(size.verdict, file).toBe('info');
      expect((size.details as { results: { tool: string }[] }).results.map((x) => x.tool).sort()).toEqual([
        'add',
        'divide',
        'echo',
        'history',
        'multiply',
        'power',
        'round',
        'stats',
        'subtract',
      ]);
    }
  }, 60_000);
  it("counts the tool results the run counted: only the calling suite's calls, not the invalid-params, reference or unknown-tool ones", async () => {
    const dir = mkdtempSync(join(tmpdir(), 'mcp-conform-lint-'));
    const rec = await run(`python3 ${join(ROOT, 'fixtures', 'servers', 'calc.py')}`, [
      '--suite',
      'calling,invalid-params,unknown-tool,quality',
      '--record',
      join(dir, 'calc.jsonl'),
    ]);
    expect(rec.code, rec.stderr).toBe(0);
    const sizes = (rep: import('../core/results.js').Report) => {
      const c = rep.suites.flatMap((s) => s.cases).find((x) => x.id === 'quality/result-size')!;
      return { message: c.message, results: (c.details as { results: { tool: string; tokens: number }[] }).results };
    };
    const inRun = sizes(rec.report);
    // The run made other tools/calls (invalid arguments, an unknown tool): more calls than results counted.
    const calls = rec.report.messages.filter(
      (m) => m.direction === 'to-server' && (m.json as { method?: string } | undefined)?.method === 'tools/call',
    );
    expect(calls.length).toBeGreaterThan(inRun.results.length);
    const out = mkdtempSync(join(tmpdir(), 'mcp-conform-lint-'));
    const r = await cli(['lint', join(rec.outDir, 'report.json'), '--reporter', 'json', '--out-dir', out, '--quiet']);
    expect(r.code, r.stderr).toBe(0);
    const linted = sizes(
      JSON.parse(readFileSync(join(out, 'report.json'), 'utf8')) as import('../core/results.js').Report,
    );
    expect(linted).toEqual(inRun);
    // A cassette has no cases: every result of a listed tool that is not an error counts (see docs/compat.md).
    const out2 = mkdtempSync(join(tmpdir(), 'mcp-conform-lint-'));
    const r2 = await cli(['lint', join(dir, 'calc.jsonl'), '--reporter', 'json', '--out-dir', out2, '--quiet']);
    expect(r2.code, r2.stderr).toBe(0);
    const fromCassette = sizes(
      JSON.parse(readFileSync(join(out2, 'report.json'), 'utf8')) as import('../core/results.js').Report,
    );
    expect(fromCassette.results.length).toBeLessThan(calls.length);
    expect(fromCassette.results.length).toBeGreaterThanOrEqual(inRun.results.length);
  }, 90_000);
  it('--max-tool-tokens makes an expensive list fail; bad input is a usage error (exit 2)', async () => {
    expect((await cli(['lint', join(DIR, 'clean.json'), '--max-tool-tokens', '10', '--quiet'])).code).toBe(1);
    expect((await cli(['lint', join(DIR, 'clean.json'), '--max-tool-tokens', '100000', '--quiet'])).code).toBe(0);
    const bad = await cli(['lint', join(DIR, 'clean.json'), '--providers', 'openia']);
    expect(bad.code).toBe(2);
    expect(bad.stderr).toMatch(/unknown provider "openia"/);
    const dir = mkdtempSync(join(tmpdir(), 'mcp-conform-lint-'));
    writeFileSync(join(dir, 'x.json'), '{"hello": 1}');
    expect((await cli(['lint', join(dir, 'x.json')])).code).toBe(2);
    // An unknown flag is named as such, even when it swallows the file's place.
    for (const args of [
      ['lint', '--bogus', 'x'],
      ['lint', '--bogus', 'x', join(DIR, 'clean.json')],
    ]) {
      const r = await cli(args);
      expect(r.code, args.join(' ')).toBe(2);
      expect(r.stderr, args.join(' ')).toMatch(/unknown option --bogus of lint/);
    }
    const none = await cli(['lint']);
    expect(none.code).toBe(2);
    expect(none.stderr).toMatch(/lint: name the file/);
  });
});

describe('list --rules and the declared options', () => {
  it('list --rules shows every rule with its source and date; --format json is the table', async () => {
    const t = await cli(['list', '--rules']);
    expect(t.code).toBe(0);
    for (const id of Object.keys(RULES)) expect(t.stdout).toContain(id);
    expect(t.stdout).toContain(`checked ${RULES_VERSION}`);
    const j = JSON.parse((await cli(['list', '--rules', '--format', 'json'])).stdout) as {
      rulesVersion: string;
      rules: Record<string, unknown>;
    };
    expect(j.rulesVersion).toBe(RULES_VERSION);
    expect(Object.keys(j.rules).sort()).toEqual(Object.keys(RULES).sort());
  });
  it('every option the suite declares is a run flag and a config key of config.schema.json', async () => {
    const schema = JSON.parse(readFileSync(join(ROOT, 'config.schema.json'), 'utf8')) as {
      properties: Record<string, unknown>;
      definitions: { target: { properties: Record<string, unknown> } };
    };
    const help = (await cli(['run', '--help'])).stdout;
    const declared = [...compatSuite.options!, ...qualitySuite.options!];
    expect(declared.map((o) => o.flag)).toEqual(['providers', 'max-tool-tokens', 'max-result-tokens']);
    for (const o of declared) {
      expect(schema.properties[o.key], o.key).toBeDefined();
      expect(schema.definitions.target.properties[o.key], o.key).toBeDefined();
      expect(help).toContain(`--${o.flag}`);
    }
  });
  it('config keys providers / maxToolTokens become the run options; an unknown provider is a config error', async () => {
    const { planRuns, ConfigError } = await import('../lib/config.js');
    const dir = mkdtempSync(join(tmpdir(), 'mcp-conform-cfg-'));
    writeFileSync(
      join(dir, 'mcp-conform.config.json'),
      JSON.stringify({ targets: [{ stdio: 'x' }], providers: ['gemini', 'openai-strict'], maxToolTokens: 5000 }),
    );
    const plan = planRuns({}, [], dir);
    expect(plan.targets[0]!.argv.providers).toEqual(['gemini', 'openai-strict']);
    expect(plan.targets[0]!.argv['max-tool-tokens']).toBe(5000);
    writeFileSync(
      join(dir, 'mcp-conform.config.json'),
      JSON.stringify({ targets: [{ stdio: 'x' }], providers: ['openia'] }),
    );
    expect(() => planRuns({}, [], dir)).toThrow(ConfigError);
  });
  it('docs/compat.md documents the rule table (current), the flags and the commands', async () => {
    const page = readFileSync(join(ROOT, 'docs', 'compat.md'), 'utf8');
    const m = /<!-- rules:start[^>]*-->\n([\s\S]*?)<!-- rules:end -->/.exec(page);
    expect(m, 'docs/compat.md has the rule table between <!-- rules:start --> and <!-- rules:end -->').not.toBeNull();
    for (const id of Object.keys(RULES)) expect(m![1]).toContain(`\`${id}\``);
    const md = await cli(['list', '--rules', '--format', 'markdown']);
    expect(m![1], 'the rule table of docs/compat.md is out of date: run npm run docs:generate').toBe(md.stdout);
    for (const s of [
      '--providers',
      '--max-tool-tokens',
      '--max-result-tokens',
      'mcp-conform lint',
      'mcp-conform tools --format',
    ])
      expect(page).toContain(s);
  });
});

describe('the suite without tools', () => {
  it('a server without the tools capability: the default profiles skip, the opt-in ones leave no result', async () => {
    const { compat } = await import('../suites/compat.js');
    const ctx = {
      capabilities: {},
      option: (o: { default?: unknown }) => o.default,
      service: async () => {
        throw new Error('tools/list must not be sent');
      },
    } as unknown as import('../core/suite.js').CaseContext;
    const out: unknown[] = [];
    for (const c of compat.cases) {
      const o = await c.run(ctx);
      out.push(Array.isArray(o) ? o.length : o.verdict);
    }
    expect(out).toEqual(['skip', 0, 'skip', 0, 'skip', 0, 'skip', 0, 0, 0, 0, 0]);
  });
});

describe('in a run, on real servers', () => {
  it('server-everything: compat per provider, quality, token cost and result sizes of the tools called', async () => {
    const r = await run(`${join(BIN, 'mcp-server-everything')} stdio`, ['--suite', 'calling,compat,quality'], {
      timeoutMs: 120_000,
    });
    expect(r.code).toBe(0);
    const v = r.verdicts('compat/');
    expect(v['compat/openai']).toBe('pass');
    expect(v['compat/anthropic']).toBe('pass');
    expect(v['compat/bedrock']).toBe('pass');
    // zod's JSON Schema carries $schema (and format: uri): Gemini's parameters field refuses both.
    expect(v['compat/gemini']).toBe('warn');
    expect(r.c('compat/gemini/get-sum').message).toContain('Unknown name "$schema"');
    expect(r.c('quality/result-size').verdict).toBe('info');
    expect(r.c('quality/result-size').message).toMatch(/results? seen, largest ≈\d+ tokens/);
    expect(Object.values(v)).not.toContain('fail');
    const named = await run(`${join(BIN, 'mcp-server-everything')} stdio`, [
      '--suite',
      'compat',
      '--providers',
      'gemini',
    ]);
    expect(named.code).toBe(1);
    expect(named.c('compat/gemini').verdict).toBe('fail');
    expect(Object.keys(named.verdicts('compat/')).filter((id) => !id.startsWith('compat/gemini'))).toEqual([]);
  }, 120_000);

  it("server-filesystem and server-memory: accepted by OpenAI, Anthropic, Bedrock; Gemini's parameters refuse their $schema", async () => {
    const dir = mkdtempSync(join(tmpdir(), 'mcp-conform-compat-'));
    for (const cmd of [`${process.execPath} ${FILESYSTEM_SERVER} ${dir}`, join(BIN, 'mcp-server-memory')]) {
      const r = await run(cmd, ['--suite', 'compat', '--env', `MEMORY_FILE_PATH=${join(dir, 'memory.jsonl')}`]);
      const v = r.verdicts('compat/');
      expect([v['compat/openai'], v['compat/anthropic'], v['compat/bedrock'], v['compat/gemini']], cmd).toEqual([
        'pass',
        'pass',
        'pass',
        'warn',
      ]);
      const per = Object.keys(v).filter((id) => id.split('/').length > 2);
      expect(per.length).toBe(r.report.server.toolCount);
      expect(per.every((id) => id.startsWith('compat/gemini/'))).toBe(true);
      for (const id of per) {
        const fs = (r.c(id).details as { findings: { rule: string; pointer: string }[] }).findings;
        expect(
          fs.map((f) => `${f.rule} ${f.pointer}`),
          id,
        ).toEqual(['gemini/keyword /inputSchema/$schema']);
      }
    }
  }, 60_000);
});

describe('listedTools: the one reading of the tool list that listing, compat and quality share', () => {
  it('gives the tools, or a skip that says why there are none (with the messages of the attempt)', async () => {
    const { listedTools } = await import('../suites/helpers.js');
    const tool: Tool = { name: 'add', inputSchema: { type: 'object' } } as Tool;
    expect(await listedTools({ service: (async () => ({ tools: [tool], messageIds: [3] })) as never })).toEqual([tool]);
    expect(
      await listedTools({
        service: (async () => ({ tools: [], problem: 'tools/list answered -32601', messageIds: [4, 5] })) as never,
      }),
    ).toEqual({ verdict: 'skip', message: 'no tools to look at: tools/list answered -32601', messageIds: [4, 5] });
    // An empty list without a problem is a list (the cases say there is nothing to check).
    expect(await listedTools({ service: (async () => ({ tools: [], messageIds: [6] })) as never })).toEqual([]);
  });
});
