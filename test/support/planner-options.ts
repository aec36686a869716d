// The planner options the planning tests and plan.bench start from: the shipped defaults, with account PATCH
// known to be served (so an account update is a plain patch unless a test says otherwise).
import { UNKNOWN_CAPABILITIES } from '../../src/capabilities/verdicts.ts';
import type { PlannerOptions } from '../../src/sync/plan/planner-options.ts';

export const PLANNER_OPTIONS: PlannerOptions = {
  defaultStatus: 'listed',
  prune: 'managed',
  ownedPattern: null,
  drift: 'local-wins',
  capabilities: { ...UNKNOWN_CAPABILITIES, accountUpdate: 'usable' },
  bulk: { removeSize: 100, topUpUpdateSize: 100, itemUpdateSize: 100 },
  updateFallback: 'report',
  guard: { maxArchive: null, maxArchivePercent: 10, maxArchiveMin: 25 },
  allowMassArchive: false,
  priceGuard: { maxPriceChangePercent: 10, maxPriceChangeMin: 2 },
  allowPriceChange: false,
};
