/**
 * Tests beside what they test: a suite's tests are test/suites/<suite id>.test.ts, found from its name. Every file
 * here is named after a suite of ALL_SUITES (or is this file, or the example of "Adding a suite" in docs/developing.md).
 */
import { readdirSync } from 'node:fs';
import { describe, expect, it } from 'vitest';
import { ALL_SUITES } from '../../suites/index.js';

describe('test/suites/', () => {
  it('holds one file per suite, named after its id', () => {
    const ids = new Set(ALL_SUITES.map((s) => s.id));
    const files = readdirSync(import.meta.dirname)
      .filter((f) => f.endsWith('.test.ts'))
      .map((f) => f.replace(/\.test\.ts$/, ''));
    const strays = files.filter((f) => !ids.has(f) && f !== 'layout' && f !== 'example-suite');
    expect(strays).toEqual([]);
    // the suites whose behaviour has tests of its own here (the others: run-demo, verdicts)
    expect(files.filter((f) => ids.has(f)).sort()).toEqual([
      'auth',
      'calling',
      'http',
      'invalid-params',
      'robustness',
      'security',
      'sse',
      'subscriptions',
      'tasks',
      'unknown-tool',
    ]);
  });
});
