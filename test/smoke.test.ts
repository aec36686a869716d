import { describe, expect, it } from 'vitest';
import { OFFER_KINDS } from '../src/catalogue/desired-offer.ts';

describe('skeleton', () => {
  it('knows the three kinds of offer', () => {
    expect(OFFER_KINDS).toEqual(['account', 'item', 'topup']);
  });
});
