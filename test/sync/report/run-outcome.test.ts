// A run that executed its plan: a guard's stop is aborted, a stop signal stopped, an offer that needs the seller
// (a catalogue error included) partial, else converged.
import { describe, expect, it } from 'vitest';
import type { Plan } from '../../../src/sync/plan/plan-actions.ts';
import { runOutcome } from '../../../src/sync/report/run-outcome.ts';
import type { OfferOutcome, Outcome } from '../../../src/sync/report/run-report.ts';

const planWith = (guard: boolean, priceGuard: boolean): Plan => ({
  actions: [],
  guard: { tripped: guard, archives: 0, limit: 25 },
  priceGuard: { tripped: priceGuard, priced: 0, suspect: [], limit: 2 },
  soldCounts: [],
  archiveSuppressed: [],
  warnings: [],
});
const offers = (...outcomes: Outcome[]): OfferOutcome[] =>
  outcomes.map((outcome, i) => ({ kind: 'item', externalId: `i-${i}`, outcome }));

describe('runOutcome', () => {
  it('is aborted when either guard stopped the run, whatever else happened', () => {
    expect(runOutcome(planWith(true, false), true, offers('failed'))).toBe('aborted');
    expect(runOutcome(planWith(false, true), false, offers())).toBe('aborted');
  });

  it('is stopped when the run was stopped (signal or lost lease), even with offers that failed', () => {
    expect(runOutcome(planWith(false, false), true, offers('failed', 'created'))).toBe('stopped');
  });

  it('is partial when an offer needs attention (failed, invalid, blocked, held), else converged', () => {
    const plan = planWith(false, false);
    for (const o of ['failed', 'invalid', 'blocked', 'held'] as const)
      expect(runOutcome(plan, false, offers('created', o))).toBe('partial');
    expect(runOutcome(plan, false, offers('created', 'updated', 'archived', 'skipped', 'sold'))).toBe('converged');
    expect(runOutcome(plan, false, offers())).toBe('converged');
  });
});
