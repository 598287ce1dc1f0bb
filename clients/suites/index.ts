/** The client suites (`mcp-conform client`), in the order they are graded. Suite and case ids are part of the report contract. */
import type { ClientSuite } from './helpers.js';
import { clientAuth } from './auth.js';
import { clientHttp } from './http.js';
import { clientLifecycle } from './lifecycle.js';
import { client2026 } from './modern.js';
import { clientProcess } from './process.js';
import { clientRequests } from './requests.js';
import { clientSchemas } from './schemas.js';

export const CLIENT_SUITES: ClientSuite[] = [
  clientProcess,
  clientLifecycle,
  clientRequests,
  clientHttp,
  client2026,
  clientSchemas,
  clientAuth,
];
