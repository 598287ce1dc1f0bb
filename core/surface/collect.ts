/**
 * Listing a server's surface in a run: tools through the run's own memoized listing (core/tools.ts listAllTools via
 * ctx.service(tools)), prompts, resources and resource templates through listAllPages — each only when the server declares
 * the capability, every page followed, bounded and loop-safe like the tool listing. No tool is called.
 */
import type { Reply, Session } from '../session.js';
import { SessionError } from '../session.js';
import type { CaseContext } from '../suite.js';
import type { Service } from '../services.js';
import { MAX_PAGES, tools } from '../tools.js';
import { buildSnapshot, handshakeInfo, isObject, type Snapshot, type SurfaceListing } from './snapshot.js';

export interface PagedListing {
  items: unknown[];
  pages: Reply[];
  messageIds: number[];
  /** Set when the listing did not complete: why, in plain words. */
  problem?: string;
  /** The server answered the method with -32601 (method not found). */
  notFound?: boolean;
}

/** The run's listings by method (a run service), so that a second look at the surface reuses the same pages. */
const pagedListings: Service<Map<string, Promise<PagedListing>>> = {
  id: 'surface-paged-listings',
  produce: async () => new Map(),
};

/** Every page of a list method (`prompts/list` → `prompts`…), once per run. */
export async function listAllPages(
  ctx: CaseContext,
  method: string,
  key: string,
  maxPages = MAX_PAGES,
): Promise<PagedListing> {
  const m = await ctx.service(pagedListings);
  let p = m.get(method);
  if (!p) m.set(method, (p = listPages(ctx.session, method, key, maxPages)));
  return p;
}

async function listPages(session: Session, method: string, key: string, maxPages: number): Promise<PagedListing> {
  const l: PagedListing = { items: [], pages: [], messageIds: [] };
  const seen = new Set<string>();
  let cursor: string | undefined;
  for (let page = 0; ; page++) {
    if (page >= maxPages) {
      l.problem = `${method}: stopped after ${maxPages} pages: the server kept sending nextCursor`;
      return l;
    }
    let reply: Reply;
    try {
      reply = await session.request(method, cursor === undefined ? undefined : { cursor });
    } catch (e) {
      if (e instanceof SessionError && e.request) l.messageIds.push(e.request.seq);
      l.problem = `${method}: ${(e as Error).message}`;
      return l;
    }
    l.pages.push(reply);
    l.messageIds.push(reply.request.seq, reply.response.seq);
    if (reply.error) {
      l.notFound = reply.error.code === -32601;
      l.problem = `${method}${cursor === undefined ? '' : ` (cursor ${JSON.stringify(cursor)})`} answered with error ${reply.error.code}: ${reply.error.message}`;
      return l;
    }
    const items = reply.result?.[key];
    if (!Array.isArray(items)) {
      l.problem = `${method} result has no "${key}" array (got ${items === undefined ? 'nothing' : typeof items})`;
      return l;
    }
    l.items.push(...items);
    const next = reply.result?.nextCursor;
    if (next === undefined || next === null) return l;
    if (typeof next !== 'string') {
      l.problem = `${method}: nextCursor is ${typeof next}, not a string`;
      return l;
    }
    if (seen.has(next)) {
      l.problem = `${method}: nextCursor ${JSON.stringify(next)} came back again on page ${page + 1}: the pages loop`;
      return l;
    }
    seen.add(next);
    cursor = next;
  }
}

export interface CollectedSurface {
  /** Absent when a declared list could not be listed completely (see problems). */
  snapshot?: Snapshot;
  problems: string[];
  /** Notes that do not stop the snapshot (a templates list the server does not serve). */
  notes: string[];
  messageIds: number[];
}

/** Lists the surface in a run and builds its snapshot. */
export async function collectSurface(ctx: CaseContext): Promise<CollectedSurface> {
  const out: CollectedSurface = { problems: [], notes: [], messageIds: [] };
  const init = ctx.init;
  const result = (init.handshake === 'server/discover' ? init.discover?.result : init.reply?.result) ?? undefined;
  if (!result) {
    out.problems.push('no handshake answer: nothing to take a snapshot of');
    return out;
  }
  const hs = handshakeInfo(result);
  const caps = ctx.capabilities;
  const listing: SurfaceListing = {
    protocolVersion:
      init.handshake === 'server/discover'
        ? ctx.version
        : typeof result.protocolVersion === 'string'
          ? result.protocolVersion
          : ctx.version,
    serverInfo: hs.serverInfo,
    instructions: hs.instructions,
    capabilities: caps,
  };
  if (caps.tools) {
    const l = await ctx.service(tools);
    out.messageIds.push(...l.messageIds);
    if (l.problem) out.problems.push(`tools/list: ${l.problem}`);
    else listing.tools = l.tools;
  } else listing.tools = [];
  const lists: [string, string, 'prompts' | 'resources' | 'resourceTemplates', string][] = [
    ['prompts', 'prompts/list', 'prompts', 'prompts'],
    ['resources', 'resources/list', 'resources', 'resources'],
    ['resources', 'resources/templates/list', 'resourceTemplates', 'resourceTemplates'],
  ];
  for (const [cap, method, section, key] of lists) {
    if (!caps[cap]) {
      listing[section] = [];
      continue;
    }
    const l = await listAllPages(ctx, method, key);
    out.messageIds.push(...l.messageIds);
    if (l.problem && section === 'resourceTemplates' && l.notFound && l.pages.length === 1) {
      // Resource templates are optional for a server with resources: "method not found" means it has none.
      out.notes.push(`${method} is not served (-32601): no resource templates`);
      listing[section] = [];
    } else if (l.problem) out.problems.push(l.problem);
    else listing[section] = l.items.filter(isObject);
  }
  if (!out.problems.length) out.snapshot = buildSnapshot(listing);
  return out;
}
