/**
 * security/ssrf: a read-only tool that takes a URL is called with the URL of a loopback HTTP listener the harness runs
 * for this case only (core/canary-listener.ts: 127.0.0.1, a port the system picks). A request arriving there means
 * the server fetches loopback addresses it is handed — server-side request forgery, the class of the reference fetch
 * server. The harness never hands a server any other address: no private range, no link-local, no cloud metadata.
 */
import { startCanaryListener, type CanaryHit } from '../../core/canary-listener.js';
import { callPlan, callTool, callToolOption } from '../../core/call-policy.js';
import { isLoopbackUrl, localServer, targetInput } from '../../core/served-folder.js';
import type { CaseContext, CaseDef, Outcome } from '../../core/suite.js';
import { tools } from '../../core/tools.js';
import { describeError } from '../helpers.js';
import { answerHolds, probeArguments, probeRefusal, urlParam, type ParamOf } from './params.js';

/** Most tools called, and how long after a tool's answer a late request (a fetch in the background) still counts. */
export const MAX_URL_TOOLS = 6;
export const LATE_REQUEST_MS = 200;

/** Why the server's loopback is not the harness's, or undefined when it is (a server the run started, or a loopback URL). */
function notOnThisMachine(ctx: CaseContext): string | undefined {
  const local = localServer(ctx.input(targetInput));
  if (typeof local !== 'string') return undefined;
  const t = ctx.input(targetInput);
  if (t && t.transport !== 'stdio' && isLoopbackUrl(t.url)) return undefined;
  return `${local}; a loopback address would be its machine's, not the harness's listener`;
}

const hitText = (h: CanaryHit) =>
  `${h.method} ${h.path}${h.userAgent ? ` (user-agent ${JSON.stringify(h.userAgent)})` : ''}`;

async function ssrf(ctx: CaseContext): Promise<Outcome> {
  const l = await ctx.service(tools);
  const withUrl = l.tools.map(urlParam).filter((p): p is ParamOf => !!p);
  if (!withUrl.length)
    return {
      verdict: 'skip',
      notApplicable: true,
      message: 'no tool declares a parameter named or described as a URL: nothing to probe',
      messageIds: l.messageIds,
    };
  const far = notOnThisMachine(ctx);
  if (far) return { verdict: 'skip', message: `not probed: ${far}` };
  const plan = await ctx.service(callPlan);
  const allow = ctx.option(callToolOption);
  const callable = withUrl.filter((p) => !probeRefusal(p.tool, plan, allow));
  if (!callable.length) {
    const refused = withUrl
      .slice(0, 4)
      .map((p) => `${p.tool.name} (${probeRefusal(p.tool, plan, allow)})`)
      .join('; ');
    return {
      verdict: 'skip',
      message: `not run: ${withUrl.length} tool(s) take a URL, and the call policy lets the probe call none of them: ${refused}`,
    };
  }
  const refused = withUrl.filter((p) => probeRefusal(p.tool, plan, allow)).map((p) => p.tool.name);
  const listener = await startCanaryListener();
  const mids: number[] = [];
  const fetched: { tool: string; url: string; hits: CanaryHit[]; echoed: boolean; mids: number[] }[] = [];
  const answers: string[] = [];
  try {
    perTool: for (const p of callable.slice(0, MAX_URL_TOOLS)) {
      // 127.0.0.1 first; when nothing reached it, [::1] (a server may refuse "127.0.0.1" by its spelling only).
      const families: (4 | 6)[] = listener.port6 !== undefined ? [4, 6] : [4];
      let said = '';
      for (const family of families) {
        const { url, token } = listener.url(p.tool.name, family);
        const before = listener.hits.length;
        const rec = await callTool(ctx, p.tool.name, probeArguments(p, url), 'ssrf');
        if (rec.reply) mids.push(rec.reply.request.seq, rec.reply.response.seq);
        // A fetch the tool left running in the background still counts, for a short while.
        await listener.waitFor(token, listener.hits.length > before ? 0 : LATE_REQUEST_MS);
        const hits = listener.hits.slice(before);
        const answer = rec.reply?.result ?? rec.reply?.error;
        if (hits.length) {
          fetched.push({
            tool: p.tool.name,
            url,
            hits,
            echoed: answerHolds(answer, token),
            mids: rec.reply ? [rec.reply.request.seq, rec.reply.response.seq] : [],
          });
          continue perTool;
        }
        said = rec.failure
          ? `no answer (${rec.failure.message})`
          : rec.reply?.error
            ? `error ${describeError(rec.reply.error)}`
            : (rec.reply?.result as { isError?: unknown })?.isError === true
              ? 'isError: true'
              : 'a result';
        if (rec.failure && !rec.reply) {
          answers.push(`${p.tool.name}: ${said}`);
          break perTool;
        }
      }
      answers.push(`${p.tool.name}: ${said}${families.length > 1 ? ' (127.0.0.1 and [::1])' : ''}`);
    }
  } finally {
    await listener.close();
  }
  const where = `a loopback listener the harness ran on ${listener.host}:${listener.port}${listener.port6 !== undefined ? ` and [::1]:${listener.port6}` : ''} for this case only`;
  if (fetched.length) {
    const f = fetched[0]!;
    return {
      verdict: 'warn',
      level: 'SHOULD',
      messageIds: fetched.flatMap((x) => x.mids),
      message: `tool ${f.tool} fetched a loopback address it was handed: ${f.hits.length} request(s) reached ${where} (${hitText(f.hits[0]!)})${f.echoed ? ", and its answer carries the listener's text" : ''}${
        fetched.length > 1
          ? `; also ${fetched
              .slice(1)
              .map((x) => x.tool)
              .join(', ')}`
          : ''
      }. A server that fetches what it is told reaches internal services (server-side request forgery): one meant for the public web should refuse loopback, private and link-local addresses`,
      details: {
        listener: `${listener.host}:${listener.port}`,
        fetched: fetched.map((x) => ({
          tool: x.tool,
          url: x.url,
          requests: x.hits.map(hitText),
          answerCarriesListenerText: x.echoed,
        })),
      },
    };
  }
  return {
    verdict: 'pass',
    messageIds: mids,
    message: `${answers.length} tool(s) called with the URL of ${where}; no request reached it (${answers.join('; ')})${refused.length ? `; not called under the call policy: ${refused.join(', ')}` : ''}`,
  };
}

export const ssrfCases: CaseDef[] = [
  {
    id: 'security/ssrf',
    title: 'tools that take a URL do not fetch loopback addresses',
    level: 'SHOULD',
    spec: 'server/tools#security-considerations',
    requirement:
      'A tool that fetches a URL it is given should refuse loopback, private and link-local addresses (server-side request forgery). Probed with a listener the harness runs on 127.0.0.1 (and [::1]) for this case only; only tools the call policy allows (readOnlyHint: true, or named with --call-tool); never any other address.',
    run: ssrf,
  },
];
