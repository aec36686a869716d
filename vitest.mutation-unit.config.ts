// The mutation tests without the end-to-end reconcile tests (those that drive a whole run through
// test/support/harness.ts): for a quick mutation run of one layer on a busy machine. A score measured with it is a
// lower bound of the one vitest.mutation.config.ts gives: a mutant only a whole run would catch counts as survived.
//   MUTATION_TESTS=unit npm run mutation -- --concurrency 1 --mutate 'src/queue/**/*.ts'
import { defineConfig, mergeConfig } from 'vitest/config';
import base from './vitest.mutation.config.ts';

export default mergeConfig(
  base,
  defineConfig({
    test: {
      exclude: [
        'test/sync/bulk-confirm.test.ts',
        'test/sync/guard-list.test.ts',
        'test/sync/idempotency.test.ts',
        'test/sync/offer-backoff.reconcile.test.ts',
        'test/sync/reconcile.test.ts',
        'test/sync/reconciler-run.test.ts',
        'test/sync/reprobe.test.ts',
        'test/sync/saved-plan.test.ts',
        'test/sync/target.test.ts',
      ],
    },
  }),
);
