/**
 * The console report prints strings the server chose (its name, text quoted in case messages, stderr lines, raw
 * messages): control characters in them must not reach the terminal, while the report's own colours still do.
 */
import { describe, expect, it } from 'vitest';
import { progressPrinter, renderConsole, safeText } from '../reports/console.js';
import { kase, makeReport, message } from './helpers/report.js';

const EVIL = 'evil\x1b[2J\x1b[32mALL PASSED\x1b]0;pwned\x07';

/** The report's own SGR colour sequences (ESC [ digits m) taken out: what is left must hold no control character. */
function withoutOwnColours(s: string): string {
  return s.replace(/\x1b\[\d+m/g, '');
}

const CONTROL = /[\x00-\x08\x0b-\x1f\x7f-\x9f]/;

function evilReport() {
  const raw = `{"jsonrpc":"2.0","id":2,"result":{"tools":[{"name":"${EVIL}"}]}}`;
  const res = message(
    5,
    { x: 1 },
    {
      raw,
      problem: 'bad \x9b31m C1 CSI',
      schema: {
        checked: true,
        valid: false,
        violations: [{ pointer: '/result/tools/0/name', message: 'must match \x1b]8;;http://x\x07link' }],
      },
    },
  );
  const r = makeReport(
    [
      kase('lifecycle/initialize', 'pass', { message: `${EVIL} 1.0 answered initialize` }),
      kase('calling/tool/t', 'fail', {
        message: 'answered "boom \x1b[8mhidden\x1b[0m\r\nspoofed line"',
        messageIds: [5],
      }),
    ],
    { server: { name: EVIL, version: '1\x1b[1A' }, messages: [res] },
  );
  r.process.stderr = ['stderr-line \x1b[31mRED\x1b[0m', 'tab\tstays', 'bidi \u202egnp.exe'];
  r.skippedTools = [{ name: 'rm\x1bc', reason: 'destructive' } as never];
  r.aborted = 'the server said \x1b[?1049h';
  return r;
}

describe('safeText', () => {
  it('makes control characters visible', () => {
    expect(safeText(EVIL)).toBe('evil\\x1b[2J\\x1b[32mALL PASSED\\x1b]0;pwned\\x07');
    expect(safeText('a\nb\rc\0d\x7fe\x9bf')).toBe('a\\nb\\rc\\x00d\\x7fe\\x9bf');
    expect(safeText('bidi \u202e x \u2066')).toBe('bidi \\u202e x \\u2066');
  });

  it('leaves ordinary text, tabs and non-ASCII alone', () => {
    expect(safeText('plain text ✓ — ü 日本 "q" \\ tab\there')).toBe('plain text ✓ — ü 日本 "q" \\ tab\there');
  });
});

describe('console report of a hostile server', () => {
  for (const color of [false, true]) {
    it(`no server-supplied control character reaches the terminal (colour ${color})`, () => {
      const text = renderConsole(evilReport(), ['/out/report.json'], { color, verbose: true });
      expect(withoutOwnColours(text)).not.toMatch(CONTROL);
      // The only line breaks are the console's own: the spoofed line is not a line of its own.
      expect(text.split('\n').some((l) => l.startsWith('spoofed line'))).toBe(false);
      expect(text).toContain('evil\\x1b[2J\\x1b[32mALL PASSED\\x1b]0;pwned\\x07');
      expect(text).toContain('boom \\x1b[8mhidden\\x1b[0m\\r\\nspoofed line');
      expect(text).toContain('stderr-line \\x1b[31mRED\\x1b[0m');
      expect(text).toContain('bidi \\u202egnp.exe');
      expect(text).toContain('bad \\x9b31m C1 CSI');
      expect(text).toContain('must match \\x1b]8;;http://x\\x07link');
      expect(text).toContain('Run ended early: the server said \\x1b[?1049h');
      expect(text).toContain('rm\\x1bc');
    });
  }

  it('the report keeps its own colours on a TTY', () => {
    const text = renderConsole(evilReport(), [], { color: true });
    expect(text).toContain('\x1b[31m✗ fail');
    expect(text).toContain('\x1b[32m1 pass'); // passes are counted by default, listed with --verbose
    expect(renderConsole(evilReport(), [], { color: true, verbose: true })).toContain('\x1b[32m✓ pass');
    expect(text).toContain('\x1b[1mmcp-conform 0.1.0 · evil\\x1b[2J');
  });

  it('grouped findings and shared causes: item names and violations from the server are escaped', () => {
    const bad = (seq: number) =>
      message(
        seq,
        { x: 1 },
        {
          method: 'tools/\x1b[2Jcall',
          schema: {
            checked: true,
            valid: false,
            violations: [{ pointer: '/result', message: 'missing \x1b]0;t\x07 "resultType"' }],
          },
        },
      );
    const items = ['a\x1b[2J', 'b\u202e', 'c\x9b1m'].map((item) =>
      kase(`quality/tool/${item}`, 'info', { item, message: `tool "${item}" has no description`, messageIds: [] }),
    );
    const fails = [1, 2, 3].map((seq) => kase(`schema/from-server/m${seq}`, 'fail', { messageIds: [seq] }));
    const r = makeReport([...items, ...fails], { messages: [bad(1), bad(2), bad(3)] });
    for (const color of [false, true]) {
      const text = renderConsole(r, [], { color });
      expect(withoutOwnColours(text)).not.toMatch(CONTROL);
      expect(text).toContain('… and 2 more quality/tool/… with the same info: b\\u202e, c\\x9b1m');
      expect(text).toContain('missing \\x1b]0;t\\x07 "resultType"');
      expect(text).toContain('tools/\\x1b[2Jcall');
    }
  });

  it('several targets: the labels (server names) are escaped too', () => {
    const a = evilReport();
    const b = makeReport([kase('lifecycle/ping', 'pass')], { server: { name: 'x\x1b]0;t\x07' } });
    const text = renderConsole({ runs: [a, b] }, [], { color: false });
    expect(text).not.toMatch(CONTROL);
    expect(text).toContain('  ✓ x\\x1b]0;t\\x07');
  });

  it('progress lines escape the label', () => {
    let out = '';
    const p = progressPrinter((s) => (out += s), false, EVIL);
    p({ id: 'lifecycle', title: 'Lifecycle', durationMs: 1, cases: [] }, 'session', [kase('lifecycle/ping', 'pass')]);
    expect(out).not.toMatch(CONTROL);
    expect(out).toContain('Testing evil\\x1b[2J');
  });
});
