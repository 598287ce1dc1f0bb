/** The stdio transport against hostile processes: full pipes, cut lines, bad bytes, helpers that outlive the server. */
import { describe, expect, it } from 'vitest';
import { join } from 'node:path';
import { StdioTransport } from '../core/transport/stdio.js';
import type { IncomingFrame } from '../core/transport/types.js';
import { FIXTURES } from './helpers/cli.js';
import { announcedPids, remaining } from './helpers/proc.js';

function transport(code: string, opts: Partial<ConstructorParameters<typeof StdioTransport>[0]> = {}) {
  const t = new StdioTransport({ argv: ['python3', '-c', code], shutdownGraceMs: 300, ...opts });
  const frames: IncomingFrame[] = [];
  t.onFrame = (f) => frames.push(f);
  return { t, frames };
}

const until = async (cond: () => boolean, ms: number) => {
  const end = Date.now() + ms;
  while (!cond() && Date.now() < end) await new Promise((r) => setTimeout(r, 10));
  return cond();
};

describe('StdioTransport', () => {
  it('a server that never reads: 16 MiB of writes neither block the harness nor keep it waiting at shutdown', async () => {
    const { t } = transport('import time; time.sleep(600)');
    await t.start();
    // The event loop keeps turning while the pipe is full.
    let ticks = 0;
    const ticker = setInterval(() => ticks++, 10);
    const t0 = Date.now();
    const line = 'x'.repeat(1024 * 1024);
    for (let i = 0; i < 16; i++) t.send(line);
    expect(Date.now() - t0).toBeLessThan(1000);
    await new Promise((r) => setTimeout(r, 200));
    clearInterval(ticker);
    expect(ticks).toBeGreaterThan(5);
    expect(t.unreadBytes).toBeGreaterThan(10 * 1024 * 1024);
    const c0 = Date.now();
    await t.close();
    expect(Date.now() - c0).toBeLessThan(3 * 300 + 1500);
    expect(t.shutdownHow).toBe('SIGTERM'); // stdin closed but never read: SIGTERM ended it
    expect(remaining(t.pid)).toEqual([]);
  });

  it('frames: CRLF and blank lines, invalid UTF-8, a line cut at the bound, a last line without newline', async () => {
    const { t, frames } = transport(
      'import sys; o = sys.stdout.buffer; ' +
        'o.write(b\'{"a":1}\\r\\n\\n\\n{"b":"\\xff\\xfe"}\\n\' + b"y" * 5000 + b"\\n" + b\'{"c":3}\\n{"d":\'); o.flush()',
      { maxLineBytes: 1024 },
    );
    await t.start();
    expect(await until(() => t.closed, 5000)).toBe(true);
    expect(frames.map((f) => ({ ...f, raw: f.raw.slice(0, 12) }))).toEqual([
      { raw: '{"a":1}' },
      { raw: '{"b":"\ufffd\ufffd"}', problem: 'invalid UTF-8' },
      { raw: 'y'.repeat(12), problem: 'line longer than 1024 bytes: cut there, the rest dropped', truncated: true },
      { raw: '{"c":3}' },
      { raw: '{"d":', problem: 'no newline at the end: the stream ended in the middle of a line' },
    ]);
    expect(frames[2]!.raw.length).toBe(1024);
    expect(t.closeInfo?.reason).toBe('the server exited with code 0');
    await t.close();
  });

  it('a helper holding the pipes open does not keep the harness waiting; it is ended with the group', async () => {
    const t = new StdioTransport({
      argv: ['python3', join(FIXTURES, 'zoo', 'children-hold-pipes.py')],
      shutdownGraceMs: 300,
    });
    await t.start();
    expect(await until(() => announcedPids(t.stderr).length > 0, 5000)).toBe(true);
    const [child] = announcedPids(t.stderr);
    const c0 = Date.now();
    await t.close();
    expect(Date.now() - c0).toBeLessThan(3000);
    expect(t.shutdownHow).toBe('exited');
    expect(remaining(t.pid, [child!])).toEqual([]);
  });

  it('a helper that left the process group (setsid) is found among the descendants and ended too', async () => {
    const t = new StdioTransport({
      argv: ['python3', join(FIXTURES, 'zoo', 'escaping-child.py')],
      shutdownGraceMs: 300,
    });
    await t.start();
    expect(await until(() => announcedPids(t.stderr).length > 0, 5000)).toBe(true);
    const [child] = announcedPids(t.stderr);
    expect(remaining(undefined, [child!])).toHaveLength(1);
    expect(remaining(undefined, [child!])[0]!.pgid).not.toBe(t.pid);
    await t.close();
    expect(await until(() => remaining(undefined, [child!]).length === 0, 2000)).toBe(true);
  });
});
