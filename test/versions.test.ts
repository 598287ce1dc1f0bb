/** Spec links follow the pages of the version in force (sections moved between versions). */
import { describe, expect, it } from 'vitest';
import { specUrl } from '../core/schema/versions.js';
import { withRequestMeta } from '../core/session.js';

describe('specUrl', () => {
  it('2026-07-28 split transports, replaced initialize by server/discover and removed ping', () => {
    expect(specUrl('2026-07-28', 'basic/transports#stdio')).toBe(
      'https://modelcontextprotocol.io/specification/2026-07-28/basic/transports/stdio',
    );
    expect(specUrl('2026-07-28', 'basic/transports#session-management')).toBe(
      'https://modelcontextprotocol.io/specification/2026-07-28/basic/transports/streamable-http#session-management',
    );
    expect(specUrl('2026-07-28', 'basic/lifecycle#initialization')).toBe(
      'https://modelcontextprotocol.io/specification/2026-07-28/server/discover',
    );
    expect(specUrl('2026-07-28', 'basic/utilities/ping')).toBe(
      'https://modelcontextprotocol.io/specification/2026-07-28/changelog',
    );
  });
  it('earlier versions keep their own paths', () => {
    expect(specUrl('2025-11-25', 'basic/transports#stdio')).toBe(
      'https://modelcontextprotocol.io/specification/2025-11-25/basic/transports#stdio',
    );
    expect(specUrl('2025-11-25', 'basic/transports/streamable-http#server-validation')).toBe(
      'https://modelcontextprotocol.io/specification/2025-11-25/basic/transports#streamable-http',
    );
    expect(specUrl('2025-03-26', 'basic/security_best_practices')).toBe(
      'https://modelcontextprotocol.io/specification/2025-03-26/basic/transports#security-warning',
    );
  });
});

describe('withRequestMeta', () => {
  const meta = {
    'io.modelcontextprotocol/protocolVersion': '2026-07-28',
    'io.modelcontextprotocol/clientCapabilities': {},
  };
  it('adds the stateless _meta to requests only, keeping members the request has', () => {
    expect(withRequestMeta({ jsonrpc: '2.0', id: 1, method: 'tools/list' }, meta)).toEqual({
      jsonrpc: '2.0',
      id: 1,
      method: 'tools/list',
      params: { _meta: meta },
    });
    expect(withRequestMeta({ jsonrpc: '2.0', id: 1, method: 'x', params: { _meta: { a: 1 } } }, meta)).toEqual({
      jsonrpc: '2.0',
      id: 1,
      method: 'x',
      params: { _meta: { ...meta, a: 1 } },
    });
    expect(withRequestMeta({ jsonrpc: '2.0', method: 'notifications/cancelled' }, meta)).toEqual({
      jsonrpc: '2.0',
      method: 'notifications/cancelled',
    });
    expect(withRequestMeta({ jsonrpc: '2.0', id: 1, result: {} }, meta)).toEqual({ jsonrpc: '2.0', id: 1, result: {} });
    expect(withRequestMeta({ jsonrpc: '2.0', id: 1, method: 'x', params: 5 }, meta)).toEqual({
      jsonrpc: '2.0',
      id: 1,
      method: 'x',
      params: 5,
    });
  });
});
