/**
 * 2026-07-28 surface: input_required results (multi round-trip requests) are recognised, never judged as a malformed
 * result, answered with the canned client answers and sent again where the harness can, reported as not exercisable
 * where it cannot; extensions identifiers are checked.
 */
import { describe, expect, it } from 'vitest';
import { py, run } from './helpers/cli.js';

describe('2026-07-28 surface', () => {
  it('broken/input-required.py: an input_required result is recognised, never misjudged; asking for an undeclared capability fails; a malformed one fails', async () => {
    const r = await run(py('broken/input-required.py'), [
      '--suite',
      'calling,surface-2026,schema',
      '--timeout',
      '3000',
    ]);
    expect(r.report.options.protocolVersionInForce).toBe('2026-07-28');
    // The harness declared no client capability: it cannot answer the elicitation, so the tool is not exercisable.
    expect(r.c('calling/tool/confirm').verdict).toBe('skip');
    expect(r.c('calling/tool/confirm').message).toMatch(
      /not exercisable: the server answered input_required — not answered: "ok" asks for elicitation, which the client did not declare \(--client-capabilities elicitation declares it/,
    );
    expect(r.c('surface-2026/input-required').verdict).toBe('pass');
    expect(r.c('surface-2026/input-requests-declared').verdict).toBe('fail');
    expect(r.c('surface-2026/input-requests-declared').message).toMatch(
      /"ok" \(elicitation\) in the answer to tools\/call .*the harness declared no client capability/,
    );
    expect(r.c('surface-2026/input-required-rounds').verdict).toBe('info');
    expect(r.c('schema/from-server/tools/call').verdict).toBe('pass');
    // Declared: the decline is sent back and the tool's final answer is graded like any call.
    const ok = await run(py('broken/input-required.py'), [
      '--suite',
      'calling,surface-2026',
      '--timeout',
      '3000',
      '--client-capabilities',
      'elicitation',
    ]);
    expect(ok.c('calling/tool/confirm').verdict).toBe('pass');
    expect(ok.c('calling/tool/confirm').message).toMatch(
      /after 1 input_required round\(s\) answered with canned input: ok: elicitation\/create → action "decline"/,
    );
    expect(ok.c('surface-2026/input-requests-declared').verdict).toBe('pass');
    // The server gave no requestState: the retry carries none (the client must not invent one).
    const retry = ok.report.messages.find(
      (m) =>
        m.direction === 'to-server' &&
        (m.json as { params?: Record<string, unknown> }).params?.inputResponses !== undefined,
    )!;
    expect((retry.json as { params: Record<string, unknown> }).params).toMatchObject({
      name: 'confirm',
      inputResponses: { ok: { action: 'decline' } },
    });
    expect('requestState' in (retry.json as { params: Record<string, unknown> }).params).toBe(false);
    const bad = await run(py('broken/input-required.py'), [
      '--suite',
      'calling,surface-2026',
      '--timeout',
      '3000',
      '--env',
      'MODE=bad',
    ]);
    expect(bad.c('surface-2026/input-required').verdict).toBe('fail');
    expect(bad.c('surface-2026/input-required').message).toMatch(/neither inputRequests nor requestState/);
    expect(bad.c('calling/tool/confirm').verdict).toBe('skip');
  });

  const ALL_CAPS = ['--client-capabilities', 'sampling,elicitation,roots'];
  // 2026-07-28 alone: mrtr.py is dual-era, and a default run would judge (and call) it in 2025-11-25 too.
  const MRTR_SUITES = [
    '--protocol-version',
    '2026-07-28',
    '--suite',
    'calling,invalid-params,prompts,surface-2026,schema',
    '--timeout',
    '3000',
  ];

  it('mrtr.py with sampling, elicitation, roots declared: every input request answered with the canned answer, requestState echoed, new ids; all pass', async () => {
    const r = await run(py('mrtr.py'), [...MRTR_SUITES, ...ALL_CAPS]);
    expect(r.c('calling/tool/confirm').message).toMatch(/confirm: elicitation\/create → action "decline"/);
    expect(r.c('calling/tool/summarize').message).toMatch(
      /summarize: sampling\/createMessage → the canned assistant text/,
    );
    expect(r.c('calling/tool/where').message).toMatch(/where: roots\/list → 1 root\(s\)/);
    expect(r.c('calling/tool/poll').message).toMatch(/after 2 input_required round\(s\)/);
    // summarize asks before it validates its arguments: the invalid calls are answered too, and their refusal graded.
    expect(r.c('invalid-params/missing-required/summarize').message).toMatch(/result with isError: true/);
    for (const id of [
      'calling/tool/confirm',
      'calling/tool/summarize',
      'calling/tool/where',
      'calling/tool/poll',
      'prompts/get/greet',
      'prompts/missing-argument',
      'invalid-params/missing-required/summarize',
      'invalid-params/wrong-type/summarize',
      'surface-2026/input-required',
      'surface-2026/input-requests-declared',
      'surface-2026/input-required-rounds',
      'surface-2026/input-missing-reasked',
      'schema/to-server/tools/call',
      'schema/from-server/tools/call',
    ]) {
      expect(r.c(id).verdict, `${id}: ${r.c(id).message}`).toBe('pass');
    }
    // What went over the wire: the retry of `confirm` has a new id, the decline under the server's key and the requestState as issued.
    const calls = r.report.messages.filter(
      (m) =>
        m.direction === 'to-server' &&
        m.method === 'tools/call' &&
        (m.json as { params?: { name?: string } }).params?.name === 'confirm',
    );
    const retry = calls.find(
      (m) => (m.json as { params: Record<string, unknown> }).params.inputResponses !== undefined,
    )!;
    const first = calls[0]!;
    expect(retry.id).not.toBe(first.id);
    expect((retry.json as { params: Record<string, unknown> }).params).toMatchObject({
      name: 'confirm',
      inputResponses: { confirm: { action: 'decline' } },
      requestState: 'state-confirm',
    });
    // poll: requestState only: echoed, and no inputResponses invented.
    const polls = r.report.messages
      .filter((m) => m.direction === 'to-server' && (m.json as { params?: { name?: string } }).params?.name === 'poll')
      .map((m) => (m.json as { params: Record<string, unknown> }).params);
    expect(polls.map((p) => [p.requestState, 'inputResponses' in p])).toEqual([
      [undefined, false],
      ['poll-1', false],
      ['poll-2', false],
    ]);
  });

  it('mrtr.py without client capabilities: -32021 and input the harness cannot give are not exercisable, never a fault', async () => {
    const r = await run(py('mrtr.py'), MRTR_SUITES);
    expect(r.c('calling/tool/confirm').verdict).toBe('skip');
    expect(r.c('calling/tool/confirm').message).toMatch(
      /not exercisable: the server refused with error -32021 \(missing required client capability: elicitation\); --client-capabilities elicitation declares it/,
    );
    expect(r.c('prompts/get/greet').verdict).toBe('skip');
    expect(r.c('prompts/missing-argument').verdict).toBe('skip');
    expect(r.c('calling/tool/poll').verdict).toBe('pass');
    expect(r.c('invalid-params/missing-required/summarize').verdict).toBe('skip');
    expect(r.c('invalid-params/missing-required/summarize').message).toMatch(
      /^not exercisable: the server refused with error -32021/,
    );
    expect(r.code).toBe(0);
  });

  it('mrtr.py, one defect each: undeclared capability, unknown kind, wrong method, bad final result fail; re-asking refused warns; a server that keeps asking is reported', async () => {
    const mode = (m: string, extra: string[] = ALL_CAPS, suites = MRTR_SUITES) =>
      run(py('mrtr.py'), [...suites, ...extra, '--env', `MODE=${m}`]);
    // Three runs at a time: each replays requests for the altered-retry probes too, and their timeout is 3 s.
    const [undeclared, badKind, wrongMethod] = await Promise.all([
      mode('undeclared', []),
      mode('bad-kind'),
      mode('wrong-method', ALL_CAPS, [
        '--protocol-version',
        '2026-07-28',
        '--suite',
        'completion,surface-2026',
        '--timeout',
        '3000',
      ]),
    ]);
    const [badFinal, loop, errorOnMissing] = await Promise.all([
      mode('bad-final'),
      mode('loop'),
      mode('error-on-missing'),
    ]);
    expect(
      undeclared.c('surface-2026/input-requests-declared').verdict,
      undeclared.c('surface-2026/input-requests-declared').message,
    ).toBe('fail');
    expect(undeclared.c('surface-2026/input-requests-declared').message).toMatch(
      /"summarize" \(sampling\) in the answer to tools\/call/,
    );
    expect(undeclared.c('calling/tool/summarize').verdict).toBe('skip');
    expect(badKind.c('surface-2026/input-required').verdict).toBe('fail');
    expect(badKind.c('surface-2026/input-required').message).toMatch(
      /inputRequests\["confirm"\] is \{"method":"tools\/list"\}, not an elicitation\/create/,
    );
    expect(badKind.c('calling/tool/confirm').message).toMatch(/not exercisable: .*asks for "tools\/list"/);
    expect(wrongMethod.c('surface-2026/input-required').verdict).toBe('fail');
    expect(wrongMethod.c('surface-2026/input-required').message).toMatch(
      /completion\/complete may not be answered with input_required/,
    );
    expect(badFinal.c('surface-2026/input-required-rounds').verdict).toBe('fail');
    expect(badFinal.c('surface-2026/input-required-rounds').message).toMatch(
      /tools\/call "confirm": the final result \(message \d+\) is not a valid .*CallToolResult: \/result missing required property "content"/,
    );
    expect(badFinal.c('calling/tool/confirm').verdict).toBe('fail');
    // Not a fault (a server may ask again): reported; `poll` (requestState only) still completes, so the case passes.
    expect(loop.c('surface-2026/input-required-rounds').verdict).toBe('pass');
    expect(loop.c('surface-2026/input-required-rounds').message).toMatch(
      /tools\/call "confirm": still input_required after 3 answered round\(s\)/,
    );
    expect(loop.c('calling/tool/confirm').verdict).toBe('skip');
    expect(loop.c('calling/tool/confirm').message).toMatch(/still input_required after 3 answered round\(s\)/);
    // Bounded: 3 retries with inputResponses, no more (the re-ask probe sends one more, without them).
    const confirms = loop.report.messages
      .filter(
        (m) => m.direction === 'to-server' && (m.json as { params?: { name?: string } }).params?.name === 'confirm',
      )
      .map((m) => (m.json as { params: Record<string, unknown> }).params);
    expect(confirms.filter((p) => p.inputResponses !== undefined).length).toBe(3);
    expect(errorOnMissing.c('surface-2026/input-missing-reasked').verdict).toBe('warn');
    expect(errorOnMissing.c('surface-2026/input-missing-reasked').message).toMatch(
      /sent again with the requestState of its first answer, without inputResponses .*answered with error code -32602/,
    );
  }, 60_000);

  it('altered retries (mrtr.py): a tampered requestState refused, an extra input response ignored, answers that are no result objects not taken — each defect warns', async () => {
    // The default request timeout, two runs at a time: the probes replay requests, and a busy machine is slow.
    const mode = (m: string) =>
      run(py('mrtr.py'), [
        '--protocol-version',
        '2026-07-28',
        '--suite',
        'calling,prompts,surface-2026,schema',
        ...ALL_CAPS,
        '--env',
        `MODE=${m}`,
      ]);
    const [ok, trusts] = await Promise.all([mode('ok'), mode('trusts-state')]);
    const [extra, anything] = await Promise.all([mode('extra-refused'), mode('takes-anything')]);
    const ids = [
      'surface-2026/input-state-tampered',
      'surface-2026/input-extra-ignored',
      'surface-2026/input-responses-checked',
    ];
    expect(Object.fromEntries(ids.map((id) => [id, ok.c(id).verdict]))).toEqual(
      Object.fromEntries(ids.map((id) => [id, 'pass'])),
    );
    expect(ok.c('surface-2026/input-state-tampered').message).toMatch(
      /^tools\/call "confirm" sent again with the canned answers and its requestState altered in one character .*: error code -32602 .*not the one this server issued/,
    );
    expect(ok.c('surface-2026/input-extra-ignored').message).toMatch(
      /an input response "mcp-conform-unrequested" it never asked for: a complete result/,
    );
    expect(ok.c('surface-2026/input-responses-checked').message).toMatch(
      /as the answer to "confirm": input_required again \(asking for "confirm"\)/,
    );
    // What went over the wire: the first round again (no inputResponses, no requestState), then the altered retry.
    const confirms = ok.report.messages
      .filter(
        (m) => m.direction === 'to-server' && (m.json as { params?: { name?: string } }).params?.name === 'confirm',
      )
      .map((m) => (m.json as { params: Record<string, unknown> }).params);
    const tampered = confirms.find((p) => typeof p.requestState === 'string' && p.requestState !== 'state-confirm')!;
    expect(tampered.requestState).toMatch(/^state-.onfirm$/);
    expect(tampered.inputResponses).toEqual({ confirm: { action: 'decline' } });
    expect(
      confirms.some(
        (p) => (p.inputResponses as Record<string, unknown> | undefined)?.['mcp-conform-unrequested'] !== undefined,
      ),
    ).toBe(true);
    expect(
      confirms.some(
        (p) =>
          (p.inputResponses as Record<string, unknown> | undefined)?.confirm === 'mcp-conform: not a result object',
      ),
    ).toBe(true);
    // One defect each: only its case warns (a SHOULD, or a MUST whose condition cannot be seen from outside).
    const flagged = (r: typeof ok) =>
      Object.fromEntries(ids.filter((id) => r.c(id).verdict !== 'pass').map((id) => [id, r.c(id).verdict]));
    expect(flagged(trusts)).toEqual({ 'surface-2026/input-state-tampered': 'warn' });
    expect(trusts.c('surface-2026/input-state-tampered').message).toMatch(
      /: a complete result .* the server went on with state it did not issue; that is a fault where requestState influences authorization/,
    );
    expect(flagged(extra)).toEqual({ 'surface-2026/input-extra-ignored': 'warn' });
    expect(extra.c('surface-2026/input-extra-ignored').message).toMatch(
      /error code -32602 .*without the extra key the same answers ended in a complete result/,
    );
    expect(flagged(anything)).toEqual({ 'surface-2026/input-responses-checked': 'warn' });
    expect(anything.c('surface-2026/input-responses-checked').message).toMatch(
      /a complete result .* the server took answers that are no result objects/,
    );
    // The malformed retry is the probe's, on purpose: the harness's own requests still pass the schema check.
    expect(ok.c('schema/to-server/tools/call').verdict).toBe('pass');
  }, 120_000);

  it('the altered-retry probes skip where there is nothing to replay, and say why', async () => {
    const none = await run(py('mrtr.py'), [
      '--protocol-version',
      '2026-07-28',
      '--suite',
      'calling,prompts,surface-2026',
    ]);
    // Without client capabilities only `poll` completes (requestState only): the state can be tampered, there is no input to alter.
    expect(none.c('surface-2026/input-state-tampered').verdict).toBe('pass');
    expect(none.c('surface-2026/input-extra-ignored')).toMatchObject({
      verdict: 'skip',
      message: 'an input_required result with inputRequests was never sent earlier in the run',
    });
    const plain = await run(py('calc-all.py'), ['--protocol-version', '2026-07-28', '--suite', 'surface-2026']);
    expect(plain.c('surface-2026/input-state-tampered')).toMatchObject({
      verdict: 'skip',
      message: 'an input_required result with a requestState was never sent earlier in the run',
    });
  }, 60_000);

  it('the call policy holds for retries: a tool not allowed is never called, first round or retry', async () => {
    const r = await run(py('mrtr.py'), [...MRTR_SUITES, ...ALL_CAPS, '--call-tools', 'none', '--call-tool', 'poll']);
    const names = new Set(
      r.report.messages
        .filter((m) => m.direction === 'to-server' && m.method === 'tools/call')
        .map((m) => (m.json as { params?: { name?: string } }).params?.name),
    );
    expect(
      [...names].filter((n) => n !== undefined && n !== 'mcp-conform-no-such-tool' && !/^mcp-conform/.test(n)),
    ).toEqual(['poll']);
    // The re-ask probe takes a request it may send again: here the prompt, never a tool the policy leaves out.
    expect(r.c('surface-2026/input-missing-reasked').message).toMatch(/^prompts\/get "greet" sent again/);
  });

  it('extensions: a key without prefix or settings that are no object fail; a prefixed key passes', async () => {
    const bad = await run(py('broken/bad-extension.py'), ['--suite', 'surface-2026', '--timeout', '3000']);
    expect(bad.c('surface-2026/extensions').verdict).toBe('fail');
    expect(bad.c('surface-2026/extensions').message).toMatch(
      /"tasks" is not a prefixed identifier.*"io.example\/audit" are true, not an object/,
    );
    const ok = await run(py('broken/bad-extension.py'), [
      '--suite',
      'surface-2026',
      '--timeout',
      '3000',
      '--env',
      'MODE=ok',
    ]);
    expect(ok.c('surface-2026/extensions').verdict).toBe('pass');
    expect(ok.c('surface-2026/extensions').message).toBe('extensions: io.modelcontextprotocol/tasks');
  });

  it('before 2026-07-28 the cases do not apply', async () => {
    const r = await run(py('broken/bad-extension.py'), [
      '--suite',
      'surface-2026',
      '--timeout',
      '3000',
      '--protocol-version',
      '2025-11-25',
    ]);
    for (const id of [
      'surface-2026/cache-hints',
      'surface-2026/input-required',
      'surface-2026/input-requests-declared',
      'surface-2026/input-required-rounds',
      'surface-2026/input-missing-reasked',
      'surface-2026/input-state-tampered',
      'surface-2026/input-extra-ignored',
      'surface-2026/input-responses-checked',
      'surface-2026/extensions',
    ])
      expect(r.c(id).message).toMatch(/^does not apply: protocol 2025-11-25 has no/);
  });
});
