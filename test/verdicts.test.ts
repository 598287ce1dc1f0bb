/**
 * Verdict guard ("a default run on the demo server and on server-everything gives the same verdicts before
 * and after"): runs the demo server, every deliberately broken server of fixtures/servers/broken and the stdlib HTTP
 * fixture (good and sloppy) — server-everything over stdio, Streamable HTTP and HTTP+SSE in test/verdicts-peers.test.ts
 * — and compares each case id → verdict with the recorded ones in test/verdicts/*.json. A changed verdict fails until
 * the file is regenerated on purpose (`VERDICTS_UPDATE=1 npx vitest run test/verdicts.test.ts`) and the change
 * explained in the commit.
 *
 * Only verdicts are compared: the words of a skip may change (the runner gives one uniform reason), a verdict may not.
 *
 * The broken servers are also held to what they were written to provoke (fail where a MUST breaks, warn where the
 * grading policy says warn, the right exit code, nothing else called wrong), from the same run of each.
 */
import { describe, expect, it } from 'vitest';
import { py, run, runArgs } from './helpers/cli.js';
import { check, verdictsOf, type Verdicts } from './helpers/verdict-guard.js';
import { brokenHttp, startServer } from './http-helpers.js';

/** Suites that are about the broken servers' one misbehaviour; other suites (robustness, transports) have tests of their own. */
const BROKEN_SUITES = 'lifecycle,listing,calling,unknown-tool,invalid-params,is-error,stdio,schema';

interface Expectation {
  exit: 0 | 1;
  /** case id → verdict; every fail and warn of the run must be listed here. */
  verdicts: Record<string, 'pass' | 'warn' | 'fail' | 'skip' | 'info'>;
  message?: Record<string, RegExp>;
  extra?: string[];
}

