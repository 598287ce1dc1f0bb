import { describe, expect, it } from 'vitest';
import { applyBaseline, parseBaseline } from '../core/baseline.js';
import { fmtDuration, progressPrinter, renderConsole, wantProgress } from '../reports/console.js';
import type { Report } from '../core/results.js';
import { accountFor } from './helpers/console-listing.js';
import { kase, makeReport, message } from './helpers/report.js';

describe('console report', () => {
  const failing = () => {
    const req = message(
      4,
      { jsonrpc: '2.0', id: 2, method: 'tools/list' },
      { direction: 'to-server', kind: 'request', method: 'tools/list' },
    );
    const res = message(
      5,
      { jsonrpc: '2.0', id: 2, result: { tools: [{ name: 'x' }] } },
      {
        method: 'tools/list',
        schema: {
          checked: true,
          valid: false,
          violations: [{ pointer: '/result/tools/0', message: 'missing required property "inputSchema"' }],
        },
      },
    );
    return makeReport(
      [
        kase('lifecycle/ping', 'pass'),
        kase('schema/from-server/tools/list', 'fail', { messageIds: [4, 5], durationMs: 1500 }),
      ],
      { messages: [req, res] },
    );
  };

  it('plain: a line per suite with its counts and duration, the cases that are not a pass, counts per verdict, what was not listed, report files, result', () => {
    const text = renderConsole({ runs: [failing()] }, ['/out/report.json'], { color: false });
    expect(text).not.toContain('\x1b[');
    expect(text).toContain('\nlifecycle  1 pass  3 ms\nschema     1 fail  3 ms\n');
    expect(text).not.toContain('lifecycle/ping'); // a pass is counted, not listed
    expect(text).toContain(
      '\n  ✗ fail  schema/from-server/tools/list — fail message of schema/from-server/tools/list (1.5 s)\n        MUST · https://modelcontextprotocol.io/specification/2025-11-25/basic\n',
    );
    expect(text).toMatch(
      /Summary: 1 pass, 0 warn, 1 fail, 0 skip, 0 info · 2 messages validated · 0\.8 s\nNot listed: 1 pass; --verbose lists every case, report\.json holds them all \(--reporter html for a page\)\nReports: \/out\/report\.json\nResult: 1 failing case\n$/,
    );
    expect(text).not.toContain('→ #4'); // exchanges only with --verbose
  });

  it('--verbose lists every case, by suite, with every duration and the exchange of each failing case, with the violations', () => {
    const text = renderConsole({ runs: [failing()] }, [], { color: false, verbose: true });
    expect(text).toContain(
      'lifecycle  Suite lifecycle  3 ms\n  ✓ pass  lifecycle/ping — pass message of lifecycle/ping (2 ms)\n',
    );
    expect(text).toContain(
      '  ✗ fail  schema/from-server/tools/list — fail message of schema/from-server/tools/list (1.5 s)\n        MUST · https://modelcontextprotocol.io/specification/2025-11-25/basic\n',
    );
    expect(text).toContain(
      '        → #4 {"jsonrpc":"2.0","id":2,"method":"tools/list"}\n        ← #5 {"jsonrpc":"2.0","id":2,"result":{"tools":[{"name":"x"}]}}\n          ✗ /result/tools/0 missing required property "inputSchema"',
    );
    expect(text).not.toContain('Not listed');
  });

  it('baselined failures and stale entries', () => {
    const r = failing();
    applyBaseline([r], parseBaseline('- id: schema\n  reason: old SDK\n- lifecycle/ping\n', '/b.yaml'));
    const text = renderConsole(r, [], false);
    expect(text).toContain('  ~ fail  schema/from-server/tools/list');
    expect(text).toContain('known failure (baseline entry schema: old SDK)');
    expect(text).toContain('Baseline /b.yaml: 1 of 2 entries excused 1 failing case');
    expect(text).toContain(
      '  ! stale  lifecycle/ping — no failure any more (lifecycle/ping: pass): remove it from the baseline',
    );
    expect(text).toContain('1 fail (1 baselined)');
    expect(text).toMatch(/Result: no failures \(1 known failure in the baseline; 1 stale baseline entry\)\n$/);
  });

  it('several targets: a block each, then the totals', () => {
    const a = makeReport([kase('lifecycle/ping', 'pass')], { name: 'alpha' });
    const b = failing();
    b.target.name = 'beta';
    const text = renderConsole({ runs: [a, b] }, ['/o/report.json'], { color: false });
    expect(text).toContain('mcp-conform 0.1.0 · alpha: demo 1.0.0 over stdio');
    expect(text).toContain('mcp-conform 0.1.0 · beta: demo 1.0.0 over stdio');
    expect(text).toMatch(
      /All targets: 2 pass, 0 warn, 1 fail, 0 skip, 0 info · 2 targets · .*\n {2}✓ alpha\n {2}✗ beta\nReports: \/o\/report.json\nResult: 1 failing case\n$/,
    );
  });

  it('colour only when asked', () => {
    expect(renderConsole(failing(), [], true)).toContain('\x1b[31m');
  });
});

