/**
 * A suite's warm-up (quality, without the build's token table, starts loading gpt-tokenizer) runs while the harness waits for the server's first
 * answer: after the first message is written to the server, so that it never holds that message back, and still
 * before any case runs. (Speed itself is shown by the bench, not here.)
 */
import { describe, expect, it } from 'vitest';
import { executeRun, prepareRun } from '../lib/conformance.js';
import type { Suite } from '../core/suite.js';
import { createTransport } from '../core/transport/index.js';
import type { StdioTransport } from '../core/transport/stdio.js';
import { py } from './helpers/cli.js';

describe('suite warm-up and the first message', () => {
  it('the first message is written to the server before a warm-up runs, and the warm-up before the first case', async () => {
    const events: string[] = [];
    const probe: Suite = {
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
    const prepared = await prepareRun({ stdio: py('calc.py'), suites: [probe], timeout: 5000 });
    let first = true;
    prepared.run.transportFactory = (target, opts) => {
      const t = createTransport(target, opts);
      if (first) {
        first = false;
        const start = t.start.bind(t);
        t.start = async () => {
          await start();
          // Every write to the server's stdin from now on is recorded (the first one included).
          const stdin = (t as StdioTransport).child!.stdin!;
          const write = stdin.write.bind(stdin) as (...a: unknown[]) => boolean;
          stdin.write = ((...a: unknown[]) => {
            if (!events.includes('written')) events.push('written');
            return write(...a);
          }) as typeof stdin.write;
        };
      }
      return t;
    };
    const report = await executeRun(prepared);
    expect(report.suites.find((s) => s.id === 'warm')!.cases.map((c) => c.verdict)).toEqual(['pass']);
    expect(events).toEqual(['written', 'warm-up', 'case']);
  });
});
