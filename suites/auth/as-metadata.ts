/** Authorization cases: the authorization server's metadata (RFC 8414, OpenID discovery). */
import type { CaseDef } from '../../core/suite.js';
import { brief } from '../helpers.js';
import { authorizationServerMetadata, evidence, whenProtected } from './facts.js';
import { AUTH, fetched, needing } from './common.js';

export const asMetadataCases: CaseDef[] = [
  {
    id: 'auth/as-metadata/found',
    title: "the authorization server's metadata is found where the spec tells clients to look",
    level: 'MUST',
    spec: 'basic/authorization#authorization-server-metadata-discovery',
    requirement:
      "The authorization server named in the metadata serves RFC 8414 metadata or OpenID discovery at one of the URLs clients try, in the spec's order (path insertion first). 2025-03-26: at the MCP origin's /.well-known/oauth-authorization-server (SHOULD; without it clients use /authorize, /token, /register).",
    requires: { ...AUTH, feature: 'authorization', needs: 'handshake' },
    run: needing(whenProtected, async (ctx, _u) => {
      const as = await ctx.service(authorizationServerMetadata);
      if (!as)
        return {
          verdict: 'skip',
          message: 'no authorization server is named (auth/resource-metadata/authorization-servers)',
        };
      const details = evidence(...as.tried);
      if (as.found)
        return {
          verdict: 'pass',
          message: `${as.issuer} (from ${as.how}): metadata at ${as.found.url}${as.tried.length > 1 ? ` (after ${as.tried.length - 1} URL${as.tried.length > 2 ? 's' : ''} that did not serve it)` : ''}`,
          details,
        };
      if (ctx.features.originAuthorizationMetadata)
        return {
          verdict: 'warn',
          level: 'SHOULD',
          message: `no metadata at ${as.tried.map(fetched).join('; ')}: clients fall back to /authorize, /token and /register on the origin`,
          details,
        };
      return {
        verdict: 'fail',
        message: `the authorization server ${as.issuer} serves no metadata where clients look: ${as.tried.map(fetched).join('; ') || 'its URL is not usable'}`,
        details,
      };
    }),
  },
  {
    id: 'auth/as-metadata/issuer',
    title: "the authorization server's issuer is the one named",
    level: 'MUST',
    spec: 'basic/authorization#authorization-server-metadata-discovery',
    requirement:
      "RFC 8414 §3.3: the metadata's issuer is identical to the issuer the client built the metadata URL from; clients must not use metadata that says otherwise.",
    requires: { ...AUTH, feature: 'authorization', needs: 'handshake' },
    run: needing(whenProtected, async (ctx, _u) => {
      const as = await ctx.service(authorizationServerMetadata);
      if (!as?.found)
        return { verdict: 'skip', message: 'no authorization-server metadata to read (auth/as-metadata/found)' };
      const iss = as.found.doc.issuer;
      const same = iss === as.issuer || (ctx.features.originAuthorizationMetadata && iss === `${as.issuer}/`);
      if (same) return { verdict: 'pass', message: `issuer ${String(iss)}`, details: evidence(as.found) };
      return {
        verdict: 'fail',
        message: `issuer is ${iss === undefined ? 'missing' : brief(iss, 100)}, not ${as.issuer} (the server named it): clients must not use this metadata`,
        details: evidence(as.found),
      };
    }),
  },
  {
    id: 'auth/as-metadata/s256',
    title: 'the authorization server lists S256 among its PKCE methods',
    level: 'MUST',
    spec: 'basic/authorization#authorization-code-protection',
    requirement:
      'code_challenge_methods_supported includes S256. From 2025-11-25 clients must refuse an authorization server that does not list it (fail); before, PKCE with S256 is still required of clients (warn).',
    requires: { ...AUTH, feature: 'authorization', needs: 'handshake' },
    run: needing(whenProtected, async (ctx, _u) => {
      const as = await ctx.service(authorizationServerMetadata);
      if (!as?.found)
        return { verdict: 'skip', message: 'no authorization-server metadata to read (auth/as-metadata/found)' };
      const m = as.found.doc.code_challenge_methods_supported;
      if (Array.isArray(m) && m.includes('S256'))
        return {
          verdict: 'pass',
          message: `code_challenge_methods_supported: ${m.join(', ')}`,
          details: evidence(as.found),
        };
      const said = `code_challenge_methods_supported is ${m === undefined ? 'missing' : brief(m, 80)}`;
      if (ctx.features.s256Required)
        return {
          verdict: 'fail',
          message: `${said}: compliant clients refuse this authorization server`,
          details: evidence(as.found),
        };
      return {
        verdict: 'warn',
        level: 'SHOULD',
        message: `${said}: clients cannot see that PKCE with S256 is supported`,
        details: evidence(as.found),
      };
    }),
  },
  {
    id: 'auth/as-metadata/registration',
    title: 'the authorization server offers clients a way to register',
    level: 'MAY',
    spec: 'basic/authorization#client-registration-approaches',
    requirement:
      'A registration_endpoint (dynamic client registration, RFC 7591) or Client ID Metadata Documents (client_id_metadata_document_supported) let a client it has never seen get in; without either only pre-registered clients can (info).',
    requires: { ...AUTH, feature: 'authorization', needs: 'handshake' },
    run: needing(whenProtected, async (ctx, _u) => {
      const as = await ctx.service(authorizationServerMetadata);
      if (!as?.found)
        return { verdict: 'skip', message: 'no authorization-server metadata to read (auth/as-metadata/found)' };
      const d = as.found.doc;
      const ways = [
        ...(typeof d.registration_endpoint === 'string' ? [`dynamic registration at ${d.registration_endpoint}`] : []),
        ...(d.client_id_metadata_document_supported === true ? ['Client ID Metadata Documents'] : []),
      ];
      if (ways.length) return { verdict: 'pass', message: ways.join('; '), details: evidence(as.found) };
      return {
        verdict: 'info',
        message:
          'neither a registration_endpoint nor client_id_metadata_document_supported: only clients registered beforehand can get in',
        details: evidence(as.found),
      };
    }),
  },
  {
    id: 'auth/as-metadata/iss-parameter',
    title: 'the authorization server advertises iss in its authorization responses',
    level: 'SHOULD',
    spec: 'basic/authorization#authorization-response-validation',
    requirement:
      'RFC 9207: the authorization server should put iss in its authorization responses and say so with authorization_response_iss_parameter_supported: true (clients then check it against mix-up attacks).',
    requires: { ...AUTH, feature: 'offlineAccessAdvice', needs: 'handshake' },
    run: needing(whenProtected, async (ctx, _u) => {
      const as = await ctx.service(authorizationServerMetadata);
      if (!as?.found)
        return { verdict: 'skip', message: 'no authorization-server metadata to read (auth/as-metadata/found)' };
      const v = as.found.doc.authorization_response_iss_parameter_supported;
      if (v === true)
        return {
          verdict: 'pass',
          message: 'authorization_response_iss_parameter_supported: true',
          details: evidence(as.found),
        };
      return {
        verdict: 'warn',
        message: `authorization_response_iss_parameter_supported is ${v === undefined ? 'missing' : brief(v, 40)}: clients cannot rely on iss to detect mix-ups`,
        details: evidence(as.found),
      };
    }),
  },
];
