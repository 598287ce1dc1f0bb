/**
 * "Adding a suite touches only suites/ (its file and the index) and its tests": a small suite written the
 * way "Adding a suite" in docs/developing.md describes — case metadata, an option of its own, a run service with a report field,
 * exchanges recorded with their purpose — run through the library beside a built-in suite, against the demo server.
 * It is not shipped; it checks that the shape holds.
 */
import { describe, expect, it } from 'vitest';
import { runConformance } from '../../lib/conformance.js';
import type { OptionDef } from '../../core/options.js';
import type { Report } from '../../core/results.js';
import type { Service } from '../../core/services.js';
import type { Suite } from '../../core/suite.js';
import { tools } from '../../core/tools.js';
import { callPlan, callToolsOption } from '../../core/call-policy.js';
import { py } from '../helpers/cli.js';

// ---- what suites/example.ts would hold ----
let produced = 0;

/** A fact other suites could read: the sorted tool names (built on the shared tools service). */
const toolNames: Service<string[]> = {
  id: 'example/tool-names',
  async produce(ctx) {
    produced++;
    return (await ctx.service(tools)).tools.map((t) => t.name).sort();
  },
  report(report, names) {
    (report as Report & { exampleToolNames?: string[] }).exampleToolNames = names;
  },
};

/** --expect-tool NAME (config key expectTool). */
const expectTool: OptionDef<string> = {
  flag: 'expect-tool',
  key: 'expectTool',
  type: 'string',
  default: 'add',
  help: 'The tool the example suite expects the server to list',
};

const example: Suite = {
  id: 'example',
  title: 'Example',
  description: 'the shape of a suite',
  options: [expectTool as OptionDef],
  services: [toolNames],
  cases: [
    {
      id: 'example/expected-tool',
      title: 'the expected tool is listed',
      level: 'MUST',
      spec: 'server/tools#listing-tools',
      requirement: 'The server lists the tool named by --expect-tool.',
      requires: { capability: 'tools' },
      async run(ctx) {
        const want = ctx.option(expectTool);
        const names = await ctx.service(toolNames);
        return names.includes(want)
          ? { verdict: 'pass', message: `"${want}" is listed` }
          : { verdict: 'fail', message: `"${want}" is not among ${names.join(', ')}` };
      },
    },
    {
      id: 'example/ping-again',
      title: 'a ping is answered (recorded with its purpose)',
      level: 'MUST',
      spec: 'basic/utilities/ping',
      requirement: 'ping gets an empty result.',
      requires: { feature: 'ping' },
      async run(ctx) {
        const names = await ctx.service(toolNames); // memoized: the first case produced it
        const rec = await ctx.request('ping', undefined, { purpose: 'example-heartbeat' });
        return rec.reply?.result
          ? {
              verdict: 'pass',
              message: `ping answered (${names.length} tools known)`,
              messageIds: [rec.reply.request.seq, rec.reply.response.seq],
            }
          : { verdict: 'fail', message: 'ping got no result' };
      },
    },
    {
      id: 'example/http-only',
      title: 'only over Streamable HTTP',
      level: 'MUST',
      spec: 'basic/transports',
      requirement: '-',
      requires: { transports: ['streamable-http'] },
      async run() {
        throw new Error('must not run over stdio');
      },
    },
    {
      id: 'example/stateless-only',
      title: 'only in 2026-07-28',
      level: 'MUST',
      spec: 'basic',
      requirement: '-',
      requires: { feature: 'resultType' },
      async run() {
        throw new Error('must not run in 2025-11-25');
      },
    },
    {
      id: 'example/from-log',
      title: 'reads the whole log',
      level: 'SHOULD',
      spec: 'basic',
      requirement: '-',
      requires: { needs: 'log' },
      async run(ctx) {
        return {
          verdict: ctx.session.closed ? 'pass' : 'fail',
          message: `the server is ${ctx.session.closed ? 'shut down' : 'still running'}; ${ctx.exchanges.filter((e) => e.purpose === 'example-heartbeat').length} example exchange(s)`,
        };
      },
    },
    {
      id: 'example/needs-prompts',
      title: 'needs the prompts capability',
      level: 'MAY',
      spec: 'basic',
      requirement: '-',
      requires: { capability: 'prompts' },
      async run() {
        throw new Error('calc.py declares no prompts');
      },
    },
    // The tool services (core/tools.ts, core/call-policy.ts) and the call policy option, also once the server is gone.
    {
      id: 'example/tool-services',
      title: 'tool services',
      level: 'MAY',
      spec: 'basic',
      requirement: '-',
      requires: { capability: 'tools', needs: 'log' },
      async run(ctx) {
        const l = await ctx.service(tools);
        const same = l === (await ctx.service(tools));
        return {
          verdict:
            same && (await ctx.service(callPlan)).call.length > 0 && ctx.option(callToolsOption) === 'safe'
              ? 'pass'
              : 'fail',
          message: `${l.tools.length} tools, ${same ? 'the same listing' : 'another listing'}`,
        };
      },
    },
  ],
};
// ---- end of suites/example.ts ----

describe('a suite in the documented shape', () => {
  it('runs with its metadata applied, its option, its service and its report field', async () => {
    produced = 0;
    const r = (await runConformance({
      stdio: py('calc.py'),
      suites: ['lifecycle', example],
      options: { expectTool: 'divide' },
      timeout: 5000,
    })) as Report & { exampleToolNames?: string[] };
    const c = Object.fromEntries(r.suites.flatMap((s) => s.cases).map((x) => [x.id, x]));
    expect(c['example/expected-tool']).toMatchObject({ verdict: 'pass', message: '"divide" is listed' });
    expect(c['example/ping-again']!.verdict).toBe('pass');
    expect(c['example/http-only']).toMatchObject({
      verdict: 'skip',
      message: 'does not apply: the case is about Streamable HTTP; this run is over stdio',
    });
    expect(c['example/stateless-only']).toMatchObject({
      verdict: 'skip',
      message: expect.stringMatching(/^does not apply: protocol 2025-11-25 has no resultType/),
    });
    expect(c['example/from-log']).toMatchObject({
      verdict: 'pass',
      message: 'the server is shut down; 1 example exchange(s)',
    });
    expect(c['example/needs-prompts']).toMatchObject({
      verdict: 'skip',
      message: 'the server did not declare the "prompts" capability',
    });
    expect(c['example/tool-services']!.verdict, c['example/tool-services']!.message).toBe('pass');
    expect(produced).toBe(1);
    expect(r.exampleToolNames).toContain('divide');
    expect(r.options.expectTool).toBe('divide');
    expect(r.exitCode).toBe(0);
    // The default applies when the option is not given; a wrong type is refused before the run.
    const d = await runConformance({ stdio: py('calc.py'), suites: [example], timeout: 5000 });
    expect(d.suites[0]!.cases.find((x) => x.id === 'example/expected-tool')).toMatchObject({
      verdict: 'pass',
      message: '"add" is listed',
    });
    await expect(
      runConformance({ stdio: py('calc.py'), suites: [example], options: { expectTool: 5 } }),
    ).rejects.toThrow(/^expectTool must be a string/);
  });
});
