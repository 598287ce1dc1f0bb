/**
 * The server's surface against a committed snapshot (run --baseline-snapshot FILE): no breaking change to the tools,
 * prompts, resources, templates, capabilities or negotiated version, by the rule table of core/surface/rules.ts.
 * The same listing feeds run --snapshot FILE. Without either option the suite is not in a run (named with --suite, its
 * case is skipped and lists nothing).
 * No tool is called. https://modelcontextprotocol.io/specification/2025-11-25/server/tools#listing-tools
 */
import { surfaceInput } from '../core/surface/snapshot.js';
import type { Suite } from '../core/suite.js';
import { collectSurface } from '../core/surface/collect.js';
import { diffSnapshots } from '../core/surface/diff.js';

export const surface: Suite = {
  id: 'surface',
  title: 'Surface compatibility',
  description:
    'The listed tools, prompts, resources and capabilities against a committed snapshot (--baseline-snapshot); --snapshot writes it',
  // Only in runs that ask for the surface (--snapshot, --baseline-snapshot) or name the suite: a default run makes no
  // extra request and has no extra case.
  selectedWhen: (sel) => !!sel.input(surfaceInput),
  cases: [
    {
      id: 'surface/compatible',
      title: 'no breaking change against the baseline snapshot',
      level: 'MUST',
      spec: 'server/tools#listing-tools',
      requirement:
        'With --baseline-snapshot FILE: what the server lists now (tools, prompts, resources, templates, capabilities, protocol version) makes no change that the rule table calls breaking (a tool removed, a new required parameter, a narrowed type, a removed enum value, a stricter bound…) against the snapshot in FILE.',
      async run(ctx) {
        const opts = ctx.input(surfaceInput);
        if (!opts?.baseline && !opts?.onSnapshot) return { verdict: 'skip', message: 'no --baseline-snapshot given' };
        const got = await collectSurface(ctx);
        opts.onSnapshot?.({ snapshot: got.snapshot, problems: got.problems, notes: got.notes });
        const base = opts.baseline;
        if (!base)
          return {
            verdict: 'skip',
            message: `no --baseline-snapshot given (the surface was listed for --snapshot${got.problems.length ? `, but incompletely: ${got.problems.join('; ')}` : ''})`,
            messageIds: got.messageIds,
          };
        if (!got.snapshot) {
          return {
            verdict: 'fail',
            message: `the surface could not be listed completely, so it cannot be compared with ${base.file}: ${got.problems.join('; ')}`,
            messageIds: got.messageIds,
          };
        }
        const d = diffSnapshots(base.snapshot, got.snapshot, [...(base.notes ?? []), ...got.notes]);
        const s = d.summary;
        const details = { baselineSnapshot: base.file, diff: d };
        const counts = `${s.breaking} breaking, ${s.compatible} compatible, ${s.cosmetic} cosmetic`;
        if (s.breaking) {
          const first = d.changes
            .filter((c) => c.severity === 'breaking')
            .slice(0, 3)
            .map((c) => `${c.kind} ${c.name}${c.path ? ` ${c.path}` : ''}: ${c.message}`);
          return {
            verdict: 'fail',
            message: `${counts} change${d.changes.length === 1 ? '' : 's'} against ${base.file}: ${first.join('; ')}${s.breaking > 3 ? '; …' : ''}`,
            messageIds: got.messageIds,
            details,
          };
        }
        return {
          verdict: 'pass',
          message: d.changes.length
            ? `${counts} changes against ${base.file}: none breaking`
            : `the surface is the same as in ${base.file}`,
          messageIds: got.messageIds,
          details,
        };
      },
    },
  ],
};
