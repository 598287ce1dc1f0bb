/**
 * security/host-header (DNS rebinding: a loopback server that serves a foreign Host) and security/session-id
 * (guessable or reused Mcp-Session-Id values). Both send their own HTTP requests outside the run's session
 * (recorded in report.http.exchanges), to the run's own URL only.
 */
import type { CaseDef, Outcome } from '../../core/suite.js';
import type { ProbeResult } from '../../core/transport/http.js';
import { VERSION } from '../../core/version.js';
import { ex, methodHeaders, ok, probeBody, said } from '../http/probes.js';

const REBINDING_ADVISORIES = 'CVE-2025-66414 (TypeScript SDK < 1.24.0), CVE-2025-66416 (Python SDK < 1.23.0)';
/** The foreign name sent as Host: a reserved name (RFC 2606), never resolved; the request goes to the run's own URL. */
export const FOREIGN_HOST = 'evil.example';

/** Whether a URL names this machine: localhost, 127.0.0.0/8, ::1. */
export function isLoopbackUrl(u: URL): boolean {
  const h = u.hostname.replace(/^\[|\]$/g, '').toLowerCase();
  return (
    h === 'localhost' ||
    h.endsWith('.localhost') ||
    /^127(?:\.\d{1,3}){3}$/.test(h) ||
    h === '::1' ||
    h === '0:0:0:0:0:0:0:1'
  );
}

const hostHeader: CaseDef = {
  id: 'security/host-header',
  title: 'a loopback server refuses a request for a foreign Host (DNS rebinding)',
  level: 'SHOULD',
  spec: 'basic/security_best_practices',
  requirement: `A server on localhost refuses (400, 403 or 421) a request whose Host header names another site, so that a web page cannot reach it through a rebinding domain (${REBINDING_ADVISORIES}). Served: warn. Only loopback URLs are probed; http/origin judges the Origin header.`,
  requires: { transports: ['streamable-http'] },
  async run(ctx) {
    const t = ctx.http!;
    if (!isLoopbackUrl(t.url))
      return {
        verdict: 'skip',
        message: `${t.url.hostname} is not a loopback address: DNS rebinding targets servers on this machine, and a public server answers many Host names by design`,
      };
    const host = `${FOREIGN_HOST}${t.url.port ? `:${t.url.port}` : ''}`;
    const r = await t.probe({
      method: 'POST',
      body: probeBody(ctx, 'ping'),
      headers: { Host: host, ...methodHeaders(ctx, 'ping') },
    });
    const sent = `a ${ctx.features.heartbeat === 'ping' ? 'ping' : ctx.features.heartbeat} request to ${t.url.hostname}:${t.url.port} with Host: ${host}`;
    if (r.status === 400 || r.status === 403 || r.status === 421)
      return { verdict: 'pass', message: `${sent} → ${said(r)}`, details: ex(r) };
    if (r.status !== undefined && r.status >= 400 && r.status < 500)
      return {
        verdict: 'pass',
        message: `${sent} was refused: ${said(r)} (400, 403 or 421 say why more plainly)`,
        details: ex(r),
      };
    if (ok(r.status))
      return {
        verdict: 'warn',
        message: `${sent} was served (${said(r)}): the server does not check Host, so a web page can reach it through a DNS-rebinding domain (the class of ${REBINDING_ADVISORIES}); refuse Host names other than localhost, 127.0.0.1 and [::1] (the TypeScript SDK's createMcpExpressApp() and the Python SDK's TransportSecuritySettings do)`,
        details: ex(r),
      };
    if (r.error) return { verdict: 'skip', message: `inconclusive: ${sent} failed: ${r.error}`, details: ex(r) };
    return { verdict: 'warn', message: `${sent} was not refused with a 4xx: ${said(r)}`, details: ex(r) };
  },
};

// ------------------------------------------------------------------------------------------------ session ids
/** Sessions the case opens besides the run's own. */
export const SESSIONS_OPENED = 8;
const MIN_BITS = 128;

