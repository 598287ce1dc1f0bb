/** The client suites (`mcp-conform client`), in the order they are graded. Suite and case ids are part of the report contract. */
import type { ClientSuite } from './client-helpers.js';
import { clientHttp } from './client-http.js';
import { clientLifecycle } from './client-lifecycle.js';
import { clientRequests } from './client-requests.js';

export const CLIENT_SUITES: ClientSuite[] = [clientLifecycle, clientRequests, clientHttp];