describe('progress', () => {
  it('a line per suite and phase, with counts and time', () => {
    let out = '';
    const p = progressPrinter((s) => (out += s), false, 'python3 calc.py');
    const r = failing2();
    p(r.suites[0], 'session', r.suites[0].cases);
    p(r.suites[1], 'session', []);
    p(r.suites[1], 'after-shutdown', r.suites[1].cases);
    const lines = out.split('\n');
    expect(lines[0]).toBe('Testing python3 calc.py');
    expect(lines[1]).toMatch(/^ {2}▸ lifecycle {14}1 pass, 1 info {2}\d+ ms$/);
    expect(lines[2]).toMatch(/^ {2}▸ schema \(log\) {11}1 fail {2}\d+ ms$/);
    expect(lines).toHaveLength(4);
  });

  it('only on a TTY, never in CI', () => {
    const tty = { isTTY: true } as NodeJS.WriteStream;
    expect(wantProgress(tty, {})).toBe(true);
    expect(wantProgress(tty, { CI: 'true' })).toBe(false);
    expect(wantProgress(tty, { GITHUB_ACTIONS: 'true' })).toBe(false);
    expect(wantProgress({ isTTY: false } as NodeJS.WriteStream, {})).toBe(false);
  });

  it('durations read well', () => {
    expect([fmtDuration(0.4), fmtDuration(999), fmtDuration(1500), fmtDuration(-1)]).toEqual([
      '0 ms',
      '999 ms',
      '1.5 s',
      '',
    ]);
  });
});

function failing2() {
  return makeReport([
    kase('lifecycle/ping', 'pass'),
    kase('lifecycle/shutdown', 'info'),
    kase('schema/from-server/x', 'fail'),
  ]);
}