const CASES: Record<string, Expectation> = {
  'stray-stdout.py': {
    exit: 1,
    verdicts: { 'stdio/stdout-only-messages': 'fail' },
    message: { 'stdio/stdout-only-messages': /2 of \d+ stdout lines are not JSON-RPC messages: .*"server ready"/ },
  },
  'unknown-version.py': {
    exit: 1,
    verdicts: { 'lifecycle/version-negotiation': 'fail' },
    message: { 'lifecycle/version-negotiation': /"2099-01-01", which is no published MCP version/ },
  },
  'unknown-tool-success.py': { exit: 1, verdicts: { 'unknown-tool/call': 'fail' } },
  'unknown-tool-iserror.py': {
    exit: 0,
    verdicts: { 'unknown-tool/call': 'warn' },
    message: { 'unknown-tool/call': /isError: true/ },
  },
  'bad-structured-content.py': {
    exit: 1,
    verdicts: { 'calling/tool/measure': 'fail', 'calling/tool/summary': 'fail' },
    message: {
      'calling/tool/measure': /does not conform to the outputSchema: \/count expected integer/,
      'calling/tool/summary': /no structuredContent/,
    },
  },
  'duplicate-tools.py': {
    exit: 1,
    verdicts: { 'listing/unique-names': 'fail' },
    message: { 'listing/unique-names': /"add" ×2/ },
  },
  'bad-input-schema.py': {
    exit: 1,
    verdicts: {
      'listing/input-schema/sum_list': 'fail',
      'listing/input-schema/weird': 'fail',
      'schema/from-server/tools/list': 'fail',
    },
    message: {
      'listing/input-schema/sum_list': /type is "array", expected "object"/,
      'listing/input-schema/weird': /not valid JSON Schema/,
    },
  },
  'schema-violation.py': {
    exit: 1,
    verdicts: {
      'listing/input-schema/legacy': 'fail',
      'schema/from-server/tools/list': 'fail',
      'schema/from-server/tools/call': 'fail',
    },
    message: {
      'schema/from-server/tools/list': /\/result\/tools\/2 missing required property "inputSchema"/,
      'schema/from-server/tools/call': /\/result\/content\/0 missing required property "text"/,
    },
  },
  'crash-on-call.py': {
    exit: 1,
    verdicts: {
      'calling/tool/add': 'fail',
      'calling/tool/echo': 'skip',
      'unknown-tool/call': 'skip',
      'lifecycle/shutdown': 'skip',
    },
    message: {
      'calling/tool/add': /exited with code 3; last stderr lines: .*panic: tool exploded/,
      'unknown-tool/call': /not run: the server exited with code 3/,
    },
  },
  'accepts-bad-args.py': {
    exit: 1,
    verdicts: {
      'invalid-params/missing-required/add': 'fail',
      'invalid-params/missing-required/echo': 'fail',
      'invalid-params/wrong-type/add': 'fail',
      'invalid-params/wrong-type/echo': 'fail',
      'invalid-params/malformed-call': 'fail',
    },
    // It validates nothing: a wrong type fails because the call without a required argument was accepted too.
    message: {
      'invalid-params/wrong-type/add':
        /accepted with a success result.*and the call with argument "a" left out \(required\) was accepted too/,
    },
  },
  'empty-iserror.py': {
    exit: 1,
    verdicts: { 'is-error/well-formed': 'fail', 'unknown-tool/call': 'warn', 'invalid-params/malformed-call': 'warn' },
    message: { 'is-error/well-formed': /have no content to explain the error/ },
  },
  'looping-cursor.py': {
    exit: 1,
    verdicts: { 'listing/tools-list': 'fail', 'listing/unique-names': 'fail' },
    message: { 'listing/tools-list': /nextCursor "again" came back again/ },
  },
  'wrong-ids.py': {
    exit: 1,
    verdicts: {
      'lifecycle/ids-matched': 'fail',
      'lifecycle/ping': 'fail',
      'lifecycle/initialized-notification': 'fail',
    },
    message: { 'lifecycle/ids-matched': /answer for id never sent 1003/ },
  },
  'bad-tool-names.py': {
    exit: 0,
    verdicts: { 'listing/tool-names': 'warn' },
    message: { 'listing/tool-names': /"add numbers!".*200 characters/ },
  },
  'answers-notification.py': {
    exit: 1,
    verdicts: {
      'lifecycle/initialized-notification': 'fail',
      'schema/from-server/(response for an unknown id)': 'fail',
    },
    message: { 'lifecycle/initialized-notification': /answered the notification/ },
  },
  'wrong-direction.py': {
    exit: 1,
    verdicts: {
      'schema/from-server/notifications/initialized': 'fail',
      'schema/from-server/tools/list (request)': 'fail',
      'schema/from-server/initialize (request)': 'fail',
      // the answers to the harness's own initialize and tools/list are items of their own, and fine
      'schema/from-server/initialize': 'pass',
      'schema/from-server/tools/list': 'pass',
      'schema/to-server/tools/list (response)': 'pass',
    },
    message: {
      'schema/from-server/notifications/initialized':
        /\/method notifications\/initialized is sent by clients, not servers/,
      'schema/from-server/tools/list (request)':
        /request id "s1", JSONRPCRequest \+ ServerRequest\): \/method tools\/list is sent by clients, not servers/,
      'schema/from-server/initialize (request)': /\/method initialize is sent by clients, not servers/,
    },
  },
  'error-codes-other.py': {
    exit: 0,
    verdicts: { 'unknown-tool/call': 'warn', 'invalid-params/malformed-call': 'warn' },
    message: { 'unknown-tool/call': /-32603/ },
  },
  // A tool that fails whatever it is sent proves no validation (inconclusive), one that names the argument does.
  'env-failure.py': {
    exit: 0,
    verdicts: {
      // The engine's environment rule: a -32603 that says what the machine lacks is inconclusive, whatever the case.
      'calling/tool/browser_close': 'skip',
      'invalid-params/missing-required/browser_navigate': 'skip',
      'invalid-params/wrong-type/browser_navigate': 'skip',
      'invalid-params/missing-required/browser_close': 'skip',
      'invalid-params/wrong-type/browser_close': 'skip',
      // Its refusal names the argument, but it is an isError result like the valid call's: judged by code and isError, not wording.
      'invalid-params/missing-required/browser_type': 'skip',
      'invalid-params/wrong-type/browser_type': 'skip',
    },
    message: {
      'invalid-params/missing-required/browser_navigate':
        /^inconclusive: argument "url" left out .*Chromium distribution 'chrome' is not found.*the call with valid arguments got .*Chromium distribution 'chrome' is not found/,
      'invalid-params/wrong-type/browser_close':
        /^inconclusive: .*JSON-RPC error -32603 "Browser is not installed".*the call with valid arguments got JSON-RPC error -32603 "Browser is not installed"/,
      'invalid-params/missing-required/browser_type': /^inconclusive: .*the same kind of answer/,
      'calling/tool/browser_close':
        /^inconclusive: tools\/call \(id \d+\) was answered with error -32603 "Browser is not installed", an internal error that speaks of the server's environment \("not installed"\).*the case would have said warn: /,
    },
  },
  // Lenient validation is a warn, not a fail.
  'lenient-types.py': {
    exit: 0,
    verdicts: {
      'invalid-params/missing-required/set_port': 'pass',
      'invalid-params/wrong-type/set_port': 'warn',
      'invalid-params/wrong-type/scale': 'warn',
    },
    message: {
      'invalid-params/wrong-type/set_port':
        /accepts a value its inputSchema does not allow.*the call with argument "port" left out \(required\) got a result with isError: true/,
      'invalid-params/wrong-type/scale':
        /accepts a value its inputSchema does not allow; the tool has no required argument/,
    },
  },
  // Failures reported as successes; the controls (mid-sentence "error", an error-reporting tool, "error": null) pass.
  'error-as-success.py': {
    exit: 0,
    verdicts: {
      'calling/tool/fetch_page': 'warn',
      'calling/tool/save_note': 'warn',
      'calling/tool/weather': 'warn',
      'calling/tool/get_repo': 'warn',
      'calling/tool/lookup': 'pass',
      'calling/tool/last_error': 'pass',
      'calling/tool/compute': 'pass',
      // Refused in words without isError: warn where the valid call succeeded; where it failed too, in the same kind of
      // answer (judged by isError and code, not wording), inconclusive.
      ...Object.fromEntries(
        ['missing-required', 'wrong-type'].flatMap((k) =>
          ['lookup', 'compute'].map((t) => [`invalid-params/${k}/${t}`, 'warn' as const]),
        ),
      ),
      ...Object.fromEntries(
        ['missing-required', 'wrong-type'].flatMap((k) =>
          ['fetch_page', 'save_note', 'weather', 'get_repo'].map((t) => [`invalid-params/${k}/${t}`, 'skip' as const]),
        ),
      ),
    },
    message: {
      'calling/tool/fetch_page':
        /without isError: true whose text begins with "Error:": "Error: could not resolve host example.invalid/,
      'calling/tool/save_note':
        /is JSON with "success": false: "\{\\"success\\": false, \\"error\\": \\"disk quota exceeded\\"\}"/,
      'calling/tool/weather': /"Error: no API key configured.*\(it has no structuredContent either/,
      'calling/tool/get_repo':
        /whose text begins with the error code "\[NOT_FOUND\]": "\[NOT_FOUND\] Repository .* does not exist"/,
      'invalid-params/missing-required/compute':
        /"Error: missing required argument 'x'"; an input validation error should be a result with isError: true/,
    },
  },
  // The SDKs' wrappings carry the structured value; only summary's text does not.
  'structured-wrap.py': {
    exit: 0,
    verdicts: {
      'calling/tool/summary': 'warn',
      'calling/tool/add': 'pass',
      'calling/tool/greet': 'pass',
      'calling/tool/digits': 'pass',
      'calling/tool/point': 'pass',
      'calling/tool/tags': 'pass',
    },
    message: {
      'calling/tool/summary': /no text block carries it .*"2 items, total \d+".*\{"count":2,"total":\d+\}/,
      'calling/tool/add': /a text block carries its one member "result"/,
      'calling/tool/digits': /the text blocks carry the items of its one member "result", one each/,
      'calling/tool/point': /a text block carries it as JSON/,
    },
  },
  // Still running when the grace period after stdin closed ran out: it ended only on SIGTERM (warn, timed from stdin close).
  'ignore-eof.py': {
    exit: 0,
    verdicts: { 'lifecycle/shutdown': 'warn' },
    message: {
      'lifecycle/shutdown':
        /still running when the grace period after stdin was closed ran out \(--shutdown-grace\): it ended only on SIGTERM, 1\d{3} ms after stdin was closed/,
    },
  },
  // Exits at once when stdin closes, but with code 1 and a fatal line on stderr: no clean shutdown (warn, with both).
  'exit-1-on-eof.py': {
    exit: 0,
    verdicts: { 'lifecycle/shutdown': 'warn' },
    message: {
      'lifecycle/shutdown':
        /^exited with code 1 \d+ ms after stdin was closed: a clean shutdown exits with 0; it wrote to stderr: "\[Backend Fatal\] connection lost: max retries reached"/,
    },
  },
};

