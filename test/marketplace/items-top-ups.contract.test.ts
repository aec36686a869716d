// Contract: item and top-up offers, the real client against the real sandbox on 127.0.0.1.
import { describe, expect, it } from 'vitest';
import {
  ConflictError,
  NotFoundError,
  UnauthenticatedError,
  ValidationError,
} from '../../src/marketplace/marketplace-errors.ts';
import type { MarketplaceClient, OfferResource } from '../../src/marketplace/marketplace-client.ts';
import { createMarketplaceClient } from '../../src/marketplace/undici-marketplace-client.ts';
import { collect, ext, useContract } from './support/contract.ts';
import { itemBody, topUpBody } from '../support/offers.ts';

const { sandbox, client } = useContract();

const kinds = [
  ['items', (c: MarketplaceClient): OfferResource => c.items, itemBody, 'items'],
  ['top-ups', (c: MarketplaceClient): OfferResource => c.topUps, topUpBody, 'top-ups'],
] as const;

describe.each(kinds)('%s', (_name, resourceOf, body, path) => {
  it('create, get by id and by external_id, update, list', async () => {
    const r = resourceOf(client);
    const e = ext(path);
    const created = await r.create(body(e));
    expect(created).toMatchObject({
      externalId: e,
      status: 'listed',
      fields: { price: (body(e) as { price: number }).price, stock: (body(e) as { stock: number }).stock },
    });
    await expect(r.get({ id: created.id })).resolves.toMatchObject({ id: created.id, externalId: e });
    await expect(r.get({ externalId: e })).resolves.toMatchObject({ id: created.id });
    const updated = await r.update({ id: created.id }, { price: 1234, stock: 2 });
    expect(updated.fields).toMatchObject({ price: 1234, stock: 2 });
    const archived = await r.update({ externalId: e }, { status: 'archived' });
    expect(archived).toMatchObject({ id: created.id, status: 'archived' });
    expect((await collect(r.list({ sort: 'id' }))).map((o) => o.id)).toContain(created.id);
  });

  it('404 by id and by external_id', async () => {
    const r = resourceOf(client);
    await expect(r.get({ id: 987654321 })).rejects.toMatchObject({ status: 404, path: `/api/v1/${path}/987654321` });
    await expect(r.get({ id: 987654321 })).rejects.toBeInstanceOf(NotFoundError);
    await expect(r.get({ externalId: ext('missing') })).rejects.toBeInstanceOf(NotFoundError);
    await expect(r.update({ id: 987654321 }, { price: 1 })).rejects.toBeInstanceOf(NotFoundError);
    await expect(r.findByExternalId(ext('missing'))).resolves.toBeNull();
  });

  it('409 for a duplicate external_id', async () => {
    const r = resourceOf(client);
    const e = ext(path);
    await r.create(body(e));
    await expect(r.create(body(e))).rejects.toBeInstanceOf(ConflictError);
  });

  it('422 for a body without its required fields', async () => {
    await expect(resourceOf(client).create({ title: 'no external_id, no price' })).rejects.toBeInstanceOf(
      ValidationError,
    );
  });

  it('401 with a wrong key', async () => {
    const wrong = createMarketplaceClient({ baseUrl: sandbox.url, apiKey: 'wrong-key-456' });
    try {
      await expect(resourceOf(wrong).get({ id: 1 })).rejects.toBeInstanceOf(UnauthenticatedError);
      await expect(resourceOf(wrong).create(body(ext(path)))).rejects.toBeInstanceOf(UnauthenticatedError);
    } finally {
      await wrong.close();
    }
  });
});

describe('top-ups bulk-update', () => {
  it('updates every offer it is given', async () => {
    const a = await client.topUps.create(topUpBody(ext('tu')));
    const b = await client.topUps.create(topUpBody(ext('tu')));
    const r = await client.topUps.bulkUpdate([
      { id: a.id, external_id: a.externalId, price: 111 },
      { id: b.id, external_id: b.externalId, status: 'archived' },
    ]);
    expect(r.body).toBeDefined();
    expect(r.outcomes?.get(a.externalId)?.ok).toBe(true);
    expect(r.outcomes?.get(b.externalId)?.ok).toBe(true);
    // The element's status is the outcome ("updated"), never taken for the offer's status.
    expect(r.outcomes?.get(b.externalId)?.offer?.status).not.toBe('updated');
    await expect(client.topUps.get({ id: a.id })).resolves.toMatchObject({ fields: { price: 111 } });
    await expect(client.topUps.get({ id: b.id })).resolves.toMatchObject({ status: 'archived' });
  });

  it('reports an unknown offer per offer, and the others as done', async () => {
    const a = await client.topUps.create(topUpBody(ext('tu')));
    const missing = ext('missing');
    const r = await client.topUps.bulkUpdate([
      { id: a.id, external_id: a.externalId, price: 222 },
      { external_id: missing, price: 1 },
    ]);
    expect(r.outcomes?.get(a.externalId)).toMatchObject({ ok: true });
    expect(r.outcomes?.get(missing)).toMatchObject({ ok: false });
    expect(r.outcomes?.get(missing)?.message).toBeTruthy();
    await expect(client.topUps.get({ id: a.id })).resolves.toMatchObject({ fields: { price: 222 } });
  });
});
