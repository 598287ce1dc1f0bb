/** Authorization cases: CORS for browser clients. */
import type { CaseDef } from '../../core/suite.js';
import { evidence, mcpProbe, resourceMetadata, whenProtected } from './facts.js';
import { send } from './probe.js';
import { AUTH, needing, said } from './common.js';

export const corsCases: CaseDef[] = [
  {
    id: 'auth/cors/metadata',
    title: 'the protected-resource metadata allows cross-origin reads',
    level: 'MAY',
    spec: 'basic/authorization#authorization-server-location',
    requirement:
      'No spec rule: browser-based clients can read the metadata only when it carries Access-Control-Allow-Origin (info when it does not).',
    requires: { ...AUTH, feature: 'protectedResourceMetadata', needs: 'handshake' },
    run: needing(whenProtected, async (ctx, _u) => {
      const used = (await ctx.service(resourceMetadata))?.used;
      if (!used)
        return { verdict: 'skip', message: 'no protected-resource metadata to read (auth/resource-metadata/served)' };
      const a = await send(
        'protected-resource metadata from a browser origin',
        used.url,
        'GET',
        { Accept: 'application/json', Origin: 'https://client.mcp-conform.example' },
        undefined,
        ctx.timeoutMs,
      );
      const allow = a.headers['access-control-allow-origin'];
      if (allow) return { verdict: 'pass', message: `Access-Control-Allow-Origin: ${allow}`, details: evidence(a) };
      return {
        verdict: 'info',
        message: `no Access-Control-Allow-Origin on ${used.url} (${a.probe.error ?? `HTTP ${a.status}`}): browser-based clients cannot read it`,
        details: evidence(a),
      };
    }),
  },
  {
    id: 'auth/cors/expose-www-authenticate',
    title: 'the 401 exposes WWW-Authenticate to browsers',
    level: 'MAY',
    spec: 'basic/authorization#authorization-server-location',
    requirement:
      'No spec rule: a browser-based client sees the challenge only when Access-Control-Expose-Headers lists WWW-Authenticate (info when it does not).',
    requires: { ...AUTH, from: '2025-03-26', needs: 'handshake' },
    run: needing(whenProtected, async (ctx, _u) => {
      const a = await mcpProbe(ctx, 'the MCP request without credentials from a browser origin', {
        Origin: 'https://client.mcp-conform.example',
      });
      const expose = (a.headers['access-control-expose-headers'] ?? '').toLowerCase().split(/\s*,\s*/);
      if (a.status === 401 && (expose.includes('www-authenticate') || expose.includes('*')))
        return {
          verdict: 'pass',
          message: `Access-Control-Expose-Headers: ${a.headers['access-control-expose-headers']}`,
          details: evidence(a),
        };
      if (a.status !== 401)
        return {
          verdict: 'info',
          message: `from a browser origin the request without credentials got ${said(a)}, not 401: browser-based clients from other origins are refused before authorization`,
          details: evidence(a),
        };
      return {
        verdict: 'info',
        message: `the 401 does not list WWW-Authenticate in Access-Control-Expose-Headers (${a.headers['access-control-expose-headers'] ?? 'absent'}): browser-based clients cannot read the challenge`,
        details: evidence(a),
      };
    }),
  },
];
