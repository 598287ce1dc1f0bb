// security/session-isolation: the real TypeScript SDK, vulnerable (1.25.3, one shared stateless transport) and fixed
// (1.26.0, a server per request), and the stdlib fixture answering from one reply table shared by every session.
import { describe, expect, it } from 'vitest';
import { mkdtempSync, readFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { cli, FIXTURES } from './helpers/cli.js';
import { freePort } from './http-helpers.js';

async function isolation(server: string) {
  const port = await freePort();
  const out = mkdtempSync(join(tmpdir(), 'iso-'));
  const r = await cli(
    [
      'run',
      '--start',
      server.replace('{port}', String(port)),
      '--http',
      `http://127.0.0.1:${port}/mcp`,
      '--suite',
      'security',
      '--case',
      'security/session-isolation',
      // Neither server reads its stdin; both end at once on SIGTERM: no 2 s wait after stdin is closed.
      '--shutdown-grace',
      '300',
      '--out-dir',
      out,
      '--reporter',
      'json',
    ],
    { timeoutMs: 60_000 },
  );
  const report = JSON.parse(readFileSync(join(out, 'report.json'), 'utf8'));
  return {
    code: r.code,
    c: report.suites.flatMap((s: any) => s.cases).find((x: any) => x.id === 'security/session-isolation'),
  };
}

const sdk = (v: string, mode: string) => `node ${join(FIXTURES, 'peers', 'sdk-isolation.mjs')} ${v} ${mode} {port}`;
const py = (mode: string) => `python3 ${join(FIXTURES, 'http', 'load_http.py')} ${mode} {port}`;

describe('security/session-isolation', () => {
  it('SDK 1.25.3, one McpServer and one shared stateless transport: fails, naming both clients', async () => {
    const { code, c } = await isolation(sdk('sdk-1.25.3', 'shared'));
    expect(code).toBe(1);
    expect(c.verdict).toBe('fail');
    expect(c.message).toMatch(/GHSA-345p-7cg4-v4c7/);
    expect(c.message).toMatch(/client \d \(tools\/call echo\) got canary mcc\w+ of client \d's request/);
  }, 60_000);

  it('SDK 1.26.0, a server per request: passes', async () => {
    const { c } = await isolation(sdk('sdk-1.26.0', 'per-request'));
    expect(c.verdict, c.message).toBe('pass');
    expect(c.details.clients).toBeGreaterThanOrEqual(4);
  }, 60_000);

  it('one reply table shared by every session (stdlib fixture): fails; the sound mode passes', async () => {
    expect((await isolation(py('shared-replies'))).c.verdict).toBe('fail');
    expect((await isolation(py('good'))).c.verdict).toBe('pass');
  }, 60_000);

  it('503 only under concurrency: a warn, not crossed', async () => {
    const { c } = await isolation(py('busy'));
    expect(c.verdict).toBe('warn');
    expect(c.message).toMatch(/failed only when/);
  }, 60_000);
});
