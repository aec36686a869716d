// sold.jsonl lines: the marketplace's sold_at when it gives one, else the time offersync saw the sale, and which;
// the title and price from the answer, else from what offersync last sent; one key per sale whichever run tells it.
import { describe, expect, it } from 'vitest';
import { statusSaleEntry, unitSaleEntry } from '../../src/sync/sale-entry.ts';

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
