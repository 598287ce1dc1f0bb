/**
 * The name the harness gives itself (clientInfo in initialize, and in the _meta of 2026-07-28 requests): "mcp-conform"
 * unless run --identify-as NAME (a run option: it binds every session of the run) picks another, so that a server
 * that shows a conformance tool one face and a host another can be run as that host (security/rug-pull).
 */
import type { OptionDef } from './options.js';
import { VERSION } from './version.js';

export const HARNESS_NAME = 'mcp-conform';

export const identifyAsOption: OptionDef<string | undefined> = {
  flag: 'identify-as',
  key: 'identifyAs',
  type: 'string',
  inReport: 'when-set',
  help: 'The clientInfo.name the run gives itself in every session (default mcp-conform), e.g. "claude-ai" to see the face a server shows that host',
  validate: (v, name) =>
    typeof v === 'string' && v.trim().length > 0 && v.length <= 200 && !/[\u0000-\u001f]/.test(v)
      ? undefined
      : `${name} must be a name of 1 to 200 characters without control characters`,
};

/** The clientInfo of a run with these option values. */
export function clientInfoOf(values: Readonly<Record<string, unknown>>): { name: string; version: string } {
  const n = values[identifyAsOption.key];
  return { name: typeof n === 'string' && n.trim() ? n : HARNESS_NAME, version: VERSION };
}

/** The clientInfo of the run a case is in (what its own sessions and probes should say). */
export function runClientInfo(ctx: { option<T>(o: OptionDef<T>): T }): { name: string; version: string } {
  return clientInfoOf({ [identifyAsOption.key]: ctx.option(identifyAsOption) });
}
