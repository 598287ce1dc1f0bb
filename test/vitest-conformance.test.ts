/**
 * conformance() of mcp-conform/vitest inside this repository's own vitest: the tests below are registered by the runs
 * (one per case) while vitest collects this file. A warn passes (with an annotation), a skip is skipped. How a failing
 * case fails its test, from the packed package in a user's project: test/library-pack.test.ts.
 */
import { join } from 'node:path';
import { expect, test } from 'vitest';
import type { Report } from '../core/results.js';
import { conformance } from '../vitest/index.js';
import { py, ROOT } from './helpers/cli.js';

let seen: Report | undefined;
conformance({
  stdio: py('notes-calc.py'),
  suites: ['lifecycle', 'expect'],
  expect: [join(ROOT, 'fixtures', 'expect', 'notes-calc.expect.yaml')],
  timeout: 10_000,
  onReport: (r) => {
    seen = r;
  },
});
// unknown-tool/call is a warn there (an isError result, not a JSON-RPC error); the expect suite, named without a file, skips.
conformance({
  stdio: py('broken/unknown-tool-iserror.py'),
  suites: ['unknown-tool', 'expect'],
  timeout: 10_000,
  title: 'a warn passes, a skip is skipped',
});

test('the run behind the tests above happened once, at collection, and had every expectation pass', () => {
  expect(seen?.suites.map((s) => s.id)).toEqual(['lifecycle', 'expect']);
  expect(seen!.suites[1]!.cases.map((c) => c.verdict)).toEqual(Array(9).fill('pass'));
});
