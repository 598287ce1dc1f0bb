/**
 * What 2026-07-28 adds to the server surface: cache hints on list results (ttlMs, cacheScope), input_required results
 * (multi-round-trip requests) recognised, and the extensions capability.
 * https://modelcontextprotocol.io/specification/2026-07-28/server/utilities/caching ,
 * https://modelcontextprotocol.io/specification/2026-07-28/basic/patterns/mrtr ,
 * https://modelcontextprotocol.io/specification/2026-07-28/basic/lifecycle
 */
import type { LoggedMessage } from '../core/log.js';
import type { Suite } from '../core/suite.js';
import { brief, isObject } from './helpers.js';

/** Methods whose 2026-07-28 results are cacheable (CacheableResult in the schema): they carry ttlMs and cacheScope. */
const LIST_METHODS = ['server/discover', 'tools/list', 'resources/list', 'resources/templates/list', 'prompts/list', 'resources/read'];

/** A `_meta` key with its mandatory prefix: reverse-DNS labels, a slash, a name (alphanumeric at both ends). */
const EXTENSION_KEY = /^[A-Za-z](?:[A-Za-z0-9-]*[A-Za-z0-9])?(?:\.[A-Za-z](?:[A-Za-z0-9-]*[A-Za-z0-9])?)*\/(?:[A-Za-z0-9](?:[A-Za-z0-9._-]*[A-Za-z0-9])?)?$/;

function resultOf(m: LoggedMessage): Record<string, unknown> | undefined {
  const r = isObject(m.json) ? (m.json as Record<string, unknown>).result : undefined;
  return isObject(r) ? r : undefined;
}

export const surface2026: Suite = {
  id: 'surface-2026',
  title: 'The 2026-07-28 surface',
  description: 'ttlMs/cacheScope on list results, input_required results, extensions',
  cases: [
    {
      id: 'surface-2026/cache-hints',
      title: 'cacheable results carry ttlMs and cacheScope',
      level: 'MUST',
      spec: 'server/utilities/caching',
      requirement: 'In 2026-07-28 every cacheable result (resultType "complete") — of server/discover, tools/list, resources/list, resources/templates/list, prompts/list and resources/read — carries ttlMs (an integer ≥ 0: how long the client may cache it) and cacheScope ("public" or "private").',
      // applies: from 2026-07-28 (reads the log)
      requires: { feature: 'cacheHints', needs: 'log' },
      async run(ctx) {
        const answers = ctx.session.log.filter((m) => m.direction === 'from-server' && m.kind === 'response' && m.method !== undefined && LIST_METHODS.includes(m.method));
        if (!answers.length) return { verdict: 'skip', message: 'a cacheable result was never sent' };
        const bad: string[] = [];
        for (const m of answers) {
          const r = resultOf(m);
          if (!r || r.resultType === 'input_required') continue;
          const ttl = r.ttlMs, scope = r.cacheScope;
          if (!Number.isInteger(ttl) || (ttl as number) < 0) bad.push(`${m.method} (message ${m.seq}): ttlMs is ${brief(ttl, 30)}`);
          if (scope !== 'public' && scope !== 'private') bad.push(`${m.method} (message ${m.seq}): cacheScope is ${brief(scope, 30)}`);
        }
        if (bad.length) return { verdict: 'fail', messageIds: answers.slice(0, 10).map((m) => m.seq), message: `cacheable results without valid cache hints: ${bad.slice(0, 4).join('; ')}` };
        const scopes = [...new Set(answers.map((m) => String(resultOf(m)?.cacheScope)))];
        return { verdict: 'pass', messageIds: answers.slice(0, 10).map((m) => m.seq), message: `${answers.length} cacheable result(s), each with ttlMs and cacheScope (${scopes.join(', ')})` };
      },
    },
    {
      id: 'surface-2026/input-required',
      title: 'input_required results are well-formed (recognised, not answered yet)',
      level: 'MUST',
      spec: 'basic/patterns/mrtr',
      requirement: 'An InputRequiredResult (resultType "input_required") carries inputRequests or requestState (at least one). The harness recognises it instead of judging it as a malformed result of the method; it does not answer it yet (the request is reported as not exercisable).',
      // applies: from 2026-07-28 (reads the log)
      requires: { feature: 'mrtr', needs: 'log' },
      async run(ctx) {
        const seen = ctx.session.log.filter((m) => m.direction === 'from-server' && m.kind === 'response' && resultOf(m)?.resultType === 'input_required');
        if (!seen.length) return { verdict: 'skip', message: 'an input_required result was never sent' };
        const bad = seen.filter((m) => { const r = resultOf(m)!; return r.inputRequests === undefined && r.requestState === undefined; });
        const ids = seen.slice(0, 10).map((m) => m.seq);
        if (bad.length) return { verdict: 'fail', messageIds: ids, message: `${bad.length} input_required result(s) have neither inputRequests nor requestState (first: the answer to ${bad[0]!.method}, message ${bad[0]!.seq})` };
        return { verdict: 'info', messageIds: ids, message: `${seen.length} input_required result(s) (to ${[...new Set(seen.map((m) => m.method))].join(', ')}), well-formed; not answered: the harness does not send inputResponses yet, so those requests were not exercisable` };
      },
    },
    {
      id: 'surface-2026/extensions',
      title: 'declared extensions have prefixed identifiers and object settings',
      level: 'MUST',
      spec: 'basic/lifecycle',
      requirement: 'capabilities.extensions maps extension identifiers — _meta-style keys with a mandatory prefix, e.g. "io.modelcontextprotocol/tasks" — to settings objects ({} for none).',
      // applies: from 2026-07-28
      requires: { feature: 'extensions' },
      async run(ctx) {
        const ext = ctx.capabilities.extensions;
        if (ext === undefined) return { verdict: 'skip', message: 'no extension declared (capabilities.extensions is absent)' };
        if (!isObject(ext)) return { verdict: 'fail', message: `capabilities.extensions is ${brief(ext, 60)}, not an object` };
        const bad = Object.entries(ext).flatMap(([k, v]) => [
          ...(EXTENSION_KEY.test(k) ? [] : [`"${k}" is not a prefixed identifier (like io.modelcontextprotocol/tasks)`]),
          ...(isObject(v) ? [] : [`the settings of "${k}" are ${brief(v, 40)}, not an object`]),
        ]);
        if (bad.length) return { verdict: 'fail', message: bad.slice(0, 4).join('; ') };
        return { verdict: 'pass', message: `extensions: ${Object.keys(ext).join(', ') || 'none (empty object)'}` };
      },
    },
  ],
};
