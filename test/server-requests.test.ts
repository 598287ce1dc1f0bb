/**
 * --client-capabilities: the harness declares sampling, elicitation, roots and answers the server's requests for
 * them with the documented canned results; a request for a capability it did not declare is judged
 * (server-requests/declared-only). Real peer: server-everything asks for roots/list once roots is declared.
 */
import { describe, expect, it } from 'vitest';
import { join } from 'node:path';
import { BIN, cli, py, run } from './helpers/cli.js';

const EVERYTHING = `${join(BIN, 'mcp-server-everything')} stdio`;
const SUITES = 'lifecycle,server-requests';

describe('server-to-client requests', () => {
  it('server-everything asks for roots only once roots is declared, and gets the --root list', async () => {
    const plain = await run(EVERYTHING, ['--suite', SUITES], { timeoutMs: 60_000 });
    expect(
      plain.report.messages.filter(
        (m) => m.direction === 'from-server' && m.kind === 'request' && m.method === 'roots/list',
      ),
    ).toHaveLength(0);
    expect(plain.c('server-requests/declared-only').verdict).toBe('pass');
    expect(plain.report.options.clientCapabilities).toEqual([]);

    const r = await run(
      EVERYTHING,
      ['--suite', SUITES, '--client-capabilities', 'roots', '--root', 'file:///tmp/project'],
      { timeoutMs: 60_000 },
    );
    const init = r.report.messages.find((m) => m.direction === 'to-server' && m.method === 'initialize')!;
    expect((init.json as { params: { capabilities: unknown } }).params.capabilities).toEqual({
      roots: { listChanged: false },
    });
    const ask = r.report.messages.find(
      (m) => m.direction === 'from-server' && m.kind === 'request' && m.method === 'roots/list',
    );
    expect(ask, 'server-everything sends roots/list to a client that declares roots').toBeDefined();
    const answer = r.report.messages.find((m) => m.direction === 'to-server' && m.inReplyTo === ask!.seq)!;
    expect((answer.json as { result: unknown }).result).toEqual({ roots: [{ uri: 'file:///tmp/project' }] });
    expect(r.c('server-requests/declared-only').verdict).toBe('pass');
    expect(r.c('server-requests/answered').verdict).toBe('info');
    expect(r.c('server-requests/answered').message).toMatch(/roots\/list ×\d/);
    expect(r.report.options.clientCapabilities).toEqual(['roots']);
  });

  it('an elicitation request to a client that did not declare elicitation is a fail; declared, it gets decline', async () => {
    const bad = await run(py('broken/elicits-undeclared.py'), ['--suite', SUITES, '--timeout', '3000']);
    expect(bad.c('server-requests/declared-only').verdict).toBe('fail');
    expect(bad.c('server-requests/declared-only').message).toMatch(
      /elicitation\/create, sampling\/createMessage.*did not declare \(it declared none\); each was answered -32601/,
    );
    expect(bad.code).toBe(1);

    const ok = await run(py('broken/elicits-undeclared.py'), [
      '--suite',
      SUITES,
      '--timeout',
      '3000',
      '--client-capabilities',
      'sampling,elicitation',
    ]);
    expect(ok.c('server-requests/declared-only').verdict).toBe('pass');
    const answers = ok.report.messages
      .filter((m) => m.direction === 'to-server' && m.kind === 'response')
      .map((m) => (m.json as { result: unknown }).result);
    expect(answers).toContainEqual({ action: 'decline' });
    expect(answers).toContainEqual(
      expect.objectContaining({
        role: 'assistant',
        model: 'mcp-conform-canned',
        content: expect.objectContaining({ type: 'text' }),
      }),
    );
    expect(ok.code).toBe(0);

    // Declared elicitation is form mode only: an elicitation in url mode is still one the client does not support.
    const url = await run(py('broken/elicits-undeclared.py'), [
      '--suite',
      SUITES,
      '--timeout',
      '3000',
      '--client-capabilities',
      'sampling,elicitation',
      '--env',
      'MODE=url',
    ]);
    expect(url.c('server-requests/declared-only').verdict).toBe('fail');
    expect(url.c('server-requests/declared-only').message).toMatch(
      /1 request\(s\) \(elicitation\/create \(elicitation \(url mode\)\)\) for client capabilities the harness did not declare/,
    );
  });

  it('an unknown client capability is refused before anything starts', async () => {
    const r = await cli(['run', '--stdio', 'true', '--client-capabilities', 'sampling,telepathy']);
    expect(r.code).toBe(2);
    expect(r.stderr).toMatch(/--client-capabilities: "telepathy" is not one of sampling, elicitation, roots/);
  });

  it('2026-07-28: a request of its own (not an input_required result) is a fail, whatever is declared', async () => {
    const r = await run(py('broken/elicits-undeclared.py'), [
      '--suite',
      `${SUITES},listing`,
      '--timeout',
      '3000',
      '--env',
      'STATELESS=1',
      '--client-capabilities',
      'elicitation',
    ]);
    expect(r.report.options.protocolVersionInForce).toBe('2026-07-28');
    expect(r.c('server-requests/declared-only').verdict).toBe('fail');
    expect(r.c('server-requests/declared-only').message).toMatch(
      /request\(s\) of its own \(elicitation\/create\); in 2026-07-28 a server asks for them through an input_required result/,
    );
  });
});
