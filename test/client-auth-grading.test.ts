// client-auth/step-up on records as the mocks keep them: the order is the mocks' shared count (seq), not the clock. A
// re-authorization stamped in the same millisecond as the refusal it answers (or under a clock set back) is still after it.
import { describe, expect, it } from 'vitest';
import { clientAuth } from '../clients/suites/auth.js';
import type { ClientCaseContext } from '../clients/case.js';

const stepUp = clientAuth.cases.find((c) => c.id === 'client-auth/step-up')!;
const CHALLENGE = 'Bearer error="insufficient_scope", scope="mcp:read mcp:write"';

const grade = (authorizeAt: number) =>
  stepUp.run({
    scenario: 'auth-step-up',
    client: { exitCode: 0 },
    auth: {
      resourceRequests: [
        {
          n: 0,
          t: 0,
          at: 1000,
          seq: 1,
          kind: 'mcp',
          method: 'POST',
          url: '/mcp',
          rpcMethod: 'tools/call',
          status: 403,
          challenge: CHALLENGE,
          token: 'valid',
          authorization: 'bearer',
        },
        {
          n: 1,
          t: 0,
          at: authorizeAt,
          seq: 3,
          kind: 'mcp',
          method: 'POST',
          url: '/mcp',
          rpcMethod: 'tools/call',
          status: 200,
          token: 'valid',
          authorization: 'bearer',
        },
      ],
      asRequests: [
        {
          method: 'GET',
          url: '/authorize',
          endpoint: 'authorize',
          status: 302,
          t: 0,
          at: authorizeAt,
          seq: 2,
          params: { scope: 'mcp:read mcp:write' },
        },
      ],
    },
  } as unknown as ClientCaseContext);

describe('client-auth/step-up', () => {
  it('a re-authorization with the wider scope, then the retry served: pass, whatever the clock says', () => {
    expect(grade(1005)).toMatchObject({ verdict: 'pass' });
    expect(grade(1000)).toMatchObject({ verdict: 'pass' }); // the same millisecond
    expect(grade(998)).toMatchObject({ verdict: 'pass' }); // a clock set back
  });
});
