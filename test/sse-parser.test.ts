/**
 * The SSE parser: the WHATWG event-stream rules whatever the chunking, a bound on event data, and work linear in
 * the input (each character is looked at once, however the stream is cut).
 */
import http from 'node:http';
import type { AddressInfo } from 'node:net';
import { describe, expect, it } from 'vitest';
import {
  MAX_EXCHANGE_EVENTS,
  SseParser,
  StreamableHttpTransport,
  recordEvent,
  type HttpExchange,
  type SseEvent,
} from '../core/transport/http.js';
import { SseTransport } from '../core/transport/sse.js';
import type { IncomingFrame } from '../core/transport/types.js';

function parse(
  chunks: (string | Buffer)[],
  opts?: { maxDataBytes?: number },
): { events: SseEvent[]; partial: string | undefined; parser: SseParser } {
  const events: SseEvent[] = [];
  const parser = new SseParser((e) => events.push(e), opts);
  for (const c of chunks) parser.feed(c);
  const partial = parser.end();
  return { events, partial, parser };
}

/** Every way of cutting s in two, and one chunk per character. */
function cuttings(s: string): string[][] {
  const out: string[][] = [[s], [...s]];
  for (let i = 1; i < s.length; i++) out.push([s.slice(0, i), s.slice(i)]);
  return out;
}

const STREAM = [
  '\uFEFF: a comment\n',
  'event: endpoint\r\n',
  'data: /message?sessionId=1\r\n',
  '\r\n',
  'id: 7\r',
  'data: {"a":1}\r',
  'data:second line\r',
  'data\r',
  '\r',
  'retry: 1500\n',
  'retry: soon\n',
  'unknown: field\n',
  ':: comment with : colons\n',
  'id: 8\n',
  '\n',
  'data:  two spaces\n',
  'event: \n',
  '\n',
  '\n',
  'data: no end',
].join('');

const EXPECTED: SseEvent[] = [
  { event: 'endpoint', data: '/message?sessionId=1' },
  { event: 'message', data: '{"a":1}\nsecond line\n', id: '7' },
  { event: 'message', data: '', id: '8', retry: 1500 },
  { event: 'message', data: ' two spaces' },
];

describe('SseParser', () => {
  it('LF, CRLF and CR line ends, comments, multi-line data, id/event/retry fields, wherever the chunks are cut', () => {
    for (const chunks of cuttings(STREAM)) {
      const r = parse(chunks);
      expect(r.events, JSON.stringify(chunks.slice(0, 2))).toEqual(EXPECTED);
      expect(r.partial).toBe('data: no end'); // the unfinished line as sent
      expect(r.parser.lastEventId).toBe('8');
    }
  });

  it('the same from bytes, with a multi-byte character cut between chunks', () => {
    const bytes = Buffer.from('data: é日本\r\n\r\n', 'utf8');
    for (let i = 1; i < bytes.length; i++) {
      const r = parse([bytes.subarray(0, i), bytes.subarray(i)]);
      expect(r.events).toEqual([{ event: 'message', data: 'é日本' }]);
      expect(r.parser.invalidUtf8).toBe(false);
    }
    const bad = parse([Buffer.from([0x64, 0x61, 0x74, 0x61, 0x3a, 0xff, 0x0a, 0x0a])]);
    expect(bad.parser.invalidUtf8).toBe(true);
    const cutOff = parse([Buffer.from('data: x\n\n'), Buffer.from([0xe6, 0x97])]);
    expect(cutOff.parser.invalidUtf8).toBe(true);
  });

  it('a CR at the end of a chunk and a LF at the start of the next are one line end', () => {
    expect(parse(['data: a\r', '\n', '\r', '\n']).events).toEqual([{ event: 'message', data: 'a' }]);
    // CR CR is two line ends: the event is dispatched at the second.
    expect(parse(['data: a\r', '\r']).events).toEqual([{ event: 'message', data: 'a' }]);
  });

  it('a BOM is dropped only at the start of the stream', () => {
    expect(parse(['\uFEFFdata: a\n\n']).events).toEqual([{ event: 'message', data: 'a' }]);
    // Later, "\uFEFFdata" is just an unknown field name: its event has no data.
    expect(parse(['data: a\n\n', '\uFEFFdata: b\n\n']).events).toEqual([
      { event: 'message', data: 'a' },
      { event: 'message', data: '' },
    ]);
  });

  it('an event that never ended is returned by end(), not dispatched', () => {
    expect(parse(['data: a\n']).partial).toBe('a');
    expect(parse(['id: 3\n']).partial).toBe('(fields without data)');
    expect(parse(['data: a\n\n']).partial).toBeUndefined();
  });
});

