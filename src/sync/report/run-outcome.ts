// The outcome of a run that executed its plan, from what stopped it and what its offers came to.
import { type Plan, stoppedByGuard } from '../plan/plan-actions.ts';
import { NEEDS_ATTENTION, type OfferOutcome, type RunReport } from './run-report.ts';

export type ExecutedOutcome = Extract<RunReport['outcome'], 'aborted' | 'stopped' | 'partial' | 'converged'>;

/**
 * A guard's stop is 'aborted', a stop signal (or a lost lease) 'stopped'; otherwise 'partial' when any offer needs
 * the seller's attention (a catalogue error counts: pass them with the executor's outcomes), else 'converged'.
 */
export function runOutcome(plan: Plan, stopped: boolean, outcomes: readonly OfferOutcome[]): ExecutedOutcome {
  if (stoppedByGuard(plan)) return 'aborted';
  if (stopped) return 'stopped';
  return outcomes.some((o) => NEEDS_ATTENTION.has(o.outcome)) ? 'partial' : 'converged';
}
