// Contract: every request goes through the scheduler hook, creates marked not idempotent, nothing else.
import { describe, expect, it } from 'vitest';
import type { RequestMeta, RequestScheduler } from '../../src/marketplace/marketplace-client.ts';
import { collect, ext, PNG, sandboxAndClient, useContract } from './support/contract.ts';
import { accountBody, itemBody, topUpBody } from '../support/offers.ts';

const metas: RequestMeta[] = [];
const schedule: RequestScheduler = (meta, send) => {
  metas.push(meta);
  return send();
};

const { sandbox, client } = useContract({}, { schedule });

describe('the schedule hook', () => {
  it('sees every request, with the right idempotent flag and priority', async () => {
    sandbox.resetCounters();
    metas.length = 0;
    const acc = await client.accounts.create(accountBody(ext('acc')), { priority: 7 });
    const item = await client.items.create(itemBody(ext('item')));
    const tu = await client.topUps.create(topUpBody(ext('tu')));
    await client.accounts.get({ id: acc.id });
    await client.accounts.update({ id: acc.id }, { price: 1 });
    await client.items.update({ id: item.id }, { stock: 1 });
    await client.topUps.update({ id: tu.id }, { stock: 1 });
    await client.topUps.bulkUpdate([{ id: tu.id, external_id: tu.externalId, stock: 2 }]);
    await client.accounts.findByExternalId(acc.externalId);
    await client.accounts.findByExternalId('4242424242');
    await collect(client.items.list({ perPage: 2 }));
    await client.accounts.archive({ id: acc.id });
    await client.accounts.bulkRemove({ ids: [acc.id] });
    const img = await client.images.upload({ data: PNG, filename: 'p.png', mimeType: 'image/png' });
    await client.images.list();
    await client.images.delete(img.id);

    expect(metas.length).toBe(sandbox.counters().total);
    const writesNotIdempotent = metas.filter((m) => !m.idempotent).map((m) => `${m.method} ${m.path}`);
    expect(writesNotIdempotent).toEqual(['POST /api/v1/accounts', 'POST /api/v1/items', 'POST /api/v1/top-ups']);
    expect(metas[0]).toMatchObject({ method: 'POST', path: '/api/v1/accounts', idempotent: false, priority: 7 });
    expect(metas.every((m) => !m.path.includes('?'))).toBe(true);
    expect(metas.find((m) => m.method === 'POST' && m.path === '/api/v1/images')?.idempotent).toBe(true);
  });

  it('its refusal reaches the caller and nothing is sent', async () => {
    sandbox.resetCounters();
    const refusing = await sandboxAndClient({}, { schedule: () => Promise.reject(new Error('queue cleared')) });
    try {
      await expect(refusing.client.items.get({ id: 1 })).rejects.toThrow('queue cleared');
      expect(refusing.sandbox.counters().total).toBe(0);
    } finally {
      await refusing.close();
    }
  });
});
