/**
 * Property-based fuzzing (fast-check) of everything that reads what a server (or a user) hands the harness: message
 * classification, the session's frame handling, stdio framing, the id of a cut line, command-line splitting, the
 * schema check, argument generation. Nothing may throw, and what the harness writes back must be valid JSON-RPC.
 *
 * The default run is about 11,000 cases in a few seconds; FUZZ_SCALE multiplies every count (`npm run fuzz`: 50).
 */
import { describe, expect, it } from 'vitest';
import fc from 'fast-check';
import { classify } from '../core/log.js';
import { leadingId } from '../core/probe.js';
import { Session } from '../core/session.js';
import { MessageValidator } from '../core/schema/validator.js';
import { schemaDocumentFor } from '../core/schema/index.js';
import { PROTOCOL_VERSIONS, type ProtocolVersion } from '../core/schema/versions.js';
import { shellWords } from '../core/shell-words.js';
import {
  ARGUMENT_LIMITS,
  generateArguments,
  missingRequiredArguments,
  wrongTypeArguments,
} from '../core/args/index.js';
import { StdioTransport } from '../core/transport/stdio.js';
import type { IncomingFrame, Transport, TransportClosed } from '../core/transport/types.js';

const SCALE = Math.max(0.01, Number(process.env.FUZZ_SCALE ?? 1) || 1);
const runs = (n: number) => Math.max(1, Math.round(n * SCALE));
/** Every property's count, summed: the test at the end checks the default run stays at 10,000 or more. */
const planned: number[] = [];
const numRuns = (n: number) => {
  planned.push(n);
  return { numRuns: runs(n) };
};
const TIMEOUT = Math.max(60_000, 60_000 * SCALE);

const validators = new Map<ProtocolVersion, MessageValidator>();
function validator(v: ProtocolVersion): MessageValidator {
  let m = validators.get(v);
  if (!m) {
    const { version, document } = schemaDocumentFor(v);
    m = new MessageValidator(version, document);
    validators.set(v, m);
  }
  return m;
}

// --- arbitraries -------------------------------------------------------------------------------------------------

const METHODS = [
  'initialize',
  'ping',
  'tools/list',
  'tools/call',
  'roots/list',
  'sampling/createMessage',
  'elicitation/create',
  'notifications/message',
  'notifications/progress',
  'notifications/cancelled',
  'notifications/initialized',
  'x/unknown',
  '',
];
const anId = fc.oneof(
  fc.integer(),
  fc.string({ maxLength: 8 }),
  fc.constant(null),
  fc.double(),
  fc.boolean(),
  fc.constant({}),
  fc.constant([1]),
);
const wellTyped = fc.oneof(fc.integer({ min: 1, max: 6 }), fc.constantFrom('1', 'a', 'srv-1'));

/** JSON-RPC-shaped values: requests, notifications, answers, with their members bent at random. */
const rpcLike: fc.Arbitrary<Record<string, unknown>> = fc.record(
  {
    jsonrpc: fc.oneof(fc.constant('2.0'), fc.constant('1.0'), fc.jsonValue()),
    id: fc.oneof(wellTyped, anId),
    method: fc.oneof(fc.constantFrom(...METHODS), fc.jsonValue()),
    params: fc.oneof(
      fc.dictionary(fc.string({ maxLength: 6 }), fc.jsonValue({ maxDepth: 2 }), { maxKeys: 4 }),
      fc.jsonValue({ maxDepth: 2 }),
    ),
    result: fc.oneof(fc.constant({}), fc.jsonValue({ maxDepth: 2 })),
    error: fc.oneof(
      fc.record({ code: fc.oneof(fc.integer(), fc.jsonValue()), message: fc.oneof(fc.string(), fc.jsonValue()) }),
      fc.jsonValue({ maxDepth: 1 }),
    ),
  },
  { requiredKeys: [] },
);

