/** The tool list of a server: every page of tools/list, followed with a bound and loop detection. */
import type { Reply, Session } from './session.js';
import { SessionError } from './session.js';

export interface Tool {
  name: string;
  title?: string;
  description?: string;
  inputSchema?: unknown;
  outputSchema?: unknown;
  annotations?: Record<string, unknown>;
  [k: string]: unknown;
}

export interface ToolListing {
  tools: Tool[];
  /** Every page's reply, in order. */
  pages: Reply[];
  messageIds: number[];
  /** Set when listing did not complete: why, in plain words. */
  problem?: string;
  /** Entries of `tools` that were not objects with a string name (kept out of `tools`). */
  malformed: { page: number; index: number; value: unknown }[];
}

export const MAX_PAGES = 1000;

export async function listAllTools(session: Session, maxPages = MAX_PAGES): Promise<ToolListing> {
  const listing: ToolListing = { tools: [], pages: [], messageIds: [], malformed: [] };
  const seen = new Set<string>();
  let cursor: string | undefined;
  for (let page = 0; ; page++) {
    if (page >= maxPages) {
      listing.problem = `stopped after ${maxPages} pages: the server kept sending nextCursor`;
      return listing;
    }
    let reply: Reply;
    try {
      reply = await session.request('tools/list', cursor === undefined ? undefined : { cursor });
    } catch (e) {
      if (e instanceof SessionError && e.request) listing.messageIds.push(e.request.seq);
      listing.problem = (e as Error).message;
      return listing;
    }
    listing.pages.push(reply);
    listing.messageIds.push(reply.request.seq, reply.response.seq);
    if (reply.error) {
      listing.problem = `tools/list${cursor === undefined ? '' : ` (cursor ${JSON.stringify(cursor)})`} answered with error ${reply.error.code}: ${reply.error.message}`;
      return listing;
    }
    const tools = reply.result?.tools;
    if (!Array.isArray(tools)) {
      listing.problem = `tools/list result has no "tools" array (got ${tools === undefined ? 'nothing' : typeof tools})`;
      return listing;
    }
    tools.forEach((t, index) => {
      if (t !== null && typeof t === 'object' && typeof (t as Tool).name === 'string') listing.tools.push(t as Tool);
      else listing.malformed.push({ page, index, value: t });
    });
    const next = reply.result?.nextCursor;
    if (next === undefined || next === null) return listing;
    if (typeof next !== 'string') {
      listing.problem = `nextCursor is ${typeof next}, not a string`;
      return listing;
    }
    if (seen.has(next)) {
      listing.problem = `nextCursor ${JSON.stringify(next)} came back again on page ${page + 1}: the pages loop`;
      return listing;
    }
    seen.add(next);
    cursor = next;
  }
}

/** --call-tools safe leaves out tools that say they destroy and do not say they only read. */
export function isDestructive(tool: Tool): boolean {
  const a = tool.annotations ?? {};
  return a.destructiveHint === true && a.readOnlyHint !== true;
}
