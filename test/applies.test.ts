/** One version-range rule for server and client cases: `from` is the first version a case applies to, `until` the first it no longer does. */
import { describe, expect, it } from 'vitest';
import { notApplicable as serverNotApplicable, outsideVersionRange } from '../core/applies.js';
import { featuresOf } from '../core/features.js';
import { notApplicable as clientNotApplicable } from '../clients/grade.js';
import { CLIENT_SUITES } from '../clients/suites/index.js';
import type { CaseDef } from '../core/suite.js';

describe('version ranges of cases', () => {
  it('until is exclusive, from inclusive', () => {
    expect(outsideVersionRange('2025-06-18', { until: '2025-11-25' })).toBeUndefined();
    expect(outsideVersionRange('2025-11-25', { until: '2025-11-25' })).toMatch(/before 2025-11-25/);
    expect(outsideVersionRange('2025-11-25', { from: '2025-11-25' })).toBeUndefined();
    expect(outsideVersionRange('2025-06-18', { from: '2025-11-25' })).toMatch(/from 2025-11-25 on/);
  });

  it('a server case and a client case with the same range apply to the same versions', () => {
    const server: CaseDef = {
      id: 's',
      title: 's',
      level: 'MUST',
      spec: '',
      requirement: '',
      requires: { from: '2025-03-26', until: '2026-07-28' },
      run: async () => ({ verdict: 'pass', message: '' }),
    };
    const client = {
      id: 'c',
      title: 'c',
      level: 'MUST' as const,
      spec: '',
      requirement: '',
      from: '2025-03-26' as const,
      until: '2026-07-28' as const,
      run: () => ({ verdict: 'pass' as const, message: '' }),
    };
    for (const version of ['2024-11-05', '2025-03-26', '2025-11-25', '2026-07-28'] as const) {
      const s = serverNotApplicable(server, {
        version,
        features: featuresOf(version),
        transport: 'stdio',
        capabilities: {},
      });
      const c = clientNotApplicable(client, { version, transport: 'stdio', scenario: 'default' });
      expect(c === undefined, `client case at ${version}: ${c}`).toBe(s === undefined);
    }
  });

  it("the server's ping and requests are still graded in 2025-11-25, and not in 2026-07-28 (which has neither)", () => {
    const cases = CLIENT_SUITES.flatMap((s) => s.cases).filter((c) =>
      ['client-lifecycle/ping-answered', 'client-requests/server-requests-answered'].includes(c.id),
    );
    expect(cases).toHaveLength(2);
    for (const c of cases) {
      const scenario = c.scenarios![0]!;
      expect(clientNotApplicable(c, { version: '2025-11-25', transport: 'stdio', scenario })).toBeUndefined();
      expect(clientNotApplicable(c, { version: '2026-07-28', transport: 'stdio', scenario })).toMatch(
        /before 2026-07-28/,
      );
    }
  });
});
