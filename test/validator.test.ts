/** The message validator: which definition a message is checked against, and how violations read. */
import { describe, expect, it } from 'vitest';
import { MessageValidator, schemaDocumentFor } from '../core/schema/index.js';
import type { ProtocolVersion } from '../core/schema/versions.js';

const v = (version: ProtocolVersion) => new MessageValidator(version, schemaDocumentFor(version).document);

describe('MessageValidator', () => {
  const v25 = v('2025-11-25');
  const v06 = v('2025-06-18');

  it('checks a request against the envelope and the method definition', () => {
    const ok = v25.check({
      direction: 'to-server',
      kind: 'request',
      method: 'tools/call',
      json: { jsonrpc: '2.0', id: 1, method: 'tools/call', params: { name: 'add', arguments: { a: 1 } } },
    });
    expect(ok).toMatchObject({ checked: true, valid: true, definition: 'JSONRPCRequest + CallToolRequest' });
    const bad = v25.check({
      direction: 'to-server',
      kind: 'request',
      method: 'tools/call',
      json: { jsonrpc: '2.0', id: 1, method: 'tools/call', params: { arguments: {} } },
    });
    expect(bad.valid).toBe(false);
    expect(bad.violations).toContainEqual(
      expect.objectContaining({ pointer: '/params', message: 'missing required property "name"' }),
    );
  });

  it('checks a result against the result definition of the request it answers, with pointers into the message', () => {
    const res = v25.check({
      direction: 'from-server',
      kind: 'response',
      method: 'tools/call',
      json: { jsonrpc: '2.0', id: 3, result: { content: [{ type: 'text' }] } },
    });
    expect(res.valid).toBe(false);
    expect(res.definition).toBe('JSONRPCResultResponse + CallToolResult');
    // The union of content blocks is reported as the closest branch's problem, not five branches of noise.
    expect(res.violations).toEqual([
      expect.objectContaining({ pointer: '/result/content/0', message: 'missing required property "text"' }),
    ]);
  });

  it("2026-07-28 subscriptions/listen: its result, its acknowledgement and the client's cancellation by their own definitions", () => {
    const v26 = v('2026-07-28');
    const closed = {
      jsonrpc: '2.0',
      id: 7,
      result: { resultType: 'complete', _meta: { 'io.modelcontextprotocol/subscriptionId': 7 } },
    };
    expect(
      v26.check({ direction: 'from-server', kind: 'response', method: 'subscriptions/listen', json: closed }),
    ).toMatchObject({ valid: true, definition: 'JSONRPCResultResponse + SubscriptionsListenResult' });
    const noId = v26.check({
      direction: 'from-server',
      kind: 'response',
      method: 'subscriptions/listen',
      json: { jsonrpc: '2.0', id: 7, result: { resultType: 'complete', _meta: {} } },
    });
    expect(noId.valid).toBe(false);
    expect(noId.violations).toContainEqual(
      expect.objectContaining({
        pointer: '/result/_meta',
        message: expect.stringContaining('io.modelcontextprotocol/subscriptionId'),
      }),
    );
    const ack = {
      jsonrpc: '2.0',
      method: 'notifications/subscriptions/acknowledged',
      params: { _meta: { 'io.modelcontextprotocol/subscriptionId': 7 }, notifications: { toolsListChanged: true } },
    };
    expect(v26.check({ direction: 'from-server', kind: 'notification', method: ack.method, json: ack })).toMatchObject({
      valid: true,
      definition: 'JSONRPCNotification + SubscriptionsAcknowledgedNotification',
    });
    const noFilter = v26.check({
      direction: 'from-server',
      kind: 'notification',
      method: ack.method,
      json: { ...ack, params: { _meta: ack.params._meta } },
    });
    expect(noFilter.violations).toContainEqual(
      expect.objectContaining({ pointer: '/params', message: 'missing required property "notifications"' }),
    );
    const cancel = { jsonrpc: '2.0', method: 'notifications/cancelled', params: { requestId: 7 } };
    expect(v26.check({ direction: 'to-server', kind: 'notification', method: cancel.method, json: cancel }).valid).toBe(
      true,
    );
  });

  it('accepts an error answer with id null (JSON-RPC for unreadable requests), but not a result with id null', () => {
    const err = { jsonrpc: '2.0', id: null, error: { code: -32700, message: 'Parse error' } };
    expect(v25.check({ direction: 'from-server', kind: 'error', json: err }).valid).toBe(true);
    expect(v06.check({ direction: 'from-server', kind: 'error', json: err }).valid).toBe(true);
    expect(
      v06.check({
        direction: 'from-server',
        kind: 'error',
        json: { jsonrpc: '2.0', error: { code: -32700, message: 'x' } },
      }).valid,
    ).toBe(true);
    const res = v25.check({
      direction: 'from-server',
      kind: 'response',
      json: { jsonrpc: '2.0', id: null, result: {} },
    });
    expect(res.valid).toBe(false);
    expect(res.violations[0]!.pointer).toBe('/id');
  });

  it('judges by the version in force: structuredContent must be an object in 2025-06-18', () => {
    const msg = { jsonrpc: '2.0', id: 1, result: { content: [], structuredContent: [1, 2] } };
    expect(v06.check({ direction: 'from-server', kind: 'response', method: 'tools/call', json: msg }).valid).toBe(
      false,
    );
    const v24 = v('2024-11-05');
    // 2024-11-05 knows no structuredContent: an unknown property, allowed.
    expect(v24.check({ direction: 'from-server', kind: 'response', method: 'tools/call', json: msg }).valid).toBe(true);
  });

  describe('direction: a method the version knows must come from the side that sends it', () => {
    const note = (method: string) => ({ jsonrpc: '2.0', method });
    const req = (method: string, params?: unknown) => ({
      jsonrpc: '2.0',
      id: 's1',
      method,
      ...(params ? { params } : {}),
    });
    const initParams = { protocolVersion: '2025-11-25', capabilities: {}, clientInfo: { name: 'x', version: '1' } };
    const wrong = (message: string) => [{ pointer: '/method', keyword: 'direction', message }];

    it('client-only messages from the server are violations, whatever their shape', () => {
      const n = v25.check({
        direction: 'from-server',
        kind: 'notification',
        method: 'notifications/initialized',
        json: note('notifications/initialized'),
      });
      expect(n).toMatchObject({
        valid: false,
        definition: 'JSONRPCNotification + ServerNotification',
        violations: wrong('notifications/initialized is sent by clients, not servers'),
      });
      const l = v25.check({ direction: 'from-server', kind: 'request', method: 'tools/list', json: req('tools/list') });
      expect(l).toMatchObject({
        valid: false,
        definition: 'JSONRPCRequest + ServerRequest',
        violations: wrong('tools/list is sent by clients, not servers'),
      });
      const i = v25.check({
        direction: 'from-server',
        kind: 'request',
        method: 'initialize',
        json: req('initialize', initParams),
      });
      expect(i.violations).toEqual(wrong('initialize is sent by clients, not servers'));
      // every version that has the unions by direction
      for (const version of ['2024-11-05', '2025-03-26', '2025-06-18'] as const) {
        expect(
          v(version).check({
            direction: 'from-server',
            kind: 'request',
            method: 'tools/call',
            json: req('tools/call', { name: 'add' }),
          }).violations,
          version,
        ).toEqual(wrong('tools/call is sent by clients, not servers'));
      }
    });

    it('server-only messages from the harness are violations too', () => {
      const r = v25.check({
        direction: 'to-server',
        kind: 'request',
        method: 'sampling/createMessage',
        json: req('sampling/createMessage', { messages: [], maxTokens: 1 }),
      });
      expect(r).toMatchObject({
        valid: false,
        definition: 'JSONRPCRequest + ClientRequest',
        violations: wrong('sampling/createMessage is sent by servers, not clients'),
      });
      const n = v25.check({
        direction: 'to-server',
        kind: 'notification',
        method: 'notifications/tools/list_changed',
        json: note('notifications/tools/list_changed'),
      });
      expect(n.violations).toEqual(wrong('notifications/tools/list_changed is sent by servers, not clients'));
    });

    it('right-direction messages are checked against their own definition and pass', () => {
      expect(
        v25.check({
          direction: 'to-server',
          kind: 'notification',
          method: 'notifications/initialized',
          json: note('notifications/initialized'),
        }),
      ).toMatchObject({ valid: true, definition: 'JSONRPCNotification + InitializedNotification' });
      expect(
        v25.check({
          direction: 'to-server',
          kind: 'request',
          method: 'initialize',
          json: req('initialize', initParams),
        }),
      ).toMatchObject({ valid: true, definition: 'JSONRPCRequest + InitializeRequest' });
      expect(
        v25.check({
          direction: 'from-server',
          kind: 'request',
          method: 'sampling/createMessage',
          json: req('sampling/createMessage', { messages: [], maxTokens: 1 }),
        }),
      ).toMatchObject({ valid: true, definition: 'JSONRPCRequest + CreateMessageRequest' });
      expect(
        v25.check({
          direction: 'from-server',
          kind: 'notification',
          method: 'notifications/message',
          json: { ...note('notifications/message'), params: { level: 'info', data: 'x' } },
        }),
      ).toMatchObject({ valid: true, definition: 'JSONRPCNotification + LoggingMessageNotification' });
      // both sides send these
      for (const direction of ['to-server', 'from-server'] as const) {
        expect(v25.check({ direction, kind: 'request', method: 'ping', json: req('ping') }).valid, direction).toBe(
          true,
        );
        expect(
          v25.check({
            direction,
            kind: 'notification',
            method: 'notifications/cancelled',
            json: { ...note('notifications/cancelled'), params: { requestId: 1 } },
          }).valid,
          direction,
        ).toBe(true);
      }
      // answers are judged by the side that asked: the server's answer to the harness's initialize is an InitializeResult
      const res = {
        jsonrpc: '2.0',
        id: 1,
        result: { protocolVersion: '2025-11-25', capabilities: {}, serverInfo: { name: 's', version: '1' } },
      };
      expect(v25.check({ direction: 'from-server', kind: 'response', method: 'initialize', json: res })).toMatchObject({
        valid: true,
        definition: 'JSONRPCResultResponse + InitializeResult',
      });
      // the harness's answer to a server's initialize request: the request was the violation; the answer gets the envelope only
      expect(
        v25.check({
          direction: 'to-server',
          kind: 'response',
          method: 'initialize',
          json: { jsonrpc: '2.0', id: 's2', result: {} },
        }),
      ).toMatchObject({ valid: true, definition: 'JSONRPCResultResponse' });
    });

    it('a known method sent as the wrong kind is a violation', () => {
      const r = v25.check({
        direction: 'from-server',
        kind: 'notification',
        method: 'tools/list',
        json: note('tools/list'),
      });
      expect(r.violations).toEqual(wrong('tools/list is a request (of clients), not a notification'));
    });

    it('2026-07-28: its own unions (no server requests: sampling, roots and elicitation travel inside results)', () => {
      const v26 = v('2026-07-28');
      const s = v26.check({
        direction: 'from-server',
        kind: 'request',
        method: 'sampling/createMessage',
        json: req('sampling/createMessage', { messages: [], maxTokens: 1 }),
      });
      expect(s.valid).toBe(false);
      expect(s.violations).toEqual(
        wrong(
          'sampling/createMessage is not a request of its own in 2026-07-28: a server asks for it in the inputRequests of an InputRequiredResult',
        ),
      );
      expect(
        v26.check({ direction: 'from-server', kind: 'request', method: 'tools/list', json: req('tools/list', {}) })
          .violations,
      ).toEqual(wrong('tools/list is sent by clients, not servers'));
      expect(
        v26.check({
          direction: 'to-server',
          kind: 'notification',
          method: 'notifications/progress',
          json: { ...note('notifications/progress'), params: { progressToken: 1, progress: 1 } },
        }).violations,
      ).toEqual(wrong('notifications/progress is sent by servers, not clients'));
      // ClientNotification is the cancelled notification itself (no union): still known, and checked
      const c = v26.check({
        direction: 'to-server',
        kind: 'notification',
        method: 'notifications/cancelled',
        json: { ...note('notifications/cancelled'), params: {} },
      });
      expect(c.definition).toBe('JSONRPCNotification + CancelledNotification');
      expect(c.violations).toContainEqual(
        expect.objectContaining({ pointer: '/params', message: 'missing required property "requestId"' }),
      );
      // a method 2026-07-28 does not have (no initialize handshake) is unknown there: envelope only
      expect(
        v26.check({
          direction: 'from-server',
          kind: 'notification',
          method: 'notifications/initialized',
          json: note('notifications/initialized'),
        }),
      ).toMatchObject({ valid: true, definition: 'JSONRPCNotification' });
    });

    it('a schema document without the unions by direction (a --schema FILE) is not checked for direction', () => {
      const doc = schemaDocumentFor('2025-11-25').document as { $defs: Record<string, unknown> };
      const defs = Object.fromEntries(
        Object.entries(doc.$defs).filter(([k]) => !/^(Client|Server)(Request|Notification|Result)$/.test(k)),
      );
      const bare = new MessageValidator('2025-11-25', {
        $schema: 'https://json-schema.org/draft/2020-12/schema',
        $defs: defs,
      });
      expect(
        bare.check({
          direction: 'from-server',
          kind: 'notification',
          method: 'notifications/initialized',
          json: note('notifications/initialized'),
        }),
      ).toMatchObject({ valid: true, definition: 'JSONRPCNotification + InitializedNotification' });
    });
  });

  it('a method the schema does not know is checked against the envelope only', () => {
    const r = v25.check({
      direction: 'from-server',
      kind: 'notification',
      method: 'notifications/custom',
      json: { jsonrpc: '2.0', method: 'notifications/custom', params: { x: 1 } },
    });
    expect(r).toMatchObject({ valid: true, definition: 'JSONRPCNotification' });
    const wrong = v25.check({
      direction: 'from-server',
      kind: 'notification',
      method: 'n',
      json: { jsonrpc: '1.0', method: 'n' },
    });
    expect(wrong.violations).toContainEqual(
      expect.objectContaining({ pointer: '/jsonrpc', message: 'expected the constant "2.0"' }),
    );
  });
});
