/**
 * Environment errors: an answer that says the server's environment failed it (a backend it cannot reach, a program or
 * credential it lacks), not the protocol. One rule for every suite: a case whose fail or warn rests on such an answer
 * is inconclusive (skip), with what it would have said, since the same server elsewhere may do right. The runner
 * applies it (core/run-cases.ts) to every result of every case that talks to the server.
 */
import type { LoggedMessage } from './log.js';
import type { Outcome } from './suite.js';

/**
 * Words of an error that say the server's environment failed it: a network error code, "fetch failed", an upstream
 * 5xx, "not installed", a missing API key…
 */
const ENVIRONMENT_TROUBLE = new RegExp(
  [
    String.raw`\b(?:fetch failed|ECONNREFUSED|ECONNRESET|ENOTFOUND|EAI_AGAIN|ETIMEDOUT|EHOSTUNREACH|ENETUNREACH|ENOENT|EACCES|socket hang up|getaddrinfo|connection refused|network (?:error|is unreachable)|not installed|is not found at|api[_ -]?key|credentials?|unauthori[sz]ed|access token|authentication (?:failed|required))\b`,
    // An upstream that failed, quoted: "HTTP 502", "status code 503", "Bad Gateway", "Service Unavailable".
    String.raw`\b(?:HTTP(?:\/\d(?:\.\d)?)?|status(?: code)?)[ :]*5\d\d\b`,
    String.raw`\b(?:bad gateway|service unavailable|gateway time-?out)\b`,
  ].join('|'),
  'i',
);

/**
 * The words of an error answer that blame the server's environment, or undefined: an internal error (-32603) whose
 * message or data reads like a backend it could not reach, or a program or credential it lacks.
 */
export function environmentTrouble(
  error: { code: number; message: string; data?: unknown } | undefined,
): string | undefined {
  if (!error || error.code !== -32603) return undefined;
  let data = '';
  if (error.data !== undefined) {
    try {
      data = (JSON.stringify(error.data) ?? '').slice(0, 400);
    } catch {
      data = String(error.data).slice(0, 400);
    }
  }
  return ENVIRONMENT_TROUBLE.exec(`${error.message} ${data}`)?.[0];
}

/** The error of a logged error answer, if it is one. */
function errorOf(m: LoggedMessage): { code: number; message: string; data?: unknown } | undefined {
  if (m.direction !== 'from-server' || m.kind !== 'error' || m.json === null || typeof m.json !== 'object')
    return undefined;
  const e = (m.json as Record<string, unknown>).error;
  if (e === null || typeof e !== 'object') return undefined;
  const { code, message, data } = e as Record<string, unknown>;
  return typeof code === 'number' ? { code, message: typeof message === 'string' ? message : '', data } : undefined;
}

/**
 * The engine's rule: a fail or warn whose evidence (its messageIds) holds an error answer that blames the server's
 * environment becomes inconclusive (skip), saying which answer and what the verdict would have been. Other verdicts,
 * and outcomes without such an answer, are returned as they are.
 */
export function environmentRule<O extends Outcome>(o: O, log: readonly LoggedMessage[]): O {
  if (o.verdict !== 'fail' && o.verdict !== 'warn') return o;
  const found: { what: string; e: { code: number; message: string } }[] = [];
  for (const seq of o.messageIds ?? []) {
    const m = log[seq];
    const e = m && errorOf(m);
    if (e)
      found.push({
        what: `${m!.method ?? 'a request'}${m!.id === undefined || m!.id === null ? '' : ` (id ${JSON.stringify(m!.id)})`}`,
        e,
      });
  }
  for (const e of o.errors ?? []) found.push({ what: 'the request it sent', e });
  for (const { what, e } of found) {
    const words = environmentTrouble(e);
    if (!words) continue;
    const text = e.message.replace(/\s+/g, ' ').trim();
    return {
      ...o,
      verdict: 'skip',
      level: undefined,
      message: `inconclusive: ${what} was answered with error ${e.code} "${text.length > 200 ? `${text.slice(0, 200)}…` : text}", an internal error that speaks of the server's environment (${JSON.stringify(words)}), not of the protocol; fix what makes it fail, or run where it works (the case would have said ${o.verdict}: ${o.message})`,
    };
  }
  return o;
}
