// Contract: docs/architecture.md, Identity against the sandbox: an all-digit external_id never goes into a path,
// a server that ignores the list filter is scanned, and only a definite "not there" is null.
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { ServerError } from '../../src/marketplace/marketplace-errors.ts';
import type { MarketplaceClient } from '../../src/marketplace/marketplace-client.ts';
import { createMarketplaceClient } from '../../src/marketplace/undici-marketplace-client.ts';
import { ext, routesMatching, SANDBOX_KEY, useContract } from './support/contract.ts';
import { accountBody, itemBody } from '../support/offers.ts';

/** Small pages, so a scan walks several. */
let smallPages: MarketplaceClient;

const getOneAccount = /^GET \/api\/v1\/accounts\/(?!bulk)/;

const { sandbox, client } = useContract();

beforeAll(async () => {
  smallPages = createMarketplaceClient({ baseUrl: sandbox.url, apiKey: SANDBOX_KEY, list: { perPage: 7 } });
  for (let i = 0; i < 30; i++) await client.accounts.create(accountBody(ext('filler')));
});
afterAll(async () => {
  await smallPages.close();
});
describe('findByExternalId', () => {
  it('finds a normal external_id', async () => {
    const e = ext('acc');
    const created = await client.accounts.create(accountBody(e));
    await expect(client.accounts.findByExternalId(e)).resolves.toMatchObject({ id: created.id, externalId: e });
  });

  it('finds an all-digit external_id without ever putting it in a path', async () => {
    // An external_id equal to another offer's id: a path lookup would answer the wrong offer.
    const decoy = await client.accounts.create(accountBody(ext('decoy')));
    const digits = String(decoy.id);
    const created = await client.accounts.create(accountBody(digits));
    sandbox.resetCounters();
    const found = await smallPages.accounts.findByExternalId(digits);
    expect(found).toMatchObject({ id: created.id, externalId: digits });
    expect(routesMatching(sandbox, getOneAccount)).toEqual([]);
    await expect(smallPages.accounts.get({ externalId: digits })).resolves.toMatchObject({ id: created.id });
    await expect(smallPages.accounts.update({ externalId: digits }, { price: 777 })).resolves.toMatchObject({
      id: created.id,
      fields: { price: 777 },
    });
    // The update reached the right offer by its id; the decoy (whose id is those digits) is untouched.
    expect(routesMatching(sandbox, getOneAccount)).toEqual([]);
    expect(routesMatching(sandbox, /^PATCH /)).toEqual(['PATCH /api/v1/accounts/{identifier}']);
    const stored = sandbox.dump().accounts;
    expect(stored.find((a) => a.id === decoy.id)).toMatchObject({ price: 1999 });
    expect(stored.find((a) => a.id === created.id)).toMatchObject({ price: 777 });
  });

  it('null for an all-digit external_id that is not there', async () => {
    sandbox.resetCounters();
    await expect(client.accounts.findByExternalId('999999999')).resolves.toBeNull();
    expect(routesMatching(sandbox, getOneAccount)).toEqual([]);
  });

  it('scans in id order when the server ignores the filter', async () => {
    sandbox.setFaults({ disabled: ['filterExternalId'] });
    const e = ext('late');
    const created = await client.accounts.create(accountBody(e));
    const digits = `${Date.now()}`;
    const numeric = await client.accounts.create(accountBody(digits));
    await expect(smallPages.accounts.findByExternalId(digits)).resolves.toMatchObject({ id: numeric.id });
    await expect(smallPages.accounts.findByExternalId(e)).resolves.toMatchObject({ id: created.id });
    await expect(smallPages.accounts.findByExternalId('888888888')).resolves.toBeNull();
  });

  it('null for a missing one, on every kind', async () => {
    await expect(client.accounts.findByExternalId(ext('missing'))).resolves.toBeNull();
    await expect(client.items.findByExternalId(ext('missing'))).resolves.toBeNull();
    await expect(client.topUps.findByExternalId(ext('missing'))).resolves.toBeNull();
  });

  it('finds items and top-ups too', async () => {
    const e = ext('item');
    const item = await client.items.create(itemBody(e));
    await expect(client.items.findByExternalId(e)).resolves.toMatchObject({ id: item.id });
  });

  it('a server error is never "not there"', async () => {
    sandbox.setFaults({ errorRate: 1 });
    const err = await client.accounts.findByExternalId(ext('acc')).catch((x: unknown) => x);
    expect(err).toBeInstanceOf(ServerError);
    const digitsErr = await client.accounts.findByExternalId('123').catch((x: unknown) => x);
    expect(digitsErr).toBeInstanceOf(ServerError);
  });
});