/** A frame as a transport hands it over: JSON of a message, a mutation of it, or anything at all. */
const frameText: fc.Arbitrary<string> = fc.oneof(
  { weight: 4, arbitrary: rpcLike.map((m) => JSON.stringify(m)) },
  {
    weight: 2,
    arbitrary: fc.tuple(rpcLike, fc.nat(), fc.string({ maxLength: 5 })).map(([m, at, s]) => {
      const t = JSON.stringify(m);
      const i = at % (t.length + 1);
      return t.slice(0, i) + s + t.slice(i + 1);
    }),
  },
  { weight: 1, arbitrary: fc.jsonValue().map((v) => JSON.stringify(v) ?? 'null') },
  { weight: 1, arbitrary: fc.string({ unit: 'binary', maxLength: 60 }) },
  {
    weight: 1,
    arbitrary: fc.constantFrom(
      '{"__proto__":{"polluted":1},"jsonrpc":"2.0","id":1,"result":{}}',
      '{"constructor":{"prototype":{}},"method":"ping","id":"x"}',
      '',
      ' ',
      '[]',
      '[{"jsonrpc":"2.0","id":1,"result":{}}]',
      'null',
      '"id"',
      '1e999',
      '{"id":1e400,"result":{}}',
    ),
  },
);

/** JSON-Schema-ish values: real keywords, nested, with wrong types and nonsense mixed in. */
const { schema: schemaArb } = fc.letrec<{ schema: unknown }>((tie) => ({
  schema: fc.oneof(
    { depthSize: 'small', withCrossShrink: true },
    fc.constantFrom(true, false, {}, null, 'string', 42, []),
    fc.record(
      {
        type: fc.oneof(
          fc.constantFrom('object', 'array', 'string', 'number', 'integer', 'boolean', 'null', 'nonsense'),
          fc.array(fc.constantFrom('string', 'null', 'integer', 'object'), { maxLength: 3 }),
        ),
        properties: fc.dictionary(fc.constantFrom('a', 'b', 'c', '__proto__', 'constructor', ''), tie('schema'), {
          maxKeys: 4,
        }),
        required: fc.oneof(
          fc.array(fc.constantFrom('a', 'b', 'c', 'z'), { maxLength: 4 }),
          fc.jsonValue({ maxDepth: 1 }),
        ),
        items: fc.oneof(tie('schema'), fc.array(tie('schema'), { maxLength: 3 })),
        prefixItems: fc.array(tie('schema'), { maxLength: 3 }),
        additionalProperties: tie('schema'),
        enum: fc.array(fc.jsonValue({ maxDepth: 1 }), { maxLength: 4 }),
        const: fc.jsonValue({ maxDepth: 1 }),
        minLength: fc.oneof(fc.nat({ max: 5000 }), fc.jsonValue()),
        maxLength: fc.integer({ min: -1, max: 100 }),
        minimum: fc.double(),
        maximum: fc.double(),
        exclusiveMinimum: fc.oneof(fc.double(), fc.boolean()),
        multipleOf: fc.double(),
        minItems: fc.nat({ max: 100_000 }),
        maxItems: fc.integer({ min: -1, max: 10 }),
        uniqueItems: fc.boolean(),
        minProperties: fc.nat({ max: 1000 }),
        maxProperties: fc.nat({ max: 3 }),
        pattern: fc.constantFrom('^[a-z]+$', '(a|b)*c', '[', '^\\d{3}-\\d{4}$', '(?=x)', '.*', '^$'),
        format: fc.constantFrom('email', 'uri', 'date-time', 'uuid', 'ipv4', 'nonsense', 'date', 'hostname'),
        anyOf: fc.array(tie('schema'), { maxLength: 3 }),
        oneOf: fc.array(tie('schema'), { maxLength: 3 }),
        allOf: fc.array(tie('schema'), { maxLength: 3 }),
        not: tie('schema'),
        if: tie('schema'),
        then: tie('schema'),
        else: tie('schema'),
        $ref: fc.constantFrom(
          '#',
          '#/$defs/a',
          '#/definitions/a',
          '#/properties/a',
          'http://example.com/x',
          '#/$defs/missing',
        ),
        $defs: fc.dictionary(fc.constantFrom('a', 'b'), tie('schema'), { maxKeys: 2 }),
        definitions: fc.dictionary(fc.constantFrom('a', 'b'), tie('schema'), { maxKeys: 2 }),
        dependentRequired: fc.dictionary(fc.constantFrom('a', 'b'), fc.array(fc.constantFrom('a', 'b', 'c'))),
        default: fc.jsonValue({ maxDepth: 1 }),
        readOnly: fc.boolean(),
        deprecated: fc.boolean(),
      },
      { requiredKeys: [] },
    ),
    fc.anything({ maxDepth: 2 }),
  ),
}));

