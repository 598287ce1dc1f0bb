/** The message validator: which definition a message is checked against, and how violations read. */
import { describe, expect, it } from 'vitest';
import { MessageValidator, schemaDocumentFor } from '../core/schema/index.js';
import type { ProtocolVersion } from '../core/schema/versions.js';

const v = (version: ProtocolVersion) => new MessageValidator(version, schemaDocumentFor(version).document);

describe('MessageValidator', () => {
  const v25 = v('2025-11-25');
  const v06 = v('2025-06-18');

  it('checks a request against the envelope and the method definition', () => {
    const ok = v25.check({ direction: 'to-server', kind: 'request', method: 'tools/call', json: { jsonrpc: '2.0', id: 1, method: 'tools/call', params: { name: 'add', arguments: { a: 1 } } } });
    expect(ok).toMatchObject({ checked: true, valid: true, definition: 'JSONRPCRequest + CallToolRequest' });
    const bad = v25.check({ direction: 'to-server', kind: 'request', method: 'tools/call', json: { jsonrpc: '2.0', id: 1, method: 'tools/call', params: { arguments: {} } } });
    expect(bad.valid).toBe(false);
    expect(bad.violations).toContainEqual(expect.objectContaining({ pointer: '/params', message: 'missing required property "name"' }));
  });

  it('checks a result against the result definition of the request it answers, with pointers into the message', () => {
    const res = v25.check({ direction: 'from-server', kind: 'response', method: 'tools/call', json: { jsonrpc: '2.0', id: 3, result: { content: [{ type: 'text' }] } } });
    expect(res.valid).toBe(false);
    expect(res.definition).toBe('JSONRPCResultResponse + CallToolResult');
    // The union of content blocks is reported as the closest branch's problem, not five branches of noise.
    expect(res.violations).toEqual([expect.objectContaining({ pointer: '/result/content/0', message: 'missing required property "text"' })]);
  });

  it('accepts an error answer with id null (JSON-RPC for unreadable requests), but not a result with id null', () => {
    const err = { jsonrpc: '2.0', id: null, error: { code: -32700, message: 'Parse error' } };
    expect(v25.check({ direction: 'from-server', kind: 'error', json: err }).valid).toBe(true);
    expect(v06.check({ direction: 'from-server', kind: 'error', json: err }).valid).toBe(true);
    expect(v06.check({ direction: 'from-server', kind: 'error', json: { jsonrpc: '2.0', error: { code: -32700, message: 'x' } } }).valid).toBe(true);
    const res = v25.check({ direction: 'from-server', kind: 'response', json: { jsonrpc: '2.0', id: null, result: {} } });
    expect(res.valid).toBe(false);
    expect(res.violations[0]!.pointer).toBe('/id');
  });

  it('judges by the version in force: structuredContent must be an object in 2025-06-18', () => {
    const msg = { jsonrpc: '2.0', id: 1, result: { content: [], structuredContent: [1, 2] } };
    expect(v06.check({ direction: 'from-server', kind: 'response', method: 'tools/call', json: msg }).valid).toBe(false);
    const v24 = v('2024-11-05');
    // 2024-11-05 knows no structuredContent: an unknown property, allowed.
    expect(v24.check({ direction: 'from-server', kind: 'response', method: 'tools/call', json: msg }).valid).toBe(true);
  });

  it('a method the schema does not know is checked against the envelope only', () => {
    const r = v25.check({ direction: 'from-server', kind: 'notification', method: 'notifications/custom', json: { jsonrpc: '2.0', method: 'notifications/custom', params: { x: 1 } } });
    expect(r).toMatchObject({ valid: true, definition: 'JSONRPCNotification' });
    const wrong = v25.check({ direction: 'from-server', kind: 'notification', method: 'n', json: { jsonrpc: '1.0', method: 'n' } });
    expect(wrong.violations).toContainEqual(expect.objectContaining({ pointer: '/jsonrpc', message: 'expected the constant "2.0"' }));
  });
});
