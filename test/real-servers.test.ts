/**
 * The real-server verdict ledger (docs/real-servers.md) holds: each real server (npm servers and small servers on
 * other people's frameworks, fixtures/servers/peers) is run once per transport with default options, and the set
 * of its non-pass verdicts (case id -> verdict, noise skips left out: see isNoiseSkip) must equal the ledger's
 * table for it. A changed verdict fails with the difference and how to update the ledger.
 *
 * Draft mode: `npm run ledger:draft` (LEDGER_DRAFT=1) runs the same servers without asserting and writes the
 * ledger's tables with the current verdicts, keeping the "why" the ledger has for unchanged rows and marking new
 * or changed rows for a person to explain. It never writes a reason itself.
 *
 * Python peers run from the venv of test/helpers/python-peers.ts; when it cannot be made they are skipped with the
 * reason (printed, and in the skipped test's note).
 */
import { describe, expect, it, beforeAll, afterAll } from 'vitest';
import { existsSync, mkdtempSync, readFileSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { BIN, FILESYSTEM_SERVER, FIXTURES, ROOT, runArgs, type RunResult } from './helpers/cli.js';
import { accountFor } from './helpers/console-listing.js';
import { renderConsole } from '../reports/console.js';
import { freePort } from './http-helpers.js';
import { pythonPeers, type PythonPeers } from './helpers/python-peers.js';
import type { Report, CaseResult } from '../core/results.js';
import { ARGUMENT_NUMBER, ARGUMENT_VALUE } from '../suites/prompts.js';

const LEDGER = join(ROOT, 'docs', 'real-servers.md');
const PEERS = join(FIXTURES, 'peers');
const DRAFT = process.env.LEDGER_DRAFT;
const DRAFT_FILE = DRAFT && DRAFT !== '1' ? DRAFT : join(ROOT, 'node_modules', '.cache', 'real-servers.draft.md');
/** A path as one word of a command line (the harness splits commands as a shell would). */
const q = (s: string) => (/[\s"'\\$]/.test(s) ? `'${s.replace(/'/g, `'\\''`)}'` : s);
const node = (script: string, ...args: (string | number)[]) =>
  [q(process.execPath), q(script), ...args.map(String)].join(' ');

/**
 * Skips that say nothing about the server: the case does not apply to the protocol version or transport in force,
 * or depends on something the run did not have. Every other skip is a ledger row (for instance a tool the call
 * policy did not call, or an inconclusive probe).
 */
export function isNoiseSkip(c: Pick<CaseResult, 'verdict' | 'message'>): boolean {
  if (c.verdict !== 'skip') return false;
  return [
    /^does not apply: /, // the runner's one reason for a case whose declared versions, features or transports do not fit the run
    /^protocol \S+ (has no|removed|does not|is not)/i, // the case is about something this protocol version lacks
    /^protocol \S+:/i,
    /\bnot (over )?(HTTP|stdio|Streamable HTTP|SSE)\b/i, // the case is about another transport
    /\bonly over\b/i,
    /\bthe server uses no sessions\b/i,
    /\bno GET stream was open\b/i,
    /\bwas never sent\b/i,
    /\bwithout --start\b/i,
    /^no tool declares\b/i, // nothing of that kind to check
    /^no result with isError\b/i,
    /^no callable tool\b/i, // follows from the calling/tool/* skips, which are ledger rows
    /^the server did not declare\b/i, // a capability the server does not claim: its cases do not apply
    /^the server declared every capability this case probes$/i,
    /^no (listed )?(resource template|prompt)s? (to look at|has|declares)\b/i, // nothing of that kind to check
    /^no extension declared\b/i,
    /^nothing to judge: /, // the run met nothing of the kind the case is about (no x-mcp-header marks, one stream, no event ids)
    /^not run: needs (a token|tokens) /, // auth: a check the run's credentials cannot make (no token, or no --auth-server to mint bad ones)
  ].some((re) => re.test(c.message));
}

type Python = 'sdk' | 'fastmcp';

interface Target {
  /** The ledger section's id, `server/transport`. */
  id: string;
  /** What it is, as the ledger's heading says it. */
  title: string;
  /** The mcp-conform run arguments (target and options); python: the venv's interpreter. */
  args(python?: string): Promise<string[]>;
  python?: Python;
  timeoutMs?: number;
  /**
   * An npm package the target needs that is not a devDependency yet: its bin is looked up in node_modules, then in the
   * npm prefixes MCP_CONFORM_PEER_PREFIXES names (colon-separated, e.g. one made by `npm install --prefix DIR PKG`);
   * when it is in neither, the target's test is skipped, saying so.
   */
  npm?: { pkg: string; bin: string };
}

/** Where an npm package's file is: node_modules first, then the prefixes of MCP_CONFORM_PEER_PREFIXES (undefined: absent). */
function npmFile(pkg: string, file: string): string | undefined {
  const roots = [ROOT, ...(process.env.MCP_CONFORM_PEER_PREFIXES ?? '').split(':').filter(Boolean)];
  for (const r of roots) {
    const path = join(r, 'node_modules', pkg, file);
    if (existsSync(path)) return path;
  }
  return undefined;
}

/** The npm target's server script (its bin), or undefined when the package is not installed. */
const npmBin = (t: Pick<Target, 'npm'>): string | undefined => (t.npm ? npmFile(t.npm.pkg, t.npm.bin) : undefined);

/** A kubeconfig whose one cluster is https://127.0.0.1:6443 (nothing listens there): a Kubernetes server started offline. */
function offlineKubeconfig(): string {
  const file = join(mkdtempSync(join(tmpdir(), 'mcp-conform-ledger-kube-')), 'config');
  writeFileSync(
    file,
    [
      'apiVersion: v1',
      'kind: Config',
      'current-context: offline',
      'clusters:',
      '- name: offline',
      '  cluster:',
      '    server: https://127.0.0.1:6443',
      '    insecure-skip-tls-verify: true',
      'contexts:',
      '- name: offline',
      '  context:',
      '    cluster: offline',
      '    user: nobody',
      '    namespace: default',
      'users:',
      '- name: nobody',
      '  user:',
      '    token: not-a-real-token',
      '',
    ].join('\n'),
  );
  return file;
}

const httpStart = async (
  start: (port: number) => string,
  path: string,
  flag = '--http',
  env: string[] = [],
): Promise<string[]> => {
  const port = await freePort();
  return [
    '--start',
    start(port),
    flag,
    `http://127.0.0.1:${port}${path}`,
    ...env.flatMap((e) => ['--env', e.replace('{port}', String(port))]),
  ];
};

const EVERYTHING = join(ROOT, 'node_modules', '@modelcontextprotocol', 'server-everything', 'dist', 'index.js');
/** A server-filesystem release's entry point (the current devDependency, or an npm alias of an older release). */
const FILESYSTEM = (pkg: string) => join(ROOT, 'node_modules', ...pkg.split('/'), 'dist', 'index.js');
/** The folder a filesystem server serves: a temporary directory with one file. */
function fsFolder(): string {
  const dir = mkdtempSync(join(tmpdir(), 'mcp-conform-ledger-fs-'));
  writeFileSync(join(dir, 'README.md'), '# hello\n');
  return dir;
}
/** The security suite's file and URL cases alone (the rest of a run on these servers is the sections above). */
const FILE_CASES = ['--case', 'security/resource-escape', '--case', 'security/path-escape', '--case', 'security/ssrf'];

export const TARGETS: Target[] = [
  {
    id: 'everything/stdio',
    title: '@modelcontextprotocol/server-everything over stdio',
    args: async () => ['--stdio', `${q(join(BIN, 'mcp-server-everything'))} stdio`],
    timeoutMs: 150_000,
  },
  {
    id: 'everything/streamable-http',
    title: '@modelcontextprotocol/server-everything `streamableHttp` (started with --start, bound to 127.0.0.1)',
    args: () =>
      httpStart(
        () => `${q(process.execPath)} --import ${q(join(PEERS, 'loopback.mjs'))} ${q(EVERYTHING)} streamableHttp`,
        '/mcp',
        '--http',
        ['PORT={port}'],
      ),
    timeoutMs: 150_000,
  },
  {
    id: 'filesystem/stdio',
    title: '@modelcontextprotocol/server-filesystem over stdio (a temporary directory with one file)',
    // Its own entry script: node_modules/.bin/mcp-server-filesystem may link one of the older releases installed side
    // by side (the npm aliases below), whose bins have the same name.
    args: async () => ['--stdio', node(FILESYSTEM_SERVER, fsFolder())],
  },
  {
    // CVE-2025-53110 / CVE-2025-53109: the release before the fix reads a canary in a prefix-named sibling folder and
    // one behind a symlink. Its tools carry no annotations: only --call-tool read_file lets the probe call it.
    id: 'filesystem-2025.3.28/stdio',
    title:
      '@modelcontextprotocol/server-filesystem 2025.3.28 (npm alias `server-filesystem-2025.3.28`) over stdio, run with `--case security/resource-escape --case security/path-escape --case security/ssrf --call-tool read_file`',
    args: async () => [
      '--stdio',
      node(FILESYSTEM('server-filesystem-2025.3.28'), fsFolder()),
      ...FILE_CASES,
      '--call-tool',
      'read_file',
    ],
  },
  {
    id: 'filesystem-2025.7.1/stdio',
    title:
      '@modelcontextprotocol/server-filesystem 2025.7.1, the fixed release (npm alias `server-filesystem-2025.7.1`), over stdio, run with `--case security/resource-escape --case security/path-escape --case security/ssrf --call-tool read_file`',
    args: async () => [
      '--stdio',
      node(FILESYSTEM('server-filesystem-2025.7.1'), fsFolder()),
      ...FILE_CASES,
      '--call-tool',
      'read_file',
    ],
  },
  {
    // Its gzip-file-as-resource tool fetches the URL it is given (readOnlyHint: false: only --call-tool calls it).
    id: 'everything-fetch/stdio',
    title:
      '@modelcontextprotocol/server-everything over stdio, run with `--case security/resource-escape --case security/path-escape --case security/ssrf --call-tool gzip-file-as-resource`',
    args: async () => [
      '--stdio',
      `${q(join(BIN, 'mcp-server-everything'))} stdio`,
      ...FILE_CASES,
      '--call-tool',
      'gzip-file-as-resource',
    ],
  },
  {
    id: 'memory/stdio',
    title: '@modelcontextprotocol/server-memory over stdio (MEMORY_FILE_PATH in a temporary directory)',
    args: async () => [
      '--stdio',
      q(join(BIN, 'mcp-server-memory')),
      '--env',
      `MEMORY_FILE_PATH=${join(mkdtempSync(join(tmpdir(), 'mcp-conform-ledger-mem-')), 'memory.jsonl')}`,
    ],
  },
  {
    id: 'sequential-thinking/stdio',
    title: '@modelcontextprotocol/server-sequential-thinking over stdio',
    args: async () => ['--stdio', q(join(BIN, 'mcp-server-sequential-thinking'))],
  },
  {
    id: 'commands/stdio',
    title: '@agent-infra/mcp-server-commands over stdio',
    // SAFETY: its run_command tool executes through /bin/sh. The default policy calls only tools annotated
    // readOnlyHint: true, which it has none of: the test below proves no tools/call of them goes out.
    args: async () => ['--stdio', q(join(BIN, 'mcp-server-commands'))],
  },
  {
    id: 'fastmcp-ts/stdio',
    title: 'a server on the TS `fastmcp` framework over stdio',
    args: async () => ['--stdio', node(join(PEERS, 'fastmcp-ts.mjs'), 'stdio')],
  },
  {
    id: 'fastmcp-ts/streamable-http',
    title: 'a server on the TS `fastmcp` framework over Streamable HTTP',
    args: () => httpStart((p) => node(join(PEERS, 'fastmcp-ts.mjs'), 'http', p), '/mcp'),
  },
  {
    id: 'tmcp/stdio',
    title: 'a server on `tmcp` (`@tmcp/transport-stdio`) over stdio',
    args: async () => ['--stdio', node(join(PEERS, 'tmcp.mjs'), 'stdio')],
  },
  {
    id: 'tmcp/streamable-http',
    title: 'a server on `tmcp` (`@tmcp/transport-http`) over Streamable HTTP',
    args: () => httpStart((p) => node(join(PEERS, 'tmcp.mjs'), 'http', p), '/mcp'),
  },
  {
    id: 'python-sdk/stdio',
    title: 'a server on the Python MCP SDK 2.x (`MCPServer`) over stdio',
    python: 'sdk',
    args: async (py) => ['--stdio', `${q(py!)} ${q(join(PEERS, 'python_sdk.py'))} stdio`],
  },
  {
    id: 'python-sdk/streamable-http',
    title: 'a server on the Python MCP SDK 2.x over Streamable HTTP',
    python: 'sdk',
    args: (py) => httpStart((p) => `${q(py!)} ${q(join(PEERS, 'python_sdk.py'))} streamable-http ${p}`, '/mcp'),
  },
  {
    id: 'python-sdk/sse',
    title: 'a server on the Python MCP SDK 2.x over HTTP+SSE',
    python: 'sdk',
    args: (py) => httpStart((p) => `${q(py!)} ${q(join(PEERS, 'python_sdk.py'))} sse ${p}`, '/sse', '--sse'),
  },
  {
    id: 'python-sdk-mrtr/stdio',
    title:
      'a server on the Python MCP SDK 2.x whose tools and prompt ask for input by multi round-trip requests (2026-07-28), run with `--client-capabilities sampling,elicitation,roots`',
    python: 'sdk',
    args: async (py) => [
      '--stdio',
      `${q(py!)} ${q(join(PEERS, 'python_sdk_mrtr.py'))} stdio`,
      '--client-capabilities',
      'sampling,elicitation,roots',
    ],
  },
  {
    id: 'python-fastmcp/stdio',
    title: 'a server on Python FastMCP over stdio',
    python: 'fastmcp',
    args: async (py) => ['--stdio', `${q(py!)} ${q(join(PEERS, 'python_fastmcp.py'))} stdio`],
  },
  {
    id: 'python-fastmcp/streamable-http',
    title: 'a server on Python FastMCP over Streamable HTTP',
    python: 'fastmcp',
    args: (py) => httpStart((p) => `${q(py!)} ${q(join(PEERS, 'python_fastmcp.py'))} http ${p}`, '/mcp'),
  },
  {
    id: 'python-fastmcp/sse',
    title: 'a server on Python FastMCP over HTTP+SSE',
    python: 'fastmcp',
    args: (py) => httpStart((p) => `${q(py!)} ${q(join(PEERS, 'python_fastmcp.py'))} sse ${p}`, '/sse', '--sse'),
  },
  {
    id: 'tmcp-mrtr/streamable-http',
    title:
      'a server on `tmcp` whose tools and prompt ask for input by multi round-trip requests (2026-07-28) over Streamable HTTP, run with `--client-capabilities sampling,elicitation,roots`',
    args: async () => [
      ...(await httpStart((p) => node(join(PEERS, 'tmcp-mrtr.mjs'), p), '/mcp')),
      '--client-capabilities',
      'sampling,elicitation,roots',
    ],
  },
  {
    // Behind OAuth: the SDK's McpServer protected by its own requireBearerAuth + mcpAuthMetadataRouter, the tokens from
    // oidc-provider (npm); the run gets in with --oauth (the authorization endpoint approves at once).
    id: 'oidc-sdk/streamable-http',
    title:
      "the TS SDK's McpServer behind `oidc-provider` (fixtures/servers/peers/auth/oidc-sdk.mjs auto), run with --oauth",
    args: async () => [
      ...(await httpStart((p) => node(join(PEERS, 'auth', 'oidc-sdk.mjs'), 'auto', p), '/mcp')),
      '--start-timeout',
      '60000',
      '--oauth',
    ],
    timeoutMs: 150_000,
  },
  {
    id: 'sdk-mcpserver/stdio',
    title: "the TS SDK's McpServer (fixtures/servers/sdk-stdio.mjs) over stdio",
    args: async () => ['--stdio', node(join(FIXTURES, 'sdk-stdio.mjs'))],
  },
  // Protected servers (fixtures/servers/peers/auth/): each trusts the harness's authorization server (--auth-server,
  // its issuer in MCP_CONFORM_AUTH_ISSUER); only the auth suite, the protocol suites behind a token being those of
  // the same frameworks' sections above.
  {
    id: 'protected/sdk-bearer',
    title:
      'a TS SDK server behind `requireBearerAuth` (with `expectedResource`) and `mcpAuthMetadataRouter`, JWKS-verified tokens, run with `--auth-server --suite auth`',
    args: async () => [
      ...(await httpStart((p) => node(join(PEERS, 'auth', 'sdk-bearer.mjs'), p), '/mcp')),
      '--auth-server',
      '--suite',
      'auth',
    ],
  },
  {
    id: 'protected/fastmcp-ts-oauth',
    title:
      'a server on the TS `fastmcp` framework with its `oauth` option (`protectedResource`) and an `authenticate` that checks JWKS-verified tokens, run with `--auth-server --suite auth`',
    args: async () => [
      ...(await httpStart((p) => node(join(PEERS, 'auth', 'fastmcp-ts-oauth.mjs'), p), '/mcp')),
      '--auth-server',
      '--suite',
      'auth',
    ],
  },
  {
    id: 'protected/python-sdk-auth',
    title:
      'a Python MCP SDK 2.x server with `AuthSettings` (`validate_token_resource`) and a JWKS `TokenVerifier` (PyJWT), run with `--auth-server --suite auth`',
    python: 'sdk',
    args: async (py) => [
      ...(await httpStart((p) => `${q(py!)} ${q(join(PEERS, 'auth', 'python_sdk_auth.py'))} ${p}`, '/mcp')),
      '--start-timeout',
      '60000',
      '--auth-server',
      '--suite',
      'auth',
    ],
  },
  {
    id: 'protected/fastmcp-jwt-audience',
    title:
      'a Python FastMCP server with `RemoteAuthProvider` + `JWTVerifier(audience=…)`, run with `--auth-server --suite auth`',
    python: 'fastmcp',
    args: async (py) => [
      ...(await httpStart((p) => `${q(py!)} ${q(join(PEERS, 'auth', 'python_fastmcp_jwt.py'))} audience ${p}`, '/mcp')),
      '--start-timeout',
      '60000',
      '--auth-server',
      '--suite',
      'auth',
    ],
  },
  {
    id: 'protected/fastmcp-jwt-audience-sse',
    title:
      'the same Python FastMCP server with `JWTVerifier(audience=…)` over HTTP+SSE, run with `--auth-server --suite auth`',
    python: 'fastmcp',
    args: async (py) => [
      ...(await httpStart(
        (p) => `${q(py!)} ${q(join(PEERS, 'auth', 'python_fastmcp_jwt.py'))} audience ${p} sse`,
        '/sse',
        '--sse',
      )),
      '--start-timeout',
      '60000',
      '--auth-server',
      '--suite',
      'auth',
    ],
  },
  {
    id: 'protected/fastmcp-jwt-no-audience',
    title:
      'a Python FastMCP server with `RemoteAuthProvider` + `JWTVerifier` without `audience`, run with `--auth-server --suite auth`',
    python: 'fastmcp',
    args: async (py) => [
      ...(await httpStart(
        (p) => `${q(py!)} ${q(join(PEERS, 'auth', 'python_fastmcp_jwt.py'))} no-audience ${p}`,
        '/mcp',
      )),
      '--start-timeout',
      '60000',
      '--auth-server',
      '--suite',
      'auth',
    ],
  },
  {
    id: 'ts-sdk2/stdio',
    title: 'a server on the TS SDK 2.x (`@modelcontextprotocol/server`, `McpServer` with `serveStdio`) over stdio',
    args: async () => ['--stdio', node(join(PEERS, 'ts-sdk2.mjs'), 'stdio')],
  },
  {
    id: 'ts-sdk2/streamable-http',
    title:
      'a server on the TS SDK 2.x (`McpServer` with `createMcpHandler`, mounted bare on node:http) over Streamable HTTP',
    args: () => httpStart((p) => node(join(PEERS, 'ts-sdk2.mjs'), 'http', p), '/mcp'),
  },
  // Servers started offline (issue 42), from npm packages that are not devDependencies yet (see Target.npm): their
  // backends are unreachable, so what they answer for those is an environment error (inconclusive, not failed).
  {
    id: 'kubernetes/stdio',
    title:
      'mcp-server-kubernetes over stdio, offline (a kubeconfig whose cluster, https://127.0.0.1:6443, does not answer)',
    npm: { pkg: 'mcp-server-kubernetes', bin: 'dist/index.js' },
    args: async function () {
      return ['--stdio', node(npmBin(this)!), '--env', `KUBECONFIG=${offlineKubeconfig()}`];
    },
  },
  {
    id: 'airtable/stdio',
    title:
      'airtable-mcp-server over stdio, offline (AIRTABLE_API_KEY set to a made-up key; api.airtable.com unreachable)',
    npm: { pkg: 'airtable-mcp-server', bin: 'dist/main.js' },
    args: async function () {
      return ['--stdio', node(npmBin(this)!), '--env', 'AIRTABLE_API_KEY=patOFFLINE.not-a-key'];
    },
  },
  {
    id: 'google-maps/stdio',
    title:
      '@modelcontextprotocol/server-google-maps over stdio, offline (GOOGLE_MAPS_API_KEY set to a made-up key; the Maps API unreachable)',
    npm: { pkg: '@modelcontextprotocol/server-google-maps', bin: 'dist/index.js' },
    args: async function () {
      return ['--stdio', node(npmBin(this)!), '--env', 'GOOGLE_MAPS_API_KEY=offline-not-a-key'];
    },
  },
  {
    id: 'mcp-fetch/stdio',
    title: 'mcp-fetch over stdio, offline (no browser downloaded for its puppeteer tool)',
    npm: { pkg: 'mcp-fetch', bin: 'dist/stdio.js' },
    args: async function () {
      return ['--stdio', node(npmBin(this)!)];
    },
  },
  {
    id: 'mcp-handler/streamable-http',
    title:
      "a server on Vercel's `mcp-handler` 2.x (the TS SDK 2.x underneath; its web-standard handler mounted bare on node:http) over Streamable HTTP",
    args: () => httpStart((p) => node(join(PEERS, 'mcp-handler.mjs'), p), '/mcp'),
  },
  // The TS SDK either side of the DNS-rebinding fix (CVE-2025-66414, fixed in 1.24.0), on express as its examples built it.
  {
    id: 'sdk-1.23-express/streamable-http',
    title:
      'the TS SDK 1.23 on a bare `express()` app, no Host check (fixtures/servers/peers/sdk-express-host.mjs 1.23) over Streamable HTTP',
    args: () => httpStart((p) => node(join(PEERS, 'sdk-express-host.mjs'), '1.23', p), '/mcp'),
  },
  {
    id: 'sdk-1.24-express/streamable-http',
    title:
      'the TS SDK 1.24 on `createMcpExpressApp()`, Host checked (fixtures/servers/peers/sdk-express-host.mjs 1.24) over Streamable HTTP',
    args: () => httpStart((p) => node(join(PEERS, 'sdk-express-host.mjs'), '1.24', p), '/mcp'),
  },
  // The TS SDK either side of GHSA-345p-7cg4-v4c7 (answers crossing between clients; fixed in 1.26.0): one McpServer
  // and one shared stateless transport on 1.25.3, as many examples built it; a server per request on 1.26.0.
  {
    id: 'sdk-1.25.3-shared/streamable-http',
    title:
      'the TS SDK 1.25.3, one McpServer and one stateless transport shared by every request (fixtures/servers/peers/sdk-isolation.mjs sdk-1.25.3 shared) over Streamable HTTP',
    args: () => httpStart((p) => node(join(PEERS, 'sdk-isolation.mjs'), 'sdk-1.25.3', 'shared', p), '/mcp'),
  },
  {
    id: 'sdk-1.26.0-per-request/streamable-http',
    title:
      'the TS SDK 1.26.0, a McpServer and a stateless transport per request (fixtures/servers/peers/sdk-isolation.mjs sdk-1.26.0 per-request) over Streamable HTTP',
    args: () => httpStart((p) => node(join(PEERS, 'sdk-isolation.mjs'), 'sdk-1.26.0', 'per-request', p), '/mcp'),
  },
];

/**
 * A run's bound: 90 s, 150 s for a Python peer (each probe of a fresh connection starts an interpreter: ~2 s, more on
 * a busy machine; and a dual-era server is run in both eras).
 */
const defaultTimeout = (t: Target): number => (t.python ? 150_000 : 90_000);

// ---- the ledger ----

export interface LedgerRow {
  verdict: string;
  why: string;
}
export type Ledger = Map<string, Map<string, LedgerRow>>;

/**
 * Sections start with a heading whose first code span is the target id (`## \`everything/stdio\` — …`); their
 * table rows are `| \`case id\` | verdict | why |`. A section without rows means: every case passes (or is a
 * noise skip).
 */
export function parseLedger(text: string): Ledger {
  const ledger: Ledger = new Map();
  let current: Map<string, LedgerRow> | undefined;
  for (const line of text.split('\n')) {
    const h = /^#{2,3}\s+`([^`]+)`/.exec(line);
    if (h) {
      current = new Map();
      ledger.set(h[1]!, current);
      continue;
    }
    if (/^#{1,3}\s/.test(line)) {
      current = undefined;
      continue;
    }
    const row = /^\|\s*`([^`]+)`\s*\|\s*(\w+)\s*\|(.*)\|\s*$/.exec(line);
    if (row && current) current.set(row[1]!, { verdict: row[2]!, why: row[3]!.trim() });
  }
  return ledger;
}

/** The non-pass verdicts of a report that the ledger records. */
type Seen = Map<string, { verdict: string; message: string; spec: string }>;

/**
 * A report of two eras (a dual-era server, report.eras): a case with the same verdict in every era it applies to is one
 * row under its id; a case whose verdict differs between the eras (a pass or a noise skip in one) is a row per era
 * where it is not a pass, keyed `id [version]`.
 */
export function observed(report: Report): Seen {
  const out: Seen = new Map();
  const eras = (report.eras ?? []).filter((e) => e.accepted).map((e) => e.protocolVersion);
  const all = report.suites.flatMap((s) => s.cases);
  const verdictsOf = new Map<string, Map<string, string>>();
  // Per case, its verdict in each era where it applies (a case of one era only, protocol-2026/*, is compared with none).
  if (eras.length > 1)
    for (const c of all)
      if (c.protocolVersion && !c.notApplicable)
        (verdictsOf.get(c.id) ?? verdictsOf.set(c.id, new Map()).get(c.id)!).set(
          c.protocolVersion,
          c.verdict === 'pass' || isNoiseSkip(c) ? 'pass' : c.verdict,
        );
  for (const c of all) {
    if (c.verdict === 'pass' || isNoiseSkip(c)) continue;
    const byEra = verdictsOf.get(c.id);
    const alike = !byEra || [...byEra.values()].every((v) => v === c.verdict);
    const key = alike ? c.id : `${c.id} [${c.protocolVersion}]`;
    if (!out.has(key)) out.set(key, { verdict: c.verdict, message: c.message, spec: c.spec });
  }
  return out;
}

const noiseSkips = (report: Report) =>
  report.suites
    .flatMap((s) => s.cases)
    .filter(isNoiseSkip)
    .map((c) => c.id);

const cell = (s: string) => s.replace(/\|/g, '\\|').replace(/\s+/g, ' ');
const short = (s: string, n = 160) => (s.length > n ? `${s.slice(0, n)}…` : s);

/** The target's table as the ledger should read now: the ledger's why where the verdict is unchanged. */
function draftTable(t: Target, seen: Seen, ledger: Map<string, LedgerRow> | undefined, noise: string[]): string {
  const rows = [...seen]
    .sort(([a], [b]) => a.localeCompare(b))
    .map(([id, { verdict, message, spec }]) => {
      const had = ledger?.get(id);
      const why =
        had?.verdict === verdict
          ? had.why
          : `**${had ? `CHANGED from ${had.verdict}` : 'NEW'}: write why** (message: ${cell(short(message))}) ([spec](${spec}))`;
      return `| \`${id}\` | ${verdict} | ${why} |`;
    });
  const gone = [...(ledger ?? [])]
    .filter(([id]) => !seen.has(id))
    .map(([id, r]) => `<!-- GONE (now pass or a noise skip): \`${id}\` was ${r.verdict} -->`);
  const quiet = noise.length ? [`<!-- noise skips, not ledger rows: ${noise.join(', ')} -->`] : [];
  return [
    `## \`${t.id}\` — ${t.title}`,
    '',
    ...(rows.length ? ['| case | verdict | why |', '| --- | --- | --- |', ...rows] : ['Every case passes.']),
    ...gone,
    ...quiet,
    '',
  ].join('\n');
}