// --- properties --------------------------------------------------------------------------------------------------

describe('fuzz: message classification (core/log.ts classify)', () => {
  it('never throws; the kind follows the members', () => {
    fc.assert(
      fc.property(fc.oneof(rpcLike, fc.anything()), (v) => {
        const c = classify(v);
        expect(['request', 'notification', 'response', 'error', 'invalid']).toContain(c.kind);
        if (c.kind === 'request' || c.kind === 'notification') expect(typeof c.method).toBe('string');
        if (c.kind === 'invalid') expect(typeof c.problem).toBe('string');
        if (c.id !== undefined) expect(c.id === null || ['string', 'number'].includes(typeof c.id)).toBe(true);
      }),
      numRuns(2500),
    );
  });
});

class Wire implements Transport {
  readonly kind = 'stdio' as const;
  onFrame?: (frame: IncomingFrame) => void;
  onClose?: (info: TransportClosed) => void;
  closed = false;
  readonly sent: string[] = [];
  async start(): Promise<void> {}
  send(raw: string): void {
    this.sent.push(raw);
  }
  async close(): Promise<void> {}
  processInfo() {
    return undefined;
  }
}

describe("fuzz: the session's frame handling (core/session.ts onFrame)", () => {
  it(
    'any frames, any order: no throw; every answer the harness writes is valid JSON-RPC; the log stays consistent',
    async () => {
      const v = validator('2025-11-25');
      await fc.assert(
        fc.asyncProperty(
          fc.array(
            fc.record({
              text: frameText,
              truncated: fc.boolean(),
              problem: fc.option(fc.constantFrom('invalid UTF-8', 'no newline at the end'), { nil: undefined }),
            }),
            { maxLength: 25 },
          ),
          fc.integer({ min: 0, max: 4 }),
          fc.integer({ min: 2, max: 30 }),
          async (frames, requests, maxLogMessages) => {
            const wire = new Wire();
            const session = new Session(wire, { timeoutMs: 60_000, clientCapabilities: {}, maxLogMessages });
            session.setValidator(v);
            const settled: string[] = [];
            for (let i = 0; i < requests; i++)
              session.request(i % 2 ? 'ping' : 'tools/list').then(
                () => settled.push('ok'),
                () => settled.push('err'),
              );
            const probe = session.probe(['{oops'], { rawText: true, catchAll: true, expectInvalid: 'fuzz' });
            const sentBefore = wire.sent.length;
            for (const f of frames)
              wire.onFrame!({
                raw: f.text,
                ...(f.truncated ? { truncated: true } : {}),
                ...(f.problem ? { problem: f.problem } : {}),
              });
            probe.close();
            session.abandon('fuzz over');
            await new Promise((r) => setImmediate(r));
            expect(settled).toHaveLength(requests); // each request settled exactly once
            for (const raw of wire.sent.slice(sentBefore)) {
              const msg = JSON.parse(raw) as Record<string, unknown>;
              // Answers to the frames, and notifications/cancelled for the requests given up on when the session ends.
              const method = typeof msg.method === 'string' ? msg.method : undefined;
              const kind = method ? ('id' in msg ? 'request' : 'notification') : 'error' in msg ? 'error' : 'response';
              expect(msg.jsonrpc).toBe('2.0');
              expect(v.check({ direction: 'to-server', kind, method, json: msg }).violations).toEqual([]);
            }
            session.log.forEach((m, i) => expect(m.seq).toBe(i));
            for (const m of session.log) if (m.inReplyTo !== undefined) expect(m.inReplyTo).toBeLessThan(m.seq);
            expect(session.log.length).toBeLessThanOrEqual(
              Math.max(maxLogMessages, requests + 1) + requests + frames.length,
            );
          },
        ),
        numRuns(1500),
      );
    },
    TIMEOUT,
  );
});

