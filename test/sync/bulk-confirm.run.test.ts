// Bulk answers that do not say which offers they handled are confirmed through the list endpoint, never one
// GET per offer: a bulk-remove answered with `{success: true}` only, and a top-up bulk-update answered
// with counts that fall short.
import { describe, expect, it } from 'vitest';
import type { BulkUpdateResult, MarketplaceClient } from '../../src/marketplace/marketplace-client.ts';
import { overrideMethod } from '../support/client-override.ts';
import { requestsByRoute, type Harness, harnessPerTest } from '../support/harness.ts';

const openHarness = harnessPerTest();

const accounts = (h: Harness, n: number) =>
  h.write(
    'accounts/a.json',
    JSON.stringify(
      Array.from({ length: n }, (_, i) => ({ external_id: `acc-${i}`, title: `Account ${i}`, price: 1000 + i })),
    ),
  );
const topUps = (h: Harness, price: number) =>
  h.write(
    'top-ups/t.json',
    JSON.stringify(
      Array.from({ length: 6 }, (_, i) => ({ external_id: `tu-${i}`, offer_title: `${i}`, price: price + i })),
    ),
  );

describe('bulk confirmation through the list', () => {
  it('a bulk-remove answer without counts: one list page, no GET per offer, all archived', async () => {
    const h = await openHarness({ config: { guard: { maxArchive: 100, maxArchivePercent: 100, maxArchiveMin: 0 } } });
    accounts(h, 30);
    expect((await h.reconcile()).report.outcome).toBe('converged');
    accounts(h, 10); // 20 removed
    h.sandbox.resetCounters();
    const countless = (client: MarketplaceClient) =>
      overrideMethod(client, 'accounts', 'bulkRemove', async (original, ...args) => {
        await original(...args);
        return { success: true };
      });
    const run = await h.reconcile({ allowMassArchive: true }, undefined, countless);
    expect(run.report.outcome).toBe('converged');
    expect(run.report.counts.account?.archived).toBe(20);
    const routes = requestsByRoute(h.sandbox);
    expect(routes['GET /api/v1/accounts/{identifier}']).toBeUndefined();
    expect(routes['DELETE /api/v1/accounts/{identifier}']).toBeUndefined();
    expect(routes['POST /api/v1/accounts/bulk-remove']).toBe(1);
    // The run's own snapshot page, then one page of the list sorted by -updated_at.
    expect(routes['GET /api/v1/accounts']).toBe(2);
    expect(h.sandbox.dump().accounts.filter((a) => a.status === 'archived')).toHaveLength(20);
  });

  it('a top-up bulk-update whose counts fall short: the changed ones are done, the rest sent singly', async () => {
    const h = await openHarness();
    topUps(h, 100);
    expect((await h.reconcile()).report.outcome).toBe('converged');
    topUps(h, 200);
    h.sandbox.resetCounters();
    // The marketplace updates all but the last, and says only how many.
    const short = (client: MarketplaceClient) =>
      overrideMethod(client, 'topUps', 'bulk', async (original, op, key, offers, opts) => {
        const all = offers as Record<string, unknown>[];
        await original(op, key, all.slice(0, -1), opts);
        return { body: { updated: all.length - 1 }, counts: { updated: all.length - 1 } } satisfies BulkUpdateResult;
      });
    const run = await h.reconcile({}, undefined, short);
    expect(run.report.outcome).toBe('converged');
    const routes = requestsByRoute(h.sandbox);
    expect(routes['GET /api/v1/top-ups/{identifier}']).toBeUndefined();
    expect(routes['PATCH /api/v1/top-ups/{identifier}']).toBe(1);
    expect(h.sandbox.dump().topUps.map((t) => t.price)).toEqual([200, 201, 202, 203, 204, 205]);
  });
});
