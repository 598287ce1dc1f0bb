/**
 * Suite `security` (issue 37). This file registers the cases written so far; the suite's other cases live next to
 * it (suites/security/*.ts), each exporting its case array.
 */
import type { Suite } from '../../core/suite.js';
import { isolationCases } from './isolation.js';

export const securitySuite: Suite = {
  id: 'security',
  title: 'Security',
  description: 'Vulnerabilities servers ship: answers crossing between clients',
  cases: [...isolationCases],
};
