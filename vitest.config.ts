import { defineConfig } from 'vitest/config';

export default defineConfig({
  test: {
    include: ['test/**/*.test.ts'],
    exclude: ['dist/**', 'node_modules/**'],
    // one temp folder per test run, removed at its end (test/setup/temp-root.ts)
    globalSetup: ['test/setup/temp-root.ts'],
    testTimeout: 60_000,
    hookTimeout: 60_000,
    // The CLI tests start real servers; two cores: keep it to two files at a time.
    maxWorkers: 2,
    // In CI (CI=true) a failed test is run once more and reported as flaky if it then passes: many tests start real
    // servers and time them against bounds, and a loaded 2-core runner can miss a bound once. A defect fails both runs.
    retry: process.env.CI ? 1 : 0,
  },
});