/** What differs between the ledger's rows and the run, in plain words (empty when they agree). */
function differences(seen: Seen, ledger: Map<string, LedgerRow>): string[] {
  const out: string[] = [];
  for (const [id, { verdict, message }] of seen) {
    const had = ledger.get(id);
    if (!had) out.push(`+ ${id}: ${verdict} (not in the ledger) — ${short(message, 300)}`);
    else if (had.verdict !== verdict)
      out.push(`~ ${id}: ledger says ${had.verdict}, the run gave ${verdict} — ${short(message, 300)}`);
  }
  for (const [id, had] of ledger)
    if (!seen.has(id)) out.push(`- ${id}: ledger says ${had.verdict}, the run gave pass or a noise skip`);
  return out;
}

// ---- the safety assertion ----

/** tools/call requests the harness sent with the name of a tool the server listed without readOnlyHint: true. */
export function unsafeCalls(report: Report): string[] {
  const tools = new Map<string, boolean>();
  for (const m of report.messages) {
    if (m.direction !== 'from-server' || m.kind !== 'response' || m.method !== 'tools/list') continue;
    const listed = (m.json as { result?: { tools?: { name?: unknown; annotations?: { readOnlyHint?: unknown } }[] } })
      ?.result?.tools;
    for (const t of Array.isArray(listed) ? listed : [])
      if (typeof t?.name === 'string') tools.set(t.name, t.annotations?.readOnlyHint === true);
  }
  const out: string[] = [];
  for (const m of report.messages) {
    if (m.direction !== 'to-server' || m.method !== 'tools/call') continue;
    const name = (m.json as { params?: { name?: unknown } })?.params?.name;
    if (typeof name === 'string' && tools.get(name) === false) out.push(`${name} (message ${m.seq})`);
  }
  return [...new Set(out)];
}

