/** Every suite, in the order a run takes them. Suite and case ids are part of the report contract. */
import type { Suite } from '../core/suite.js';
import { calling } from './calling.js';
import { expectSuite } from './expect.js';
import { compat } from './compat.js';
import { invalidParams } from './invalid-params.js';
import { isError } from './is-error.js';
import { lifecycle } from './lifecycle.js';
import { listing } from './listing.js';
import { quality } from './quality.js';
import { robustness } from './robustness.js';
import { schema } from './schema.js';
import { stdio } from './stdio.js';
import { httpSuite } from './http.js';
import { sseSuite } from './sse.js';
import { surface } from './surface.js';
import { unknownTool } from './unknown-tool.js';
import { resources } from './resources.js';
import { subscriptions } from './subscriptions.js';
import { promptsSuite } from './prompts.js';
import { completion } from './completion.js';
import { logging } from './logging.js';
import { capabilities } from './capabilities.js';
import { serverRequestsSuite } from './server-requests.js';
import { progress } from './progress.js';
import { tasks } from './tasks.js';
import { surface2026 } from './surface-2026.js';
import { manifestSuite } from './manifest.js';
import { registrySuite } from './registry.js';
import { authSuite } from './auth.js';
import { protocol2026 } from './protocol-2026.js';
import { security } from './security.js';

export const ALL_SUITES: Suite[] = [
  lifecycle,
  listing,
  expectSuite,
  calling,
  unknownTool,
  invalidParams,
  resources,
  subscriptions,
  promptsSuite,
  completion,
  logging,
  capabilities,
  serverRequestsSuite,
  progress,
  tasks,
  surface2026,
  protocol2026,
  robustness,
  isError,
  compat,
  quality,
  httpSuite,
  sseSuite,
  authSuite,
  stdio,
  schema,
  surface,
  registrySuite,
  manifestSuite,
  security,
];

export function suiteById(id: string): Suite | undefined {
  return ALL_SUITES.find((s) => s.id === id);
}
