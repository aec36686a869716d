import { defineConfig } from 'vitest/config';

export default defineConfig({
  test: {
    include: ['test/**/*.test.ts'],
    exclude: ['test/bench/**', 'node_modules/**'],
    testTimeout: 30_000,
    hookTimeout: 30_000,
    // Tests start real sandboxes on loopback; two workers suit the 2-core machines.
    reporters: ['default', './test/support/summary-reporter.ts'],
    pool: 'forks',
    maxWorkers: 2,
  },
});
