/** Authorization cases: the 401's Bearer challenge. */
import type { CaseDef } from '../../core/suite.js';
import { brief } from '../helpers.js';
import { evidence, resourceMetadata, whenProtected } from './facts.js';
import { AUTH, needing, said } from './common.js';

export const challengeCases: CaseDef[] = [
  {
    id: 'auth/challenge/bearer',
    title: 'the 401 carries a parseable Bearer challenge',
    level: 'MUST',
    spec: 'basic/authorization#authorization-server-location',
    requirement:
      'A 401 carries WWW-Authenticate (RFC 9110 §11.6.1) with a Bearer challenge (RFC 6750 §3) a client can parse: clients read where to authorize from it.',
    requires: { ...AUTH, from: '2025-03-26', needs: 'handshake' },
    run: needing(whenProtected, async (_ctx, u) => {
      const details = evidence(u.answer);
      if (u.www === undefined)
        return {
          verdict: 'fail',
          message: 'the 401 has no WWW-Authenticate header: clients cannot tell how to authorize',
          details,
        };
      if (!u.bearer)
        return {
          verdict: 'fail',
          message: `WWW-Authenticate: ${brief(u.www, 200)} — no parseable Bearer challenge`,
          details,
        };
      return {
        verdict: 'pass',
        message: `Bearer challenge with ${Object.keys(u.bearer.params).join(', ') || 'no parameters'}`,
        details,
      };
    }),
  },
  {
    id: 'auth/challenge/resource-metadata',
    title: 'the challenge names the protected-resource metadata by an absolute URL that serves it',
    level: 'MUST',
    spec: 'basic/authorization#protected-resource-metadata-discovery-requirements',
    requirement:
      'The 401 challenge carries resource_metadata, an absolute URL of the protected-resource metadata (RFC 9728 §5.1) — a MUST in 2025-06-18; from 2025-11-25 the well-known URL may serve instead (warn: clients that only follow the challenge are lost), and a URL given must work.',
    requires: { ...AUTH, from: '2025-06-18', needs: 'handshake' },
    run: needing(whenProtected, async (ctx, u) => {
      const prm = (await ctx.service(resourceMetadata))!;
      const wellKnown = [prm.pathSuffixed, prm.root].find((f) => f?.doc);
      if (prm.named === undefined) {
        if (!ctx.features.resourceMetadataEitherWay)
          return {
            verdict: 'fail',
            message: `the challenge has no resource_metadata (${said(u.answer)})`,
            details: evidence(u.answer),
          };
        if (wellKnown)
          return {
            verdict: 'warn',
            level: 'SHOULD',
            message: `the challenge has no resource_metadata; the metadata is at the well-known URL ${wellKnown.url}, which this version allows, but clients that only follow the challenge will not find it`,
            details: evidence(u.answer, wellKnown),
          };
        return {
          verdict: 'fail',
          message:
            'the challenge has no resource_metadata and no well-known URL serves the metadata: a client cannot find the authorization server',
          details: evidence(u.answer, prm.pathSuffixed, prm.root),
        };
      }
      let abs: URL | undefined;
      try {
        abs = new URL(prm.named);
      } catch {
        /* below */
      }
      if (!abs)
        return {
          verdict: 'fail',
          message: `resource_metadata="${brief(prm.named, 120)}" is not an absolute URL`,
          details: evidence(u.answer),
        };
      const f = prm.fromChallenge;
      if (f?.doc)
        return {
          verdict: 'pass',
          message: `resource_metadata=${prm.named} serves the metadata`,
          details: evidence(u.answer, f),
        };
      const appended =
        /.\/\.well-known\/oauth-protected-resource/.test(abs.pathname) && !abs.pathname.startsWith('/.well-known/');
      return {
        verdict: 'fail',
        message: `resource_metadata=${prm.named} does not serve the metadata (${f?.problem ?? 'not fetched'})${appended ? '; the well-known suffix was appended after the path, where RFC 9728 §3.1 puts it between the host and the path' : ''}`,
        details: evidence(u.answer, f),
      };
    }),
  },
  {
    id: 'auth/challenge/scope',
    title: 'the challenge names the scope needed',
    level: 'SHOULD',
    spec: 'basic/authorization#scope-selection-strategy',
    requirement:
      'The 401 challenge should carry scope, the scopes a client should ask for (RFC 6750 §3); without it clients fall back to scopes_supported or to none.',
    requires: { ...AUTH, feature: 'challengeScope', needs: 'handshake' },
    run: needing(whenProtected, async (_ctx, u) => {
      if (!u.bearer) return { verdict: 'skip', message: 'no Bearer challenge to read (auth/challenge/bearer)' };
      const s = u.bearer.params.scope;
      if (s === undefined)
        return {
          verdict: 'warn',
          message: 'the challenge has no scope: clients must guess which scopes to ask for',
          details: evidence(u.answer),
        };
      return { verdict: 'pass', message: `scope="${s}"`, details: evidence(u.answer) };
    }),
  },
  {
    id: 'auth/challenge/no-offline-access',
    title: 'offline_access is not advertised as a resource scope',
    level: 'SHOULD',
    spec: 'basic/authorization#refresh-tokens',
    requirement:
      "A protected resource should not name offline_access in its challenge scope or its metadata's scopes_supported: refresh tokens are the client's and the authorization server's business, not a resource requirement.",
    requires: { ...AUTH, feature: 'offlineAccessAdvice', needs: 'handshake' },
    run: needing(whenProtected, async (ctx, u) => {
      const prm = await ctx.service(resourceMetadata);
      const where: string[] = [];
      if ((u.bearer?.params.scope ?? '').split(/\s+/).includes('offline_access')) where.push("the challenge's scope");
      const sup = prm?.used?.doc.scopes_supported;
      if (Array.isArray(sup) && sup.includes('offline_access')) where.push(`scopes_supported of ${prm!.used!.url}`);
      if (where.length)
        return {
          verdict: 'warn',
          message: `offline_access is advertised in ${where.join(' and ')}`,
          details: evidence(u.answer, prm?.used),
        };
      return {
        verdict: 'pass',
        message: 'offline_access is advertised neither in the challenge nor in the metadata',
        details: evidence(u.answer, prm?.used),
      };
    }),
  },
  {
    id: 'auth/challenge/error-without-credentials',
    title: 'a challenge to a request without credentials carries no error code',
    level: 'SHOULD',
    spec: 'basic/authorization#error-handling',
    requirement:
      'RFC 6750 §3.1: when a request carried no credentials, the challenge should not carry an error code. Reported as info: the SDKs add one, and clients are not hurt by it.',
    requires: { ...AUTH, from: '2025-03-26', needs: 'handshake' },
    run: needing(whenProtected, async (_ctx, u) => {
      if (!u.bearer) return { verdict: 'skip', message: 'no Bearer challenge to read (auth/challenge/bearer)' };
      const e = u.bearer.params.error;
      if (e !== undefined)
        return {
          verdict: 'info',
          message: `the challenge to a request without credentials has error="${e}" (RFC 6750 §3.1 asks for none; harmless to clients)`,
          details: evidence(u.answer),
        };
      return { verdict: 'pass', message: 'no error code in the challenge', details: evidence(u.answer) };
    }),
  },
];
