/**
 * Servers that cannot be started, exit early or never answer: the run ends within its bounds with exit 1, a report,
 * and the server's exit code and last stderr lines in the message; no process of the server is left behind.
 */
import { describe, expect, it } from 'vitest';
import { readFileSync } from 'node:fs';
import { py, run } from './helpers/cli.js';

/** Whether a process runs (a zombie, dead but not yet reaped by whoever adopted it, does not count). */
function alive(pid: number): boolean {
  try {
    const stat = readFileSync(`/proc/${pid}/stat`, 'utf8');
    return stat.slice(stat.lastIndexOf(')') + 2)[0] !== 'Z';
  } catch {
    return false;
  }
}

describe('servers that fail to start or to answer', () => {
  it('a command that does not exist: exit 1, a report that says so', async () => {
    const r = await run('mcp-conform-no-such-command --stdio');
    expect(r.code).toBe(1);
    expect(r.c('lifecycle/initialize')).toMatchObject({
      verdict: 'fail',
      message: expect.stringMatching(/command not found: mcp-conform-no-such-command/),
    });
    expect(r.report.aborted).toMatch(/could not start the server/);
    expect(r.report.process.shutdown).toBe('not-started');
    // Cases that need the server are skipped with the reason, not failed.
    expect(r.c('lifecycle/ping')).toMatchObject({
      verdict: 'skip',
      message: 'the server never came up: command not found: mcp-conform-no-such-command',
    });
    expect(r.report.summary.fail).toBe(1);
    // Nothing passes for a server that never answered (stdio/utf8, schema/to-server… used to).
    expect(r.report.summary.pass).toBe(0);
    expect(r.report.startFailure).toMatchObject({
      kind: 'command-not-found',
      cause: 'command not found: mcp-conform-no-such-command',
    });
  });

  it('a server that exits at once: its exit code and stderr are in the verdict', async () => {
    const r = await run(py('broken/exit-at-start.py'));
    expect(r.code).toBe(1);
    const init = r.c('lifecycle/initialize');
    expect(init.verdict).toBe('fail');
    expect(init.message).toMatch(
      /exited with code 2 before answering anything: fatal: missing config file \/etc\/calc\.toml/,
    );
    // One failing case: no version-negotiation failure for the same crash, no pass.
    expect(r.report.summary).toMatchObject({ fail: 1, pass: 0 });
    expect(r.report.process.exitCode).toBe(2);
    expect(r.report.process.stderr).toContain('fatal: missing config file /etc/calc.toml');
    expect(r.report.process.shutdown).toBe('already-exited');
  });

  it('a server that never answers: bounded by --timeout, exit 1, nothing left running', async () => {
    const r = await run(py('broken/silent.py'), ['--timeout', '1500', '--shutdown-grace', '500']);
    expect(r.code).toBe(1);
    expect(r.c('lifecycle/initialize').message).toMatch(/initialize \(id 1\) not answered within 1500 ms/);
    expect(r.report.aborted).toMatch(/initialize failed/);
    // The initialize request is in the log even though it got no answer.
    expect(r.report.messages[0]).toMatchObject({ direction: 'to-server', method: 'initialize' });
    // Nothing came from it: the log-reading cases have nothing to judge (skip), not "all 0 … matched" (pass).
    expect(r.c('lifecycle/ids-matched')).toMatchObject({
      verdict: 'skip',
      message: expect.stringMatching(
        /^the server never came up: the server answered nothing within 1500 ms .* and wrote nothing on stdout$/,
      ),
    });
    expect(r.c('stdio/stdout-only-messages')).toMatchObject({
      verdict: 'skip',
      message: r.c('lifecycle/ids-matched').message,
    });
    expect(r.ms).toBeLessThan(1500 + 3 * 500 + 10_000); // generous margin for a loaded machine; the point is: no hang
    expect(alive(r.report.process.pid!)).toBe(false);
  });

  it('a server that ignores stdin close and SIGTERM, with a child: killed with its whole group (warn)', async () => {
    const r = await run(py('broken/ignore-sigterm.py'), ['--suite', 'lifecycle', '--shutdown-grace', '500']);
    expect(r.code).toBe(0);
    expect(r.c('lifecycle/shutdown')).toMatchObject({ verdict: 'warn', message: expect.stringMatching(/SIGKILL/) });
    expect(r.report.process.shutdown).toBe('SIGKILL');
    const childLine = r.report.process.stderr.find((l) => /child pid \d+/.test(l));
    expect(childLine, r.report.process.stderr.join('\n')).toBeDefined();
    const child = Number(/child pid (\d+)/.exec(childLine!)![1]);
    expect(alive(r.report.process.pid!)).toBe(false);
    expect(alive(child)).toBe(false);
  });

  it('a server that crashes mid-run: the pending call fails fast with its exit code, later cases are skipped', async () => {
    const r = await run(py('broken/crash-on-call.py'));
    expect(r.code).toBe(1);
    expect(r.c('calling/tool/add').message).toMatch(/not answered: the server exited with code 3/);
    expect(r.report.process.exitCode).toBe(3);
    expect(r.ms).toBeLessThan(20_000);
  });
});
