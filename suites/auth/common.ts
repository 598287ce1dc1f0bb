/** What the authorization cases share: the requirements they declare, how a refusal is described, the token preconditions. */
import type { CaseContext, CaseDef, ItemOutcome, Outcome, Requires } from '../../core/suite.js';
import { credentialsInput, type TokenVariant } from '../../core/auth/credentials.js';
import { evidence, mcpProbe, whenProtected, withToken, type MetadataFetch } from './facts.js';
import { bearerOf, type ProbeAnswer } from './probe.js';

/** Whether a precondition gave a verdict (nothing to check, no usable token…) instead of what it looked for. */
export function isOutcome(v: unknown): v is Outcome {
  return typeof v === 'object' && v !== null && 'verdict' in v;
}

/**
 * A case body that needs what `need` finds first (the 401 of a protected server, the run's valid token…): when
 * `need` gives a verdict instead, that verdict is the case's, and the body does not run.
 */
export function needing<T>(
  need: (ctx: CaseContext) => Promise<T | Outcome>,
  body: (ctx: CaseContext, found: T) => Outcome | Promise<Outcome>,
): (ctx: CaseContext) => Promise<Outcome | ItemOutcome[]> {
  return async (ctx) => {
    const found = await need(ctx);
    return isOutcome(found) ? found : body(ctx, found);
  };
}

/** Which verdict of several is the worst (the one a combined case reports). */
export const RANK: Record<string, number> = { skip: 0, info: 1, pass: 2, warn: 3, fail: 4 };

export const HTTP = ['streamable-http', 'sse'] as const;
/** Every case: over HTTP, and also when the server refused the run for want of a token (what it checks first). */
export const AUTH: Pick<Requires, 'transports' | 'withoutToken'> = { transports: [...HTTP], withoutToken: true };
export const ok = (s?: number) => s !== undefined && s >= 200 && s < 300;
export const NO_TOKEN =
  'needs a token the server accepts: run with --auth-server (and --start), --oauth, or --header "Authorization: Bearer …"';
export const NO_MINT =
  'needs tokens the harness makes itself: run with --auth-server (and --start), the server trusting the issuer it is handed (MCP_CONFORM_AUTH_ISSUER)';

export function said(a: ProbeAnswer): string {
  if (a.probe.error) return `the request failed: ${a.probe.error}`;
  const www = a.headers['www-authenticate'];
  return `HTTP ${a.status}${www !== undefined ? ` (WWW-Authenticate: ${www.length > 200 ? `${www.slice(0, 200)}…` : www})` : ' (no WWW-Authenticate)'}`;
}

export function fetched(f: MetadataFetch): string {
  return `${f.url}: ${f.problem ?? 'HTTP 200, a JSON object'}`;
}

/** The run's valid token opens the MCP request; else why the token cases prove nothing. */
export async function validAccepted(ctx: CaseContext): Promise<ProbeAnswer | Outcome> {
  const p = withToken(ctx, 'valid');
  if (!p) return { verdict: 'skip', message: `not run: ${NO_TOKEN}` };
  const a = await p;
  if (!ok(a.status))
    return {
      verdict: 'skip',
      message: `not run: the server refuses the run's own token too (${said(a)}), so a refusal here would prove nothing${ctx.input(credentialsInput)?.source === 'auth-server' ? ' — does the server trust the issuer it was handed (MCP_CONFORM_AUTH_ISSUER)?' : ''}`,
      details: evidence(a),
    };
  return a;
}

/**
 * What a case about a minted token rests on: the server asks for authorization, the run can mint (--auth-server), the
 * run's valid token is accepted; then the answer to the MCP request with the token of this variant. Else why not.
 */
export async function mintedAnswer(
  ctx: CaseContext,
  variant: TokenVariant,
): Promise<{ valid: ProbeAnswer; a: ProbeAnswer } | Outcome> {
  const u = await whenProtected(ctx);
  if (isOutcome(u)) return u;
  if (!ctx.input(credentialsInput)?.mint) return { verdict: 'skip', message: `not run: ${NO_MINT}` };
  const valid = await validAccepted(ctx);
  if (isOutcome(valid)) return valid;
  return { valid, a: (await withToken(ctx, variant))! };
}

/** A token that must be refused with 401 (invalid_token): the minted variants, a malformed or unknown one. */
export function refused401(what: string, a: ProbeAnswer, valid?: ProbeAnswer): Outcome {
  const details = evidence(valid, a);
  const e = bearerOf(a.headers['www-authenticate'])?.params.error;
  if (a.status === 401 && e === 'invalid_token') return { verdict: 'pass', message: `${what}: ${said(a)}`, details };
  if (a.status === 401)
    return {
      verdict: 'warn',
      level: 'SHOULD',
      message: `${what}: HTTP 401, but its challenge has ${e ? `error="${e}"` : 'no error code'}; a token that fails validation should get error="invalid_token" (RFC 6750 §3.1) — ${said(a)}`,
      details,
    };
  if (ok(a.status))
    return {
      verdict: 'fail',
      message: `${what} was accepted: ${said(a)}; the server must refuse it with 401`,
      details,
    };
  return { verdict: 'fail', message: `${what}: ${said(a)}; an invalid or expired token must get 401`, details };
}

/** A made-up token (malformed or unknown) sent with the MCP request must be refused with 401. */
export async function madeUp401(ctx: CaseContext, what: string, token: string): Promise<Outcome> {
  const u = await whenProtected(ctx);
  if (isOutcome(u)) return u;
  return refused401(what, await mcpProbe(ctx, `the MCP request with ${what}`, { Authorization: `Bearer ${token}` }));
}

export function minted(
  variant: TokenVariant,
  what: string,
  extra: Partial<CaseDef> & Pick<CaseDef, 'requirement'>,
): CaseDef {
  return {
    id: `auth/token/${variant}`,
    title: `${what} is refused with 401`,
    level: 'MUST',
    spec: 'basic/authorization#token-handling',
    requires: { ...AUTH, from: '2025-03-26', needs: 'handshake' },
    async run(ctx) {
      const m = await mintedAnswer(ctx, variant);
      return isOutcome(m) ? m : refused401(what, m.a, m.valid);
    },
    ...extra,
  };
}