describe('the default report of a large server', () => {
  const tool = (i: number) => `tool_${String(i).padStart(5, '0')}`;
  /** 5,000 tools: every call passes but one; one finding shared by every tool, and one tool with a finding of its own. */
  function big() {
    const cases = [];
    for (let i = 0; i < 5000; i++) {
      const item = tool(i);
      cases.push(
        kase(`calling/tool/${item}`, i === 1234 ? 'fail' : 'pass', {
          item,
          message: i === 1234 ? `tools/call of "${item}" answered an error result: boom` : `"${item}" answered`,
        }),
      );
      cases.push(
        kase(`quality/tool/${item}`, 'info', {
          item,
          message: `quality/param-description: parameter "query" of ${item} has no description`,
        }),
      );
      const extra = i === 4321 ? `; gemini/format: string format "uri" at /inputSchema/properties/url` : '';
      cases.push(
        kase(`compat/gemini/${item}`, 'warn', {
          item,
          level: 'SHOULD',
          message: `Gemini rejects tool "${item}": gemini/keyword: "$schema" at /inputSchema${extra}`,
        }),
      );
    }
    for (const v of ['2026-07-28', 'http'])
      cases.push(
        kase(`tasks/extension/${v}`, 'skip', {
          message: `does not apply: protocol 2025-11-25 (the case applies from 2026-07-28 on)`,
          notApplicable: true,
        }),
      );
    return makeReport(cases);
  }

  it('fits one screen: a line per suite, each kind of finding once with the names of the other items, a single defect shown', () => {
    const r = big();
    const text = renderConsole(r, ['/out/report.json'], { color: false });
    const lines = text.trimEnd().split('\n');
    expect(lines.length).toBeLessThanOrEqual(30);
    expect(text).toContain(
      '\ncalling  1 fail, 4999 pass  3 ms\n  ✗ fail  calling/tool/tool_01234 — tools/call of "tool_01234" answered an error result: boom\n',
    );
    // The finding every tool shares: once, then the other items by name (as many as fit) and their number.
    expect(text).toMatch(
      /\n {2}i info {2}quality\/tool\/tool_00000 — quality\/param-description: parameter "query" of tool_00000 has no description\n {8}… and 4999 more quality\/tool\/… with the same info: tool_00001, tool_00002, .* and \d+ more\n/,
    );
    // The tool whose finding differs is not folded into the others.
    expect(text).toContain(
      '  ! warn  compat/gemini/tool_04321 — Gemini rejects tool "tool_04321": gemini/keyword: "$schema" at /inputSchema; gemini/format: string format "uri" at /inputSchema/properties/url\n',
    );
    expect(text).toContain('… and 4998 more compat/gemini/… with the same warn: ');
    expect(text).toContain('tasks    2 skip (not applicable)');
    expect(text).toContain('Not listed: 4999 passes and 2 skips of cases that do not apply to this run');
    expect(accountFor(text, r).missing).toEqual([]);
  });

  it('suites none of whose cases apply share one line when there are two or more', () => {
    const na = (id: string) =>
      kase(id, 'skip', {
        message: 'does not apply: protocol 2025-11-25 (the case applies from 2026-07-28 on)',
        notApplicable: true,
      });
    const r = makeReport([
      kase('lifecycle/ping', 'pass'),
      na('subscriptions/listen'),
      na('protocol-2026/meta'),
      na('protocol-2026/headers'),
      kase('schema/x', 'pass'),
    ]);
    const text = renderConsole(r, [], { color: false });
    expect(text).toMatch(/\nnot applicable {2}subscriptions \(1\), protocol-2026 \(2\)\n/);
    expect(text).not.toMatch(/^subscriptions /m);
    const one = renderConsole(makeReport([kase('lifecycle/ping', 'pass'), na('subscriptions/listen')]), [], {
      color: false,
    });
    expect(one).toContain('subscriptions  1 skip (not applicable)');
  });

  it('--verbose still lists every case', () => {
    const text = renderConsole(big(), [], { color: false, verbose: true });
    expect(text.split('\n').filter((l) => /^ {2}[✓✗!i-] /.test(l))).toHaveLength(15002);
  });

  it('many different findings of one per-item case: the first ones shown, the rest counted; failures all shown', () => {
    const warns = Array.from({ length: 30 }, (_, i) =>
      kase(`compat/openai/t${i}`, 'warn', {
        item: `t${i}`,
        message: `rule ${String.fromCharCode(97 + (i % 26))}${i >= 26 ? 'x' : ''} broken`,
      }),
    );
    const fails = Array.from({ length: 30 }, (_, i) =>
      kase(`calling/tool/t${i}`, 'fail', {
        item: `t${i}`,
        message: `defect ${String.fromCharCode(97 + (i % 26))}${i >= 26 ? 'x' : ''}`,
      }),
    );
    const r = makeReport([...warns, ...fails]);
    const text = renderConsole(r, [], { color: false });
    expect(text.split('\n').filter((l) => l.startsWith('  ! warn  compat/openai/'))).toHaveLength(8);
    expect(text).toContain(
      '    … 22 other findings of compat/openai (warn, 22 items): written with --reporter html or --reporter json\n',
    );
    expect(text.split('\n').filter((l) => l.startsWith('  ✗ fail  calling/tool/'))).toHaveLength(30);
    expect(accountFor(text, r).missing).toEqual([]);
  });

  it('a long message said already is named, not repeated', () => {
    const why = `not run: the server exited with code 1; last stderr lines: ${'x'.repeat(200)}`;
    const text = renderConsole(
      makeReport([
        kase('tasks/list', 'skip', { message: why }),
        kase('robustness/invalid-json', 'skip', { message: why }),
      ]),
      [],
      { color: false },
    );
    expect(text).toContain(`  - skip  tasks/list — ${why}\n`);
    expect(text).toContain('  - skip  robustness/invalid-json — the same message as tasks/list\n');
  });
});

