// The tests Stryker runs against each mutant (npm run mutation): those of the mutated layers, run in-process.
// Left out: the end-to-end, soak and fuzz tests, which start processes or run for minutes, and the tests of the
// sandbox and the CLI, which reach no mutated code.
import { fileURLToPath } from 'node:url';
import { defineConfig } from 'vitest/config';

export default defineConfig({
  // This file lives in test/mutation/; the test paths below are from the repository's root.
  root: fileURLToPath(new URL('../../', import.meta.url)),
  test: {
    include: [
      'test/sync/**/*.test.ts',
      'test/capabilities/**/*.test.ts',
      'test/state/**/*.test.ts',
      'test/queue/**/*.test.ts',
      'test/log/**/*.test.ts',
      'test/catalogue/**/*.test.ts',
      'test/marketplace/secrets.contract.test.ts',
    ],
    // PostgreSQL runs a server per file: its store is left out of the mutated code (test/mutation/stryker.config.mjs).
    exclude: ['**/*.fuzz.test.ts', 'test/state/postgres-*.test.ts', 'node_modules/**'],
    testTimeout: 30_000,
    hookTimeout: 30_000,
    pool: 'forks',
  },
});
