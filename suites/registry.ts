/**
 * An MCP registry server.json (run --server-json FILE): the file fits the registry's published server.json schema.
 * The server itself was started (or reached) from the entry the run chose; the other suites test it. Only in runs
 * given a server.json. Format: the published schema (SERVER_JSON_SCHEMA_URL).
 */
import { publishedInput } from '../core/published/types.js';
import type { Suite } from '../core/suite.js';
import { SERVER_JSON_SCHEMA_URL } from '../core/published/server-json-schema.js';
import { publishedSchemaOutcome } from './helpers.js';

export const registrySuite: Suite = {
  id: 'registry',
  title: 'MCP registry server.json',
  description: "The server.json the server was started from (--server-json) against the registry's published schema",
  selectedWhen: (sel) => !!sel.input(publishedInput)?.serverJson,
  cases: [
    {
      id: 'registry/server-json',
      ofFile: true,
      title: "server.json fits the MCP registry's published server.json schema",
      level: 'MUST',
      spec: SERVER_JSON_SCHEMA_URL,
      requirement:
        'server.json is valid against the server.json schema the MCP registry publishes (name as namespace/name, description, version, packages with registryType, identifier and transport, remotes with a transport type and URL, arguments and inputs as the schema describes them).',
      // The file, not the server: judged even when the server never answered (it is read after the run).
      requires: { needs: 'log' },
      run: async (ctx) => {
        const s = ctx.input(publishedInput)?.serverJson;
        const o = publishedSchemaOutcome(s, '--server-json');
        return s && o.verdict !== 'skip' ? { ...o, message: `${o.message}; tested ${s.entry}: ${s.how}` } : o;
      },
    },
  ],
};
