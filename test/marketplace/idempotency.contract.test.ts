// Idempotency-Key on creates (issue 10): a create whose response was lost, sent again with the same key,
// is the same request to a marketplace that honours the header.
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import type { MarketplaceClient } from '../../src/marketplace/marketplace-client.ts';
import { itemBody, ext, type Sandbox, sandboxAndClient } from './support/contract.ts';

let sandbox: Sandbox;
let client: MarketplaceClient;
let close: () => Promise<void>;

beforeAll(async () => {
  ({ sandbox, client, close } = await sandboxAndClient({ representation: { idempotencyKeys: true } }));
});
afterAll(() => close());

describe('Idempotency-Key', () => {
  it('a lost response after a create, then a retry with the same key: one offer, the first answer', async () => {
    const id = ext('idem');
    sandbox.setFaults({ lostResponseRate: 1, seed: 1 });
    const lost = await client.items.create(itemBody(id), { idempotencyKey: 'key-1' }).catch((e: unknown) => e);
    sandbox.setFaults({});
    expect(lost).toMatchObject({ outcomeUnknown: true });
    const retried = await client.items.create(itemBody(id), { idempotencyKey: 'key-1' });
    expect(retried.externalId).toBe(id);
    expect(sandbox.dump().items.filter((i) => i.external_id === id)).toHaveLength(1);
  });

  it('without the key the same retry is refused as a second offer with that external_id', async () => {
    const id = ext('idem');
    await client.items.create(itemBody(id));
    await expect(client.items.create(itemBody(id))).rejects.toMatchObject({ status: 409 });
  });
});
