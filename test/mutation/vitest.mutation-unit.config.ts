// The mutation tests without the slow whole-run tests, for a quick mutation run of one layer: a
// score measured with it is a lower bound of the one vitest.mutation.config.ts gives, since a mutant only those
// runs would catch counts as survived there.
//   MUTATION_TESTS=unit npm run mutation -- --concurrency 1 --mutate 'src/queue/**/*.ts'
// Left out by name, not by the `.run.test.ts` pattern: the whole-run tests that drive several reconciles each
// (minutes a mutant). The quick ones of one route each (archive routes, bulk candidates, a partial bulk, an offer's
// history) stay in: they are the tests those routes have.
import { defineConfig, mergeConfig } from 'vitest/config';
import base from './vitest.mutation.config.ts';

export default mergeConfig(
  base,
  defineConfig({
    test: {
      exclude: [
        'test/cli/window-limit.run.test.ts',
        'test/sync/bulk-confirm.run.test.ts',
        'test/sync/plan/guard-list.run.test.ts',
        'test/sync/idempotency.run.test.ts',
        'test/sync/plan/offer-backoff.run.test.ts',
        'test/sync/reconcile.run.test.ts',
        'test/sync/reconciler.run.test.ts',
        'test/sync/reprobe.run.test.ts',
        'test/saved-plan/saved-plan.run.test.ts',
        'test/sync/plan/target.run.test.ts',
      ],
    },
  }),
);