describe('verdicts are unchanged (test/verdicts/*.json)', () => {
  // The README's set-up command: the bundled demo server is all green, and the report holds every message.
  it('the demo server (default run): all pass, exit 0, a report that accounts for every message', async () => {
    const r = await run(py('calc.py'));
    check('demo', verdictsOf(r));
    expect(r.code).toBe(0);
    const { report } = r;
    expect(report.summary.fail).toBe(0);
    expect(report.summary.warn).toBe(0);
    expect(report.exitCode).toBe(0);
    // Only the destructive tool is skipped (the others are annotated readOnlyHint: true), and the report says why.
    expect(report.skippedTools.map((t) => t.name)).toEqual(['clear_history']);
    // The demo server declares only tools: the resources, prompts, completion and logging cases skip, saying so.
    const skips = report.suites.flatMap((s) => s.cases).filter((c) => c.verdict === 'skip');
    const undeclared = skips.filter((c) =>
      /^the server did not declare the "(resources|prompts|completions|logging|tasks)" capability$/.test(c.message),
    );
    expect(new Set(undeclared.map((c) => c.id.split('/')[0]))).toEqual(
      new Set(['resources', 'prompts', 'completion', 'logging', 'tasks', 'security']),
    );
    // And cases that have nothing to look at on it: no server request, no long-running tool, not 2026-07-28 (surface-2026, tasks extension, subscriptions).
    // (security/path-escape and ssrf: no tool takes a path or a URL.)
    const nothing = skips.filter((c) =>
      /^(server-requests|progress|surface-2026|protocol-2026|tasks\/extension|subscriptions)\/|^security\/(path-escape|ssrf)$/.test(
        c.id,
      ),
    );
    for (const c of nothing)
      expect(c.message).toMatch(
        /was never sent|^no callable tool looks long-running|^does not apply: protocol 2025-11-25 (has no|\(the case applies from 2026-07-28 on\))|^no tool declares a parameter named or described as a (path|URL)/,
      );
    const skipped = skips.filter((c) => !undeclared.includes(c) && !nothing.includes(c)).map((c) => c.id);
    // result-type: only from 2026-07-28; the security suite's HTTP cases: over stdio they do not apply.
    expect(skipped).toEqual([
      'lifecycle/result-type',
      'calling/tool/clear_history',
      'security/host-header',
      'security/session-id',
      'security/session-isolation',
    ]);
    // calc.py serves requests before initialize: the spec leaves that open (info).
    // quality: its arithmetic tools leave their parameters a and b undescribed; the token cost and result sizes are info.
    expect(
      report.suites
        .flatMap((s) => s.cases)
        .filter((c) => c.verdict === 'info')
        .map((c) => c.id),
    ).toEqual([
      'calling/open-world',
      'robustness/request-before-initialize',
      'quality/tool/add',
      'quality/tool/subtract',
      'quality/tool/multiply',
      'quality/tool/divide',
      'quality/token-cost',
      'quality/result-size',
    ]);
    expect(report.server).toMatchObject({
      name: 'calc',
      version: '1.0.0',
      protocolVersion: '2025-11-25',
      toolCount: 10,
    });
    expect(report.target).toMatchObject({ transport: 'stdio', argv: ['python3', expect.stringMatching(/calc\.py$/)] });
    expect(report.process.shutdown).toBe('exited');
    // Every message exchanged is in the log with its schema verdict, and each was validated.
    expect(report.messages.length).toBeGreaterThan(40);
    expect(report.summary.messagesValidated).toBe(report.messages.length);
    report.messages.forEach((m, i) => {
      expect(m.seq).toBe(i);
      expect(m.schema.checked).toBe(true);
      if (m.json !== undefined) expect(JSON.parse(m.raw)).toEqual(m.json);
    });
    // The invalid messages are the harness's deliberate probes, each marked as such; the server sent none.
    const invalid = report.messages.filter((m) => !m.schema.valid);
    expect(invalid.map((m) => m.direction)).toEqual(['to-server', 'to-server', 'to-server', 'to-server']);
    expect(invalid.map((m) => m.schema.expectedInvalid)).toEqual([
      expect.stringMatching(/malformed-call/),
      expect.stringMatching(/invalid-json/),
      expect.stringMatching(/not-a-message/),
      expect.stringMatching(/wrong-jsonrpc/),
    ]);
    // Every answer names the request it answers (an error with id null answers the probe it refuses).
    for (const m of report.messages.filter((x) => x.kind === 'response' || x.kind === 'error')) {
      const req = report.messages[m.inReplyTo!]!;
      if (m.id === null) expect(req.schema.expectedInvalid).toMatch(/robustness/);
      else expect(req.id).toEqual(m.id);
    }
    // Cases carry the contract fields.
    const ping = r.c('lifecycle/ping');
    expect(ping).toMatchObject({
      verdict: 'pass',
      level: 'MUST',
      spec: 'https://modelcontextprotocol.io/specification/2025-11-25/basic/utilities/ping',
    });
    expect(ping.messageIds.map((i) => report.messages[i]!.method)).toEqual(['ping', 'ping']);
    expect(r.c('calling/tool/stats').message).toMatch(/structuredContent that conforms/);
    expect(r.c('invalid-params/wrong-type/add').message).toMatch(/isError: true/);
    expect(r.c('unknown-tool/call').message).toMatch(/-32602/);
  }, 120_000);

  it('the stdlib HTTP fixture, good and sloppy (default runs)', async () => {
    const servers = await Promise.all(['good', 'sloppy'].map((m) => startServer(['python3', brokenHttp, m])));
    try {
      const runs = await Promise.all(
        servers.map((s) => runArgs(['--http', `http://127.0.0.1:${s.port}/mcp`], { timeoutMs: 150_000 })),
      );
      check('http-good', verdictsOf(runs[0]!));
      check('http-sloppy', verdictsOf(runs[1]!));
    } finally {
      await Promise.all(servers.map((s) => s.stop()));
    }
  }, 240_000);
});

