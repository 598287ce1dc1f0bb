/**
 * Work done for speed at scale (issue 17) that must not change what a run finds: the index of tool calls that
 * invalid-params reads, and suite warm-up (quality loads its tokenizer while the server starts).
 */
import { describe, expect, it } from 'vitest';
import { runConformance } from '../core/conformance.js';
import type { ExchangeRecord, Suite } from '../core/suite.js';
import { firstToolCall, toolCallsOf } from '../core/tools.js';
import { quality } from '../suites/quality.js';
import { py } from './helpers/cli.js';

describe('firstToolCall', () => {
  it('finds what a scan of every exchange finds, while the log grows', () => {
    const exchanges: ExchangeRecord[] = [];
    const ctx = { exchanges };
    const purposes = ['call', 'reference', 'missing-required', 'wrong-type', 'task'];
    const queries: [string, string[]][] = [['a', ['call', 'reference']], ['b', ['missing-required']], ['c', ['call', 'reference']], ['a', ['wrong-type']], ['zz', ['call']]];
    const check = () => {
      for (const [tool, ps] of queries) {
        expect(firstToolCall(ctx, tool, ps)).toBe(toolCallsOf(ctx).find((c) => c.tool === tool && ps.includes(c.purpose)));
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
      warmUp: () => { events.push('warm-up'); },
      cases: [{ id: 'warm/case', title: '-', level: 'MAY', spec: 'basic', requirement: '-', async run() { events.push('case'); return { verdict: 'pass', message: 'ran' }; } }],
    };
  }

  it('runs once, before the first case, when the run will run one of the suite\'s cases', async () => {
    const events: string[] = [];
    const lifecycleFirst: Suite = { id: 'first', title: '-', description: '-', cases: [{ id: 'first/case', title: '-', level: 'MAY', spec: 'basic', requirement: '-', async run() { events.push('first case'); return { verdict: 'pass', message: 'ran' }; } }] };
    const r = await runConformance({ stdio: py('calc.py'), suites: [lifecycleFirst, probe(events)], timeout: 5000 });
    expect(r.suites.map((s) => s.id)).toEqual(['first', 'warm']);
    expect(events).toEqual(['warm-up', 'first case', 'case']);
  });

  it('does not run when the suite or its cases are not selected', async () => {
    const events: string[] = [];
    const other: Suite = { id: 'other', title: '-', description: '-', cases: [{ id: 'other/case', title: '-', level: 'MAY', spec: 'basic', requirement: '-', async run() { return { verdict: 'pass', message: 'ran' }; } }] };
    const r = await runConformance({ stdio: py('calc.py'), suites: [other, probe(events)], cases: ['other/case'], timeout: 5000 });
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
    const listed = r.messages.filter((m) => m.method === 'tools/list' && m.direction === 'from-server').flatMap((m) => ((m.json as { result: { tools: { name: string }[] } }).result.tools));
    const perTool = (cost.details as { perTool: { tool: string; tokens: number }[] }).perTool;
    expect(perTool.length).toBe(listed.length);
    for (const t of listed) expect(perTool.find((x) => x.tool === t.name)!.tokens).toBe(countTokens(toolText(t)));
  });
});
