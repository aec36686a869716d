// A one-shot reconcile paused past its writer lease and resumed (SIGSTOP, SIGCONT), while another offersync takes
// the lease and syncs: the paused one sends nothing more, not its queue, not its old plan, not a superseded price,
// and does not say converged. The daemon is in pause-daemon.
// Reported per variant (console): duplicates made and left, and the paused process's writes after it resumed.
import { describe, expect, it } from 'vitest';
import { report, scenario } from '../support/pause-scenario.ts';

// Each case starts two or three offersync processes: about ten seconds each on a shared machine. A process the
// machine stalls for seconds under a full parallel suite can miss its own renewals or its lock wait; a case is run
// again then (a real stale write fails every try: the counts are exact).
const CASE = { timeout: 180_000, retry: 2 } as const;

describe.each([true, false])('paused past the lease (accountsDuplicateExternalId %s)', (duplicatesAllowed) => {
  it('a one-shot reconcile paused and resumed sends nothing more and does not say converged', CASE, async () => {
    const r = await scenario({ paused: 'reconcile', resume: 'after', duplicatesAllowed });
    report(`reconcile, resumed after the other (duplicates ${duplicatesAllowed})`, r);
    expect(r.otherExit).toBe(0);
    expect(r.pausedExit).not.toBe(0);
    expect({ duplicates: r.duplicatesMade, stale: r.staleWrites }).toEqual({ duplicates: 0, stale: 0 });
  });
});

describe('paused past the lease while the seller changes prices again', () => {
  it('the resumed reconcile sends none of the superseded prices', CASE, async () => {
    const r = await scenario({ paused: 'reconcile', resume: 'after', duplicatesAllowed: true, repriced: true });
    report('reconcile repricing, resumed after the other repriced again', r);
    expect(r.otherExit).toBe(0);
    expect(r.pausedExit).not.toBe(0);
    expect(r.staleWrites).toBe(0);
  });
});