/**
 * prompts/get requests that carried a made-up argument value (a prompt may act on its arguments: mcp-server-commands'
 * run_command runs its argument through the shell). By default the harness sends only values the server offered.
 */
export function madeUpPromptArguments(report: Report): string[] {
  const out: string[] = [];
  for (const m of report.messages) {
    if (m.direction !== 'to-server' || m.method !== 'prompts/get') continue;
    const p = (m.json as { params?: { name?: unknown; arguments?: Record<string, unknown> } })?.params;
    const made = Object.entries(p?.arguments ?? {}).filter(([, v]) => v === ARGUMENT_VALUE || v === ARGUMENT_NUMBER);
    if (made.length) out.push(`${String(p?.name)} ${JSON.stringify(Object.fromEntries(made))} (message ${m.seq})`);
  }
  return out;
}

// ---- running ----

/**
 * --shutdown-grace, how long each step of stopping the server waits (stdin closed, SIGTERM, SIGKILL). A stdio Python
 * server takes about 2 s to exit once its stdin closes (FastMCP ~2.1 s measured idle), the default grace: 5 s keeps
 * lifecycle/shutdown from depending on the machine's load. A server started with --start serves HTTP and does not
 * read its stdin: every one here ends on SIGTERM (lifecycle/shutdown info, reported, not graded), so the first step is
 * a wait for nothing, made twice by a dual-era run (a server per era); 1 s, which SIGTERM needs far less than.
 */
