/** Targets (what the user asked to test) and the transport that reaches each. */
import { StdioTransport } from './stdio.js';
import type { Transport } from './types.js';
import type { TargetInfo } from '../results.js';

export interface StdioTarget {
  transport: 'stdio';
  /** The command as the user gave it (for the report). */
  command: string;
  argv: string[];
  cwd?: string;
  env?: Record<string, string>;
}

export type Target = StdioTarget;

export interface TransportOptions {
  /** Bound for each shutdown step (ms). */
  shutdownGraceMs?: number;
  /** Longest message accepted (bytes). */
  maxMessageBytes?: number;
}

export function createTransport(target: Target, opts: TransportOptions = {}): Transport {
  switch (target.transport) {
    case 'stdio':
      return new StdioTransport({ argv: target.argv, cwd: target.cwd, env: target.env, shutdownGraceMs: opts.shutdownGraceMs, maxLineBytes: opts.maxMessageBytes });
  }
}

/** What the report says about the target. */
export function targetInfo(target: Target): TargetInfo {
  return { transport: target.transport, command: target.command, argv: target.argv, cwd: target.cwd };
}

export type { Transport } from './types.js';