describe('SseParser: the bound on event data', () => {
  it('data over maxDataBytes is cut there and the event marked truncated; the rest of the event is dropped', () => {
    const r = parse(['data: 0123456789abcdef\n', 'data: more\n', 'id: 5\n', '\n', 'data: ok\n\n'], {
      maxDataBytes: 10,
    });
    expect(r.events).toEqual([
      { event: 'message', data: '0123456789', id: '5', truncated: true },
      { event: 'message', data: 'ok' },
    ]);
  });

  it('several data lines add up (with the line breaks between them)', () => {
    const r = parse(['data: 12345\ndata: 1234\n\ndata: 12345\ndata: 12345\n\n'], { maxDataBytes: 10 });
    expect(r.events).toEqual([
      { event: 'message', data: '12345\n1234' },
      { event: 'message', data: '12345\n1234', truncated: true },
    ]);
  });

  it('counts bytes, not characters, and never cuts a character in two', () => {
    const r = parse(['data: ééééé\n\n'], { maxDataBytes: 5 });
    expect(r.events).toEqual([{ event: 'message', data: 'éé', truncated: true }]);
  });

  it('a data line that never ends is not kept whole: memory stays bounded while it streams in', () => {
    const events: SseEvent[] = [];
    const p = new SseParser((e) => events.push(e), { maxDataBytes: 1000 });
    p.feed('data: ');
    const chunk = 'x'.repeat(4096);
    for (let i = 0; i < 256; i++) p.feed(chunk); // 1 MiB
    // What the parser holds of the unfinished line is bounded by the limit, not the 1 MiB sent.
    const held =
      (p as unknown as { line: string[] }).line.join('').length +
      (p as unknown as { data: string[] }).data.join('').length;
    expect(held).toBeLessThanOrEqual(1000 + 64 + 4096);
    p.feed('\n\ndata: next\n\n');
    expect(events.map((e) => [e.data.length, e.truncated])).toEqual([
      [1000, true],
      [4, undefined],
    ]);
  });

  it('an overlong comment or id line is dropped without harming the events around it', () => {
    const r = parse([`: ${'c'.repeat(500)}\nid: ${'i'.repeat(500)}\ndata: a\n\n`], { maxDataBytes: 100 });
    expect(r.events).toEqual([{ event: 'message', data: 'a' }]);
  });
});

describe('SseParser: work linear in the input', () => {
  it('one long line in many chunks: every character is scanned once', () => {
    const p = new SseParser(() => undefined);
    const chunk = 'x'.repeat(1024);
    let fed = 0;
    p.feed('data: ');
    fed += 6;
    for (let i = 0; i < 2048; i++) {
      p.feed(chunk);
      fed += chunk.length;
    }
    p.feed('\n\n');
    fed += 2;
    expect(p.scanned).toBe(fed);
  });

  it('many small events in one chunk, and one character a chunk: the same count', () => {
    const text = 'id: 1\r\ndata: {"a":1}\r\n\r\n'.repeat(2000);
    const whole = new SseParser(() => undefined);
    whole.feed(text);
    const bytewise = new SseParser(() => undefined);
    for (const ch of text) bytewise.feed(ch);
    expect(whole.scanned).toBe(text.length);
    expect(bytewise.scanned).toBe(text.length);
  });
});

