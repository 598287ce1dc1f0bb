/**
 * The replay engine: a cassette played backwards. Requests are matched on method + canonical params without `_meta`;
 * identical requests are answered from a pool in recorded order; ids (and progress tokens) are rewritten to the
 * client's; the server messages recorded after a request (notifications, server requests) are emitted with its
 * answer; client notifications and responses are acknowledged without matching. A miss is a JSON-RPC error that says
 * why (missing / exhausted / different) and names the nearest recording.
 */
import { basename } from 'node:path';
import { readCassette, type Cassette } from '../core/formats/cassette.js';
import {
  brief,
  canonicalJson,
  distance,
  errorResponse,
  firstDifference,
  matchParams,
  parseJson,
  type MockSession,
  type MockSource,
  type Outgoing,
} from './engine.js';
import { Redactor } from '../core/redact.js';
import { isObject as isObj } from '../core/objects.js';

/** JSON-RPC code of a replay miss whose method is recorded (a method never recorded gets -32601). */
export const REPLAY_MISS_CODE = -32001;

interface Recording {
  /** Line in the cassette file. */
  line: number;
  kind: 'request' | 'notification' | 'raw';
  method?: string;
  key: string;
  params: unknown;
  id?: unknown;
  progressToken?: unknown;
  /** What the server sent in answer, in recorded order. */
  out: unknown[];
}

const isResponse = (m: unknown) => isObj(m) && typeof m.method !== 'string' && ('result' in m || 'error' in m);

function keyOf(method: string, params: unknown): string {
  return `${method} ${canonicalJson(matchParams(params))}`;
}

/** The key of a message that is not a well-formed request or notification: its text (JSON without the id). */
function rawKey(raw: string, parsed: { ok: boolean; value?: unknown }): string {
  if (!parsed.ok) return `raw:${raw.trim()}`;
  const v = parsed.value;
  if (isObj(v)) {
    const { id, ...rest } = v;
    void id;
    return `json:${canonicalJson(rest)}`;
  }
  return `json:${canonicalJson(v)}`;
}

export class ReplaySource implements MockSource {
  readonly label: string;
  readonly protocolVersions: string[];
  private readonly recordings: Recording[] = [];
  private readonly byKey = new Map<string, Recording[]>();
  private readonly byMethod = new Map<string, Recording[]>();
  private readonly redactor: Redactor;

  constructor(
    readonly cassette: Cassette,
    opts: { env?: NodeJS.ProcessEnv } = {},
  ) {
    this.label = `cassette ${cassette.file ? basename(cassette.file) : '(in memory)'}`;
    this.protocolVersions = cassette.header.protocolVersion ? [cassette.header.protocolVersion] : [];
    this.redactor = Redactor.fromNotes(cassette.header.redactions ?? [], opts.env);
    this.index();
  }

  static fromFile(file: string, opts: { env?: NodeJS.ProcessEnv } = {}): ReplaySource {
    return new ReplaySource(readCassette(file), opts);
  }

