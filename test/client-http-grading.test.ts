// The grading of client-http/retry-respected on exchange lists as the mock records them: the reconnection timed is
// the GET that resumes the cut stream, not a standalone GET that happens to arrive right after the cut POST.
import { describe, expect, it } from 'vitest';
import { clientHttp } from '../clients/suites/http.js';
import type { ClientCaseContext } from '../clients/case.js';
import type { ClientExchange } from '../mocks/client-mock.js';

const retry = clientHttp.cases.find((c) => c.id === 'client-http/retry-respected')!;
const grade = (exchanges: Partial<ClientExchange>[]) =>
  retry.run({
    exchanges: exchanges.map((e, n) => ({ n, url: '/mcp', headers: {}, ...e })),
  } as unknown as ClientCaseContext);

const cut = { method: 'POST', rpcMethod: 'tools/list', t: 1000, fault: 'stream ended early (retry: 1000)' };

describe('client-http/retry-respected', () => {
  it('a standalone GET arriving right after the cut POST is not the reconnection: the resuming GET is timed', () => {
    const v = grade([
      { method: 'POST', rpcMethod: 'initialize', t: 0 },
      cut,
      { method: 'GET', t: 1000 },
      { method: 'GET', t: 2010, headers: { 'last-event-id': 'resume-1' } },
    ]);
    expect(v).toMatchObject({ verdict: 'pass' });
    expect((v as { message: string }).message).toMatch(/GET #3\) after 1010 ms/);
  });

  it('a resuming GET sent before the retry has passed: fail', () => {
    const v = grade([cut, { method: 'GET', t: 1005, headers: { 'last-event-id': 'resume-0' } }]);
    expect(v).toMatchObject({ verdict: 'fail' });
  });

  it('no GET with Last-Event-ID after the cut: nothing to time (skip)', () => {
    expect(grade([cut, { method: 'GET', t: 1001 }])).toMatchObject({ verdict: 'skip' });
  });
});
