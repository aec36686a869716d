// `plan` states what carrying it out costs: its requests by route and their time at the queue's rate, in words and
// in --json. Run in this process against the harness's sandbox on 127.0.0.1.
import { describe, expect, it } from 'vitest';
import { mainCaptured } from '../support/captured-io.ts';
import { harnessCliConfig, harnessPerTest } from '../support/harness.ts';

const openHarness = harnessPerTest();

describe('plan states its cost', () => {
  it('prints the requests by route and their time at the rate; --json carries the same', async () => {
    const h = await openHarness();
    const items = (prices: readonly number[]) =>
      JSON.stringify(prices.map((price, i) => ({ external_id: `gold-${i}`, title: `Gold ${i}`, price })));
    h.write('items/gold.json', items([100, 200, 300]));
    await h.reconcile();
    // One price changed, one item removed, three new accounts.
    h.write('items/gold.json', items([150, 200]));
    h.write(
      'accounts/new.json',
      JSON.stringify([0, 1, 2].map((i) => ({ external_id: `acc-${i}`, title: `Account ${i}`, price: 1000 + i }))),
    );
    const cli = harnessCliConfig(h);
    const text = await mainCaptured(['plan'], cli);
    expect(text.code, text.err).toBe(3);
    // The harness's config: 200 requests/s.
    expect(text.out).toContain(
      'Cost: 5 requests (3 POST /accounts, 2 PATCH /items/{id}), about 1 s at 200 requests/s.',
    );
    // Grouped by kind; within a kind in the order of money at risk: the archive before the price.
    expect(text.out.indexOf('- archive gold-2')).toBeGreaterThan(0);
    expect(text.out.indexOf('- archive gold-2')).toBeLessThan(text.out.indexOf('~ update  gold-0'));

    const json = await mainCaptured(['plan', '--json'], cli);
    const doc = JSON.parse(json.out) as { cost: Record<string, unknown>; actions: { type: string }[] };
    expect(doc.cost).toEqual({
      requests: 5,
      by_route: { 'POST /accounts': 3, 'PATCH /items/{id}': 2 },
      rate_per_sec: 200,
      seconds: 0,
    });
    // Every kind together in the order of money at risk: the archive, the price, then the creates.
    expect(doc.actions.map((a) => a.type)).toEqual(['archive', 'update', 'create', 'create', 'create']);
  });
});
