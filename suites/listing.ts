/**
 * Listing tools: tools/list with every page followed, unique names, input and output schemas that are object
 * schemas and valid JSON Schema, and the tool-name rules. https://modelcontextprotocol.io/specification/2025-11-25/server/tools
 */
import type { CaseContext, Suite } from '../core/suite.js';
import { tools, type Tool } from '../core/tools.js';
import { brief, isObject, listedTools as listed, listingProblem } from './helpers.js';

const NAME_RULE = /^[A-Za-z0-9_.-]{1,128}$/;

function schemaProblems(ctx: CaseContext, tool: Tool, key: 'inputSchema' | 'outputSchema'): string[] {
  const s = tool[key];
  if (!isObject(s)) return [`${key} is ${s === undefined ? 'missing' : brief(s, 60)}, not a JSON Schema object`];
  const out: string[] = [];
  if (s.type !== 'object') out.push(`${key}.type is ${JSON.stringify(s.type)}, expected "object"`);
  const prepared = ctx.workbench.prepare(s);
  for (const p of prepared.problems) out.push(`${key} is not valid JSON Schema (${prepared.dialect}): ${p}`);
  return out;
}

export const listing: Suite = {
  id: 'listing',
  title: 'Listing tools',
  description: 'tools/list, pagination, names, input and output schemas',
  services: [tools],
  cases: [
    {
      id: 'listing/tools-list',
      title: 'tools/list is answered, and every page can be followed to the end',
      level: 'MUST',
      spec: 'server/tools#listing-tools',
      requirement:
        'A server with the tools capability answers tools/list with a tools array; when it sends nextCursor, requesting that cursor gives the next page, and the pages end.',
      requires: { capability: 'tools' },
      async run(ctx) {
        const l = await ctx.service(tools);
        if (l.problem) return listingProblem(l, 'tools/list');
        if (l.malformed.length) {
          return {
            verdict: 'fail',
            message: `${l.malformed.length} entries of tools are not tool objects with a string name, e.g. ${brief(l.malformed[0]!.value)}`,
            messageIds: l.messageIds,
          };
        }
        return {
          verdict: 'pass',
          message: `${l.tools.length} tool${l.tools.length === 1 ? '' : 's'} in ${l.pages.length} page${l.pages.length === 1 ? '' : 's'}`,
          messageIds: l.messageIds,
        };
      },
    },
    {
      id: 'listing/unique-names',
      title: 'tool names are unique',
      level: 'MUST',
      spec: 'server/tools#tool',
      requirement: 'A tool name identifies one tool: no two tools in the list share a name.',
      requires: { capability: 'tools', needs: 'listed' },
      async run(ctx) {
        const t = await listed(ctx);
        if (!Array.isArray(t)) return t;
        const count = new Map<string, number>();
        for (const tool of t) count.set(tool.name, (count.get(tool.name) ?? 0) + 1);
        const dup = [...count].filter(([, n]) => n > 1);
        if (dup.length)
          return {
            verdict: 'fail',
            message: `names listed more than once: ${dup.map(([n, k]) => `"${n}" ×${k}`).join(', ')}`,
          };
        if (!t.length) return { verdict: 'skip', message: 'no tool listed: no name to compare' };
        return { verdict: 'pass', message: `${t.length} distinct names` };
      },
    },
    {
      id: 'listing/input-schema',
      title: 'every inputSchema is a valid JSON Schema of type object',
      level: 'MUST',
      spec: 'server/tools#tool',
      requirement:
        'Each tool has an inputSchema: a JSON Schema object whose type is "object", itself valid against its JSON Schema meta-schema (the dialect its $schema names; by default 2020-12 from 2025-11-25, draft-07 before), with every $ref resolving inside the schema ($defs by JSON pointer, a plain-name $anchor, the schema\'s own $id): a reference to nothing there fails. A $ref to another document (a network URI) is not fetched — 2026-07-28 forbids dereferencing one by default and asks clients to reject such a schema (basic#ref-resolution, a SHOULD) — so it warns.',
      perItem: 'tool',
      requires: { capability: 'tools', needs: 'listed' },
      async run(ctx) {
        const t = await listed(ctx);
        if (!Array.isArray(t)) return t;
        return t.map((tool) => {
          const p = schemaProblems(ctx, tool, 'inputSchema');
          const { notes, externalRefs } = ctx.workbench.prepare(tool.inputSchema);
          if (p.length) return { item: tool.name, verdict: 'fail' as const, message: p.join('; ') };
          if (externalRefs.length)
            return {
              item: tool.name,
              verdict: 'warn' as const,
              message: `valid object schema, but it refers outside itself (${externalRefs.map((r) => JSON.stringify(r)).join(', ')}): nobody fetches such a $ref by default, and a client should reject the schema rather than treat it as permissive`,
            };
          return {
            item: tool.name,
            verdict: 'pass' as const,
            message: `valid object schema${notes.length ? ` (${notes.join('; ')})` : ''}`,
          };
        });
      },
    },
    {
      id: 'listing/output-schema',
      title: 'every outputSchema is a valid JSON Schema of type object',
      level: 'MUST',
      spec: 'server/tools#output-schema',
      requirement:
        'Where a tool declares an outputSchema, it is a JSON Schema object of type "object", valid against its meta-schema.',
      perItem: 'tool',
      requires: { capability: 'tools', needs: 'listed' },
      async run(ctx) {
        const t = await listed(ctx);
        if (!Array.isArray(t)) return t;
        const withOutput = t.filter((tool) => tool.outputSchema !== undefined);
        if (!withOutput.length) return { verdict: 'skip', message: 'no tool declares an outputSchema' };
        return withOutput.map((tool) => {
          const p = schemaProblems(ctx, tool, 'outputSchema');
          return p.length
            ? { item: tool.name, verdict: 'fail' as const, message: p.join('; ') }
            : { item: tool.name, verdict: 'pass' as const, message: 'valid object schema' };
        });
      },
    },
    {
      id: 'listing/tool-names',
      title: 'tool names follow the naming rules (SEP-986)',
      level: 'SHOULD',
      spec: 'server/tools#tool-names',
      requirement:
        'Tool names should be 1 to 128 characters of A-Z, a-z, 0-9, underscore, hyphen and dot (from 2025-11-25; reported as info for earlier versions).',
      requires: { capability: 'tools', needs: 'listed' },
      async run(ctx) {
        const t = await listed(ctx);
        if (!Array.isArray(t)) return t;
        const bad = t.filter((tool) => !NAME_RULE.test(tool.name));
        const graded = ctx.features.toolNameRule ? 'warn' : 'info';
        if (bad.length) {
          const why = (n: string) =>
            n.length === 0
              ? 'empty'
              : n.length > 128
                ? `${n.length} characters`
                : `has ${JSON.stringify([...new Set(n.replace(/[A-Za-z0-9_.-]/g, ''))].join(''))}`;
          return {
            verdict: graded,
            message: `${bad.length} name${bad.length === 1 ? '' : 's'} outside the rule: ${bad
              .slice(0, 5)
              .map((x) => `"${brief(x.name, 40)}" (${why(x.name)})`)
              .join(', ')}`,
          };
        }
        if (!t.length) return { verdict: 'skip', message: 'no tool listed: no name to judge' };
        return { verdict: 'pass', message: `all ${t.length} names follow the rule` };
      },
    },
  ],
};
