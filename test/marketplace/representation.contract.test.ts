// Contract: the client's decoding under every representation switch of the sandbox (docs/architecture.md, Decoding):
// wrapped single objects, epoch timestamps, integers as strings, creates answered 201, paths that route
// only numeric ids, game given as an object; one at a time, then all together.
import { describe, expect, it } from 'vitest';
import type { RemoteOffer } from '../../src/marketplace/marketplace-client.ts';
import { collect, ext, PNG, type SandboxOptions, useContract } from './support/contract.ts';
import { accountBody, itemBody, topUpBody } from '../support/offers.ts';

type Representation = NonNullable<SandboxOptions['representation']>;

const SWITCHES: readonly [string, Representation][] = [
  ['the default representation', {}],
  ['wrapSingle', { wrapSingle: true }],
  ['epochTimestamps', { epochTimestamps: true }],
  ['integersAsStrings', { integersAsStrings: true }],
  ['createStatus201', { createStatus201: true }],
  ['numericIdPathsOnly', { numericIdPathsOnly: true }],
  ['gameAsObject', { gameAsObject: true }],
  [
    'every switch at once',
    {
      wrapSingle: true,
      epochTimestamps: true,
      integersAsStrings: true,
      createStatus201: true,
      numericIdPathsOnly: true,
      gameAsObject: true,
    },
  ],
];

const DAY = 86_400_000;

function expectTimestamps(o: RemoteOffer): void {
  expect(typeof o.createdAt).toBe('number');
  expect(typeof o.updatedAt).toBe('number');
  expect(Math.abs(o.createdAt! - Date.now())).toBeLessThan(DAY);
  expect(Math.abs(o.updatedAt! - Date.now())).toBeLessThan(DAY);
}

describe.each(SWITCHES)('decoding under %s', (_name, representation) => {
  const { sandbox, client } = useContract({ representation });

  it('accounts: create, get, find, update, list, archive decode the same', async () => {
    const e = ext('acc');
    const created = await client.accounts.create(accountBody(e));
    // The account response of section 2.3 carries no game: only what it echoes is checked.
    expect(created).toMatchObject({
      externalId: e,
      status: 'listed',
      fields: { price: 1999, level: 30, title: `Account ${e}` },
    });
    expect(Number.isSafeInteger(created.id)).toBe(true);
    expectTimestamps(created);
    await expect(client.accounts.get({ id: created.id })).resolves.toEqual(created);
    await expect(client.accounts.findByExternalId(e)).resolves.toMatchObject({
      id: created.id,
      fields: created.fields,
    });
    const updated = await client.accounts.update({ id: created.id }, { price: 2999 });
    expect(updated.fields.price).toBe(2999);
    const listed = (await collect(client.accounts.list({ sort: 'id', perPage: 3 }))).find((o) => o.id === created.id);
    expect(listed).toMatchObject({ externalId: e, fields: { price: 2999, level: 30 } });
    await expect(client.accounts.archive({ id: created.id })).resolves.toEqual({ archived: true });
    const digits = String(900000 + created.id);
    const numeric = await client.accounts.create(accountBody(digits));
    await expect(client.accounts.findByExternalId(digits)).resolves.toMatchObject({ id: numeric.id });
    await expect(client.accounts.bulkRemove({ externalIds: [digits] })).resolves.toMatchObject({
      success: true,
      removed: 1,
    });
  });

  it('items decode the same', async () => {
    const e = ext('item');
    const created = await client.items.create(itemBody(e));
    expect(created).toMatchObject({
      externalId: e,
      fields: { price: 250, stock: 5, type: 'skin', game: 'lol', server: 'euw' },
    });
    expectTimestamps(created);
    await expect(client.items.get({ externalId: e })).resolves.toMatchObject({ id: created.id });
    await expect(client.items.update({ externalId: e }, { stock: 9 })).resolves.toMatchObject({ fields: { stock: 9 } });
  });

  it('top-ups decode the same, bulk-update included', async () => {
    const e = ext('tu');
    const created = await client.topUps.create(topUpBody(e));
    expect(created).toMatchObject({
      externalId: e,
      status: 'listed',
      fields: { price: 999, stock: 10, offer_amount: 1380, game: 'lol', active: true },
    });
    expectTimestamps(created);
    await expect(client.topUps.findByExternalId(e)).resolves.toMatchObject({ id: created.id });
    await client.topUps.bulkUpdate([{ id: created.id, external_id: e, price: 555 }]);
    await expect(client.topUps.get({ id: created.id })).resolves.toMatchObject({ fields: { price: 555 } });
  });

  it('images decode the same', async () => {
    const img = await client.images.upload({ data: PNG, filename: 'p.png', mimeType: 'image/png' });
    expect(Number.isSafeInteger(img.id)).toBe(true);
    const listed = (await client.images.list()).find((i) => i.id === img.id);
    expect(listed).toMatchObject({ id: img.id, sizeBytes: PNG.length, mimeType: 'image/png' });
    await expect(client.images.delete(img.id)).resolves.toMatchObject({ success: true });
  });

  it('errors are typed the same', async () => {
    await expect(client.accounts.get({ id: 987654321 })).rejects.toMatchObject({ status: 404 });
    await expect(client.accounts.findByExternalId(ext('missing'))).resolves.toBeNull();
    expect(sandbox.counters().total).toBeGreaterThan(0);
  });
});
