/**
 * The server surface (resources, prompts, completion, logging, capabilities): a conformant stdlib server gets no
 * fail or warn, and each deliberately broken one (fixtures/servers/broken, built on fixtures/servers/surfacekit.py)
 * gets the verdict a spec reader would give for its one defect — and nothing else is called wrong.
 */
import { describe, expect, it } from 'vitest';
import { py, run } from './helpers/cli.js';

type V = 'pass' | 'warn' | 'fail' | 'skip' | 'info';
const SUITES = 'resources,prompts,completion,logging,capabilities,surface-2026,schema';

const CASES: Record<string, { exit: 0 | 1; verdicts: Record<string, V>; message?: Record<string, RegExp> }> = {
  'resources-looping-cursor.py': {
    exit: 1,
    verdicts: { 'resources/list': 'fail' },
    message: { 'resources/list': /nextCursor "again" came back again/ },
  },
  'resource-bad-blob.py': {
    exit: 1,
    verdicts: {
      'resources/read/note://two': 'fail',
      'resources/read/note://one': 'pass',
      'schema/from-server/resources/read': 'fail',
    },
    message: { 'resources/read/note://two': /contents\[0\]\.blob is not base64/ },
  },
  'resource-unknown-empty.py': {
    exit: 0,
    verdicts: { 'resources/unknown-uri': 'warn' },
    message: { 'resources/unknown-uri': /answered a result \(\{"contents":\[\]\}\) instead of error -32002/ },
  },
  'bad-uri-template.py': {
    exit: 1,
    verdicts: { 'resources/uri-templates': 'fail', 'schema/from-server/resources/templates/list': 'fail' },
    message: { 'resources/uri-templates': /"note:\/\/\{id": "\{" at position 7 is never closed/ },
  },
  'subscribe-refused.py': {
    exit: 1,
    verdicts: { 'resources/subscribe': 'fail' },
    message: { 'resources/subscribe': /-32601.*although the server declared resources\.subscribe/ },
  },
  'prompt-bad-role.py': {
    exit: 1,
    verdicts: { 'prompts/get/greet': 'fail', 'schema/from-server/prompts/get': 'fail' },
    message: { 'prompts/get/greet': /messages\[0\]\.role is "system"/ },
  },
  'prompts-not-served.py': {
    exit: 1,
    verdicts: { 'prompts/list': 'fail', 'capabilities/declared-served': 'fail' },
    message: { 'capabilities/declared-served': /prompts is declared but prompts\/list answered code -32601/ },
  },
  'completion-too-many.py': {
    exit: 1,
    verdicts: {
      'completion/prompt-argument': 'fail',
      'completion/template-variable': 'fail',
      'completion/unknown-prompt': 'pass',
    },
    message: { 'completion/prompt-argument': /150 values; at most 100/ },
  },
  'set-level-refused.py': {
    exit: 1,
    verdicts: { 'logging/set-level': 'fail' },
    message: { 'logging/set-level': /logging\/setLevel "debug" answered with error code -32603/ },
  },
  'logs-below-level.py': {
    exit: 0,
    verdicts: { 'logging/below-level': 'warn', 'logging/set-level': 'pass' },
    message: { 'logging/below-level': /below "warning".*"debug"/ },
  },
  'prompts-undeclared.py': {
    exit: 0,
    verdicts: { 'capabilities/undeclared-refused': 'warn' },
    message: { 'capabilities/undeclared-refused': /prompts\/list \(prompts not declared\) answered a result/ },
  },
  'no-cache-hints.py': {
    exit: 1,
    verdicts: {
      'surface-2026/cache-hints': 'fail',
      'schema/from-server/resources/list': 'fail',
      'schema/from-server/resources/templates/list': 'fail',
      'schema/from-server/resources/read': 'fail',
      'schema/from-server/prompts/list': 'fail',
    },
    message: { 'surface-2026/cache-hints': /resources\/list \(message \d+\): ttlMs is undefined/ },
  },
  'list-changed-undeclared.py': {
    exit: 0,
    verdicts: { 'capabilities/list-changed': 'warn' },
    message: { 'capabilities/list-changed': /notifications\/resources\/list_changed/ },
  },
};

describe('server surface', () => {
  it('a conformant server with resources, a template, a prompt, completion and logging gets no fail or warn', async () => {
    const r = await run(py('surface-ok.py'), [
      '--suite',
      SUITES,
      '--timeout',
      '3000',
      '--protocol-version',
      '2025-11-25',
    ]);
    const flagged = r.report.suites.flatMap((s) => s.cases).filter((c) => c.verdict === 'fail' || c.verdict === 'warn');
    expect(flagged.map((c) => `${c.id}: ${c.message}`)).toEqual([]);
    for (const id of [
      'resources/list',
      'resources/templates-list',
      'resources/uri-templates',
      'resources/read/note://one',
      'resources/read/note://two',
      'resources/unknown-uri',
      'resources/subscribe',
      'prompts/list',
      'prompts/get/greet',
      'prompts/missing-argument',
      'prompts/unknown-prompt',
      'completion/prompt-argument',
      'completion/template-variable',
      'completion/unknown-prompt',
      'logging/set-level',
      'logging/below-level',
      'capabilities/declared-served',
      'capabilities/list-changed',
    ]) {
      expect(r.c(id).verdict, `${id}: ${r.c(id).message}`).toBe('pass');
    }
    // The required argument was filled with a value completion offered.
    expect(r.c('prompts/get/greet').message).toMatch(/\{"name":"Ada"\} \(from completion: name\)/);
    expect(r.code).toBe(0);
  });

  it('the same server in 2026-07-28: cache hints, -32602 for an unknown resource, no setLevel or subscribe', async () => {
    const r = await run(py('surface-ok.py'), ['--suite', `${SUITES},surface-2026`, '--timeout', '3000']);
    expect(r.report.options.protocolVersionInForce).toBe('2026-07-28');
    const flagged = r.report.suites.flatMap((s) => s.cases).filter((c) => c.verdict === 'fail' || c.verdict === 'warn');
    expect(flagged.map((c) => `${c.id}: ${c.message}`)).toEqual([]);
    expect(r.c('resources/unknown-uri').message).toMatch(/answered with error code -32602/);
    expect(r.c('surface-2026/cache-hints').message).toMatch(
      /\d+ cacheable result\(s\), each with ttlMs and cacheScope \(public\)/,
    );
    expect(r.c('logging/set-level').message).toBe('does not apply: protocol 2026-07-28 has no logging/setLevel');
    expect(r.c('resources/subscribe').message).toMatch(
      /^does not apply: protocol 2026-07-28 has no resources\/subscribe/,
    );
  });

  it.each(Object.entries(CASES))('broken/%s', async (file, want) => {
    const r = await run(py(`broken/${file}`), ['--suite', SUITES, '--timeout', '3000', '--shutdown-grace', '1000']);
    for (const [id, verdict] of Object.entries(want.verdicts))
      expect(r.c(id).verdict, `${id}: ${r.c(id).message}`).toBe(verdict);
    for (const [id, re] of Object.entries(want.message ?? {})) expect(r.c(id).message).toMatch(re);
    const flagged = r.report.suites
      .flatMap((s) => s.cases)
      .filter((c) => c.verdict === 'fail' || c.verdict === 'warn')
      .map((c) => c.id);
    expect(flagged.sort()).toEqual(
      Object.entries(want.verdicts)
        .filter(([, v]) => v === 'fail' || v === 'warn')
        .map(([id]) => id)
        .sort(),
    );
    expect(r.code).toBe(want.exit);
  });
});
