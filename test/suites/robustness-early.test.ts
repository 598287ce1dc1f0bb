/**
 * robustness/unknown-notification's early window (issue 17): the notification is sent when the session phase begins,
 * its 150 ms watch runs while the other suites work, and the case grades it at its turn — with the same verdicts as
 * when it watched alone. Real processes (fixtures/servers/zoo) and the in-process fake server.
 */
import { describe, expect, it } from 'vitest';
import type { CaseResult, Report } from '../../core/results.js';
import { runFake, standard } from '../helpers/fake-server.js';
import { notPassing, zoo } from '../helpers/zoo.js';
import { py, run } from '../helpers/cli.js';

const NOTE = 'notifications/mcp-conform/unknown';
type Msg = Report['messages'][number];

/** The unknown notifications in the log, in order. */
const notes = (r: { report: Report }): Msg[] => r.report.messages.filter((m) => m.direction === 'to-server' && m.method === NOTE);
/** The first message of the log that matches. */
const first = (r: { report: Report }, f: (m: Msg) => boolean): Msg => r.report.messages.find(f)!;
const watchOf = (c: CaseResult) => c.details?.watch as { from: number; until: number };

describe('robustness/unknown-notification: the watch window overlaps the other suites', () => {
  it('a conformant server: the notification goes out before the other suites\' messages, the watch lasts ≥ 150 ms after the ping answer, the case keeps its place', async () => {
    const r = await zoo('calc.py', [], { code: 0, withinMs: 20_000 });
    const c = r.c('robustness/unknown-notification');
    expect(c).toMatchObject({ verdict: 'pass', message: expect.stringMatching(/got no answer; the server still answers ping/) });
    const [note, ...more] = notes(r);
    expect(more).toEqual([]); // sent once
    // Before every message of the other suites: lifecycle/ping's ping and listing's tools/list come after it.
    const toolsList = first(r, (m) => m.direction === 'to-server' && m.method === 'tools/list');
    expect(note!.seq).toBeLessThan(toolsList.seq);
    const pings = r.report.messages.filter((m) => m.direction === 'to-server' && m.method === 'ping');
    expect(pings.filter((m) => m.seq < note!.seq)).toHaveLength(1); // only the heartbeat that shows the probes can be graded
    // The heartbeat right after it, its answer, and the watch from that answer: at least 150 ms on the log's clock.
    const hb = r.report.messages[note!.seq + 1]!;
    expect(hb).toMatchObject({ direction: 'to-server', method: 'ping' });
    const hbAnswer = first(r, (m) => m.direction === 'from-server' && m.inReplyTo === hb.seq);
    const w = watchOf(c);
    expect(w.from).toBe(hbAnswer.t);
    expect(w.until - w.from).toBeGreaterThanOrEqual(150);
    expect(c.messageIds).toEqual([note!.seq, hb.seq, hbAnswer.seq]);
    // Other suites sent while the window was open, and the robustness probes that catch any answer came after it closed.
    expect(r.report.messages.some((m) => m.direction === 'to-server' && m.t > w.from && m.t < w.until && m.method !== 'ping')).toBe(true);
    const invalidJson = first(r, (m) => m.direction === 'to-server' && m.kind === 'invalid');
    expect(invalidJson.t).toBeGreaterThanOrEqual(w.until);
    // Its place in the report stays where it was.
    const ids = r.report.suites.find((s) => s.id === 'robustness')!.cases.map((x) => x.id);
    expect(ids.indexOf('robustness/unknown-notification')).toBe(ids.indexOf('robustness/unknown-method') + 1);
    expect(ids.indexOf('robustness/duplicate-id')).toBe(ids.indexOf('robustness/unknown-notification') + 1);
  }, 60_000);

  it('a server that answers the notification 40 ms late (error, id null), while other suites are sending: the case still fails', async () => {
    const r = await zoo('zoo/answers-notifications-late.py', [], { code: 1, withinMs: 20_000 });
    expect(notPassing(r)).toEqual({ 'robustness/unknown-notification': 'fail', 'robustness/request-before-initialize': 'info' });
    const c = r.c('robustness/unknown-notification');
    expect(c.message).toMatch(/^the notification was answered: \{"jsonrpc":"2.0","id":null,"error":\{"code":-32601/);
    // The first answer came after other suites had sent (it could have been theirs): the notification was sent again, alone.
    const [early, again] = notes(r);
    const lateAnswer = first(r, (m) => m.direction === 'from-server' && m.kind === 'error' && m.json !== undefined && (m.json as { id?: unknown }).id === null);
    expect(lateAnswer.seq).toBeGreaterThan(early!.seq);
    expect(r.report.messages.some((m) => m.direction === 'to-server' && m.seq > early!.seq && m.seq < lateAnswer.seq && ['tools/list', 'tools/call'].includes(m.method ?? ''))).toBe(true);
    expect(again).toBeDefined();
    expect(c.details?.repeated).toMatch(new RegExp(`message ${early!.seq}\\).*messages ${lateAnswer.seq}\\b.*sent again, alone`));
    const answer = r.report.messages.find((m) => m.direction === 'from-server' && m.inReplyTo === again!.seq)!;
    expect(c.messageIds).toContain(answer.seq);
    expect(c.messageIds).toContain(again!.seq);
  }, 60_000);

  it('a server that dies 30 ms after the notification: laid on the notification when nothing else was sent meanwhile (--suite robustness)', async () => {
    const r = await zoo('zoo/dies-after-notification.py', ['--suite', 'robustness'], { code: 1, withinMs: 20_000 });
    expect(r.c('robustness/unknown-notification')).toMatchObject({
      verdict: 'fail',
      message: expect.stringMatching(/^the server died \d+ ms after an unknown notification \(notifications\/mcp-conform\/unknown\), while the harness watched 150 ms .*: the server exited with code 5; last stderr lines: .*fatal: unknown notification/),
    });
    // The probes that waited for the window to close are not blamed: they were not run, as after any death.
    for (const id of ['invalid-json', 'not-a-message', 'wrong-jsonrpc', 'unknown-method', 'duplicate-id', 'large-request']) {
      expect(r.c(`robustness/${id}`)).toMatchObject({ verdict: 'skip', message: expect.stringMatching(/^not run: the server exited with code 5/) });
    }
  }, 60_000);

  it('a server that dies 30 ms after the notification while other suites are sending: the death is not laid on the notification; whatever was running reports it', async () => {
    const r = await run(py('zoo/dies-after-notification.py'), ['--shutdown-grace', '500'], { timeoutMs: 50_000 });
    // Other messages went out between the notification and the death: either may have caused it.
    expect(r.c('robustness/unknown-notification')).toMatchObject({ verdict: 'skip', message: expect.stringMatching(/^not run: the server exited with code 5; last stderr lines: .*fatal: unknown notification/) });
    const note = notes(r)[0]!;
    expect(r.report.messages.some((m) => m.direction === 'to-server' && m.seq > note.seq + 1 && m.method !== 'ping')).toBe(true);
    // Every failure there is, is the exit itself (the request in flight when it came), never a verdict on an answer.
    const fails = r.report.suites.flatMap((s) => s.cases).filter((c) => c.verdict === 'fail');
    for (const c of fails) expect(c.message).toMatch(/the server exited with code 5/);
  }, 60_000);
});

describe('robustness/unknown-notification early: 2026-07-28', () => {
  it('server/discover is the heartbeat before and after the notification; the watch is the same', async () => {
    const r = await zoo('calc-all.py', ['--protocol-version', '2026-07-28', '--suite', 'lifecycle,listing,robustness'], { code: 0, withinMs: 20_000 });
    const c = r.c('robustness/unknown-notification');
    expect(c).toMatchObject({ verdict: 'pass', message: expect.stringMatching(/got no answer; the server still answers server\/discover/) });
    const note = notes(r)[0]!;
    const hb = r.report.messages[note.seq + 1]!;
    expect(hb).toMatchObject({ direction: 'to-server', method: 'server/discover' });
    const w = watchOf(c);
    expect(w.from).toBe(first(r, (m) => m.direction === 'from-server' && m.inReplyTo === hb.seq).t);
    expect(w.until - w.from).toBeGreaterThanOrEqual(150);
    expect(note.seq).toBeLessThan(first(r, (m) => m.direction === 'to-server' && m.method === 'tools/list').seq);
  }, 60_000);

  it('--all-versions: each version\'s run has its own early window; every robustness verdict as before', async () => {
    const r = await zoo('calc-all.py', ['--all-versions', '--suite', 'lifecycle,robustness'], { code: 0, withinMs: 40_000 });
    const m = r.report.matrix!;
    expect(m.map((x) => x.protocolVersion)).toEqual(['2024-11-05', '2025-03-26', '2025-06-18', '2025-11-25', '2026-07-28']);
    // request-before-initialize is info before 2026-07-28; there it and early-server-messages do not apply (no initialize).
    for (const x of m.slice(0, 4)) expect(x.suites!.find((s) => s.id === 'robustness')).toMatchObject({ pass: 9, info: 1, fail: 0, warn: 0, skip: 0 });
    expect(m[4]!.suites!.find((s) => s.id === 'robustness')).toMatchObject({ pass: 8, info: 0, fail: 0, warn: 0, skip: 2 });
  }, 90_000);
});

describe('robustness/unknown-notification early: attribution (fake server)', () => {
  it('a server that dies of the notification at once: the case fails with the death; every other case is not run', async () => {
    const r = await runFake((raw, msg, api) => {
      if (msg?.method === NOTE) return api.die(6, 'fatal: unknown notification');
      standard(raw, msg, api);
    }, ['lifecycle', 'listing', 'robustness']);
    expect(r.c('robustness/unknown-notification')).toMatchObject({ verdict: 'fail', message: expect.stringMatching(/^the server died after an unknown notification: ping \(id \d+\) not answered: the server exited with code 6.*fatal: unknown notification/) });
    expect(r.c('lifecycle/ping')).toMatchObject({ verdict: 'skip', message: expect.stringMatching(/^not run: the server exited with code 6/) });
    expect(r.c('robustness/invalid-json').verdict).toBe('skip');
    expect(r.report.exitCode).toBe(1);
  });

  it('a server that stops answering after the notification: the case fails ("stopped answering"), not skipped', async () => {
    const r = await runFake((raw, msg, api) => {
      if (msg?.method === NOTE) return api.hang();
      standard(raw, msg, api);
    }, ['lifecycle', 'robustness']);
    expect(r.c('robustness/unknown-notification')).toMatchObject({ verdict: 'fail', message: expect.stringMatching(/^the server stopped answering after an unknown notification: ping \(id \d+\) not answered within 400 ms/) });
  });

  it('an answer with id null to another case\'s request during the window is not taken for an answer to the notification', async () => {
    const r = await runFake((raw, msg, api) => {
      // An error with id null first (a server that could not tell which request it answers), then the list.
      if (msg?.method === 'tools/list') { api.send({ jsonrpc: '2.0', id: null, error: { code: -32603, message: 'cannot list' } }); return api.later(1, () => standard(raw, msg, api)); }
      standard(raw, msg, api);
    }, ['lifecycle', 'listing', 'robustness']);
    expect(r.c('robustness/unknown-notification')).toMatchObject({ verdict: 'pass', details: { repeated: expect.stringMatching(/sent again, alone/) } });
    expect(notes(r)).toHaveLength(2);
    const answer = r.report.messages.find((m) => m.direction === 'from-server' && m.raw.includes('cannot list'))!;
    expect(answer.inReplyTo).toBeUndefined(); // left as it came, as without the window
  });

  it('an answer with an unknown id during the window stays an id anomaly (lifecycle/ids-matched fails, as without the window)', async () => {
    const r = await runFake((raw, msg, api) => {
      if (msg?.method === 'tools/list') { api.send({ jsonrpc: '2.0', id: 999, result: { tools: [] } }); return api.later(1, () => standard(raw, msg, api)); }
      standard(raw, msg, api);
    }, ['lifecycle', 'listing', 'robustness']);
    expect(r.c('lifecycle/ids-matched')).toMatchObject({ verdict: 'fail', message: expect.stringMatching(/answer for id never sent 999/) });
    expect(r.c('robustness/unknown-notification').verdict).toBe('pass');
  });

  it('--case robustness/unknown-notification alone: the window is waited at its turn', async () => {
    const r = await runFake(standard, ['robustness'], { caseFilter: ['robustness/unknown-notification'] });
    const c = r.c('robustness/unknown-notification');
    expect(c.verdict).toBe('pass');
    expect(watchOf(c).until - watchOf(c).from).toBeGreaterThanOrEqual(150);
    expect(r.all.map((x) => x.id)).toEqual(['robustness/unknown-notification']);
  });

  it('the run stopped while the window is open: the case is not run, nothing hangs', async () => {
    const r = await runFake(standard, ['lifecycle', 'robustness'], { maxDurationMs: 60 });
    expect(r.report.aborted).toMatch(/time limit of 60 ms/);
    expect(r.c('robustness/unknown-notification')).toMatchObject({ verdict: 'skip', message: expect.stringMatching(/^not (run|finished): the run reached its time limit/) });
  });
});
