// Idempotency-Key on creates: a create whose response was lost, sent again with the same key,
// is the same request to a marketplace that honours the header.
import { describe, expect, it } from 'vitest';
import { ext, useContract } from './support/contract.ts';
import { itemBody } from '../support/offers.ts';

const { sandbox, client } = useContract({ representation: { idempotencyKeys: true } });

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
