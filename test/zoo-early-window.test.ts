/**
 * robustness/unknown-notification's early window against real processes (fixtures/servers/zoo, through the built
 * CLI): the notification is sent when the session phase begins, its 150 ms watch runs while the other suites work,
 * and the case grades it at its turn. The same window against the in-process fake server: test/suites/robustness.test.ts.
 */
import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { describe, expect, it } from 'vitest';
import type { CaseResult, Report } from '../core/results.js';
import { cli, py, run } from './helpers/cli.js';
import { notPassing, zoo } from './helpers/zoo.js';

const NOTE = 'notifications/mcp-conform/unknown';
type Msg = Report['messages'][number];

/** The unknown notifications in the log, in order. */
const notes = (r: { report: Report }): Msg[] =>
  r.report.messages.filter((m) => m.direction === 'to-server' && m.method === NOTE);
/** The first message of the log that matches. */
const firstMsg = (r: { report: Report }, f: (m: Msg) => boolean): Msg => r.report.messages.find(f)!;
const watchOf = (c: CaseResult) => c.details?.watch as { from: number; until: number };

describe('robustness/unknown-notification: the watch window overlaps the other suites', () => {
  it("a conformant server: the notification goes out before the other suites' messages, the watch lasts ≥ 150 ms after the ping answer, the case keeps its place", async () => {
    const r = await zoo('calc.py', [], { code: 0, withinMs: 20_000 });
    const c = r.c('robustness/unknown-notification');
    expect(c).toMatchObject({
      verdict: 'pass',
      message: expect.stringMatching(/got no answer; the server still answers ping/),
    });
    const [note, ...more] = notes(r);
    expect(more).toEqual([]); // sent once
    // Before every message of the other suites: lifecycle/ping's ping and listing's tools/list come after it.
    const toolsList = firstMsg(r, (m) => m.direction === 'to-server' && m.method === 'tools/list');
    expect(note!.seq).toBeLessThan(toolsList.seq);
    const pings = r.report.messages.filter((m) => m.direction === 'to-server' && m.method === 'ping');
    expect(pings.filter((m) => m.seq < note!.seq)).toHaveLength(1); // only the heartbeat that shows the probes can be graded
    // The heartbeat right after it, its answer, and the watch from that answer: at least 150 ms on the log's clock.
    const hb = r.report.messages[note!.seq + 1]!;
    expect(hb).toMatchObject({ direction: 'to-server', method: 'ping' });
    const hbAnswer = firstMsg(r, (m) => m.direction === 'from-server' && m.inReplyTo === hb.seq);
    const w = watchOf(c);
    expect(w.from).toBe(hbAnswer.t);
    expect(w.until - w.from).toBeGreaterThanOrEqual(150);
    expect(c.messageIds).toEqual([note!.seq, hb.seq, hbAnswer.seq]);
    // Other suites sent while the window was open, and the robustness probes that catch any answer came after it closed.
    expect(r.report.messages.some((m) => m.direction === 'to-server' && m.seq > hbAnswer.seq && m.t < w.until)).toBe(
      true,
    );
    const invalidJson = firstMsg(r, (m) => m.direction === 'to-server' && m.kind === 'invalid');
    expect(invalidJson.t).toBeGreaterThanOrEqual(w.until);
    // Its place in the report stays where it was.
    const ids = r.report.suites.find((s) => s.id === 'robustness')!.cases.map((x) => x.id);
    expect(ids.indexOf('robustness/unknown-notification')).toBe(ids.indexOf('robustness/unknown-method') + 1);
    expect(ids.indexOf('robustness/duplicate-id')).toBe(ids.indexOf('robustness/unknown-notification') + 1);
  }, 60_000);

  it('a server that answers the notification 40 ms late (error, id null), while other suites are sending: the case still fails', async () => {
    const r = await zoo('zoo/answers-notifications-late.py', [], { code: 1, withinMs: 20_000 });
    expect(notPassing(r)).toEqual({
      'robustness/unknown-notification': 'fail',
      'robustness/request-before-initialize': 'info',
    });
    const c = r.c('robustness/unknown-notification');
    expect(c.message).toMatch(/^the notification was answered: \{"jsonrpc":"2.0","id":null,"error":\{"code":-32601/);
    // The first answer came after other suites had sent (it could have been theirs): the notification was sent again, alone.
    const [early, again] = notes(r);
    const lateAnswer = firstMsg(
      r,
      (m) =>
        m.direction === 'from-server' &&
        m.kind === 'error' &&
        m.json !== undefined &&
        (m.json as { id?: unknown }).id === null,
    );
    expect(lateAnswer.seq).toBeGreaterThan(early!.seq);
    // Other suites' messages went out between the notification (and its heartbeat) and the late answer.
    expect(
      r.report.messages.some((m) => m.direction === 'to-server' && m.seq > early!.seq + 1 && m.seq < lateAnswer.seq),
    ).toBe(true);
    expect(again).toBeDefined();
    expect(c.details?.repeated).toMatch(
      new RegExp(`message ${early!.seq}\\).*messages ${lateAnswer.seq}\\b.*sent again, alone`),
    );
    const answer = r.report.messages.find((m) => m.direction === 'from-server' && m.inReplyTo === again!.seq)!;
    expect(c.messageIds).toContain(answer.seq);
    expect(c.messageIds).toContain(again!.seq);
  }, 60_000);

  // A server that dies or goes silent while the early window is open would, in a run without early work, have met the
  // notification only at its case's turn: the run is repeated without early work (report.repeated), so every case
  // gets that run's verdict.
  it('a server that dies 30 ms after the notification (--suite robustness): the run is repeated without early work; the probes before the case pass, the case fails with the death', async () => {
    const r = await zoo('zoo/dies-after-notification.py', ['--suite', 'robustness'], { code: 1, withinMs: 20_000 });
    expect(r.report.repeated).toMatchObject({
      reason: expect.stringMatching(
        /^the connection ended \d+ ms into the session, while the wait of robustness\/unknown-notification's early work/,
      ),
    });
    expect(r.c('robustness/unknown-notification')).toMatchObject({
      verdict: 'fail',
      message: expect.stringMatching(
        /^the server died \d+ ms after an unknown notification \(notifications\/mcp-conform\/unknown\), while the harness watched 150 ms .*: the server exited with code 5; last stderr lines: .*fatal: unknown notification/,
      ),
    });
    // The repeat sends the notification at the case's turn: the probes ahead of it are graded, the ones after it are
    // not run, as after any death.
    for (const id of ['invalid-json', 'not-a-message', 'wrong-jsonrpc', 'unknown-method'])
      expect(r.c(`robustness/${id}`).verdict).toBe('pass');
    for (const id of ['duplicate-id', 'large-request']) {
      expect(r.c(`robustness/${id}`)).toMatchObject({
        verdict: 'skip',
        message: expect.stringMatching(/^not run: the server exited with code 5/),
      });
    }
  }, 60_000);

  it('a server that dies 30 ms after the notification while other suites are sending: repeated without early work, the cases before robustness keep their verdicts', async () => {
    const r = await run(py('zoo/dies-after-notification.py'), ['--shutdown-grace', '500'], { timeoutMs: 50_000 });
    expect(r.report.repeated?.reason).toMatch(/robustness\/unknown-notification's early work/);
    // In the report (the repeat's), the notification went out at the case's turn, after the other suites' messages.
    const note = notes(r)[0]!;
    expect(note.seq).toBeGreaterThan(firstMsg(r, (m) => m.direction === 'to-server' && m.method === 'tools/call').seq);
    expect(r.c('robustness/unknown-notification')).toMatchObject({
      verdict: 'fail',
      message: expect.stringMatching(/^the server died \d+ ms after an unknown notification/),
    });
    // The only fail is the case's own; the suites before robustness were graded on a live server.
    const fails = r.report.suites
      .flatMap((s) => s.cases)
      .filter((c) => c.verdict === 'fail')
      .map((c) => c.id);
    expect(fails).toEqual(['robustness/unknown-notification']);
    expect(r.c('lifecycle/ping').verdict).toBe('pass');
    expect(r.c('calling/tool/add').verdict).toBe('pass');
    // The console shows each suite once (the first attempt's progress was held back) and says why the run was repeated.
    const out = mkdtempSync(join(tmpdir(), 'mcp-conform-repeat-'));
    try {
      const c = await cli(
        [
          'run',
          '--stdio',
          py('zoo/dies-after-notification.py'),
          '--suite',
          'lifecycle,listing,robustness',
          '--out-dir',
          out,
          '--reporter',
          'console',
        ],
        { env: { NO_COLOR: '1' }, timeoutMs: 50_000 },
      );
      expect(c.code).toBe(1);
      expect(c.stdout.match(/^robustness {2}/gm)).toHaveLength(1);
      expect(c.stdout.match(/^listing {2}/gm)).toHaveLength(1);
      expect(c.stdout).toMatch(
        /Run repeated without the early unknown notification \(first attempt [\d.]+ s set aside\): the connection ended/,
      );
    } finally {
      rmSync(out, { recursive: true, force: true });
    }
  }, 60_000);
});

describe('robustness/unknown-notification in 2026-07-28: sent at its turn, not early', () => {
  it("server/discover is the heartbeat before and after the notification; the watch is the same; the other suites' messages come first (a server that takes the notification for a legacy opening must not change their verdicts)", async () => {
    const r = await zoo(
      'calc-all.py',
      ['--protocol-version', '2026-07-28', '--suite', 'lifecycle,listing,robustness'],
      { code: 0, withinMs: 20_000 },
    );
    const c = r.c('robustness/unknown-notification');
    expect(c).toMatchObject({
      verdict: 'pass',
      message: expect.stringMatching(/got no answer; the server still answers server\/discover/),
    });
    const note = notes(r)[0]!;
    const hb = r.report.messages[note.seq + 1]!;
    expect(hb).toMatchObject({ direction: 'to-server', method: 'server/discover' });
    const w = watchOf(c);
    expect(w.from).toBe(firstMsg(r, (m) => m.direction === 'from-server' && m.inReplyTo === hb.seq).t);
    expect(w.until - w.from).toBeGreaterThanOrEqual(150);
    expect(note.seq).toBeGreaterThan(firstMsg(r, (m) => m.direction === 'to-server' && m.method === 'tools/list').seq);
  }, 60_000);

  it("--all-versions: each version's run has its own early window; every robustness verdict as before", async () => {
    const r = await zoo('calc-all.py', ['--all-versions', '--suite', 'lifecycle,robustness'], {
      code: 0,
      withinMs: 40_000,
    });
    const m = r.report.matrix!;
    expect(m.map((x) => x.protocolVersion)).toEqual([
      '2024-11-05',
      '2025-03-26',
      '2025-06-18',
      '2025-11-25',
      '2026-07-28',
    ]);
    // request-before-initialize is info before 2026-07-28; there it and early-server-messages do not apply (no initialize).
    for (const x of m.slice(0, 4))
      expect(x.suites!.find((s) => s.id === 'robustness')).toMatchObject({
        pass: 9,
        info: 1,
        fail: 0,
        warn: 0,
        skip: 0,
      });
    expect(m[4]!.suites!.find((s) => s.id === 'robustness')).toMatchObject({
      pass: 8,
      info: 0,
      fail: 0,
      warn: 0,
      skip: 2,
    });
  }, 90_000);
});
