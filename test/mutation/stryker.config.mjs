// Mutation testing: npm run mutation (not part of CI: it takes hours). Scope it while working, e.g.
//   npm run mutation -- --mutate 'src/queue/**/*.ts'
// Incremental: a second run re-tests only mutants whose code or tests changed (reports/stryker-incremental-*.json),
// but keeps the old result of a static mutant (a module-level constant) even after tests that kill it were added:
// measure a final figure with --force (docs/mutation-testing.md).
// Two environment variables, since Stryker's command line has no flag for the runner's config or the JSON report:
//   MUTATION_TESTS=unit  runs test/mutation/vitest.mutation-unit.config.ts (no whole-run reconcile tests: quick, a lower bound)
//   MUTATION_RUN=name    writes reports/mutation/name.json and keeps reports/stryker-incremental-name.json, so that
//                        runs over different files keep their results side by side (npm run mutation:summary).
// Paths here are from the repository's root, where npm runs Stryker.
const tests = `test/mutation/vitest.mutation${process.env.MUTATION_TESTS === 'unit' ? '-unit' : ''}.config.ts`;
const run = process.env.MUTATION_RUN ?? 'mutation';
/** @type {import('@stryker-mutator/api/core').PartialStrykerOptions} */
export default {
  testRunner: 'vitest',
  vitest: { configFile: tests },
  coverageAnalysis: 'perTest',
  mutate: [
    'src/sync/**/*.ts',
    'src/capabilities/**/*.ts',
    'src/state/**/*.ts',
    'src/queue/**/*.ts',
    'src/log/**/*.ts',
    'src/catalogue/price.ts',
    'src/catalogue/identity.ts',
    // The PostgreSQL database (its pool, its keyset view) needs a server per test file; the store itself is the
    // sqlite one, tested by the shared suite (test/state/state-store.test.ts) against both in npm test.
    '!src/state/postgres-*.ts',
    // PostgreSQL-only too (the replicas' registry): test/e2e/replicas.test.ts runs it against a real server.
    '!src/state/replica-registry.ts',
    // Test support that lives in src/ for the tests' sake.
    '!src/queue/fake-clock.ts',
  ],
  // Two test processes by default; raise it with --concurrency on a machine with more cores to spare.
  concurrency: 2,
  timeoutMS: 20_000,
  incremental: true,
  incrementalFile: `reports/stryker-incremental-${run}.json`,
  reporters: ['clear-text', 'progress', 'html', 'json'],
  htmlReporter: { fileName: `reports/mutation/${run}.html` },
  jsonReporter: { fileName: `reports/mutation/${run}.json` },
  thresholds: { high: 90, low: 85, break: null },
  ignorePatterns: ['dist', 'coverage', 'reports', '.offersync', 'test/bench', 'test/e2e'],
  tempDirName: '.stryker-tmp',
  // Stryker reads tsconfig.json through TypeScript's JS API, which TypeScript 7 no longer has; vitest runs the
  // sources through esbuild and needs no tsconfig rewriting, so none is named.
  tsconfigFile: 'no-tsconfig-for-stryker.json',
  disableTypeChecks: false,
};
