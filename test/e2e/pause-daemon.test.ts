// A daemon paused past its writer lease and resumed (SIGSTOP, SIGCONT: what Ctrl-Z, `docker pause`, a frozen VM
// do), while another offersync takes the lease and syncs. The paused one must send nothing once resumed: not the
// writes waiting in its queue for a rate token, not its old plan. The one-shot reconcile is in pause-reconcile.
// Reported per variant (console): duplicates made and left, and the paused process's writes after it resumed.
import { describe, expect, it } from 'vitest';
import { report, scenario } from '../support/pause-scenario.ts';

// Each case starts two or three offersync processes: about ten seconds each on a shared machine. A process the
// machine stalls for seconds under a full parallel suite can miss its own renewals or its lock wait; a case is run
// again then (a real stale write fails every try: the counts are exact).
const CASE = { timeout: 180_000, retry: 2 } as const;

describe.each([true, false])('paused past the lease (accountsDuplicateExternalId %s)', (duplicatesAllowed) => {
  it('a daemon paused mid-sync, resumed while the other holds the lease, sends nothing more', CASE, async () => {
    const r = await scenario({ paused: 'daemon', resume: 'mid', duplicatesAllowed });
    report(`daemon, resumed mid-sync (duplicates ${duplicatesAllowed})`, r);
    expect(r.otherExit).toBe(0);
    expect(r.pausedLog).toMatch(/lost the writer lease/);
    expect({ duplicates: r.duplicatesMade, stale: r.staleWrites }).toEqual({ duplicates: 0, stale: 0 });
  });

  it('a daemon paused until the other finished sends nothing of its old plan', CASE, async () => {
    const r = await scenario({ paused: 'daemon', resume: 'after', duplicatesAllowed });
    report(`daemon, resumed after the other (duplicates ${duplicatesAllowed})`, r);
    expect(r.otherExit).toBe(0);
    expect({ duplicates: r.duplicatesMade, stale: r.staleWrites }).toEqual({ duplicates: 0, stale: 0 });
  });
});
