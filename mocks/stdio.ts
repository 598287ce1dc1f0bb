/** Serving a mock over stdio: one JSON message a line in, one a line out; ends when stdin closes. */
import { createInterface } from 'node:readline';
import type { Readable, Writable } from 'node:stream';
import { errorResponse, parseJson, type MockSource } from './engine.js';

export function serveStdio(source: MockSource, input: Readable = process.stdin, output: Writable = process.stdout): Promise<void> {
  const session = source.newSession();
  const rl = createInterface({ input, crlfDelay: Infinity });
  const pending = new Set<Promise<void>>();
  const write = (m: unknown) => { if (!output.destroyed && output.writable) output.write(JSON.stringify(m) + '\n'); };
  // A client that goes away mid-replay must not take the mock down.
  output.on('error', () => undefined);
  rl.on('line', (line) => {
    if (!line.trim()) return;
    const p = session.receive(line, write).catch((e: Error) => {
      const parsed = parseJson(line);
      const id = parsed.ok && parsed.value && typeof parsed.value === 'object' ? (parsed.value as { id?: unknown }).id : null;
      write(errorResponse(id ?? null, -32603, `mock server error: ${e.message}`));
    });
    pending.add(p);
    void p.finally(() => pending.delete(p));
  });
  return new Promise((resolve) => {
    rl.on('close', () => { void Promise.allSettled([...pending]).then(() => resolve()); });
  });
}
