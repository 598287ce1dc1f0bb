import { resolve } from 'node:path';
import { defineConfig, type Plugin } from 'vitest/config';
import LongestFirst from './test/setup/sequencer.js';

/**
 * Three projects (docs/developing.md, "The tests"): `npm run test:unit`, `test:cli`, `test:peers`; `npm test` runs
 * all three.
 *
 * - unit: in-process, from the sources (vitest compiles them): no build, no server process, nothing from dist/. The
 *   in-process fake server (test/helpers/fake-server.ts) and in-process SDK objects are fine; a child process is not.
 * - peers: third-party programs started as processes — the npm MCP servers, servers and clients built on the real
 *   SDKs (fixtures/servers/sdk-*.mjs, fixtures/*\/peers/), the Python SDK peers (a venv), Node 22 clients, Chromium.
 * - cli: everything else — the built CLI (and the library from dist/) against our own fixtures. A new test file
 *   lands here unless listed below, so it gets a fresh build.
 *
 * test/projects.test.ts checks that every unit file stays in-process and that a file starting a third-party peer is
 * in peers.
 */
export const UNIT = [
  'applies',
  'args-ajv-check',
  'args',
  'auth-credentials',
  'baseline',
  'bench-helpers',
  'client-auth-grading',
  'client-http-grading',
  'config',
  'console-escapes',
  'environment',
  'expect-format',
  'finalize',
  'fuzz',
  'layers',
  'load-units',
  'mocks-msw',
  'negotiation-fake',
  'pipelined-timeouts',
  'projects',
  'reports-console',
  'reports-github',
  'reports-junit',
  'run-bounds',
  'schema-differential',
  'session',
  'shell-words',
  'sse-parser',
  'stderr-tail',
  'suggest',
  'surface-diff',
  'surface-helpers',
  'validator',
  'versions',
  'suites/layout',
  'suites/robustness',
].map((f) => `test/${f}.test.ts`);

export const PEERS = [
  'args-variants',
  'auth-oauth',
  'call-policy-peers',
  'client',
  'client-2026',
  'client-auth',
  'client-auth-drivers',
  'client-auth-real',
  'client-concurrency',
  'client-inspector',
  'client-schemas',
  'compat',
  'dual-era-peers',
  'expect-peers',
  'first-mistakes',
  'http-accuracy',
  'http-streams',
  'load',
  'max-in-flight',
  'mocks',
  'mocks-2026',
  'mocks-everything',
  'negotiation',
  'progress-tasks',
  'published',
  'real-servers',
  'reports-cli',
  'reports-html',
  'run-real-servers',
  'secrets',
  'security-isolation',
  'server-requests',
  'start',
  'stop-leaks',
  'surface-snapshot',
  'tasks',
  'ts-sdk2',
  'verdicts-peers',
  'suites/calling',
  'suites/http',
  'suites/invalid-params',
  'suites/security',
  'suites/sse',
  'suites/subscriptions',
  'suites/tasks',
  'suites/unknown-tool',
].map((f) => `test/${f}.test.ts`);

const ROOT = import.meta.dirname;
const DIST = resolve(ROOT, 'dist') + '/';

/** The unit project compiles the sources itself: a module loaded from dist/ (e.g. the package's own name) fails. */
const noDist: Plugin = {
  name: 'mcp-conform:unit-without-dist',
  load(id) {
    if (id.startsWith(DIST))
      throw new Error(
        `a unit test loaded ${id}: unit tests import the sources, never dist/ (move the file to the cli project)`,
      );
    return null;
  },
};

/** What the cli and peers projects share: both start processes from the build. */
const PROCESS_PROJECT = {
  globalSetup: ['test/setup/temp-root.ts', 'test/setup/fresh-dist.ts', 'test/setup/python3.ts'],
  // A worker runs one file after another without a fresh process for each (vitest and the test helpers are imported
  // once per worker). The files keep no state between them: none changes process.env or mocks a module
  // (test/projects.test.ts checks that), and every server a file starts is ended by the file.
  isolate: false,
};

export default defineConfig({
  test: {
    // The CLI tests start real servers; two cores, and much of a test's time is spent waiting on processes: four test
    // files at a time, project by project (peers, unit, cli), each project's longest first (test/setup/sequencer.ts).
    maxWorkers: 4,
    sequence: { sequencer: LongestFirst },
    projects: [
      {
        extends: true,
        plugins: [noDist],
        test: {
          name: 'unit',
          include: UNIT,
          globalSetup: ['test/setup/temp-root.ts'],
          // One worker process runs several unit files, the sources loaded once (a fresh process per file spent more
          // time importing the engine than testing it). Unit tests keep no state between files: nothing to isolate.
          isolate: false,
        },
      },
      {
        extends: true,
        test: {
          name: 'cli',
          include: ['test/**/*.test.ts'],
          exclude: [...UNIT, ...PEERS, 'dist/**', 'node_modules/**'],
          ...PROCESS_PROJECT,
        },
      },
      {
        extends: true,
        test: {
          name: 'peers',
          include: PEERS,
          ...PROCESS_PROJECT,
        },
      },
    ],
    testTimeout: 60_000,
    hookTimeout: 60_000,
    // In CI (CI=true) a failed test is run once more and reported as flaky if it then passes: many tests start real
    // servers and time them against bounds, and a loaded 2-core runner can miss a bound once. A defect fails both runs.
    retry: process.env.CI ? 1 : 0,
  },
});
