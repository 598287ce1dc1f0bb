/**
 * Security: the vulnerabilities MCP servers have shipped, probed offline, deterministically and under the run's call
 * policy (docs/security.md). Each topic is a file in suites/security/ with its cases; this file only puts them
 * together, in the order a run takes them.
 *
 * - poisoning.ts: security/poisoning and security/poisoning/<tool> (tool descriptions that speak to the model)
 * - rug-pull.ts: security/rug-pull (a tool list that changes over time or by client name)
 * - http-checks.ts: security/host-header (DNS rebinding), security/session-id (guessable or reused session ids)
 * - escape.ts: security/resource-escape, security/path-escape (files outside the served folder, with canary files)
 * - ssrf.ts: security/ssrf (a tool that fetches a loopback address: a listener the harness runs on 127.0.0.1)
 * - isolation.ts: security/session-isolation (one client's answer reaching another, on core/concurrency/)
 */
import type { OptionDef } from '../core/options.js';
import type { CaseDef, Suite } from '../core/suite.js';
import { escapeCases } from './security/escape.js';
import { httpSecurityCases } from './security/http-checks.js';
import { poisoningCases } from './security/poisoning.js';
import { rugPull } from './security/rug-pull.js';
import { ssrfCases } from './security/ssrf.js';
import { isolationCases } from './security/isolation.js';

/** --skip-security (config key skipSecurity): leave the suite out of a run that names no suite. */
export const skipSecurityOption: OptionDef<boolean> = {
  flag: 'skip-security',
  key: 'skipSecurity',
  type: 'boolean',
  inReport: 'when-set',
  help: 'Leave the security suite out of the run (it is on by default; --suite security runs it alone)',
};

const cases: CaseDef[] = [
  ...poisoningCases,
  rugPull,
  ...httpSecurityCases,
  ...isolationCases,
  ...escapeCases,
  ...ssrfCases,
];

export const security: Suite = {
  id: 'security',
  title: 'Security',
  description:
    'Poisoned tool descriptions, tool lists that change by client or over time, DNS rebinding, guessable session ids, answers crossing between clients, files read outside the served folder (canary files the harness makes and removes), tools that fetch loopback addresses (a listener the harness runs on 127.0.0.1)',
  options: [skipSecurityOption as OptionDef],
  selectedWhen: (sel) => sel.option(skipSecurityOption) !== true,
  cases,
};

/** The cases `lint` runs on a saved tool list: those that need no server (the poisoning rules). */
export const offlineSecurity: Suite = { ...security, cases: poisoningCases, options: [], selectedWhen: undefined };
