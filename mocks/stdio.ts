/** Serving a mock over stdio: one JSON message a line in, one a line out; ends when stdin closes. */
import { createInterface } from 'node:readline';
import type { Readable, Writable } from 'node:stream';
import { errorResponse, parseJson, type MockSource } from './engine.js';

export interface ServeStdioOptions {
  /**
   * Once stdin has ended, how long answers still in the making may take before serving ends anyway (they are
   * dropped). Default 5000 ms. A proxy session ends its upstream as soon as stdin ends, which settles its answers
   * well before that.
   */
  drainMs?: number;
  /** Aborting it (on SIGTERM, say) ends serving at once, without waiting for answers in the making. */
  signal?: AbortSignal;
}

export function serveStdio(
  source: MockSource,
  input: Readable = process.stdin,
  output: Writable = process.stdout,
  opts: ServeStdioOptions = {},
): Promise<void> {
  const session = source.newSession();
  const rl = createInterface({ input, crlfDelay: Infinity });
  const pending = new Set<Promise<void>>();
  const write = (m: unknown) => {
    if (!output.destroyed && output.writable) output.write(JSON.stringify(m) + '\n');
  };
  // A client that goes away mid-replay must not take the mock down.
  output.on('error', () => undefined);
  rl.on('line', (line) => {
    if (!line.trim()) return;
    const p = session.receive(line, write).catch((e: Error) => {
      const parsed = parseJson(line);
      const id =
        parsed.ok && parsed.value && typeof parsed.value === 'object' ? (parsed.value as { id?: unknown }).id : null;
      write(errorResponse(id ?? null, -32603, `mock server error: ${e.message}`));
    });
    pending.add(p);
    void p.finally(() => pending.delete(p));
  });
  return new Promise((resolve) => {
    let timer: NodeJS.Timeout | undefined;
    let done = false;
    const finish = () => {
      if (done) return;
      done = true;
      clearTimeout(timer);
      opts.signal?.removeEventListener('abort', onAbort);
      resolve();
    };
    const onAbort = () => {
      finish();
      rl.close();
      session.end?.();
    };
    if (opts.signal?.aborted) {
      onAbort();
      return;
    }
    opts.signal?.addEventListener('abort', onAbort, { once: true });
    rl.on('close', () => {
      if (done) return;
      session.end?.();
      timer = setTimeout(finish, opts.drainMs ?? 5000);
      void Promise.allSettled([...pending]).then(finish);
    });
  });
}
