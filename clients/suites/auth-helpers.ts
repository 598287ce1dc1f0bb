/**
 * What the client-auth cases share: the scenario groups, the requests the protected mock and its authorization server
 * saw (by endpoint), how a request is shown in evidence (secrets already redacted), and the rule for the 2025-03-26
 * fallbacks (graded at MUST only for a client that speaks that version).
 */
import { sameResource } from '../../core/auth/discovery.js';
import type { Outcome } from '../../core/suite.js';
import type { ResourceRequest } from '../../mocks/auth/protected.js';
import type { AuthServerRequest } from '../../mocks/auth/server.js';
import { AUTH_SCENARIOS } from '../../mocks/auth/scenarios.js';
import { ending, type AuthRunRecord, type ClientCaseContext } from './helpers.js';

export const S = 'basic/authorization';
export const names = (f: (d: (typeof AUTH_SCENARIOS)[number]) => boolean) =>
  AUTH_SCENARIOS.filter(f).map((d) => d.name);
/** Scenarios where the client is meant to get through. */
export const PROCEED = names((d) => !d.refuse);
export const WITH_METADATA = names((d) => d.protected.metadataAt.length > 0 && !d.refuse);
/** How many 401s, or token requests, one run may take before the client counts as looping. */
export const FLOOD = 30;

export const ax = (ctx: ClientCaseContext): AuthRunRecord => ctx.auth!;
export const asOf = (ctx: ClientCaseContext, e: AuthServerRequest['endpoint']) =>
  ax(ctx).asRequests.filter((r) => r.endpoint === e);
export const mcpOf = (ctx: ClientCaseContext) => ax(ctx).resourceRequests.filter((r) => r.kind === 'mcp');
export const codeGrants = (ctx: ClientCaseContext) =>
  asOf(ctx, 'token').filter((r) => r.params?.grant_type === 'authorization_code');
export const shown = (r: AuthServerRequest) =>
  `${r.method} ${r.url}${
    r.method === 'POST' && r.params
      ? ` {${Object.entries(r.params)
          .map(([k, v]) => `${k}=${v}`)
          .join(', ')}}`
      : ''
  } → ${r.status}${r.problem ? ` (${r.problem})` : ''}`;
export const shownR = (r: ResourceRequest) =>
  `${r.method} ${r.url}${r.rpcMethod ? ` (${r.rpcMethod})` : ''} → ${r.status ?? 'served'}`;
export { sameResource };
export const first = <T>(xs: T[], n = 3) => xs.slice(0, n);
export const nothingYet = (ctx: ClientCaseContext, what: string): Outcome => ({
  verdict: 'skip',
  message: `${what}; ${ending(ctx)}`,
});
export const expectedScope = (a: AuthRunRecord): string | undefined =>
  a.def.protected.challengeScope ?? a.def.protected.scopesSupported?.join(' ');
export const scopeSet = (s: string | undefined) => new Set((s ?? '').split(' ').filter(Boolean));
export const legacy = (a: AuthRunRecord) => a.def.protected.metadataAt.length === 0;
/** The client said it speaks 2026-07-28 (offered it in initialize, or sent a 2026-07-28 request). */
export const speaks2026 = (ctx: ClientCaseContext) => mcpOf(ctx).some((r) => r.offeredVersion === '2026-07-28');
/** The client used a client id of its own that the authorization server does not know (it was configured, not registered). */
export const foreignClient = (ctx: ClientCaseContext) =>
  asOf(ctx, 'authorize').find((r) => r.problem?.startsWith('invalid_client: unknown client_id'));

export function refused(ctx: ClientCaseContext, why: string): Outcome {
  const az = asOf(ctx, 'authorize');
  const tk = codeGrants(ctx);
  if (!mcpOf(ctx).length) return nothingYet(ctx, 'the client never reached the MCP endpoint');
  if (!az.length && !tk.length)
    return {
      verdict: 'pass',
      message: `the client did not authorize ${why}: no authorization request, no token request (it made ${mcpOf(ctx).length} request${mcpOf(ctx).length === 1 ? '' : 's'} to the MCP endpoint); ${ending(ctx)}`,
    };
  return {
    verdict: 'fail',
    message: `the client went on ${why}: ${[...first(az, 1), ...first(tk, 1)].map(shown).join('; ')}`,
  };
}

/** The 2025-03-26 back-compat scenarios (the mock speaks that version only, without protected-resource metadata). */
export const LEGACY_SCENARIOS = names((d) => d.protocolVersion === '2025-03-26');

/**
 * Whether the 2025-03-26 fallbacks bind this client: it was run with --protocol-version 2025-03-26, or it offered
 * 2025-03-26 itself. Otherwise a failure there is info: only a client that also talks to 2025-03-26 servers needs them.
 */
export function legacyBinds(ctx: ClientCaseContext): boolean {
  const a = ctx.auth;
  if (a?.def.protocolVersion !== '2025-03-26') return true;
  return (
    a.forcedVersion === '2025-03-26' ||
    a.resourceRequests.some((r) => r.rpcMethod === 'initialize' && r.offeredVersion === '2025-03-26')
  );
}

/** A fail in a 2025-03-26 fallback scenario for a client the fallbacks do not bind: info, saying why. */
export function legacyGate(ctx: ClientCaseContext, o: Outcome): Outcome {
  if (o.verdict !== 'fail' || legacyBinds(ctx)) return o;
  return {
    ...o,
    verdict: 'info',
    message: `${o.message} — info, not fail: a 2025-03-26 fallback binds a client that also talks to 2025-03-26 servers (run with --protocol-version 2025-03-26, or one that offers that version); this one offered ${ctx.auth!.resourceRequests.find((r) => r.rpcMethod === 'initialize')?.offeredVersion ?? 'no version'}`,
  };
}

/** How many refused registrations a client that gives up may have sent (it may try once more, differently). */
export const GIVE_UP_AFTER = 3;

/**
 * In a scenario where the authorization server refuses the registration as asked (mayGiveUp): the client gave up
 * cleanly — every registration refused, at most GIVE_UP_AFTER of them, no token, and it ended by itself. Undefined
 * otherwise (the case grades as usual).
 */
export function givenUp(ctx: ClientCaseContext): string | undefined {
  const a = ax(ctx);
  if (!a.def.mayGiveUp || ctx.client.endedByHarness) return undefined;
  const reg = asOf(ctx, 'register');
  if (
    !reg.length ||
    reg.some((r) => r.status < 300) ||
    reg.length > GIVE_UP_AFTER ||
    asOf(ctx, 'token').some((r) => r.issued)
  )
    return undefined;
  return `the authorization server refused the client's registration (${shown(reg[reg.length - 1]!)}) and the client gave up cleanly after ${reg.length} attempt${reg.length === 1 ? '' : 's'}; ${ending(ctx)} — acceptable here: registering again with a listed method is the other right answer`;
}
