import { defineConfig } from 'vitest/config';

/**
 * The end-to-end tests: child processes (the CLI, daemons, the sandbox, npx), PostgreSQL and browsers, tens of
 * seconds a file. A project of their own, so `npx vitest run --project unit` is the quick loop while working.
 */
const E2E = ['test/e2e/**/*.test.ts', 'test/repo/readme-commands.test.ts'];

export default defineConfig({
  test: {
    testTimeout: 30_000,
    hookTimeout: 30_000,
    // Tests start real sandboxes on loopback; two workers suit the 2-core machines.
    reporters: ['default', './test/support/summary-reporter.ts'],
    pool: 'forks',
    maxWorkers: 2,
    // Both projects share the two workers. vitest queues the files of 'e2e' before those of 'unit' (by name), the
    // longest first: the slow files start at once, and the many short ones fill the workers around them.
    projects: [
      { extends: true, test: { name: 'e2e', include: E2E } },
      {
        extends: true,
        test: { name: 'unit', include: ['test/**/*.test.ts'], exclude: ['test/bench/**', 'node_modules/**', ...E2E] },
      },
    ],
  },
});
