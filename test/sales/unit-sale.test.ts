// Units of items and top-ups sold: which kinds sell in units, and the line a seller reads of a sale.
import { describe, expect, it } from 'vitest';
import { describeSale, isUnitKind, type UnitSale } from '../../src/sales/unit-sale.ts';
import { unitSale } from '../support/offers.ts';

const sale = (over: Partial<UnitSale> = {}): UnitSale => unitSale({ soldCount: 9, ...over });

describe('unit sales', () => {
  it('items and top-ups sell in units; an account sells whole', () => {
    expect(isUnitKind('item')).toBe(true);
    expect(isUnitKind('topup')).toBe(true);
    expect(isUnitKind('account')).toBe(false);
  });

  it('a sale is told with its kind, external_id, title and units', () => {
    expect(describeSale(sale())).toBe('item gold-1 (Gold 1000): 2 units sold');
    expect(describeSale(sale({ kind: 'topup', externalId: 'rp-1', title: 'RP 1380', quantity: 1 }))).toBe(
      'topup rp-1 (RP 1380): 1 unit sold',
    );
  });

  it('a sale of an offer whose title is not known is told without one', () => {
    expect(describeSale(sale({ title: null }))).toBe('item gold-1: 2 units sold');
    expect(describeSale(sale({ title: '' }))).toBe('item gold-1: 2 units sold');
  });
});
