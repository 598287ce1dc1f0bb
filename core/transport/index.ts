/** Targets (what the user asked to test) and the transport that reaches each. */
import { StdioTransport } from './stdio.js';
import { StreamableHttpTransport, redactHeaders, redactUrl } from './http.js';
import { SseTransport } from './sse.js';
import { DetectingTransport } from './detect.js';
import { ServerProcess, type StartSpec } from '../start.js';
import type { Transport } from './types.js';
import type { TargetInfo } from '../results.js';
import type { Credentials } from '../auth/credentials.js';

export interface StdioTarget {
  transport: 'stdio';
  /** The command as the user gave it (for the report). */
  command: string;
  argv: string[];
  cwd?: string;
  env?: Record<string, string>;
}

/** A server reached over HTTP: Streamable HTTP, HTTP+SSE, or 'auto' (--url: detect). */
export interface HttpTarget {
  transport: 'streamable-http' | 'sse' | 'auto';
  url: string;
  /** --header values: sent as given, redacted in the report. */
  headers?: Record<string, string>;
  /** --start: a server process to start first and stop at the end. */
  start?: StartSpec;
}

export type Target = StdioTarget | HttpTarget;

export interface TransportOptions {
  /** Bound for each shutdown step (ms). */
  shutdownGraceMs?: number;
  /** Longest message accepted (bytes). */
  maxMessageBytes?: number;
  /** Bound on waiting for an HTTP status line / the SSE endpoint event (ms). */
  timeoutMs?: number;
  /** For --url: what the probing initialize offers. */
  protocolVersion?: string;
  clientInfo?: { name: string; version: string };
  /** HTTP: what gets the run past a protected server (its token goes on every request). */
  credentials?: Credentials;
}

export function createTransport(target: Target, opts: TransportOptions = {}): Transport {
  switch (target.transport) {
    case 'stdio':
      return new StdioTransport({
        argv: target.argv,
        cwd: target.cwd,
        env: target.env,
        shutdownGraceMs: opts.shutdownGraceMs,
        maxLineBytes: opts.maxMessageBytes,
      });
    default: {
      const proc = target.start
        ? new ServerProcess({ ...target.start, shutdownGraceMs: target.start.shutdownGraceMs ?? opts.shutdownGraceMs })
        : undefined;
      const common = {
        url: new URL(target.url),
        headers: target.headers,
        proc,
        timeoutMs: opts.timeoutMs,
        maxMessageBytes: opts.maxMessageBytes,
        credentials: opts.credentials,
      };
      if (target.transport === 'sse') return new SseTransport(common);
      if (target.transport === 'auto')
        return new DetectingTransport({
          ...common,
          protocolVersion: opts.protocolVersion ?? '2025-11-25',
          clientInfo: opts.clientInfo ?? { name: 'mcp-conform', version: '0' },
        });
      return new StreamableHttpTransport(common);
    }
  }
}

/** What the report says about the target. */
export function targetInfo(target: Target, transport?: Transport): TargetInfo {
  if (target.transport === 'stdio')
    return { transport: target.transport, command: target.command, argv: target.argv, cwd: target.cwd };
  // The URL may carry a password or an API key in its query: the report shows it redacted.
  const shown = redactUrl(target.url);
  const info: TargetInfo = {
    transport: transport?.kind ?? (target.transport === 'auto' ? 'streamable-http' : target.transport),
    url: shown,
  };
  if (target.headers && Object.keys(target.headers).length) info.headers = redactHeaders(target.headers);
  if (target.start)
    Object.assign(info, { command: target.start.command, argv: target.start.argv, cwd: target.start.cwd });
  if (transport instanceof DetectingTransport) {
    // The detection steps name the URL as requested (href): show it redacted there too.
    let href = target.url;
    try {
      href = new URL(target.url).href;
    } catch {
      /* as given */
    }
    const hide = (s: string) => (href === shown ? s : s.split(href).join(shown));
    info.detection = (transport.detection?.steps ?? [transport.closeInfo?.reason ?? 'not detected']).map(hide);
  }
  return info;
}

export type { Transport } from './types.js';