const commonPrefix = (xs: string[]) => {
  let n = 0;
  while (xs.every((x) => n < x.length && x[n] === xs[0]![n])) n++;
  return n;
};
const commonSuffix = (xs: string[]) => {
  let n = 0;
  while (xs.every((x) => n < x.length && x[x.length - 1 - n] === xs[0]![xs[0]!.length - 1 - n])) n++;
  return n;
};

/** Bits per character of the alphabet the varying parts of the ids use. */
function bitsPerChar(chars: string): { bits: number; alphabet: string } {
  if (/^[0-9]*$/.test(chars)) return { bits: Math.log2(10), alphabet: 'decimal digits' };
  if (/^[0-9a-f]*$/.test(chars) || /^[0-9A-F]*$/.test(chars)) return { bits: 4, alphabet: 'hex' };
  if (/^[0-9a-z]*$/.test(chars) || /^[0-9A-Z]*$/.test(chars)) return { bits: Math.log2(36), alphabet: 'base 36' };
  if (/^[0-9A-Za-z]*$/.test(chars)) return { bits: Math.log2(62), alphabet: 'letters and digits' };
  if (/^[0-9A-Za-z_+/=-]*$/.test(chars)) return { bits: 6, alphabet: 'base64' };
  return { bits: Math.log2(94), alphabet: 'visible ASCII' };
}

export interface IdJudgement {
  verdict: 'pass' | 'warn' | 'fail';
  problems: string[];
  bits: number;
}

/**
 * Judge a set of session ids one server issued: reuse fails; a counter, a timestamp, a growing shared prefix or
 * fewer than 128 bits of apparent randomness (the characters that vary, times the bits of their alphabet) warns.
 */
export function judgeSessionIds(ids: string[], now = Date.now()): IdJudgement {
  const problems: string[] = [];
  const dup = ids.filter((x, i) => ids.indexOf(x) !== i);
  if (dup.length)
    return {
      verdict: 'fail',
      problems: [
        `${new Set(dup).size === 1 ? 'the id' : 'ids'} ${[...new Set(dup)]
          .slice(0, 3)
          .map((d) => JSON.stringify(d))
          .join(
            ', ',
          )} ${new Set(dup).size === 1 ? 'was' : 'were'} given to more than one session: one client can act in another's session`,
      ],
      bits: 0,
    };
  // Apparent randomness: the part that varies between ids, separators left out.
  const core = ids.map((x) => x.replace(/[-_.:]/g, ''));
  const p = commonPrefix(core);
  const s = Math.min(commonSuffix(core), Math.min(...core.map((c) => c.length)) - p);
  const varying = core.map((c) => c.slice(p, c.length - s));
  const shortest = Math.min(...varying.map((v) => v.length));
  const { bits: per, alphabet } = bitsPerChar(varying.join(''));
  const bits = Math.round(shortest * per);
  if (p >= 4 && p > s)
    problems.push(
      `all ${ids.length} share the prefix ${JSON.stringify(ids[0]!.slice(0, Math.min(p + 4, 40)).slice(0, p))}`,
    );
  // Counters and timestamps: a number inside the ids that rises by small steps, or reads as the current time.
  const nums = ids.map((x) => [...x.matchAll(/\d+/g)].map((m) => m[0]));
  if (nums.every((n) => n.length === nums[0]!.length && n.length > 0)) {
    for (let k = 0; k < nums[0]!.length; k++) {
      const vals = nums.map((n) => Number(n[k]));
      if (vals.some((v) => !Number.isSafeInteger(v))) continue;
      const differ = new Set(vals).size > 1;
      const sorted = [...vals].sort((a, b) => a - b);
      const steps = sorted.slice(1).map((v, i) => v - sorted[i]!);
      const other = ids.map((x, i) => x.replace(nums[i]![k]!, '#'));
      const onlyThisVaries = new Set(other).size === 1;
      if (differ && onlyThisVaries && steps.every((d) => d > 0 && d <= 1000)) {
        problems.push(
          `they differ only in a counter (${sorted.slice(0, 4).join(', ')}…): the next id is easy to guess`,
        );
        break;
      }
      if (vals.some((v) => Math.abs(v - now) < 86_400_000 || Math.abs(v - now / 1000) < 86_400)) {
        problems.push(`they carry the current time (${vals[0]}): part of the id can be guessed`);
        break;
      }
    }
  }
  if (bits < MIN_BITS)
    problems.push(
      `only about ${bits} bits vary between them (${shortest} character${shortest === 1 ? '' : 's'} of ${alphabet}${p ? ` after a shared ${p}-character prefix` : ''}), fewer than the ${MIN_BITS} of a random UUID or token`,
    );
  return { verdict: problems.length ? 'warn' : 'pass', problems, bits };
}

