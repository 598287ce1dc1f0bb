/**
 * 2026-07-28 surface: input_required results are recognised (never judged as a malformed tools/call result) and
 * reported as not exercisable; extensions identifiers are checked.
 */
import { describe, expect, it } from 'vitest';
import { py, run } from './helpers/cli.js';

describe('2026-07-28 surface', () => {
  it('an input_required tools/call result is recognised, not misjudged; a malformed one fails', async () => {
    const r = await run(py('broken/input-required.py'), ['--suite', 'calling,surface-2026,schema', '--timeout', '3000']);
    expect(r.report.options.protocolVersionInForce).toBe('2026-07-28');
    expect(r.c('calling/tool/confirm').verdict).toBe('skip');
    expect(r.c('calling/tool/confirm').message).toMatch(/not exercisable: the server answered input_required/);
    expect(r.c('surface-2026/input-required').verdict).toBe('info');
    expect(r.c('schema/from-server/tools/call').verdict).toBe('pass');
    expect(r.code).toBe(0);
    const bad = await run(py('broken/input-required.py'), ['--suite', 'calling,surface-2026', '--timeout', '3000', '--env', 'MODE=bad']);
    expect(bad.c('surface-2026/input-required').verdict).toBe('fail');
    expect(bad.c('surface-2026/input-required').message).toMatch(/neither inputRequests nor requestState/);
  });

  it('extensions: a key without prefix or settings that are no object fail; a prefixed key passes', async () => {
    const bad = await run(py('broken/bad-extension.py'), ['--suite', 'surface-2026', '--timeout', '3000']);
    expect(bad.c('surface-2026/extensions').verdict).toBe('fail');
    expect(bad.c('surface-2026/extensions').message).toMatch(/"tasks" is not a prefixed identifier.*"io.example\/audit" are true, not an object/);
    const ok = await run(py('broken/bad-extension.py'), ['--suite', 'surface-2026', '--timeout', '3000', '--env', 'MODE=ok']);
    expect(ok.c('surface-2026/extensions').verdict).toBe('pass');
    expect(ok.c('surface-2026/extensions').message).toBe('extensions: io.modelcontextprotocol/tasks');
  });

  it('before 2026-07-28 the cases do not apply', async () => {
    const r = await run(py('broken/bad-extension.py'), ['--suite', 'surface-2026', '--timeout', '3000', '--protocol-version', '2025-11-25']);
    for (const id of ['surface-2026/cache-hints', 'surface-2026/input-required', 'surface-2026/extensions']) expect(r.c(id).message).toMatch(/^does not apply: protocol 2025-11-25 has no/);
  });
});
