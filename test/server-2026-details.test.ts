/**
 * The 2026-07-28 server verdicts beyond multi round-trip requests and tasks, each graded by the text of its own protocol
 * version: resources/read of an unknown URI (-32002 a SHOULD up to 2025-11-25, -32602 a MUST from 2026-07-28, never
 * an empty contents array), the per-request logLevel of 2026-07-28 (no message below it), tool input schemas in the
 * 2020-12 dialect ($defs, $anchor, conditionals, a $ref by the schema's own $id; a dangling $ref fails, a network
 * $ref warns), and elicitation forms with defaults and enum forms (the per-message schema check judges them).
 */
import { describe, expect, it } from 'vitest';
import { py, run } from './helpers/cli.js';

describe('resources/unknown-uri, by the text of each version', () => {
  it('an empty contents array fails in 2026-07-28 (named as such) and warns in 2025-11-25; -32002 fails in 2026-07-28 and passes in 2025-11-25; -32603 warns in both', async () => {
    const read = (env: string[]) =>
      run(py('broken/resource-unknown-empty.py'), ['--suite', 'resources', ...env.flatMap((e) => ['--env', e])]);
    const [empty, old, internal] = await Promise.all([
      read(['ERA=2026']),
      read(['ERA=2026', 'CODE=-32002']),
      read(['ERA=2026', 'CODE=-32603']),
    ]);
    const era = (r: typeof empty, v: string) =>
      r.report.suites.flatMap((s) => s.cases).find((c) => c.id === 'resources/unknown-uri' && c.protocolVersion === v)!;
    expect(era(empty, '2026-07-28')).toMatchObject({
      verdict: 'fail',
      message: expect.stringMatching(
        /answered an empty contents array, which this version forbids .* instead of error -32602/,
      ),
    });
    expect(era(empty, '2025-11-25')).toMatchObject({
      verdict: 'warn',
      message: expect.stringMatching(/answered a result \(\{"contents":\[\]\}\) instead of error -32002/),
    });
    expect(era(old, '2026-07-28')).toMatchObject({
      verdict: 'fail',
      message: expect.stringMatching(
        /error code -32002 .*\(data\.uri names it\); protocol 2026-07-28 requires -32602 .*-32002 is the code of 2025-11-25 and earlier, which this version retired/,
      ),
    });
    expect(era(old, '2025-11-25').verdict).toBe('pass');
    expect(era(internal, '2026-07-28')).toMatchObject({
      verdict: 'warn',
      message: expect.stringMatching(/-32603 .*the internal-error code; protocol 2026-07-28 requires -32602/),
    });
    expect(era(internal, '2025-11-25').verdict).toBe('warn');
  }, 60_000);
});

describe('protocol-2026/log-level-floor', () => {
  it('messages below the logLevel a request asked for warn; honoured, it passes; never an unasked message', async () => {
    const [bad, ok] = await Promise.all(
      ['bad', 'ok'].map((m) =>
        run(py('broken/logs-below-floor.py'), [
          '--protocol-version',
          '2026-07-28',
          '--suite',
          'protocol-2026',
          '--env',
          `MODE=${m}`,
        ]),
      ),
    );
    expect(bad!.c('protocol-2026/log-level-floor')).toMatchObject({
      verdict: 'warn',
      message:
        'tools/call add with logLevel "info": 1 of 2 notifications/message below "info" (debug); at "debug" it sent 2 message(s) (debug, error)',
    });
    expect(ok!.c('protocol-2026/log-level-floor')).toMatchObject({
      verdict: 'pass',
      message: expect.stringMatching(/with logLevel "info": 1 notifications\/message, none below "info"/),
    });
    for (const r of [bad!, ok!]) {
      expect(r.c('protocol-2026/log-unrequested').verdict).toBe('pass');
      expect(r.c('protocol-2026/log-level-unknown').verdict).toBe('pass');
    }
  }, 60_000);

  it('a server that logs nothing: nothing to judge (skip); before 2026-07-28 the case does not apply', async () => {
    const quiet = await run(py('calc-all.py'), ['--protocol-version', '2026-07-28', '--suite', 'protocol-2026']);
    expect(quiet.c('protocol-2026/log-level-floor').message).toMatch(
      /^the server did not declare|^a notifications\/message was never sent/,
    );
    const old = await run(py('broken/logs-below-floor.py'), [
      '--protocol-version',
      '2025-11-25',
      '--suite',
      'protocol-2026',
    ]);
    expect(old.c('protocol-2026/log-level-floor').message).toMatch(/^does not apply: protocol 2025-11-25/);
  }, 60_000);
});

