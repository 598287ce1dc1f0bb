/**
 * The invalid-params suite: an error answer proves validation only when the valid call did not fail the same way,
 * lenient validation is not "no validation", and answers are judged by their JSON-RPC code and isError, not their
 * wording. The broken fixtures' full verdicts are in verdicts.test.ts.
 */
import { describe, expect, it } from 'vitest';
import { join } from 'node:path';
import { BIN, py, run } from '../helpers/cli.js';

/** The tools/call requests the harness sent, as [tool name, arguments]. */
function calls(r: Awaited<ReturnType<typeof run>>): [string, unknown][] {
  return r.report.messages
    .filter((m) => m.direction === 'to-server' && (m.json as { method?: string } | undefined)?.method === 'tools/call')
    .map((m) => {
      const p = (m.json as { params: { name: string; arguments?: unknown } }).params;
      return [p.name, p.arguments];
    });
}

describe('an error answer to an invalid call proves validation only when the valid call did not fail the same way (item 3)', () => {
  it('with the calling suite left out, invalid-params makes the valid call itself and stays inconclusive on a tool that always fails', async () => {
    const r = await run(py('broken/env-failure.py'), ['--suite', 'invalid-params', '--timeout', '3000']);
    const nav = r.c('invalid-params/missing-required/browser_navigate');
    expect(nav.verdict).toBe('skip');
    expect(nav.message).toMatch(
      /^inconclusive: .*Chromium distribution 'chrome' is not found.*the call with valid arguments got .*Chromium distribution 'chrome' is not found/,
    );
    // An environment failure is never described as the server refusing the argument.
    for (const c of r.report.suites.flatMap((s) => s.cases)) expect(c.message).not.toMatch(/refus/i);
    expect((nav.details as { validCall?: { answer?: string } }).validCall?.answer).toMatch(/Chromium distribution/);
    // The valid call went out once per tool that needed it (with the generated url), not once per case.
    const valid = calls(r).filter(
      ([name, args]) => name === 'browser_navigate' && typeof (args as { url?: unknown }).url === 'string',
    );
    expect(valid.length).toBe(1);
  });

  it('server-everything: a tool that refuses every plain call (task augmentation required) is never credited with validation', async () => {
    const tool = 'simulate-research-query';
    const r = await run(
      `${join(BIN, 'mcp-server-everything')} stdio`,
      [
        '--suite',
        'calling,invalid-params',
        '--call-tools',
        'all',
        '--case',
        `calling/tool/${tool}`,
        '--case',
        `invalid-params/missing-required/${tool}`,
        '--case',
        `invalid-params/wrong-type/${tool}`,
      ],
      { timeoutMs: 60_000 },
    );
    // A task-required tool is never called plainly, so invalid-params has nothing to judge on it:
    // no item for the tool, no pass at case level, and no plain tools/call of it with bad arguments.
    for (const k of ['missing-required', 'wrong-type']) {
      expect(Object.keys(r.verdicts(`invalid-params/${k}/`))).not.toContain(`invalid-params/${k}/${tool}`);
      expect(r.c(`invalid-params/${k}`).verdict).not.toBe('pass');
    }
    // Its calls are task-augmented ones (calling), and at most the one plain probe of calling/task-required-plain.
    const plain = r.report.messages.filter(
      (m) =>
        m.direction === 'to-server' &&
        (m.json as { method?: string } | undefined)?.method === 'tools/call' &&
        (m.json as { params: { name: string; task?: unknown } }).params.name === tool &&
        !(m.json as { params: { task?: unknown } }).params.task,
    );
    expect(plain.length).toBeLessThanOrEqual(1);
  }, 60_000);
});

describe('lenient validation is not "no validation" (item 5)', () => {
  it('a wrong type accepted warns when the missing-required call was refused, even when that case was not selected', async () => {
    const r = await run(py('broken/lenient-types.py'), [
      '--suite',
      'invalid-params',
      '--case',
      'invalid-params/wrong-type',
    ]);
    expect(r.c('invalid-params/wrong-type/set_port').verdict).toBe('warn');
    expect(r.c('invalid-params/wrong-type/set_port').message).toMatch(
      /accepts a value its inputSchema does not allow.*"port" left out/,
    );
    expect(calls(r).some(([name, args]) => name === 'set_port' && !('port' in (args as object)))).toBe(true);
    expect(r.code).toBe(0);
  });

  it('a server that accepts both fails, also when only wrong-type was selected', async () => {
    const r = await run(py('broken/accepts-bad-args.py'), [
      '--suite',
      'invalid-params',
      '--case',
      'invalid-params/wrong-type',
    ]);
    expect(r.c('invalid-params/wrong-type/add').verdict).toBe('fail');
    expect(r.c('invalid-params/wrong-type/add').message).toMatch(/was accepted too.*does not validate tool input/);
    expect(r.code).toBe(1);
  });
});

describe('an error answer is judged by its JSON-RPC code and isError, its text quoted, never parsed', () => {
  it('a tool that fails the same way whatever it is sent stays inconclusive, even when its text names the argument', async () => {
    const r = await run(py('broken/env-failure.py'), ['--suite', 'invalid-params', '--timeout', '3000']);
    const typed = r.c('invalid-params/missing-required/browser_type');
    expect(typed.verdict).toBe('skip');
    expect(typed.message).toMatch(
      /^inconclusive: .*a result with isError: true, .*Invalid arguments for tool browser_type.*the same kind of answer \(judged by the JSON-RPC code and isError, not by the wording\)/,
    );
  });
});
