// The mutation tests without the whole-run tests (`*.run.test.ts`, those that drive a whole reconcile through
// test/support/harness.ts): for a quick mutation run of one layer on a busy machine. A score measured with it is a
// lower bound of the one vitest.mutation.config.ts gives: a mutant only a whole run would catch counts as survived.
//   MUTATION_TESTS=unit npm run mutation -- --concurrency 1 --mutate 'src/queue/**/*.ts'
import { defineConfig, mergeConfig } from 'vitest/config';
import base from './vitest.mutation.config.ts';

export default mergeConfig(
  base,
  defineConfig({
    test: {
      exclude: ['**/*.run.test.ts'],
    },
  }),
);