function graceFor(t: Target, args: string[]): string[] {
  if (args.includes('--start')) return ['--shutdown-grace', '1000'];
  return t.python ? ['--shutdown-grace', '5000'] : [];
}

/** At most two runs at a time (two cores); each run is one server process group. */
let slots = 2;
const queue: (() => void)[] = [];
async function limited<T>(f: () => Promise<T>): Promise<T> {
  while (slots === 0) await new Promise<void>((r) => queue.push(r));
  slots--;
  try {
    return await f();
  } finally {
    slots++;
    queue.shift()?.();
  }
}

const ledgerText = readFileSync(LEDGER, 'utf8');
const ledger = parseLedger(ledgerText);
const drafts = new Map<string, string>();
const reports = new Map<string, Report>();
/** The tools a target's run names with --call-tool (the user's opt-in: the safety check below allows those). */
const optedIn = new Map<string, string[]>();
let py: PythonPeers;

describe('real-server ledger (docs/real-servers.md)', () => {
  beforeAll(async () => {
    py = await pythonPeers();
    if (!py.python) console.warn(`[real-servers] Python peers skipped: ${py.reason}`);
  }, 300_000);

  afterAll(() => {
    if (!DRAFT) return;
    // The ledger's text before its first section (the prose), then every section as the run saw it.
    const first = ledgerText.search(/^## `/m);
    const preamble = first < 0 ? ledgerText : ledgerText.slice(0, first);
    const text =
      preamble + TARGETS.map((t) => drafts.get(t.id) ?? `## \`${t.id}\` — ${t.title}\n\n<!-- not run -->\n`).join('\n');
    writeFileSync(DRAFT_FILE, text);
    console.log(`[real-servers] ledger draft written to ${DRAFT_FILE}`);
  });

  it('has a section for every server the test runs, and none for a server it does not run', () => {
    if (DRAFT) return;
    expect([...ledger.keys()].sort()).toEqual(TARGETS.map((t) => t.id).sort());
  });

  it('every row says why, in words a person wrote (no draft placeholder left)', () => {
    if (DRAFT) return;
    const unexplained = [...ledger].flatMap(([id, rows]) =>
      [...rows].filter(([, r]) => r.why.length < 20 || /write why/i.test(r.why)).map(([c]) => `${id} ${c}`),
    );
    expect(unexplained).toEqual([]);
    const verdicts = new Set([...ledger.values()].flatMap((rows) => [...rows.values()].map((r) => r.verdict)));
    for (const v of verdicts) expect(['warn', 'fail', 'info', 'skip']).toContain(v);
  });

  for (const t of TARGETS) {
    it.concurrent(
      t.id,
      async (ctx) => {
        if (t.python && !py.python) {
          ctx.skip(`Python peers not available: ${py.reason}`);
          return;
        }
        if (t.npm && !npmBin(t)) {
          ctx.skip(
            `${t.npm.pkg} is not installed (not a devDependency yet; MCP_CONFORM_PEER_PREFIXES can name an npm prefix that has it)`,
          );
          return;
        }
        const args = await t.args(py.python);
        args.push(...graceFor(t, args));
        const r: RunResult = await limited(() => runArgs(args, { timeoutMs: t.timeoutMs ?? defaultTimeout(t) }));
        reports.set(t.id, r.report);
        optedIn.set(
          t.id,
          args.flatMap((a, i) => (args[i - 1] === '--call-tool' ? [a] : [])),
        );
        const seen = observed(r.report);
        drafts.set(t.id, draftTable(t, seen, ledger.get(t.id), noiseSkips(r.report)));
        if (DRAFT) return;
        // The run reached the server: a server that did not start is no ledger entry.
        expect(r.report.aborted, r.report.aborted).toBeUndefined();
        const diff = differences(seen, ledger.get(t.id) ?? new Map());
        expect(
          diff,
          [
            `The verdicts of ${t.id} differ from docs/real-servers.md (+ new, ~ changed, - gone):`,
            ...diff,
            'If the new verdict is right, update the ledger: `npm run ledger:draft` writes the tables as they are now',
            `(${DRAFT_FILE}); copy this section and write, in the why column, why a careful reader of the spec gives it.`,
          ].join('\n'),
        ).toEqual([]);
      },
      (t.timeoutMs ?? defaultTimeout(t)) + 30_000,
    );
  }
});

describe('safe by default on real servers: no call of a tool not annotated read-only, no made-up prompt argument', () => {
  // The default call policy calls no tool that is not annotated readOnlyHint: true — not in
  // `calling`, not in `invalid-params`, not anywhere — on any of these servers (read from each ledger run's log).
  (DRAFT ? it.skip : it)(
    'no tools/call with a tool not annotated readOnlyHint: true in a default run (or one named with --call-tool)',
    () => {
      const ran = TARGETS.filter((t) => reports.has(t.id));
      expect(ran.length, 'no ledger run finished').toBeGreaterThan(0);
      // A tool the run names with --call-tool (filesystem-2025.3.28's read_file) is the user's opt-in, not the default.
      const offending = ran
        .map(
          (t) =>
            [
              t.id,
              unsafeCalls(reports.get(t.id)!).filter(
                (c) => !optedIn.get(t.id)?.includes(c.replace(/ \(message \d+\)$/, '')),
              ),
            ] as const,
        )
        .filter(([, calls]) => calls.length > 0);
      if (offending.length)
        console.log(
          `[real-servers] tools/call of tools not annotated readOnlyHint: true:\n${offending.map(([id, calls]) => `  ${id}: ${calls.join(', ')}`).join('\n')}`,
        );
      expect(Object.fromEntries(offending)).toEqual({});
    },
  );

  (DRAFT ? it.skip : it)('no prompts/get with a made-up argument value in a default run', () => {
    const ran = TARGETS.filter((t) => reports.has(t.id));
    expect(ran.length, 'no ledger run finished').toBeGreaterThan(0);
    const offending = ran
      .map((t) => [t.id, madeUpPromptArguments(reports.get(t.id)!)] as const)
      .filter(([, gets]) => gets.length > 0);
    expect(Object.fromEntries(offending)).toEqual({});
    // The prompt that would run a shell command was listed, and not fetched.
    const commands = reports.get('commands/stdio');
    if (commands)
      expect(commands.suites.flatMap((x) => x.cases).find((c) => c.id === 'prompts/get/run_command')?.verdict).toBe(
        'skip',
      );
  });
});

describe('the console report of a real server fits on one screen and accounts for every non-pass', () => {
  // A default run on server-everything fits on one screen (60 lines) with every non-pass
  // verdict in it — read from the ledger run's report, rendered as the console renders it.
  // 61 since issue 42: its lifecycle/shutdown (ends only on SIGTERM) became a warn, which shows its level and spec line.
  (DRAFT ? it.skip : it)(
    'server-everything over stdio: 61 lines at most, every case that is not a pass accounted for',
    () => {
      const report = reports.get('everything/stdio');
      expect(report, 'the everything/stdio ledger run did not finish').toBeDefined();
      const text = renderConsole(report!, [join(tmpdir(), 'report.json')], { color: false });
      expect(text.trimEnd().split('\n').length).toBeLessThanOrEqual(61);
      const seen = accountFor(text, report!);
      expect(seen.missing).toEqual([]);
      expect(seen.shown.length).toBeGreaterThan(0);
    },
  );

  // A dual-era server is judged in both eras; its console grows by the findings that differ between them
  // only (a finding of both is one line), and still accounts for every result of both.
  (DRAFT ? it.skip : it)(
    'the TS SDK 2.x over stdio, judged in two eras: 80 lines at most, every non-pass result of both eras accounted for',
    () => {
      const report = reports.get('ts-sdk2/stdio');
      expect(report, 'the ts-sdk2/stdio ledger run did not finish').toBeDefined();
      expect(report!.eras?.filter((e) => e.accepted).map((e) => e.protocolVersion)).toEqual([
        '2026-07-28',
        '2025-11-25',
      ]);
      const text = renderConsole(report!, [join(tmpdir(), 'report.json')], { color: false });
      expect(text.trimEnd().split('\n').length).toBeLessThanOrEqual(80);
      const seen = accountFor(text, report!);
      expect(seen.missing).toEqual([]);
      expect(text).toMatch(/ \[2025-11-25\] — /);
    },
  );
});
