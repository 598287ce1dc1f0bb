/**
 * Work done for speed at scale that must not change what a run finds: the index of tool calls that
 * invalid-params reads, and suite warm-up (quality loads its tokenizer while the server starts).
 */
import { mkdtempSync, readFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { describe, expect, it } from 'vitest';
import { runConformance } from '../lib/conformance.js';
import type { ExchangeRecord, Suite } from '../core/suite.js';
import { firstToolCall, toolCallsOf } from '../core/tools.js';
import { quality } from '../suites/quality.js';
import { cli, py } from './helpers/cli.js';

describe('firstToolCall', () => {
  it('finds what a scan of every exchange finds, while the log grows', () => {
    const exchanges: ExchangeRecord[] = [];
    const ctx = { exchanges };
    const purposes = ['call', 'reference', 'missing-required', 'wrong-type', 'task'];
    const queries: [string, string[]][] = [
      ['a', ['call', 'reference']],
      ['b', ['missing-required']],
      ['c', ['call', 'reference']],
      ['a', ['wrong-type']],
      ['zz', ['call']],
    ];
    const check = () => {
      for (const [tool, ps] of queries) {
        expect(firstToolCall(ctx, tool, ps)).toBe(
          toolCallsOf(ctx).find((c) => c.tool === tool && ps.includes(c.purpose)),
        );
      }
    };
    check(); // empty log
    let n = 0;
    for (let round = 0; round < 40; round++) {
      // Tool calls of several tools and purposes, and exchanges that are not tool calls (or name no tool).
      const tool = ['a', 'b', 'c'][(n * 7) % 3]!;
      exchanges.push({ method: 'tools/call', tool, purpose: purposes[(n * 5) % purposes.length]!, caseId: 'x' });
      if (n % 4 === 0) exchanges.push({ method: 'ping', purpose: 'heartbeat', caseId: 'x' });
      if (n % 6 === 0) exchanges.push({ method: 'tools/call', purpose: 'malformed', caseId: 'x' });
      n++;
      if (round % 3 === 0) check(); // queried now and then, as the log grows between queries
    }
    check();
    expect(firstToolCall(ctx, 'a', ['call', 'reference'])).toBeDefined();
  });
});

describe('suite warm-up', () => {
  /** A suite that records when its warm-up ran and when its case ran. */
  function probe(events: string[]): Suite {
    return {
      id: 'warm',
      title: 'warm-up probe',
      description: '-',
      warmUp: () => {
        events.push('warm-up');
      },
      cases: [
        {
          id: 'warm/case',
          title: '-',
          level: 'MAY',
          spec: 'basic',
          requirement: '-',
          async run() {
            events.push('case');
            return { verdict: 'pass', message: 'ran' };
          },
        },
      ],
    };
  }

  it("runs once, before the first case, when the run will run one of the suite's cases", async () => {
    const events: string[] = [];
    const lifecycleFirst: Suite = {
      id: 'first',
      title: '-',
      description: '-',
      cases: [
        {
          id: 'first/case',
          title: '-',
          level: 'MAY',
          spec: 'basic',
          requirement: '-',
          async run() {
            events.push('first case');
            return { verdict: 'pass', message: 'ran' };
          },
        },
      ],
    };
    const r = await runConformance({ stdio: py('calc.py'), suites: [lifecycleFirst, probe(events)], timeout: 5000 });
    expect(r.suites.map((s) => s.id)).toEqual(['first', 'warm']);
    expect(events).toEqual(['warm-up', 'first case', 'case']);
  });

  it('does not run when the suite or its cases are not selected', async () => {
    const events: string[] = [];
    const other: Suite = {
      id: 'other',
      title: '-',
      description: '-',
      cases: [
        {
          id: 'other/case',
          title: '-',
          level: 'MAY',
          spec: 'basic',
          requirement: '-',
          async run() {
            return { verdict: 'pass', message: 'ran' };
          },
        },
      ],
    };
    const r = await runConformance({
      stdio: py('calc.py'),
      suites: [other, probe(events)],
      cases: ['other/case'],
      timeout: 5000,
    });
    expect(r.suites.find((s) => s.id === 'other')!.cases.map((c) => c.verdict)).toEqual(['pass']);
    expect(r.suites.find((s) => s.id === 'warm')!.cases).toEqual([]);
    expect(events).toEqual([]);
  });

  it('quality warms its tokenizer up, and counts the same with it', async () => {
    expect(quality.warmUp).toBeTypeOf('function');
    const r = await runConformance({ stdio: py('calc.py'), suites: ['quality'], timeout: 5000 });
    const cost = r.suites[0]!.cases.find((c) => c.id === 'quality/token-cost')!;
    const { countTokens } = await import('gpt-tokenizer/encoding/o200k_base');
    const { toolText } = await import('../suites/compat/cost.js');
    const listed = r.messages
      .filter((m) => m.method === 'tools/list' && m.direction === 'from-server')
      .flatMap((m) => (m.json as { result: { tools: { name: string }[] } }).result.tools);
    const perTool = (cost.details as { perTool: { tool: string; tokens: number }[] }).perTool;
    expect(perTool.length).toBe(listed.length);
    for (const t of listed) expect(perTool.find((x) => x.tool === t.name)!.tokens).toBe(countTokens(toolText(t)));
  });
});

describe("token counting in the CLI (the build's token table: suites/compat/cost.ts)", () => {
  it('counts the tool list and every tool result as gpt-tokenizer does in this thread', async () => {
    const dir = mkdtempSync(join(tmpdir(), 'mcp-conform-tokens-'));
    const r = await cli([
      'run',
      '--stdio',
      py('calc.py'),
      '--suite',
      'calling,quality',
      '--call-tools',
      'all',
      '--out-dir',
      dir,
      '--reporter',
      'json',
      '--quiet',
    ]);
    expect(r.code).toBe(0);
    type Case = { id: string; details?: Record<string, unknown> };
    const doc = JSON.parse(readFileSync(join(dir, 'report.json'), 'utf8')) as {
      messages: { direction: string; method?: string; kind: string; json: { result?: Record<string, unknown> } }[];
      suites: { cases: Case[] }[];
    };
    const cases = doc.suites.flatMap((x) => x.cases);
    const { countTokens } = await import('gpt-tokenizer/encoding/o200k_base');
    const { toolText, resultText } = await import('../suites/compat/cost.js');
    const listed = doc.messages
      .filter((m) => m.method === 'tools/list' && m.direction === 'from-server')
      .flatMap((m) => m.json.result!.tools as { name: string }[]);
    const perTool = cases.find((c) => c.id === 'quality/token-cost')!.details!.perTool as {
      tool: string;
      tokens: number;
    }[];
    expect(perTool.length).toBe(listed.length);
    for (const t of listed)
      expect(perTool.find((x) => x.tool === t.name)!.tokens).toBe(countTokens(toolText(t as never)));
    const results = cases.find((c) => c.id === 'quality/result-size')!.details!.results as {
      tool: string;
      tokens: number;
      chars: number;
    }[];
    const answers = doc.messages.filter(
      (m) => m.method === 'tools/call' && m.direction === 'from-server' && m.kind === 'response' && m.json.result,
    );
    expect(results.length).toBeGreaterThan(0);
    const expected = answers.map((m) => countTokens(resultText(m.json.result))).sort((a, b) => b - a);
    expect(results.map((x) => x.tokens)).toEqual(expected.slice(0, results.length));
  }, 60_000);
});

describe('--report-bodies', () => {
  type Msg = { seq: number; raw?: string; json?: unknown; rawChars?: number; kind: string; schema: unknown };
  type Doc = {
    options: Record<string, unknown>;
    messages: Msg[];
    suites: { cases: { id: string; verdict: string; message: string }[] }[];
  };
  async function runWith(bodies?: string): Promise<{ doc: Doc; file: string; code: number | null }> {
    const dir = mkdtempSync(join(tmpdir(), 'mcp-conform-bodies-'));
    const r = await cli([
      'run',
      '--stdio',
      py('calc.py'),
      '--out-dir',
      dir,
      '--reporter',
      'json',
      '--quiet',
      ...(bodies ? ['--report-bodies', bodies] : []),
    ]);
    const file = join(dir, 'report.json');
    return { doc: JSON.parse(readFileSync(file, 'utf8')) as Doc, file, code: r.code };
  }
  const verdicts = (d: Doc) => d.suites.flatMap((s) => s.cases.map((c) => `${c.id} ${c.verdict}`));

  it('full is the default: every message has its raw line and its json; none and truncated keep the rest of each message', async () => {
    const [full, none, cut] = await Promise.all([runWith(), runWith('none'), runWith('truncated')]);
    expect(full.doc.options.reportBodies).toBeUndefined();
    expect(full.doc.messages.every((m) => typeof m.raw === 'string' && m.rawChars === undefined)).toBe(true);
    expect(full.doc.messages.filter((m) => m.kind !== 'invalid').every((m) => m.json !== undefined)).toBe(true);

    // none: no raw, no json; seq, kind, schema verdicts stay; the verdicts are those of a full run
    expect(none.doc.options.reportBodies).toBe('none');
    expect(none.doc.messages.length).toBeGreaterThan(20);
    for (const m of none.doc.messages) {
      expect(m).not.toHaveProperty('raw');
      expect(m).not.toHaveProperty('json');
      expect(m.schema).toBeDefined();
    }
    expect(verdicts(none.doc)).toEqual(verdicts(full.doc));
    expect(none.code).toBe(full.code);

    // truncated: a line longer than 1024 characters (the 1 MB ping of robustness/large-request) is cut there, with
    // its length, and without json; shorter ones are whole
    expect(cut.doc.options.reportBodies).toBe('truncated');
    const long = cut.doc.messages.filter((m) => m.rawChars !== undefined);
    expect(long.length).toBeGreaterThan(0);
    for (const m of long) {
      expect(m.raw!.length).toBe(1024);
      expect(m.rawChars).toBeGreaterThan(1024);
      expect(m).not.toHaveProperty('json');
    }
    const short = cut.doc.messages.filter((m) => m.rawChars === undefined);
    expect(short.every((m) => typeof m.raw === 'string' && m.raw.length <= 1024)).toBe(true);
    expect(verdicts(cut.doc)).toEqual(verdicts(full.doc));

    // validate: a report without bodies is refused with the reason; a truncated one is checked except the cut messages
    const v1 = await cli(['validate', none.file]);
    expect(v1.code).toBe(2);
    expect(v1.stderr + v1.stdout).toMatch(/written with --report-bodies none: its messages carry no bodies to check/);
    const [v2, v3] = await Promise.all([cli(['validate', cut.file]), cli(['validate', full.file])]);
    expect(v2.stdout).toContain(`${long.length} messages cut by --report-bodies truncated are not checked`);
    const checked = (out: string) => Number(/: (\d+) messages checked against/.exec(out)?.[1]);
    expect(checked(v2.stdout)).toBe(checked(v3.stdout) - long.length);
    expect(v3.stdout).not.toContain('--report-bodies');
  }, 60_000);

  it('an unknown value is a usage error', async () => {
    const r = await cli(['run', '--stdio', py('calc.py'), '--report-bodies', 'some', '--quiet']);
    expect(r.code).toBe(2);
    expect(r.stderr).toMatch(/report-bodies/);
  });
});
