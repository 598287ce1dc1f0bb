/** Authorization cases: the protected-resource metadata (RFC 9728). */
import type { CaseDef } from '../../core/suite.js';
import { brief } from '../helpers.js';
import { evidence, resourceMetadata, whenProtected, type MetadataFetch } from './facts.js';
import { notCanonical, sameResource } from './probe.js';
import { AUTH, fetched, needing } from './common.js';

export const resourceMetadataCases: CaseDef[] = [
  {
    id: 'auth/resource-metadata/served',
    title: 'protected-resource metadata is served without a token, as JSON',
    level: 'MUST',
    spec: 'basic/authorization#authorization-server-location',
    requirement:
      'The server serves its protected-resource metadata (RFC 9728) — at the URL its challenge names, or at the path-suffixed or root well-known URL — to anyone, without a token, as a JSON object.',
    requires: { ...AUTH, feature: 'protectedResourceMetadata', needs: 'handshake' },
    run: needing(whenProtected, async (ctx, _u) => {
      const prm = (await ctx.service(resourceMetadata))!;
      const all = [prm.fromChallenge, prm.pathSuffixed, prm.root].filter((f): f is MetadataFetch => !!f);
      if (prm.used)
        return {
          verdict: 'pass',
          message: `served at ${prm.used.url} (${prm.used.how === 'challenge' ? 'the URL the challenge names' : `the ${prm.used.how} well-known URL`})`,
          details: evidence(...all),
        };
      const behind = all.some((f) => f.answer.status === 401);
      return {
        verdict: 'fail',
        message: `no protected-resource metadata${behind ? ' — it is behind the authorization it describes' : ''}: ${all.map(fetched).join('; ')}`,
        details: evidence(...all),
      };
    }),
  },
  {
    id: 'auth/resource-metadata/authorization-servers',
    title: 'the metadata names at least one authorization server',
    level: 'MUST',
    spec: 'basic/authorization#authorization-server-location',
    requirement: 'authorization_servers is a non-empty array of authorization server issuer URLs.',
    requires: { ...AUTH, feature: 'protectedResourceMetadata', needs: 'handshake' },
    run: needing(whenProtected, async (ctx, _u) => {
      const used = (await ctx.service(resourceMetadata))?.used;
      if (!used)
        return { verdict: 'skip', message: 'no protected-resource metadata to read (auth/resource-metadata/served)' };
      const a = used.doc.authorization_servers;
      const bad = Array.isArray(a)
        ? a.filter((x) => {
            try {
              return typeof x !== 'string' || !/^https?:$/.test(new URL(x).protocol);
            } catch {
              return true;
            }
          })
        : [];
      if (!Array.isArray(a) || !a.length)
        return {
          verdict: 'fail',
          message: `authorization_servers is ${a === undefined ? 'missing' : brief(a, 80)}: clients cannot find where to authorize`,
          details: evidence(used),
        };
      if (bad.length)
        return {
          verdict: 'fail',
          message: `authorization_servers holds ${bad.map((b) => brief(b, 80)).join(', ')}, not absolute http(s) URLs`,
          details: evidence(used),
        };
      return { verdict: 'pass', message: `authorization_servers: ${a.join(', ')}`, details: evidence(used) };
    }),
  },
  {
    id: 'auth/resource-metadata/resource',
    title: "the metadata's resource is the MCP URL",
    level: 'MUST',
    spec: 'basic/authorization#authorization-server-location',
    requirement:
      'RFC 9728 §3.3: resource is identical to the URL the client uses (the MCP endpoint) — not the origin alone, not with a slash added; a client must not use metadata whose resource differs.',
    requires: { ...AUTH, feature: 'protectedResourceMetadata', needs: 'handshake' },
    run: needing(whenProtected, async (ctx, u) => {
      const used = (await ctx.service(resourceMetadata))?.used;
      if (!used)
        return { verdict: 'skip', message: 'no protected-resource metadata to read (auth/resource-metadata/served)' };
      const r = used.doc.resource;
      if (typeof r !== 'string')
        return {
          verdict: 'fail',
          message: `resource is ${r === undefined ? 'missing' : brief(r, 80)} in ${used.url}`,
          details: evidence(used),
        };
      if (sameResource(r, u.url)) return { verdict: 'pass', message: `resource is ${r}`, details: evidence(used) };
      const hint =
        r === new URL(u.url).origin || r === `${new URL(u.url).origin}/`
          ? ' (the origin alone)'
          : r.replace(/\/$/, '') === u.url.replace(/\/$/, '')
            ? ' (differs by a trailing slash)'
            : '';
      return {
        verdict: 'fail',
        message: `resource is ${r}${hint}, not the MCP URL ${u.url}: RFC 9728 §3.3 tells clients not to use this metadata`,
        details: evidence(used),
      };
    }),
  },
  {
    id: 'auth/resource-metadata/canonical',
    title: 'the resource identifier is in canonical form',
    level: 'SHOULD',
    spec: 'basic/authorization#canonical-server-uri',
    requirement:
      'The resource identifier clients send as RFC 8707 `resource` should be canonical: lower-case scheme and host, no fragment, no trailing slash unless it matters.',
    requires: { ...AUTH, feature: 'protectedResourceMetadata', needs: 'handshake' },
    run: needing(whenProtected, async (ctx, _u) => {
      const used = (await ctx.service(resourceMetadata))?.used;
      const r = used?.doc.resource;
      if (typeof r !== 'string')
        return { verdict: 'skip', message: 'no resource to look at (auth/resource-metadata/resource)' };
      const bad = notCanonical(r);
      if (bad.length) return { verdict: 'warn', message: `resource ${r}: ${bad.join('; ')}`, details: evidence(used) };
      return { verdict: 'pass', message: `resource ${r} is canonical`, details: evidence(used) };
    }),
  },
  {
    id: 'auth/resource-metadata/well-known',
    title: 'the metadata is at the well-known URL RFC 9728 builds from the MCP URL',
    level: 'SHOULD',
    spec: 'basic/authorization#protected-resource-metadata-discovery-requirements',
    requirement:
      'Clients without a resource_metadata URL build one: the path-suffixed well-known URL (RFC 9728 §3.1: the suffix between host and path), then the root one. The metadata should be at the path-suffixed URL; served only at the root (for an endpoint with a path) it is found only by clients that fall back. Both absent with no URL in the challenge: fail.',
    requires: { ...AUTH, feature: 'protectedResourceMetadata', needs: 'handshake' },
    run: needing(whenProtected, async (ctx, _u) => {
      const prm = (await ctx.service(resourceMetadata))!;
      const details = evidence(prm.pathSuffixed, prm.root);
      const ps = prm.pathSuffixed;
      const root = prm.root!;
      if (ps?.doc && root.doc) return { verdict: 'pass', message: `served at both ${ps.url} and ${root.url}`, details };
      if (ps?.doc)
        return {
          verdict: 'pass',
          message: `served at ${ps.url}, where RFC 9728 §3.1 puts it (the root URL: ${root.problem})`,
          details,
        };
      if (!ps && root.doc)
        return { verdict: 'pass', message: `served at ${root.url} (the MCP URL has no path)`, details };
      if (root.doc)
        return {
          verdict: 'warn',
          message: `served only at the root (${root.url}); the path-suffixed URL ${ps!.url} answered ${ps!.problem}: clients that follow RFC 9728 §3.1 without falling back to the root will not find it`,
          details,
        };
      if (prm.fromChallenge?.doc)
        return {
          verdict: 'warn',
          message: `served only at the URL the challenge names (${prm.fromChallenge.url}); no well-known URL serves it (${[
            ps,
            root,
          ]
            .filter((f) => f)
            .map((f) => fetched(f!))
            .join('; ')})`,
          details: evidence(prm.fromChallenge, ps, root),
        };
      return {
        verdict: 'fail',
        message: `no well-known URL serves the metadata and the challenge names none that does: ${[ps, root]
          .filter((f) => f)
          .map((f) => fetched(f!))
          .join('; ')}`,
        details,
      };
    }),
  },
];
