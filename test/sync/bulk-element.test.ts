// What a bulk call sends for one offer: its marketplace id and the fields the route reads, never its external_id;
// a top-up's title and amount under the document's name and the real server's.
import { describe, expect, it } from 'vitest';
import { BULK_CANDIDATES, bulkElement, carries } from '../../src/sync/plan/bulk-candidates.ts';

describe('bulk elements', () => {
  it.each([
    ['top-up price and stock', 'topUpUpdate', { price: 500, stock: 2 }, { id: 7, price: 500, stock: 2 }],
    [
      'top-up title and amount, under both names',
      'topUpUpdate',
      { offer_title: 'Gems', offer_amount: 60 },
      { id: 7, offer_title: 'Gems', title: 'Gems', offer_amount: 60, amount: 60 },
    ],
    ['an archive by bulk-update', 'topUpUpdate', { status: 'archived' }, { id: 7, status: 'archived' }],
    ['item fields as named', 'itemUpdate', { title: 'Sword', price: 9 }, { id: 7, title: 'Sword', price: 9 }],
    ['a bulk-remove: the id alone', 'itemRemove', { status: 'archived' }, 7],
  ] as const)('%s', (_name, candidate, body, element) => {
    expect(bulkElement(BULK_CANDIDATES[candidate], 7, body)).toEqual(element);
  });

  it('a top-up bulk-update carries the nine fields the real route reads, not unit, image or the rest', () => {
    const c = BULK_CANDIDATES.topUpUpdate;
    const read = ['price', 'stock', 'region', 'platform', 'service_label', 'instructions', 'status'];
    for (const f of [...read, 'offer_title', 'offer_amount']) expect(carries(c, f)).toBe(true);
    for (const f of ['offer_unit', 'image', 'game', 'currency', 'min_quantity', 'active'])
      expect(carries(c, f)).toBe(false);
    expect(carries(BULK_CANDIDATES.itemUpdate, 'description')).toBe(true);
  });
});
