/**
 * Suite `security`: the vulnerabilities servers ship (issue 37). This file holds the files-and-fetch cases
 * (security/resource-escape, security/path-escape, security/ssrf: suites/security/escape.ts and ssrf.ts); the other
 * security cases join it here. docs/security.md says what each case sends and what it never does.
 */
import type { Suite } from '../../core/suite.js';
import { escapeCases } from './escape.js';
import { ssrfCases } from './ssrf.js';

export const security: Suite = {
  id: 'security',
  title: 'Security',
  description:
    'Vulnerabilities servers ship: files read outside the served folder (canary files the harness makes and removes), tools that fetch loopback addresses (a listener the harness runs on 127.0.0.1). Under the call policy; offline; nothing leaves this machine.',
  cases: [...escapeCases, ...ssrfCases],
};