// One run per broken server: its verdicts for the guard (test/verdicts/broken.json), and what it was written to provoke.
describe('deliberately broken servers get the verdicts a spec reader would give, and the same as before', () => {
  const broken: Verdicts = {};
  const ran = new Set<string>();
  it.each(Object.entries(CASES))('%s', async (file, want) => {
    const r = await run(py(`broken/${file}`), [
      '--suite',
      BROKEN_SUITES,
      '--timeout',
      '3000',
      '--shutdown-grace',
      '1000',
    ]);
    for (const [id, verdict] of Object.entries(verdictsOf(r))) broken[`${file} ${id}`] = verdict;
    ran.add(file);
    for (const [id, verdict] of Object.entries(want.verdicts)) {
      expect(r.c(id).verdict, `${id}: ${r.c(id).message}`).toBe(verdict);
    }
    for (const [id, re] of Object.entries(want.message ?? {})) expect(r.c(id).message).toMatch(re);
    // Nothing else is called wrong: every fail and warn is one the fixture was written to provoke.
    const flagged = r.report.suites
      .flatMap((s) => s.cases)
      .filter((c) => c.verdict === 'fail' || c.verdict === 'warn')
      .map((c) => c.id);
    expect(flagged.sort()).toEqual(
      Object.entries(want.verdicts)
        .filter(([, v]) => v === 'fail' || v === 'warn')
        .map(([id]) => id)
        .sort(),
    );
    expect(r.code).toBe(want.exit);
    expect(r.report.exitCode).toBe(want.exit);
    expect(r.report.summary.messagesValidated).toBe(r.report.messages.filter((m) => m.json !== undefined).length);
  });

  it('the verdicts of every broken server are unchanged (test/verdicts/broken.json)', () => {
    expect(Object.keys(CASES).length).toBeGreaterThan(20);
    expect(
      Object.keys(CASES).filter((f) => !ran.has(f)),
      'broken servers whose run wrote no report',
    ).toEqual([]);
    check('broken', broken);
  });
});
