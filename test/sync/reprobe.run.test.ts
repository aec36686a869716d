// A capability the marketplace refused is probed again after capabilities.reprobeAfterHours: a
// marketplace that adds a bulk route later gets used, with one request to find out.
import { describe, expect, it } from 'vitest';
import { openStateStore } from '../../src/state/open-state-store.ts';
import { CAPABILITIES } from '../../src/capabilities/names.ts';
import { requestsByRoute, type Harness, harnessPerTest } from '../support/harness.ts';

const openHarness = harnessPerTest();

const HOUR = 3_600_000;
const topUps = (h: Harness, price: number) =>
  h.write(
    'top-ups/t.json',
    JSON.stringify(
      [1, 2, 3].map((i) => ({ external_id: `tu-${i}`, offer_title: `${i} gems`, price: price + i, offer_amount: i })),
    ),
  );

/** A harness whose top-ups were created, with the bulk-update route then remembered as refused. */
async function withRefusedBulkUpdate(config: Record<string, unknown> = {}): Promise<Harness> {
  const harness = await openHarness({ config });
  topUps(harness, 100);
  expect((await harness.reconcile()).report.outcome).toBe('converged');
  const store = await openStateStore(harness.statePath);
  await store.setCapability(CAPABILITIES.topUpBulkUpdate, false, '404: once refused');
  store.close();
  return harness;
}

describe('re-probe of a refused capability', () => {
  it('keeps a refusal for the interval, then asks the route again and uses it', async () => {
    const h = await withRefusedBulkUpdate();
    const harness = h;
    harness.now = () => Date.now() + HOUR;
    topUps(harness, 200);
    harness.sandbox.resetCounters();
    expect((await harness.reconcile()).report.outcome).toBe('converged');
    expect(requestsByRoute(harness.sandbox)['POST /api/v1/top-ups/bulk-update']).toBeUndefined();
    expect(requestsByRoute(harness.sandbox)['PATCH /api/v1/top-ups/{identifier}']).toBe(3);

    harness.now = () => Date.now() + 25 * HOUR;
    topUps(harness, 300);
    harness.sandbox.resetCounters();
    expect((await harness.reconcile()).report.outcome).toBe('converged');
    expect(requestsByRoute(harness.sandbox)['POST /api/v1/top-ups/bulk-update']).toBe(1);
    expect(requestsByRoute(harness.sandbox)['PATCH /api/v1/top-ups/{identifier}']).toBeUndefined();
    const after = await openStateStore(harness.statePath);
    expect((await after.getCapability(CAPABILITIES.topUpBulkUpdate))?.usable).toBe(true);
    after.close();
  });

  it('asks again after capabilities.reprobeAfterHours as configured, not the default day', async () => {
    const h = await withRefusedBulkUpdate({ capabilities: { reprobeAfterHours: 2 } });
    const harness = h;
    harness.now = () => Date.now() + HOUR;
    topUps(harness, 200);
    harness.sandbox.resetCounters();
    const { plan } = await harness.reconcile();
    expect(requestsByRoute(harness.sandbox)['POST /api/v1/top-ups/bulk-update']).toBeUndefined();
    // The plan itself already knows: each top-up goes by its own PATCH, none is planned in a bulk batch.
    const routes = plan.actions.flatMap((a) => (a.type === 'update' ? [a.route.via] : []));
    expect(routes).toEqual(['patch', 'patch', 'patch']);
    harness.now = () => Date.now() + 3 * HOUR;
    topUps(harness, 300);
    harness.sandbox.resetCounters();
    expect((await harness.reconcile()).report.outcome).toBe('converged');
    expect(requestsByRoute(harness.sandbox)['POST /api/v1/top-ups/bulk-update']).toBe(1);
  });
});
