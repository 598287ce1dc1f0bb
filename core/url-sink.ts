/**
 * The loopback address the harness owns for URLs it makes up: tool arguments the generator fills with a URL (a
 * parameter of format uri, one named `url`…) point here, never at a public host. A tiny HTTP listener bound to
 * 127.0.0.1 on a free port, for the time runs are in progress, that answers every request 404 with a short body; a
 * server that fetches the URL it was given gets a quick, plain "not found" and nothing leaves the machine.
 * Shared by the runs of one process (counted: the last to end closes it).
 */
import { createServer, type Server } from 'node:http';
import { setGeneratedUrlBase } from './args/strings.js';

let server: Server | undefined;
let starting: Promise<string> | undefined;
let users = 0;

/** Start (or join) the listener; the generator's URLs point at it until every user has called the returned release. */
export async function acquireUrlSink(): Promise<() => Promise<void>> {
  users++;
  let released = false;
  const release = async () => {
    if (released) return;
    released = true;
    if (--users > 0) return;
    const s = server;
    server = undefined;
    starting = undefined;
    setGeneratedUrlBase(undefined);
    if (s)
      await new Promise<void>((r) => {
        s.close(() => r());
        s.closeAllConnections();
      });
  };
  try {
    starting ??= new Promise<string>((resolve, reject) => {
      const s = createServer((req, res) => {
        req.resume();
        res.writeHead(404, { 'content-type': 'text/plain; charset=utf-8', connection: 'close' });
        res.end('not found: a URL mcp-conform made up for a tool argument\n');
      });
      s.on('error', reject);
      s.listen(0, '127.0.0.1', () => {
        const a = s.address();
        if (!a || typeof a === 'string') return reject(new Error('the URL sink has no port'));
        s.unref(); // never what keeps the process alive
        server = s;
        resolve(`http://127.0.0.1:${a.port}`);
      });
    });
    setGeneratedUrlBase(await starting);
  } catch {
    // No listener (the port could not be bound): the generator keeps its loopback default, which nothing answers.
  }
  return release;
}
