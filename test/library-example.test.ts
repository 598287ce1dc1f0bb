import { describe, expect, it } from 'vitest';
import { runConformance } from 'mcp-conform';

describe('my MCP server', () => {
  it('answers ping and passes the lifecycle, listing and calling suites', async () => {
    const report = await runConformance({
      stdio: 'python3 fixtures/servers/calc.py', // the command that starts your server
      suites: ['lifecycle', 'listing', 'calling'],
      timeout: 10_000,
    });
    const ping = report.suites.flatMap((s) => s.cases).find((c) => c.id === 'lifecycle/ping');
    expect(ping?.verdict, ping?.message).toBe('pass');
    expect(report.exitCode, JSON.stringify(report.summary)).toBe(0);
  });
});