  private index(): void {
    const ms = this.cassette.messages;
    const lines = this.cassette.lines ?? ms.map((_, i) => i + 2);
    const conns = new Map<number, number[]>();
    ms.forEach((m, i) => {
      const c = m.conn ?? 0;
      if (!conns.has(c)) conns.set(c, []);
      conns.get(c)!.push(i);
    });
    const claimed = new Set<number>();
    for (const idx of conns.values()) {
      let leading: unknown[] = [];
      let first = true;
      for (let p = 0; p < idx.length; p++) {
        const m = ms[idx[p]!]!;
        if (m.dir === 'from-server') {
          if (first) leading.push(m.message);
          continue;
        }
        const msg = m.message;
        let rec: Recording;
        if (
          isObj(msg) &&
          msg.jsonrpc === '2.0' &&
          typeof msg.method === 'string' &&
          (!('id' in msg) || typeof msg.id === 'string' || typeof msg.id === 'number')
        ) {
          const meta = isObj(msg.params) && isObj(msg.params._meta) ? msg.params._meta : undefined;
          rec = {
            line: lines[idx[p]!]!,
            kind: 'id' in msg ? 'request' : 'notification',
            method: msg.method,
            key: keyOf(msg.method, msg.params),
            params: matchParams(msg.params),
            id: msg.id,
            progressToken: meta?.progressToken,
            out: [],
          };
        } else if (isObj(msg) && isResponse(msg)) {
          continue; // a client's response to a server request: acknowledged, never matched
        } else {
          const raw = m.raw ?? JSON.stringify(msg);
          rec = {
            line: lines[idx[p]!]!,
            kind: 'raw',
            key: rawKey(raw, m.raw !== undefined ? { ok: false } : { ok: true, value: msg }),
            params: undefined,
            id: isObj(msg) ? msg.id : undefined,
            out: [],
          };
        }
        if (first) {
          rec.out.push(...leading);
          leading = [];
          first = false;
        }
        // What the server sent until the client spoke again, except answers to other requests.
        let answered = false;
        let q = p + 1;
        const mine = (o: unknown) => {
          const oid = (o as Record<string, unknown>).id;
          return rec.kind === 'raw'
            ? oid === null || oid === undefined || (rec.id !== undefined && oid === rec.id)
            : oid === rec.id;
        };
        for (; q < idx.length && ms[idx[q]!]!.dir === 'from-server'; q++) {
          if (claimed.has(idx[q]!)) continue;
          const o = ms[idx[q]!]!.message ?? ms[idx[q]!]!.raw;
          if (isResponse(o)) {
            if (!mine(o) || answered) continue;
            answered = true;
          }
          claimed.add(idx[q]!);
          rec.out.push(o);
        }
        if (rec.kind !== 'notification' && !answered) {
          // Answered later (the client sent more meanwhile): take the answer from further on. For a line that was no
          // request, only up to the next such line (its answer has id null, so order is all that ties them).
          for (; q < idx.length; q++) {
            const o = ms[idx[q]!]!;
            if (
              o.dir === 'to-server' &&
              rec.kind === 'raw' &&
              !(isObj(o.message) && o.message.jsonrpc === '2.0' && typeof o.message.method === 'string')
            )
              break;
            if (o.dir === 'from-server' && !claimed.has(idx[q]!) && isResponse(o.message) && mine(o.message)) {
              claimed.add(idx[q]!);
              rec.out.push(o.message);
              break;
            }
          }
        }
        this.recordings.push(rec);
        if (!this.byKey.has(rec.key)) this.byKey.set(rec.key, []);
        this.byKey.get(rec.key)!.push(rec);
        if (rec.method) {
          if (!this.byMethod.has(rec.method)) this.byMethod.set(rec.method, []);
          this.byMethod.get(rec.method)!.push(rec);
        }
      }
    }
  }

  newSession(): MockSession {
    return new ReplaySession(this);
  }

  /** @internal */
  lookup(key: string): Recording[] {
    return this.byKey.get(key) ?? [];
  }
  /** @internal */
  ofMethod(method: string): Recording[] {
    return this.byMethod.get(method) ?? [];
  }
  /** @internal */
  redact<T>(v: T): T {
    return this.redactor.value(v);
  }
  /** @internal */
  redactText(s: string): string {
    return this.redactor.text(s);
  }
  get methods(): string[] {
    return [...this.byMethod.keys()];
  }
}

class ReplaySession implements MockSession {
  private readonly used = new Set<Recording>();

  constructor(private readonly src: ReplaySource) {}

  private next(pool: Recording[]): Recording | undefined {
    return pool.find((r) => !this.used.has(r));
  }