describe('fuzz: stdio framing (core/transport/stdio.ts)', () => {
  const MAX = 64;
  const utf8 = new TextDecoder('utf-8', { fatal: true });
  const lossy = new TextDecoder('utf-8');
  /** The frames a stream of lines must give, by the documented rules. */
  function model(lines: Uint8Array[], lastHasNewline: boolean): IncomingFrame[] {
    const out: IncomingFrame[] = [];
    lines.forEach((line, i) => {
      const problems: string[] = [];
      if (i === lines.length - 1 && !lastHasNewline) {
        if (line.length === 0) return;
        problems.push('no newline at the end: the stream ended in the middle of a line');
      }
      const cut = line.length > MAX;
      const bytes = cut ? line.subarray(0, MAX) : line;
      if (cut) problems.push(`line longer than ${MAX} bytes: cut there, the rest dropped`);
      let raw: string;
      try {
        raw = utf8.decode(bytes);
      } catch {
        raw = lossy.decode(bytes);
        problems.push('invalid UTF-8');
      }
      if (raw.endsWith('\r')) raw = raw.slice(0, -1);
      if (raw.length === 0 && problems.length === 0) return;
      out.push({
        raw,
        ...(problems.length ? { problem: problems.join('; ') } : {}),
        ...(cut ? { truncated: true } : {}),
      });
    });
    return out;
  }

  it('any bytes in any chunks: the frames are the lines, bounded, with their problems', () => {
    const line = fc.oneof(
      fc.uint8Array({ maxLength: 100 }).map((b) => b.filter((x) => x !== 10)),
      fc.string({ maxLength: 40 }).map((s) => new TextEncoder().encode(s.replace(/\n/g, ''))),
      fc.constant(new TextEncoder().encode('{"jsonrpc":"2.0","id":1,"result":{}}\r')),
    );
    fc.assert(
      fc.property(
        fc.array(line, { minLength: 1, maxLength: 12 }),
        fc.boolean(),
        fc.array(fc.integer({ min: 1, max: 50 }), { minLength: 1, maxLength: 20 }),
        (lines, lastHasNewline, cuts) => {
          const parts: number[] = [];
          lines.forEach((l, i) => {
            parts.push(...l);
            if (i < lines.length - 1 || lastHasNewline) parts.push(10);
          });
          const stream = Buffer.from(parts);
          const t = new StdioTransport({ argv: ['unused'], maxLineBytes: MAX });
          const frames: IncomingFrame[] = [];
          t.onFrame = (f) => frames.push(f);
          const feed = t as unknown as { onStdout(b: Buffer): void; flushPartial(): void };
          let at = 0;
          for (let i = 0; at < stream.length; i++) {
            const n = cuts[i % cuts.length]!;
            feed.onStdout(stream.subarray(at, at + n));
            at += n;
          }
          feed.flushPartial();
          expect(frames).toEqual(model(lines, lastHasNewline));
        },
      ),
      numRuns(1500),
    );
  });
});

