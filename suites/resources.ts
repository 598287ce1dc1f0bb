/**
 * Resources: resources/list and resources/templates/list with every page followed, templates that are RFC 6570 URI
 * templates, a read of every listed resource (up to a bound) with well-formed contents, the error for an unknown URI,
 * and subscribe/unsubscribe when declared. https://modelcontextprotocol.io/specification/2025-11-25/server/resources
 */
import { notExercisable, requestAnswering, roundIds } from '../core/mrtr.js';
import type { CaseContext, ItemOutcome, Outcome, Suite } from '../core/suite.js';
import type { Listing } from '../core/listing.js';
import {
  isBase64,
  resourceListing,
  resourceTemplateListing,
  templateMatches,
  uriTemplateProblem,
  type Resource,
} from '../core/surface.js';
import { brief, describeError, isObject, listingProblem, unanswered } from './helpers.js';

/** Most resources read by resources/read (one result each); the rest are named in one skipped item. */
export const MAX_RESOURCE_READS = 50;
/** A URI no server lists (a scheme of its own). */
export const MISSING_URI = 'mcp-conform-missing://nowhere/resource-that-does-not-exist';

function listingOutcome<T>(l: Listing<T>, what: string, method: string): Outcome {
  if (l.problem) return listingProblem(l, method);
  if (l.malformed.length) {
    return {
      verdict: 'fail',
      message: `${l.malformed.length} entr${l.malformed.length === 1 ? 'y' : 'ies'} of the ${method} result ${l.malformed.length === 1 ? 'is' : 'are'} not ${what} objects, e.g. ${brief(l.malformed[0]!.value)}`,
      messageIds: l.messageIds,
    };
  }
  return {
    verdict: 'pass',
    message: `${l.items.length} ${what}${l.items.length === 1 ? '' : 's'} in ${l.pages.length} page${l.pages.length === 1 ? '' : 's'}`,
    messageIds: l.messageIds,
  };
}

/** What is wrong with one entry of a resources/read result's contents, in words (none: []). */
export function contentProblems(c: unknown, i: number): string[] {
  const at = `contents[${i}]`;
  if (!isObject(c)) return [`${at} is ${brief(c, 60)}, not an object`];
  const out: string[] = [];
  if (typeof c.uri !== 'string')
    out.push(`${at}.uri is ${c.uri === undefined ? 'missing' : brief(c.uri, 60)}, not a string`);
  const hasText = 'text' in c,
    hasBlob = 'blob' in c;
  if (hasText && hasBlob) out.push(`${at} has both text and blob`);
  else if (!hasText && !hasBlob) out.push(`${at} has neither text nor blob`);
  else if (hasText && typeof c.text !== 'string') out.push(`${at}.text is ${typeof c.text}, not a string`);
  else if (hasBlob && (typeof c.blob !== 'string' || !isBase64(c.blob)))
    out.push(`${at}.blob is not base64 (${brief(c.blob, 60)})`);
  if ('mimeType' in c && typeof c.mimeType !== 'string')
    out.push(`${at}.mimeType is ${typeof c.mimeType}, not a string`);
  return out;
}

async function readOne(ctx: CaseContext, r: Resource): Promise<ItemOutcome> {
  const item = r.uri;
  let reply, mrtr;
  try {
    // 2026-07-28: an input_required answer is answered with canned input and sent again (core/mrtr.ts).
    ({ reply, mrtr } = await requestAnswering(ctx, 'resources/read', { uri: r.uri }));
  } catch (e) {
    return { item, ...unanswered(e as Error) };
  }
  const blocked = notExercisable(ctx.features, reply, mrtr);
  if (blocked) return { item, ...blocked };
  const messageIds = roundIds({ reply, mrtr });
  if (reply.error) {
    return {
      item,
      verdict: 'warn',
      level: 'SHOULD',
      messageIds,
      message: `resources/read of a listed resource answered with error ${describeError(reply.error)}: a client cannot read what the server lists`,
    };
  }
  const contents = reply.result?.contents;
  if (!Array.isArray(contents))
    return {
      item,
      verdict: 'fail',
      messageIds,
      message: `resources/read result has no contents array (got ${brief(contents, 80)})`,
    };
  const problems = contents.flatMap((c, i) => contentProblems(c, i));
  if (problems.length) return { item, verdict: 'fail', messageIds, message: problems.slice(0, 5).join('; ') };
  const mine = contents.filter((c) => isObject(c) && c.uri === r.uri && typeof c.mimeType === 'string') as {
    mimeType: string;
  }[];
  const differ = r.mimeType !== undefined ? mine.filter((c) => c.mimeType !== r.mimeType) : [];
  if (differ.length) {
    return {
      item,
      verdict: 'info',
      messageIds,
      message: `read: ${contents.length} content item(s); the listing says mimeType ${JSON.stringify(r.mimeType)}, the read says ${JSON.stringify(differ[0]!.mimeType)}`,
    };
  }
  const kinds = contents.map((c) => ('blob' in (c as object) ? 'blob' : 'text'));
  return {
    item,
    verdict: 'pass',
    messageIds,
    message: `read: ${contents.length} content item${contents.length === 1 ? '' : 's'} (${[...new Set(kinds)].join(', ') || 'none'})`,
  };
}

