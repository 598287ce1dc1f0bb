/**
 * mcp-conform inside vitest: `import { conformance, connect } from 'mcp-conform/vitest'` in a test file of your own
 * (vitest ≥ 4 is your dependency: a peer of this package, not bundled). docs/expectations.md has a worked example.
 *
 * conformance(options) registers one `describe` for the server, one inside it per suite and one `test` per case. The
 * run happens once per file, while vitest collects the file: the outer describe's callback is async and awaits the
 * run (vitest awaits a describe callback's promise before it collects what it registered), because the cases a run
 * has are known only from the run itself (one per tool, resource, expectation…). A fail fails its test with the
 * case's message, requirement, spec link and the messages it is based on; a skip is a skipped test with its reason;
 * a warn (and an info) passes with an annotation; a fail the baseline knows passes with an annotation.
 *
 * connect(options) gives a client for hand-written tests whose every message is checked against the schema, and
 * importing this module registers the matchers toSucceed, toFailWithToolError, toHaveText and toMatchStructured.
 */
import { describe, expect, test } from 'vitest';
import { runConformance, type ConformanceOptions } from '../lib/conformance.js';
import type { CaseResult, Report } from '../lib/test-helpers.js';
import { matchers, type McpMatchers } from './matchers.js';
import { slugOf } from '../lib/test-helpers.js';

export {
  connect,
  McpRequestError,
  McpSchemaError,
  type ConnectOptions,
  type McpTestClient,
  type ToolCall,
  type MessageViolation,
} from './connect.js';
export { matchers, type McpMatchers } from './matchers.js';

expect.extend(matchers);

declare module 'vitest' {
  // biome-ignore lint/suspicious/noExplicitAny: vitest's own Matchers<T = any>, which this augments
  interface Matchers<T = any> extends McpMatchers<T> {}
}

/** What conformance() takes: runConformance's options (stdio/http/…, suites, cases, expect, callTools, baseline…). */
export interface VitestConformanceOptions extends ConformanceOptions {
  /** The outer describe's name (default "mcp-conform: " and the server's name, command or URL). */
  title?: string;
  /** Called with the report once the run is over (before the tests run): to keep it, or check it as a whole. */
  onReport?: (report: Report) => void;
}

/** A failed case as an Error: the message, then the requirement, the spec link and the messages it is based on. */
function caseError(c: CaseResult, report: Report): Error {
  const bySeq = new Map(report.messages.map((m) => [m.seq, m]));
  const exchange = c.messageIds
    .slice(0, 8)
    .map((id) => bySeq.get(id))
    .filter((m) => m !== undefined)
    .map(
      (m) =>
        `  ${m.direction === 'to-server' ? '→' : '←'} #${m.seq} ${m.raw.length > 400 ? `${m.raw.slice(0, 400)}… (${m.raw.length} chars)` : m.raw}`,
    );
  const lines = [
    `${c.id}: ${c.message}`,
    ...(c.strictFromWarn ? ['(a warn made a fail by strict)'] : []),
    `requirement (${c.level}): ${c.requirement ?? c.title}`,
    `spec: ${c.spec}`,
    ...(exchange.length ? ['messages:', ...exchange] : []),
  ];
  const err = new Error(lines.join('\n')) as Error & { expected?: unknown; actual?: unknown };
  err.name = 'ConformanceFailure';
  // An expectation's first failing check: vitest shows expected and actual as a diff.
  const checks = (c.details?.checks as { ok: boolean; expected: unknown; actual: unknown }[] | undefined)?.filter(
    (x) => !x.ok,
  );
  if (checks?.length && checks[0]!.actual !== undefined) {
    err.expected = checks[0]!.expected;
    err.actual = checks[0]!.actual;
  }
  err.stack = `${err.name}: ${err.message}`; // where vitest ran it says nothing: the case is the place
  return err;
}

/**
 * Tests a server as `mcp-conform run` does, one vitest test per case. Call it at the top level of a test file (or in
 * a describe); the run starts when vitest collects the file.
 */
export function conformance(options: VitestConformanceOptions): void {
  const { title, onReport, ...run } = options;
  const target =
    run.name ??
    (Array.isArray(run.stdio) ? run.stdio.join(' ') : (run.stdio ?? run.http ?? run.sse ?? run.url ?? 'server'));
  describe(title ?? `mcp-conform: ${target}`, async () => {
    const report = await runConformance(run);
    onReport?.(report);
    if (report.aborted) {
      test('the run', () => {
        throw new Error(`the run ended early: ${report.aborted}`);
      });
    }
    for (const s of report.suites) {
      describe(s.id, () => {
        for (const c of s.cases) {
          const name = c.title && !c.id.endsWith(`/${slugOf(c.title)}`) ? `${c.id} — ${c.title}` : c.id;
          test(name, async (ctx) => {
            if (c.verdict === 'skip') ctx.skip(c.message);
            if (c.verdict === 'fail' && !c.baselined) throw caseError(c, report);
            if (c.verdict === 'fail')
              await ctx.annotate(
                `known failure (baseline${c.baselineReason ? `: ${c.baselineReason}` : ''}): ${c.message}`,
                'notice',
              );
            else if (c.verdict === 'warn') await ctx.annotate(`warn (${c.level}): ${c.message} — ${c.spec}`, 'warning');
            else if (c.verdict === 'info') await ctx.annotate(c.message, 'notice');
          });
        }
      });
    }
  });
}
