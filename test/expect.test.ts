/**
 * Expectation files (run --expect, suite expect; docs/expectations.md) as a user runs them: the example passes
 * against a server that behaves so and fails with expected and actual against one that does not; a malformed file is
 * exit 2 naming it and the place; expectations share one run and one report with the built-in suites; --update-expect
 * rewrites only the values checked; `expect --from-cassette` turns a session into a file a later run passes. A real
 * server nobody here wrote (server-memory): test/expect-peers.test.ts.
 */
import { copyFileSync, mkdtempSync, readFileSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { describe, expect, it } from 'vitest';
import { cli, py, ROOT, run } from './helpers/cli.js';

const EXAMPLE = join(ROOT, 'fixtures', 'expect', 'notes-calc.expect.yaml');
const tmp = () => mkdtempSync(join(tmpdir(), 'mcp-conform-expect-'));

describe('run --expect', () => {
  it('the example passes against notes-calc.py, each expectation a case expect/<slug>, in file order', async () => {
    const r = await run(py('notes-calc.py'), ['--expect', EXAMPLE, '--suite', 'expect']);
    expect(r.code, r.stderr).toBe(0);
    expect(r.report.suites.map((s) => s.id)).toEqual(['expect']);
    expect(r.report.suites[0]!.cases.map((c) => [c.id, c.verdict])).toEqual([
      ['expect/adds-two-integers', 'pass'],
      ['expect/divides-with-structured-output', 'pass'],
      ['expect/division-by-zero-is-a-tool-error', 'pass'],
      ['expect/an-unknown-method-is-refused', 'pass'],
      ['expect/lists-its-tools', 'pass'],
      ['expect/keeps-a-note', 'pass'],
      ['expect/reads-the-note-back-by-its-id', 'pass'],
      ['expect/reads-a-resource', 'pass'],
      ['expect/fills-in-the-greeting-prompt', 'pass'],
    ]);
    expect(r.c('expect/adds-two-integers').title).toBe('adds two integers');
    // The saved id went into the next call: the note read back is the one created.
    const sent = r.report.messages
      .filter((m) => m.direction === 'to-server' && m.method === 'tools/call')
      .map((m) => (m.json as { params: { name: string; arguments: unknown } }).params);
    expect(sent).toContainEqual({ name: 'get_note', arguments: { id: 'n1' } });
    // Tools nobody annotated read-only: --call-tools safe leaves them to the expectations (which name them), and
    // nothing else calls them.
    expect(r.report.options.callTools).toBe('safe');
    expect(sent.map((p) => p.name)).toEqual([
      'integer_addition',
      'integer_division',
      'integer_division',
      'create_note',
      'get_note',
    ]);
  });

  it('fails against a server that answers wrongly, with expected and actual side by side (and a structural diff)', async () => {
    const r = await run(py('broken/expect-wrong.py'), ['--expect', EXAMPLE, '--suite', 'expect']);
    expect(r.code).toBe(1);
    expect(r.verdicts('expect/')).toEqual({
      'expect/adds-two-integers': 'fail',
      'expect/divides-with-structured-output': 'fail',
      'expect/division-by-zero-is-a-tool-error': 'fail',
      'expect/an-unknown-method-is-refused': 'pass',
      'expect/lists-its-tools': 'pass',
      'expect/keeps-a-note': 'fail',
      'expect/reads-the-note-back-by-its-id': 'fail',
      'expect/reads-a-resource': 'pass',
      'expect/fills-in-the-greeting-prompt': 'pass',
    });
    expect(r.c('expect/adds-two-integers').message).toMatch(
      /text: expected "5", got "6" \(notes-calc\.expect\.yaml:5\)$/,
    );
    const div = r.c('expect/divides-with-structured-output');
    expect(div.message).toMatch(
      /structuredContent differs: \/quotient expected 3\.5, got 3; \/structuredContent\/remainder: expected 1, but nothing is there/,
    );
    expect(div.details!.checks).toContainEqual({
      check: 'structuredContent',
      ok: false,
      expected: { quotient: 3.5 },
      actual: { quotient: 3 },
      diff: [{ at: '/quotient', expected: 3.5, actual: 3 }],
    });
    expect(r.c('expect/division-by-zero-is-a-tool-error').message).toMatch(
      /isError: expected true, got false .*textContains: expected the text to contain "zero", got "\{\\"quotient\\": 0\}"/,
    );
    expect(div.messageIds.length).toBe(2);
  });

  it('shares one run and one report with the built-in suites (console, junit, html and the baseline too)', async () => {
    const out = tmp();
    const baseline = join(out, 'known.yaml');
    writeFileSync(
      baseline,
      'version: 1\nfailures:\n  - {id: expect/adds-two-integers, reason: off by one until the fix is released}\n',
    );
    const r = await cli([
      'run',
      '--stdio',
      py('broken/expect-wrong.py'),
      '--expect',
      EXAMPLE,
      '--suite',
      'lifecycle,expect,schema',
      '--reporter',
      'json',
      '--reporter',
      'junit',
      '--reporter',
      'html',
      '--reporter',
      'console',
      '--baseline',
      baseline,
      '--out-dir',
      out,
    ]);
    expect(r.code).toBe(1); // four other expectations fail
    const report = JSON.parse(readFileSync(join(out, 'report.json'), 'utf8')) as import('../core/results.js').Report;
    expect(report.suites.map((s) => s.id)).toEqual(['lifecycle', 'expect', 'schema']);
    const add = report.suites[1]!.cases.find((c) => c.id === 'expect/adds-two-integers')!;
    expect(add).toMatchObject({ verdict: 'fail', baselined: true });
    // One session: the expectations' messages are in the one log the schema suite checked.
    expect(
      report.messages.some(
        (m) =>
          m.method === 'create_note' ||
          (m.json as { params?: { name?: string } } | undefined)?.params?.name === 'create_note',
      ),
    ).toBe(true);
    expect(report.suites[2]!.cases.every((c) => c.verdict !== 'fail')).toBe(true);
    expect(r.stdout).toContain('expect/divides-with-structured-output');
    expect(r.stdout).toContain('known failure (baseline entry expect/adds-two-integers: off by one');
    const junit = readFileSync(join(out, 'junit.xml'), 'utf8');
    expect(junit).toMatch(/<testcase [^>]*name="expect\/keeps-a-note[^"]*"/);
    expect(junit).toContain('structuredContent differs: /text expected &quot;buy milk&quot;, got &quot;&quot;');
    const html = readFileSync(join(out, 'report.html'), 'utf8');
    expect(html).toContain('expect/reads-the-note-back-by-its-id');
  });

  it('a file that does not parse or fit the format is exit 2, naming the file, the line and the place', async () => {
    const dir = tmp();
    const bad: Record<string, [string, RegExp]> = {
      'type.yaml': [
        'expectations:\n  - name: x\n    call: a\n    expect: {text: 5}\n',
        /type\.yaml:4:20 \(at expectations\[0\]\.expect\.text\): must be string/,
      ],
      'forms.yaml': [
        'expectations:\n  - name: x\n    call: a\n    request: b\n',
        /forms\.yaml:2:5 \(at expectations\[0\]\): an expectation has exactly one of call, request, read, prompt, tools \(found call and request\)/,
      ],
      'yaml.yaml': ['expectations:\n  - name: x\n    call: [a\n', /yaml\.yaml:\d+:\d+: not valid YAML/],
      'key.json': [
        '{"expectations": [{"name": "x", "call": "a", "expect": {"isErr": true}}]}',
        /key\.json:1:\d+ \(at expectations\[0\]\.expect\.isErr\): unknown key "isErr"/,
      ],
      'ref.yaml': [
        'expectations:\n  - name: x\n    call: a\n    arguments: {id: "${nope.id}"}\n',
        /ref\.yaml:4:\d+ \(at expectations\[0\]\.arguments\.id\): \$\{nope…\} names no answer saved by an earlier expectation/,
      ],
      'version.yaml': [
        'version: 2\nexpectations: []\n',
        /version\.yaml:1:10 \(at version\): version 2 is not one this mcp-conform reads/,
      ],
      'dup.yaml': [
        'expectations:\n  - name: Adds!\n    call: a\n  - name: adds\n    call: b\n',
        /dup\.yaml:4:11 \(at expectations\[1\]\.name\): the name gives the case id expect\/adds, as expectation 1/,
      ],
      'regex.yaml': [
        'expectations:\n  - name: x\n    call: a\n    expect: {textMatches: "(unclosed"}\n',
        /regex\.yaml:4:\d+ \(at expectations\[0\]\.expect\.textMatches\): not a regular expression/,
      ],
    };
    for (const [name, [text, want]] of Object.entries(bad)) {
      writeFileSync(join(dir, name), text);
      const r = await cli(['run', '--stdio', py('notes-calc.py'), '--expect', join(dir, name), '--out-dir', dir]);
      expect(r.code, name).toBe(2);
      expect(r.stderr, name).toMatch(want);
      expect(r.stderr).toContain(join(dir, name));
    }
    const missing = await cli(['run', '--stdio', py('notes-calc.py'), '--expect', join(dir, 'nope.yaml')]);
    expect(missing.code).toBe(2);
    expect(missing.stderr).toMatch(/--expect: cannot read the expectation file .*nope\.yaml: ENOENT/);
  });

  it('an expectation whose own answer breaks the schema warns, naming the violation, though its checks hold', async () => {
    const dir = tmp();
    const file = join(dir, 'sv.yaml');
    writeFileSync(
      file,
      'expectations:\n  - name: adds\n    call: add\n    arguments: {a: 1, b: 2}\n    expect: {isError: false}\n',
    );
    const r = await run(py('broken/schema-violation.py'), ['--expect', file, '--suite', 'expect,schema']);
    expect(r.c('expect/adds')).toMatchObject({
      verdict: 'warn',
      message: expect.stringMatching(
        /^tools\/call add \{"a":1,"b":2\}: isError false as expected, but the exchange breaks the schema: answer \/result\/content\/0 .*\(see the schema suite\)$/,
      ),
    });
    const strict = await run(py('broken/schema-violation.py'), ['--expect', file, '--suite', 'expect', '--strict']);
    expect(strict.c('expect/adds').verdict).toBe('fail');
  });

  it('--case runs one expectation; one that uses what an expectation not run would have saved fails, saying so', async () => {
    const one = await run(py('notes-calc.py'), ['--expect', EXAMPLE, '--case', 'expect/reads-the-note-back-by-its-id']);
    expect(one.report.suites.flatMap((s) => s.cases).map((c) => c.id)).toEqual([
      'expect/reads-the-note-back-by-its-id',
    ]);
    expect(one.c('expect/reads-the-note-back-by-its-id')).toMatchObject({
      verdict: 'fail',
      message: expect.stringMatching(
        /^\$\{created\.structuredContent\.id\}: nothing was saved as "created" \(the expectation that saves it failed before it had an answer, or was not run\)/,
      ),
    });
    expect(one.report.messages.some((m) => m.method === 'tools/call')).toBe(false);
  });

  it('the config key expect is resolved against the config file and reaches the suite', async () => {
    const dir = tmp();
    copyFileSync(EXAMPLE, join(dir, 'mine.expect.yaml'));
    writeFileSync(
      join(dir, 'c.yaml'),
      `targets:\n  - stdio: ${py('notes-calc.py')}\nexpect: [mine.expect.yaml]\nsuites: [expect]\n`,
    );
    const r = await cli(['run', '--config', join(dir, 'c.yaml'), '--out-dir', dir, '--reporter', 'json', '--quiet']);
    expect(r.code, r.stderr).toBe(0);
    const report = JSON.parse(readFileSync(join(dir, 'report.json'), 'utf8')) as import('../core/results.js').Report;
    expect(report.options.expect).toEqual([join(dir, 'mine.expect.yaml')]);
    expect(report.suites[0]!.cases).toHaveLength(9);
  });

  it('--update-expect rewrites only the failing values; order, layout and comments stay; a check it cannot derive keeps failing', async () => {
    const dir = tmp();
    const file = join(dir, 'calc.expect.yaml');
    copyFileSync(EXAMPLE, file);
    const before = readFileSync(file, 'utf8');
    const r = await run(py('broken/expect-wrong.py'), ['--expect', file, '--suite', 'expect', '--update-expect']);
    expect(r.code).toBe(1);
    expect(r.c('expect/adds-two-integers')).toMatchObject({
      verdict: 'pass',
      message: expect.stringMatching(/^updated in .*calc\.expect\.yaml:5: text "6" \(was "5"\)/),
    });
    expect(r.c('expect/division-by-zero-is-a-tool-error')).toMatchObject({
      verdict: 'fail',
      message: expect.stringMatching(/left as they are \(not derived from an answer\): textContains/),
    });
    const after = readFileSync(file, 'utf8');
    const changed = (a: string, b: string) => a.split('\n').filter((l) => !b.split('\n').includes(l));
    expect(changed(before, after)).toEqual([
      '    expect: {isError: false, text: "5", maxMs: 5000}',
      '      structuredContent: {quotient: 3.5}   # members given must be equal (deep); others ignored',
      '        /structuredContent/remainder: 1',
      '    expect: {isError: true, textContains: "zero"}',
      '      structuredContent: {text: buy milk}',
      '    expect: {text: buy milk}',
    ]);
    expect(changed(after, before)).toEqual([
      '    expect: {isError: false, text: "6", maxMs: 5000}',
      '      structuredContent: {quotient: 3}   # members given must be equal (deep); others ignored',
      '    expect: {isError: false, textContains: "zero"}',
      '      structuredContent: {text: ""}',
      '    expect: {text: ""}',
    ]);
    const again = await run(py('broken/expect-wrong.py'), ['--expect', file, '--suite', 'expect']);
    expect(Object.entries(again.verdicts('expect/')).filter(([, v]) => v !== 'pass')).toEqual([
      ['expect/division-by-zero-is-a-tool-error', 'fail'],
    ]);
  });

  it('--update-expect turns a result expectation into an error one and back (block YAML and JSON), and the file still fits', async () => {
    const dir = tmp();
    const yaml = join(dir, 'u.yaml');
    writeFileSync(
      yaml,
      [
        'expectations:',
        '  - name: a method that is not there',
        '    request: mcp-conform/nothing-here',
        '    expect:',
        '      # what it should say',
        '      text: hello',
        '      isError: false',
        '  - name: zero division',
        '    call: integer_division',
        '    arguments: {a: 1, b: 0}',
        '    expect:',
        '      error: {code: -32602}   # before the fix',
        '',
      ].join('\n'),
    );
    const json = join(dir, 'u.json');
    writeFileSync(
      json,
      '{\n  "expectations": [\n    { "name": "j", "call": "integer_division", "arguments": { "a": 1, "b": 0 }, "expect": { "error": { "code": -32602 } } }\n  ]\n}\n',
    );
    const r = await run(py('notes-calc.py'), [
      '--expect',
      yaml,
      '--expect',
      json,
      '--suite',
      'expect',
      '--update-expect',
    ]);
    expect(r.code, JSON.stringify(r.report.suites)).toBe(0);
    expect(readFileSync(yaml, 'utf8')).toBe(
      [
        'expectations:',
        '  - name: a method that is not there',
        '    request: mcp-conform/nothing-here',
        '    expect:',
        '      # what it should say',
        '      error: {code: -32601}',
        '  - name: zero division',
        '    call: integer_division',
        '    arguments: {a: 1, b: 0}',
        '    expect:',
        '      isError: true',
        '',
      ].join('\n'),
    );
    expect(readFileSync(json, 'utf8')).toBe(
      '{\n  "expectations": [\n    { "name": "j", "call": "integer_division", "arguments": { "a": 1, "b": 0 }, "expect": { "isError": true } }\n  ]\n}\n',
    );
    const again = await run(py('notes-calc.py'), ['--expect', yaml, '--expect', json, '--suite', 'expect']);
    expect(again.code).toBe(0);
    expect(Object.values(again.verdicts('expect/'))).toEqual(['pass', 'pass', 'pass']);
  });

  it('expect --from-cassette writes what the server answered; a later run of that file passes', async () => {
    const dir = tmp();
    const cassette = join(dir, 's.cassette.jsonl');
    const rec = await run(py('notes-calc.py'), ['--expect', EXAMPLE, '--suite', 'expect', '--record', cassette]);
    expect(rec.code).toBe(0);
    const out = join(dir, 'from.expect.yaml');
    const g = await cli(['expect', '--from-cassette', cassette, '--out', out]);
    expect(g.code, g.stderr).toBe(0);
    expect(g.stderr).toMatch(
      /8 expectations written to .*from\.expect\.yaml; left out: .*1 initialize.*1 mcp-conform\/nothing-here/,
    );
    const text = readFileSync(out, 'utf8');
    expect(text).toContain(
      '    call: integer_division\n    arguments: {a: 7, b: 2}\n    expect: {isError: false, structuredContent: {quotient: 3.5, remainder: 1}}\n',
    );
    expect(text).toContain('    tools: {exactly: [integer_addition, integer_division, create_note, get_note]}\n');
    expect(text).toContain('    prompt: greet\n    arguments: {name: Ada}\n    expect: {text: Say hello to Ada.}\n');
    const again = await run(py('notes-calc.py'), ['--expect', out, '--suite', 'expect']);
    expect(again.code).toBe(0);
    expect(again.report.suites[0]!.cases.map((c) => c.verdict)).toEqual(Array(8).fill('pass'));
    // …and the wrong server fails it.
    const wrong = await run(py('broken/expect-wrong.py'), ['--expect', out, '--suite', 'expect']);
    expect(wrong.code).toBe(1);
    // The file is there now: nothing is overwritten without --force.
    const twice = await cli(['expect', '--from-cassette', cassette, '--out', out]);
    expect(twice.code).toBe(2);
    expect(twice.stderr).toMatch(/--out: .*from\.expect\.yaml is there already \(--force replaces it/);
  });
});