  async receive(raw: string, emit: (m: Outgoing) => void): Promise<void> {
    const parsed = parseJson(raw);
    const msg = parsed.ok ? this.src.redact(parsed.value) : undefined;
    if (
      isObj(msg) &&
      msg.jsonrpc === '2.0' &&
      typeof msg.method === 'string' &&
      (!('id' in msg) || typeof msg.id === 'string' || typeof msg.id === 'number')
    ) {
      if (!('id' in msg)) {
        // A notification: acknowledged; if the recording has one like it, the server messages that followed it.
        const rec =
          this.next(this.src.lookup(keyOf(msg.method, msg.params))) ?? this.next(this.src.ofMethod(msg.method));
        if (rec) {
          this.used.add(rec);
          this.play(rec, undefined, undefined, emit);
        }
        return;
      }
      const method = msg.method;
      const key = keyOf(method, msg.params);
      let rec = this.next(this.src.lookup(key));
      if (!rec && method === 'initialize') {
        // clientInfo and capabilities differ from client to client: the same protocol version is enough, else any.
        const all = this.src.ofMethod('initialize');
        const pv = isObj(msg.params) ? msg.params.protocolVersion : undefined;
        rec =
          all.find((r) => !this.used.has(r) && isObj(r.params) && r.params.protocolVersion === pv) ?? this.next(all);
      }
      if (!rec) {
        emit(this.miss(msg.id, method, msg.params, key));
        return;
      }
      this.used.add(rec);
      const meta = isObj(msg.params) && isObj(msg.params._meta) ? msg.params._meta : undefined;
      this.play(rec, msg.id, meta?.progressToken, emit);
      return;
    }
    if (isObj(msg) && isResponse(msg)) return; // a client's answer to a server request: acknowledged
    const key = rawKey(
      parsed.ok ? raw : this.src.redactText(raw),
      parsed.ok ? { ok: true, value: msg } : { ok: false },
    );
    const rec = this.next(this.src.lookup(key));
    const id = isObj(msg) && (typeof msg.id === 'string' || typeof msg.id === 'number') ? msg.id : null;
    if (rec) {
      this.used.add(rec);
      this.play(rec, id, undefined, emit);
      return;
    }
    if (!parsed.ok)
      emit(errorResponse(null, -32700, `Parse error: not JSON (replay: this line is not in the ${this.src.label})`));
    else
      emit(
        errorResponse(
          id,
          -32600,
          `Invalid Request: not a JSON-RPC request or notification (replay: not in the ${this.src.label})`,
        ),
      );
  }

  private play(rec: Recording, clientId: unknown, clientToken: unknown, emit: (m: Outgoing) => void): void {
    for (const o of rec.out) {
      if (!isObj(o)) continue;
      let m: Outgoing = o;
      if (isResponse(o) && rec.id !== undefined && o.id === rec.id && clientId !== undefined)
        m = { ...o, id: clientId };
      else if (
        isResponse(o) &&
        rec.kind === 'raw' &&
        clientId !== undefined &&
        clientId !== null &&
        o.id !== null &&
        o.id !== undefined
      )
        m = { ...o, id: clientId };
      if (
        m.method === 'notifications/progress' &&
        isObj(m.params) &&
        rec.progressToken !== undefined &&
        m.params.progressToken === rec.progressToken &&
        clientToken !== undefined
      ) {
        m = { ...m, params: { ...m.params, progressToken: clientToken } };
      }
      emit(m);
    }
  }

  private miss(id: unknown, method: string, params: unknown, key: string): Outgoing {
    const got = matchParams(params);
    const same = this.src.lookup(key);
    const ofMethod = this.src.ofMethod(method);
    if (same.length) {
      const lines = same.map((r) => r.line).join(', ');
      return errorResponse(
        id,
        REPLAY_MISS_CODE,
        `replay miss (exhausted): ${method} ${brief(got)} was recorded ${same.length} time${same.length > 1 ? 's' : ''} (cassette line${same.length > 1 ? 's' : ''} ${lines}) and every recording has been used in this session`,
        { replay: { reason: 'exhausted', method, recorded: same.length, lines: same.map((r) => r.line) } },
      );
    }
    if (!ofMethod.length) {
      const known = this.src.methods.filter((m) => m !== method);
      return errorResponse(
        id,
        -32601,
        `replay miss (missing): the ${this.src.label} has no ${method} request (it records: ${known.join(', ') || 'nothing'})`,
        { replay: { reason: 'missing', method } },
      );
    }
    const ranked = [...ofMethod].sort(
      (a, b) =>
        distance(a.params, got) - distance(b.params, got) || Number(this.used.has(a)) - Number(this.used.has(b)),
    );
    const near = ranked[0]!;
    const diff = firstDifference(near.params, got) ?? 'params differ';
    return errorResponse(
      id,
      REPLAY_MISS_CODE,
      `replay miss (different): no recorded ${method} has these params; nearest is cassette line ${near.line} ${brief(near.params, 80)}, which differs at ${diff}${this.used.has(near) ? ' (and has been used)' : ''}`,
      { replay: { reason: 'different', method, nearestLine: near.line, difference: diff } },
    );
  }
}
