// What a run notes of an item's count of units sold, as a table: a rise is a sale; a first sight is a baseline;
// a catalogue stock that came to equal the marketplace's becomes the stock last sent.
import { describe, expect, it } from 'vitest';
import type { DesiredItem } from '../../src/catalogue/desired-offer.ts';
import type { RemoteOffer } from '../../src/marketplace/marketplace-client.ts';
import type { OfferRecord } from '../../src/state/records.ts';
import { soldCountNote } from '../../src/sales/sold-count.ts';
import { desiredItem, recordOf, remoteOffer, unitSale } from '../support/offers.ts';

// One item, gold-1 (remote 7), with only the fields these cases compare.
const GOLD = { title: 'Gold 1000', price: 2499 };
const desired = (stock: number): DesiredItem =>
  desiredItem('gold-1', {}, { source: { file: 'items/stock.json' }, fields: { ...GOLD, stock } });
const live = (stock: number, soldCount: number | undefined): RemoteOffer =>
  remoteOffer('gold-1', 7, { fields: { ...GOLD, stock }, ...(soldCount === undefined ? {} : { soldCount }) });
/** The row of gold-1 last sent with stock `sent`. */
const state = (sent: number, soldCount: number | null, soldCountAtSend: number | null): OfferRecord =>
  recordOf(desired(sent), 7, { soldCount, soldCountAtSend });
const sale = (quantity: number, soldCount: number) => unitSale({ quantity, soldCount });

describe('sold count', () => {
  it.each([
    ['nothing sold since', desired(5), state(5, 0, 0), live(5, 0), undefined],
    ['2 units sold', desired(5), state(5, 0, 0), live(3, 2), { soldCount: 2, sale: sale(2, 2) }],
    ['2 more units sold', desired(5), state(5, 2, 0), live(1, 4), { soldCount: 4, sale: sale(2, 4) }],
    ['first sight: a baseline', desired(5), state(5, null, null), live(5, 2), { soldCount: 2, atSend: 2 }],
    [
      'first sight, stock lowered by its sales: the baseline before them',
      desired(5),
      state(5, null, null),
      live(3, 2),
      { soldCount: 2, atSend: 0 },
    ],
    ['first sight, stock lowered by more', desired(5), state(5, null, null), live(1, 2), { soldCount: 2, atSend: 2 }],
    ['not in state: a baseline', desired(5), undefined, live(5, 9), { soldCount: 9, atSend: 9 }],
    ['a count that fell (a refund): no sale', desired(5), state(5, 3, 0), live(5, 1), { soldCount: 1 }],
    ['no count shown', desired(5), state(5, 0, 0), live(3, undefined), undefined],
    [
      'the catalogue caught up with a sale',
      desired(3),
      state(5, 2, 0),
      live(3, 2),
      { soldCount: 2, atSend: 2, agreedStock: 3 },
    ],
    [
      'a sale and the catalogue caught up with it',
      desired(3),
      state(5, 0, 0),
      live(3, 2),
      { soldCount: 2, sale: sale(2, 2), atSend: 2, agreedStock: 3 },
    ],
    ['the catalogue changed, not in agreement', desired(8), state(5, 2, 0), live(3, 2), undefined],
  ] as const)('%s', (_name, d, rec, l, note) => {
    const got = soldCountNote({ desired: d, state: rec, live: l });
    expect(got).toStrictEqual(note === undefined ? undefined : { kind: 'item', externalId: 'gold-1', ...note });
  });

  it('an offer listed again under a new id starts a new count: a baseline, no sale', () => {
    const got = soldCountNote({ desired: desired(5), state: { ...state(5, 1, 0), remoteId: 6 }, live: live(5, 4) });
    expect(got).toEqual({ kind: 'item', externalId: 'gold-1', soldCount: 4, atSend: 4 });
  });

  it('an offer no longer in the catalogue: its sales are still told, its baseline kept', () => {
    expect(soldCountNote({ desired: undefined, state: state(5, 1, 0), live: live(3, 3) })).toEqual({
      kind: 'item',
      externalId: 'gold-1',
      soldCount: 3,
      sale: { ...sale(2, 3), title: 'Gold 1000', price: 2499 },
    });
    // In neither the catalogue nor the state db: no kind to note it under.
    expect(soldCountNote({ desired: undefined, state: undefined, live: live(3, 3) })).toBeUndefined();
  });

  it('a sale of an offer the list shows without title or price: the catalogue names it', () => {
    const bare = remoteOffer('gold-1', 7, { fields: { stock: 3 }, soldCount: 2 });
    expect(soldCountNote({ desired: desired(5), state: state(5, 0, 0), live: bare })?.sale).toEqual(sale(2, 2));
  });

  it('a catalogue entry with no stock: the baseline is the count now', () => {
    const noStock = desiredItem('gold-1', {}, { fields: { ...GOLD } });
    expect(soldCountNote({ desired: noStock, state: state(5, null, null), live: live(3, 2) })).toEqual({
      kind: 'item',
      externalId: 'gold-1',
      soldCount: 2,
      atSend: 2,
    });
  });

  it('a top-up is noted as a top-up, with its currency', () => {
    const tu = remoteOffer('rp-1', 9, {
      fields: { offer_title: 'RP', price: 999, currency: 'EUR', stock: 1 },
      soldCount: 5,
    });
    const rec = { ...state(5, 4, 0), kind: 'topup' as const, externalId: 'rp-1', remoteId: 9 };
    expect(soldCountNote({ desired: undefined, state: rec, live: tu })?.sale).toEqual({
      kind: 'topup',
      externalId: 'rp-1',
      title: 'RP',
      price: 999,
      currency: 'EUR',
      quantity: 1,
      remoteId: 9,
      soldCount: 5,
    });
  });

  it('first sight with the marketplace holding more than the catalogue: the baseline is the count now', () => {
    expect(soldCountNote({ desired: desired(5), state: state(5, null, null), live: live(8, 2) })).toStrictEqual({
      kind: 'item',
      externalId: 'gold-1',
      soldCount: 2,
      atSend: 2,
    });
  });

  it('first sight of an offer no longer in the catalogue: the baseline is the count now', () => {
    expect(soldCountNote({ desired: undefined, state: state(5, null, null), live: live(3, 2) })).toStrictEqual({
      kind: 'item',
      externalId: 'gold-1',
      soldCount: 2,
      atSend: 2,
    });
  });

  it('no stock ever sent: a catalogue stock equal to the marketplace is no agreement to record', () => {
    const neverSent = recordOf(desiredItem('gold-1', {}, { fields: { ...GOLD } }), 7, {
      soldCount: 2,
      soldCountAtSend: 0,
    });
    expect(soldCountNote({ desired: desired(3), state: neverSent, live: live(3, 2) })).toBeUndefined();
    const nothingSent = { ...state(5, 2, 0), lastApplied: null };
    expect(soldCountNote({ desired: desired(3), state: nothingSent, live: live(3, 2) })).toBeUndefined();
  });

  it('an account sells whole: no note', () => {
    const acc: RemoteOffer = { id: 1, externalId: 'a', status: 'listed', fields: {}, soldCount: 3 };
    expect(soldCountNote({ desired: undefined, state: { ...state(5, 0, 0), kind: 'account' }, live: acc })).toBe(
      undefined,
    );
  });
});
