// The rule that keeps a sale from being undone, as a table: a lower stock the marketplace's sales explain is not
// drift; a catalogue change is sent as written; a change no sale explains is drift.
import { describe, expect, it } from 'vitest';
import type { FieldChange } from '../../../src/sync/fields/field-change.ts';
import { type StockPicture, stockVerdict, withoutSales } from '../../../src/sync/plan/sale-or-drift.ts';
import { remoteOffer } from '../../support/offers.ts';

const sent5: StockPicture = { desired: 5, lastSent: 5, live: 5, soldNow: 0, soldAtSend: 0 };

describe('sale or drift', () => {
  it.each([
    ['the marketplace holds the catalogue stock', sent5, 'same'],
    ['2 units sold, stock lowered by 2', { ...sent5, live: 3, soldNow: 2 }, 'sale'],
    ['2 more units sold after an earlier sale', { ...sent5, live: 1, soldNow: 4 }, 'sale'],
    ['2 units sold, the marketplace keeps stock apart', { ...sent5, live: 5, soldNow: 2 }, 'same'],
    ['stock lowered by 2, no sale', { ...sent5, live: 3, soldNow: 0 }, 'drift'],
    ['stock lowered by 3, 2 units sold', { ...sent5, live: 2, soldNow: 2 }, 'drift'],
    ['stock raised on the website', { ...sent5, live: 9, soldNow: 2 }, 'drift'],
    ['no sold count shown', { ...sent5, live: 3, soldNow: undefined }, 'drift'],
    ['catalogue stock changed', { ...sent5, desired: 3, live: 4, soldNow: 1 }, 'changed'],
    ['catalogue stock raised after a sale', { ...sent5, desired: 8, live: 3, soldNow: 2 }, 'changed'],
    ['never sent', { ...sent5, lastSent: undefined, live: 3 }, 'changed'],
    ['adopted: its sales explain the lower stock', { ...sent5, lastSent: undefined, live: 3, soldNow: 2 }, 'sale'],
    ['adopted: its sales fall short', { ...sent5, lastSent: undefined, live: 1, soldNow: 2 }, 'changed'],
    ['count at send unknown, sales cover the fall', { ...sent5, live: 3, soldNow: 7, soldAtSend: null }, 'sale'],
    ['count at send unknown, sales fall short', { ...sent5, live: 1, soldNow: 3, soldAtSend: null }, 'drift'],
    ['count at send unknown, sales exactly the fall', { ...sent5, live: 3, soldNow: 2, soldAtSend: null }, 'sale'],
    ['2 units sold since a send at count 5', { ...sent5, live: 3, soldNow: 7, soldAtSend: 5 }, 'sale'],
    [
      '3 units sold since a send at count 5, stock lowered by 2',
      { ...sent5, live: 3, soldNow: 8, soldAtSend: 5 },
      'drift',
    ],
    [
      'stock raised on the website, count at send unknown',
      { ...sent5, live: 9, soldNow: 2, soldAtSend: null },
      'drift',
    ],
    ['adopted above the catalogue stock', { ...sent5, lastSent: undefined, live: 7, soldNow: 2 }, 'changed'],
    ['adopted, no sold count shown', { ...sent5, lastSent: undefined, live: 3, soldNow: undefined }, 'changed'],
  ] as const)('%s: %s', (_name, picture, verdict) => {
    expect(stockVerdict(picture)).toBe(verdict);
  });
});

describe('changes less a sale', () => {
  const stock = (from: number, to: number, why: FieldChange['why']): FieldChange => ({ field: 'stock', from, to, why });
  const price: FieldChange = { field: 'price', from: 100, to: 200, why: 'changed' };
  const sent = { stock: 5, price: 100 };
  const live = (stockShown: unknown, soldCount?: number) =>
    remoteOffer('gold-1', 7, { fields: { stock: stockShown }, ...(soldCount === undefined ? {} : { soldCount }) });

  it('drops a stock drift the sales since the last send explain, and keeps the rest', () => {
    const changes = [price, stock(3, 5, 'drift')];
    expect(withoutSales(changes, sent, live(3, 4), 2)).toEqual([price]);
  });

  it('keeps a stock drift no sale explains', () => {
    const changes = [price, stock(3, 5, 'drift')];
    expect(withoutSales(changes, sent, live(3, 3), 2)).toBe(changes);
  });

  it('finds the stock among other drift', () => {
    const priceDrift: FieldChange = { ...price, why: 'drift' };
    expect(withoutSales([priceDrift, stock(3, 5, 'drift')], sent, live(3, 4), 2)).toEqual([priceDrift]);
  });

  it('sends a stock never sent to an offer already mapped as written', () => {
    const changes = [stock(3, 5, 'unsent')];
    expect(withoutSales(changes, { price: 100 }, live(3, 2), 0)).toBe(changes);
  });

  it('keeps a stock the catalogue changed, whatever sold', () => {
    const changes = [stock(3, 4, 'changed')];
    expect(withoutSales(changes, sent, live(3, 4), 2)).toBe(changes);
  });

  it('an offer being adopted: drops a stock its sales explain, whatever the change is called', () => {
    const changes = [stock(3, 5, 'unsent')];
    expect(withoutSales(changes, null, live(3, 2), null)).toEqual([]);
    expect(withoutSales(changes, null, live(3, 1), null)).toBe(changes);
  });

  it('a stock never sent before is judged as an adoption: by the sales since the listing', () => {
    const changes = [price, stock(3, 5, 'drift')];
    expect(withoutSales(changes, { price: 100 }, live(3, 2), 0)).toEqual([price]);
    expect(withoutSales(changes, { price: 100, stock: '5' }, live(3, 2), 0)).toEqual([price]);
    expect(withoutSales(changes, { price: 100 }, live(3, 1), 0)).toBe(changes);
  });

  it('leaves the changes alone when there is no stock to compare', () => {
    const changes = [price];
    expect(withoutSales(changes, sent, live(3, 2), 0)).toBe(changes);
    const drift = [stock(3, 5, 'drift')];
    expect(withoutSales(drift, sent, live('3', 2), 0)).toBe(drift);
    expect(withoutSales(drift, sent, live(undefined, 2), 0)).toBe(drift);
  });
});
