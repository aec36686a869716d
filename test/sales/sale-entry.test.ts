// sold.jsonl lines: the marketplace's sold_at when it gives one, else the time offersync saw the sale, and which;
// the title and price from the answer, else from what offersync last sent; one key per sale whichever run tells it.
import { describe, expect, it } from 'vitest';
import { currencyIn, priceIn, statusSaleEntry, titleIn, unitSaleEntry } from '../../src/sales/sale-entry.ts';

const SEEN = new Date('2027-03-01T13:00:00.000Z');

describe('sale entries', () => {
  it('an account sold: the marketplace time, title and price', () => {
    const e = statusSaleEntry(
      'account',
      'acc-1',
      {
        id: 9,
        externalId: 'acc-1',
        status: 'sold',
        soldAt: Date.parse('2027-03-01T12:00:00Z'),
        fields: { title: 'Gold', price: 4990 },
      },
      { title: 'Old title', price: 100 },
      SEEN,
    );
    expect(e).toMatchObject({
      title: 'Gold',
      price: 4990,
      currency: null,
      sold_at: '2027-03-01T12:00:00.000Z',
      sold_at_source: 'marketplace',
      seen_at: '2027-03-01T13:00:00.000Z',
      sale_key: 'account:9:sold:2027-03-01T12:00:00.000Z',
    });
  });

  it('no sold_at in the answer: the time seen, said so, and what was last sent for title and price', () => {
    const e = statusSaleEntry(
      'account',
      'acc-2',
      { id: 3, externalId: 'acc-2', status: 'refunded', fields: {} },
      { title: 'Sent', price: 250 },
      SEEN,
    );
    expect(e).toMatchObject({ title: 'Sent', price: 250, sold_at: SEEN.toISOString(), sold_at_source: 'seen' });
    // The key leaves out the time seen: a later run that tells of the same refund names the same sale.
    expect(e.sale_key).toBe('account:3:refunded');
  });

  it('units of a top-up: per-unit price and currency, keyed by the count of units sold after the sale', () => {
    const sale = {
      kind: 'topup',
      externalId: 'tu-1',
      title: '100 gems',
      price: 199,
      currency: 'EUR',
      quantity: 3,
      remoteId: 4,
      soldCount: 10,
    } as const;
    expect(unitSaleEntry(sale, SEEN)).toEqual({
      kind: 'topup',
      external_id: 'tu-1',
      id: 4,
      status: 'sold',
      sale_key: 'topup:4:count:10',
      title: '100 gems',
      price: 199,
      currency: 'EUR',
      sold_at: SEEN.toISOString(),
      sold_at_source: 'seen',
      seen_at: SEEN.toISOString(),
      quantity: 3,
      sold_count: 10,
    });
  });
});

describe('what a sale line is read from', () => {
  it('a status sale names the offer, its id and status', () => {
    const e = statusSaleEntry(
      'topup',
      'tu-2',
      { id: 5, externalId: 'tu-2', status: 'processing', fields: { offer_title: '100 gems', currency: 'USD' } },
      null,
      SEEN,
    );
    expect(e).toStrictEqual({
      kind: 'topup',
      external_id: 'tu-2',
      id: 5,
      status: 'processing',
      sale_key: 'topup:5:processing',
      title: '100 gems',
      price: null,
      currency: 'USD',
      sold_at: SEEN.toISOString(),
      sold_at_source: 'seen',
      seen_at: SEEN.toISOString(),
    });
  });

  it('the title: the first source with one, title before offer_title, an empty one skipped', () => {
    expect(titleIn({ title: 'A', offer_title: 'B' })).toBe('A');
    expect(titleIn({ offer_title: 'B' })).toBe('B');
    expect(titleIn({ title: '' }, { title: 'Sent' })).toBe('Sent');
    expect(titleIn(null, undefined, { title: 7 }, { offer_title: 'Last' })).toBe('Last');
    expect(titleIn({}, null)).toBeNull();
    expect(titleIn()).toBeNull();
  });

  it('the price: the first source with a whole number of cents', () => {
    expect(priceIn({ price: 4990 }, { price: 100 })).toBe(4990);
    expect(priceIn({ price: 49.9 }, { price: 100 })).toBe(100);
    expect(priceIn({ price: '4990' }, null, { price: 0 })).toBe(0);
    expect(priceIn({ price: 2 ** 53 })).toBeNull();
    expect(priceIn(undefined, {})).toBeNull();
  });

  it('the currency: the first source with one', () => {
    expect(currencyIn({ currency: 'EUR' }, { currency: 'USD' })).toBe('EUR');
    expect(currencyIn({ currency: '' }, null, { currency: 'USD' })).toBe('USD');
    expect(currencyIn({ currency: 978 })).toBeNull();
    expect(currencyIn()).toBeNull();
  });
});