describe('failures that share a cause', () => {
  const missing = (seq: number, method: string) =>
    message(
      seq,
      { jsonrpc: '2.0', id: seq, result: {} },
      {
        method,
        schema: {
          checked: true,
          valid: false,
          violations: [{ pointer: '/result', message: 'missing required property "resultType"' }],
        },
      },
    );
  function claims2026(o: { fails?: number; matrix?: boolean; version?: '2026-07-28' | '2025-11-25' } = {}) {
    const methods = ['server/discover', 'tools/list', 'tools/call', 'prompts/list'];
    const n = o.fails ?? 4;
    const msgs = methods.slice(0, n).map((m, i) => missing(i + 1, m));
    const cases = [
      kase('lifecycle/ping', 'pass'),
      ...methods.slice(0, n).map((m, i) =>
        kase(`schema/from-server/${m}`, 'fail', {
          messageIds: [i + 1],
          message: `1 of 1 messages violate the schema: ${m}`,
        }),
      ),
      kase('calling/tool/add', 'fail', { item: 'add', message: 'another defect' }),
    ];
    const version = o.version ?? '2026-07-28';
    const r = makeReport(cases, { messages: msgs, server: { protocolVersion: version } });
    r.negotiation = {
      mode: 'default',
      handshake: version === '2026-07-28' ? 'server/discover' : 'initialize',
      version,
      restarts: 0,
      steps: [
        {
          method: 'server/discover',
          offered: '2026-07-28',
          outcome: 'result',
          answered: ['2025-06-18', '2025-11-25', '2026-07-28'],
          message: '…',
        },
      ],
    } as unknown as Report['negotiation'];
    if (o.matrix) r.matrix = [];
    return r;
  }

  it('are marked with their cause, which is said once with the violation, and a partial 2026-07-28 suggests --all-versions', () => {
    const text = renderConsole(claims2026(), [], { color: false });
    expect(text).toContain(
      '  ✗ fail  schema/from-server/tools/list — [cause 1] 1 of 1 messages violate the schema: tools/list\n  ✗ fail  schema/from-server/tools/call — [cause 1]',
    );
    expect(text).toContain(
      '\nShared cause 1: 4 failing cases (MUST, marked [cause 1]) rest on answers with one schema violation: /result missing required property "resultType" in 4 messages (server/discover, tools/list, tools/call, prompts/list)\n',
    );
    expect(text).toContain(
      "The server's 2026-07-28 support looks partial (4 failing cases share one cause across several methods), and it lists 2025-11-25, 2025-06-18 too: --all-versions judges every version it serves (or --protocol-version 2025-11-25 that one).",
    );
    // The failure of its own is not in the cause, and keeps its level and spec.
    expect(text).toContain('  ✗ fail  calling/tool/add — another defect\n        MUST · ');
    expect(accountFor(text, claims2026()).missing).toEqual([]);
  });

  it('no cause for fewer than three failures; no suggestion in an --all-versions run or a 2025 run', () => {
    expect(renderConsole(claims2026({ fails: 2 }), [], { color: false })).not.toMatch(/Shared cause|\[cause/);
    const all = renderConsole(claims2026({ matrix: true }), [], { color: false });
    expect(all).toContain('Shared cause 1: 4 failing cases');
    expect(all).not.toContain('--all-versions judges');
    expect(renderConsole(claims2026({ version: '2025-11-25' }), [], { color: false })).not.toContain(
      'support looks partial',
    );
  });

  it('in a per-item case, items of one cause keep their own lines (a cause never hides a failure)', () => {
    const msgs = [1, 2, 3].map((seq) => missing(seq, 'tools/call'));
    const r = makeReport(
      ['a', 'b', 'c'].map((t, i) =>
        kase(`calling/tool/${t}`, 'fail', { item: t, messageIds: [i + 1], message: 'the result violates the schema' }),
      ),
      { messages: msgs },
    );
    const text = renderConsole(r, [], { color: false });
    expect(text).toContain(
      '  ✗ fail  calling/tool/a — [cause 1] the result violates the schema\n        … and 2 more calling/tool/… with the same fail: b, c\n',
    );
    expect(text).not.toContain('support looks partial'); // one method: not the shape of answers in general
  });
});

describe('--verbose with a shared cause', () => {
  it('keeps every line it had (level and spec under each failure) and marks the cause', () => {
    const bad = (seq: number) =>
      message(
        seq,
        { x: 1 },
        {
          method: `m${seq}`,
          schema: {
            checked: true,
            valid: false,
            violations: [{ pointer: '/result', message: 'missing required property "resultType"' }],
          },
        },
      );
    const r = makeReport(
      [1, 2, 3].map((i) => kase(`schema/from-server/m${i}`, 'fail', { messageIds: [i] })),
      { messages: [bad(1), bad(2), bad(3)] },
    );
    const text = renderConsole(r, [], { color: false, verbose: true });
    expect(text).toContain(
      '  ✗ fail  schema/from-server/m2 — [cause 1] fail message of schema/from-server/m2 (2 ms)\n        MUST · https://modelcontextprotocol.io/specification/2025-11-25/basic\n        ← #2 {"x":1}\n',
    );
    expect(text).toContain('Shared cause 1: 3 failing cases');
  });
});

describe('--all-versions', () => {
  it('a failure in an older version, which the cases above do not show, is named in the result with how to see it', () => {
    const r = makeReport([kase('lifecycle/ping', 'pass')]);
    const entry = (v: string, fail: number) => ({
      protocolVersion: v,
      accepted: true,
      summary: { ...r.summary, fail },
      suites: [],
    });
    r.matrix = [entry('2024-11-05', 1), entry('2025-03-26', 2), entry('2025-11-25', 0)] as Report['matrix'];
    r.exitCode = 1;
    expect(renderConsole(r, [], { color: false })).toMatch(
      /\nResult: failing cases in another version \(1 in 2024-11-05, 2 in 2025-03-26\): --protocol-version 2024-11-05 lists them\n$/,
    );
  });
});

describe('a second start after server/discover', () => {
  const withRestart = (target: Report['target']): Report => {
    const r = makeReport([kase('lifecycle/ping', 'pass')]);
    r.target = target;
    r.negotiation = {
      mode: 'default',
      handshake: 'initialize',
      version: '2025-11-25',
      restarts: 1,
      steps: [
        {
          method: 'server/discover',
          offered: '2026-07-28',
          outcome: 'timeout',
          message: 'server/discover hung',
          restartedAfter: true,
        },
      ],
    } as Report['negotiation'];
    return r;
  };

  it('a server the run started is said to be started twice; one reached by URL, to be connected to twice', () => {
    const started = renderConsole(withRestart({ transport: 'stdio', command: 'python3 s.py', argv: [] }), [], false);
    expect(started).toContain('The server was started twice: server/discover hung');
    const reached = renderConsole(
      withRestart({ transport: 'streamable-http', url: 'http://127.0.0.1:9/mcp' }),
      [],
      false,
    );
    expect(reached).toContain('The run connected to the server twice: server/discover hung');
    expect(reached).not.toContain('started twice');
  });
});
