/**
 * Paginated listing, for any list method (tools/list, resources/list, resources/templates/list, prompts/list): every
 * page followed, bounded (maxPages) and loop-safe (a cursor that comes back ends the listing with a problem).
 * A plain function, session in, data out: the run memoizes what it returns (see core/surface.ts).
 */
import type { Reply, Session } from './session.js';
import { SessionError } from './session.js';

export interface Listing<T> {
  items: T[];
  /** Every page's reply, in order. */
  pages: Reply[];
  messageIds: number[];
  /** Set when listing did not complete: why, in plain words. */
  problem?: string;
  /** The JSON-RPC error that ended the listing on its first page, if any (capability honesty reads it). */
  firstError?: { code: number; message: string };
  /** Entries that were not well-formed items (kept out of `items`). */
  malformed: { page: number; index: number; value: unknown }[];
}

export const MAX_PAGES = 1000;

/**
 * List everything `method` lists: `key` names the array in each result (e.g. 'resources'); `isItem` tells a
 * well-formed entry from a malformed one.
 */
export async function listAll<T>(
  session: Session,
  method: string,
  key: string,
  isItem: (v: unknown) => v is T,
  maxPages = MAX_PAGES,
): Promise<Listing<T>> {
  const listing: Listing<T> = { items: [], pages: [], messageIds: [], malformed: [] };
  const seen = new Set<string>();
  let cursor: string | undefined;
  for (let page = 0; ; page++) {
    if (page >= maxPages) {
      listing.problem = `stopped after ${maxPages} pages: the server kept sending nextCursor`;
      return listing;
    }
    let reply: Reply;
    try {
      reply = await session.request(method, cursor === undefined ? undefined : { cursor });
    } catch (e) {
      if (e instanceof SessionError && e.request) listing.messageIds.push(e.request.seq);
      listing.problem = (e as Error).message;
      return listing;
    }
    listing.pages.push(reply);
    listing.messageIds.push(reply.request.seq, reply.response.seq);
    if (reply.error) {
      if (page === 0) listing.firstError = { code: reply.error.code, message: reply.error.message };
      listing.problem = `${method}${cursor === undefined ? '' : ` (cursor ${JSON.stringify(cursor)})`} answered with error ${reply.error.code}: ${reply.error.message}`;
      return listing;
    }
    const items = reply.result?.[key];
    if (!Array.isArray(items)) {
      listing.problem = `${method} result has no "${key}" array (got ${items === undefined ? 'nothing' : typeof items})`;
      return listing;
    }
    items.forEach((t, index) => {
      if (isItem(t)) listing.items.push(t);
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

/** An object with a string member `name` (tools, prompts, resources, templates all have one). */
export function hasStringMember(member: string) {
  return <T>(v: unknown): v is T =>
    v !== null &&
    typeof v === 'object' &&
    !Array.isArray(v) &&
    typeof (v as Record<string, unknown>)[member] === 'string';
}