async function readable(ctx: CaseContext): Promise<Outcome | Resource[]> {
  const l = await ctx.service(resourceListing);
  if (l.problem && !l.items.length)
    return { verdict: 'skip', message: `no resources to read: ${l.problem}`, messageIds: l.messageIds };
  return l.items;
}

/** What a resource-not-found error says of the URI in data.uri: reported, never graded (only the spec's example has it). */
function dataUriNote(data: unknown): string {
  const uri = isObject(data) ? data.uri : undefined;
  if (uri === undefined) return ' (no data.uri)';
  return uri === MISSING_URI ? ' (data.uri names it)' : ` (data.uri is ${brief(uri, 60)}, not the URI asked for)`;
}

export const resources: Suite = {
  id: 'resources',
  title: 'Resources',
  description: 'resources/list, templates, resources/read, unknown URIs, subscriptions',
  cases: [
    {
      id: 'resources/list',
      title: 'resources/list is answered, and every page can be followed to the end',
      level: 'MUST',
      spec: 'server/resources#listing-resources',
      requirement:
        'A server that declares resources answers resources/list with a resources array of objects with a uri; when it sends nextCursor, that cursor gives the next page, and the pages end (a cursor that comes back is a loop).',
      requires: { capability: 'resources' },
      async run(ctx) {
        return listingOutcome(await ctx.service(resourceListing), 'resource', 'resources/list');
      },
    },
    {
      id: 'resources/templates-list',
      title: 'resources/templates/list is answered, and every page can be followed to the end',
      level: 'MUST',
      spec: 'server/resources#resource-templates',
      requirement:
        'resources/templates/list answers a resourceTemplates array of objects with a uriTemplate, pages followed as for resources/list. A server without templates may refuse the method with -32601 (info).',
      requires: { capability: 'resources' },
      async run(ctx) {
        const l = await ctx.service(resourceTemplateListing);
        if (l.firstError?.code === -32601)
          return {
            verdict: 'info',
            message: `resources/templates/list answered -32601 (method not found): the server offers no templates`,
            messageIds: l.messageIds,
          };
        return listingOutcome(l, 'resource template', 'resources/templates/list');
      },
    },
    {
      id: 'resources/uri-templates',
      title: 'every uriTemplate is an RFC 6570 URI template',
      level: 'MUST',
      spec: 'server/resources#resource-templates',
      requirement:
        'The uriTemplate of a resource template is a URI template as RFC 6570 defines it (balanced braces, known operators, valid variable names).',
      requires: { capability: 'resources' },
      async run(ctx) {
        const l = await ctx.service(resourceTemplateListing);
        if (!l.items.length)
          return {
            verdict: 'skip',
            message: `no resource template to look at${l.problem ? `: ${l.problem}` : ''}`,
            messageIds: l.messageIds,
          };
        const bad = l.items
          .map((t) => [t.uriTemplate, uriTemplateProblem(t.uriTemplate)] as const)
          .filter(([, p]) => p);
        if (bad.length)
          return {
            verdict: 'fail',
            messageIds: l.messageIds,
            message: bad
              .slice(0, 5)
              .map(([t, p]) => `${JSON.stringify(t)}: ${p}`)
              .join('; '),
          };
        return {
          verdict: 'pass',
          messageIds: l.messageIds,
          message: `${l.items.length} template${l.items.length === 1 ? '' : 's'}, all well-formed (${l.items
            .slice(0, 3)
            .map((t) => t.uriTemplate)
            .join(', ')}${l.items.length > 3 ? ', …' : ''})`,
        };
      },
    },
    {
      id: 'resources/read',
      title: 'every listed resource can be read, with well-formed contents',
      level: 'MUST',
      spec: 'server/resources#reading-resources',
      requirement: `resources/read of a listed URI answers a contents array; each item has a uri and either text (a string) or blob (base64). A mimeType that differs from the listing's is noted (info). At most ${MAX_RESOURCE_READS} resources are read.`,
      perItem: 'resource',
      requires: { capability: 'resources' },
      async run(ctx) {
        const rs = await readable(ctx);
        if (!Array.isArray(rs)) return rs;
        if (!rs.length) return { verdict: 'skip', message: 'the server lists no resources' };
        const take = rs.slice(0, MAX_RESOURCE_READS).filter((r) => ctx.selected(`resources/read/${r.uri}`));
        const out: ItemOutcome[] = [];
        for (const r of take) out.push(await readOne(ctx, r));
        if (rs.length > MAX_RESOURCE_READS) {
          out.push({
            item: 'beyond-bound',
            verdict: 'skip',
            message: `${rs.length - MAX_RESOURCE_READS} more resources not read: at most ${MAX_RESOURCE_READS} are read (the first not read: ${rs[MAX_RESOURCE_READS]!.uri})`,
          });
        }
        return out;
      },
    },
    {
      id: 'resources/unknown-uri',
      title: 'reading a URI the server does not have is an error',
      level: 'SHOULD',
      spec: 'server/resources#error-handling',
      requirement:
        "resources/read of a URI the server did not list and cannot resolve answers a JSON-RPC error. Up to 2025-11-25 the code should be -32002 (resource not found; SHOULD: another code warns). From 2026-07-28 it must be -32602 (SEP-2164): another code fails — -32002 included, the retired code clients only tolerate — except -32603, the internal-error code, which warns (a failure inside the server cannot be told from a missing resource from outside); a result fails, an empty contents array named as such. The error's data.uri (the spec's example names the URI there; no rule requires it) is reported, not graded.",
      requires: { capability: 'resources' },
      async run(ctx) {
        const facts = ctx.features;
        const strength = facts.resourceNotFoundStrength;
        const templates = (await ctx.service(resourceTemplateListing)).items;
        let reply;
        try {
          reply = await ctx.session.request('resources/read', { uri: MISSING_URI });
        } catch (e) {
          return unanswered(e as Error);
        }
        const messageIds = [reply.request.seq, reply.response.seq];
        const sent = `resources/read of ${MISSING_URI} (listed nowhere)`;
        if (reply.error) {
          const got = `${sent} answered with error ${describeError(reply.error)}${dataUriNote(reply.error.data)}`;
          if (reply.error.code === facts.resourceNotFoundCode) return { verdict: 'pass', messageIds, message: got };
          if (strength === 'SHOULD')
            return {
              verdict: 'warn',
              level: 'SHOULD',
              messageIds,
              message: `${got}; protocol ${ctx.version} names ${facts.resourceNotFoundCode} for a resource that does not exist`,
            };
          if (reply.error.code === -32603)
            return {
              verdict: 'warn',
              messageIds,
              message: `${got}: the internal-error code; protocol ${ctx.version} requires ${facts.resourceNotFoundCode} for a resource that does not exist (whether the server failed inside cannot be told from outside)`,
            };
          const retired =
            reply.error.code === -32002
              ? ' (-32002 is the code of 2025-11-25 and earlier, which this version retired: clients only tolerate it)'
              : '';
          return {
            verdict: 'fail',
            messageIds,
            message: `${got}; protocol ${ctx.version} requires ${facts.resourceNotFoundCode} for a resource that does not exist${retired}`,
          };
        }
        const match = templates.find((t) => templateMatches(t.uriTemplate, MISSING_URI));
        if (match)
          return {
            verdict: 'info',
            messageIds,
            message: `${sent} answered a result; the template ${JSON.stringify(match.uriTemplate)} may resolve it, so it is not judged`,
          };
        const contents = isObject(reply.result) ? reply.result.contents : undefined;
        const empty = Array.isArray(contents) && contents.length === 0;
        const said =
          empty && strength === 'MUST'
            ? 'an empty contents array, which this version forbids for a resource that does not exist (it cannot be told from an empty resource),'
            : `a result (${brief(reply.result, 120)})`;
        return {
          verdict: strength === 'MUST' ? 'fail' : 'warn',
          level: strength,
          messageIds,
          message: `${sent} answered ${said} instead of error ${facts.resourceNotFoundCode}`,
        };
      },
    },
    {
      id: 'resources/subscribe',
      title: 'resources/subscribe and resources/unsubscribe are answered when subscribe is declared',
      level: 'MUST',
      spec: 'server/resources#subscriptions',
      requirement:
        'A server that declares resources.subscribe answers resources/subscribe and resources/unsubscribe of a listed resource with an empty result.',
      requires: { capability: 'resources', feature: 'resourceSubscribe' },
      async run(ctx) {
        const caps = ctx.capabilities.resources;
        if (!isObject(caps) || caps.subscribe !== true)
          return { verdict: 'skip', message: 'the server did not declare resources.subscribe' };
        const rs = await readable(ctx);
        if (!Array.isArray(rs)) return rs;
        if (!rs.length) return { verdict: 'skip', message: 'the server lists no resource to subscribe to' };
        const uri = rs[0]!.uri;
        const ids: number[] = [];
        for (const method of ['resources/subscribe', 'resources/unsubscribe']) {
          let reply;
          try {
            reply = await ctx.session.request(method, { uri });
          } catch (e) {
            return unanswered(e as Error);
          }
          ids.push(reply.request.seq, reply.response.seq);
          if (reply.error)
            return {
              verdict: 'fail',
              messageIds: ids,
              message: `${method} of ${uri} answered with error ${describeError(reply.error)} although the server declared resources.subscribe`,
            };
        }
        return {
          verdict: 'pass',
          messageIds: ids,
          message: `resources/subscribe and resources/unsubscribe of ${uri} answered with results`,
        };
      },
    },
  ],
};
