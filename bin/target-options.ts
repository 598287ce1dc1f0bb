/**
 * The options that say which server to test and how to reach or start it: declared once, for every command that
 * talks to a server (run, snapshot, tools), and turned into the library's options (lib/conformance.ts) in one place.
 */
import type { Argv } from 'yargs';
import type { ConformanceOptions, TargetConformanceOptions } from '../lib/conformance.js';

export const TARGET_FLAGS = ['stdio', 'http', 'sse', 'url'] as const;

/**
 * The values of a repeatable KEY=VALUE flag (--env, --user-config), as given: unlike the list flags (--suite a,b) they
 * are not split at commas, since a value may hold one (ALLOWED=a,b).
 */
export function pairs(v: unknown): string[] {
  return (Array.isArray(v) ? v : v === undefined ? [] : [v]).map(String);
}

export function targetOptions<T>(y: Argv<T>) {
  return y
    .option('stdio', {
      type: 'string',
      describe: 'Command that starts the server over stdio; split as a shell would (quotes respected)',
    })
    .option('http', { type: 'string', describe: 'URL of a Streamable HTTP server (the MCP endpoint)' })
    .option('sse', { type: 'string', describe: 'URL of the SSE stream of an HTTP+SSE server (protocol 2024-11-05)' })
    .option('url', { type: 'string', describe: 'URL of an HTTP server: Streamable HTTP is tried first, then HTTP+SSE' })
    .option('header', {
      type: 'string',
      array: true,
      describe: '"Name: value" sent with every HTTP request (repeatable); secret values are redacted in reports',
    })
    .option('start', {
      type: 'string',
      describe:
        'Command that starts the HTTP server (own process group); mcp-conform waits until the URL accepts connections and stops it at the end',
    })
    .option('auth-server', {
      type: 'boolean',
      describe:
        "With --start: run mcp-conform's own OAuth authorization server on 127.0.0.1 for the run; the started server gets its issuer URL as MCP_CONFORM_AUTH_ISSUER and as {issuer} in the --start command, the run uses a token it mints for the MCP URL, and the auth suite checks expired, wrong-audience, wrong-issuer, badly signed and under-scoped tokens (default off)",
    })
    .option('auth-server-scope', {
      type: 'string',
      describe:
        "With --auth-server: the scope of the run's token (space-separated; default: the scope the server's 401 challenge names, else its protected-resource metadata's scopes_supported)",
    })
    .option('start-timeout', {
      type: 'number',
      default: 15000,
      describe: 'How long --start waits for the URL to accept connections (ms)',
    })
    .option('cwd', { type: 'string', describe: 'Working directory for the server command' })
    .option('env', { type: 'string', array: true, describe: 'KEY=VALUE added to the server environment (repeatable)' })
    .option('oauth', {
      type: 'boolean',
      describe:
        'HTTP: get into an OAuth-protected server as a spec-following client would (discovery, registration, PKCE on a loopback redirect), then run behind the token; see docs/authorization-oauth.md',
    })
    .option('oauth-grant', {
      choices: ['authorization_code', 'client_credentials'],
      describe:
        'With --oauth: the grant (default authorization_code; client_credentials for machine-to-machine CI, with --client-id and --client-secret)',
    })
    .option('client-id', {
      type: 'string',
      describe:
        'With --oauth: a client registered beforehand (default: a Client ID Metadata Document or dynamic registration)',
    })
    .option('client-secret', {
      type: 'string',
      describe: 'With --client-id: its secret (default: $MCP_CONFORM_CLIENT_SECRET); never written anywhere',
    })
    .option('client-metadata-url', {
      type: 'string',
      describe:
        'With --oauth: the https URL of your Client ID Metadata Document, used where the authorization server supports them',
    })
    .option('oauth-scope', {
      type: 'string',
      describe:
        "With --oauth: the scope to ask for (default: the one the server's 401 names, else its scopes_supported)",
    })
    .option('oauth-timeout', {
      type: 'number',
      describe:
        'With --oauth: how long a login that needs a person may take (ms, default 120000; the URL to open is printed on stderr)',
    });
}

/** The target part of the library's options, from the flags above. */
export function targetConformanceOptions(argv: Record<string, unknown>): TargetConformanceOptions {
  const str = (k: string) => (argv[k] === undefined ? undefined : String(argv[k]));
  return {
    stdio: str('stdio'),
    http: str('http'),
    sse: str('sse'),
    url: str('url'),
    headers:
      argv.header === undefined ? undefined : (Array.isArray(argv.header) ? argv.header : [argv.header]).map(String),
    start: str('start'),
    ...(argv['auth-server'] !== undefined ? { authServer: argv['auth-server'] === true } : {}),
    ...(argv['auth-server-scope'] !== undefined ? { authServerScope: String(argv['auth-server-scope']) } : {}),
    startTimeout: argv['start-timeout'] as number,
    cwd: typeof argv.cwd === 'string' ? argv.cwd : undefined,
    env: argv.env === undefined ? undefined : pairs(argv.env),
    ...(argv.oauth === true
      ? {
          oauth: true,
          oauthGrant: argv['oauth-grant'] as ConformanceOptions['oauthGrant'],
          clientId: str('client-id'),
          // The secret from the environment rather than the command line (where ps would show it), unless given.
          clientSecret:
            str('client-secret') ??
            (argv['client-id'] !== undefined ? process.env.MCP_CONFORM_CLIENT_SECRET || undefined : undefined),
          clientMetadataUrl: str('client-metadata-url'),
          oauthScope: str('oauth-scope'),
          oauthTimeout: argv['oauth-timeout'] as number | undefined,
        }
      : {
          // Given without --oauth: passed on so that the library says they go with --oauth.
          oauthGrant: argv['oauth-grant'] as ConformanceOptions['oauthGrant'],
          clientId: str('client-id'),
          clientSecret: str('client-secret'),
          clientMetadataUrl: str('client-metadata-url'),
          oauthScope: str('oauth-scope'),
          oauthTimeout: argv['oauth-timeout'] as number | undefined,
        }),
  };
}
