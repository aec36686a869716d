// Per-offer backoff in reconcile runs: an offer the marketplace refuses for good is not sent again
// until its entry changes or its backoff elapses; after parkAfter refusals it is parked; the run reports it as
// held with the marketplace's message and the next attempt; a success forgets it.
import { describe, expect, it } from 'vitest';
import { loadBackoffs } from '../../../src/sync/plan/offer-backoff.ts';
import { openStateStore } from '../../../src/state/open-state-store.ts';
import { requestsByRoute, type Harness, harnessPerTest } from '../../support/harness.ts';

const openHarness = harnessPerTest();

const MIN = 60_000;
const write = (h: Harness, status: string) =>
  h.write(
    'items/i.json',
    JSON.stringify([
      { external_id: 'it-ok', title: 'Fine', price: 10 },
      // A status the API document names, which the sandbox's items refuse with a 422, every time.
      { external_id: 'it-bad', title: 'Refused', price: 5, status },
    ]),
  );

describe('per-offer backoff', () => {
  it('holds a refused offer back until its backoff elapses or its entry changes, then parks it', async () => {
    const h = await openHarness({ config: { offerBackoff: { initialSeconds: 60, maxHours: 6, parkAfter: 3 } } });
    const harness = h;
    let now = 1_800_000_000_000;
    harness.now = () => now;
    write(harness, 'refunded');
    const posts = () => requestsByRoute(harness.sandbox)['POST /api/v1/items'] ?? 0;

    const first = await harness.reconcile();
    expect(first.report.outcome).toBe('partial');
    const failed = first.report.outcomes.find((o) => o.externalId === 'it-bad');
    expect(failed).toMatchObject({ outcome: 'failed' });
    expect(failed?.message).toMatch(/422.*not sent again before 2027-01-15T08:01:00.000Z/);
    expect(posts()).toBe(2);

    // Within the minute: held, nothing sent, the marketplace's message and the next attempt in the report.
    now += 30_000;
    const held = await harness.reconcile({ mode: 'incremental' });
    expect(held.report.outcomes.find((o) => o.externalId === 'it-bad')).toMatchObject({
      outcome: 'held',
      message: expect.stringMatching(
        /refused it: POST \/api\/v1\/items: 422 .*status.*\(once\); not sent again before/,
      ),
    });
    expect(held.report.outcome).toBe('partial');
    expect(posts()).toBe(2);

    // The backoff elapsed: sent again (refused again: now 2 minutes).
    now += 31_000;
    await harness.reconcile({ mode: 'incremental' });
    expect(posts()).toBe(3);
    now += 60_000;
    await harness.reconcile({ mode: 'incremental' });
    expect(posts()).toBe(3);
    now += 61_000;
    await harness.reconcile({ mode: 'incremental' });
    expect(posts()).toBe(4); // the third refusal parks it
    now += 1000 * 24 * 60 * MIN;
    const parked = await harness.reconcile({ mode: 'incremental' });
    expect(posts()).toBe(4);
    expect(parked.report.outcomes.find((o) => o.externalId === 'it-bad')?.message).toMatch(/parked until/);

    // A changed entry goes at once; a success forgets the backoff.
    write(harness, 'listed');
    const fixed = await harness.reconcile({ mode: 'incremental' });
    expect(fixed.report.outcome).toBe('converged');
    expect(posts()).toBe(5);
    const store = await openStateStore(harness.statePath);
    expect((await loadBackoffs(store)).size).toBe(0);
    store.close();
  });
});