describe('fuzz: the id of a cut line (core/session.ts leadingId)', () => {
  it('never throws on any text; finds the id of any message cut after it', () => {
    fc.assert(
      fc.property(fc.string({ unit: 'binary', maxLength: 200 }), (s) => {
        const id = leadingId(s);
        expect(id === undefined || typeof id === 'string' || typeof id === 'number').toBe(true);
      }),
      numRuns(1500),
    );
    fc.assert(
      fc.property(
        fc.oneof(fc.integer(), fc.string({ maxLength: 10 })),
        fc.jsonValue({ maxDepth: 3 }),
        fc.jsonValue({ maxDepth: 2 }),
        fc.nat(),
        (id, before, after, cutAt) => {
          const head = `{"jsonrpc":"2.0","x":${JSON.stringify(before)},"id":${JSON.stringify(id)},`;
          const text = head + `"result":${JSON.stringify(after)}}`;
          const cut = text.slice(0, head.length + (cutAt % (text.length - head.length + 1)));
          expect(leadingId(cut, 1_000_000)).toEqual(id);
        },
      ),
      numRuns(1500),
    );
  });
});

describe('fuzz: command-line splitting (core/shell-words.ts)', () => {
  it('never throws but for an unterminated quote; single-quoted words come back as they were', () => {
    fc.assert(
      fc.property(fc.string({ maxLength: 60 }), (line) => {
        try {
          const words = shellWords(line);
          expect(Array.isArray(words)).toBe(true);
        } catch (e) {
          expect((e as Error).message).toMatch(/^unterminated (single|double) quote/);
        }
      }),
      numRuns(1500),
    );
    fc.assert(
      fc.property(fc.array(fc.string({ maxLength: 12 }), { maxLength: 6 }), (words) => {
        const line = words.map((w) => `'${w.replace(/'/g, `'\\''`)}'`).join(' ');
        expect(shellWords(line)).toEqual(words);
      }),
      numRuns(1000),
    );
  });
});

describe('fuzz: the schema check (core/schema/validator.ts)', () => {
  it('never throws on any JSON, any direction, kind and method, in every protocol version', () => {
    for (const v of PROTOCOL_VERSIONS) validator(v);
    fc.assert(
      fc.property(
        fc.constantFrom(...PROTOCOL_VERSIONS),
        fc.constantFrom('to-server', 'from-server'),
        fc.constantFrom('request', 'notification', 'response', 'error', 'invalid'),
        fc.option(
          fc.constantFrom(...METHODS, 'resources/read', 'completion/complete', 'tasks/get', 'server/discover'),
          { nil: undefined },
        ),
        fc.oneof(rpcLike, fc.jsonValue()),
        (version, direction, kind, method, json) => {
          const verdict = validator(version).check({ direction, kind, method, json });
          expect(verdict.checked).toBe(true);
          if (verdict.valid) expect(verdict.violations).toEqual([]);
          if (verdict.violations.length) expect(verdict.valid).toBe(false);
          for (const x of verdict.violations) expect(typeof x.pointer).toBe('string');
        },
      ),
      numRuns(1500),
    );
  });
});

describe('fuzz: argument generation (core/args/)', () => {
  it(
    'never throws on any schema; the output stays bounded',
    () => {
      const bound = 4 * 1024 * 1024;
      fc.assert(
        fc.property(schemaArb, (schema) => {
          const g = generateArguments(schema);
          expect(g.value !== null && typeof g.value === 'object' && !Array.isArray(g.value)).toBe(true);
          expect(JSON.stringify(g.value).length).toBeLessThan(bound);
          expect(g.confident).toBe(g.confident && g.notes.length === 0);
          for (const f of [missingRequiredArguments, wrongTypeArguments]) {
            const bad = f(schema);
            if (bad) expect(JSON.stringify(bad.value).length).toBeLessThan(bound);
          }
        }),
        numRuns(600),
      );
      expect(ARGUMENT_LIMITS.maxItems).toBeGreaterThan(0);
    },
    TIMEOUT,
  );
});

describe('fuzz: the plan', () => {
  it('the default run makes at least 10,000 cases', () => {
    expect(planned.reduce((a, b) => a + b, 0)).toBeGreaterThanOrEqual(10_000);
  });
});