describe('listing/input-schema in the 2020-12 dialect', () => {
  it("$defs, $anchor, if/then/else, dependentRequired, prefixItems and a $ref by the schema's own $id: valid, and the tools are called with arguments that fit", async () => {
    const r = await run(py('schemas-2020.py'), ['--suite', 'listing,calling,schema']);
    for (const v of ['2026-07-28', '2025-11-25']) {
      const cases = r.report.suites
        .flatMap((s) => s.cases)
        .filter((c) => c.protocolVersion === v && /^(listing\/input-schema|calling\/tool)\//.test(c.id));
      expect(cases).toHaveLength(8);
      for (const c of cases) expect(c.verdict, `${v} ${c.id}: ${c.message}`).toBe('pass');
    }
    // The argument generator followed the references: the calls carried points, not empty objects.
    const segment = r.report.messages.find(
      (m) => m.direction === 'to-server' && (m.json as { params?: { name?: string } }).params?.name === 'segment',
    )!;
    expect((segment.json as { params: { arguments: { from: unknown } } }).params.arguments.from).toMatchObject({
      x: expect.any(Number),
      y: expect.any(Number),
    });
  }, 60_000);

  it('a $ref to nothing inside the schema fails; a $ref to a network URI is not fetched and warns', async () => {
    const r = await run(py('schemas-2020.py'), [
      '--protocol-version',
      '2026-07-28',
      '--suite',
      'listing',
      '--env',
      'MODE=broken',
    ]);
    expect(r.c('listing/input-schema/dangling')).toMatchObject({
      verdict: 'fail',
      message: expect.stringMatching(
        /inputSchema is not valid JSON Schema \(2020-12\): does not compile: can't resolve reference #\/\$defs\/missing/,
      ),
    });
    expect(r.c('listing/input-schema/remote')).toMatchObject({
      verdict: 'warn',
      message: expect.stringMatching(
        /refers outside itself \("https:\/\/schemas\.example\.com\/elsewhere\.json"\): nobody fetches such a \$ref by default/,
      ),
    });
    expect(r.c('listing/input-schema/shape').verdict).toBe('pass');
  }, 60_000);
});

describe('elicitation forms with defaults and enum forms', () => {
  it('valid forms pass the per-message schema check in 2025-11-25 (elicitation/create) and 2026-07-28 (inside input_required); a bad default or untitled titled options fail it', async () => {
    const args = ['--suite', 'calling,surface-2026,server-requests,schema', '--client-capabilities', 'elicitation'];
    const [ok, bad] = await Promise.all(
      ['ok', 'bad'].map((m) => run(py('broken/elicit-forms.py'), [...args, '--env', `MODE=${m}`])),
    );
    const of = (r: typeof ok, id: string, v: string) =>
      r!.report.suites.flatMap((s) => s.cases).find((c) => c.id === id && c.protocolVersion === v)!;
    expect(of(ok, 'schema/from-server/elicitation/create (request)', '2025-11-25').verdict).toBe('pass');
    expect(of(ok, 'schema/from-server/tools/call', '2026-07-28').verdict).toBe('pass');
    expect(of(ok, 'surface-2026/input-required-rounds', '2026-07-28').verdict).toBe('pass');
    expect(of(bad, 'schema/from-server/elicitation/create (request)', '2025-11-25')).toMatchObject({
      verdict: 'fail',
      message: expect.stringMatching(/request id "form-1", JSONRPCRequest \+ ElicitRequest/),
    });
    expect(of(bad, 'schema/from-server/tools/call', '2026-07-28')).toMatchObject({
      verdict: 'fail',
      message: expect.stringMatching(
        /InputRequiredResult\): \/result\/inputRequests\/form matches none of the allowed shapes/,
      ),
    });
    // What was sent: every enum form, with its default.
    const ask = ok!.report.messages.find((m) => m.method === 'elicitation/create' && m.direction === 'from-server')!;
    const props = (ask.json as { params: { requestedSchema: { properties: Record<string, Record<string, unknown>> } } })
      .params.requestedSchema.properties;
    expect(Object.keys(props)).toEqual(['name', 'age', 'subscribe', 'size', 'color', 'tags', 'palette']);
  }, 60_000);
});