describe('events listed per exchange', () => {
  it('past MAX_EXCHANGE_EVENTS they are counted, not listed', () => {
    const x: HttpExchange = { n: 0, t: 0, purpose: 'get-stream', method: 'GET', url: 'http://h/', requestHeaders: {} };
    for (let i = 0; i < MAX_EXCHANGE_EVENTS + 25; i++) recordEvent(x, { event: 'message', data: 'é', id: String(i) });
    expect(x.events).toHaveLength(MAX_EXCHANGE_EVENTS);
    expect(x.eventsOmitted).toBe(25);
    expect(x.events![0]).toEqual({ event: 'message', id: '0', dataBytes: 2 });
  });
});

describe('the HTTP transports enforce maxMessageBytes on SSE streams', () => {
  const big = `{"jsonrpc":"2.0","method":"notifications/message","params":{"data":"${'y'.repeat(5000)}"}}`;
  const small = '{"jsonrpc":"2.0","id":1,"result":{}}';

  async function withServer(handler: http.RequestListener, body: (url: URL) => Promise<void>): Promise<void> {
    const server = http.createServer(handler);
    await new Promise<void>((r) => server.listen(0, '127.0.0.1', () => r()));
    try {
      await body(new URL(`http://127.0.0.1:${(server.address() as AddressInfo).port}/mcp`));
    } finally {
      server.closeAllConnections();
      await new Promise((r) => server.close(() => r(undefined)));
    }
  }

  function streamBig(res: http.ServerResponse, prefix = ''): void {
    res.writeHead(200, { 'Content-Type': 'text/event-stream' });
    res.write(prefix);
    const text = `data: ${big}\n\n`;
    for (let i = 0; i < text.length; i += 700) res.write(text.slice(i, i + 700));
    res.write(`data: ${small}\n\n`);
  }

  it('Streamable HTTP: the long event is cut and marked, the next one arrives whole; a second close() waits for the first', async () => {
    await withServer(
      (req, res) => {
        if (req.method !== 'POST') {
          res.writeHead(405).end();
          return;
        }
        req.resume();
        streamBig(res);
        res.end();
      },
      async (url) => {
        const t = new StreamableHttpTransport({ url, maxMessageBytes: 1000, openGetStream: false });
        const frames: IncomingFrame[] = [];
        const done = new Promise<void>((resolve) => {
          t.onFrame = (f) => {
            frames.push(f);
            if (f.raw === small) resolve();
          };
        });
        await t.start();
        t.send('{"jsonrpc":"2.0","id":1,"method":"ping"}');
        await done;
        expect(frames).toHaveLength(2);
        expect(frames[0]!.truncated).toBe(true);
        expect(Buffer.byteLength(frames[0]!.raw)).toBe(1000);
        expect(frames[0]!.problem).toMatch(/longer than 1000 bytes/);
        expect(frames[1]!.truncated).toBeUndefined();
        const x = t.exchanges[0]!;
        expect(x.events!.map((e) => e.truncated)).toEqual([true, undefined]);
        const a = t.close();
        const b = t.close();
        expect(b).toBe(a);
        await b;
        expect(t.closed).toBe(true);
      },
    );
  });

  it('HTTP+SSE: the same on the one stream', async () => {
    await withServer(
      (req, res) => {
        if (req.method === 'GET') {
          streamBig(res, 'event: endpoint\ndata: /message\n\n');
          return;
        }
        req.resume();
        res.writeHead(202).end();
      },
      async (url) => {
        const t = new SseTransport({ url, maxMessageBytes: 1000 });
        const frames: IncomingFrame[] = [];
        const done = new Promise<void>((resolve) => {
          t.onFrame = (f) => {
            frames.push(f);
            if (f.raw === small) resolve();
          };
        });
        await t.start();
        await done;
        expect(frames.map((f) => [Buffer.byteLength(f.raw), f.truncated ?? false])).toEqual([
          [1000, true],
          [small.length, false],
        ]);
        expect(frames[0]!.problem).toMatch(/longer than 1000 bytes/);
        const a = t.close();
        expect(t.close()).toBe(a);
        await a;
        expect(t.closed).toBe(true);
      },
    );
  });
});
