// The fields of an offer by name across kinds: their names in a stable order, and the title a seller knows it by.
import { describe, expect, it } from 'vitest';
import { fieldNames, offerTitle } from '../../../src/sync/fields/offer-fields.ts';

describe('offer fields', () => {
  it('names the fields an offer states, sorted', () => {
    expect(fieldNames({ title: 'T', price: 1, game: 'lol' })).toEqual(['game', 'price', 'title']);
  });

  it('titles an account or item by its title, a top-up by its offer_title, and an offer with neither by null', () => {
    expect(offerTitle({ title: 'Gold account', price: 1 })).toBe('Gold account');
    expect(offerTitle({ offer_title: '1380 RP', price: 1 })).toBe('1380 RP');
    expect(offerTitle({ title: 'T', offer_title: 'O' })).toBe('T');
    expect(offerTitle({ price: 1 })).toBeNull();
  });
});
