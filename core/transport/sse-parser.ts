/**
 * Server-sent events: a small parser after the WHATWG event-stream rules, which also reports what a lenient client
 * would hide (an event cut off at the end of the stream). Used by both HTTP transports and the transport detection.
 * https://html.spec.whatwg.org/multipage/server-sent-events.html#event-stream-interpretation
 */

export interface SseEvent {
  /** The event type; 'message' when the event named none. */
  event: string;
  data: string;
  /** The id field of this event, if it had one. */
  id?: string;
  retry?: number;
  /** The data was longer than the parser's bound (maxDataBytes): it is cut there, the rest was dropped. */
  truncated?: boolean;
}

export interface SseParserOptions {
  /** Longest event data kept (bytes, UTF-8); what comes after is dropped until the event ends. Default 64 MiB. */
  maxDataBytes?: number;
}

/** The first `max` bytes (UTF-8) of s. */
function cutBytes(s: string, max: number): string {
  if (max <= 0) return '';
  if (s.length * 3 <= max || Buffer.byteLength(s) <= max) return s;
  return Buffer.from(s, 'utf8')
    .subarray(0, max)
    .toString('utf8')
    .replace(/\uFFFD$/, '');
}

const LINE_BREAK = /[\r\n]/g;

export class SseParser {
  /** Pieces of the line not ended yet (each chunk is scanned once: nothing already seen is scanned again). */
  private line: string[] = [];
  private lineBytes = 0;
  /** The line being read is over the bound: the rest of it is dropped. */
  private dropLine = false;
  /** The last chunk ended in CR: a LF starting the next one belongs to it. */
  private skipLF = false;
  private started = false;
  private data: string[] = [];
  private dataBytes = 0;
  private truncated = false;
  private event = '';
  private id: string | undefined;
  private retry: number | undefined;
  private sawField = false;
  private readonly decoder = new TextDecoder('utf-8');
  private readonly maxData: number;
  /** Id of the last event that set one (the value to send as Last-Event-ID). */
  lastEventId?: string;
  invalidUtf8 = false;
  /** Characters looked at so far (for tests: the work is linear in the input). */
  scanned = 0;

  constructor(
    private readonly onEvent: (e: SseEvent) => void,
    opts: SseParserOptions = {},
  ) {
    this.maxData = Math.max(0, opts.maxDataBytes ?? 64 * 1024 * 1024);
  }

  feed(chunk: Buffer | string): void {
    let text: string;
    if (typeof chunk === 'string') text = chunk;
    else {
      text = this.decoder.decode(chunk, { stream: true });
      if (text.includes('\uFFFD')) this.invalidUtf8 = true;
    }
    if (!text) return;
    if (!this.started) {
      this.started = true;
      if (text.charCodeAt(0) === 0xfeff) text = text.slice(1);
    }
    let i = 0;
    const n = text.length;
    if (this.skipLF && n) {
      this.skipLF = false;
      if (text.charCodeAt(0) === 10) {
        i = 1;
        this.scanned++;
      }
    }
    while (i < n) {
      LINE_BREAK.lastIndex = i;
      const m = LINE_BREAK.exec(text);
      const j = m ? m.index : n;
      this.scanned += j - i + (m ? 1 : 0);
      if (j > i) this.append(text.slice(i, j));
      if (!m) break;
      this.endLine();
      i = j + 1;
      if (text.charCodeAt(j) === 13) {
        if (i < n) {
          if (text.charCodeAt(i) === 10) {
            i++;
            this.scanned++;
          }
        } else this.skipLF = true;
      }
    }
  }

  /** The stream ended. Returns the text of an event that was begun and never finished (it is discarded). */
  end(): string | undefined {
    const tail = this.decoder.decode();
    if (tail) this.invalidUtf8 = true; // bytes of a character that never ended
    const rest = this.line.join('');
    const partial =
      rest || this.dropLine || this.sawField ? [this.data.join('\n'), rest].filter(Boolean).join('\n') : undefined;
    this.line = [];
    this.lineBytes = 0;
    this.dropLine = false;
    this.skipLF = false;
    this.resetEvent();
    return partial !== undefined ? partial || '(fields without data)' : undefined;
  }

  private append(piece: string): void {
    if (this.dropLine) return;
    const bytes = Buffer.byteLength(piece);
    // A line may be as long as the data still allowed plus its field name: beyond that it is cut.
    if (this.lineBytes + bytes <= this.maxData - this.dataBytes + 64) {
      this.line.push(piece);
      this.lineBytes += bytes;
      return;
    }
    const text = this.line.join('') + piece;
    this.line = [];
    this.lineBytes = 0;
    this.dropLine = true;
    // Only an overlong data line matters (its event is cut); an overlong comment or other field is ignored.
    const c = text.indexOf(':');
    if ((c < 0 ? text : text.slice(0, c)) === 'data') this.field(text, true);
  }

  private endLine(): void {
    if (this.dropLine) {
      this.dropLine = false;
      return;
    }
    const line = this.line.length === 1 ? this.line[0]! : this.line.join('');
    this.line = [];
    this.lineBytes = 0;
    if (line === '') {
      this.dispatch();
      return;
    }
    if (line.startsWith(':')) return; // comment
    this.field(line, false);
  }

  private field(line: string, overlong: boolean): void {
    const c = line.indexOf(':');
    const field = c < 0 ? line : line.slice(0, c);
    let value = c < 0 ? '' : line.slice(c + 1);
    if (value.startsWith(' ')) value = value.slice(1);
    this.sawField = true;
    switch (field) {
      case 'data': {
        if (this.truncated) break; // over the bound already: the rest of the event's data is dropped
        const sep = this.data.length ? 1 : 0;
        const bytes = Buffer.byteLength(value);
        if (!overlong && this.dataBytes + sep + bytes <= this.maxData) {
          this.data.push(value);
          this.dataBytes += sep + bytes;
        } else {
          const room = this.maxData - this.dataBytes - sep;
          if (room >= 0) this.data.push(cutBytes(value, room));
          this.dataBytes = this.maxData;
          this.truncated = true;
        }
        break;
      }
      case 'event':
        this.event = value;
        break;
      case 'id':
        if (!value.includes('\0')) {
          this.id = value;
          this.lastEventId = value;
        }
        break;
      case 'retry':
        if (/^\d+$/.test(value)) this.retry = Number(value);
        break;
      default:
        break; // unknown fields are ignored
    }
  }

  private resetEvent(): void {
    this.data = [];
    this.dataBytes = 0;
    this.truncated = false;
    this.event = '';
    this.id = undefined;
    this.retry = undefined;
    this.sawField = false;
  }

  private dispatch(): void {
    if (!this.sawField) return;
    const e: SseEvent = { event: this.event || 'message', data: this.data.join('\n') };
    if (this.id !== undefined) e.id = this.id;
    if (this.retry !== undefined) e.retry = this.retry;
    if (this.truncated) e.truncated = true;
    this.resetEvent();
    this.onEvent(e);
  }
}
