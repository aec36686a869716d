// Contract: account offers, the real client against the real sandbox on 127.0.0.1.
import { describe, expect, it } from 'vitest';
import {
  ConflictError,
  NotFoundError,
  RateLimitedError,
  UnauthenticatedError,
  ValidationError,
} from '../../src/marketplace/marketplace-errors.ts';
import { createMarketplaceClient } from '../../src/marketplace/undici-marketplace-client.ts';
import { collect, ext, useContract } from './support/contract.ts';
import { accountBody } from '../support/offers.ts';

const { sandbox, client } = useContract();

describe('accounts', () => {
  it('create answers the offer, decoded', async () => {
    const e = ext('acc');
    const created = await client.accounts.create(accountBody(e));
    expect(created).toMatchObject({ externalId: e, status: 'listed', fields: { title: `Account ${e}`, price: 1999 } });
    expect(Number.isSafeInteger(created.id)).toBe(true);
    expect(Object.keys(created.fields)).not.toContain('credentials');
  });

  it('create turns a decimal price into cents', async () => {
    const created = await client.accounts.create(accountBody(ext('acc'), { price: 19.99 }));
    expect(created.fields.price).toBe(1999);
  });

  it('create never echoes credentials', async () => {
    const created = await client.accounts.create(
      accountBody(ext('acc'), { credentials: { login: 'l', password: 'p' } }),
    );
    expect(JSON.stringify(created)).not.toContain('"p"');
  });

  it('get by id and by external_id', async () => {
    const e = ext('acc');
    const created = await client.accounts.create(accountBody(e));
    await expect(client.accounts.get({ id: created.id })).resolves.toMatchObject({ id: created.id, externalId: e });
    await expect(client.accounts.get({ externalId: e })).resolves.toMatchObject({ id: created.id, externalId: e });
  });

  it('update (PATCH, served though undocumented) changes the offer', async () => {
    const created = await client.accounts.create(accountBody(ext('acc')));
    const updated = await client.accounts.update({ id: created.id }, { price: 2500, title: 'Renamed' });
    expect(updated).toMatchObject({ id: created.id, fields: { price: 2500, title: 'Renamed' } });
    await expect(client.accounts.get({ id: created.id })).resolves.toMatchObject({ fields: { price: 2500 } });
  });

  it('archive (DELETE) archives', async () => {
    const created = await client.accounts.create(accountBody(ext('acc')));
    await expect(client.accounts.archive({ id: created.id })).resolves.toEqual({ archived: true });
    await expect(client.accounts.get({ id: created.id })).resolves.toMatchObject({ status: 'archived' });
  });

  it('bulkRemove archives by id and by external_id and counts what it did not find', async () => {
    const a = await client.accounts.create(accountBody(ext('acc')));
    const b = await client.accounts.create(accountBody(ext('acc')));
    const r = await client.accounts.bulkRemove({ ids: [a.id], externalIds: [b.externalId, ext('missing')] });
    expect(r).toMatchObject({ success: true, removed: 2, notFound: 1 });
    expect(r.processed).toBeGreaterThanOrEqual(2);
    await expect(client.accounts.get({ id: a.id })).resolves.toMatchObject({ status: 'archived' });
    await expect(client.accounts.get({ id: b.id })).resolves.toMatchObject({ status: 'archived' });
  });

  it('list returns the offers', async () => {
    const created = await client.accounts.create(accountBody(ext('acc')));
    const all = await collect(client.accounts.list({ sort: '-id', perPage: 50 }));
    expect(all.map((o) => o.id)).toContain(created.id);
  });

  it('404 for an unknown id', async () => {
    const err = await client.accounts.get({ id: 987654321 }).catch((e: unknown) => e);
    expect(err).toBeInstanceOf(NotFoundError);
    expect(err).toMatchObject({ status: 404, method: 'GET', path: '/api/v1/accounts/987654321' });
  });

  it('404 for an unknown external_id (get, update, archive), and null from findByExternalId', async () => {
    const missing = ext('missing');
    await expect(client.accounts.get({ externalId: missing })).rejects.toBeInstanceOf(NotFoundError);
    await expect(client.accounts.update({ externalId: missing }, { price: 1 })).rejects.toBeInstanceOf(NotFoundError);
    await expect(client.accounts.archive({ externalId: missing })).rejects.toBeInstanceOf(NotFoundError);
    await expect(client.accounts.findByExternalId(missing)).resolves.toBeNull();
  });

  it('409 for a duplicate external_id', async () => {
    const e = ext('acc');
    await client.accounts.create(accountBody(e));
    const err = await client.accounts.create(accountBody(e)).catch((x: unknown) => x);
    expect(err).toBeInstanceOf(ConflictError);
    expect(err).toMatchObject({ status: 409, retryable: false, outcomeUnknown: false });
    expect((err as ConflictError).serverMessage).toBeTruthy();
  });

  it('422 for missing required fields, with the server message', async () => {
    const err = await client.accounts.create({ external_id: ext('acc') }).catch((x: unknown) => x);
    expect(err).toBeInstanceOf(ValidationError);
    expect(err).toMatchObject({ status: 422, method: 'POST', path: '/api/v1/accounts' });
    expect((err as ValidationError).serverMessage).toBeTruthy();
    expect((err as Error).message).toContain((err as ValidationError).serverMessage);
  });

  it('401 with a wrong key, message Unauthenticated.', async () => {
    const wrong = createMarketplaceClient({ baseUrl: sandbox.url, apiKey: 'wrong-key-123' });
    try {
      const err = await wrong.accounts.get({ id: 1 }).catch((x: unknown) => x);
      expect(err).toBeInstanceOf(UnauthenticatedError);
      expect(err).toMatchObject({ status: 401, retryable: false });
      expect((err as UnauthenticatedError).serverMessage).toBe('Unauthenticated.');
      await expect(collect(wrong.accounts.list())).rejects.toBeInstanceOf(UnauthenticatedError);
      await expect(wrong.accounts.findByExternalId('abc')).rejects.toBeInstanceOf(UnauthenticatedError);
    } finally {
      await wrong.close();
    }
  });

  it('429 with Retry-After read into retryAfterMs', async () => {
    sandbox.setRateLimit({ ratePerSec: 0.5, burst: 1 });
    try {
      const results = await Promise.allSettled([0, 1, 2].map(() => client.accounts.create(accountBody(ext('acc')))));
      const limited = results.find((r): r is PromiseRejectedResult => r.status === 'rejected')?.reason as unknown;
      expect(limited).toBeInstanceOf(RateLimitedError);
      expect(limited).toMatchObject({ status: 429, rateLimited: true, retryable: true, outcomeUnknown: false });
      expect((limited as RateLimitedError).retryAfterMs).toBeGreaterThan(0);
    } finally {
      sandbox.setRateLimit(null);
    }
  });
});
