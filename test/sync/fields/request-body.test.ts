// Request bodies: a create sends the external_id and every field, an update the planned values; credentials go
// only in an account's body, and only when they are to be sent.
import { describe, expect, it } from 'vitest';
import type { MarketplaceClient } from '../../../src/marketplace/marketplace-client.ts';
import { changesToBody, createBody, credentialValues, withCredentials } from '../../../src/sync/fields/request-body.ts';
import { resourceOf } from '../../../src/sync/fields/resource-of.ts';
import { desiredAccount, desiredItem } from '../../support/offers.ts';

// The fields of these cases, nothing more: the bodies below list them all.
const account = desiredAccount(
  'acc-1',
  {},
  { fields: { title: 'T', price: 1 }, credentials: { login: 'me', password: 'pw' } },
);
const item = desiredItem('it-1', {}, { fields: { title: 'T', price: 1 } });

describe('request bodies', () => {
  it('an update sends each change at its desired value', () => {
    expect(
      changesToBody([
        { field: 'price', from: 1, to: 2, why: 'changed' },
        { field: 'title', from: 'a', to: 'b', why: 'drift' },
      ]),
    ).toEqual({ price: 2, title: 'b' });
    expect(changesToBody([])).toEqual({});
  });

  it('a create sends the external_id, every field and an account its credentials', () => {
    expect(createBody(account, { title: 'T', price: 1 })).toEqual({
      external_id: 'acc-1',
      title: 'T',
      price: 1,
      credentials: { login: 'me', password: 'pw' },
    });
    expect(createBody(item, { title: 'T', price: 1 })).toEqual({ external_id: 'it-1', title: 'T', price: 1 });
  });

  it('adds credentials only to an account that has them, when they are to be sent', () => {
    const body = { price: 3 };
    expect(withCredentials(body, account, true)).toEqual({ price: 3, credentials: { login: 'me', password: 'pw' } });
    expect(withCredentials(body, account, false)).toBe(body);
    const { credentials: _c, ...bare } = account;
    expect(withCredentials(body, bare, true)).toBe(body);
    expect(withCredentials(body, item, true)).toBe(body);
    expect(body).toEqual({ price: 3 });
  });
});

describe('credentialValues', () => {
  it("are an account's credential values, to scrub from answers; none for an account without or an item", () => {
    expect(credentialValues(account)).toEqual(['me', 'pw']);
    const { credentials: _c, ...bare } = account;
    expect(credentialValues(bare)).toEqual([]);
    expect(credentialValues(item)).toEqual([]);
  });
});

describe('resourceOf', () => {
  it('serves each kind from its own resource', () => {
    const client = { accounts: 'A', items: 'I', topUps: 'T' } as unknown as MarketplaceClient;
    expect([resourceOf(client, 'account'), resourceOf(client, 'item'), resourceOf(client, 'topup')]).toEqual([
      'A',
      'I',
      'T',
    ]);
  });
});
