/**
 * The order in which the runner does a run's work (core/run-cases.ts), where it differs from "one case after the
 * other" to save time: a case collected at the end of its suite (CaseDef.offSession) and the start hooks
 * (CaseDef.start) run after the early work (CaseDef.early). What the report shows stays in the suites' order.
 */
import { describe, expect, it } from 'vitest';
import { runConformance } from '../lib/conformance.js';
import type { CaseDef, Suite } from '../core/suite.js';
import { py } from './helpers/cli.js';

const base = { level: 'MAY' as const, spec: 'basic', requirement: '-' };

describe('a case collected at the end of its suite (offSession)', () => {
  it('lets the next cases run while it waits, and keeps its place in the report', async () => {
    const events: string[] = [];
    let release!: () => void;
    // (Released by the last case; by a timer too, so that a runner that awaits the case at its turn fails the test
    // instead of waiting forever.)
    const released = new Promise<void>((r) => {
      release = r;
      setTimeout(r, 2000);
    });
    const cases: CaseDef[] = [
      {
        id: 'order/first',
        title: '-',
        ...base,
        async run() {
          events.push('first');
          return { verdict: 'pass', message: 'first' };
        },
      },
      {
        id: 'order/waits',
        title: '-',
        ...base,
        offSession: () => true,
        async run() {
          events.push('waits: begins');
          await released;
          events.push('waits: ends');
          return { verdict: 'info', message: 'waited' };
        },
      },
      {
        id: 'order/next',
        title: '-',
        ...base,
        async run() {
          events.push('next');
          return { verdict: 'pass', message: 'next' };
        },
      },
      {
        id: 'order/last',
        title: '-',
        ...base,
        async run() {
          events.push('last');
          release();
          return { verdict: 'warn', message: 'last' };
        },
      },
    ];
    const after: Suite = {
      id: 'after',
      title: '-',
      description: '-',
      cases: [
        {
          id: 'after/one',
          title: '-',
          ...base,
          async run() {
            events.push('next suite');
            return { verdict: 'pass', message: 'after' };
          },
        },
      ],
    };
    const r = await runConformance({
      stdio: py('calc.py'),
      suites: [{ id: 'order', title: '-', description: '-', cases }, after],
      timeout: 5000,
    });
    expect(events).toEqual(['first', 'waits: begins', 'next', 'last', 'waits: ends', 'next suite']);
    expect(r.suites[0]!.cases.map((c) => [c.id, c.verdict])).toEqual([
      ['order/first', 'pass'],
      ['order/waits', 'info'],
      ['order/next', 'pass'],
      ['order/last', 'warn'],
    ]);
  });

  it('is awaited at its turn when offSession says no', async () => {
    const events: string[] = [];
    const cases: CaseDef[] = [
      {
        id: 'order/waits',
        title: '-',
        ...base,
        offSession: () => false,
        async run() {
          events.push('waits: begins');
          await new Promise((r) => setTimeout(r, 20));
          events.push('waits: ends');
          return { verdict: 'pass', message: 'waited' };
        },
      },
      {
        id: 'order/next',
        title: '-',
        ...base,
        async run() {
          events.push('next');
          return { verdict: 'pass', message: 'next' };
        },
      },
    ];
    await runConformance({
      stdio: py('calc.py'),
      suites: [{ id: 'order', title: '-', description: '-', cases }],
      timeout: 5000,
    });
    expect(events).toEqual(['waits: begins', 'waits: ends', 'next']);
  });
});

describe('start hooks and early work', () => {
  it('the early work sends first, then the start hooks run, then the first case', async () => {
    const events: string[] = [];
    const cases: CaseDef[] = [
      {
        id: 'order/plain',
        title: '-',
        ...base,
        async run() {
          events.push('first case');
          return { verdict: 'pass', message: 'ran' };
        },
      },
      {
        id: 'order/started',
        title: '-',
        ...base,
        start: () => {
          events.push('start hook');
        },
        async run() {
          return { verdict: 'pass', message: 'ran' };
        },
      },
      {
        id: 'order/early',
        title: '-',
        ...base,
        async early(ctx) {
          events.push('early: sends');
          await ctx.session.request('ping', {});
          events.push('early: done');
        },
        async run() {
          return { verdict: 'pass', message: 'ran' };
        },
      },
    ];
    await runConformance({
      stdio: py('calc.py'),
      suites: [{ id: 'order', title: '-', description: '-', cases }],
      timeout: 5000,
    });
    expect(events).toEqual(['early: sends', 'early: done', 'start hook', 'first case']);
  });
});