const sessionHeader = (r: ProbeResult): string | undefined => {
  const v = r.headers['mcp-session-id'];
  return Array.isArray(v) ? v[0] : v;
};

const sessionId: CaseDef = {
  id: 'security/session-id',
  title: 'session ids are unique and unguessable',
  level: 'SHOULD',
  spec: 'basic/transports#session-management',
  requirement: `A server's session ids should be globally unique and cryptographically secure (see also basic/security_best_practices, session hijacking). The case opens ${SESSIONS_OPENED} sessions besides the run's own, ends them, and compares the ids: an id given twice fails; counters, timestamps, growing shared prefixes and fewer than ${MIN_BITS} bits of apparent randomness warn.`,
  requires: { transports: ['streamable-http'], feature: 'sessions' },
  async run(ctx) {
    const t = ctx.http!;
    if (t.sessionId === undefined)
      return { verdict: 'skip', message: 'the server uses no sessions (it set no Mcp-Session-Id)' };
    const params = {
      protocolVersion: ctx.version,
      capabilities: {},
      clientInfo: { name: 'mcp-conform', version: VERSION },
    };
    const opened = await Promise.all(
      Array.from({ length: SESSIONS_OPENED }, () =>
        t.probe({
          method: 'POST',
          body: probeBody(ctx, 'initialize', params),
          withSession: false,
          headers: { 'MCP-Protocol-Version': null, ...methodHeaders(ctx, 'initialize') },
        }),
      ),
    );
    const ids = opened.map(sessionHeader);
    // Each session opened is ended, as a client should (a server that refuses DELETE keeps them until it expires them).
    await Promise.all(
      ids.map((id) =>
        id === undefined ? undefined : t.probe({ method: 'DELETE', sessionId: id }).catch(() => undefined),
      ),
    );
    const got = ids.filter((x): x is string => x !== undefined);
    const exchanges = opened.map((r) => r.exchange.n);
    if (got.length < SESSIONS_OPENED) {
      const bad = opened.find((r) => sessionHeader(r) === undefined)!;
      if (!got.length)
        return {
          verdict: 'skip',
          message: `inconclusive: none of the ${SESSIONS_OPENED} initialize requests the case sent got a session id (${said(bad)})`,
          details: { exchanges },
        };
    }
    const all = [t.sessionId, ...got];
    const j = judgeSessionIds(all);
    const shown = all
      .slice(0, 4)
      .map((x) => JSON.stringify(x.length > 48 ? `${x.slice(0, 48)}…` : x))
      .join(', ');
    const details = { sessions: all.length, apparentBits: j.bits, exchanges };
    const head = `${all.length} session ids (the run's and ${got.length} more: ${shown}${all.length > 4 ? ', …' : ''})`;
    const o: Outcome =
      j.verdict === 'pass'
        ? {
            verdict: 'pass',
            message: `${head}: all distinct, about ${j.bits} bits vary between them, no counter or timestamp`,
            details,
          }
        : {
            verdict: j.verdict,
            message: `${head}: ${j.problems.join('; ')}${j.verdict === 'warn' ? '; session ids should come from a secure random source (a random UUID, 128+ random bits)' : ''}`,
            details,
          };
    return o;
  },
};

export const httpSecurityCases: CaseDef[] = [hostHeader, sessionId];
