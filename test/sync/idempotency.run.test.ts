// Every create carries an Idempotency-Key derived from its journal entry, and a retry of it carries the same
// one: against a marketplace that honours it, a create whose response was lost and whose lookup
// came back empty (a list that lags) is sent again and still makes one offer.
import { describe, expect, it } from 'vitest';
import type { CallOptions, MarketplaceClient } from '../../src/marketplace/marketplace-client.ts';
import { overrideMethod } from '../support/client-override.ts';
import { harnessPerTest } from '../support/harness.ts';

const openHarness = harnessPerTest();

describe('idempotency keys on creates', () => {
  it('retries a lost create with the same key, and the marketplace makes it once', async () => {
    const h = await openHarness({ sandbox: { representation: { idempotencyKeys: true } } });
    const sandbox = h.sandbox;
    h.write('items/i.json', JSON.stringify([{ external_id: 'it-1', title: 'Skin', price: 100, stock: 1 }]));
    const keys: (string | undefined)[] = [];
    let lookups = 0;
    const wrap = (client: MarketplaceClient) =>
      overrideMethod(
        overrideMethod(client, 'items', 'create', async (original, body, opts) => {
          keys.push((opts as CallOptions | undefined)?.idempotencyKey);
          // The first create is carried out, and its answer lost.
          if (keys.length === 1) sandbox.setFaults({ lostResponseRate: 1, seed: 1 });
          try {
            return await original(body, opts);
          } finally {
            sandbox.setFaults({});
          }
        }),
        'items',
        'findByExternalId',
        async (original, ...args) => (++lookups === 1 ? null : original(...args)),
      );
    const result = await h.reconcile({}, undefined, wrap);
    expect(result.report.outcome).toBe('converged');
    expect(keys).toHaveLength(2);
    expect(keys[0]).toMatch(/^offersync-/);
    expect(keys[1]).toBe(keys[0]);
    expect(sandbox.dump().items).toHaveLength(1);
    // The retry was answered as a create (the kept answer), not refused as a second offer and adopted.
    expect(result.report.outcomes.find((o) => o.externalId === 'it-1')?.outcome).toBe('created');
    expect(sandbox.counters().byRoute['POST /api/v1/items']?.['409']).toBeUndefined();
  });
});
