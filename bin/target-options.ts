/**
 * The options that say which server to test and how to reach or start it: declared once, for every command that
 * talks to a server (run, snapshot, tools), and turned into the library's options (lib/conformance.ts) in one place.
 */
import type { Argv } from 'yargs';
import type { ConformanceOptions } from '../lib/conformance.js';

export const TARGET_FLAGS = ['stdio', 'http', 'sse', 'url'] as const;

export function targetOptions<T>(y: Argv<T>) {
  return y
    .option('stdio', { type: 'string', describe: 'Command that starts the server over stdio; split as a shell would (quotes respected)' })
    .option('http', { type: 'string', describe: 'URL of a Streamable HTTP server (the MCP endpoint)' })
    .option('sse', { type: 'string', describe: 'URL of the SSE stream of an HTTP+SSE server (protocol 2024-11-05)' })
    .option('url', { type: 'string', describe: 'URL of an HTTP server: Streamable HTTP is tried first, then HTTP+SSE' })
    .option('header', { type: 'string', array: true, describe: '"Name: value" sent with every HTTP request (repeatable); secret values are redacted in reports' })
    .option('start', { type: 'string', describe: 'Command that starts the HTTP server (own process group); mcp-conform waits until the URL accepts connections and stops it at the end' })
    .option('start-timeout', { type: 'number', default: 15000, describe: 'How long --start waits for the URL to accept connections (ms)' })
    .option('cwd', { type: 'string', describe: 'Working directory for the server command' })
    .option('env', { type: 'string', array: true, describe: 'KEY=VALUE added to the server environment (repeatable)' });
}

/** The target part of the library's options, from the flags above. */
export function targetConformanceOptions(argv: Record<string, unknown>, list: (v: unknown) => string[]): Pick<ConformanceOptions, 'stdio' | 'http' | 'sse' | 'url' | 'headers' | 'start' | 'startTimeout' | 'cwd' | 'env'> {
  const str = (k: string) => (argv[k] === undefined ? undefined : String(argv[k]));
  return {
    stdio: str('stdio'), http: str('http'), sse: str('sse'), url: str('url'),
    headers: argv.header === undefined ? undefined : (Array.isArray(argv.header) ? argv.header : [argv.header]).map(String),
    start: str('start'),
    startTimeout: argv['start-timeout'] as number,
    cwd: typeof argv.cwd === 'string' ? argv.cwd : undefined,
    env: argv.env === undefined ? undefined : list(argv.env),
  };
}
