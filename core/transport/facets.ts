/** The transport a run speaks over, with --url's detecting wrapper looked through: what cases get as ctx.http / ctx.sse. */
import { DetectingTransport } from './detect.js';
import { StreamableHttpTransport } from './http.js';
import { SseTransport } from './sse.js';
import type { Transport } from './types.js';

export function transportFacets(t: Transport): { http?: StreamableHttpTransport; sse?: SseTransport } {
  const inner = t instanceof DetectingTransport ? t.inner : t;
  return {
    ...(inner instanceof StreamableHttpTransport ? { http: inner } : {}),
    ...(inner instanceof SseTransport ? { sse: inner } : {}),
  };
}
