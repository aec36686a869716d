// `plan` is no all-clear while the run could not see everything: a list read in part, a file quarantined, an
// offer invalid. It says what it could not see and exits 1; a quarantined file's offers are never created.
import { describe, expect, it } from 'vitest';
import { formatPlan } from '../../../src/cli/format-plan.ts';
import { ServerError } from '../../../src/marketplace/marketplace-errors.ts';
import type { MarketplaceClient } from '../../../src/marketplace/marketplace-client.ts';
import { blindSpots } from '../../../src/sync/report/blind-spots.ts';
import { mainCaptured } from '../../support/captured-io.ts';
import { overrideMethod } from '../../support/client-override.ts';
import { harnessCliConfig, harnessPerTest } from '../../support/harness.ts';

const openHarness = harnessPerTest();

const items = (prefix: string, n: number) =>
  JSON.stringify(Array.from({ length: n }, (_, i) => ({ external_id: `${prefix}-${i}`, title: 'T', price: 100 })));

describe('plan is no all-clear while it could not see everything', () => {
  it('a kind whose list cannot be read: no "No changes", and it says which list', async () => {
    const h = await openHarness();
    h.write('items/a.json', items('a', 2));
    await h.reconcile();
    const noTopUps = (client: MarketplaceClient) =>
      overrideMethod(client, 'topUps', 'list', () => {
        throw new ServerError({ method: 'GET', path: '/api/v1/top-ups', status: 503 });
      });
    const run = await h.reconcile({ dryRun: true }, undefined, noTopUps);
    const notSeen = blindSpots(run.plan, run.catalogue);
    expect(notSeen).toEqual([expect.stringMatching(/^the topup list could not be read completely/)]);
    const text = formatPlan(run.plan, notSeen);
    expect(text).not.toMatch(/No changes/);
    expect(text).toMatch(/this is no all-clear/);
    expect(formatPlan(run.plan)).toMatch(/No changes: the marketplace matches the catalogue/);
  });

  it('a file quarantined for a forbidden header: plan exits 1 naming it, and nothing of it is created', async () => {
    const h = await openHarness();
    h.write('items/a.json', items('a', 2));
    await h.reconcile();
    h.write('items/bad.csv', 'external_id,title,price,__proto__.status\nb-1,Bad,100,archived\n');
    const cli = harnessCliConfig(h);
    const plan = await mainCaptured(['plan'], cli);
    expect(plan.code).toBe(1);
    expect(plan.out).not.toMatch(/No changes/);
    expect(plan.out).toMatch(/1 catalogue file quarantined \(items\/bad\.csv\)/);
    expect(plan.out).not.toMatch(/\+ create {2}b-1/);
    await h.reconcile();
    expect(h.sandbox.dump().items.map((i) => i.external_id)).toEqual(['a-0', 'a-1']);
  });

  it('an invalid offer: plan exits 1 and says so in its JSON too', async () => {
    const h = await openHarness();
    h.write('items/a.json', items('a', 1));
    await h.reconcile();
    h.write('items/b.json', JSON.stringify([{ external_id: 'b-1', title: 'T', price: 'lots' }]));
    const cli = harnessCliConfig(h);
    const plan = await mainCaptured(['plan', '--json'], cli);
    expect(plan.code).toBe(1);
    expect(JSON.parse(plan.out).not_seen).toEqual([expect.stringMatching(/^the catalogue has 1 invalid offer/)]);
    // Fixed, the plan is an all-clear again.
    h.write('items/b.json', JSON.stringify([{ external_id: 'b-1', title: 'T', price: 100 }]));
    await h.reconcile();
    const clean = await mainCaptured(['plan'], cli);
    expect([clean.code, clean.out]).toEqual([0, expect.stringMatching(/No changes: the marketplace matches/)]);
  });
});
