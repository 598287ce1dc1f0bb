/** The engine's environment rule (core/environment.ts): which answers make a fail or warn inconclusive. */
import { describe, expect, it } from 'vitest';
import { environmentRule, environmentTrouble } from '../core/environment.js';
import type { LoggedMessage } from '../core/log.js';

const answer = (seq: number, error: Record<string, unknown>): LoggedMessage => ({
  seq,
  direction: 'from-server',
  t: 0,
  raw: '',
  kind: 'error',
  method: 'resources/read',
  id: 7,
  json: { jsonrpc: '2.0', id: 7, error },
  schema: { checked: true, valid: true, violations: [] },
});

describe('environment errors', () => {
  it.each([
    ['fetch failed', undefined, 'fetch failed'],
    ['Failed to read resource: connect ECONNREFUSED 127.0.0.1:6443', undefined, 'ECONNREFUSED'],
    ['lookup failed', 'getaddrinfo ENOTFOUND api.example.invalid', 'getaddrinfo'],
    ['upstream answered HTTP 502', undefined, 'HTTP 502'],
    ['Request failed with status code 503', undefined, 'status code 503'],
    ['Bad Gateway', undefined, 'Bad Gateway'],
  ])('-32603 %j (data %j) blames the environment', (message, data, words) => {
    expect(environmentTrouble({ code: -32603, message, ...(data ? { data } : {}) })).toBe(words);
  });

  it('not another code, nor an internal error that names nothing outside the server', () => {
    expect(environmentTrouble({ code: -32602, message: 'fetch failed' })).toBeUndefined();
    expect(environmentTrouble({ code: -32603, message: 'list exploded' })).toBeUndefined();
    expect(environmentTrouble({ code: -32603, message: 'x.toLowerCase is not a function' })).toBeUndefined();
  });

  it('a fail or warn resting on such an answer is inconclusive, saying what it would have been; others stay', () => {
    const log = [
      answer(0, { code: -32603, message: 'connect ECONNREFUSED 127.0.0.1:6443' }),
      answer(1, { code: -32603, message: 'list exploded' }),
    ];
    const warned = environmentRule(
      { verdict: 'warn', message: 'a client cannot read what the server lists', messageIds: [0] },
      log,
    );
    expect(warned).toMatchObject({ verdict: 'skip', messageIds: [0] });
    expect(warned.message).toMatch(
      /^inconclusive: resources\/read \(id 7\) was answered with error -32603 "connect ECONNREFUSED 127\.0\.0\.1:6443".*\(the case would have said warn: a client cannot read what the server lists\)$/,
    );
    expect(environmentRule({ verdict: 'fail', message: 'x', messageIds: [1] }, log).verdict).toBe('fail');
    expect(environmentRule({ verdict: 'pass', message: 'x', messageIds: [0] }, log).verdict).toBe('pass');
    expect(environmentRule({ verdict: 'info', message: 'x', messageIds: [0] }, log).verdict).toBe('info');
    // An answer on a connection of its own (not in the log) is read from `errors`.
    expect(
      environmentRule({ verdict: 'fail', message: 'x', errors: [{ code: -32603, message: 'fetch failed' }] }, log)
        .verdict,
    ).toBe('skip');
  });
});
