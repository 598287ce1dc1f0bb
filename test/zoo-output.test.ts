/**
 * The zoo, part 1: servers whose output is hostile (fixtures/servers/zoo, and broken/ where one fits). Each run ends
 * within its bounds, writes a report, exits with the expected code, and leaves no process behind.
 */
import { describe, expect, it } from 'vitest';
import { notPassing, zoo } from './helpers/zoo.js';

describe('zoo: hostile output', () => {
  it('crash mid-run (broken/crash-on-call.py): the call fails with the exit code and stderr, the rest is skipped with why', async () => {
    const r = await zoo('broken/crash-on-call.py', [], { code: 1, withinMs: 15_000 });
    expect(r.c('calling/tool/add')).toMatchObject({
      verdict: 'fail',
      message: expect.stringMatching(/exited with code 3.*panic: tool exploded/),
    });
    expect(r.c('robustness/invalid-json')).toMatchObject({
      verdict: 'skip',
      message: expect.stringMatching(/^not run: the server exited with code 3/),
    });
    expect(r.report.process).toMatchObject({ exitCode: 3, shutdown: 'already-exited' });
  });

  it('a partial line, then exit: the request fails at once, the cut line is reported', async () => {
    const r = await zoo('zoo/partial-line-exit.py', [], { code: 1, withinMs: 15_000 });
    expect(r.c('calling/tool/add')).toMatchObject({
      verdict: 'fail',
      message: expect.stringMatching(/not answered: the server exited with code 0/),
    });
    expect(r.c('stdio/utf8')).toMatchObject({
      verdict: 'fail',
      message: expect.stringMatching(/no newline at the end/),
    });
    expect(r.c('stdio/stdout-only-messages').verdict).toBe('fail');
    expect(r.c('unknown-tool/call').verdict).toBe('skip');
  });

  it('invalid UTF-8: stdio/utf8 fails, the message is still read and everything else passes', async () => {
    const r = await zoo('zoo/invalid-utf8.py', [], { code: 1, withinMs: 15_000 });
    expect(notPassing(r)).toEqual({ 'stdio/utf8': 'fail', 'robustness/request-before-initialize': 'info' });
    expect(r.c('stdio/utf8').message).toMatch(/invalid UTF-8/);
  });

  it('a 50 MiB line: accepted under the default bound of 64 MiB', async () => {
    const r = await zoo('zoo/huge-line.py', ['--suite', 'lifecycle,calling,stdio'], { code: 0, withinMs: 30_000 });
    expect(r.c('calling/tool/big').verdict).toBe('pass');
  });

  it('a 50 MiB line over --max-message-bytes: cut, reported, and its request fails at once (no timeout wait)', async () => {
    const r = await zoo('zoo/huge-line.py', ['--suite', 'lifecycle,calling,stdio', '--max-message-bytes', '1048576'], {
      code: 1,
      withinMs: 15_000,
    });
    expect(r.c('calling/tool/big')).toMatchObject({
      verdict: 'fail',
      message: expect.stringMatching(/answered with a message that cannot be read: .*longer than 1048576 bytes/),
    });
    expect(r.c('stdio/utf8')).toMatchObject({
      verdict: 'fail',
      message: expect.stringMatching(/longer than 1048576 bytes/),
    });
    expect(r.c('lifecycle/ids-matched').verdict).toBe('pass');
    const cut = r.report.messages.find((m) => m.direction === 'from-server' && m.kind === 'invalid')!;
    expect(cut.raw.length).toBe(1048576);
  });

  it('a notification flood: the run ends, the log stays bounded, the rest is counted', async () => {
    const r = await zoo('zoo/flood.py', [], { code: 0, withinMs: 30_000 });
    expect(r.report.summary.fail).toBe(0);
    expect(r.report.messages.length).toBeLessThanOrEqual(50_100);
    expect(r.report.droppedMessages?.messages).toBeGreaterThan(0);
    expect(Object.keys(r.report.droppedMessages!.byMethod)).toEqual(['notifications/message']);
  });

  it('duplicate answers: lifecycle/ids-matched fails, nothing else', async () => {
    const r = await zoo('zoo/duplicate-answers.py', [], { code: 1, withinMs: 15_000 });
    expect(notPassing(r)).toEqual({ 'lifecycle/ids-matched': 'fail', 'robustness/request-before-initialize': 'info' });
    expect(r.c('lifecycle/ids-matched').message).toMatch(/second answer for id 1/);
  });

  it('answers with unknown ids (broken/wrong-ids.py): ping and ids-matched fail', async () => {
    const r = await zoo('broken/wrong-ids.py', ['--timeout', '1000'], { code: 1, withinMs: 30_000 });
    expect(r.c('lifecycle/ping').verdict).toBe('fail');
    expect(r.c('lifecycle/ids-matched')).toMatchObject({
      verdict: 'fail',
      message: expect.stringMatching(/answer for id never sent/),
    });
  });

  it('server requests at any time: every one answered; requests before initialized are a warn (fail with --strict)', async () => {
    const r = await zoo('zoo/server-requests.py', [], { code: 1, withinMs: 15_000 });
    // The requests are for capabilities the harness did not declare: elicitation/create then is a fail (server-requests).
    expect(notPassing(r)).toEqual({
      'robustness/early-server-messages': 'warn',
      'robustness/request-before-initialize': 'info',
      'server-requests/declared-only': 'fail',
    });
    expect(r.report.process.stderr.join('\n')).toMatch(/server-requests: all \d+ answered/);
    const strict = await zoo(
      'zoo/server-requests.py',
      ['--strict', '--suite', 'robustness', '--case', 'robustness/early-server-messages'],
      { code: 1, withinMs: 15_000 },
    );
    expect(strict.c('robustness/early-server-messages')).toMatchObject({ verdict: 'fail', strictFromWarn: true });
  });

  it('a notification answered: robustness/unknown-notification fails', async () => {
    const r = await zoo('zoo/answers-notifications.py', [], { code: 1, withinMs: 15_000 });
    expect(notPassing(r)).toEqual({
      'robustness/unknown-notification': 'fail',
      'robustness/request-before-initialize': 'info',
    });
  });

  it('dies on invalid JSON: robustness/invalid-json fails with the exit code, the rest is skipped', async () => {
    const r = await zoo('zoo/dies-on-invalid-json.py', [], { code: 1, withinMs: 15_000 });
    expect(r.c('robustness/invalid-json')).toMatchObject({
      verdict: 'fail',
      message: expect.stringMatching(
        /died after a line of invalid JSON: .*exited with code 4.*fatal: cannot parse input/,
      ),
    });
    expect(r.c('robustness/large-request')).toMatchObject({
      verdict: 'skip',
      message: expect.stringMatching(/not run: the server exited with code 4/),
    });
  });

  it('hangs on invalid JSON: the probe fails ("stopped answering"), then the harness stops sending; bounded', async () => {
    const r = await zoo('zoo/hangs-on-invalid-json.py', ['--timeout', '1000'], { code: 1, withinMs: 20_000 });
    expect(r.c('robustness/invalid-json')).toMatchObject({
      verdict: 'fail',
      message: expect.stringMatching(/stopped answering after a line of invalid JSON/),
    });
    expect(r.c('robustness/not-a-message').verdict).toBe('skip');
    // After the ping that timed out (and was cancelled: the harness stopped waiting for it), the other probes were not
    // sent: the server had stopped answering.
    const probe = r.report.messages.find((m) => m.schema.expectedInvalid?.includes('invalid-json'))!;
    const after = r.report.messages.filter((m) => m.seq > probe.seq && m.direction === 'to-server');
    expect(after.map((m) => m.method)).toEqual(['ping', 'notifications/cancelled']);
    expect((after[1]!.json as { params: { requestId: unknown } }).params.requestId).toBe(after[0]!.id);
    expect(r.c('lifecycle/shutdown')).toMatchObject({
      verdict: 'warn',
      message: expect.stringMatching(/ended only on SIGTERM/),
    });
  });

  it('stops reading stdin (and keeps talking): every request times out within its bound; no hang on the full pipe', async () => {
    const r = await zoo('zoo/stops-reading.py', ['--timeout', '500'], { code: 1, withinMs: 30_000 });
    expect(r.c('lifecycle/initialize').verdict).toBe('pass');
    expect(r.c('lifecycle/ping')).toMatchObject({
      verdict: 'fail',
      message: expect.stringMatching(/not answered within 500 ms/),
    });
    expect(r.c('lifecycle/shutdown')).toMatchObject({
      verdict: 'warn',
      message: expect.stringMatching(/ended only on SIGTERM/),
    });
  });

  it('a slow tool that honours cancellation: robustness/cancel-in-flight passes', async () => {
    const r = await zoo('zoo/slow-tool.py', ['--suite', 'robustness'], { code: 0, withinMs: 15_000 });
    expect(r.c('robustness/cancel-in-flight')).toMatchObject({
      verdict: 'pass',
      message: expect.stringMatching(/tools\/call sleep .*cancelled: no answer/),
    });
  });

  it('answers after cancellation: robustness/cancel-in-flight warns', async () => {
    const r = await zoo('zoo/answers-after-cancel.py', ['--suite', 'robustness'], { code: 0, withinMs: 15_000 });
    expect(r.c('robustness/cancel-in-flight')).toMatchObject({
      verdict: 'warn',
      message: expect.stringMatching(/answered \d+ ms after notifications\/cancelled/),
    });
  });
});
