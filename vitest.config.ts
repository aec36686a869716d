import { defineConfig } from 'vitest/config';

/**
 * The end-to-end tests: child processes (the CLI, daemons, the sandbox, npx), PostgreSQL and browsers, tens of
 * seconds a file. A project of their own, so `npx vitest run --project unit` is the quick loop while working.
 */
const E2E = ['test/e2e/**/*.test.ts', 'test/repo/readme-commands.test.ts'];
/**
 * Tests of pure modules (parsing, configuration, the queue on a fake clock, sales): no sandbox, client, service or
 * process, so no state a module keeps (the scrubber's secrets) outlives a file. Their files share the workers'
 * processes instead of one process each, which would cost more than their tests. retry-after-cap opens a client.
 */
const SHARED = [
  'test/catalogue/**/*.test.ts',
  'test/config/**/*.test.ts',
  'test/queue/**/!(retry-after-cap).test.ts',
  'test/sales/**/*.test.ts',
  'test/pull/**/*.test.ts',
  'test/sync-now/**/*.test.ts',
];
const NEVER = ['test/bench/**', 'node_modules/**'];

export default defineConfig({
  test: {
    testTimeout: 30_000,
    hookTimeout: 30_000,
    reporters: ['default', './test/support/summary-reporter.ts'],
    // Once a run: where the CLI the tests start as child processes is compiled (by the first file that starts
    // one, about 6 s, instead of tsx in every child); and one PostgreSQL server, on which each file that needs
    // one takes a database.
    globalSetup: ['./test/support/built-cli.ts', './test/support/shared-postgres.ts'],
    pool: 'forks',
    // Four workers for two CPUs: many end-to-end tests wait on a rate limit, a lease or a child process, and the
    // other files use the cores they leave idle.
    maxWorkers: 4,
    // The projects share the two workers. vitest queues the files of 'e2e' first (projects by name), the longest
    // first: the slow files start at once, and the many short ones fill the workers around them.
    projects: [
      { extends: true, test: { name: 'e2e', include: E2E, exclude: NEVER } },
      {
        extends: true,
        test: { name: 'unit', include: ['test/**/*.test.ts'], exclude: [...NEVER, ...E2E, ...SHARED], isolate: false },
      },
      { extends: true, test: { name: 'unit-shared', include: SHARED, exclude: NEVER, isolate: false } },
    ],
  },
});
